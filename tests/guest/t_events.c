// SPDX-License-Identifier: GPL-2.0
/*
 * events — the atomic events read_bytes and write_bytes: count, min, max,
 * sum and sum of squares of what each read() and write() returned.
 *
 * A thread of its own reads /dev/zero 100 times 16 bytes and 10 times 0
 * bytes, fails one read (bad fd: not an event), writes /dev/null 50 times
 * 7 bytes and once 4096 bytes, then parks at a barrier (no read or write
 * of its own) while the main thread reads its profile: the events must be
 * exactly those.  Its read and write func lines must count every call,
 * the failed one included.
 *
 * A second thread registers a user context word and alternates it between
 * 1 and 2, reading 16 bytes under 1 and 8 under 2, 30 times each: each
 * context gets its own read_bytes line, exact (a merged profiler's
 * routines alternate so around every call).
 *
 * A third thread writes 2 GiB - 4 KiB (MAX_RW_COUNT) to /dev/null, which
 * returns it without touching a byte: after four such writes the sum of
 * squares is exact, just under 2^64; a fifth and sixth saturate it at
 * 2^64 - 1 (past the first writes, the inline exit's path records them).
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PR_KTAU_SET_CONTEXT 0x4b544155
#define ALTERNATIONS 30

#define BIG_WRITE 0x7ffff000ULL	/* MAX_RW_COUNT with 4 KiB pages */

static pthread_barrier_t done, release, big_step;
static long worker_tid, alternator_tid, big_tid;
static int setup_error, big_error;
static __thread volatile uint32_t context_word;

