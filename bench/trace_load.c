// SPDX-License-Identifier: GPL-2.0
/*
 * trace_load — the workload of `make bench`'s drain row (issue 18): N
 * getpid() calls, two trace events each, run under ktau-trace in a guest
 * under `qemu -icount shift=0`, where one instruction is one nanosecond
 * of guest time.  The loop's instructions (TSC ticks) give the rate at
 * which its events came, which ktau-trace's summary says it drained, and
 * with how many lost.
 *
 *   trace_load N
 *
 * Prints "BENCH tracedrain.calls N" and "BENCH tracedrain.instructions I".
 * Exit status: 0 done, 2 bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>

#include "icount.h"

int main(int argc, char **argv)
{
	uint64_t start, end;
	char *end_arg;
	long n, i;

	if (argc != 2) {
		fprintf(stderr, "usage: trace_load N\n");
		return 2;
	}
	n = strtol(argv[1], &end_arg, 10);
	if (*end_arg || n <= 0) {
		fprintf(stderr, "trace_load: N must be a positive number: %s\n",
			argv[1]);
		return 2;
	}
	start = icount_now();
	for (i = 0; i < n; i++)
		sys3(SYS_getpid, 0, 0, 0);
	end = icount_now();
	printf("BENCH tracedrain.calls %ld\n", n);
	printf("BENCH tracedrain.instructions %llu\n",
	       (unsigned long long)(end - start));
	return 0;
}
