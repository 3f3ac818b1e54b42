// SPDX-License-Identifier: GPL-2.0
/*
 * user_timer — what a libktau user timer costs: cycles (and, where the
 * PMU is readable, user-mode instructions) per ktau_timer_start() +
 * ktau_timer_stop() pair, with the kernel merge on (the context word
 * registered, if the kernel takes it) and off (KTAU_KERNEL_MERGE=0).
 * A benchmark for `make bench` (issue 7), not a test: under QEMU's
 * -icount the TSC advances per instruction, so the cycles are repeatable.
 *
 *   user_timer [PAIRS]      (default 200000)
 *
 * Each variant runs in its own process (the merge is decided when the
 * profiler starts); their profiles go to a temporary directory, removed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ktau.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* A counter of this process's user-mode instructions, or -1. */
static int instructions_counter(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};

	return (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
}

static long long counter_read(int fd)
{
	long long v = 0;

	if (fd < 0 || read(fd, &v, sizeof(v)) != sizeof(v))
		return -1;
	return v;
}

static void measure(long pairs, const char *variant)
{
	struct ktau_timer *outer = ktau_timer_get("bench", NULL);
	struct ktau_timer *t = ktau_timer_get("pair", NULL);
	int fd = instructions_counter();
	unsigned long long c0, c1;
	long long i0, i1;

	/* warm up: the thread registers, the callpath node exists */
	ktau_timer_start(outer);
	for (long i = 0; i < 1000; i++) {
		ktau_timer_start(t);
		ktau_timer_stop(t);
	}
	if (fd >= 0) {
		ioctl(fd, PERF_EVENT_IOC_RESET, 0);
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	}
	i0 = counter_read(fd);
	c0 = __builtin_ia32_rdtsc();
	for (long i = 0; i < pairs; i++) {
		ktau_timer_start(t);
		ktau_timer_stop(t);
	}
	c1 = __builtin_ia32_rdtsc();
	i1 = counter_read(fd);
	ktau_timer_stop(outer);
	printf("user_timer: %s: %.1f cycles", variant, (double)(c1 - c0) / (double)pairs);
	if (i0 >= 0 && i1 >= 0)
		printf(", %.1f instructions", (double)(i1 - i0) / (double)pairs);
	printf(" per start/stop pair (%ld pairs)\n", pairs);
	fflush(stdout);
}

static int run_variant(long pairs, const char *dir, int merge, const char *variant)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		setenv("KTAU_PROFILE_DIR", dir, 1);
		if (!merge)
			setenv("KTAU_KERNEL_MERGE", "0", 1);
		measure(pairs, variant);
		exit(0);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       !WEXITSTATUS(status) ? 0 : -1;
}

int main(int argc, char **argv)
{
	long pairs = argc > 1 ? strtol(argv[1], NULL, 10) : 200000;
	char dir[] = "/tmp/ktau-bench-XXXXXX", cmd[64];
	static uint32_t word;
	int merging, ret;

	if (pairs <= 0 || argc > 2) {
		fprintf(stderr, "usage: user_timer [PAIRS]\n");
		return 2;
	}
	merging = !prctl(PR_KTAU_SET_CONTEXT, (unsigned long)&word, 0UL, 0UL, 0UL);
	if (merging)
		prctl(PR_KTAU_SET_CONTEXT, 0UL, 0UL, 0UL, 0UL);
	if (!mkdtemp(dir)) {
		perror("user_timer: mkdtemp");
		return 1;
	}
	ret = run_variant(pairs, dir, 1, merging ? "kernel merge on" :
			  "kernel merge on, but the kernel refuses the context word") |
	      run_variant(pairs, dir, 0, "kernel merge off (KTAU_KERNEL_MERGE=0)");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "user_timer: could not remove %s\n", dir);
	return ret ? 1 : 0;
}