static void *worker(void *arg)
{
	static char buf[4096];
	int zero = open("/dev/zero", O_RDONLY), null = open("/dev/null", O_WRONLY);

	(void)arg;
	worker_tid = syscall(SYS_gettid);
	if (zero < 0 || null < 0) {
		setup_error = errno;
	} else {
		for (int i = 0; i < 100; i++)
			if (read(zero, buf, 16) != 16)
				setup_error = EIO;
		for (int i = 0; i < 10; i++)
			if (read(zero, buf, 0) != 0)
				setup_error = EIO;
		if (read(-1, buf, 16) != -1)
			setup_error = EIO;
		for (int i = 0; i < 50; i++)
			if (write(null, buf, 7) != 7)
				setup_error = EIO;
		if (write(null, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			setup_error = EIO;
	}
	pthread_barrier_wait(&done);
	pthread_barrier_wait(&release);
	close(zero);
	close(null);
	return NULL;
}

/* Reads under context 1 (16 bytes) and 2 (8 bytes), one after the other. */
static void *alternator(void *arg)
{
	static char buf[16];
	int zero = open("/dev/zero", O_RDONLY);

	(void)arg;
	alternator_tid = syscall(SYS_gettid);
	if (zero < 0 ||
	    prctl(PR_KTAU_SET_CONTEXT, (unsigned long)&context_word, 0UL, 0UL, 0UL)) {
		setup_error = errno;
	} else {
		for (int i = 0; i < 2 * ALTERNATIONS; i++) {
			context_word = 1 + i % 2;
			if (read(zero, buf, i % 2 ? 8 : 16) != (i % 2 ? 8 : 16))
				setup_error = EIO;
		}
		context_word = 0;
	}
	pthread_barrier_wait(&done);
	pthread_barrier_wait(&release);
	close(zero);
	return NULL;
}

/*
 * Four writes of BIG_WRITE, a check, two more, a check: each step ends at
 * big_step, then waits there for the main thread's check.
 */
static void *big_writer(void *arg)
{
	static char byte;
	int null = open("/dev/null", O_WRONLY);

	(void)arg;
	big_tid = syscall(SYS_gettid);
	for (int step = 0; step < 2; step++) {
		for (int i = 0; i < (step ? 2 : 4); i++)
			/* syscall(): write() of a 1-byte object is an error to gcc */
			if (null < 0 || syscall(SYS_write, null, &byte, BIG_WRITE) !=
					(long)BIG_WRITE)
				big_error = errno ? errno : EIO;
		pthread_barrier_wait(&big_step);
		pthread_barrier_wait(&big_step);
	}
	if (null >= 0)
		close(null);
	return NULL;
}

static void check_event(const struct ktr_block *b, const char *name, uint64_t count,
			uint64_t min, uint64_t max, uint64_t sum, uint64_t sumsq)
{
	struct ktr_event ev;
	int n = ktr_event_find(b, name, &ev);

	ktr_check(n == 1 && ev.count == count && ev.min == min && ev.max == max &&
		  ev.sum == sum && ev.sumsq == sumsq, name,
		  "%d line(s): count %" PRIu64 " min %" PRIu64 " max %" PRIu64 " sum %" PRIu64
		  " sumsq %" PRIu64 "; expected 1 line: %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		  " %" PRIu64, n, ev.count, ev.min, ev.max, ev.sum, ev.sumsq, count, min, max,
		  sum, sumsq);
}

/* The event line @name of user context @ctx in @b, exactly as expected. */
static void check_ctx_event(const struct ktr_block *b, const char *name, uint64_t ctx,
			    uint64_t count, uint64_t value)
{
	const struct ktr_event *ev = NULL;
	char check[32];
	int n = 0;

	for (size_t i = 0; i < b->nevents; i++) {
		if (!strcmp(b->events[i].name, name) && b->events[i].ctx == ctx) {
			ev = &b->events[i];
			n++;
		}
	}
	snprintf(check, sizeof(check), "ctx%" PRIu64 "-%s", ctx, name);
	ktr_check(n == 1 && ev->count == count && ev->min == value && ev->max == value &&
		  ev->sum == count * value && ev->sumsq == count * value * value, check,
		  "%d line(s): count %" PRIu64 " min %" PRIu64 " max %" PRIu64 " sum %" PRIu64
		  " sumsq %" PRIu64 "; expected 1 line: %" PRIu64 " reads of %" PRIu64 " bytes",
		  n, ev ? ev->count : 0, ev ? ev->min : 0, ev ? ev->max : 0, ev ? ev->sum : 0,
		  ev ? ev->sumsq : 0, count, value);
}

/* The alternating thread's profile: one exact read_bytes line per context. */
static void check_alternator(void)
{
	struct ktr_profile p;
	struct ktr_block *b;
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%ld/ktau", alternator_tid);
	if (ktr_load(path, 0, &p, "alternator-profile"))
		return;
	b = ktr_block_kind(&p, "thread", 0);
	if (!b) {
		ktr_fail("alternator-profile", "%s: no thread block", path);
	} else {
		check_ctx_event(b, "read_bytes", 1, ALTERNATIONS, 16);
		check_ctx_event(b, "read_bytes", 2, ALTERNATIONS, 8);
	}
	ktr_free(&p);
}

/* The big writer's write_bytes after @writes writes: its sum of squares @sumsq. */
static void check_big(int writes, uint64_t sumsq, const char *check)
{
	struct ktr_profile p;
	struct ktr_block *b;
	struct ktr_event ev;
	char path[64];
	int n;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/ktau", big_tid);
	if (big_error) {
		ktr_fail(check, "write(/dev/null, %llu bytes): %s", BIG_WRITE, strerror(big_error));
		return;
	}
	if (ktr_load(path, 0, &p, check))
		return;
	b = ktr_block_kind(&p, "thread", 0);
	n = b ? ktr_event_find(b, "write_bytes", &ev) : 0;
	ktr_check(n == 1 && ev.count == (uint64_t)writes && ev.min == BIG_WRITE &&
		  ev.max == BIG_WRITE && ev.sum == writes * BIG_WRITE && ev.sumsq == sumsq, check,
		  "%d line(s): count %" PRIu64 " min %" PRIu64 " max %" PRIu64 " sum %" PRIu64
		  " sumsq %" PRIu64 "; expected %d writes of %llu, sumsq %" PRIu64, n,
		  n ? ev.count : 0, n ? ev.min : 0, n ? ev.max : 0, n ? ev.sum : 0,
		  n ? ev.sumsq : 0, writes, BIG_WRITE, sumsq);
	ktr_free(&p);
}

/* The big writer's two steps, each checked while it waits. */
static void check_big_writer(void)
{
	pthread_barrier_wait(&big_step);
	check_big(4, 4 * BIG_WRITE * BIG_WRITE, "big-sumsq-exact");
	pthread_barrier_wait(&big_step);
	pthread_barrier_wait(&big_step);
	check_big(6, UINT64_MAX, "big-sumsq-saturated");
	pthread_barrier_wait(&big_step);
}

int main(void)
{
	struct ktr_profile p;
	struct ktr_block *b;
	uint64_t reads = 0, writes = 0;
	pthread_t t, t2, t3;
	char path[64];

	ktr_init("events");
	pthread_barrier_init(&done, NULL, 3);
	pthread_barrier_init(&release, NULL, 3);
	pthread_barrier_init(&big_step, NULL, 2);
	if (pthread_create(&t, NULL, worker, NULL) ||
	    pthread_create(&t2, NULL, alternator, NULL) ||
	    pthread_create(&t3, NULL, big_writer, NULL)) {
		ktr_fail("thread", "pthread_create failed");
		return ktr_exit();
	}
	check_big_writer();
	pthread_join(t3, NULL);
	pthread_barrier_wait(&done);
	if (setup_error) {
		ktr_fail("setup", "the worker's reads/writes failed: %s", strerror(setup_error));
	} else {
		snprintf(path, sizeof(path), "/proc/self/task/%ld/ktau", worker_tid);
		if (!ktr_load(path, 0, &p, "profile")) {
			b = ktr_block_kind(&p, "thread", 0);
			if (!b) {
				ktr_fail("profile", "%s: no thread block", path);
			} else {
				check_event(b, "read_bytes", 110, 0, 16, 1600, 100 * 256);
				check_event(b, "write_bytes", 51, 7, 4096, 50 * 7 + 4096,
					    50 * 49 + 4096ULL * 4096);
				ktr_func(b, "read", &reads, NULL, NULL);
				ktr_func(b, "write", &writes, NULL, NULL);
				ktr_check(reads == 111 && writes == 51, "calls",
					  "read %" PRIu64 " calls, write %" PRIu64
					  "; expected 111 (the failed one too) and 51", reads, writes);
			}
			ktr_free(&p);
		}
		check_alternator();
	}
	pthread_barrier_wait(&release);
	pthread_join(t, NULL);
	pthread_join(t2, NULL);
	return ktr_exit();
}
