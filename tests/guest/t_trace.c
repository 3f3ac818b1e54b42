// SPDX-License-Identifier: GPL-2.0
/*
 * Trace mode (docs/trace-format.md): /proc/ktau/trace read back with a
 * reader of this test's own, not libktau's.
 *
 * - control: the trace commands and their refusals, the state line;
 * - the stream header, an empty drain, root only;
 * - a child of known behaviour, traced alone (trace pid): 100 getppid()
 *   calls, a read() that blocks, a page fault from user mode, a fork of a
 *   grandchild that exits, its own exit: exactly that sequence per
 *   thread, nested, in TSC order, the tasks announced with their names,
 *   no other task's events, nothing lost;
 * - a drained event is never read again, by one reader or by two at
 *   once (20 000 calls split between two concurrent readers);
 * - a full buffer counts what it drops, in the chunks and the control
 *   file alike, and keeps what it holds intact;
 * - trace alone, with profiling stopped: events, no profile counts;
 * - poll(): at a wake-up level of 0, no POLLIN while nothing is pending,
 *   POLLIN once it is; at 50 %, none below half a buffer, POLLIN above;
 * - atomic events: a child's 10 reads of 16 bytes give 10 read_bytes
 *   values of 16, each just before its read's EXIT, while the event group
 *   is enabled, and none while it is disabled.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ktr.h"

#define TRACE_FILE "/proc/ktau/trace"

enum { ENTRY = 1, EXIT, TASK, EXEC, TASK_EXIT, CONTEXT, ATOMIC };

struct ev {
	uint64_t tsc;
	size_t seq;		/* order in the stream: ties keep it */
	unsigned int cpu, type;
	uint32_t tid, data;
	uint64_t value;		/* ATOMIC */
	char comm[17];
};

struct trace {
	struct ev *ev;
	size_t n, cap;
	uint64_t lost, chunks;
	int bad;		/* the stream broke a rule of the format */
	char why[160];
};

static uint32_t fid_of(const struct ktr_fmap *m, const char *name)
{
	const struct ktr_fmap_ent *e = ktr_fmap_name(m, name);

	return e ? (uint32_t)e->fid : UINT32_MAX;
}

static const char *name_of(const struct ktr_fmap *m, uint32_t fid)
{
	const struct ktr_fmap_ent *e = ktr_fmap_fid(m, fid);

	return e ? e->name : "?";
}

static uint32_t le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

static void bad(struct trace *t, const char *why)
{
	if (!t->bad)
		snprintf(t->why, sizeof(t->why), "%s", why);
	t->bad = 1;
}

/* Parse chunks (the header already taken) of @len bytes into @t. */
static void parse_chunks(struct trace *t, const unsigned char *p, size_t len)
{
	while (len) {
		uint32_t count, lost, i;
		unsigned int cpu;

		if (len < 16 || p[0] != 'K' || p[1] != 'T' || p[2] != 1) {
			bad(t, "a chunk header that is not a kernel chunk");
			return;
		}
		cpu = p[4] | p[5] << 8;
		count = le32(p + 8);
		lost = le32(p + 12);
		p += 16;
		len -= 16;
		if ((uint64_t)count * 16 > len) {
			bad(t, "a chunk longer than the read");
			return;
		}
		t->lost += lost;
		t->chunks++;
		for (i = 0; i < count; i++, p += 16, len -= 16) {
			struct ev *e;

			if (t->n == t->cap) {
				t->cap = t->cap ? 2 * t->cap : 4096;
				t->ev = realloc(t->ev, t->cap * sizeof(*t->ev));
				if (!t->ev) {
					perror("realloc");
					exit(2);
				}
			}
			e = &t->ev[t->n];
			memset(e, 0, sizeof(*e));
			e->seq = t->n;
			e->cpu = cpu;
			e->tsc = le64(p) & ((1ULL << 56) - 1);
			e->type = p[7];
			e->tid = le32(p + 8);
			e->data = le32(p + 12);
			if (e->type < ENTRY || e->type > ATOMIC)
				bad(t, "an event of an unknown type");
			if (e->type == TASK || e->type == EXEC || e->type == ATOMIC) {
				if (i + 1 == count) {
					bad(t, "a two-unit event split across chunks");
					return;
				}
				p += 16;
				len -= 16;
				i++;
				if (e->type == ATOMIC) {
					e->value = le64(p);
					if (le64(p + 8))
						bad(t, "an ATOMIC event whose reserved word is not 0");
				} else {
					memcpy(e->comm, p, 16);
				}
			}
			t->n++;
		}
	}
}

/* The stream header: magic, sizes, the clock of the profiles. */
static int check_header(const unsigned char *h, uint64_t tsc_khz, const char *check)
{
	return ktr_check(!memcmp(h, "KTAUTRC1", 8) && le32(h + 8) == 2 && le32(h + 12) == 64 &&
			 le32(h + 16) == 16 && le32(h + 20) >= 1 && le64(h + 24) == tsc_khz &&
			 le64(h + 40) > 0 && le64(h + 48) > 0, check,
			 "magic %.8s version %u header %u unit %u cpus %u tsc_khz %" PRIu64
			 " (profiles: %" PRIu64 ") realtime %" PRIu64 " monotonic %" PRIu64,
			 (const char *)h, le32(h + 8), le32(h + 12), le32(h + 16), le32(h + 20),
			 le64(h + 24), tsc_khz, le64(h + 40), le64(h + 48));
}

/* Drain with reads of @bufsz bytes until one returns 0; parse into @t. */
static int drain(int fd, size_t bufsz, struct trace *t, unsigned char *header)
{
	unsigned char *buf = malloc(bufsz);
	int first = header != NULL;
	ssize_t n;

	if (!buf)
		return -1;
	while ((n = read(fd, buf, bufsz)) > 0) {
		size_t off = 0;

		if (first) {
			if (n < 64) {
				bad(t, "a first read shorter than the header");
				break;
			}
			memcpy(header, buf, 64);
			off = 64;
			first = 0;
		}
		parse_chunks(t, buf + off, n - off);
	}
	free(buf);
	return n < 0 ? -1 : 0;
}

