// SPDX-License-Identifier: GPL-2.0
/* The measuring loop of the benchmarks: see icount.h. */
#include "icount.h"

static uint64_t icount_run(const struct icount_op *op, long n)
{
	uint64_t t0, t1;

	if (op->setup)
		op->setup(op->arg, n);
	t0 = icount_now();
	op->run(op->arg, n);
	t1 = icount_now();
	if (op->teardown)
		op->teardown(op->arg, n);
	return t1 - t0;
}

double icount_per_call(const struct icount_op *op)
{
	long trial = 8, n;
	uint64_t best = UINT64_MAX;

	/* also the warm-up: first-use costs (page faults, table inserts) */
	n = (long)(ICOUNT_RUN_BUDGET / (icount_run(op, trial) / trial + 1));
	if (n < 4)
		n = 4;
	if (n > 200000)
		n = 200000;
	if (op->iterations)
		n = op->iterations;
	for (int r = 0; r < ICOUNT_RUNS; r++) {
		uint64_t t;

		if (r)
			icount_loop2((long)r * ICOUNT_PHASE_SPAN / ICOUNT_RUNS / 2);
		t = icount_run(op, n);

		if (t < best)
			best = t;
	}
	return (double)best / (double)n;
}
