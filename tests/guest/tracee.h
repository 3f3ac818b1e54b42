/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The number of the system call a tracee stopped at its syscall-entry
 * stop (PTRACE_SYSCALL) has entered, read and rewritten as a tracer does
 * on each architecture: x86-64's orig_rax (PTRACE_GETREGS, SETREGS),
 * arm64's NT_ARM_SYSTEM_CALL register set (PTRACE_GETREGSET, SETREGSET),
 * AArch32's r7 and PTRACE_SET_SYSCALL (a 32-bit tracer on arm64's compat
 * ptrace).  Rewritten to -1, the call is skipped.  For t_renumber,
 * t_entrywork and t_aarch32.
 */
#ifndef KTAU_TRACEE_H
#define KTAU_TRACEE_H

#include <errno.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>
#ifdef __aarch64__
#include <elf.h>
#include <sys/uio.h>
#endif

/*
 * A call the tracer renumbers getppid() to: getpgrp(), or getpgid() where
 * there is none (arm64's table has getpgid only; with the 0 a caller of
 * getppid passes, it is getpgrp()).
 */
#ifdef SYS_getpgrp
#define SYS_PGRP SYS_getpgrp
#define PGRP_NAME "getpgrp"
#else
#define SYS_PGRP SYS_getpgid
#define PGRP_NAME "getpgid"
#endif

#ifdef __aarch64__
/* The number of the call @pid entered, -2 when it cannot be read. */
static inline long tracee_call_nr(pid_t pid)
{
	int nr;
	struct iovec iov = { .iov_base = &nr, .iov_len = sizeof(nr) };

	if (ptrace(PTRACE_GETREGSET, pid, NT_ARM_SYSTEM_CALL, &iov))
		return -2;
	return nr;
}

/*
 * A skipped call returns x0 on arm64 (the kernel sets -ENOSYS only for a
 * call the task itself made as -1): the tracer sets it to -ENOSYS.
 */
static inline int tracee_set_call_nr(pid_t pid, long nr)
{
	int v = nr;
	struct iovec iov = { .iov_base = &v, .iov_len = sizeof(v) };
	struct user_regs_struct regs;
	struct iovec riov = { .iov_base = &regs, .iov_len = sizeof(regs) };

	if (nr == -1) {
		if (ptrace(PTRACE_GETREGSET, pid, NT_PRSTATUS, &riov))
			return -1;
		regs.regs[0] = -ENOSYS;
		if (ptrace(PTRACE_SETREGSET, pid, NT_PRSTATUS, &riov))
			return -1;
	}
	return ptrace(PTRACE_SETREGSET, pid, NT_ARM_SYSTEM_CALL, &iov) ? -1 : 0;
}
#elif defined(__arm__)
static inline long tracee_call_nr(pid_t pid)
{
	struct user_regs regs;

	if (ptrace(PTRACE_GETREGS, pid, NULL, &regs))
		return -2;
	return (long)regs.uregs[7];
}

static inline int tracee_set_call_nr(pid_t pid, long nr)
{
	return ptrace(PTRACE_SET_SYSCALL, pid, NULL, (void *)nr) ? -1 : 0;
}
#else
static inline long tracee_call_nr(pid_t pid)
{
	struct user_regs_struct regs;

	if (ptrace(PTRACE_GETREGS, pid, 0, &regs))
		return -2;
	return regs.orig_rax;
}

static inline int tracee_set_call_nr(pid_t pid, long nr)
{
	struct user_regs_struct regs;

	if (ptrace(PTRACE_GETREGS, pid, 0, &regs))
		return -1;
	regs.orig_rax = nr;
	return ptrace(PTRACE_SETREGS, pid, 0, &regs) ? -1 : 0;
}
#endif

/*
 * Runs the traced @pid (stopped, PTRACE_O_TRACESYSGOOD set) to its exit
 * with PTRACE_SYSCALL, rewriting the number of its first @renumber
 * getppid() calls to @to and skipping the others (-1); *@seen: the
 * getppid() calls it made.  Returns its exit status, -1 when it did not
 * exit, -2 when a number could not be rewritten (errno; @pid is killed).
 */
static inline int tracee_renumber_getppid(pid_t pid, int renumber, long to, int *seen)
{
	int st, in_call = 0, err;

	*seen = 0;
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, pid, NULL, NULL) || waitpid(pid, &st, 0) != pid)
			return -1;
		if (WIFEXITED(st))
			return WEXITSTATUS(st);
		if (!WIFSTOPPED(st) || WSTOPSIG(st) != (SIGTRAP | 0x80))
			continue;
		in_call = !in_call;
		if (in_call && tracee_call_nr(pid) == SYS_getppid &&
		    tracee_set_call_nr(pid, (*seen)++ < renumber ? to : -1)) {
			err = errno;
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			errno = err;
			return -2;
		}
	}
}

#endif /* KTAU_TRACEE_H */
