// SPDX-License-Identifier: GPL-2.0
/*
 * hints — exact system call counts through the inline exit timer's slot
 * hints, in the cases where a hint is wrong.
 *
 * The exit timer tries the hint slot of the call's key (its number + 1
 * modulo 32, with no user context), and the out-of-line exit the pair
 * slot (slot ^ 1), before the table's index.  A key hinted in a slot it
 * shares with another takes the pair slot, so two such calls alternating
 * close through one slot each (shared-slot); a third call whose own slot
 * is the pair makes the three evict one another through the index
 * (three-on-a-pair).  On x86_64 lstat (6) shares getuid's (102) slot 7,
 * fstat (5) has slot 6; on arm64 ftruncate (46) shares getuid's (174)
 * slot 15, flistxattr (13) has slot 14.  Calls of about 40 other system
 * calls in between make the table grow, which moves every entry away
 * from its hint; a clear drops the table, and the calls after it start a
 * new, smaller one, beyond whose slots the old hints would point (debug
 * kernels WARN if one does: the guest's kernel log check fails then).
 * After each phase this thread's own profile must hold exactly the calls
 * it made, each record's exclusive time at most its inclusive.
 *
 * A user mode fault's record is closed through the same two slots: after
 * a clear, a harmless call whose key shares page_fault's slot (found at
 * run time from /proc/ktau/functions) takes it first, so the faults that
 * follow, alternating with that call, close in the pair slot
 * (fault-in-the-pair-slot).
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NALT 300

/* The call that shares getuid's hint slot and the one whose own slot is
 * its pair, made with harmless arguments (failing with EFAULT or EBADF). */
#if defined(__x86_64__)
#define SYS_PAIR SYS_lstat
#define PAIR_NAME "lstat"
#define pair_call() syscall(SYS_lstat, NULL, NULL)
#define SYS_THIRD SYS_fstat
#define THIRD_NAME "fstat"
#define third_call() syscall(SYS_fstat, -1, NULL)
#elif defined(__aarch64__)
#define SYS_PAIR SYS_ftruncate
#define PAIR_NAME "ftruncate"
#define pair_call() syscall(SYS_ftruncate, -1, 0)
#define SYS_THIRD SYS_flistxattr
#define THIRD_NAME "flistxattr"
#define third_call() syscall(SYS_flistxattr, -1, NULL, 0)
#else
#error "t_hints: which calls share getuid's hint slot and its pair here?"
#endif
_Static_assert(((SYS_PAIR + 1) & 31) == ((SYS_getuid + 1) & 31),
	       "the pair must share getuid's hint slot: number + 1 modulo 32");
_Static_assert(((SYS_THIRD + 1) & 31) == (((SYS_getuid + 1) & 31) ^ 1),
	       "the third call's slot must be the pair of getuid's");

/* Calls whose arguments make them harmless no-ops or errors. */
static void other_calls(void)
{
	char buf[64];

	syscall(SYS_getpid);
	syscall(SYS_gettid);
	syscall(SYS_geteuid);
	syscall(SYS_getgid);
	syscall(SYS_getegid);
#ifdef SYS_getpgrp
	syscall(SYS_getpgrp);
#endif
	syscall(SYS_getsid, 0);
	syscall(SYS_getpgid, 0);
	syscall(SYS_sched_yield);
	syscall(SYS_sched_getscheduler, 0);
	syscall(SYS_getpriority, 0, 0);
	syscall(SYS_umask, syscall(SYS_umask, 022));
	syscall(SYS_getcpu, NULL, NULL, NULL);
	syscall(SYS_getcwd, buf, sizeof(buf));
	syscall(SYS_times, NULL);
	syscall(SYS_getresgid, NULL, NULL, NULL);
	syscall(SYS_getgroups, 0, NULL);
	syscall(SYS_personality, 0xffffffffUL);
	syscall(SYS_fcntl, -1, F_GETFD);
	syscall(SYS_dup, -1);
	syscall(SYS_close, -1);
	syscall(SYS_lseek, -1, 0, SEEK_SET);
	syscall(SYS_fsync, -1);
	syscall(SYS_fdatasync, -1);
	syscall(SYS_flock, -1, 0);
	syscall(SYS_ioctl, -1, 0);
#ifdef SYS_access
	syscall(SYS_access, "/nonexistent", F_OK);
#else
	syscall(SYS_faccessat, AT_FDCWD, "/nonexistent", F_OK, 0);
#endif
	syscall(SYS_chdir, "/");
	syscall(SYS_getrlimit, -1, NULL);
	syscall(SYS_getrusage, -1000, NULL);
	syscall(SYS_getitimer, -1, NULL);
	syscall(SYS_sched_getaffinity, 0, 0, NULL);
	syscall(SYS_prctl, -1, 0, 0, 0, 0);
	syscall(SYS_fchdir, -1);
	syscall(SYS_fchmod, -1, 0);
	syscall(SYS_fchown, -1, 0, 0);
	syscall(SYS_getdents64, -1, NULL, 0);
#ifdef SYS_readlink
	syscall(SYS_readlink, "/nonexistent", buf, sizeof(buf));
#else
	syscall(SYS_readlinkat, AT_FDCWD, "/nonexistent", buf, sizeof(buf));
#endif
}