static int cmp_ev(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->tsc != y->tsc)
		return x->tsc < y->tsc ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The events of @tid in TSC order (ties: stream order). */
static struct ev *thread_events(const struct trace *t, uint32_t tid, size_t *n)
{
	struct ev *out = malloc((t->n + 1) * sizeof(*out));
	size_t k = 0;

	for (size_t i = 0; out && i < t->n; i++)
		if (t->ev[i].tid == tid)
			out[k++] = t->ev[i];
	if (out)
		qsort(out, k, sizeof(*out), cmp_ev);
	*n = k;
	return out;
}

/*
 * The thread's ENTRY/EXIT nest: every EXIT closes the innermost open
 * ENTRY of the same id, but for at most 8 EXITs at depth 0, whose ENTRY
 * came before the trace.  Returns 1 if so, with the outermost slices' ids in
 * @top (up to @max).
 */
static int nests(const struct ev *e, size_t n, uint32_t *top, size_t max, size_t *ntop,
		 char *why, size_t whylen)
{
	uint32_t stack[64];
	size_t depth = 0, k = 0, before_trace = 0;

	for (size_t i = 0; i < n; i++) {
		if (e[i].type == ENTRY) {
			if (depth == 64) {
				snprintf(why, whylen, "deeper than 64 at event %zu", i);
				return 0;
			}
			if (!depth && k < max)
				top[k++] = e[i].data;
			stack[depth++] = e[i].data;
		} else if (e[i].type == EXIT) {
			/*
			 * begun before the trace: at most the kernel's 8 frames
			 * open then, closed in any order with what ran inside them
			 * (an interrupt in the read() the task was woken in)
			 */
			if (!depth && ++before_trace <= 8)
				continue;
			if (!depth || stack[depth - 1] != e[i].data) {
				snprintf(why, whylen, "EXIT of %u at event %zu closes %u (depth %zu)",
					 e[i].data, i, depth ? stack[depth - 1] : 0, depth);
				return 0;
			}
			depth--;
		}
	}
	*ntop = k;
	return 1;
}

static int monotonic(const struct trace *t)
{
	for (size_t i = 1; i < t->n; i++)
		if (t->ev[i].cpu == t->ev[i - 1].cpu && t->ev[i].tsc < t->ev[i - 1].tsc &&
		    t->ev[i].seq == t->ev[i - 1].seq + 1)
			return 0;
	return 1;
}

/* ---- control ------------------------------------------------------- */

static void check_control(void)
{
	static const char *const refused[] = {
		"trace", "trace size", "trace size 17", "trace size 8", "trace size 524288",
		"trace size 64K", "trace pid", "trace pid 0", "trace pid abc", "trace pid -3",
		"trace on now", "trace off 1", "trace foo", "trace all pids",
		"trace pid 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17",
		"trace wakeup", "trace wakeup 101", "trace wakeup -1", "trace wakeup 50%",
		"trace wakeup 5 6", "trace wakeup 1K",
	};
	char *ctl;
	size_t len;
	int ok = 1, err;

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		if (ktr_ctl(refused[i]) != EINVAL) {
			ktr_fail("control-refusals", "'%s' was not refused with EINVAL", refused[i]);
			ok = 0;
		}
	}
	if (ok)
		ktr_pass("control-refusals");
	err = ktr_ctl("trace pid 999999");
	ktr_check(err == ESRCH, "control-no-such-pid", "trace pid 999999: %s, expected ESRCH",
		  strerror(err));
	err = ktr_ctl("trace size 64");
	if (!err)
		err = ktr_ctl("trace all");
	ktr_check(!err, "control-size", "trace size 64, trace all: %s", strerror(err));
	ctl = ktr_slurp(KTR_CONTROL, &len);
	ktr_check(ctl && strstr(ctl, "\ntrace off size=64 tasks=all lost=0 wakeup=50\n") &&
		  strstr(ctl, "trace on|off|all") && strstr(ctl, "trace wakeup PERCENT"),
		  "control-state",
		  "control file lacks 'trace off size=64 tasks=all lost=0 wakeup=50' or the usage: %s",
		  ctl ? ctl : strerror(errno));
	free(ctl);
	err = ktr_ctl("trace on");
	if (!err)
		err = ktr_ctl("trace size 128");
	ktr_check(err == EBUSY, "control-size-busy",
		  "trace size while tracing: %s, expected EBUSY", strerror(err));
	/* the wake-up level changes while tracing, at once */
	err = ktr_ctl("trace wakeup 0");
	ctl = ktr_slurp(KTR_CONTROL, &len);
	ktr_check(!err && ctl && strstr(ctl, "\ntrace on size=64 tasks=all lost=0 wakeup=0\n"),
		  "control-wakeup", "trace wakeup 0 while tracing: %s; control file: %s",
		  strerror(err), ctl ? ctl : "(unreadable)");
	free(ctl);
	ktr_ctl("trace wakeup 50");
	ktr_ctl("trace off");
}

static void check_empty(uint64_t tsc_khz)
{
	unsigned char h[64], buf[256];
	int fd = open(TRACE_FILE, O_RDONLY);
	ssize_t n, m;

	if (fd < 0) {
		ktr_fail("empty-open", "%s: %s", TRACE_FILE, strerror(errno));
		return;
	}
	ktr_check(read(fd, buf, 111) == -1 && errno == EINVAL, "small-first-read",
		  "a 111-byte first read: %s, expected EINVAL (header, chunk, two units)",
		  strerror(errno));
	n = read(fd, buf, sizeof(buf));
	m = read(fd, buf + 64, sizeof(buf) - 64);
	ktr_check(n == 64 && m == 0, "empty-drain",
		  "trace off: reads gave %zd then %zd bytes, expected the header (64) then 0", n, m);
	memcpy(h, buf, 64);
	if (n == 64)
		check_header(h, tsc_khz, "header");
	close(fd);
}

