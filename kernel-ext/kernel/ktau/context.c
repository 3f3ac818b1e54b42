// SPDX-License-Identifier: GPL-2.0
/*
 * User contexts: how libktau merges kernel time under user routines.
 *
 * A thread registers, with prctl(PR_KTAU_SET_CONTEXT, addr), a 32-bit
 * word of its own memory where it keeps the id of the user routine (or
 * callpath) it is in; it updates the word with a plain store, as rseq
 * users update their area.  On every entry from user mode the kernel
 * reads the word, and everything the task records until it returns to
 * user mode is keyed by that id: the ctx column of its profile.  A word
 * that cannot be read without faulting counts as context 0.
 */
#include <linux/jump_label.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

#include "internal.h"

DEFINE_STATIC_KEY_FALSE(ktau_context_key);

/* Interrupts are off: the read must not fault. */
void __ktau_enter_from_user(void)
{
	struct ktau_task *kt = ktau_current();
	u32 ctx;

	if (!kt->ctx_word)
		return;
	/*
	 * copy_from_user_nofault() without its checks, which cost more
	 * than the read: the address passed access_ok() when it was
	 * registered (fork keeps it, exec drops it), and this is no NMI.
	 */
	pagefault_disable();
	if (__get_user(ctx, kt->ctx_word))
		ctx = 0;
	pagefault_enable();
	kt->ctx_key = KTAU_CTX_KEY(ctx);
}

int ktau_set_context(unsigned long addr, unsigned long arg3,
		     unsigned long arg4, unsigned long arg5)
{
	u32 __user *word = (u32 __user *)addr;
	struct ktau_task *kt;
	unsigned long flags;

	if (arg3 || arg4 || arg5 || !IS_ALIGNED(addr, sizeof(u32)))
		return -EINVAL;
	if (word && !access_ok(word, sizeof(u32)))
		return -EFAULT;
	local_irq_save(flags);
	kt = ktau_current();
	kt->ctx_word = word;
	kt->ctx_key = 0;
	local_irq_restore(flags);
	if (word) {
		/* Back from here, the syscall entry hook reads the word too. */
		if (!static_key_enabled(&ktau_context_key))
			static_branch_enable(&ktau_context_key);
		ktau_sysentry_update();
	}
	return 0;
}

/* The word's address means nothing in the new program. */
void ktau_execve(struct task_struct *tsk)
{
	struct ktau_task *kt = &tsk->ktau;

	kt->ctx_word = NULL;
	kt->ctx_key = 0;
}
