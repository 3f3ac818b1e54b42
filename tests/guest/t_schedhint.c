// SPDX-License-Identifier: GPL-2.0
/*
 * schedhint — exact schedule_vol callpaths through the schedule hints.
 *
 * A task that blocks under a system call has its schedule_vol record
 * found, as it is switched back in, through two per-table hints naming
 * the records it last blocked in, each checked against its caller's
 * record.  A reader thread registers a user context word and blocks in
 * read() on an empty pipe under contexts 1, 2 and 3 in turn (three
 * callers for two hints: one always misses), and in readv() under
 * context 1 after every third read (a second caller in one context).  A
 * waker thread writes each byte only once the reader's open frames show
 * read => schedule_vol (readv => schedule_vol), and waits for the
 * reader's acknowledgement of each read before the next: every read
 * blocks exactly once.  (A sleep would not: a timer that fires before
 * nanosleep() reaches schedule() returns at once.)  An open line is
 * listed only when its callers' records exist, and a call's record comes
 * at its first stop: so each phase begins with one read (readv) per
 * context that does not block, the byte already in the pipe.  Then a
 * clear (a new table, no hints) and the same again.
 *
 * After each phase, the reader's own profile must hold, per context,
 * exactly its blocking reads as read => schedule_vol and readv =>
 * schedule_vol, with excl <= incl <= the caller's incl, and
 * no schedule_vol under another context's call.  Debug kernels check
 * every hint a rehint sets (a bad one WARNs: the kernel log check fails).
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define PR_KTAU_SET_CONTEXT 0x4b544155
#define ROUNDS 30			/* reads a phase, ROUNDS / 3 a context */
#define WAIT_MS 5000			/* for the reader to block */

static int data_pipe[2], ack_pipe[2];
static long reader_tid;
static pthread_barrier_t phase_start, phase_done;
static int phase_error;
static __thread volatile uint32_t context_word;

/* Whether the reader's open frames are @call => schedule_vol now. */
static int reader_blocked_in(const char *call)
{
	struct ktr_profile p;
	struct ktr_block *b;
	char path[64], err[128];
	size_t len;
	char *text;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/ktau", reader_tid);
	text = ktr_slurp(path, &len);
	if (!text)
		return -1;
	if (ktr_parse(text, len, &p, err, sizeof(err))) {
		free(text);
		return -1;
	}
	free(text);
	b = ktr_block_kind(&p, "thread", 0);
	for (size_t i = 0; b && i < b->nopens; i++) {
		const struct ktr_path *o = &b->opens[i];

		if (o->depth == 2 && !strcmp(o->name, "schedule_vol") &&
		    !strcmp(ktr_path_elem(b, o, 0), call))
			found = 1;
	}
	ktr_free(&p);
	return found;
}

/*
 * One byte for the reader's read in @call, once it blocks in it; after
 * an error, at once, so that the reader finishes its phase.
 */
static void wake(const char *call)
{
	struct timespec ms = { 0, 1000000 };
	char byte = 0;
	int waited = 0, r = 1;

	while (!phase_error && !(r = reader_blocked_in(call)) && waited++ < WAIT_MS)
		nanosleep(&ms, NULL);
	if (r != 1)
		phase_error = r < 0 ? EIO : ETIMEDOUT;
	if (write(data_pipe[1], &byte, 1) != 1 || read(ack_pipe[0], &byte, 1) != 1)
		phase_error = EIO;
}

static void *waker(void *arg)
{
	(void)arg;
	for (int phase = 0; phase < 2; phase++) {
		pthread_barrier_wait(&phase_start);
		for (int i = 0; i < ROUNDS; i++) {
			wake("read");
			if (i % 3 == 2)
				wake("readv");
		}
		pthread_barrier_wait(&phase_done);
		if (phase_error)
			break;	/* so does the reader: no second phase */
	}
	return NULL;
}

/* Calls, incl and excl of ctx @ctx's callpath @outer => @inner (depth 2). */
static int ctx_edge(const struct ktr_block *b, uint64_t ctx, const char *outer,
		    const char *inner, uint64_t *calls, uint64_t *incl, uint64_t *excl)
{
	int n = 0;

	*calls = *incl = *excl = 0;
	for (size_t i = 0; i < b->npaths; i++) {
		const struct ktr_path *p = &b->paths[i];

		if (p->ctx != ctx || p->depth != 2 || strcmp(p->name, inner) ||
		    strcmp(ktr_path_elem(b, p, 0), outer))
			continue;
		*calls += p->calls;
		*incl += p->incl;
		*excl += p->excl;
		n++;
	}
	return n;
}