/* A process of user nobody may neither read the trace nor control it. */
static void check_nobody(void)
{
	pid_t pid = fork();
	int st;

	if (!pid) {
		if (setgid(65534) || setuid(65534))
			_exit(3);
		if (open(TRACE_FILE, O_RDONLY) >= 0)
			_exit(1);
		st = ktr_ctl("trace on");
		_exit(st == EPERM || st == EACCES ? 0 : 2);
	}
	waitpid(pid, &st, 0);
	ktr_check(WIFEXITED(st) && !WEXITSTATUS(st), "nobody-refused",
		  "user nobody: status %d (1: opened the trace, 2: started it)", st);
}

/* ---- a child of known behaviour ------------------------------------- */

#define CALLS 100

struct known {
	pid_t child, grandchild;
	uint64_t tsc_khz;
};

static void child_body(int go, int wake, int report)
{
	char c;
	pid_t g;
	volatile char *page;

	/*
	 * Run the code below once before the trace starts: a page of it that
	 * fork() left unmapped would fault in later, a slice of its own.
	 */
	syscall(SYS_getppid);
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED || munmap((void *)page, 4096))
		_exit(4);
	if (read(go, &c, 1) != 1)
		_exit(3);
	for (int i = 0; i < CALLS; i++)
		syscall(SYS_getppid);
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		_exit(4);
	if (read(wake, &c, 1) != 1)	/* blocks: the parent writes later */
		_exit(5);
	page[0] = 1;			/* a fault from user mode, before any call */
	g = fork();
	if (!g)
		_exit(0);
	if (write(report, &g, sizeof(g)) != sizeof(g))
		_exit(6);
	waitpid(g, NULL, 0);
	_exit(0);
}

static int run_known(struct known *k, struct trace *t, unsigned char *header)
{
	int go[2], wake[2], report[2], fd, st;
	char cmd[64];

	if (pipe(go) || pipe(wake) || pipe(report)) {
		ktr_fail("known-setup", "pipe: %s", strerror(errno));
		return -1;
	}
	k->child = fork();
	if (!k->child) {
		close(go[1]);
		close(wake[1]);
		close(report[0]);
		child_body(go[0], wake[0], report[1]);
	}
	close(go[0]);
	close(wake[0]);
	close(report[1]);
	fd = open(TRACE_FILE, O_RDONLY);
	snprintf(cmd, sizeof(cmd), "trace pid %d", (int)k->child);
	/* a trace started before the child sleeps in read() would hold its
	 * way there (its close() calls, a preemption) */
	if (fd < 0 || ktr_wait_sleeping(k->child) || ktr_ctl("trace size 1024") || ktr_ctl(cmd) ||
	    ktr_ctl("trace on")) {
		ktr_fail("known-setup", "%s, trace on: %s", cmd, strerror(errno));
		return -1;
	}
	/*
	 * The write leaves the child runnable at once; it sleeps again only
	 * in the read() of wake, which must block for its schedule_vol.
	 */
	if (write(go[1], "g", 1) != 1 || ktr_wait_sleeping(k->child)) {
		ktr_fail("known-setup", "the child never blocked in its second read()");
		return -1;
	}
	if (write(wake[1], "w", 1) != 1 ||
	    read(report[0], &k->grandchild, sizeof(k->grandchild)) != sizeof(k->grandchild)) {
		ktr_fail("known-setup", "the child reported no grandchild");
		return -1;
	}
	waitpid(k->child, &st, 0);
	drain(fd, 1 << 20, t, header);
	close(fd);
	ktr_ctl("trace off");
	ktr_ctl("trace all");
	close(go[1]);
	close(wake[1]);
	close(report[0]);
	return 0;
}

static int is_interrupt(const struct ktr_fmap *fm, uint32_t fid)
{
	const struct ktr_fmap_ent *fe = ktr_fmap_fid(fm, fid);

	return fe && (!strcmp(fe->group, "irq") || !strcmp(fe->group, "softirq"));
}

/* The index after the interrupt slice whose ENTRY is e[i], nested ones included. */
static size_t past_interrupt(const struct ktr_fmap *fm, const struct ev *e, size_t n, size_t i)
{
	size_t depth = 0;

	for (; i < n && (e[i].type == ENTRY || e[i].type == EXIT) && is_interrupt(fm, e[i].data);
	     i++) {
		depth += e[i].type == ENTRY ? 1 : -1;
		if (!depth)
			return i + 1;
	}
	return n;	/* not a whole slice: the caller's test fails */
}

/*
 * Past the involuntary switch whose entry is e[i]: a preemption the task
 * did not ask for, as an interrupt is; n when it never ends.
 */
static size_t past_preemption(const struct ev *e, size_t n, size_t i, uint32_t invol)
{
	for (size_t j = i + 1; j < n; j++)
		if (e[j].type == EXIT && e[j].data == invol)
			return j + 1;
	return n;
}

static const struct ev *find_task(const struct ev *e, size_t n, unsigned int type)
{
	for (size_t i = 0; i < n; i++)
		if (e[i].type == type)
			return &e[i];
	return NULL;
}

