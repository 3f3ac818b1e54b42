/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A seccomp filter that fails getppid() with EPERM for the calls of one
 * ABI (seccomp_data.arch: AUDIT_ARCH_X86_64, AUDIT_ARCH_AARCH64,
 * AUDIT_ARCH_ARM) and lets every other call through: the entry work then
 * skips those calls.  For t_entrywork and t_aarch32.
 */
#ifndef KTAU_SECCOMP_GETPPID_H
#define KTAU_SECCOMP_GETPPID_H

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Installs the filter on the calling thread (irrevocably): 0, or -1. */
static inline int seccomp_fail_getppid(unsigned int audit_arch)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, audit_arch, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(insns) / sizeof(insns[0]), insns };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1UL, 0UL, 0UL, 0UL) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0UL, &prog))
		return -1;
	return 0;
}

#endif /* KTAU_SECCOMP_GETPPID_H */