/* Calls and incl of ctx @ctx's outermost @name (depth 1). */
static void ctx_top(const struct ktr_block *b, uint64_t ctx, const char *name,
		    uint64_t *calls, uint64_t *incl)
{
	*calls = *incl = 0;
	for (size_t i = 0; i < b->npaths; i++) {
		const struct ktr_path *p = &b->paths[i];

		if (p->ctx == ctx && p->depth == 1 && !strcmp(p->name, name)) {
			*calls += p->calls;
			*incl += p->incl;
		}
	}
}

/* The edge @outer => schedule_vol of context @ctx: exactly @want calls. */
static void check_edge(const char *phase, const struct ktr_block *b, uint64_t ctx,
		       const char *outer, uint64_t want)
{
	uint64_t calls, incl, excl, ocalls, oincl;
	char check[64];
	int n = ctx_edge(b, ctx, outer, "schedule_vol", &calls, &incl, &excl);

	ctx_top(b, ctx, outer, &ocalls, &oincl);
	snprintf(check, sizeof(check), "%s-ctx%" PRIu64 "-%s", phase, ctx, outer);
	ktr_check(n == (want ? 1 : 0) && calls == want && excl <= incl && incl <= oincl, check,
		  "%d line(s) %s => schedule_vol: calls %" PRIu64 " incl %" PRIu64 " excl %"
		  PRIu64 " (%s incl %" PRIu64 "); expected %s%" PRIu64 " calls, excl <= incl"
		  " <= the caller's", n, outer, calls, incl, excl, outer, oincl,
		  want ? "1 line, " : "", want);
}

static void check_phase(const char *phase)
{
	struct ktr_profile p;
	struct ktr_block *b;
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%ld/ktau", reader_tid);
	if (ktr_load(path, 0, &p, phase))
		return;
	b = ktr_block_kind(&p, "thread", 0);
	if (!b) {
		ktr_fail(phase, "%s: no thread block", path);
	} else {
		for (uint64_t ctx = 1; ctx <= 3; ctx++)
			check_edge(phase, b, ctx, "read", ROUNDS / 3);
		check_edge(phase, b, 1, "readv", ROUNDS / 3);
		check_edge(phase, b, 2, "readv", 0);
		check_edge(phase, b, 3, "readv", 0);
	}
	ktr_free(&p);
}

/*
 * Reads under contexts 1, 2, 3 in turn, and a readv() under context 1
 * after every third, each acknowledged.
 */
static void reader_phase(void)
{
	struct iovec iov;
	char byte = 0;

	/* the callers' records, so that the waker sees each block */
	for (int i = 0; i < 4; i++) {
		context_word = i < 3 ? 1 + i : 1;
		iov.iov_base = &byte;
		iov.iov_len = 1;
		if (write(data_pipe[1], &byte, 1) != 1 ||
		    (i < 3 ? read(data_pipe[0], &byte, 1) : readv(data_pipe[0], &iov, 1)) != 1)
			phase_error = EIO;
		context_word = 0;
	}

	for (int i = 0; i < ROUNDS; i++) {
		context_word = 1 + i % 3;
		if (read(data_pipe[0], &byte, 1) != 1)
			phase_error = EIO;
		context_word = 0;
		if (write(ack_pipe[1], &byte, 1) != 1)
			phase_error = EIO;
		if (i % 3 == 2) {
			iov.iov_base = &byte;
			iov.iov_len = 1;
			context_word = 1;
			if (readv(data_pipe[0], &iov, 1) != 1)
				phase_error = EIO;
			context_word = 0;
			if (write(ack_pipe[1], &byte, 1) != 1)
				phase_error = EIO;
		}
	}
}

int main(void)
{
	pthread_t w;

	ktr_init("schedhint");
	if (ktr_ctl("enable all")) {
		ktr_fail("enable", "cannot enable all groups: %s", strerror(errno));
		return ktr_exit();
	}
	reader_tid = syscall(SYS_gettid);
	if (pipe(data_pipe) || pipe(ack_pipe) ||
	    prctl(PR_KTAU_SET_CONTEXT, (unsigned long)&context_word, 0UL, 0UL, 0UL)) {
		ktr_fail("setup", "pipe or context word: %s", strerror(errno));
		return ktr_exit();
	}
	pthread_barrier_init(&phase_start, NULL, 2);
	pthread_barrier_init(&phase_done, NULL, 2);
	if (pthread_create(&w, NULL, waker, NULL)) {
		ktr_fail("setup", "pthread_create failed");
		return ktr_exit();
	}
	for (int phase = 0; phase < 2; phase++) {
		const char *name = phase ? "after-clear" : "first";

		if (phase && ktr_ctl("clear"))
			phase_error = errno;
		pthread_barrier_wait(&phase_start);
		reader_phase();
		pthread_barrier_wait(&phase_done);
		if (!ktr_check(!phase_error, name, "the waker or reader failed: %s",
			       strerror(phase_error)))
			break;
		check_phase(name);
	}
	pthread_join(w, NULL);
	return ktr_exit();
}
