// SPDX-License-Identifier: GPL-2.0
/*
 * control — /proc/ktau/control: its read-back, each command's effect, and
 * the refusal (EINVAL, nothing changed) of anything malformed.
 *
 * Runs as root.  Every count checked is the test's own getpid() calls in
 * its own thread profile, so it is exact:
 *   stop      getpid made while stopped are not counted
 *   start     counted again, exactly
 *   clear     own profile (thread, process incl. exited threads, children)
 *             and pid 1's are empty right after; then exactly what was made
 *   startclr  likewise, from the stopped state
 *   disable syscall  getpid not counted, page faults still are
 *   enable syscall   counted again
 *   disable sched    20 readv()s, each seen to block (ktr_wait_sleeping()),
 *                    add no readv => schedule_vol, the readvs are still
 *                    counted
 *   enable sched     20 more add exactly 20 (schedule()'s hooks are static
 *                    calls the group sets and clears)
 *   disable/enable of several groups, `all`, blanks, a trailing newline,
 *   a 256-byte command
 * then 40 malformed writes, each EINVAL with the read-back unchanged, made
 * while stopped with irq disabled (so that a partly applied command shows).
 * At the end, and on any signal or early exit, it writes `start` and
 * `enable all` back: the state other tests expect.
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *const all_groups[] = {
	"syscall", "softirq", "irq", "sched", "exception", "kernel", "event",
};
#define NGROUPS (sizeof(all_groups) / sizeof(all_groups[0]))

static char pbuf[1 << 20];
static char tpath[64];

/* ---- restoring the state other tests need (async-signal-safe) ---- */

static void raw_ctl(const char *s, size_t n)
{
	int fd = open(KTR_CONTROL, O_WRONLY);

	if (fd >= 0) {
		if (write(fd, s, n) < 0) {
			/* nothing more to do */
		}
		close(fd);
	}
}

static void restore(void)
{
	raw_ctl("start", 5);
	raw_ctl("enable all", 10);
}

static void on_signal(int sig)
{
	static const char msg[] = "FAIL: control/signal: killed by a signal; "
				  "restored start + enable all\n";

	restore();
	if (write(1, msg, sizeof(msg) - 1) < 0) {
		/* nothing */
	}
	_exit(128 + sig);
}

/* ---- helpers ---- */

static void calls(int n)
{
	for (int i = 0; i < n; i++)
		syscall(SYS_getpid);
}

/* own thread's block, loaded into *p (to free), or NULL (failure printed) */
static struct ktr_block *own_thread(const char *check, struct ktr_profile *p)
{
	struct ktr_block *b;

	if (ktr_load_buf(tpath, pbuf, sizeof(pbuf), p, check))
		return NULL;
	b = ktr_block_kind(p, "thread", 0);
	if (!b) {
		ktr_fail(check, "%s has no thread block", tpath);
		ktr_free(p);
	}
	return b;
}

/* own thread's getpid calls, or -1 (failure printed) */
static long long own_getpid(const char *check)
{
	struct ktr_profile p;
	struct ktr_block *b = own_thread(check, &p);
	uint64_t g;

	if (!b)
		return -1;
	ktr_func(b, "getpid", &g, NULL, NULL);
	ktr_free(&p);
	return (long long)g;
}

/* the control file without the lines that move on their own: the id
 * counts (a run-time registration may happen at any time) and the memory
 * that task profiles take */
static int volatile_line(const char *l)
{
	return !strncmp(l, "fids ", 5) || !strncmp(l, "fids_refused ", 13) ||
	       !strncmp(l, "memory ", 7);
}

static char *ctl_state(void)
{
	char *t = ktr_ctl_read(), *l, *nl;

	if (!t)
		return NULL;
	for (l = t; *l;) {
		nl = strchr(l, '\n');
		if (!nl)
			break;
		if (volatile_line(l))
			memmove(l, nl + 1, strlen(nl + 1) + 1);
		else
			l = nl + 1;
	}
	return t;
}

static int has_word(const char *list, const char *w)
{
	size_t n = strlen(w);

	for (const char *s = list; (s = strstr(s, w)); s += n)
		if ((s == list || s[-1] == ' ') && (s[n] == ' ' || s[n] == '\0'))
			return 1;
	return 0;
}

