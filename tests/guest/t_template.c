// SPDX-License-Identifier: GPL-2.0
/*
 * template — a new process's first table holds its parent's last released
 * child's records, counts zeroed (docs/kernel-api.md, "Children
 * templates"): its counts are still its own, exactly, and a record it
 * never reached is not shown, unless a shown line or an open frame needs
 * it as a caller.
 *
 * A: blocks once in read() on a pipe, 7 getppid, 3 getpid; reaped.
 * B: 5 getpid; reads its own profile: getpid exactly 5, no getppid and no
 *    read line (A's records, which B's table holds but B never called),
 *    no path line without calls or cycles that is no other line's caller.
 * C: blocks in read() on a pipe; the parent reads C's profile meanwhile:
 *    the open read => schedule_vol has its caller's line (read, no calls
 *    yet), and no line of A's that C has not reached shows.
 * The parent's children block then: getppid 7, getpid 8, read 3 (B's of its
 * profile too), with no line of 0 calls, 0 cycles that is not a caller.
 * C's table holds A's read record, no call in it yet: the view hides it
 * unless it keeps it for the open line read => schedule_vol, whose reader
 * needs the caller's line.
 * After a clear (no template), D1, D2: read /dev/zero 4 times 16 bytes and
 * once 100; D1's table becomes the template, its read_bytes records and
 * their bytes hint with it, and D2 is like it.  E: 3 reads of 32 bytes,
 * through that hint from its first.  The children block's read_bytes is
 * then exactly the three's: count 13, sum 424, sum of squares 25 120,
 * least 16, most 100 (a template's empty range record takes a child's
 * first value as both).
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define A_GETPPID 7
#define A_GETPID 3
#define B_GETPID 5

static void calls(long nr, int n)
{
	for (int i = 0; i < n; i++)
		syscall(nr);
}

/* A child that reads /dev/zero @n times @size bytes, then once @last (0: none). */
static pid_t fork_zero_reader(int n, size_t size, size_t last)
{
	static char buf[128];
	pid_t pid;
	int fd;

	fflush(stdout);
	pid = fork();
	if (pid)
		return pid;
	fd = open("/dev/zero", O_RDONLY);
	if (fd < 0)
		_exit(2);
	for (int i = 0; i < n; i++)
		if (read(fd, buf, size) != (ssize_t)size)
			_exit(3);
	if (last && read(fd, buf, last) != (ssize_t)last)
		_exit(3);
	_exit(0);
}

/* The children block's read_bytes into *@ev (zeroed when it has none). */
static void children_read_bytes(const char *check, struct ktr_event *ev)
{
	struct ktr_profile p;

	memset(ev, 0, sizeof(*ev));
	if (ktr_load("/proc/self/ktau", 0, &p, check))
		return;
	ktr_event_find(ktr_block_kind(&p, "children", 0), "read_bytes", ev);
	ktr_free(&p);
}

/* D1, D2, then E from their template: their bytes exact (see the top). */
static void check_template_bytes(void)
{
	const char *who[] = { "d1-status", "d2-status", "e-status" };
	struct ktr_event ev;
	int st;

	/* no template: D1's own table, a few records, becomes the first */
	if (ktr_ctl("clear"))
		ktr_fail("bytes-clear", "cannot clear: %s", strerror(errno));
	for (int i = 0; i < 3; i++) {
		st = ktr_reap(i < 2 ? fork_zero_reader(4, 16, 100) :
				      fork_zero_reader(3, 32, 0));
		ktr_check(st == 0, who[i], "%s exited with status %d",
			  i == 0 ? "D1" : i == 1 ? "D2" : "E", st);
	}
	children_read_bytes("template-bytes", &ev);
	ktr_check(ev.count == 2 * 5 + 3 && ev.sum == 2 * (4 * 16 + 100) + 3 * 32 &&
		  ev.sumsq == 2 * (4 * 16 * 16 + 100 * 100) + 3 * 32 * 32 &&
		  ev.min == 16 && ev.max == 100, "template-bytes",
		  "children read_bytes count %" PRIu64 " sum %" PRIu64 " sumsq %" PRIu64
		  " min %" PRIu64 " max %" PRIu64 "; expected 13, 424, 25120, 16, 100",
		  ev.count, ev.sum, ev.sumsq, ev.min, ev.max);
}

