// SPDX-License-Identifier: GPL-2.0
/*
 * User contexts: how libktau merges kernel time under user routines.
 *
 * A thread registers, with prctl(PR_KTAU_SET_CONTEXT, addr), a 32-bit
 * word of its own memory where it keeps the id of the user routine (or
 * callpath) it is in; it updates the word with a plain store, as rseq
 * users update their area.  When the thread enters the kernel (a system
 * call, an interrupt, a page fault) and opens its outermost frame, the
 * kernel reads the word, and the callpaths recorded until that frame
 * closes are keyed by its value: the ctx column of the profile.  A word
 * that cannot be read without faulting counts as context 0.
 *
 * Registrations are counted, and the system call entry looks for a
 * word only while ktau_context_key is on: from the first registration
 * until about a second (its timeout, HZ) after the last word is gone.
 * The key is deferred because every change of a static key patches
 * kernel text, which interrupts every CPU: a thread that registers and
 * unregisters in a loop, or forks registered children that exit, would
 * otherwise make any unprivileged user an IPI storm.  Deferred, the put
 * that leaves no word arms a timer of a second, and the key goes off when
 * it fires if no word is registered then: it goes off at most once a
 * second, and on again at most once per off, whatever tasks do.
 */
#include <linux/jump_label_ratelimit.h>
#include <linux/prctl.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

#include "internal.h"

DEFINE_STATIC_KEY_DEFERRED_FALSE(ktau_context_key, HZ);
static atomic_t ktau_nr_contexts = ATOMIC_INIT(0);

/*
 * A thread's word was registered (or inherited at fork).  May sleep: it
 * patches the text when the key was off.
 */
void ktau_context_get(void)
{
	atomic_inc(&ktau_nr_contexts);
	static_branch_deferred_inc(&ktau_context_key);
}

/*
 * A registered word was dropped (unregister, exec, exit, a failed fork).
 * Does not sleep: the last put only schedules the key's delayed work,
 * which turns the key off a timeout later unless a word came back.
 */
void ktau_context_put(void)
{
	atomic_dec(&ktau_nr_contexts);
	static_branch_slow_dec_deferred(&ktau_context_key);
}

unsigned int ktau_contexts(void)
{
	return atomic_read(&ktau_nr_contexts);
}

/* Interrupts off: the entry paths read the word with them off too. */
static void ktau_set_word(struct ktau_task *kt, u32 __user *word)
{
	unsigned long flags;

	local_irq_save(flags);
	kt->ctx_word = word;
	local_irq_restore(flags);
}

static int ktau_context_register(unsigned long addr)
{
	struct ktau_task *kt = ktau_current();
	u32 __user *word = (u32 __user *)addr;

	if (!IS_ALIGNED(addr, sizeof(u32)))
		return -EINVAL;
	if (!access_ok(word, sizeof(u32)))
		return -EFAULT;
	if (kt->ctx_word)
		return -EBUSY;
	ktau_context_get();
	ktau_set_word(kt, word);
	return 0;
}

static int ktau_context_unregister(void)
{
	struct ktau_task *kt = ktau_current();

	if (!kt->ctx_word)
		return -ENOENT;
	ktau_set_word(kt, NULL);
	ktau_context_put();
	return 0;
}

/**
 * ktau_context_prctl() - PR_KTAU_SET_CONTEXT and PR_KTAU_GET_CONTEXT
 * @option: which of the two
 * @arg2: SET: the word's address (0 unregisters); GET: a u64 pointer
 *	that receives the registered address (0 if none)
 * @arg3: flags, none defined yet: must be 0
 * @arg4: must be 0
 * @arg5: must be 0
 *
 * Return: 0, -EINVAL (bad alignment or arguments), -EFAULT (not a user
 * address), -EBUSY (a word is registered already), -ENOENT
 * (unregistering with none registered).
 */
int ktau_context_prctl(int option, unsigned long arg2, unsigned long arg3,
		       unsigned long arg4, unsigned long arg5)
{
	u64 addr;

	if (arg3 || arg4 || arg5)
		return -EINVAL;
	switch (option) {
	case PR_KTAU_SET_CONTEXT:
		return arg2 ? ktau_context_register(arg2) :
			      ktau_context_unregister();
	case PR_KTAU_GET_CONTEXT:
		addr = (unsigned long)ktau_current()->ctx_word;
		return put_user(addr, (u64 __user *)arg2) ? -EFAULT : 0;
	default:
		return -EINVAL;
	}
}