static void check_known(const struct ktr_fmap *fm, uint64_t tsc_khz)
{
	const uint32_t getppid = fid_of(fm, "getppid"), rd = fid_of(fm, "read"),
		       vol = fid_of(fm, "schedule_vol"), fault = fid_of(fm, "page_fault"),
		       exit_group = fid_of(fm, "exit_group"),
		       invol = fid_of(fm, "schedule_invol");
	struct trace t = { 0 };
	unsigned char header[64];
	struct known k = { 0 };
	struct ev *ce, *ge;
	size_t cn, gn, ntop = 0, others = 0, calls = 0;
	uint32_t top[4096];
	char why[160] = "";
	const struct ev *task;

	if (run_known(&k, &t, header))
		return;
	ktr_check(!t.bad, "known-format", "%s", t.why);
	check_header(header, tsc_khz, "known-header");
	ktr_check(t.lost == 0 && t.n > 2 * CALLS, "known-nothing-lost",
		  "%zu events, %" PRIu64 " lost", t.n, t.lost);
	ktr_check(monotonic(&t), "known-cpu-order", "a CPU's events go back in TSC");
	for (size_t i = 0; i < t.n; i++)
		others += t.ev[i].tid != (uint32_t)k.child && t.ev[i].tid != (uint32_t)k.grandchild;
	ktr_check(!others, "known-only-traced", "%zu events of tasks other than %d and %d",
		  others, (int)k.child, (int)k.grandchild);

	ce = thread_events(&t, k.child, &cn);
	ge = thread_events(&t, k.grandchild, &gn);
	task = find_task(ce, cn, TASK);
	ktr_check(task && task == &ce[0] && task->data == (uint32_t)k.child &&
		  !strcmp(task->comm, "t_trace"), "known-announced",
		  "the child's first event: type %u tgid %u comm '%s'; expected TASK %d t_trace",
		  cn ? ce[0].type : 0, task ? task->data : 0, task ? task->comm : "-",
		  (int)k.child);
	ktr_check(cn && ce[cn - 1].type == TASK_EXIT && ce[cn - 1].data == (uint32_t)k.child,
		  "known-exit-last", "the child's last event is type %u, expected TASK_EXIT",
		  cn ? ce[cn - 1].type : 0);
	ktr_check(nests(ce, cn, top, sizeof(top) / sizeof(top[0]), &ntop, why, sizeof(why)),
		  "known-nesting", "child: %s", why);
	/*
	 * Outermost slices, interrupts from user mode left out: the read()
	 * it was woken in is open before the trace, then CALLS getppid(),
	 * mmap, the read that blocks, the fault, the fork...
	 */
	{
		size_t i = 0, j;
		const struct ktr_fmap_ent *fe;

		for (j = 0; j < ntop; j++) {
			fe = ktr_fmap_fid(fm, top[j]);
			if (is_interrupt(fm, top[j]) || (fe && !strcmp(fe->name, "schedule_invol")))
				continue;
			top[i++] = top[j];
		}
		ntop = i;
		for (i = 0; i < ntop && top[i] == getppid; i++)
			calls++;
		ktr_check(calls == CALLS, "known-calls", "%zu getppid() slices first, expected %d",
			  calls, CALLS);
		ktr_check(ntop > CALLS + 3 && top[CALLS + 1] == rd && top[CALLS + 2] == fault,
			  "known-sequence", "after the getppid() calls: %s, %s, %s; expected mmap, "
			  "read, page_fault", ntop > CALLS ? name_of(fm, top[CALLS]) : "-",
			  ntop > CALLS + 1 ? name_of(fm, top[CALLS + 1]) : "-",
			  ntop > CALLS + 2 ? name_of(fm, top[CALLS + 2]) : "-");
		ktr_check(ntop && top[ntop - 1] == exit_group, "known-exit-group",
			  "the last outermost slice is %s, expected exit_group",
			  ntop ? name_of(fm, top[ntop - 1]) : "-");
	}
	/*
	 * The blocking read: read => schedule_vol, with at most whole
	 * interrupt slices (a timer tick) and preemptions between the two
	 * entries: on a slow guest the tick that wakes the parent can
	 * preempt the child inside read() before it blocks.
	 */
	{
		int found = 0;

		why[0] = '\0';
		for (size_t i = 0; i + 2 < cn && !found; i++) {
			size_t j = i + 1;

			if (ce[i].type != ENTRY || ce[i].data != rd)
				continue;
			while (j < cn && ce[j].type == ENTRY) {
				if (is_interrupt(fm, ce[j].data))
					j = past_interrupt(fm, ce, cn, j);
				else if (ce[j].data == invol)
					j = past_preemption(ce, cn, j, invol);
				else
					break;
			}
			found = j < cn && ce[j].type == ENTRY && ce[j].data == vol;
			if (j < cn)
				snprintf(why, sizeof(why), "type %u of %s", ce[j].type,
					 name_of(fm, ce[j].data));
		}
		ktr_check(found, "known-blocking-read",
			  "no read => schedule_vol in the child; a read's entry was followed by %s",
			  *why ? why : "nothing");
	}
	task = find_task(ge, gn, TASK);
	ktr_check(task && task->data == (uint32_t)k.grandchild && !strcmp(task->comm, "t_trace") &&
		  gn && ge[gn - 1].type == TASK_EXIT, "known-grandchild",
		  "the grandchild %d: %zu events, TASK %s, last type %u", (int)k.grandchild, gn,
		  task ? task->comm : "missing", gn ? ge[gn - 1].type : 0);
	ktr_info("known", "%zu events in %" PRIu64 " chunks: child %zu, grandchild %zu", t.n,
		 t.chunks, cn, gn);
	free(ce);
	free(ge);
	free(t.ev);
}

/* ---- many calls: two readers, a full buffer, trace alone ------------- */

struct caller {
	int go[2];
	pid_t pid;
};

/*
 * A child that makes @calls getppid() calls once told to, sleeping 1 ms
 * after every @blocks of them (0: never), then writes to @pages fresh
 * pages (a page fault each, from user mode); @pin: on CPU 0.
 */