static int same_prefix(const struct ktr_path *caller, const struct ktr_path *p)
{
	if (caller->ctx != p->ctx || caller->depth >= p->depth)
		return 0;
	for (unsigned int i = 0; i < caller->depth; i++)
		if (caller->fids[i] != p->fids[i])
			return 0;
	return 1;
}

/* Path lines of @b with no calls and no cycles that no other line has as a caller. */
static int unneeded_empty_paths(const struct ktr_block *b, char *what, size_t len)
{
	int n = 0;

	what[0] = '\0';
	for (size_t i = 0; i < b->npaths; i++) {
		const struct ktr_path *p = &b->paths[i];
		int needed = 0;

		if (p->calls || p->incl || p->excl)
			continue;
		for (size_t j = 0; j < b->npaths && !needed; j++)
			needed = same_prefix(p, &b->paths[j]);
		for (size_t j = 0; j < b->nopens && !needed; j++)
			needed = same_prefix(p, &b->opens[j]);
		if (!needed && n++ == 0)
			snprintf(what, len, "%s (line %d)", p->name, p->lineno);
	}
	return n;
}

static void child_b(void)
{
	struct ktr_profile p;
	struct ktr_block *b;
	uint64_t g = 0, pp = 0, rd = 0;
	char what[128];
	int n;

	ktr_test = "template";
	calls(SYS_getpid, B_GETPID);
	/* one read(): it is in progress as the profile is made, no call yet */
	if (ktr_load("/proc/self/ktau", 1, &p, "b-exact") == 0) {
		b = ktr_block_kind(&p, "process", 0);
		ktr_func(b, "getpid", &g, NULL, NULL);
		ktr_check(b && g == B_GETPID, "b-exact",
			  "B's getpid calls %" PRIu64 ", expected exactly %d (A made %d)",
			  g, B_GETPID, A_GETPID);
		n = b ? ktr_func(b, "getppid", &pp, NULL, NULL) : -1;
		ktr_check(n == 0, "b-unreached-hidden",
			  "B's block has %d getppid func lines (%" PRIu64 " calls): A's record, "
			  "which B never called, shows", n, pp);
		n = b ? ktr_func(b, "read", &rd, NULL, NULL) : -1;
		ktr_check(n == 0, "b-unreached-read-hidden",
			  "B's block has %d read func lines (%" PRIu64 " calls)", n, rd);
		n = b ? unneeded_empty_paths(b, what, sizeof(what)) : -1;
		ktr_check(n == 0, "b-no-empty-lines",
			  "B's block has %d path lines with no calls and no cycles that no "
			  "line needs, first %s", n, what);
		ktr_check(b && b->dropped == 0, "b-dropped",
			  "B's block dropped=%ld", b ? b->dropped : -1);
		ktr_free(&p);
	}
	fflush(stdout);
	_exit(ktr_failed ? 1 : 0);
}

/* A and C: one read() on the pipe, which blocks until the parent writes. */
static void child_reader(int fd, int extra)
{
	char c;

	if (read(fd, &c, 1) != 1)
		_exit(2);
	if (extra) {
		calls(SYS_getppid, A_GETPPID);
		calls(SYS_getpid, A_GETPID);
	}
	_exit(0);
}

static pid_t fork_reader(int fd[2], int extra)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(fd[1]);
		child_reader(fd[0], extra);
	}
	return pid;
}

/* While C blocks in its first read(): its open frames have their callers' lines. */
static void check_blocked(pid_t pid)
{
	struct ktr_profile p;
	struct ktr_block *b;
	char path[64], what[3 * KTR_NAME_MAX];
	size_t i;
	int found = 0, n;

	snprintf(path, sizeof(path), "/proc/%d/ktau", (int)pid);
	if (ktr_load(path, 0, &p, "c-open-caller") != 0)
		return;
	b = ktr_block_kind(&p, "process", 0);
	what[0] = '\0';
	for (i = 0; b && i < b->nopens; i++) {
		const struct ktr_path *o = &b->opens[i];

		if (o->depth == 2 && !strcmp(o->name, "schedule_vol") &&
		    !strcmp(o->parent, "read"))
			found = 1;
		else
			snprintf(what, sizeof(what), "depth %u %s under '%s'", o->depth,
				 o->name, o->parent);
	}
	ktr_check(found, "c-open-caller",
		  "C, blocked in read(), has no open line read => schedule_vol "
		  "naming its caller (%zu open lines: %s)", b ? b->nopens : 0, what);
	n = b ? ktr_func(b, "getppid", NULL, NULL, NULL) : -1;
	ktr_check(n == 0, "c-unreached-hidden",
		  "C's block has %d getppid func lines: A's record shows", n);
	n = b ? unneeded_empty_paths(b, what, sizeof(what)) : -1;
	ktr_check(n == 0, "c-no-empty-lines",
		  "C's block has %d path lines with no calls and no cycles that no "
		  "line needs, first %s", n, what);
	ktr_free(&p);
}

