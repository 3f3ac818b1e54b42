// SPDX-License-Identifier: GPL-2.0
/*
 * autoreap — a child reaped automatically (its parent ignores SIGCHLD, or
 * set SA_NOCLDWAIT) still folds into its parent's children total, like
 * one the parent waits for: nothing is lost when tasks end.
 *
 * A fresh parent P (so that its children block starts empty) runs, for
 * each way of not waiting: a child C making 1000 getpid() that first
 * forks and waits for a grandchild G making 500 getpid(); C then exits
 * and is reaped by the kernel.  P's children block then shows exactly
 * 1500 getpid() and 2 processes.
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void calls(int n)
{
	while (n--)
		syscall(SYS_getpid);
}

static void child(void)
{
	pid_t g = fork();

	if (g == 0) {
		calls(500);
		_exit(0);
	}
	if (g > 0)
		waitpid(g, NULL, 0);
	calls(1000);
	_exit(0);
}

/* In P: fork C, let the kernel reap it, report P's children block. */
static int parent(int nocldwait, int out)
{
	struct sigaction sa = { .sa_handler = nocldwait ? SIG_DFL : SIG_IGN };
	uint64_t getpid_calls = 0;
	struct ktr_profile p;
	struct ktr_block *b;
	char line[160];
	int n, tries;
	pid_t c;

	if (nocldwait)
		sa.sa_flags = SA_NOCLDWAIT;
	sigaction(SIGCHLD, &sa, NULL);
	c = fork();
	if (c == 0)
		child();
	if (c < 0)
		return 1;
	/* reaped by the kernel: gone without a wait() */
	for (tries = 0; tries < 500 && !(kill(c, 0) && errno == ESRCH); tries++)
		usleep(10000);
	if (ktr_load("/proc/self/ktau", 0, &p, "load"))
		return 1;
	b = ktr_block_kind(&p, "children", 0);
	if (b)
		ktr_func(b, "getpid", &getpid_calls, NULL, NULL);
	n = snprintf(line, sizeof(line), "%d %ld %" PRIu64 " %d\n", tries < 500,
		     b ? b->processes : -1, getpid_calls, waitpid(-1, NULL, WNOHANG));
	ktr_free(&p);
	return write(out, line, n) == n ? 0 : 1;
}

static void run(int nocldwait, const char *name)
{
	int fds[2], gone = 0, reaped = 0;
	long processes = -1;
	uint64_t calls_seen = 0;
	char buf[160] = "";
	pid_t p;

	if (pipe(fds)) {
		ktr_fail(name, "pipe: %s", strerror(errno));
		return;
	}
	p = fork();
	if (p == 0) {
		close(fds[0]);
		_exit(parent(nocldwait, fds[1]));
	}
	close(fds[1]);
	if (read(fds[0], buf, sizeof(buf) - 1) <= 0 ||
	    sscanf(buf, "%d %ld %" SCNu64 " %d", &gone, &processes, &calls_seen, &reaped) != 4) {
		ktr_fail(name, "the parent process reported nothing");
	} else {
		ktr_check(gone, name, "the child was not reaped by the kernel within 5 s");
		ktr_check(reaped < 0, name, "waitpid() found a child to reap (%d): "
			  "it was not reaped automatically", reaped);
		ktr_check(processes == 2 && calls_seen == 1500, name,
			  "the children block of a parent that does not wait shows processes=%ld "
			  "and %" PRIu64 " getpid calls, expected 2 and 1500", processes, calls_seen);
	}
	close(fds[0]);
	waitpid(p, NULL, 0);
}

int main(void)
{
	ktr_init("autoreap");
	run(0, "sigchld-ignored");
	run(1, "sa-nocldwait");
	return ktr_exit();
}
