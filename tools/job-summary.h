/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ktau-report --job: the summary of an MPI job's profile directory, one
 * profile.<rank>.0.<thread> per thread (libktau's TAU reader), and of the
 * node profiles ktau-run --node-profile saved next to it. Computed here,
 * printed by job-print.c.
 */
#ifndef KTAU_TOOLS_JOB_SUMMARY_H
#define KTAU_TOOLS_JOB_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>

#include <ktau.h>

#include "profile-select.h"

/* The group every kernel routine of a merged profile has (TAU's KTAU
 * merge); its other group is the kind: KTAU_SYSCALL, KTAU_IRQ, ... */
#define JOB_KERNEL_GROUP "TAU_KERNEL_MERGE"

/* Time sums, in the profiles' unit (TIME: microseconds). */
struct job_times {
	double total;		/* every routine's exclusive time */
	double kernel;		/* the kernel routines' */
	double *group;		/* the kernel routines' per kernel group */
};

struct job_rank {
	unsigned int rank;	/* the files' node number */
	const char *host;	/* its metadata's Hostname ("?" if none) */
	size_t node;		/* index in the summary's nodes */
	size_t threads;
	long pid;		/* "KTAU pid" metadata, -1 if none */
	struct job_times t;
};

/* Between a node's start and end archives: its processes' kernel time. */
struct job_task {
	long pid;
	const char *comm;
	double kernel;		/* microseconds */
	long rank;		/* the job's rank with that pid on that node, or -1 */
};

struct job_node {
	const char *host;
	bool own_host;		/* host allocated here (a node without ranks) */
	size_t ranks, threads;
	struct job_times t;
	/* from node.<host>.start.ktar and .end.ktar, when both exist */
	bool has_activity;
	char *activity_note;	/* why there is none, or a caveat; may be NULL */
	double activity_kernel;	/* every process's kernel time */
	struct group_set activity_groups;
	double *activity_group;	/* per activity_groups entry */
	struct job_task *tasks;	/* sorted by kernel time, largest first */
	size_t nr_tasks;
};

/* One routine across ranks: its inclusive time per rank (0 where a rank
 * lacks it). */
struct job_routine {
	const char *name;
	double min, mean, max;
	unsigned int min_rank, max_rank;
};

struct job_summary {
	char *dir;			/* where the profiles are */
	const char *metric;
	struct ktau_tau_dir *profiles;
	struct group_set groups;	/* the kernel groups, first seen first */
	struct job_rank *ranks;		/* by rank */
	size_t nr_ranks, nr_threads;
	struct job_node *nodes;		/* by host name */
	size_t nr_nodes;
	struct job_routine *routines;	/* by max - mean, largest first */
	size_t nr_routines;
	size_t *by_kernel;		/* rank indexes by kernel time, largest first */
};

/*
 * Reads DIR: its profile files, or else those of DIR/tau-user or DIR/tau
 * (a ktau-run -o DIR), and DIR's node.<host>.{start,end}.ktar. 0, or
 * -errno after a message on stderr naming what failed.
 */
int job_summary_read(struct job_summary *s, const char *dir);
void job_summary_free(struct job_summary *s);

/* The text report (top: rows of the rank and routine lists, 0: 10). */
void job_print_text(FILE *out, const struct job_summary *s, size_t top);
/* The same as one JSON object (docs/json-schema.md, "Job summaries"). */
void job_print_json(FILE *out, const struct job_summary *s, size_t top);

#endif /* KTAU_TOOLS_JOB_SUMMARY_H */