static pid_t start_caller(struct caller *c, long calls, int blocks, int pin, int pages)
{
	if (pipe(c->go))
		return -1;
	c->pid = fork();
	if (!c->pid) {
		cpu_set_t cpu0;
		char x;

		CPU_ZERO(&cpu0);
		CPU_SET(0, &cpu0);
		if (pin && sched_setaffinity(0, sizeof(cpu0), &cpu0))
			_exit(4);
		close(c->go[1]);
		if (read(c->go[0], &x, 1) != 1)
			_exit(3);
		for (long i = 0; i < calls; i++) {
			syscall(SYS_getppid);
			if (blocks && i % blocks == blocks - 1)
				usleep(1000);
		}
		if (pages) {
			long size = sysconf(_SC_PAGESIZE);
			volatile char *m = mmap(NULL, (size_t)pages * size, PROT_READ | PROT_WRITE,
						MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (m == MAP_FAILED)
				_exit(5);
			for (int i = 0; i < pages; i++)
				m[(long)i * size] = 1;
		}
		_exit(0);
	}
	close(c->go[0]);
	return c->pid;
}

/* A child that reads 16 bytes of /dev/zero @reads times once told to. */
static pid_t start_reader(struct caller *c, int reads)
{
	if (pipe(c->go))
		return -1;
	c->pid = fork();
	if (!c->pid) {
		char x, b16[16];
		int z = open("/dev/zero", O_RDONLY);

		close(c->go[1]);
		if (z < 0 || read(c->go[0], &x, 1) != 1)
			_exit(3);
		for (int i = 0; i < reads; i++)
			if (read(z, b16, sizeof(b16)) != sizeof(b16))
				_exit(4);
		_exit(0);
	}
	close(c->go[0]);
	return c->pid;
}

static int mark_and_go(struct caller *c)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "trace pid %d", (int)c->pid);
	if (ktr_wait_sleeping(c->pid) || ktr_ctl(cmd) || ktr_ctl("trace on"))
		return -1;
	return write(c->go[1], "g", 1) == 1 ? 0 : -1;
}

static size_t count_type(const struct trace *t, unsigned int type, uint32_t data, uint32_t tid)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++)
		n += t->ev[i].type == type && t->ev[i].data == data && t->ev[i].tid == tid;
	return n;
}

struct reader {
	volatile int *stop;
	struct trace t;
};

/* A reader of its own open file: its first read holds the header. */
static void *reader_main(void *arg)
{
	struct reader *r = arg;
	unsigned char h[64];
	int fd = open(TRACE_FILE, O_RDONLY), first = 1;

	if (fd < 0) {
		bad(&r->t, "cannot open the trace");
		return NULL;
	}
	for (;;) {
		int last = *r->stop;

		drain(fd, 8192, &r->t, first ? h : NULL);
		first = 0;
		if (last)
			break;
		usleep(500);
	}
	close(fd);
	return NULL;
}

static int cmp_key(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->tsc != y->tsc)
		return x->tsc < y->tsc ? -1 : 1;
	return x->type < y->type ? -1 : x->type > y->type;
}

#define MANY 20000

static void check_two_readers(uint32_t getppid)
{
	volatile int stop = 0;
	struct reader r[2] = { 0 };
	struct caller c;
	pthread_t th[2];
	struct trace all = { 0 };
	size_t dup = 0;

	if (start_caller(&c, MANY, 1000, 0, 0) < 0 || ktr_ctl("trace size 1024")) {
		ktr_fail("readers-setup", "%s", strerror(errno));
		return;
	}
	for (int i = 0; i < 2; i++) {
		r[i].stop = &stop;
		pthread_create(&th[i], NULL, reader_main, &r[i]);
	}
	if (mark_and_go(&c))
		ktr_fail("readers-start", "%s", strerror(errno));
	waitpid(c.pid, NULL, 0);
	stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	ktr_ctl("trace off");
	ktr_ctl("trace all");
	for (int i = 0; i < 2; i++) {
		for (size_t j = 0; j < r[i].t.n; j++) {
			if (all.n == all.cap) {
				all.cap = all.cap ? 2 * all.cap : 65536;
				all.ev = realloc(all.ev, all.cap * sizeof(*all.ev));
			}
			all.ev[all.n++] = r[i].t.ev[j];
		}
		all.lost += r[i].t.lost;
	}
	qsort(all.ev, all.n, sizeof(*all.ev), cmp_key);
	for (size_t i = 1; i < all.n; i++)
		dup += !cmp_key(&all.ev[i], &all.ev[i - 1]);
	ktr_check(!r[0].t.bad && !r[1].t.bad && !dup && !all.lost &&
		  count_type(&all, ENTRY, getppid, c.pid) == MANY &&
		  count_type(&all, EXIT, getppid, c.pid) == MANY, "readers-exact",
		  "two readers: %zu + %zu events, %zu repeated, %" PRIu64 " lost, getppid "
		  "entries %zu exits %zu, expected %d each, none repeated or lost (%s%s)",
		  r[0].t.n, r[1].t.n, dup, all.lost, count_type(&all, ENTRY, getppid, c.pid),
		  count_type(&all, EXIT, getppid, c.pid), MANY, r[0].t.why, r[1].t.why);
	free(all.ev);
	free(r[0].t.ev);
	free(r[1].t.ev);
}

