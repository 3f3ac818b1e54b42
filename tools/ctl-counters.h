/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ktau-ctl counters (ctl-counters.c): the shared counter area checked
 * against the thread's own /proc profile. */
#ifndef KTAU_CTL_COUNTERS_H
#define KTAU_CTL_COUNTERS_H

/* The exit code when an area value disagrees with /proc or the kernel
 * could not write the area: what an end-to-end check tests for. */
#define EXIT_MISMATCH 3

/* args: [--calls N] NAME...; returns the exit code. */
int ctl_counters(char **args, int n);

#endif
