// SPDX-License-Identifier: GPL-2.0
/*
 * entrywork — system calls that go through the kernel's entry work
 * (seccomp, ptrace, audit) and tasks on nohz_full CPUs are counted as
 * docs/proc-format.md says: a call the entry work renumbers is recorded
 * under its new number, one it skips is not recorded, everything else
 * exactly once.  Each case runs in a child; the counts are read from
 * this process's children total, before and after.
 *
 *  1. seccomp: a child under a filter that fails getppid() with EPERM
 *     makes 100 sched_yield() and 100 getppid(): +100 sched_yield,
 *     +0 getppid;
 *  2. ptrace: a child traced with PTRACE_SYSCALL makes 100 sched_yield()
 *     and 100 getppid(); its tracer turns the first 50 getppid() into
 *     getpgrp() (getpgid() on arm64, which has no getpgrp) and skips the
 *     other 50 (number -1): +100 sched_yield, +50 getpgrp, +0 getppid;
 *  3. audit (booted with audit=1, CONFIG_AUDITSYSCALL: every task is
 *     audited): a child's 1000 sched_yield() count exactly;
 *  4. nohz-full (booted with nohz_full=CPUS): a child pinned to the first
 *     nohz_full CPU makes 1000 sched_yield() there and spins 300 ms in
 *     user mode: exactly 1000 counted.
 * 1, 3 and 4 print an INFO line instead where the kernel or the boot
 * does not provide them (the distro kernel of scripts/check-long.sh does;
 * on arm64, the suite's kernel has seccomp and audit).
 * The preemption model the kernel runs (PREEMPT_DYNAMIC's boot choice) is
 * printed as INFO.
 *
 * The same on x86-64 and arm64, each through its own entry code: the
 * filter matches the architecture's AUDIT_ARCH (seccomp_data.arch), the
 * tracer reads and rewrites the number as tracee.h does (orig_rax;
 * NT_ARM_SYSTEM_CALL).
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/audit.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "seccomp_getppid.h"
#include "tracee.h"

#define CALLS		100
#define BUSY_CALLS	1000

/* seccomp_data.arch of this program's calls */
#ifdef __aarch64__
#define AUDIT_ARCH_SELF	AUDIT_ARCH_AARCH64
#else
#define AUDIT_ARCH_SELF	AUDIT_ARCH_X86_64
#endif

/* pgrp: the calls of SYS_PGRP (tracee.h), getppid's renumbered self */
struct counts {
	uint64_t sched_yield, getppid, pgrp;
};

static int children_counts(struct counts *c)
{
	struct ktr_profile p;
	struct ktr_block *b;

	memset(c, 0, sizeof(*c));
	if (ktr_load("/proc/self/ktau", 0, &p, "children-read"))
		return -1;
	b = ktr_block_kind(&p, "children", 0);
	if (b) {
		ktr_func(b, "sched_yield", &c->sched_yield, NULL, NULL);
		ktr_func(b, "getppid", &c->getppid, NULL, NULL);
		ktr_func(b, PGRP_NAME, &c->pgrp, NULL, NULL);
	}
	ktr_free(&p);
	return 0;
}

static void calls(long nr, int n)
{
	for (int i = 0; i < n; i++)
		syscall(nr);
}

static void check_delta(const char *check, const char *what, int status,
			const struct counts *a, const struct counts *b,
			const struct counts *want)
{
	struct counts d = {
		b->sched_yield - a->sched_yield,
		b->getppid - a->getppid,
		b->pgrp - a->pgrp,
	};

	ktr_check(status == 0 && d.sched_yield == want->sched_yield &&
		  d.getppid == want->getppid && d.pgrp == want->pgrp, check,
		  "%s (child status %d): sched_yield +%" PRIu64 ", getppid +%" PRIu64
		  ", " PGRP_NAME " +%" PRIu64 "; expected +%" PRIu64 ", +%" PRIu64
		  ", +%" PRIu64, what, status, d.sched_yield, d.getppid, d.pgrp,
		  want->sched_yield, want->getppid, want->pgrp);
}

/* ---- 1. seccomp ---- */

static int seccomp_child(void)
{
	if (seccomp_fail_getppid(AUDIT_ARCH_SELF))
		return 2;
	calls(SYS_sched_yield, CALLS);
	for (int i = 0; i < CALLS; i++)
		if (syscall(SYS_getppid) != -1 || errno != EPERM)
			return 3;
	return 0;
}