static int nwords(const char *list)
{
	int n = 0;

	for (const char *s = list; *s; s++)
		if (*s != ' ' && (s == list || s[-1] == ' '))
			n++;
	return n;
}

/* state and groups of the control file; 0 or -1 */
static int ctl_get(char *state, char *groups, size_t len)
{
	char *t = ktr_ctl_read();
	int rc = -1;

	if (t && !ktr_ctl_field(t, "state", state, len) &&
	    !ktr_ctl_field(t, "groups", groups, len))
		rc = 0;
	free(t);
	return rc;
}

/* expect state `st` and exactly the groups enabled in `want` (NULL: all) */
static void expect_state(const char *check, const char *st, const char *const *want, int nwant)
{
	char state[256], groups[256], w[256] = "";
	int ok;

	if (ctl_get(state, groups, sizeof(state))) {
		ktr_fail(check, "%s: cannot read state/groups lines: %s", KTR_CONTROL, strerror(errno));
		return;
	}
	if (!want) {
		want = all_groups;
		nwant = NGROUPS;
	}
	for (int i = 0; i < nwant; i++)
		snprintf(w + strlen(w), sizeof(w) - strlen(w), "%s%s", i ? " " : "", want[i]);
	ok = !strcmp(state, st);
	if (nwant == 0) {
		ok = ok && !strcmp(groups, "none");
		snprintf(w, sizeof(w), "none");
	} else {
		ok = ok && nwords(groups) == nwant;
		for (int i = 0; i < nwant; i++)
			ok = ok && has_word(groups, want[i]);
	}
	ktr_check(ok, check, "read-back says 'state %s' 'groups %s', expected 'state %s' "
		  "'groups %s' (any order)", state, groups, st, w);
}

static void cmd(const char *check, const char *c)
{
	int e = ktr_ctl(c);

	if (e)
		ktr_fail(check, "write('%s') to %s failed: %s, expected success", c, KTR_CONTROL,
			 strerror(e));
}

/* ---- the checks ---- */

static void check_readback(void)
{
	static const char *const keys[] = { "state", "groups", "available", "fids",
					    "fids_refused", "memory", "lost_tasks",
					    "usage:" };
	char *t = ktr_ctl_read(), v[512];
	struct stat st;
	unsigned long a, b;
	char c;

	memset(&st, 0, sizeof(st));
	ktr_check(stat(KTR_CONTROL, &st) == 0 && (st.st_mode & 07777) == 0600 && st.st_uid == 0,
		  "mode", "%s: mode %04o uid %d, expected 0600 and root", KTR_CONTROL,
		  (unsigned int)(st.st_mode & 07777), (int)st.st_uid);
	if (!t) {
		ktr_fail("readback", "%s: %s", KTR_CONTROL, strerror(errno));
		return;
	}
	ktr_check(!strncmp(t, "ktau-control 1\n", 15), "readback-first-line",
		  "first line '%.40s', expected 'ktau-control 1'", t);
	ktr_check(strlen(t) >= 5 && !strcmp(t + strlen(t) - 5, "\nend\n"), "readback-end",
		  "the read-back does not end with a line 'end'");
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char check[64];

		snprintf(check, sizeof(check), "readback-has-%.*s", (int)strcspn(keys[i], ":"),
			 keys[i]);
		ktr_check(!ktr_ctl_field(t, keys[i], v, sizeof(v)), check,
			  "no line starting with '%s' in %s", keys[i], KTR_CONTROL);
	}
	ktr_ctl_field(t, "available", v, sizeof(v));
	{
		int ok = nwords(v) == (int)NGROUPS;

		for (size_t i = 0; i < NGROUPS; i++)
			ok = ok && has_word(v, all_groups[i]);
		ktr_check(ok, "readback-available", "'available %s', expected the groups "
			  "syscall softirq irq sched exception kernel event", v);
	}
	ktr_ctl_field(t, "fids", v, sizeof(v));
	ktr_check(sscanf(v, "%lu/%lu%c", &a, &b, &c) == 2 && a > 0 && a <= b, "readback-fids",
		  "'fids %s', expected 'fids <registered>/<max>' with 0 < registered <= max", v);
	ktr_ctl_field(t, "memory", v, sizeof(v));
	{
		unsigned long tasks = 0, bytes = 0, limit = 0;

		ktr_check(sscanf(v, "tasks=%lu bytes=%lu limit=%lu%c", &tasks, &bytes, &limit,
				 &c) == 3 && tasks > 0 && bytes >= tasks * 64 && limit >= 1UL << 20,
			  "readback-memory",
			  "'memory %s', expected 'memory tasks=N bytes=M limit=L' with N > 0, M a "
			  "plausible size and L at least 1 MiB", v);
		if (tasks)
			ktr_info("memory", "%lu tasks have a profile, %lu bytes in all, %lu per task",
				 tasks, bytes, bytes / tasks);
	}
	ktr_ctl_field(t, "lost_tasks", v, sizeof(v));
	ktr_check(sscanf(v, "%lu%c", &a, &c) == 1, "readback-lost_tasks",
		  "'lost_tasks %s', expected a number", v);
	ktr_ctl_field(t, "state", v, sizeof(v));
	ktr_check(!strcmp(v, "running"), "initial-running",
		  "at the start 'state %s', expected running (the state other tests ran in)", v);
	free(t);
	expect_state("initial-groups", "running", NULL, 0);
}

