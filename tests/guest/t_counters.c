// SPDX-License-Identifier: GPL-2.0
/*
 * counters — the shared counter area (prctl(PR_KTAU_SET_COUNTERS)):
 *   - its interface, as an unprivileged user: each bad registration gets
 *     its error (misaligned, short, wrong version or count, an unknown
 *     routine or group, an event, flags, an unmapped or read-only area,
 *     a second registration) and leaves nothing registered;
 *   - its values are the thread's profile, read with loads only: after
 *     1000 getpid() and 500 read()s, the area's getpid, read and system
 *     call group counters equal what /proc/self/task/TID/ktau says for
 *     the same calls, to the cycle; 70 000 getpid() carry (the debug
 *     kernel's counts carry after 2^16) and still agree;
 *   - page faults taken in user mode, with no system call after them,
 *     are in the area when the thread next looks (the return from the
 *     fault wrote it);
 *   - counted calls mixed with page faults, switches and uncounted
 *     calls (a counted exit adds its own time to what was written last
 *     unless something else was recorded since): every counter still
 *     equals /proc, and after a clear no exclusive time exceeds the
 *     clock's time since, nor does the system call group's inclusive;
 *   - fork: the child keeps the area at the same address and counts its
 *     own calls; a new thread has none; two threads may register one
 *     area (each writes its own counters: the last to return wins); exec
 *     drops it;
 *   - an area unmapped or made read-only after its registration: the
 *     writes that fault are counted (PR_KTAU_GET_COUNTERS), the thread
 *     runs on, and once the memory is back the next write is current;
 *   - a clear (root) empties the counters with the profile.
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define PR_KTAU_SET_COUNTERS 0x4b544157
#define PR_KTAU_GET_COUNTERS 0x4b544158
#define NOBODY 65534

/* include/uapi/linux/ktau.h, written out again: a second reader */
#define AREA_VERSION 1
#define AREA_MAX 16
#define COUNTER_GROUP 0x80000000U
#define COUNTER_ALL 0xffffffffU
#define GROUP_SYSCALL 0
#define GROUP_SCHED 3
#define GROUP_EXCEPTION 4
#define GROUP_EVENT 6

struct counter {
	uint64_t calls, incl, excl;
};

struct area {
	uint32_t version;
	uint32_t nr;
	uint32_t ids[AREA_MAX];
	uint64_t seq;
	struct counter val[AREA_MAX];
};

#define AREA_SIZE(n) (offsetof(struct area, val) + (n) * sizeof(struct counter))

static struct area main_area __attribute__((aligned(64)));
static struct ktr_fmap fmap;

static long set_area(void *addr, unsigned long len, unsigned long flags)
{
	return prctl(PR_KTAU_SET_COUNTERS, (unsigned long)addr, len, flags, 0UL) ? -errno : 0;
}

/* The registered address (or -errno); *faults: the writes that faulted. */
static long get_area(uint64_t *faults)
{
	uint64_t addr = 12345;

	if (prctl(PR_KTAU_GET_COUNTERS, (unsigned long)&addr, (unsigned long)faults, 0UL, 0UL))
		return -errno;
	return (long)addr;
}

static uint32_t fid_of(const char *name)
{
	const struct ktr_fmap_ent *e = ktr_fmap_name(&fmap, name);

	if (!e) {
		printf("FAIL: counters/functions: no routine %s in /proc/ktau/functions\n", name);
		exit(1);
	}
	return (uint32_t)e->fid;
}

static void fill(struct area *a, const uint32_t *ids, unsigned int n)
{
	memset(a, 0, sizeof(*a));
	a->version = AREA_VERSION;
	a->nr = n;
	memcpy(a->ids, ids, n * sizeof(ids[0]));
}

/* Loads only: a copy of the counters as the kernel last wrote them. */
static void snap(const volatile struct area *a, struct counter *out, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		out[i].calls = a->val[i].calls;
		out[i].incl = a->val[i].incl;
		out[i].excl = a->val[i].excl;
	}
}

static void getpids(int n)
{
	for (int i = 0; i < n; i++)
		syscall(SYS_getpid);
}

/* ---- as nobody: the interface ---- */