struct counts {
	uint64_t pair, uid, third;
};

/* The calls of @name in @b, after checking its excl <= incl. */
static uint64_t func_calls(const struct ktr_block *b, const char *name,
			   const char *check)
{
	uint64_t calls, incl, excl;

	ktr_func(b, name, &calls, &incl, &excl);
	if (excl > incl)
		ktr_fail(check, "%s: excl %" PRIu64 " > incl %" PRIu64, name, excl, incl);
	return calls;
}

/*
 * This thread's calls of @n routines @names into @calls now; 0 when the
 * profile cannot be read.
 */
static int thread_calls(const char *check, int n, const char *const *names,
			uint64_t *calls)
{
	struct ktr_profile p;
	struct ktr_block *b;
	char path[64];

	memset(calls, 0, n * sizeof(*calls));
	snprintf(path, sizeof(path), "/proc/self/task/%ld/ktau", (long)syscall(SYS_gettid));
	if (ktr_load(path, 1, &p, check))
		return 0;
	b = ktr_block_kind(&p, "thread", 0);
	if (b) {
		for (int i = 0; i < n; i++)
			calls[i] = func_calls(b, names[i], check);
	} else {
		ktr_fail(check, "%s has no kind=thread block", path);
	}
	ktr_free(&p);
	return b != NULL;
}

/* This thread's calls of the three now; 0 when the profile cannot be read. */
static int thread_counts(const char *check, struct counts *c)
{
	static const char *const names[] = { PAIR_NAME, "getuid", THIRD_NAME };
	uint64_t calls[3];
	int ok = thread_calls(check, 3, names, calls);

	c->pair = calls[0];
	c->uid = calls[1];
	c->third = calls[2];
	return ok;
}

/*
 * Alternate the pair and getuid @n times (with @others between, and the
 * third call if @third), then check.  other_calls() makes none of the
 * three (fstat and ftruncate are left out of it for that).
 */
static void phase(const char *check, int n, int others, int third)
{
	struct counts a, b;

	if (!thread_counts(check, &a))
		return;
	for (int i = 0; i < n; i++) {
		pair_call();
		if (others)
			other_calls();
		if (third)
			third_call();
		syscall(SYS_getuid);
	}
	if (!thread_counts(check, &b))
		return;
	ktr_check(b.pair - a.pair == (uint64_t)n && b.uid - a.uid == (uint64_t)n &&
		  b.third - a.third == (uint64_t)(third ? n : 0), check,
		  PAIR_NAME " %" PRIu64 " -> %" PRIu64 ", getuid %" PRIu64 " -> %" PRIu64
		  ", " THIRD_NAME " %" PRIu64 " -> %" PRIu64 ": expected %d more of the first two, %d of "
		  THIRD_NAME, a.pair, b.pair, a.uid, b.uid, a.third, b.third, n, third ? n : 0);
}

/*
 * Harmless calls (no-ops or errors with these arguments), none of the
 * three above nor one the test makes between a clear and its read of the
 * profile (close, gettid): fault-in-the-pair-slot takes the one whose key
 * shares page_fault's hint slot.
 */
static const struct harmless {
	const char *name;
	long nr, arg0;
} harmless[] = {
	{ "getpid", SYS_getpid, 0 },		{ "getppid", SYS_getppid, 0 },
	{ "geteuid", SYS_geteuid, 0 },
	{ "getgid", SYS_getgid, 0 },		{ "getegid", SYS_getegid, 0 },
	{ "getresuid", SYS_getresuid, 0 },	{ "getresgid", SYS_getresgid, 0 },
	{ "getsid", SYS_getsid, 0 },		{ "getpgid", SYS_getpgid, 0 },
	{ "getgroups", SYS_getgroups, 0 },	{ "times", SYS_times, 0 },
	{ "dup", SYS_dup, -1 },
	{ "fsync", SYS_fsync, -1 },		{ "fdatasync", SYS_fdatasync, -1 },
	{ "fchdir", SYS_fchdir, -1 },		{ "fcntl", SYS_fcntl, -1 },
	{ "ioctl", SYS_ioctl, -1 },		{ "flock", SYS_flock, -1 },
	{ "lseek", SYS_lseek, -1 },		{ "fchmod", SYS_fchmod, -1 },
	{ "fchown", SYS_fchown, -1 },		{ "getdents64", SYS_getdents64, -1 },
	{ "getrlimit", SYS_getrlimit, -1 },	{ "getitimer", SYS_getitimer, -1 },
	{ "getrusage", SYS_getrusage, -1000 },	{ "prctl", SYS_prctl, -1 },
	{ "getcwd", SYS_getcwd, 0 },		{ "getpriority", SYS_getpriority, -1 },
	{ "sched_getscheduler", SYS_sched_getscheduler, -1 },
	{ "sched_getparam", SYS_sched_getparam, -1 },
	{ "sched_getaffinity", SYS_sched_getaffinity, -1 },
	{ "timer_getoverrun", SYS_timer_getoverrun, -1 },
	{ "timer_delete", SYS_timer_delete, -1 },
	{ "fstatfs", SYS_fstatfs, -1 },		{ "fgetxattr", SYS_fgetxattr, -1 },
	{ "fremovexattr", SYS_fremovexattr, -1 },
	{ "inotify_rm_watch", SYS_inotify_rm_watch, -1 },
	{ "syncfs", SYS_syncfs, -1 },		{ "setns", SYS_setns, -1 },
	{ "pidfd_send_signal", SYS_pidfd_send_signal, -1 },
	{ "writev", SYS_writev, -1 },		{ "tkill", SYS_tkill, -1 },
};

