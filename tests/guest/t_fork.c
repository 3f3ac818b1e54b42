// SPDX-License-Identifier: GPL-2.0
/*
 * fork — a forked child's counts are its own, exactly; the parent's are not
 * changed by the child; a reaped child's total (and its reaped children's)
 * folds into the parent's children block.
 *
 * parent: 200 getpid, fork, 50 getpid, reap
 * child:  321 getpid, forks a grandchild (17 getpid) and reaps it, reads its
 *         own profile: process getpid == 321 exactly, children getpid == 17
 * parent: process getpid == 250, children getpid == 338 with processes=2
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NPARENT_BEFORE 200
#define NPARENT_AFTER 50
#define NCHILD 321
#define NGRAND 17

static void calls(int n)
{
	for (int i = 0; i < n; i++)
		syscall(SYS_getpid);
}

static void child(void)
{
	struct ktr_profile p;
	struct ktr_block *b;
	uint64_t g = 0;
	pid_t gc;

	ktr_test = "fork";
	calls(NCHILD);
	fflush(stdout);
	gc = fork();
	if (gc == 0) {
		calls(NGRAND);
		_exit(0);
	}
	if (gc < 0 || ktr_reap(gc) != 0)
		ktr_fail("grandchild", "fork/reap of the grandchild failed");
	if (ktr_load("/proc/self/ktau", 0, &p, "child-exact") == 0) {
		b = ktr_block_kind(&p, "process", 0);
		ktr_func(b, "getpid", &g, NULL, NULL);
		ktr_check(b && g == NCHILD, "child-exact",
			  "child's process block getpid calls %" PRIu64 ", expected exactly %d "
			  "(the parent made %d before the fork)", g, NCHILD, NPARENT_BEFORE);
		b = ktr_block_kind(&p, "children", 0);
		g = 0;
		ktr_func(b, "getpid", &g, NULL, NULL);
		ktr_check(b && g == NGRAND && b->processes == 1, "child-children-fold",
			  "child's children block getpid calls %" PRIu64 " processes=%ld, expected "
			  "%d and 1 (its reaped grandchild)", g, b ? b->processes : -1, NGRAND);
		ktr_free(&p);
	}
	fflush(stdout);
	_exit(ktr_failed ? 1 : 0);
}

int main(void)
{
	struct ktr_profile p;
	struct ktr_block *b;
	uint64_t g = 0, base_getpid = 0;
	long base_processes = 0;
	pid_t pid;
	int st;

	ktr_init("fork");
	/*
	 * Children totals survive exec, like cutime: whatever the shell that
	 * started us had reaped is in them already.  Check the difference.
	 */
	if (ktr_load("/proc/self/ktau", 0, &p, "baseline") == 0) {
		b = ktr_block_kind(&p, "children", 0);
		ktr_func(b, "getpid", &base_getpid, NULL, NULL);
		base_processes = b ? b->processes : 0;
		ktr_free(&p);
	}
	calls(NPARENT_BEFORE);
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		ktr_fail("fork", "%s", strerror(errno));
		return ktr_exit();
	}
	if (pid == 0)
		child();
	calls(NPARENT_AFTER);
	st = ktr_reap(pid);
	ktr_check(st == 0, "child-status", "child exited with status %d (its FAIL lines above)", st);

	if (ktr_load("/proc/self/ktau", 0, &p, "parent-exact") == 0) {
		b = ktr_block_kind(&p, "process", 0);
		ktr_func(b, "getpid", &g, NULL, NULL);
		ktr_check(b && g == NPARENT_BEFORE + NPARENT_AFTER, "parent-exact",
			  "parent's process block getpid calls %" PRIu64 ", expected exactly %d",
			  g, NPARENT_BEFORE + NPARENT_AFTER);
		b = ktr_block_kind(&p, "children", 0);
		g = 0;
		ktr_func(b, "getpid", &g, NULL, NULL);
		ktr_check(b && g - base_getpid == NCHILD + NGRAND &&
			  b->processes - base_processes == 2, "children-fold",
			  "parent's children block grew by getpid calls %" PRIu64 " processes=%ld, "
			  "expected %d and 2 (child %d + grandchild %d)", g - base_getpid,
			  b ? b->processes - base_processes : -1, NCHILD + NGRAND, NCHILD, NGRAND);
		ktr_free(&p);
	}
	return ktr_exit();
}
