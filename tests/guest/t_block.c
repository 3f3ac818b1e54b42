// SPDX-License-Identifier: GPL-2.0
/*
 * block — a blocking system call's inclusive time includes its wait, its
 * exclusive time does not; the wait shows as the edge read => schedule_vol.
 *
 * The parent blocks in read() on an empty pipe; a child writes one byte 1 s
 * after the fork.  Deltas of the parent's own thread profile around the
 * blocking read (the read() of the baseline profile, done before, is in the
 * delta too; it is short):
 *   read incl >= 0.8 s of cycles, read excl < 20% of read incl,
 *   edge read => schedule_vol incl >= 0.7 s.
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DELAY_MS 1000

static char pbuf[1 << 20];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
	struct ktr_profile p0, p1;
	struct ktr_block *b0, *b1;
	uint64_t c0, i0, e0, c1, i1, e1, ec0, ei0, ec1, ei1, khz;
	char path[64], byte = 0;
	int fds[2], st;
	double t0, t1;
	ssize_t n;
	pid_t pid;

	ktr_init("block");
	memset(pbuf, ' ', sizeof(pbuf));	/* pre-fault */
	snprintf(path, sizeof(path), "/proc/self/task/%ld/ktau", (long)syscall(SYS_gettid));
	if (pipe(fds)) {
		ktr_fail("pipe", "pipe(): %s", strerror(errno));
		return ktr_exit();
	}
	if (ktr_load_buf(path, pbuf, sizeof(pbuf), &p0, "baseline"))
		return ktr_exit();
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		ktr_fail("fork", "%s", strerror(errno));
		return ktr_exit();
	}
	if (pid == 0) {
		struct timespec ts = { DELAY_MS / 1000, (DELAY_MS % 1000) * 1000000L };

		close(fds[0]);
		nanosleep(&ts, NULL);
		_exit(write(fds[1], "x", 1) == 1 ? 0 : 1);
	}
	close(fds[1]);
	t0 = now();
	n = read(fds[0], &byte, 1);	/* blocks ~1 s */
	t1 = now();
	waitpid(pid, &st, 0);
	if (!ktr_check(n == 1, "pipe-read", "read() of the pipe returned %zd (%s), expected 1",
		       n, n < 0 ? strerror(errno) : "-"))
		return ktr_exit();
	ktr_info("wall", "read() blocked %.3f s", t1 - t0);

	if (ktr_load_buf(path, pbuf, sizeof(pbuf), &p1, "after"))
		return ktr_exit();
	b0 = ktr_block_kind(&p0, "thread", 0);
	b1 = ktr_block_kind(&p1, "thread", 0);
	if (!b0 || !b1) {
		ktr_fail("thread-block", "%s has no kind=thread block", path);
		return ktr_exit();
	}
	khz = p1.tsc_khz;
	ktr_func(b0, "read", &c0, &i0, &e0);
	ktr_func(b1, "read", &c1, &i1, &e1);
	ktr_edge(b0, "read", "schedule_vol", &ec0, &ei0, NULL);
	ktr_edge(b1, "read", "schedule_vol", &ec1, &ei1, NULL);
	ktr_info("read", "delta: calls %" PRIu64 " incl %" PRIu64 " excl %" PRIu64
		 " cycles; read=>schedule_vol calls %" PRIu64 " incl %" PRIu64 "; tsc_khz %"
		 PRIu64, c1 - c0, i1 - i0, e1 - e0, ec1 - ec0, ei1 - ei0, khz);

	ktr_check(c1 - c0 == 2, "read-calls",
		  "read calls grew by %" PRIu64 ", expected 2 (the baseline profile read and "
		  "the blocking pipe read)", c1 - c0);
	ktr_check(i1 - i0 >= ktr_ms_cycles(khz, 800), "read-incl",
		  "read incl grew by %" PRIu64 " cycles (%.3f s), expected >= %" PRIu64
		  " (0.8 s at tsc_khz %" PRIu64 "; the read blocked %.3f s of wall time)",
		  i1 - i0, (double)(i1 - i0) / (double)khz / 1000.0,
		  ktr_ms_cycles(khz, 800), khz, t1 - t0);
	ktr_check(e1 - e0 < (i1 - i0) / 5, "read-excl",
		  "read excl grew by %" PRIu64 " cycles, incl by %" PRIu64
		  ": expected excl < 20%% of incl (the wait is in schedule_vol)",
		  e1 - e0, i1 - i0);
	ktr_check(ec1 > ec0 && ei1 - ei0 >= ktr_ms_cycles(khz, 700), "edge-read-schedule_vol",
		  "edge read => schedule_vol grew by calls %" PRIu64 " incl %" PRIu64
		  " cycles (%.3f s), expected calls >= 1 and incl >= %" PRIu64 " (0.7 s)",
		  ec1 - ec0, ei1 - ei0, (double)(ei1 - ei0) / (double)khz / 1000.0,
		  ktr_ms_cycles(khz, 700));
	{
		const char *g = ktr_func_group(b1, "schedule_vol");

		ktr_check(g && !strcmp(g, "sched"), "schedule_vol-group",
			  "func schedule_vol has group %s, expected sched", g ? g : "(no func line)");
	}
	ktr_free(&p0);
	ktr_free(&p1);
	return ktr_exit();
}
