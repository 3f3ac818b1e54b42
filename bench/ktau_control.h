/* SPDX-License-Identifier: GPL-2.0 */
/* Lines of /proc/ktau/control, for the benchmarks. */
#ifndef KTAU_BENCH_CONTROL_H
#define KTAU_BENCH_CONTROL_H

/* Tasks with a ktau profile and the bytes those profiles take; -1 on error. */
int ktau_memory(unsigned long *tasks, unsigned long *bytes);

/* Threads with a registered user context word (`contexts`); -1 on error. */
long ktau_contexts(void);

#endif