static int interface(void)
{
	uint32_t getpid_fid = fid_of("getpid");
	static struct area a __attribute__((aligned(8)));
	uint64_t faults = 99;
	char *page;
	int bad = 0;

#define EXPECT(expr, want, what) do {					\
		long got = (expr);					\
		if (got != (long)(want)) {				\
			printf("FAIL: counters/prctl: %s returned %ld, expected %ld\n", \
			       what, got, (long)(want));		\
			bad++;						\
		}							\
	} while (0)

	EXPECT(get_area(&faults), 0, "GET with none registered");
	EXPECT((long)faults, 0, "GET's fault count with none registered");
	EXPECT(set_area(NULL, 0, 0), -ENOENT, "unregister with none registered");
	fill(&a, &getpid_fid, 1);
	EXPECT(set_area((char *)&a + 4, AREA_SIZE(1), 0), -EINVAL, "a misaligned area");
	EXPECT(set_area(&a, AREA_SIZE(1) - 1, 0), -EINVAL, "a length short of one counter");
	EXPECT(set_area(&a, AREA_SIZE(1), 1), -EINVAL, "flags 1");
	EXPECT(set_area(NULL, 8, 0), -EINVAL, "unregister with a length");
	a.version = 2;
	EXPECT(set_area(&a, sizeof(a), 0), -EINVAL, "version 2");
	a.version = AREA_VERSION;
	a.nr = 0;
	EXPECT(set_area(&a, sizeof(a), 0), -EINVAL, "0 counters");
	a.nr = AREA_MAX + 1;
	EXPECT(set_area(&a, sizeof(a), 0), -EINVAL, "17 counters");
	a.nr = 2;
	EXPECT(set_area(&a, AREA_SIZE(1), 0), -EINVAL, "a length short of its 2 counters");
	a.ids[1] = 8191;
	EXPECT(set_area(&a, sizeof(a), 0), -ENOENT, "a function id no routine has");
	a.ids[1] = COUNTER_GROUP | 99;
	EXPECT(set_area(&a, sizeof(a), 0), -ENOENT, "a group that does not exist");
	a.ids[1] = COUNTER_GROUP | GROUP_EVENT;
	EXPECT(set_area(&a, sizeof(a), 0), -EINVAL, "the event group");
	a.ids[1] = fid_of("read_bytes");
	EXPECT(set_area(&a, sizeof(a), 0), -EINVAL, "an event's id");
	a.nr = 1;
	EXPECT(set_area((void *)0xffffffffff600000UL, sizeof(a), 0), -EFAULT, "a kernel address");
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return 1;
	fill((struct area *)page, &getpid_fid, 1);
	mprotect(page, 4096, PROT_READ);
	EXPECT(set_area(page, 4096, 0), -EFAULT, "a read-only area");
	munmap(page, 4096);
	EXPECT(set_area(page, 4096, 0), -EFAULT, "an unmapped area");
	EXPECT(get_area(NULL), 0, "GET after the refused registrations");

	EXPECT(set_area(&a, AREA_SIZE(1), 0), 0, "a good registration");
	EXPECT(get_area(NULL), (long)&a, "GET after it");
	EXPECT(set_area(&a, AREA_SIZE(1), 0), -EBUSY, "registering twice");
	EXPECT(set_area(NULL, 0, 0), 0, "unregister");
	EXPECT(get_area(NULL), 0, "GET after unregistering");
	return bad;
}

static void as_nobody(void)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		if (setgid(NOBODY) || setuid(NOBODY))
			_exit(2);
		_exit(interface() ? 1 : 0);
	}
	waitpid(pid, &st, 0);
	ktr_check(WIFEXITED(st) && WEXITSTATUS(st) == 0, "prctl",
		  "as nobody: status %#x", st);
}

/* ---- the values against the thread's profile ---- */

/*
 * The thread's /proc file, opened before the area is looked at (the
 * open is a system call too), read with one read() after.
 */
struct proc_view {
	int fd;
	char *buf;
	size_t cap;
	struct ktr_profile p;
};

static int proc_open(struct proc_view *v)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%ld/ktau", (long)syscall(SYS_gettid));
	v->cap = 1 << 20;
	v->buf = malloc(v->cap);
	v->fd = open(path, O_RDONLY);
	if (!v->buf || v->fd < 0)
		return -1;
	memset(v->buf, 0, v->cap);	/* no page fault inside the read */
	return 0;
}

