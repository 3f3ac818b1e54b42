/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A synthetic MPI job's TAU profile directory of known totals, written
 * directly (not through libktau's writer): each rank a main thread with
 * kernel routines under MPI routines (main => MPI_Recv() =>
 * schedule_vol(), ...), message-size events and Hostname metadata, and
 * worker threads with page faults. Rank r's kernel time grows with r, so
 * the last rank has the most and main, MPI_Recv() and schedule_vol() are
 * imbalanced. For the 1000-rank test and `make bench-job`.
 */
#ifndef KTAU_TEST_JOB_GEN_H
#define KTAU_TEST_JOB_GEN_H

#include <stddef.h>

struct job_gen {
	unsigned int ranks;
	unsigned int threads;	/* per rank, >= 1 */
	unsigned int nodes;	/* hosts node00, node01, ...; ranks in blocks */
};

/* What ktau-report --job must find (times in microseconds, whole numbers). */
struct job_gen_totals {
	size_t files;
	double total, kernel;
	double syscall, schedule, irq, exception;	/* kernel time per group */
	unsigned int top_kernel_rank;	/* the rank with the most kernel time */
	double top_kernel;
	double main_min, main_max;	/* main's inclusive time over ranks */
	unsigned int main_min_rank, main_max_rank;
	unsigned int first_node_ranks;	/* ranks on node00 */
};

/* Writes dir's files (dir must exist); 0 or -errno. */
int job_gen_write(const char *dir, const struct job_gen *g, struct job_gen_totals *t);

#endif /* KTAU_TEST_JOB_GEN_H */