static void check_overflow(void)
{
	struct trace t = { 0 };
	struct caller c;
	unsigned char h[64];
	char *ctl, *line;
	size_t len, ntop;
	unsigned long long ctl_lost = 0;
	uint32_t top[1];
	char why[160] = "";
	struct ev *ce;
	size_t cn;
	int fd;

	/* 16 KiB: 1024 units a CPU, for 2 * MANY events; the caller stays on
	 * CPU 0, so that what is kept is the start of its timeline */
	if (ktr_ctl("trace size 16") || start_caller(&c, MANY, 0, 1, 0) < 0 || mark_and_go(&c)) {
		ktr_fail("overflow-setup", "%s", strerror(errno));
		return;
	}
	waitpid(c.pid, NULL, 0);
	ctl = ktr_slurp(KTR_CONTROL, &len);
	line = ctl ? strstr(ctl, "\ntrace on ") : NULL;
	if (line)
		sscanf(line, "\ntrace on size=16 tasks=pids lost=%llu", &ctl_lost);
	fd = open(TRACE_FILE, O_RDONLY);
	drain(fd, 1 << 20, &t, h);
	close(fd);
	ktr_ctl("trace off");
	ktr_ctl("trace all");
	ktr_ctl("trace size 1024");
	ce = thread_events(&t, c.pid, &cn);
	ktr_check(!t.bad && t.lost > 0 && t.lost == ctl_lost && t.n <= 1024 * 4 &&
		  t.n + t.lost >= 2 * MANY, "overflow-counted",
		  "%zu events kept, %" PRIu64 " lost in the chunks, %llu in the control file; "
		  "expected at most 1024 units a CPU, losses counted alike, %d in all (%s)",
		  t.n, t.lost, ctl_lost, 2 * MANY, t.why);
	if (!ktr_check(nests(ce, cn, top, 0, &ntop, why, sizeof(why)), "overflow-intact",
		       "what a full buffer kept does not nest: %s", why))
		for (size_t i = 0; i < cn && i < 12; i++)
			ktr_info("overflow", "event %zu: cpu %u tsc %" PRIu64 " type %u data %u", i,
				 ce[i].cpu, ce[i].tsc, ce[i].type, ce[i].data);
	free(ctl);
	free(ce);
	free(t.ev);
}

/* This process's read_bytes event count. */
static uint64_t read_bytes_count(void)
{
	struct ktr_profile p;
	struct ktr_event e = { 0 };
	struct ktr_block *b;

	if (ktr_load("/proc/self/ktau", 0, &p, "read-bytes"))
		return UINT64_MAX;
	b = ktr_block_kind(&p, "process", 0);
	if (b)
		ktr_event_find(b, "read_bytes", &e);
	ktr_free(&p);
	return e.count;
}

/*
 * Profiling stopped, the trace on: events, and no profile counts.  The
 * caller's user mode faults and its sleeps' switches too: each one's
 * ENTRY and EXIT (the trace alone takes its own paths for system calls,
 * user mode faults and a switch's return).
 */
#define ALONE_PAGES	64
#define ALONE_SLEEPS	10

/* The calls of @name in this process's children total, or -1. */
static int64_t children_calls(const char *name, const char *check)
{
	struct ktr_profile p;
	struct ktr_block *b;
	uint64_t calls = 0;

	if (ktr_load_settled("/proc/self/ktau", &p, check))
		return -1;
	b = ktr_block_kind(&p, "children", 0);
	if (b)
		ktr_func(b, name, &calls, NULL, NULL);
	ktr_free(&p);
	return (int64_t)calls;
}

static void check_trace_alone(uint32_t getppid, uint32_t fault, uint32_t vol)
{
	int64_t calls_before = children_calls("getppid", "alone-before");
	int64_t faults_before = children_calls("page_fault", "alone-before");
	struct trace t = { 0 };
	struct caller c;
	unsigned char h[64];
	size_t fault_in, fault_out, vol_in, vol_out;
	int64_t calls_after, faults_after;
	int fd;

	if (ktr_ctl("stop") ||
	    start_caller(&c, CALLS, CALLS / ALONE_SLEEPS, 0, ALONE_PAGES) < 0 ||
	    mark_and_go(&c)) {
		ktr_fail("alone-setup", "%s", strerror(errno));
		ktr_ctl("start");
		return;
	}
	waitpid(c.pid, NULL, 0);
	fd = open(TRACE_FILE, O_RDONLY);
	drain(fd, 1 << 20, &t, h);
	close(fd);
	ktr_ctl("trace off");
	ktr_ctl("trace all");
	ktr_ctl("start");
	ktr_check(count_type(&t, ENTRY, getppid, c.pid) == CALLS &&
		  count_type(&t, EXIT, getppid, c.pid) == CALLS, "alone-traced",
		  "profiling stopped: %zu getppid entries, %zu exits, expected %d each",
		  count_type(&t, ENTRY, getppid, c.pid), count_type(&t, EXIT, getppid, c.pid),
		  CALLS);
	fault_in = count_type(&t, ENTRY, fault, c.pid);
	fault_out = count_type(&t, EXIT, fault, c.pid);
	ktr_check(fault_in >= ALONE_PAGES && fault_in == fault_out, "alone-faults",
		  "profiling stopped: %zu page_fault entries, %zu exits, expected at least %d "
		  "and as many exits", fault_in, fault_out, ALONE_PAGES);
	/*
	 * The caller blocked in read() before the trace started, and its
	 * switch out may have come before or after: one more EXIT, or none.
	 */
	vol_in = count_type(&t, ENTRY, vol, c.pid);
	vol_out = count_type(&t, EXIT, vol, c.pid);
	ktr_check(vol_in >= ALONE_SLEEPS && (vol_out == vol_in || vol_out == vol_in + 1),
		  "alone-switches",
		  "profiling stopped: %zu schedule_vol entries, %zu exits, expected at least %d "
		  "and as many exits, or one more", vol_in, vol_out, ALONE_SLEEPS);
	/* the reaped caller's profile, folded into ours: nothing recorded */
	calls_after = children_calls("getppid", "alone-after");
	faults_after = children_calls("page_fault", "alone-after");
	ktr_check(calls_before >= 0 && calls_after == calls_before &&
		  faults_before >= 0 && faults_after == faults_before, "alone-nothing-recorded",
		  "profiling stopped: the children total's getppid %" PRId64 " -> %" PRId64
		  ", page_fault %" PRId64 " -> %" PRId64 ", expected no change",
		  calls_before, calls_after, faults_before, faults_after);
	free(t.ev);
}

