// SPDX-License-Identifier: GPL-2.0
/*
 * syscost — instructions per system call, pipe round trip and page
 * fault, for `make bench` (issue 7).  Run in a guest under
 * `qemu -icount shift=0` (see icount.h); each value is the minimum over
 * several runs minus the same loop with an empty body.
 *
 *   syscost LABEL [--context | --context-other | --context-gone | --counters]
 *
 * Prints "BENCH LABEL.OP VALUE" for OP in getpid read16 close_ebadf
 * pipe_rtt page_fault.  --context registers a ktau user context word
 * (prctl(PR_KTAU_SET_CONTEXT)) and stores a routine id into it before
 * each operation, as libktau's merged profiler does; it fails (exit 1)
 * when the kernel refuses the word.  --context-other measures a task
 * without a word while another process holds one (the kernel's context
 * key on): what a word costs the system calls of everyone else.
 * --context-gone registers a word and unregisters it, then waits until
 * no thread has one (the control file's `contexts 0`) and the key has
 * turned off (it lingers a second after the last word: 1.5 s), before
 * measuring: once the last registered word is gone, system calls must
 * cost what they did before any was registered.
 * --counters registers a shared counter area of 4 counters, as a
 * profiler reading kernel counters at its timer boundaries would
 * (prctl(PR_KTAU_SET_COUNTERS)): read(), write(), the scheduler group
 * and the exception group.  getpid() is then a call the area does not
 * count, read16 one it does (its exit writes the area).
 * "syscost --calibrate" checks the
 * clock: a 2-instruction loop must read 2.000 per iteration.
 * The pipe round trip runs both ends SCHED_FIFO (root only).
 * Exit status: 0 done, 1 a system call failed, 2 bad usage.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/ktau.h>

#include "icount.h"
#include "ktau_control.h"

#ifndef PR_KTAU_SET_CONTEXT
#define PR_KTAU_SET_CONTEXT 0x4b544155
#endif
#define PR_KTAU_SET_COUNTERS 0x4b544157

#define COUNTER_GROUP_SCHED	(KTAU_COUNTER_GROUP | 3)
#define COUNTER_GROUP_EXCEPTION	(KTAU_COUNTER_GROUP | 4)

static struct ktau_counters counters __attribute__((aligned(64)));

/* A 64-bit call's function id is its number (x86-64). */
static int counters_register(void)
{
	counters.version = KTAU_COUNTERS_VERSION;
	counters.nr = 4;
	counters.ids[0] = SYS_read;
	counters.ids[1] = SYS_write;
	counters.ids[2] = COUNTER_GROUP_SCHED;
	counters.ids[3] = COUNTER_GROUP_EXCEPTION;
	if (prctl(PR_KTAU_SET_COUNTERS, (unsigned long)&counters, sizeof(counters), 0UL, 0UL)) {
		perror("syscost: prctl(PR_KTAU_SET_COUNTERS)");
		return -1;
	}
	return 0;
}

#define PAGE	4096

struct bench_state {
	volatile uint32_t *word;	/* the context word, or NULL */
	int zero_fd;			/* /dev/zero */
	int to_child, from_child;	/* the pipe round trip's ends */
	char *pages;			/* fresh pages of the fault loop */
	int prefault;			/* touch them in setup: the empty loop */
};

/* The store a user-level profiler makes at each routine boundary. */
#define CONTEXT_STORE(s, i)						\
	do {								\
		if ((s)->word)						\
			*(s)->word = 1 + ((uint32_t)(i) & 1);		\
	} while (0)

#define BENCH_LOOP(fn, body)						\
	static void fn(void *arg, long n)				\
	{								\
		struct bench_state *s = arg;				\
		char buf[16];						\
									\
		(void)buf;						\
		for (long i = 0; i < n; i++) {				\
			CONTEXT_STORE(s, i);				\
			body;						\
		}							\
	}

BENCH_LOOP(loop_empty, __asm__ volatile("" ::: "memory"))
BENCH_LOOP(loop_getpid, sys3(SYS_getpid, 0, 0, 0))
BENCH_LOOP(loop_read16, sys3(SYS_read, s->zero_fd, (long)buf, 16))
BENCH_LOOP(loop_close_ebadf, sys3(SYS_close, -1, 0, 0))
BENCH_LOOP(loop_pipe_rtt,
	   sys3(SYS_write, s->to_child, (long)buf, 1);
	   sys3(SYS_read, s->from_child, (long)buf, 1))