/* The hint slot of a record of function id @fid with no user context. */
static unsigned int hint_slot(uint64_t fid)
{
	return (fid + 1) & 31;
}

/*
 * Faults alternating with a call that holds page_fault's own hint slot:
 * each fault closes in the pair slot.  The call's count is exact; the
 * faults are this loop's @NALT plus the few the thread takes between
 * the clear and the read (its read buffer), at most one per page.
 */
static void fault_phase(const char *check)
{
	const long page = sysconf(_SC_PAGESIZE);
	const struct ktr_fmap_ent *pf;
	const struct harmless *h = NULL;
	const char *names[2];
	struct ktr_fmap m;
	uint64_t calls[2], pf_fid = 0;
	char *region;

	if (ktr_load_functions(&m, NULL, check))
		return;
	pf = ktr_fmap_name(&m, "page_fault");
	for (size_t i = 0; pf && !h && i < sizeof(harmless) / sizeof(harmless[0]); i++) {
		const struct ktr_fmap_ent *e = ktr_fmap_name(&m, harmless[i].name);

		if (e && hint_slot(e->fid) == hint_slot(pf->fid))
			h = &harmless[i];
	}
	if (!pf)
		ktr_fail(check, "/proc/ktau/functions has no page_fault");
	else if (!h)
		ktr_fail(check, "no call of the harmless list shares page_fault's (id %" PRIu64
			 ") hint slot %u: add one", pf->fid, hint_slot(pf->fid));
	else
		pf_fid = pf->fid;
	ktr_fmap_free(&m);
	if (!h)
		return;
	region = mmap(NULL, NALT * page, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED) {
		ktr_fail(check, "mmap of %d pages: %s", NALT, strerror(errno));
		return;
	}
#ifdef MADV_NOHUGEPAGE
	madvise(region, NALT * page, MADV_NOHUGEPAGE);
#endif
	if (ktr_ctl("clear")) {
		ktr_fail(check, "cannot clear: %s", strerror(errno));
		munmap(region, NALT * page);
		return;
	}
	/* the first record of the new table's slot: the call's */
	syscall(h->nr, h->arg0, 0, 0);
	for (int i = 0; i < NALT; i++) {
		((volatile char *)region)[i * page] = 1;
		syscall(h->nr, h->arg0, 0, 0);
	}
	munmap(region, NALT * page);
	names[0] = h->name;
	names[1] = "page_fault";
	if (!thread_calls(check, 2, names, calls))
		return;
	ktr_info(check, "%s and page_fault share hint slot %u: %" PRIu64 " and %" PRIu64
		 " calls", h->name, hint_slot(pf_fid), calls[0], calls[1]);
	ktr_check(calls[0] == NALT + 1 && calls[1] >= NALT && calls[1] <= NALT + 64, check,
		  "%s %" PRIu64 " (expected %d), page_fault %" PRIu64 " (expected %d to %d)",
		  h->name, calls[0], NALT + 1, calls[1], NALT, NALT + 64);
}

int main(void)
{
	ktr_init("hints");
	if (ktr_ctl("enable all")) {
		ktr_fail("enable", "cannot enable all groups: %s", strerror(errno));
		return ktr_exit();
	}
	phase("shared-slot", NALT, 0, 0);
	phase("three-on-a-pair", NALT, 0, 1);
	phase("table-grows", NALT / 10, 1, 0);
	phase("shared-slot-after-growth", NALT, 0, 0);
	if (ktr_ctl("clear")) {
		ktr_fail("clear", "cannot clear: %s", strerror(errno));
		return ktr_exit();
	}
	phase("after-clear", NALT, 0, 0);
	phase("three-on-a-pair-after-clear", NALT, 0, 1);
	fault_phase("fault-in-the-pair-slot");
	return ktr_exit();
}
