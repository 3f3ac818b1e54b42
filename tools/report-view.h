/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ktau-report's inputs: a saved profile or an archive, and the blocks it
 * reports from them, per process or per thread.
 */
#ifndef KTAU_TOOLS_REPORT_VIEW_H
#define KTAU_TOOLS_REPORT_VIEW_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include <ktau.h>

struct report_input {
	const char *path;
	struct ktau_archive *archive;	/* NULL for a profile text file */
	struct ktau_profile **profiles;	/* the file's, or the archive's */
	size_t nr_profiles;
};

struct view_options {
	bool threads;	/* a block per thread, else per process */
	bool children;	/* also the children blocks */
	pid_t pid;	/* only this process; 0: all */
};

/* Reads path; 0, or -errno after printing what is wrong with it. */
int report_input_open(struct report_input *in, const char *path);
void report_input_close(struct report_input *in);
/* The groups in the input, into g: an archive's function map's (every
 * group its kernel had) and its profiles', or the profile's. 0 or -errno. */
struct group_set;
int report_input_groups(const struct report_input *in, struct group_set *g);
/* "# FILE: ..." naming what the input is. */
void report_input_describe(FILE *out, const struct report_input *in);

/*
 * One profile with the blocks to report: per process, the process totals
 * (a system profile's thread and exited blocks summed per process); per
 * thread, the thread blocks (and a system profile's exited blocks). NULL
 * with errno set; EINVAL when the profiles disagree on tsc_khz.
 */
struct ktau_profile *report_view(const struct report_input *in,
				 const struct view_options *o);

#endif
