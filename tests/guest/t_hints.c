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
 * it made.
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
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

/* This thread's calls of the three now; 0 when the profile cannot be read. */
static int thread_counts(const char *check, struct counts *c)
{
	struct ktr_profile p;
	struct ktr_block *b;
	char path[64];

	memset(c, 0, sizeof(*c));
	snprintf(path, sizeof(path), "/proc/self/task/%ld/ktau", (long)syscall(SYS_gettid));
	if (ktr_load(path, 1, &p, check))
		return 0;
	b = ktr_block_kind(&p, "thread", 0);
	if (b) {
		ktr_func(b, PAIR_NAME, &c->pair, NULL, NULL);
		ktr_func(b, "getuid", &c->uid, NULL, NULL);
		ktr_func(b, THIRD_NAME, &c->third, NULL, NULL);
	} else {
		ktr_fail(check, "%s has no kind=thread block", path);
	}
	ktr_free(&p);
	return b != NULL;
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
	return ktr_exit();
}