static int proc_read(struct proc_view *v, const char *check)
{
	char err[256];
	ssize_t n = read(v->fd, v->buf, v->cap - 1);

	close(v->fd);
	if (n <= 0) {
		ktr_fail(check, "read of the thread's profile: %s", strerror(errno));
		return -1;
	}
	if (ktr_parse(v->buf, (size_t)n, &v->p, err, sizeof(err))) {
		ktr_fail(check, "parse: %s", err);
		return -1;
	}
	return 0;
}

static void proc_done(struct proc_view *v)
{
	ktr_free(&v->p);
	free(v->buf);
}

/* Sums of the thread block's func lines of @name, of @group, or of all but events. */
static void proc_sum(struct proc_view *v, const char *name, const char *group,
		     struct counter *out)
{
	struct ktr_block *b = ktr_block_kind(&v->p, "thread", 0);

	memset(out, 0, sizeof(*out));
	if (!b)
		return;
	if (name) {
		ktr_func(b, name, &out->calls, &out->incl, &out->excl);
		return;
	}
	for (size_t i = 0; i < b->nfuncs; i++) {
		if (group ? strcmp(b->funcs[i].group, group) : !strcmp(b->funcs[i].group, "event"))
			continue;
		out->calls += b->funcs[i].calls;
		out->incl += b->funcs[i].incl;
		out->excl += b->funcs[i].excl;
	}
}

static void expect_equal(const char *check, const char *what, const struct counter *area,
			 const struct counter *proc)
{
	ktr_check(area->calls == proc->calls && area->incl == proc->incl &&
		  area->excl == proc->excl, check,
		  "%s: area calls=%" PRIu64 " incl=%" PRIu64 " excl=%" PRIu64
		  ", /proc calls=%" PRIu64 " incl=%" PRIu64 " excl=%" PRIu64,
		  what, area->calls, area->incl, area->excl, proc->calls, proc->incl, proc->excl);
}

static void values(void)
{
	uint32_t ids[3] = { fid_of("getpid"), fid_of("read"), COUNTER_GROUP | GROUP_SYSCALL };
	struct counter got[3], want[3];
	struct proc_view v;
	uint64_t seq0;
	char buf[64];
	int zero;

	fill(&main_area, ids, 3);
	if (!ktr_check(set_area(&main_area, sizeof(main_area), 0) == 0, "register",
		       "%s", strerror(errno)))
		return;
	seq0 = main_area.seq;
	ktr_check(seq0 >= 1, "register-writes", "seq %" PRIu64 " after the registration", seq0);
	/*
	 * Nothing between the calls and the look: any other recording
	 * (the open's page faults) has the next counted exit sum the
	 * profile, which would hide what the exits since added wrongly.
	 */
	zero = open("/dev/zero", O_RDONLY);
	if (proc_open(&v))
		return;
	getpids(1000);
	for (int i = 0; i < 500; i++)
		if (read(zero, buf, sizeof(buf)) != sizeof(buf))
			break;
	snap(&main_area, got, 3);
	if (proc_read(&v, "values"))
		return;
	close(zero);
	proc_sum(&v, "getpid", NULL, &want[0]);
	proc_sum(&v, "read", NULL, &want[1]);
	proc_sum(&v, NULL, "syscall", &want[2]);
	expect_equal("values-getpid", "getpid", &got[0], &want[0]);
	expect_equal("values-read", "read", &got[1], &want[1]);
	expect_equal("values-syscall-group", "syscall group", &got[2], &want[2]);
	ktr_check(got[0].calls >= 1000 && got[1].calls >= 500, "values-counts",
		  "getpid %" PRIu64 " (>= 1000), read %" PRIu64 " (>= 500)",
		  got[0].calls, got[1].calls);
	ktr_check(got[0].excl <= got[0].incl && got[2].excl <= got[2].incl, "values-excl-le-incl",
		  "getpid %" PRIu64 "/%" PRIu64 ", group %" PRIu64 "/%" PRIu64,
		  got[0].excl, got[0].incl, got[2].excl, got[2].incl);
	ktr_check(main_area.seq > seq0, "seq", "%" PRIu64 " after %" PRIu64, main_area.seq, seq0);
	proc_done(&v);

	/* past the debug kernel's carry (2^16 calls): carry records counted */
	if (proc_open(&v))
		return;
	getpids(70000);
	snap(&main_area, got, 1);
	if (proc_read(&v, "carry"))
		return;
	proc_sum(&v, "getpid", NULL, &want[0]);
	expect_equal("carry", "getpid after 70000 more", &got[0], &want[0]);
	ktr_check(got[0].calls >= 71000, "carry-count", "%" PRIu64, got[0].calls);
	proc_done(&v);
	set_area(NULL, 0, 0);
}

