// SPDX-License-Identifier: GPL-2.0
/*
 * aarch32 — the AArch32 compat entry on arm64, t_ia32's counterpart
 * (built with the AArch32 compiler only, run on an arm64 kernel with
 * CONFIG_COMPAT): el0_svc_compat() times the calls of a 32-bit program
 * exactly, under the 64-bit call's id where arm64 has one of the same
 * name, under aarch32_<name> where the call is AArch32's alone:
 *   1000 getpid() and 500 read() of /dev/zero count as getpid and read,
 *   9 getpgrp() (no such call in arm64's 64-bit table) as aarch32_getpgrp,
 * exactly, in /proc/self/ktau;
 * and a call that the entry work skips is not recorded: a child under a
 * seccomp filter that fails getppid() with EPERM makes 100 sched_yield()
 * and 100 getppid(), and this process's children total grows by exactly
 * 100 sched_yield and no getppid (el0_svc_common() opens an AArch32
 * call's frame once the entry work has settled its number); and a child
 * traced with PTRACE_SYSCALL whose tracer (this 32-bit program, through
 * the compat PTRACE_SET_SYSCALL) turns its first 50 getppid() into
 * getpgrp() and skips the other 50 (number -1): +100 sched_yield, +50
 * aarch32_getpgrp, +0 getppid.
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/audit.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "seccomp_getppid.h"
#include "tracee.h"

#ifndef __arm__
#error "t_aarch32 is an AArch32 program (arm-linux-gnueabihf-gcc)"
#endif

#define NGETPID 1000
#define NREAD 500
#define NGETPGRP 9
#define NSKIPPED 100

static uint64_t calls_of(struct ktr_profile *p, const char *name)
{
	uint64_t n = 0;

	ktr_func(ktr_block_kind(p, "process", 0), name, &n, NULL, NULL);
	return n;
}

/* "NAME-counted": NAME grew by exactly want between base and after. */
static void check_grew(struct ktr_profile *base, struct ktr_profile *after,
		       const char *name, uint64_t want)
{
	uint64_t grew = calls_of(after, name) - calls_of(base, name);
	char check[64];

	snprintf(check, sizeof(check), "%s-counted", name);
	ktr_check(grew == want, check, "%s grew by %" PRIu64 ", expected exactly %" PRIu64,
		  name, grew, want);
}

/* The calls of @name in this process's children total, or -1. */
static int64_t children_calls(const char *name)
{
	struct ktr_profile p;
	uint64_t n = 0;
	struct ktr_block *b;

	if (ktr_load("/proc/self/ktau", 0, &p, "children-read"))
		return -1;
	b = ktr_block_kind(&p, "children", 0);
	if (b)
		ktr_func(b, name, &n, NULL, NULL);
	ktr_free(&p);
	return (int64_t)n;
}

static int seccomp_child(void)
{
	if (seccomp_fail_getppid(AUDIT_ARCH_ARM))
		return 2;
	for (int i = 0; i < NSKIPPED; i++)
		syscall(SYS_sched_yield);
	for (int i = 0; i < NSKIPPED; i++)
		if (syscall(SYS_getppid) != -1 || errno != EPERM)
			return 3;
	return 0;
}

/* A getppid() that seccomp fails with EPERM is skipped: not recorded. */
static void seccomp_case(void)
{
	int64_t yield0, getppid0, yield1, getppid1;
	int st, status = -1;
	pid_t pid;

	if (prctl(PR_GET_SECCOMP, 0UL, 0UL, 0UL, 0UL) < 0 && errno == EINVAL) {
		ktr_info("seccomp", "no CONFIG_SECCOMP in this kernel: not run");
		return;
	}
	yield0 = children_calls("sched_yield");
	getppid0 = children_calls("getppid");
	pid = fork();
	if (pid == 0)
		_exit(seccomp_child());
	if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st))
		status = WEXITSTATUS(st);
	yield1 = children_calls("sched_yield");
	getppid1 = children_calls("getppid");
	ktr_check(status == 0 && yield0 >= 0 && yield1 - yield0 == NSKIPPED &&
		  getppid1 == getppid0, "seccomp-skipped",
		  "a child under a filter failing getppid() with EPERM (status %d): "
		  "sched_yield +%" PRId64 ", getppid +%" PRId64 "; expected +%d, +0",
		  status, yield1 - yield0, getppid1 - getppid0, NSKIPPED);
}

