// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A self-pipe: the handler writes each signal to a pipe that ppoll()
 * watches beside the caller's fd.  The handler runs only inside ppoll()
 * (the signals are blocked everywhere else), so it never interrupts the
 * caller's own work.
 */
#define _GNU_SOURCE	/* pipe2, ppoll */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sig-wait.h"

/* The handler's one piece of state: a signal handler takes no argument. */
static int sig_wait_fd = -1;

static void sig_wait_note(int signo, siginfo_t *si, void *ucontext)
{
	int saved = errno, rec[2] = { signo, si ? si->si_code : 0 };
	ssize_t n;

	(void)ucontext;
	/* a full pipe (8192 signals unread) drops this one */
	n = write(sig_wait_fd, rec, sizeof(rec));
	(void)n;
	errno = saved;
}

int sig_wait_open(struct sig_wait *w, const sigset_t *set)
{
	struct sigaction sa;
	int signo, err;

	memset(w, 0, sizeof(*w));
	w->pipe[0] = w->pipe[1] = -1;
	if (sig_wait_fd >= 0)
		return -EBUSY;
	if (sigprocmask(SIG_BLOCK, NULL, &w->wait_mask))
		return -errno;
	if (pipe2(w->pipe, O_CLOEXEC | O_NONBLOCK)) {
		w->pipe[0] = w->pipe[1] = -1;
		return -errno;
	}
	sig_wait_fd = w->pipe[1];
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sig_wait_note;
	/* no SA_RESTART: the signal ends ppoll() */
	sa.sa_flags = SA_SIGINFO | SA_NOCLDSTOP;
	sigfillset(&sa.sa_mask);
	for (signo = 1; signo < NSIG; signo++) {
		if (sigismember(set, signo) != 1)
			continue;
		if (w->nr == SIG_WAIT_MAX) {
			err = -EINVAL;
			goto fail;
		}
		if (sigaction(signo, &sa, &w->old[w->nr])) {
			err = -errno;
			goto fail;
		}
		w->signo[w->nr++] = signo;
		sigdelset(&w->wait_mask, signo);
	}
	return 0;
fail:
	sig_wait_close(w);
	return err;
}

int sig_wait(struct sig_wait *w, int fd, int timeout_ms, bool *ready, int *code)
{
	struct pollfd fds[2] = { { .fd = w->pipe[0], .events = POLLIN },
				 { .fd = fd, .events = POLLIN } };
	struct timespec ts, *tsp = NULL;
	int rec[2], n;

	*ready = false;
	/* a signal noted in an earlier wait (two arrived at once) first */
	if (read(w->pipe[0], rec, sizeof(rec)) == (ssize_t)sizeof(rec))
		goto signal;
	if (timeout_ms >= 0) {
		ts.tv_sec = timeout_ms / 1000;
		ts.tv_nsec = (long)(timeout_ms % 1000) * 1000000;
		tsp = &ts;
	}
	n = ppoll(fds, 2, tsp, &w->wait_mask);
	if (read(w->pipe[0], rec, sizeof(rec)) == (ssize_t)sizeof(rec))
		goto signal;
	if (n < 0)
		return -1;
	*ready = n > 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR));
	return 0;
signal:
	*code = rec[1];
	return rec[0];
}

void sig_wait_close(struct sig_wait *w)
{
	unsigned int i;

	for (i = 0; i < w->nr; i++)
		sigaction(w->signo[i], &w->old[i], NULL);
	w->nr = 0;
	if (w->pipe[0] >= 0) {
		close(w->pipe[0]);
		close(w->pipe[1]);
		sig_wait_fd = -1;
	}
	w->pipe[0] = w->pipe[1] = -1;
}
