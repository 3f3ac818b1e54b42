/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running the ktau command-line tools from guest tests, and reading the
 * numbers back out of their text output.
 */
#ifndef TOOLRUN_H
#define TOOLRUN_H

#include <stdint.h>
#include <sys/types.h>

#define TOOL_DIR "/usr/local/bin"
#define NOBODY 65534
#define NO_KTAU_ROOT "/tmp/no-ktau-procfs"	/* an empty /proc root */

struct tool_result {
	int status;	/* exit status, 128 + signal, or -1 */
	char *out;	/* stdout, NUL-terminated (never NULL after tool_run) */
	char *err;	/* stderr */
};

/*
 * Runs argv (argv[0] a path) with stdin from /dev/null, extra "NAME=value"
 * environment entries (NULL-terminated list, may be NULL), as user nobody
 * when as_nobody. 0, or -1 with the reason printed as a FAIL line of check.
 */
int tool_run(const char *check, char *const argv[], char *const env_add[], int as_nobody,
	     struct tool_result *r);
void tool_result_free(struct tool_result *r);

/* Drops to uid/gid NOBODY, dumpable as a program it exec'ed would be;
 * 0 or -1. */
int tool_drop_root(void);

/* The first line of text starting with prefix, blanks squeezed, copied
 * into buf; NULL if none. */
const char *tool_line(const char *text, const char *prefix, char *buf, size_t size);

/* The calls column of a flat table's row for routine (ktau-dump/ktau-run
 * layout: routine group calls ...); -1 when there is no such row. */
long long tool_table_calls(const char *text, const char *routine);

/* This program's own path into buf, for running it as a workload. */
const char *tool_self_path(char *buf, size_t size);

#endif