/*
 * getppid() renumbered to getpgrp() (the first half) or skipped (-1: the
 * second half) by this program as the child's tracer.
 */
static void ptrace_case(void)
{
	/* the counts before, then what they grew by */
	int64_t yield0, getppid0, pgrp0;
	int st, seen = 0, status = -1;
	pid_t pid;

	yield0 = children_calls("sched_yield");
	getppid0 = children_calls("getppid");
	pgrp0 = children_calls("aarch32_getpgrp");
	pid = fork();
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(2);
		kill(getpid(), SIGSTOP);
		for (int i = 0; i < NSKIPPED; i++)
			syscall(SYS_sched_yield);
		for (int i = 0; i < NSKIPPED; i++)
			syscall(SYS_getppid);
		_exit(0);
	}
	if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFSTOPPED(st) &&
	    !ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)PTRACE_O_TRACESYSGOOD)) {
		status = tracee_renumber_getppid(pid, NSKIPPED / 2, SYS_getpgrp, &seen);
		if (status == -2)
			ktr_fail("ptrace-renumbered", "PTRACE_SET_SYSCALL: %s", strerror(errno));
	} else if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	yield0 = children_calls("sched_yield") - yield0;
	pgrp0 = children_calls("aarch32_getpgrp") - pgrp0;
	getppid0 = children_calls("getppid") - getppid0;
	ktr_check(status == 0 && seen == NSKIPPED && yield0 == NSKIPPED &&
		  pgrp0 == NSKIPPED / 2 && getppid0 == 0, "ptrace-renumbered",
		  "a traced child (status %d, %d getppid seen) whose tracer renumbered half its "
		  "getppid() to getpgrp() and skipped the rest: sched_yield +%" PRId64
		  ", aarch32_getpgrp +%" PRId64 ", getppid +%" PRId64 "; expected +%d, +%d, +0",
		  status, seen, yield0, pgrp0, getppid0, NSKIPPED, NSKIPPED / 2);
}

int main(void)
{
	struct ktr_profile base, after;
	long pid = syscall(SYS_getpid), pgrp = getpgid(0), got = 0;
	char buf[16];
	int fd, bad = 0;

	ktr_init("aarch32");
	fd = open("/dev/zero", O_RDONLY);
	if (fd < 0) {
		ktr_fail("open-dev-zero", "open(/dev/zero): %s", strerror(errno));
		return ktr_exit();
	}
	if (ktr_load("/proc/self/ktau", 1, &base, "baseline") != 0)
		return ktr_exit();
	for (int i = 0; i < NGETPID; i++) {
		got = syscall(SYS_getpid);
		bad += got != pid;
	}
	ktr_check(!bad, "getpid", "%d of %d getpid calls returned %ld, expected %ld",
		  bad, NGETPID, got, pid);
	bad = 0;
	for (int i = 0; i < NREAD; i++)
		bad += read(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf);
	ktr_check(!bad, "read", "%d of %d reads of /dev/zero were short", bad, NREAD);
	bad = 0;
	for (int i = 0; i < NGETPGRP; i++) {
		got = syscall(SYS_getpgrp);
		bad += got != pgrp;
	}
	ktr_check(!bad, "getpgrp", "%d of %d getpgrp calls returned %ld, expected %ld",
		  bad, NGETPGRP, got, pgrp);
	if (ktr_load("/proc/self/ktau", 1, &after, "after") != 0)
		return ktr_exit();
	check_grew(&base, &after, "getpid", NGETPID);
	/* the read() of the baseline load is counted once it returned */
	check_grew(&base, &after, "read", NREAD + 1);
	check_grew(&base, &after, "aarch32_getpgrp", NGETPGRP);
	ktr_free(&base);
	ktr_free(&after);
	close(fd);
	ptrace_case();
	seccomp_case();
	return ktr_exit();
}
