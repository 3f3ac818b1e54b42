// SPDX-License-Identifier: GPL-2.0
/*
 * renumber — the entry work may change a system call's number: a call is
 * recorded under the number that runs, and a call the entry work skips is
 * not recorded at all.
 *
 * ktau opens a 64-bit call's frame before the entry work (seccomp, ptrace)
 * and fixes it up afterwards.  A tracer (PTRACE_SYSCALL) rewrites, at each
 * entry stop of its child, the number (x86-64: orig_rax; arm64: its
 * NT_ARM_SYSTEM_CALL register set):
 *   getppid  -> getpgrp   (NRENUM calls: recorded as getpgrp, never getppid;
 *                          arm64 has no getpgrp: getpgid, with the 0 the
 *                          child passes getppid)
 *   getsid   -> -1        (NSKIP calls: skipped, recorded nowhere)
 * The child makes the calls, checks what they returned, and stops; the
 * tracer then reads the child's /proc/PID/ktau.
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tracee.h"

#define NRENUM 5
#define NSKIP 4

/* The traced child: exit status 0 when every call returned as rewritten. */
static int child(void)
{
	long pgrp, ppid;
	int bad = 0;

	/* its own process group: getpgrp() and getppid() then differ */
	if (setpgid(0, 0))
		return 2;
	pgrp = syscall(SYS_PGRP, 0);
	ppid = syscall(SYS_getppid, 0);

	if (ptrace(PTRACE_TRACEME, 0, 0, 0) || raise(SIGSTOP))
		return 2;
	for (int i = 0; i < NRENUM; i++)
		bad += syscall(SYS_getppid, 0) != pgrp;
	for (int i = 0; i < NSKIP; i++)
		bad += syscall(SYS_getsid, 0) != -1 || errno != ENOSYS;
	/* stopped here, the tracer reads the profile */
	raise(SIGSTOP);
	return bad ? 1 : (pgrp == ppid ? 3 : 0);
}

/* Run the child to its next stop; rewrite the calls at their entry stops. */
static int trace(pid_t pid, int *rewritten, int *skipped)
{
	int status, in_call = 0;

	for (;;) {
		if (ptrace(PTRACE_SYSCALL, pid, 0, 0) || waitpid(pid, &status, 0) != pid)
			return -1;
		if (!WIFSTOPPED(status))
			return -1;
		if (WSTOPSIG(status) == SIGSTOP)
			return 0;
		if (WSTOPSIG(status) != (SIGTRAP | 0x80))
			continue;
		in_call = !in_call;
		if (in_call) {
			long nr = tracee_call_nr(pid);

			if (nr == -2)
				return -1;
			if (nr == SYS_getppid) {
				nr = SYS_PGRP;
				++*rewritten;
			} else if (nr == SYS_getsid) {
				nr = -1;
				++*skipped;
			} else {
				continue;
			}
			if (tracee_set_call_nr(pid, nr))
				return -1;
		}
	}
}

int main(void)
{
	uint64_t ppid_calls = 0, pgrp_calls = 0, sid_calls = 0;
	int status, rewritten = 0, skipped = 0;
	struct ktr_profile prof;
	struct ktr_block *b;
	char path[64];
	pid_t pid;

	ktr_init("renumber");
	pid = fork();
	if (pid < 0) {
		ktr_fail("fork", "fork: %s", strerror(errno));
		return ktr_exit();
	}
	if (pid == 0)
		_exit(child());
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status) ||
	    ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL)) {
		ktr_fail("trace", "the child did not stop for its tracer (status %#x): %s",
			 status, strerror(errno));
		kill(pid, SIGKILL);
		return ktr_exit();
	}
	if (trace(pid, &rewritten, &skipped)) {
		ktr_fail("trace", "tracing the child failed: %s", strerror(errno));
		kill(pid, SIGKILL);
		return ktr_exit();
	}
	ktr_check(rewritten == NRENUM && skipped == NSKIP, "rewritten",
		  "the tracer rewrote %d getppid (expected %d) and skipped %d getsid (expected %d)",
		  rewritten, NRENUM, skipped, NSKIP);

	snprintf(path, sizeof(path), "/proc/%d/ktau", (int)pid);
	if (ktr_load(path, 0, &prof, "profile") == 0) {
		b = ktr_block_kind(&prof, "process", 0);
		if (b) {
			ktr_func(b, "getppid", &ppid_calls, NULL, NULL);
			ktr_func(b, PGRP_NAME, &pgrp_calls, NULL, NULL);
			ktr_func(b, "getsid", &sid_calls, NULL, NULL);
		}
		/* one getppid and one getpgrp ran before PTRACE_TRACEME */
		ktr_check(b && ppid_calls == 1 && pgrp_calls == 1 + NRENUM, "recorded-as-run",
			  "getppid %" PRIu64 " calls (expected 1), " PGRP_NAME " %" PRIu64
			  " (expected %d): a renumbered call counts under the number that ran",
			  ppid_calls, pgrp_calls, 1 + NRENUM);
		ktr_check(b && sid_calls == 0, "skipped-not-recorded",
			  "getsid %" PRIu64 " calls (expected 0: every one was skipped)", sid_calls);
	}

	if (ptrace(PTRACE_DETACH, pid, 0, 0) == 0)
		kill(pid, SIGCONT);
	if (waitpid(pid, &status, 0) != pid)
		status = -1;
	ktr_check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child-saw-rewrites",
		  "the child's exit status %#x (0: each call returned what the rewrite runs; "
		  "1: a call returned something else; 2: setup failed; 3: its pgrp is its "
		  "ppid, no test)", status);
	return ktr_exit();
}