static void seccomp_case(void)
{
	struct counts a, b, want = { CALLS, 0, 0 };
	int status;
	pid_t pid;

	if (prctl(PR_GET_SECCOMP, 0UL, 0UL, 0UL, 0UL) < 0 && errno == EINVAL) {
		ktr_info("seccomp", "no CONFIG_SECCOMP in this kernel: not run");
		return;
	}
	children_counts(&a);
	pid = fork();
	if (pid == 0)
		_exit(seccomp_child());
	status = ktr_reap(pid);
	children_counts(&b);
	check_delta("seccomp", "a seccomp filter failing getppid() with EPERM", status, &a, &b,
		    &want);
}

/* ---- 2. ptrace ---- */

static void ptrace_case(void)
{
	struct counts a, b, want = { CALLS, 0, CALLS / 2 };
	int st, seen = 0, status = -1;
	pid_t pid;

	children_counts(&a);
	pid = fork();
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(2);
		kill(getpid(), SIGSTOP);
		calls(SYS_sched_yield, CALLS);
		calls(SYS_getppid, CALLS);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st) ||
	    ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)PTRACE_O_TRACESYSGOOD)) {
		ktr_fail("ptrace", "the child did not stop for its tracer");
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return;
	}
	status = tracee_renumber_getppid(pid, CALLS / 2, SYS_PGRP, &seen);
	if (status == -2)
		ktr_fail("ptrace", "the tracer could not rewrite the call's number: %s",
			 strerror(errno));
	children_counts(&b);
	check_delta("ptrace", "PTRACE_SYSCALL, getppid() renumbered to " PGRP_NAME
		    "() or skipped", status, &a, &b, &want);
}

/* ---- 3. audit, 4. nohz_full ---- */

static int cmdline_has(const char *key, char *val, size_t len)
{
	char buf[1024], *p;

	if (ktr_read_small("/proc/cmdline", buf, sizeof(buf)) <= 0)
		return 0;
	for (p = strtok(buf, " \n"); p; p = strtok(NULL, " \n")) {
		size_t k = strlen(key);

		if (!strncmp(p, key, k) && p[k] == '=') {
			snprintf(val, len, "%s", p + k + 1);
			return 1;
		}
	}
	return 0;
}

static void busy_case(const char *check, const char *what, int cpu)
{
	struct counts a, b, want = { BUSY_CALLS, 0, 0 };
	int status;
	pid_t pid;

	children_counts(&a);
	pid = fork();
	if (pid == 0) {
		struct timespec t0, t;
		cpu_set_t set;

		if (cpu >= 0) {
			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			if (sched_setaffinity(0, sizeof(set), &set))
				_exit(2);
		}
		calls(SYS_sched_yield, BUSY_CALLS);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		do
			clock_gettime(CLOCK_MONOTONIC, &t);
		while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < 300);
		_exit(cpu >= 0 && sched_getcpu() != cpu ? 3 : 0);
	}
	status = ktr_reap(pid);
	children_counts(&b);
	check_delta(check, what, status, &a, &b, &want);
}

static void audit_case(void)
{
	char v[32];

	if (!cmdline_has("audit", v, sizeof(v)) || strcmp(v, "1") ||
	    access("/proc/self/loginuid", F_OK)) {
		ktr_info("audit", "not booted with audit=1 on a kernel with CONFIG_AUDIT: "
			 "not run");
		return;
	}
	busy_case("audit", "every task audited (audit=1)", -1);
}

static void nohz_case(void)
{
	char v[64];
	int cpu;

	if (!cmdline_has("nohz_full", v, sizeof(v))) {
		ktr_info("nohz-full", "not booted with nohz_full=: not run");
		return;
	}
	cpu = atoi(v);
	busy_case("nohz-full", "on a nohz_full CPU", cpu);
}

/* The model PREEMPT_DYNAMIC chose at boot, from the kernel log. */
static void preempt_info(void)
{
	int n = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *buf = n > 0 ? malloc(n + 1) : NULL, *p;

	if (!buf)
		return;
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, n);
	buf[n > 0 ? n : 0] = '\0';
	p = strstr(buf, "Dynamic Preempt: ");
	if (p)
		ktr_info("preempt", "%.*s", (int)strcspn(p, "\n"), p);
	else
		ktr_info("preempt", "no PREEMPT_DYNAMIC line in the kernel log");
	free(buf);
}

int main(void)
{
	ktr_init("entrywork");
	ktr_ctl("start");
	ktr_ctl("enable all");
	preempt_info();
	seccomp_case();
	ptrace_case();
	audit_case();
	nohz_case();
	return ktr_exit();
}
