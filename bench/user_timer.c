// SPDX-License-Identifier: GPL-2.0
/*
 * user_timer — what a libktau user timer costs: instructions per
 * ktau_timer_start() + ktau_timer_stop() pair, with the kernel merge on
 * (the context word registered, if the kernel takes it) and off
 * (KTAU_KERNEL_MERGE=0), and the system calls a pair makes, counted by
 * the kernel's own profile of the thread.  A benchmark for `make bench`
 * (issue 7), not a test: run it under `qemu -icount shift=0`, where the
 * TSC counts instructions (see icount.h); elsewhere the numbers are TSC
 * cycles.
 *
 *   user_timer
 *
 * Prints, for VARIANT merge and nomerge:
 *   BENCH user_timer.VARIANT INSTRUCTIONS      per pair, the empty loop's cost
 *                                              subtracted
 *   BENCH user_timer.VARIANT.syscalls N        system calls per 1000 pairs
 *                                              (-1: no ktau profile to count them)
 * and "BENCH user_timer.merge_refused 1" when the kernel refuses the word.
 * Each variant runs in its own process (the merge is decided when the
 * profiler starts); their profiles go to a temporary directory, removed.
 * Exit status: 0 done, 1 a variant failed, 2 bad usage.
 */
#define _GNU_SOURCE
#include <ktau-prof.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "icount.h"

#define COUNTED_PAIRS	1000

static void pairs(void *arg, long n)
{
	struct ktau_timer *t = arg;

	for (long i = 0; i < n; i++) {
		ktau_timer_start(t);
		ktau_timer_stop(t);
	}
}

static void empty(void *arg, long n)
{
	for (long i = 0; i < n; i++)
		__asm__ volatile("" : : "r"(arg) : "memory");
}

/* System calls this thread made so far, from its ktau profile; -1 if none. */
static long long syscalls_so_far(void)
{
	KTAU_OPTS(ktau_read_opts, opts, .pid = getpid(), .tid = (pid_t)syscall(SYS_gettid));
	struct ktau_proc *proc = ktau_proc_open(NULL, NULL);
	struct ktau_profile *p = proc ? ktau_proc_read_profile(proc, &opts, NULL) : NULL;
	const struct ktau_block *b = p ? ktau_profile_block(p, 0) : NULL;
	long long n = 0;

	ktau_proc_close(proc);
	if (!b) {
		ktau_profile_free(p);
		return -1;
	}
	for (size_t i = 0; i < ktau_block_func_count(b); i++) {
		const struct ktau_func *f = ktau_block_func(b, i);

		if (!strcmp(f->group, "syscall"))
			n += (long long)f->calls;
	}
	ktau_profile_free(p);
	return n;
}

/* The system calls of COUNTED_PAIRS pairs, those of reading the count taken out. */
static long long syscalls_per_1000(struct ktau_timer *t)
{
	long long a, b, c;

	syscalls_so_far();	/* the reader's own first-use allocations */
	a = syscalls_so_far();
	b = syscalls_so_far();

	pairs(t, COUNTED_PAIRS);
	c = syscalls_so_far();
	if (a < 0 || b < 0 || c < 0)
		return -1;
	return (c - b) - (b - a);
}

static void measure(const char *variant)
{
	struct ktau_timer *outer = ktau_timer_get("bench", NULL);
	struct ktau_timer *t = ktau_timer_get("pair", NULL);
	struct icount_op op = { "pair", NULL, pairs, NULL, t, 0 };
	struct icount_op base = { "empty", NULL, empty, NULL, t, 0 };
	double cost;

	ktau_timer_start(outer);
	pairs(t, 1000);		/* the thread registers, the callpath node exists */
	cost = icount_per_call(&op) - icount_per_call(&base);
	printf("BENCH user_timer.%s %.1f\n", variant, cost);
	printf("BENCH user_timer.%s.syscalls %lld\n", variant, syscalls_per_1000(t));
	fflush(stdout);
	ktau_timer_stop(outer);
}

static int run_variant(const char *dir, int merge, const char *variant)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		setenv("KTAU_PROFILE_DIR", dir, 1);
		if (!merge)
			setenv("KTAU_KERNEL_MERGE", "0", 1);
		measure(variant);
		exit(0);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       !WEXITSTATUS(status) ? 0 : -1;
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/ktau-bench-XXXXXX", cmd[64];
	static uint32_t word;
	int ret;

	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "usage: user_timer\n");
		return 2;
	}
	if (prctl(PR_KTAU_SET_CONTEXT, (unsigned long)&word, 0UL, 0UL, 0UL))
		printf("BENCH user_timer.merge_refused 1\n");
	else
		prctl(PR_KTAU_SET_CONTEXT, 0UL, 0UL, 0UL, 0UL);
	if (!mkdtemp(dir)) {
		perror("user_timer: mkdtemp");
		return 1;
	}
	ret = run_variant(dir, 1, "merge") | run_variant(dir, 0, "nomerge");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "user_timer: could not remove %s\n", dir);
	return ret ? 1 : 0;
}
