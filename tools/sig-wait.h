/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Waiting for a signal, a readable file descriptor or a timeout at once,
 * on every kernel: signalfd() is missing from kernels built without
 * CONFIG_SIGNALFD (tinyconfig-based ones, as make check's guests), where a
 * tool that falls back to sigwaitinfo() can no longer watch its fd while
 * it waits.  The signals stay blocked except inside sig_wait()'s ppoll(),
 * so one that arrives before a wait is taken by the next one, never lost
 * and never run at another point of the caller.
 */
#ifndef KTAU_TOOLS_SIG_WAIT_H
#define KTAU_TOOLS_SIG_WAIT_H

#include <signal.h>
#include <stdbool.h>

#define SIG_WAIT_MAX 8

struct sig_wait {
	int pipe[2];			/* the handler's records: signo, si_code */
	sigset_t wait_mask;		/* the mask inside ppoll(): set unblocked */
	unsigned int nr;
	int signo[SIG_WAIT_MAX];
	struct sigaction old[SIG_WAIT_MAX];
};

/*
 * Takes the signals of @set (at most SIG_WAIT_MAX, which the caller has
 * blocked) with a handler of its own.  One sig_wait at a time in a
 * process.  0, or -errno.
 */
int sig_wait_open(struct sig_wait *w, const sigset_t *set);

/*
 * Waits until a signal of the set arrives (returns its number, *code its
 * si_code), @fd is readable (when >= 0) or @timeout_ms passed (when >= 0):
 * returns 0, *ready telling whether fd was readable.  -1 with errno: EINTR
 * when another signal interrupted the wait (wait again), else ppoll()'s.
 */
int sig_wait(struct sig_wait *w, int fd, int timeout_ms, bool *ready, int *code);

/* The old handlers back; the signals stay blocked (pending ones too). */
void sig_wait_close(struct sig_wait *w);

#endif