BENCH_LOOP(loop_touch, s->pages[i * PAGE] = 1)

static void pages_map(void *arg, long n)
{
	struct bench_state *s = arg;

	s->pages = mmap(NULL, (size_t)n * PAGE, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s->pages == MAP_FAILED) {
		perror("syscost: mmap");
		exit(1);
	}
	if (s->prefault)
		memset(s->pages, 0, (size_t)n * PAGE);
}

static void pages_unmap(void *arg, long n)
{
	struct bench_state *s = arg;

	munmap(s->pages, (size_t)n * PAGE);
}

/*
 * Both ends of the round trip run SCHED_FIFO at one priority: a wakeup
 * then never preempts the waker, so every round trip is the same two
 * system calls and one switch on each side, on every kernel and in
 * every boot.  Under the fair class, whether the woken end preempts
 * depends on the run queue's history (EEVDF's lag and deadlines), and
 * the round trip varied by hundreds of instructions between boots of
 * one kernel.
 */
static void round_trip_policy(int policy)
{
	struct sched_param sp = { .sched_priority = policy == SCHED_FIFO ? 1 : 0 };

	if (sched_setscheduler(0, policy, &sp)) {
		perror("syscost: sched_setscheduler");
		exit(1);
	}
}

/* Make @n pipes in @fds, then fork(); exit 1 when either fails. */
static pid_t fork_with_pipes(int (*fds)[2], int n)
{
	pid_t pid;

	for (int i = 0; i < n; i++) {
		if (pipe(fds[i])) {
			perror("syscost: pipe");
			exit(1);
		}
	}
	pid = fork();
	if (pid < 0) {
		perror("syscost: fork");
		exit(1);
	}
	return pid;
}

/* The other end of the round trip: echo each byte back until EOF. */
static pid_t echo_child(struct bench_state *s)
{
	int fds[2][2], *down = fds[0], *up = fds[1];
	pid_t pid = fork_with_pipes(fds, 2);
	char c;

	if (pid == 0) {
		close(down[1]);
		close(up[0]);
		round_trip_policy(SCHED_FIFO);
		while (read(down[0], &c, 1) == 1 && write(up[1], &c, 1) == 1)
			;
		_exit(0);
	}
	close(down[0]);
	close(up[1]);
	s->to_child = down[1];
	s->from_child = up[0];
	return pid;
}

/*
 * Another process that registers a context word and holds it until it
 * is killed; fails (exit 1) when the kernel refuses the word.
 */
static pid_t word_holder(void)
{
	static volatile uint32_t held;
	int fds[1][2], *ready = fds[0];
	pid_t pid = fork_with_pipes(fds, 1);
	char c;

	if (pid == 0) {
		close(ready[0]);
		c = prctl(PR_KTAU_SET_CONTEXT, (unsigned long)&held, 0UL, 0UL, 0UL) ? 'E' : 'R';
		if (write(ready[1], &c, 1) != 1 || c != 'R')
			_exit(1);
		for (;;)
			pause();
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1 || c != 'R') {
		fprintf(stderr, "syscost: the kernel refused the other process's context word\n");
		exit(1);
	}
	close(ready[0]);
	return pid;
}

/*
 * The context key stays on a second (HZ) after the last word is gone:
 * wait until no thread has one (another benchmark's process may still be
 * exiting), then longer than that.  Under -icount with sleep=off the
 * guest's idle time costs no host time.
 */
static void wait_context_key_off(void)
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 };
	const struct timespec linger = { 1, 500 * 1000 * 1000 };
	long n;
	int i;

	for (i = 0; (n = ktau_contexts()) > 0 && i < 3000; i++)
		nanosleep(&tick, NULL);
	if (n > 0)
		fprintf(stderr, "syscost: %ld context words still registered\n", n);
	else if (n < 0)
		fprintf(stderr, "syscost: no `contexts` line in /proc/ktau/control\n");
	nanosleep(&linger, NULL);
}

/*
 * Iterations of every run (see struct icount_op): a few hundred
 * thousand instructions with ktau compiled out, the same on every kernel.
 */
#define CALL_ITERATIONS		1000
#define ROUND_TRIP_ITERATIONS	256
#define FAULT_ITERATIONS	256