/* own thread's page_fault calls, and its getpid calls in *getpid_calls
 * (-1 after a FAIL line) */
static uint64_t own_faults(const char *check, long long *getpid_calls)
{
	struct ktr_profile p;
	struct ktr_block *b = own_thread(check, &p);
	uint64_t f = 0, g = 0;

	*getpid_calls = -1;
	if (!b)
		return 0;
	ktr_func(b, "page_fault", &f, NULL, NULL);
	ktr_func(b, "getpid", &g, NULL, NULL);
	*getpid_calls = (long long)g;
	ktr_free(&p);
	return f;
}

/* own readv calls and readv => schedule_vol calls; -1: failure */
static int own_waits(const char *check, uint64_t *reads, uint64_t *waits)
{
	struct ktr_profile p;
	struct ktr_block *b = own_thread(check, &p);

	*reads = *waits = 0;
	if (!b)
		return -1;
	ktr_func(b, "readv", reads, NULL, NULL);
	ktr_edge(b, "readv", "schedule_vol", waits, NULL, NULL);
	ktr_free(&p);
	return 0;
}

/*
 * ---- reads that block exactly once each ----
 *
 * A sleep does not always reach schedule(): a 1 ms timer that expires
 * before nanosleep() checks it (a slow guest, a preempted vCPU) returns
 * at once.  So the blocking calls are readv()s of an empty pipe, and a
 * waker writes each byte only once ktr_wait_sleeping() finds the reader
 * switched out in that read (its wakeup leaves the reader runnable, so
 * the previous read's sleep is not seen again).
 */
struct blocker {
	int data[2];		/* the reads' pipe */
	long tid;		/* the reader */
	int n;
	int late;		/* reads not seen to block */
};

static void *waker(void *arg)
{
	struct blocker *bl = arg;
	char byte = 0;

	for (int i = 0; i < bl->n; i++) {
		if (ktr_wait_sleeping((pid_t)bl->tid))
			bl->late++;
		if (write(bl->data[1], &byte, 1) != 1)
			bl->late++;
	}
	return NULL;
}

/* @n readv()s of one byte, each blocking once; 0, or -1 (failure printed) */
static int blocking_reads(const char *check, int n)
{
	struct blocker bl = { .tid = (long)syscall(SYS_gettid), .n = n };
	struct iovec iov;
	pthread_t th;
	char byte;
	int got = 0;

	if (pipe(bl.data)) {
		ktr_fail(check, "pipe: %s", strerror(errno));
		return -1;
	}
	if (pthread_create(&th, NULL, waker, &bl)) {
		ktr_fail(check, "pthread_create failed");
		close(bl.data[0]);
		close(bl.data[1]);
		return -1;
	}
	iov.iov_base = &byte;
	iov.iov_len = 1;
	for (int i = 0; i < n; i++)
		got += readv(bl.data[0], &iov, 1) == 1;
	pthread_join(th, NULL);
	close(bl.data[0]);
	close(bl.data[1]);
	if (got != n || bl.late) {
		ktr_fail(check, "%d of %d blocking reads read a byte, %d not seen to block "
			 "(thread %ld)", got, n, bl.late, bl.tid);
		return -1;
	}
	return 0;
}