/* Page faults from user mode, and nothing else, then a look. */
static void faults(void)
{
	uint32_t id = fid_of("page_fault");
	struct counter got, want;
	struct proc_view v;
	char *mem;

	fill(&main_area, &id, 1);
	if (set_area(&main_area, sizeof(main_area), 0)) {
		ktr_fail("faults", "register: %s", strerror(errno));
		return;
	}
	mem = mmap(NULL, 200 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED || proc_open(&v)) {
		ktr_fail("faults", "setup: %s", strerror(errno));
		return;
	}
	snap(&main_area, &got, 1);
	uint64_t before = got.calls;

	for (int i = 0; i < 200; i++)
		mem[i * 4096] = 1;
	snap(&main_area, &got, 1);
	if (proc_read(&v, "faults"))
		return;
	proc_sum(&v, "page_fault", NULL, &want);
	ktr_check(got.calls >= before + 200, "faults-current",
		  "page_fault calls %" PRIu64 " after 200 user faults from %" PRIu64,
		  got.calls, before);
	ktr_check(got.calls <= want.calls && want.calls - got.calls <= 3 &&
		  got.incl <= want.incl, "faults-values",
		  "area calls=%" PRIu64 " incl=%" PRIu64 ", /proc calls=%" PRIu64 " incl=%" PRIu64,
		  got.calls, got.incl, want.calls, want.incl);
	proc_done(&v);
	munmap(mem, 200 * 4096);
	set_area(NULL, 0, 0);
}

/*
 * Counted calls (getpid, read) between uncounted ones (sched_yield,
 * which also switches), user page faults and a pipe's blocking read:
 * each exit after another recording sums the profile, the others add
 * their own time to the values last written.  Both must agree with
 * /proc to the cycle, and, from a clear on, with the clock: the
 * exclusive times of everything (no two overlap) and the system call
 * group's inclusive time (calls do not nest) fit in the time since.
 */