static double net_cost(struct bench_state *s, void (*run)(void *, long),
		       void (*setup)(void *, long), void (*teardown)(void *, long),
		       long iterations)
{
	struct icount_op op = { "op", setup, run, teardown, s, iterations };
	struct icount_op empty = { "empty", setup, loop_empty, teardown, s,
				   iterations };
	double cost, base;

	if (run == loop_touch) {
		/* the empty loop of a fault: the same stores, pages present */
		empty.run = loop_touch;
		s->prefault = 1;
	}
	base = icount_per_call(&empty);
	s->prefault = 0;
	cost = icount_per_call(&op);
	return cost - base;
}

/* Both clocks over the loop, the least of several runs (ticks excluded). */
static void calibrate(void)
{
	const long iters = 100000;
	double by_tsc = 1e300, by_clock = 1e300;

	for (int r = 0; r < ICOUNT_RUNS; r++) {
		struct timespec a, b;
		uint64_t t0, t1;
		double ns;

		t0 = icount_now();
		icount_loop2(iters);
		t1 = icount_now();
		clock_gettime(CLOCK_MONOTONIC, &a);
		icount_loop2(iters);
		clock_gettime(CLOCK_MONOTONIC, &b);
		ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
		if ((double)(t1 - t0) / iters < by_tsc)
			by_tsc = (double)(t1 - t0) / iters;
		if (ns / iters < by_clock)
			by_clock = ns / iters;
	}
	printf("BENCH calibrate.rdtsc %.3f\n", by_tsc);
	printf("BENCH calibrate.clock_gettime %.3f\n", by_clock);
}

int main(int argc, char **argv)
{
	static volatile uint32_t word;
	struct bench_state s = { 0 };
	const char *label;
	pid_t child, holder = 0;
	int status;

	if (argc == 2 && !strcmp(argv[1], "--calibrate")) {
		calibrate();
		return 0;
	}
	if (argc < 2 || argc > 3 ||
	    (argc == 3 && strcmp(argv[2], "--context") && strcmp(argv[2], "--context-other") &&
	     strcmp(argv[2], "--context-gone") && strcmp(argv[2], "--counters"))) {
		fprintf(stderr, "usage: syscost LABEL [--context | --context-other | --context-gone | "
			"--counters] | syscost --calibrate\n");
		return 2;
	}
	label = argv[1];
	if (argc == 3 && !strcmp(argv[2], "--counters")) {
		if (counters_register())
			return 1;
	} else if (argc == 3 && !strcmp(argv[2], "--context-other")) {
		holder = word_holder();
	} else if (argc == 3) {
		if (prctl(PR_KTAU_SET_CONTEXT, (unsigned long)&word, 0UL, 0UL, 0UL)) {
			perror("syscost: prctl(PR_KTAU_SET_CONTEXT)");
			return 1;
		}
		s.word = &word;
		if (!strcmp(argv[2], "--context-gone")) {
			if (prctl(PR_KTAU_SET_CONTEXT, 0UL, 0UL, 0UL, 0UL)) {
				perror("syscost: prctl(PR_KTAU_SET_CONTEXT, 0)");
				return 1;
			}
			s.word = NULL;
			wait_context_key_off();
		}
	}
	s.zero_fd = open("/dev/zero", O_RDONLY);
	if (s.zero_fd < 0) {
		perror("syscost: /dev/zero");
		return 1;
	}
	child = echo_child(&s);
	printf("BENCH %s.getpid %.1f\n", label,
	       net_cost(&s, loop_getpid, NULL, NULL, CALL_ITERATIONS));
	printf("BENCH %s.read16 %.1f\n", label,
	       net_cost(&s, loop_read16, NULL, NULL, CALL_ITERATIONS));
	printf("BENCH %s.close_ebadf %.1f\n", label,
	       net_cost(&s, loop_close_ebadf, NULL, NULL, CALL_ITERATIONS));
	round_trip_policy(SCHED_FIFO);
	printf("BENCH %s.pipe_rtt %.1f\n", label,
	       net_cost(&s, loop_pipe_rtt, NULL, NULL, ROUND_TRIP_ITERATIONS));
	round_trip_policy(SCHED_OTHER);
	printf("BENCH %s.page_fault %.1f\n", label,
	       net_cost(&s, loop_touch, pages_map, pages_unmap, FAULT_ITERATIONS));
	fflush(stdout);
	close(s.to_child);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status)) {
		fprintf(stderr, "syscost: the pipe child did not exit cleanly\n");
		return 1;
	}
	if (holder && (kill(holder, SIGKILL) || waitpid(holder, &status, 0) != holder)) {
		fprintf(stderr, "syscost: the word's holder did not end\n");
		return 1;
	}
	return 0;
}