static void check_sched_group(void)
{
	uint64_t r0, w0, r1, w1, r2, w2;

	if (own_waits("disable-sched", &r0, &w0))
		return;
	cmd("disable-sched", "disable sched");
	if (blocking_reads("disable-sched", 20) || own_waits("disable-sched", &r1, &w1))
		return;
	ktr_check(r1 == r0 + 20 && w1 == w0, "disable-sched",
		  "readv calls %" PRIu64 " -> %" PRIu64 ", readv => schedule_vol %"
		  PRIu64 " -> %" PRIu64 " across 20 blocking reads with group sched disabled, "
		  "expected +20 and no change", r0, r1, w0, w1);
	cmd("enable-sched", "enable sched");
	if (blocking_reads("enable-sched", 20) || own_waits("enable-sched", &r2, &w2))
		return;
	ktr_check(r2 == r1 + 20 && w2 == w1 + 20, "enable-sched",
		  "readv calls %" PRIu64 " -> %" PRIu64 ", readv => schedule_vol %"
		  PRIu64 " -> %" PRIu64 " across 20 blocking reads with group sched enabled "
		  "again, expected +20 each", r1, r2, w1, w2);
}

static void check_stop_start(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	volatile char *mem = mmap(NULL, (size_t)(8 * pg), PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long long g0, g;
	uint64_t f0, f;

	if (mem == MAP_FAILED) {
		ktr_fail("stop", "mmap of 8 pages: %s", strerror(errno));
		return;
	}
	own_faults("stop", &g0);
	if (g0 < 0) {	/* the FAIL line is printed */
		munmap((void *)mem, (size_t)(8 * pg));
		return;
	}
	cmd("stop", "stop");
	expect_state("stop-state", "stopped", NULL, 0);
	/* faults from before the stop took effect (first use of code and data
	 * pages on the way into the write) are in f0, not in the check */
	f0 = own_faults("stop", &g);
	calls(100);
	for (int i = 0; i < 8; i++)
		mem[(long)i * pg] = 1;
	f = own_faults("stop", &g);
	if (g >= 0) {
		ktr_check(g == g0, "stop", "getpid count went from %lld to %lld across 100 calls "
			  "made while stopped, expected no change", g0, g);
		ktr_check(f == f0, "stop-faults", "page_fault count went from %" PRIu64 " to %"
			  PRIu64 " across 8 fresh pages touched while stopped, expected no change",
			  f0, f);
	}
	munmap((void *)mem, (size_t)(8 * pg));
	cmd("start", "start");
	expect_state("start-state", "running", NULL, 0);
	calls(50);
	g = own_getpid("start");
	if (g >= 0)
		ktr_check(g == g0 + 50, "start", "getpid count %lld after start + 50 calls, "
			  "expected %lld", g, g0 + 50);
}

static void *thread7(void *arg)
{
	(void)arg;
	calls(7);
	return NULL;
}

/* everything zero right after a clear: own process (incl. exited threads),
 * own children, and pid 1 but for a signal it may take meanwhile */
static void check_empty(const char *check)
{
	static const char *const io[] = { "write", "open", "openat", "read", "close" };
	struct ktr_profile p;
	char why[512] = "";

	if (ktr_load_buf("/proc/self/ktau", pbuf, sizeof(pbuf), &p, check))
		return;
	for (size_t i = 0; i < p.nblocks && !why[0]; i++) {
		struct ktr_block *b = &p.blocks[i];

		for (size_t k = 0; k < b->nfuncs; k++) {
			struct ktr_rec *r = &b->funcs[k];
			int allowed = 0;

			/* the control write in flight and this read's open() may show;
			 * interrupts and faults may hit at any time */
			if (!strcmp(b->kind, "process")) {
				for (size_t j = 0; j < sizeof(io) / sizeof(io[0]); j++)
					allowed |= !strcmp(r->name, io[j]) && r->calls <= 1;
				allowed |= strcmp(r->group, "syscall") != 0;
			}
			if (r->calls && !allowed) {
				snprintf(why, sizeof(why), "/proc/self/ktau %s block: %s %" PRIu64
					 " calls", b->kind, r->name, r->calls);
				break;
			}
		}
	}
	ktr_free(&p);
	/*
	 * pid 1 has forked every test so far (hundreds of calls); right after
	 * the clear it may take a signal (SIGCHLD: rt_sigreturn, a restarted
	 * wait4) but cannot have more than a handful of any call.
	 */
	if (!why[0] && ktr_load_buf("/proc/1/ktau", pbuf, sizeof(pbuf), &p, check) == 0) {
		for (size_t i = 0; i < p.nblocks && !why[0]; i++)
			for (size_t k = 0; k < p.blocks[i].nfuncs; k++)
				if (p.blocks[i].funcs[k].calls > 3 &&
				    !strcmp(p.blocks[i].funcs[k].group, "syscall")) {
					snprintf(why, sizeof(why), "/proc/1/ktau %s block: %s %" PRIu64
						 " calls", p.blocks[i].kind, p.blocks[i].funcs[k].name,
						 p.blocks[i].funcs[k].calls);
					break;
				}
		ktr_free(&p);
	}
	ktr_check(!why[0], check, "right after the clear %s, expected 0 (pid 1: at most 3)",
		  why);
}

static void check_clear(void)
{
	pthread_t th;
	pid_t pid;
	long long g;

	/* something in the exited and children totals */
	if (pthread_create(&th, NULL, thread7, NULL) == 0)
		pthread_join(th, NULL);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		calls(5);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
	usleep(20000);	/* the joined thread is all gone */
	calls(11);

	cmd("clear", "clear");
	check_empty("clear-empty");
	g = own_getpid("clear");
	if (g >= 0)
		ktr_check(g == 0, "clear-own-zero", "own getpid count %lld right after clear, "
			  "expected 0", g);
	calls(37);
	g = own_getpid("clear");
	if (g >= 0)
		ktr_check(g == 37, "clear", "own getpid count %lld after clear + 37 calls, "
			  "expected 37", g);
	expect_state("clear-state", "running", NULL, 0);

	cmd("startclr", "stop");
	calls(20);
	cmd("startclr", "startclr");
	check_empty("startclr-empty");
	expect_state("startclr-state", "running", NULL, 0);
	calls(13);
	g = own_getpid("startclr");
	if (g >= 0)
		ktr_check(g == 13, "startclr", "own getpid count %lld after stop, 20 calls, "
			  "startclr, 13 calls; expected 13", g);
}

/* memory bytes= of the control file once it stops moving (tables are
 * freed after a grace period) */
static unsigned long settled_bytes(void)
{
	unsigned long a = ktr_ctl_number("memory", "bytes="), b;

	for (int i = 0; i < 100; i++) {
		usleep(20000);
		b = ktr_ctl_number("memory", "bytes=");
		if (a == b)
			return a;
		a = b;
	}
	return a;
}

/* a child that waits for a byte on @go, makes 40 getppid() calls, says so
 * on @done and waits to be killed */
static pid_t lazy_child(int go[2], int done[2])
{
	pid_t pid = fork();
	char c;

	if (pid)
		return pid;
	if (read(go[0], &c, 1) == 1) {
		for (int i = 0; i < 40; i++)
			syscall(SYS_getppid);
		if (write(done[1], "x", 1) != 1)
			_exit(1);
	}
	pause();
	_exit(0);
}

static void reap(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/*
 * Tables on demand: while nothing records, a new task gets no table (the
 * control file's memory grows by its task part alone), a start gives one
 * to every task before any hook runs, and the task records from its first
 * call on; a clear while nothing records frees every table.  One attempt
 * of three must see the exact byte counts: another task may grow its
 * table between two reads.
 */
static int lazy_attempt(int last, unsigned long *per_task, unsigned long *table)
{
	int go[2], done[2], ok = 0;
	unsigned long m0, m1, m2, m3, d_task, d_table, d_run;
	pid_t a = -1, b = -1;
	struct ktr_profile p;
	char path[64], c;

	if (pipe(go) || pipe(done)) {
		ktr_fail("lazy", "pipe: %s", strerror(errno));
		return 1;
	}
	/* the calls below made once while recording, so that this
	 * process's own table has their records before the counts */
	reap(lazy_child(go, done));

	cmd("lazy-stop", "stop");
	m0 = settled_bytes();
	a = lazy_child(go, done);
	m1 = settled_bytes();
	cmd("lazy-start", "start");
	m2 = settled_bytes();
	b = lazy_child(go, done);
	m3 = settled_bytes();
	d_task = m1 - m0;
	d_table = m2 - m1;
	d_run = m3 - m2;
	if (d_table > 0 && d_task + d_table == d_run) {
		ok = 1;
		*per_task = d_task;
		*table = d_table;
	} else if (last) {
		ktr_fail("lazy-memory", "bytes of ktau memory: +%ld for a task forked while "
			 "stopped, +%ld at the start, +%ld for a task forked while recording; "
			 "expected the first two to add up to the third (a table given at the "
			 "start, none at the fork)", (long)d_task, (long)d_table, (long)d_run);
	}
	if (ok) {
		ktr_pass("lazy-memory");
		ktr_info("lazy-memory", "a task forked while stopped: +%lu bytes, its table "
			 "at the start: +%lu", d_task, d_table);
	}
	if (ok || last) {
		/* the child forked while stopped records all its calls */
		if (write(go[1], "xx", 2) != 2 || read(done[0], &c, 1) != 1 ||
		    read(done[0], &c, 1) != 1) {
			ktr_fail("lazy-records", "the children did not answer");
		} else {
			uint64_t g = 0;
			struct ktr_block *blk;

			snprintf(path, sizeof(path), "/proc/%d/ktau", (int)a);
			if (!ktr_load_buf(path, pbuf, sizeof(pbuf), &p, "lazy-records")) {
				blk = ktr_block_kind(&p, "process", 0);
				if (blk)
					ktr_func(blk, "getppid", &g, NULL, NULL);
				ktr_check(blk && g == 40 && blk->dropped == 0, "lazy-records",
					  "a child forked while stopped, 40 getppid() after the "
					  "start: %s getppid %" PRIu64 " dropped %ld, expected 40 "
					  "and 0", path, g, blk ? blk->dropped : -1L);
				ktr_free(&p);
			}
		}
	}
	reap(a);
	reap(b);
	close(go[0]);
	close(go[1]);
	close(done[0]);
	close(done[1]);
	return ok;
}

static void check_tables_on_demand(void)
{
	unsigned long before, after, tasks, per_task = 0, table = 0;
	int ok = 0;

	for (int i = 0; i < 3 && !ok; i++)
		ok = lazy_attempt(i == 2, &per_task, &table);
	if (!ok)
		return;
	/* a clear while stopped frees every task's table; a start gives one
	 * to each again */
	cmd("lazy-clear", "stop");
	before = settled_bytes();
	cmd("lazy-clear", "clear");
	after = settled_bytes();
	tasks = ktr_ctl_number("memory", "tasks=");
	/* left: the CPUs' reserves, a table of the second size each */
	ktr_check(after - tasks * per_task < 16 * table &&
		  before - tasks * per_task >= tasks / 2 * table, "lazy-clear",
		  "%lu tasks, %lu bytes each without a table, %lu a first table: tables took "
		  "%lu bytes before a clear while stopped, %lu after; expected at least %lu "
		  "before and under %lu after", tasks, per_task, table,
		  before - tasks * per_task, after - tasks * per_task, tasks / 2 * table,
		  16 * table);
	cmd("lazy-clear", "start");
	after = settled_bytes();
	tasks = ktr_ctl_number("memory", "tasks=");
	ktr_check(after - tasks * per_task >= tasks * table, "lazy-start",
		  "%lu tasks after a start: tables take %lu bytes, expected at least %lu "
		  "(a first table each)", tasks, after - tasks * per_task, tasks * table);
}

static void check_groups(void)
{
	static const char *const no_syscall[] = { "softirq", "irq", "sched", "exception",
						  "kernel", "event" };
	static const char *const no_sirq[] = { "syscall", "sched", "exception", "kernel",
					       "event" };
	long pg = sysconf(_SC_PAGESIZE);
	volatile char *mem = mmap(NULL, (size_t)(8 * pg), PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long long g0, g;
	uint64_t f0, f;
	char buf[300];

	if (mem == MAP_FAILED) {
		ktr_fail("disable-syscall", "mmap: %s", strerror(errno));
		return;
	}
	f0 = own_faults("disable-syscall", &g0);
	cmd("disable-syscall", "disable syscall");
	expect_state("disable-syscall-state", "running", no_syscall, 6);
	calls(100);
	for (int i = 0; i < 8; i++)
		mem[(long)i * pg] = 1;
	f = own_faults("disable-syscall", &g);
	if (g0 >= 0 && g >= 0) {
		ktr_check(g == g0, "disable-syscall", "getpid count went from %lld to %lld across "
			  "100 calls with group syscall disabled, expected no change", g0, g);
		ktr_check(f - f0 >= 8, "disable-syscall-faults",
			  "page_fault calls grew by %" PRIu64 " after touching 8 fresh pages with "
			  "syscall disabled, expected >= 8 (group exception still on)", f - f0);
	}
	cmd("enable-syscall", "enable syscall");
	expect_state("enable-syscall-state", "running", NULL, 0);
	calls(60);
	own_faults("enable-syscall", &g);
	if (g0 >= 0 && g >= 0)
		ktr_check(g == g0 + 60, "enable-syscall", "getpid count %lld after enable syscall "
			  "+ 60 calls, expected %lld", g, g0 + 60);
	munmap((void *)mem, (size_t)(8 * pg));

	/* several groups, multiple blanks, trailing newline */
	cmd("disable-two", "disable   softirq  irq\n");
	expect_state("disable-two", "running", no_sirq, 5);
	cmd("enable-two", "enable irq softirq");
	expect_state("enable-two", "running", NULL, 0);
	cmd("disable-all", "disable all");
	{
		/* groups none: checked by expect_state with nwant 0 and want != NULL */
		static const char *const none[] = { NULL };

		expect_state("disable-all-none", "running", none, 0);
	}
	own_faults("disable-all", &g0);
	calls(10);
	own_faults("disable-all", &g);
	if (g0 >= 0 && g >= 0)
		ktr_check(g == g0, "disable-all-count", "getpid count went from %lld to %lld "
			  "with all groups disabled, expected no change", g0, g);
	cmd("enable-all", "enable all\n");
	expect_state("enable-all", "running", NULL, 0);

	/* a 256-byte command is not too long: disable + 246 blanks + irq */
	memset(buf, ' ', sizeof(buf));
	memcpy(buf, "disable", 7);
	memcpy(buf + 253, "irq", 3);
	{
		static const char *const no_irq[] = { "syscall", "softirq", "sched", "exception",
						      "kernel", "event" };
		int e = ktr_ctl_write(buf, 256);

		ktr_check(e == 0, "max-length", "a 256-byte write 'disable <246 blanks> irq' "
			  "failed with %s, expected success (only > 256 bytes is refused)",
			  e ? strerror(e) : "-");
		expect_state("max-length-state", "running", no_irq, 6);
	}
	cmd("enable-all", "enable all");
}

struct bad {
	const char *s;
	size_t len;	/* 0: strlen(s) unless s is "" */
};

#define B(x) { x, sizeof(x) - 1 }

static const struct bad bads[] = {
	B(""), B("\n"), B(" "), B("bogus"), B("START"), B("Stop"), B("sto"), B("startx"),
	B("start now"), B("stop 1"), B("clear all"), B("startclr x"), B("enable"),
	B("enable\n"), B("disable"), B("disable   "), B("enable bogus"),
	B("enable irq bogus"), B("disable syscall bogus"), B("enable Irq"),
	B("enable irq,softirq"), B("disable sys"), B("stop\nstart"), B("start\0"),
	B("st\0art"), B("enable irq\0"), B("start\xff"), B("enable irq\xc3\xa9"), B("\xff"),
	B("\x80"), B("1"), B("enable all bogus"), B("startclr startclr"), B("stop stop"),
	B("usage"), B("end"), B("state running"), B("enable irq\nclear"), B("clear clear"),
	B("disable all x"), B("ktau-control 1"),
};

static void show(char *out, size_t cap, const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len && n + 5 < cap; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			out[n++] = (char)c;
		else
			n += (size_t)snprintf(out + n, cap - n, "\\x%02x", c);
	}
	out[n] = '\0';
}

static void try_bad(const char *check, const char *s, size_t len, const char *before)
{
	char desc[128], *after;
	int e;

	show(desc, sizeof(desc), s, len > 40 ? 40 : len);
	e = ktr_ctl_write(s, len);
	after = ctl_state();
	if (e != EINVAL) {
		ktr_fail(check, "write of %zu bytes '%s%s' gave %s, expected EINVAL", len, desc,
			 len > 40 ? "..." : "", e ? strerror(e) : "success");
	} else if (!after || strcmp(before, after)) {
		ktr_fail(check, "write of %zu bytes '%s%s' gave EINVAL but changed the "
			 "read-back: before '%s' after '%s'", len, desc, len > 40 ? "..." : "",
			 before, after ? after : strerror(errno));
		/* back to the test's state */
		raw_ctl("stop", 4);
		raw_ctl("enable all", 10);
		raw_ctl("disable irq", 11);
	} else {
		ktr_pass(check);
	}
	free(after);
}

static void check_bad(void)
{
	static const size_t longs[] = { 257, 300, 4096, 65536 };
	char *before, *big, check[64];
	long long g0, g;

	/* a state where a partly applied command would show */
	cmd("bad-setup", "stop");
	cmd("bad-setup", "disable irq");
	g0 = own_getpid("bad-setup");
	before = ctl_state();
	if (!before || g0 < 0) {
		ktr_fail("bad-setup", "cannot read %s", KTR_CONTROL);
		free(before);
		return;
	}
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		snprintf(check, sizeof(check), "bad-%02zu", i + 1);
		try_bad(check, bads[i].s, bads[i].len, before);
	}
	/* over-long: a valid command padded with blanks */
	big = malloc(65536);
	if (big) {
		for (size_t i = 0; i < sizeof(longs) / sizeof(longs[0]); i++) {
			memset(big, ' ', longs[i]);
			memcpy(big, "enable", 6);
			memcpy(big + longs[i] - 3, "irq", 3);
			snprintf(check, sizeof(check), "too-long-%zu", longs[i]);
			try_bad(check, big, longs[i], before);
		}
		free(big);
	}
	g = own_getpid("bad-no-effect");
	if (g >= 0)
		ktr_check(g == g0, "bad-no-effect", "own getpid count went from %lld to %lld "
			  "across the malformed writes (a clear or start applied?)", g0, g);
	free(before);
}

int main(void)
{
	ktr_init("control");
	snprintf(tpath, sizeof(tpath), "/proc/self/task/%ld/ktau", (long)syscall(SYS_gettid));
	memset(pbuf, ' ', sizeof(pbuf));	/* pre-fault */
	if (geteuid() != 0) {
		ktr_fail("root", "must run as root (euid %d)", (int)geteuid());
		return ktr_exit();
	}
	if (access(KTR_CONTROL, F_OK)) {
		ktr_fail("present", "%s: %s", KTR_CONTROL, strerror(errno));
		return ktr_exit();
	}
	atexit(restore);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGALRM, on_signal);
	signal(SIGSEGV, on_signal);
	signal(SIGABRT, on_signal);
	alarm(120);

	check_readback();
	restore();	/* whatever the start state, run from running + all */
	check_stop_start();
	check_clear();
	check_tables_on_demand();
	check_groups();
	check_sched_group();
	check_bad();

	restore();
	expect_state("restored", "running", NULL, 0);
	return ktr_exit();
}
