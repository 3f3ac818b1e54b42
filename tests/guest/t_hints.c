// SPDX-License-Identifier: GPL-2.0
/*
 * hints — exact system call counts through the inline exit timer's slot
 * hints, in the three cases where a hint is wrong.
 *
 * The exit timer tries the table slot a per-task hint names, chosen by
 * the low four bits of the call's key (its number + 1, with no user
 * context), and falls back to the hash when the slot holds another key.
 * getresuid (118) and getuid (102) share a hint on x86_64,
 * sched_get_priority_min (126) and getuid (174) on arm64, so alternating
 * them makes every hint a miss; calls
 * of about 40 other system calls in between make the table grow, which
 * moves every entry away from its hint; a clear drops the table, and the
 * calls after it start a new, smaller one, beyond whose slots the old
 * hints would point (debug kernels WARN if one does: the guest's kernel
 * log check fails then).  After each phase this thread's own profile must
 * hold exactly the calls it made.
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

/* The call that shares getuid's hint, made with harmless arguments; not
 * one of other_calls(). */
#if defined(__x86_64__)
#define SYS_PAIR SYS_getresuid
#define PAIR_NAME "getresuid"
#define pair_call() syscall(SYS_getresuid, &r, &e, &saved)
#elif defined(__aarch64__)
#define SYS_PAIR SYS_sched_get_priority_min
#define PAIR_NAME "sched_get_priority_min"
#define pair_call() syscall(SYS_sched_get_priority_min, SCHED_OTHER)
#else
#error "t_hints: which call shares getuid's hint here?"
#endif
_Static_assert(((SYS_PAIR + 1) & 15) == ((SYS_getuid + 1) & 15),
	       "the pair must share getuid's hint: the low four bits of number + 1");

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
	syscall(SYS_fstat, -1, NULL);
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
	syscall(SYS_ftruncate, -1, 0);
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

/* This thread's calls of the pair and of getuid now; 0 when the profile cannot be read. */
static int thread_counts(const char *check, uint64_t *pair, uint64_t *uid)
{
	struct ktr_profile p;
	struct ktr_block *b;
	char path[64];

	*pair = *uid = 0;
	snprintf(path, sizeof(path), "/proc/self/task/%ld/ktau", (long)syscall(SYS_gettid));
	if (ktr_load(path, 1, &p, check))
		return 0;
	b = ktr_block_kind(&p, "thread", 0);
	if (b) {
		ktr_func(b, PAIR_NAME, pair, NULL, NULL);
		ktr_func(b, "getuid", uid, NULL, NULL);
	} else {
		ktr_fail(check, "%s has no kind=thread block", path);
	}
	ktr_free(&p);
	return b != NULL;
}

/* Alternate the pair and getuid @n times (with @others between), then check. */
static void phase(const char *check, int n, int others)
{
	__attribute__((unused)) uid_t r, e, saved;
	uint64_t p0, u0, p1, u1;

	if (!thread_counts(check, &p0, &u0))
		return;
	for (int i = 0; i < n; i++) {
		pair_call();
		if (others)
			other_calls();
		syscall(SYS_getuid);
	}
	if (!thread_counts(check, &p1, &u1))
		return;
	ktr_check(p1 - p0 == (uint64_t)n && u1 - u0 == (uint64_t)n, check,
		  PAIR_NAME " %" PRIu64 " -> %" PRIu64 ", getuid %" PRIu64 " -> %" PRIu64
		  ": expected %d more of each", p0, p1, u0, u1, n);
}

int main(void)
{
	ktr_init("hints");
	if (ktr_ctl("enable all")) {
		ktr_fail("enable", "cannot enable all groups: %s", strerror(errno));
		return ktr_exit();
	}
	phase("shared-hint", NALT, 0);
	phase("table-grows", NALT / 10, 1);
	phase("shared-hint-after-growth", NALT, 0);
	if (ktr_ctl("clear")) {
		ktr_fail("clear", "cannot clear: %s", strerror(errno));
		return ktr_exit();
	}
	phase("after-clear", NALT, 0);
	return ktr_exit();
}