static void mixed(void)
{
	uint32_t ids[6] = { fid_of("getpid"), fid_of("read"), COUNTER_GROUP | GROUP_SYSCALL,
			    COUNTER_GROUP | GROUP_EXCEPTION, COUNTER_GROUP | GROUP_SCHED,
			    COUNTER_ALL };
	static const char *const what[6] = { "getpid", "read", "syscall group",
					     "exception group", "sched group", "all" };
	struct counter got[6], want[6];
	struct proc_view v;
	uint64_t t0, t1;
	int p[2];
	char c = 0, *mem;
	pid_t child;

	fill(&main_area, ids, 6);
	mem = mmap(NULL, 300 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED || pipe(p)) {
		ktr_fail("mixed", "setup: %s", strerror(errno));
		return;
	}
	if (set_area(&main_area, sizeof(main_area), 0)) {
		ktr_fail("mixed", "register: %s", strerror(errno));
		return;
	}
	/* a writer that makes some of the reads below block */
	child = fork();
	if (child == 0) {
		for (int i = 0; i < 300; i++) {
			if (i % 3 == 0)
				sched_yield();
			if (write(p[1], &c, 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	close(p[1]);
	if (proc_open(&v))
		return;
	t0 = ktr_cycles();
	if (ktr_ctl("clear")) {
		ktr_fail("mixed", "clear: %s", strerror(errno));
		return;
	}
	for (int i = 0; i < 300; i++) {
		syscall(SYS_getpid);
		if (read(p[0], &c, 1) != 1)
			break;
		syscall(SYS_getpid);
		mem[i * 4096] = 1;
		syscall(SYS_getpid);
		if (i % 5 == 0)
			sched_yield();
	}
	snap(&main_area, got, 6);
	t1 = ktr_cycles();
	if (proc_read(&v, "mixed"))
		return;
	waitpid(child, NULL, 0);
	proc_sum(&v, "getpid", NULL, &want[0]);
	proc_sum(&v, "read", NULL, &want[1]);
	proc_sum(&v, NULL, "syscall", &want[2]);
	proc_sum(&v, NULL, "exception", &want[3]);
	proc_sum(&v, NULL, "sched", &want[4]);
	proc_sum(&v, NULL, NULL, &want[5]);
	/* what the kernel writes at exits: exactly /proc */
	for (int i = 0; i < 3; i++)
		expect_equal("mixed-equal", what[i], &got[i], &want[i]);
	/*
	 * what it writes on the return to user mode: an interrupt or a
	 * switch during the read of /proc may be in /proc only
	 */
	for (int i = 3; i < 6; i++)
		ktr_check(got[i].calls <= want[i].calls && want[i].calls - got[i].calls <= 3 &&
			  got[i].incl <= want[i].incl && got[i].excl <= want[i].excl,
			  "mixed-resume", "%s: area calls=%" PRIu64 " incl=%" PRIu64 ", /proc calls=%"
			  PRIu64 " incl=%" PRIu64, what[i], got[i].calls, got[i].incl,
			  want[i].calls, want[i].incl);
	ktr_check(got[0].calls == 900 && got[1].calls == 300 && got[3].calls >= 300,
		  "mixed-counts", "getpid %" PRIu64 " (900), read %" PRIu64
		  " (300), exceptions %" PRIu64 " (>= 300)", got[0].calls, got[1].calls,
		  got[3].calls);
	ktr_check(got[5].excl <= t1 - t0 && got[2].incl <= t1 - t0, "mixed-wall",
		  "all excl %" PRIu64 ", syscall incl %" PRIu64 ", %" PRIu64 " cycles since the clear",
		  got[5].excl, got[2].incl, t1 - t0);
	for (int i = 0; i < 6; i++)
		ktr_check(got[i].excl <= got[i].incl, "mixed-excl-le-incl", "%s: %" PRIu64
			  " > %" PRIu64, what[i], got[i].excl, got[i].incl);
	proc_done(&v);
	close(p[0]);
	munmap(mem, 300 * 4096);
	set_area(NULL, 0, 0);
}

/* ---- fork, threads, exec ---- */

static void *thread_get(void *arg)
{
	*(long *)arg = get_area(NULL);
	return NULL;
}

static void *thread_shared(void *arg)
{
	long *r = arg;

	r[0] = set_area(&main_area, sizeof(main_area), 0);
	getpids(100);
	r[1] = (long)main_area.val[0].calls;
	return NULL;
}

static void lineage(const char *self)
{
	uint32_t id = fid_of("getpid");
	struct counter got, want;
	struct proc_view v;
	long r[2] = { 0, 0 }, tget = -1;
	pthread_t th;
	pid_t pid;
	int st;

	fill(&main_area, &id, 1);
	if (set_area(&main_area, sizeof(main_area), 0)) {
		ktr_fail("fork", "register: %s", strerror(errno));
		return;
	}
	getpids(50);
	pid = fork();
	if (pid == 0) {
		/* the child's own counters, from 0, in its copy of the area */
		getpids(10);
		snap(&main_area, &got, 1);
		_exit(get_area(NULL) == (long)&main_area && got.calls == 10 ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	ktr_check(WIFEXITED(st) && WEXITSTATUS(st) == 0, "fork",
		  "the child's area: status %#x (1: not at the same address or not its 10 calls)", st);
	ktr_check(main_area.val[0].calls >= 50, "fork-parent", "the parent's %" PRIu64,
		  main_area.val[0].calls);

	pthread_create(&th, NULL, thread_get, &tget);
	pthread_join(th, NULL);
	ktr_check(tget == 0, "thread", "a new thread's GET: %ld", tget);

	/* a thread registers the same area: its counters, until it exits */
	pthread_create(&th, NULL, thread_shared, r);
	pthread_join(th, NULL);
	ktr_check(r[0] == 0 && r[1] >= 100 && r[1] < 200, "shared",
		  "the thread's registration %ld, its getpid in the area %ld", r[0], r[1]);
	/* the main thread's next call writes its own again */
	if (proc_open(&v))
		return;
	getpids(1);
	snap(&main_area, &got, 1);
	if (proc_read(&v, "shared-main"))
		return;
	proc_sum(&v, "getpid", NULL, &want);
	expect_equal("shared-main", "the main thread's after the thread", &got, &want);
	proc_done(&v);

	pid = fork();
	if (pid == 0) {
		execl(self, self, "--after-exec", (char *)NULL);
		_exit(3);
	}
	waitpid(pid, &st, 0);
	ktr_check(WIFEXITED(st) && WEXITSTATUS(st) == 0, "exec",
		  "after exec: status %#x (1: an area still registered)", st);
	set_area(NULL, 0, 0);
}

/* ---- the area going away, and coming back ---- */

static void unmapped(void)
{
	uint32_t id = fid_of("getpid");
	struct counter got, want;
	struct proc_view v;
	uint64_t faults = 0;
	struct area *a;
	void *at;

	a = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED) {
		ktr_fail("unmapped", "mmap: %s", strerror(errno));
		return;
	}
	at = a;
	fill(a, &id, 1);
	if (set_area(a, 4096, 0)) {
		ktr_fail("unmapped", "register: %s", strerror(errno));
		return;
	}
	munmap(a, 4096);
	getpids(20);
	ktr_check(get_area(&faults) == (long)at && faults >= 1, "unmapped",
		  "writes that faulted: %" PRIu64, faults);
	a = mmap(at, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (a == MAP_FAILED) {
		ktr_fail("unmapped", "mmap again: %s", strerror(errno));
		return;
	}
	if (proc_open(&v))
		return;
	getpids(1);
	snap(a, &got, 1);
	if (proc_read(&v, "remapped"))
		return;
	proc_sum(&v, "getpid", NULL, &want);
	expect_equal("remapped", "after the memory came back", &got, &want);
	proc_done(&v);

	mprotect(a, 4096, PROT_READ);
	get_area(&faults);
	uint64_t before = faults;

	getpids(20);
	get_area(&faults);
	ktr_check(faults > before, "read-only", "writes that faulted: %" PRIu64 " then %" PRIu64,
		  before, faults);
	mprotect(a, 4096, PROT_READ | PROT_WRITE);
	getpids(1);
	ktr_check(a->val[0].calls >= got.calls + 21, "read-only-back",
		  "getpid calls %" PRIu64 ", %" PRIu64 " before the 21 calls",
		  a->val[0].calls, got.calls);
	set_area(NULL, 0, 0);
	munmap(a, 4096);
}

/* ---- a clear empties them ---- */

static void cleared(void)
{
	uint32_t id = fid_of("getpid");

	fill(&main_area, &id, 1);
	if (set_area(&main_area, sizeof(main_area), 0)) {
		ktr_fail("clear", "register: %s", strerror(errno));
		return;
	}
	getpids(100);
	if (ktr_ctl("clear")) {
		ktr_fail("clear", "clear: %s", strerror(errno));
		return;
	}
	getpids(5);
	ktr_check(main_area.val[0].calls == 5, "clear", "getpid calls %" PRIu64
		  " after a clear and 5 calls", main_area.val[0].calls);
	set_area(NULL, 0, 0);
}

int main(int argc, char **argv)
{
	char err[256];
	size_t len;
	char *text;

	if (argc == 2 && !strcmp(argv[1], "--after-exec"))
		return get_area(NULL) == 0 ? 0 : 1;
	ktr_init("counters");
	text = ktr_slurp("/proc/ktau/functions", &len);
	if (!text || ktr_parse_functions(text, len, &fmap, err, sizeof(err))) {
		ktr_fail("functions", "/proc/ktau/functions: %s", text ? err : strerror(errno));
		return ktr_exit();
	}
	free(text);
	as_nobody();
	values();
	faults();
	mixed();
	lineage(argv[0]);
	unmapped();
	cleared();
	ktr_fmap_free(&fmap);
	return ktr_exit();
}
