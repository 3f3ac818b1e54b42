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
 * 1500 getpid() and 2 processes, in each of 40 rounds too.
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

/*
 * C inherits P's way of not waiting, so G is reaped by the kernel too,
 * and C's waitpid() returns (ECHILD) once G is dead, possibly before G
 * folded into C's children total on its own way out: C then exits at
 * once, and its fold into P is left to G's release (G pinned C as it
 * died).
 */
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
	if (ktr_load_settled("/proc/self/ktau", &p, "load"))
		return 1;
	b = ktr_block_kind(&p, "children", 0);
	if (b)
		ktr_func(b, "getpid", &getpid_calls, NULL, NULL);
	n = snprintf(line, sizeof(line), "%d %ld %" PRIu64 " %d\n", tries < 500,
		     b ? b->processes : -1, getpid_calls, waitpid(-1, NULL, WNOHANG));
	ktr_free(&p);
	return write(out, line, n) == n ? 0 : 1;
}

struct outcome {
	int gone, reaped;
	long processes;
	uint64_t calls;
};

/* One round: a fresh P, its C and G; what P saw. */
static int scenario(int nocldwait, struct outcome *o)
{
	char buf[160] = "";
	int fds[2], ok;
	pid_t p;

	if (pipe(fds))
		return -1;
	p = fork();
	if (p == 0) {
		close(fds[0]);
		_exit(parent(nocldwait, fds[1]));
	}
	close(fds[1]);
	ok = read(fds[0], buf, sizeof(buf) - 1) > 0 &&
	     sscanf(buf, "%d %ld %" SCNu64 " %d", &o->gone, &o->processes, &o->calls,
		    &o->reaped) == 4;
	close(fds[0]);
	waitpid(p, NULL, 0);
	return ok ? 0 : -1;
}

static void run(int nocldwait, const char *name)
{
	struct outcome o;

	if (scenario(nocldwait, &o)) {
		ktr_fail(name, "the parent process reported nothing");
		return;
	}
	ktr_check(o.gone, name, "the child was not reaped by the kernel within 5 s");
	ktr_check(o.reaped < 0, name, "waitpid() found a child to reap (%d): "
		  "it was not reaped automatically", o.reaped);
	ktr_check(o.processes == 2 && o.calls == 1500, name,
		  "the children block of a parent that does not wait shows processes=%ld "
		  "and %" PRIu64 " getpid calls, expected 2 and 1500", o.processes, o.calls);
}

/*
 * The same, ROUNDS times: C's waitpid() returns once G is EXIT_DEAD,
 * and C exits while G may still be on its way to its fold: C's release
 * then leaves its own fold to G's, which reaches P last (P's children
 * block says `pending` until then).  Every round must be exact.
 */
#define ROUNDS 40

static void race(int nocldwait, const char *name)
{
	int bad = 0, failed = 0;
	struct outcome o, first_bad = { 0 };

	for (int i = 0; i < ROUNDS; i++) {
		if (scenario(nocldwait, &o)) {
			failed++;
		} else if (o.processes != 2 || o.calls != 1500) {
			if (!bad++)
				first_bad = o;
		}
	}
	ktr_check(!bad && !failed, name, "%d of %d rounds lost a grandchild (first: processes=%ld, "
		  "%" PRIu64 " getpid calls; expected 2 and 1500), %d reported nothing",
		  bad, ROUNDS, first_bad.processes, first_bad.calls, failed);
}

int main(void)
{
	ktr_init("autoreap");
	run(0, "sigchld-ignored");
	run(1, "sa-nocldwait");
	race(0, "sigchld-ignored-rounds");
	race(1, "sa-nocldwait-rounds");
	return ktr_exit();
}
