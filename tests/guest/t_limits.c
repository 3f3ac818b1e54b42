// SPDX-License-Identifier: GPL-2.0
/*
 * limits — a system with thousands of tasks: /proc/ktau/profile lists
 * every one of them, complete (never truncated), in one file; the
 * process file of a process with thousands of threads too.
 *
 * NTHREADS threads (small stacks) each make (their number % 7) + 1
 * getpid() calls and park; then the system file must have a thread block for each,
 * with exactly those counts, and end with `end`; likewise the process
 * file's process block sums them exactly.
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NTHREADS 2000

static pthread_barrier_t parked, release;
static long tids[NTHREADS];

/* a few calls each, so that a block mixed up with another shows */
static long calls_of(long i)
{
	return i % 7 + 1;
}

static void *worker(void *arg)
{
	long i = (long)arg;

	tids[i] = syscall(SYS_gettid);
	for (long k = 0; k < calls_of(i); k++)
		syscall(SYS_getpid);
	pthread_barrier_wait(&parked);
	pthread_barrier_wait(&release);
	return NULL;
}

static int ktr_parse_checked(const char *text, size_t len, struct ktr_profile *p)
{
	char err[256];

	if (ktr_parse(text, len, p, err, sizeof(err))) {
		ktr_fail("system-file", "/proc/ktau/profile: %s", err);
		return 0;
	}
	return 1;
}

static int tid_index(long tid)
{
	for (int i = 0; i < NTHREADS; i++)
		if (tids[i] == tid)
			return i;
	return -1;
}

int main(void)
{
	static pthread_t t[NTHREADS];
	struct ktr_profile p;
	pthread_attr_t attr;
	int started = 0, exact = 0, seen = 0;
	uint64_t total = 0, want = 0;
	size_t len;
	char *text;
	pid_t me;

	ktr_init("limits");
	/* the guest's default (from its memory) is about 1400 threads */
	{
		FILE *f = fopen("/proc/sys/kernel/threads-max", "w");

		if (f) {
			fputs("100000\n", f);
			fclose(f);
		}
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	pthread_barrier_init(&parked, NULL, NTHREADS + 1);
	pthread_barrier_init(&release, NULL, NTHREADS + 1);
	for (long i = 0; i < NTHREADS; i++) {
		if (pthread_create(&t[i], &attr, worker, (void *)i)) {
			ktr_fail("threads", "pthread_create #%ld: %s", i, strerror(errno));
			/* the barrier cannot be met: nothing more to check */
			fflush(stdout);
			_exit(1);
		}
		started++;
		want += (uint64_t)calls_of(i);
	}
	pthread_barrier_wait(&parked);
	me = getpid();		/* once: the process total counts this thread's calls */
	want++;

	text = ktr_slurp("/proc/ktau/profile", &len);
	if (!text) {
		ktr_fail("system-file", "/proc/ktau/profile: %s", strerror(errno));
	} else if (ktr_parse_checked(text, len, &p)) {
		for (size_t b = 0; b < p.nblocks; b++) {
			uint64_t calls = 0;
			int i;

			if (strcmp(p.blocks[b].kind, "thread") || p.blocks[b].pid != me)
				continue;
			i = tid_index(p.blocks[b].tid);
			if (i < 0)
				continue;
			seen++;
			ktr_func(&p.blocks[b], "getpid", &calls, NULL, NULL);
			exact += calls == (uint64_t)calls_of(i);
		}
		ktr_check(seen == NTHREADS && exact == NTHREADS, "system-file-complete",
			  "/proc/ktau/profile (%zu bytes, %zu blocks): %d of %d threads listed, "
			  "%d with exact getpid counts", len, p.nblocks, seen, NTHREADS, exact);
		ktr_info("system-file", "%zu bytes, %zu blocks, %d lines", len, p.nblocks,
			 p.nlines);
		ktr_free(&p);
	}
	free(text);

	if (!ktr_load("/proc/self/ktau", 0, &p, "process-file")) {
		struct ktr_block *b = ktr_block_kind(&p, "process", 0);

		if (b)
			ktr_func(b, "getpid", &total, NULL, NULL);
		ktr_check(b && b->threads == NTHREADS + 1 && total == want, "process-file-sums",
			  "process block: %ld threads, getpid %" PRIu64 "; expected %d and %" PRIu64,
			  b ? b->threads : -1, total, NTHREADS + 1, want);
		ktr_free(&p);
	}
	pthread_barrier_wait(&release);
	for (int i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	return ktr_exit();
}