/* Profiling on as well: the profile counts what the trace shows. */
static void check_trace_and_profile(void)
{
	struct ktr_profile p;
	struct ktr_block *b;
	struct trace t = { 0 };
	unsigned char h[64];
	uint64_t calls = 0;
	char cmd[64];
	int fd;

	snprintf(cmd, sizeof(cmd), "trace pid %d", (int)getpid());
	fd = open(TRACE_FILE, O_RDONLY);
	if (fd < 0 || ktr_ctl(cmd) || ktr_ctl("clear") || ktr_ctl("trace on")) {
		ktr_fail("both-setup", "%s", strerror(errno));
		return;
	}
	for (int i = 0; i < CALLS; i++)
		syscall(SYS_getppid);
	if (!ktr_load("/proc/self/ktau", 0, &p, "both-profile")) {
		b = ktr_block_kind(&p, "process", 0);
		if (b)
			ktr_func(b, "getppid", &calls, NULL, NULL);
		ktr_free(&p);
	}
	ktr_ctl("trace off");
	/* the buffers went with trace off: this drain must find nothing */
	drain(fd, 1 << 20, &t, h);
	ktr_check(calls == CALLS && t.n == 0, "both-profiled",
		  "trace and profile on: the profile counts %" PRIu64 " getppid calls, expected "
		  "%d; a drain after trace off found %zu events, expected 0", calls, CALLS, t.n);
	close(fd);
	ktr_ctl("trace all");
	free(t.ev);
}

/*
 * poll() with a wake-up level: a 16 KiB buffer (1 024 units a CPU) at 50 %
 * stays quiet below 512 units on a CPU and wakes its reader above.  Both
 * callers stay on CPU 0: 100 calls (about 210 units with their
 * announcements and exits) are below the level, 200 more above it.
 */
static void check_poll_level(void)
{
	struct pollfd pfd = { .events = POLLIN };
	struct caller a, b;
	unsigned char buf[4096];
	char cmd[64];
	int r1 = -3, r2 = -3;

	pfd.fd = open(TRACE_FILE, O_RDONLY);
	if (pfd.fd < 0 || ktr_ctl("trace size 16") || ktr_ctl("trace wakeup 50") ||
	    start_caller(&a, 100, 0, 1, 0) < 0 || start_caller(&b, 200, 0, 1, 0) < 0) {
		ktr_fail("poll-level-setup", "%s", strerror(errno));
		return;
	}
	snprintf(cmd, sizeof(cmd), "trace pid %d %d", (int)a.pid, (int)b.pid);
	ktr_wait_sleeping(a.pid);
	ktr_wait_sleeping(b.pid);
	if (ktr_ctl(cmd) || ktr_ctl("trace on")) {
		ktr_fail("poll-level-setup", "%s: %s", cmd, strerror(errno));
		goto out;
	}
	while (read(pfd.fd, buf, sizeof(buf)) > 0)
		;
	if (write(a.go[1], "g", 1) == 1) {
		waitpid(a.pid, NULL, 0);
		r1 = poll(&pfd, 1, 200);	/* about 210 units: below 512 */
	}
	if (write(b.go[1], "g", 1) == 1)
		r2 = poll(&pfd, 1, 5000);	/* about 620: above */
	ktr_check(r1 == 0 && r2 == 1 && (pfd.revents & POLLIN), "poll-level",
		  "poll() at a wake-up level of 50 %% gave %d below it (expected 0), then %d "
		  "revents %#x above it (expected 1, POLLIN)", r1, r2, pfd.revents);
out:
	/* a caller not told to go ends at the pipe's end */
	close(a.go[1]);
	close(b.go[1]);
	waitpid(a.pid, NULL, 0);
	waitpid(b.pid, NULL, 0);
	ktr_ctl("trace off");
	ktr_ctl("trace all");
	ktr_ctl("trace size 1024");
	close(pfd.fd);
}

static void check_poll(void)
{
	struct pollfd pfd;
	struct caller c;
	unsigned char buf[4096];
	int fd = open(TRACE_FILE, O_RDONLY), r1, r2;

	if (fd < 0 || start_caller(&c, 10, 0, 0, 0) < 0) {
		ktr_fail("poll-setup", "%s", strerror(errno));
		return;
	}
	{
		char cmd[64];

		snprintf(cmd, sizeof(cmd), "trace pid %d", (int)c.pid);
		ktr_wait_sleeping(c.pid);
		ktr_ctl(cmd);
		ktr_ctl("trace wakeup 0");	/* at the first event */
		ktr_ctl("trace on");
	}
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	pfd.fd = fd;
	pfd.events = POLLIN;
	r1 = poll(&pfd, 1, 100);	/* the child waits: nothing traced */
	if (write(c.go[1], "g", 1) != 1)
		r1 = -2;
	r2 = poll(&pfd, 1, 5000);
	ktr_check(r1 == 0 && r2 == 1 && (pfd.revents & POLLIN), "poll",
		  "poll() gave %d while nothing was pending (expected 0), then %d revents %#x "
		  "once the child ran (expected 1, POLLIN)", r1, r2, pfd.revents);
	waitpid(c.pid, NULL, 0);
	ktr_ctl("trace off");
	ktr_ctl("trace all");
	ktr_ctl("trace wakeup 50");
	close(fd);
}

/*
 * Everything traced: a reader that drains until a read returns 0 ends,
 * as its own reads are not traced (SIGALRM kills the test if not).
 */
static void check_all_drain_ends(void)
{
	struct trace t = { 0 };
	unsigned char h[64];
	size_t mine = 0;
	int fd, err;

	fd = open(TRACE_FILE, O_RDONLY);
	err = fd < 0 ? errno : ktr_ctl("trace all");
	if (!err)
		err = ktr_ctl("trace on");
	if (err) {
		ktr_fail("all-drain-ends", "trace all, trace on: %s", strerror(err));
		return;
	}
	for (int i = 0; i < CALLS; i++)
		syscall(SYS_getppid);
	alarm(60);
	drain(fd, 1 << 16, &t, h);
	alarm(0);
	for (size_t i = 0; i < t.n; i++)
		mine += t.ev[i].tid == (uint32_t)getpid();
	ktr_check(!t.bad && !mine, "all-drain-ends",
		  "every task traced: the drain ended with %zu events, %zu of them the reader's "
		  "(expected none: it has the trace open) %s", t.n, mine, t.why);
	close(fd);
	ktr_ctl("trace off");
	free(t.ev);
}