/* Run a reader child, unblock it once it sleeps; @check: look at it first. */
static int run_reader(int extra, int check)
{
	int fd[2], st;
	pid_t pid;

	if (pipe(fd)) {
		ktr_fail("pipe", "%s", strerror(errno));
		return -1;
	}
	pid = fork_reader(fd, extra);
	if (pid < 0) {
		ktr_fail("fork", "%s", strerror(errno));
		return -1;
	}
	close(fd[0]);
	if (ktr_wait_sleeping(pid))
		ktr_fail("reader-sleeps", "reader %d never blocked in read()", (int)pid);
	else if (check)
		check_blocked(pid);
	if (write(fd[1], "x", 1) != 1)
		ktr_fail("pipe-write", "%s", strerror(errno));
	close(fd[1]);
	st = ktr_reap(pid);
	ktr_check(st == 0, extra ? "a-status" : "c-status",
		  "reader exited with status %d", st);
	return st;
}

int main(void)
{
	uint64_t g0 = 0, pp0 = 0, rd0 = 0, g = 0, pp = 0, rd = 0;
	struct ktr_profile p;
	struct ktr_block *b;
	long procs0 = 0;
	char what[128];
	pid_t pid;
	int st, n;

	ktr_init("template");
	/*
	 * No template yet: the one a child released before (busybox timeout's
	 * own) would stay A's children's for a child unlike it.
	 */
	if (ktr_ctl("clear"))
		ktr_fail("clear", "cannot clear: %s", strerror(errno));
	if (ktr_load("/proc/self/ktau", 0, &p, "baseline") == 0) {
		b = ktr_block_kind(&p, "children", 0);
		ktr_func(b, "getpid", &g0, NULL, NULL);
		ktr_func(b, "getppid", &pp0, NULL, NULL);
		ktr_func(b, "read", &rd0, NULL, NULL);
		procs0 = b ? b->processes : 0;
		ktr_free(&p);
	}
	run_reader(1, 0);

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		ktr_fail("fork", "%s", strerror(errno));
		return ktr_exit();
	}
	if (pid == 0)
		child_b();
	st = ktr_reap(pid);
	ktr_check(st == 0, "b-status", "B exited with status %d (its FAIL lines above)", st);

	run_reader(0, 1);

	if (ktr_load("/proc/self/ktau", 0, &p, "children-exact") == 0) {
		b = ktr_block_kind(&p, "children", 0);
		ktr_func(b, "getpid", &g, NULL, NULL);
		ktr_func(b, "getppid", &pp, NULL, NULL);
		ktr_func(b, "read", &rd, NULL, NULL);
		ktr_check(b && g - g0 == A_GETPID + B_GETPID && pp - pp0 == A_GETPPID &&
			  rd - rd0 == 2 + 1 && b->processes - procs0 == 3, "children-exact",
			  "children block grew by getpid %" PRIu64 " getppid %" PRIu64
			  " read %" PRIu64 " processes %ld; expected %d, %d, 3 (A's and C's "
			  "pipe reads, B's profile read) and 3", g - g0, pp - pp0, rd - rd0,
			  b ? b->processes - procs0 : -1, A_GETPID + B_GETPID, A_GETPPID);
		n = b ? unneeded_empty_paths(b, what, sizeof(what)) : -1;
		ktr_check(n == 0, "children-no-empty-lines",
			  "children block has %d path lines with no calls and no cycles that "
			  "no line needs, first %s", n, what);
		ktr_free(&p);
	}
	check_template_bytes();
	return ktr_exit();
}