/*
 * The event group switched off, the trace on (its key is on for the
 * trace): a profiled read() counts no read_bytes event.
 */
static void check_event_group_off(void)
{
	uint64_t before, after;
	char b16[16];
	int z, err;

	err = ktr_ctl("disable event");
	if (!err)
		err = ktr_ctl("trace on");
	if (err) {
		ktr_fail("event-off", "disable event, trace on: %s", strerror(err));
		return;
	}
	before = read_bytes_count();
	z = open("/dev/zero", O_RDONLY);
	for (int i = 0; z >= 0 && i < 10; i++)
		if (read(z, b16, sizeof(b16)) != sizeof(b16))
			break;
	if (z >= 0)
		close(z);
	after = read_bytes_count();
	ktr_ctl("trace off");
	ktr_ctl("enable event");
	ktr_check(after == before, "event-off", "the event group off, the trace on: read_bytes "
		  "went from %" PRIu64 " to %" PRIu64 " over 10 reads, expected no change",
		  before, after);
}

#define READS 10

/*
 * The reader child traced with the event group @enabled: its reads'
 * read_bytes values (the byte it is told to go with, then READS of 16),
 * each followed by its read's EXIT.  Returns the ATOMIC events found
 * (SIZE_MAX: setup failed); *@sum: their values' sum; *@before_exit: how
 * many the child's next event (TSC order) is an EXIT of read.
 */
static size_t traced_reads(uint32_t rd, uint32_t read_bytes, int enabled, size_t *exits,
			   size_t *before_exit, size_t *wrong, uint64_t *sum)
{
	struct trace t = { 0 };
	struct caller c;
	unsigned char h[64];
	size_t n, atomics = 0;
	struct ev *e;
	int fd;

	*exits = *before_exit = *wrong = 0;
	*sum = 0;
	fd = open(TRACE_FILE, O_RDONLY);
	if (fd < 0 || ktr_ctl(enabled ? "enable event" : "disable event") ||
	    start_reader(&c, READS) < 0 || mark_and_go(&c)) {
		if (fd >= 0)
			close(fd);
		return SIZE_MAX;
	}
	waitpid(c.pid, NULL, 0);
	drain(fd, 1 << 20, &t, h);
	close(fd);
	ktr_ctl("trace off");
	ktr_ctl("trace all");
	ktr_ctl("enable event");
	e = thread_events(&t, c.pid, &n);
	for (size_t i = 0; e && i < n; i++) {
		*exits += e[i].type == EXIT && e[i].data == rd;
		if (e[i].type != ATOMIC)
			continue;
		atomics++;
		*sum += e[i].value;
		*wrong += e[i].data != read_bytes || (e[i].value != 16 && e[i].value != 1);
		*before_exit += i + 1 < n && e[i + 1].type == EXIT && e[i + 1].data == rd;
	}
	if (t.bad)
		(*wrong)++;
	free(e);
	free(t.ev);
	return atomics;
}

static void check_atomic(const struct ktr_fmap *fm)
{
	const uint32_t rd = fid_of(fm, "read"), read_bytes = fid_of(fm, "read_bytes");
	size_t atomics, exits, before_exit, wrong;
	uint64_t sum;

	atomics = traced_reads(rd, read_bytes, 1, &exits, &before_exit, &wrong, &sum);
	ktr_check(atomics == READS + 1 && exits == READS + 1 && before_exit == READS + 1 &&
		  sum == 16 * READS + 1 && !wrong, "atomic-traced",
		  "a read of the go byte and %d of 16 bytes traced: %zu ATOMIC events summing to "
		  "%" PRIu64 " (%zu not read_bytes of 1 or 16, or a bad stream), %zu read EXITs, "
		  "%zu ATOMICs right before their read's EXIT; expected %d of each, summing to %d",
		  READS, atomics, sum, wrong, exits, before_exit, READS + 1, 16 * READS + 1);
	atomics = traced_reads(rd, read_bytes, 0, &exits, &before_exit, &wrong, &sum);
	ktr_check(atomics == 0 && exits == READS + 1 && !wrong, "atomic-group-off",
		  "the event group disabled: %zu ATOMIC events, %zu read EXITs; expected 0 and %d",
		  atomics, exits, READS + 1);
}

int main(void)
{
	struct ktr_fmap fm = { 0 };
	struct ktr_profile p;
	char *text, err[128];
	uint64_t tsc_khz = 0;
	size_t len;

	ktr_init("trace");
	if (access(TRACE_FILE, F_OK)) {
		ktr_fail("present", "%s: %s", TRACE_FILE, strerror(errno));
		return ktr_exit();
	}
	text = ktr_slurp("/proc/ktau/functions", &len);
	if (!text || ktr_parse_functions(text, len, &fm, err, sizeof(err))) {
		ktr_fail("functions", "%s", text ? err : strerror(errno));
		return ktr_exit();
	}
	free(text);
	if (!ktr_load("/proc/self/ktau", 0, &p, "tsc_khz")) {
		tsc_khz = p.tsc_khz;
		ktr_free(&p);
	}
	check_control();
	check_empty(tsc_khz);
	check_nobody();
	check_known(&fm, tsc_khz);
	check_two_readers(fid_of(&fm, "getppid"));
	check_overflow();
	check_trace_alone(fid_of(&fm, "getppid"), fid_of(&fm, "page_fault"),
			  fid_of(&fm, "schedule_vol"));
	check_trace_and_profile();
	check_poll();
	check_poll_level();
	check_all_drain_ends();
	check_event_group_off();
	check_atomic(&fm);
	ktr_fmap_free(&fm);
	return ktr_exit();
}
