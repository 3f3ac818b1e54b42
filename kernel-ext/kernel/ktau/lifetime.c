// SPDX-License-Identifier: GPL-2.0
/*
 * KTAU profiles outlive their tasks: an exiting thread's profile folds
 * into its process's exited-threads total, and a reaped process's total
 * folds into its parent's children total, the way utime and cutime do.
 * Both totals live in signal_struct and change under its stats_lock, so
 * a reader under that seqlock never counts a thread twice or not at all.
 */
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "internal.h"

/* Called with interrupts off, under the process's stats_lock. */
static struct ktau_signal *ktau_signal_get(struct signal_struct *sig)
{
	struct ktau_signal *ks = sig->ktau;

	if (ks)
		return ks;
	ks = kzalloc(sizeof(*ks), GFP_ATOMIC | __GFP_NOWARN);
	if (!ks) {
		atomic64_inc(&ktau_lost_tasks);
		return NULL;
	}
	/* Readers under RCU see the zeroed totals, never garbage. */
	smp_store_release(&sig->ktau, ks);
	return ks;
}

/*
 * Close the frames a task leaves open when it exits: the exit system
 * call itself, which never returns.
 */
void ktau_task_exit(struct task_struct *tsk)
{
	struct ktau_task *kt = &tsk->ktau;
	unsigned long flags;

	local_irq_save(flags);
	ktau_unwind(kt);
	local_irq_restore(flags);
}

/* From __exit_signal(): @tsk is unhashed right after, same lock held. */
void ktau_thread_release(struct task_struct *tsk)
{
	struct ktau_task *kt = &tsk->ktau;
	struct ktau_signal *ks;

	/* A group leader's profile goes to its parent when it is reaped. */
	if (thread_group_leader(tsk) || ktau_task_cleared(kt))
		return;
	ks = ktau_signal_get(tsk->signal);
	if (!ks)
		return;
	ks->exited_threads++;
	ks->exited_dropped += kt->dropped +
		ktau_table_fold(&ks->exited, rcu_dereference_raw(kt->table));
}

/*
 * From wait_task_zombie() under the parent's stats_lock: @p's whole
 * thread group is dead, nothing changes its totals any more.
 */
void ktau_child_reaped(struct signal_struct *psig, struct task_struct *p)
{
	struct ktau_signal *cks = READ_ONCE(p->signal->ktau);
	struct ktau_task *kt = &p->ktau;
	struct ktau_signal *pks;
	u64 dropped = 0;

	pks = ktau_signal_get(psig);
	if (!pks)
		return;
	pks->processes++;
	if (!ktau_task_cleared(kt))
		dropped += kt->dropped +
			ktau_table_fold(&pks->children,
					rcu_dereference_raw(kt->table));
	if (cks) {
		pks->processes += cks->processes;
		dropped += cks->exited_dropped + cks->children_dropped +
			ktau_table_fold(&pks->children,
					rcu_dereference_raw(cks->exited)) +
			ktau_table_fold(&pks->children,
					rcu_dereference_raw(cks->children));
	}
	pks->children_dropped += dropped;
}

/* After a clear, under the process's stats_lock. */
void ktau_signal_reset(struct signal_struct *sig)
{
	struct ktau_signal *ks = sig->ktau;
	struct ktau_table *exited, *children;

	if (!ks)
		return;
	exited = rcu_dereference_raw(ks->exited);
	children = rcu_dereference_raw(ks->children);
	RCU_INIT_POINTER(ks->exited, NULL);
	RCU_INIT_POINTER(ks->children, NULL);
	if (exited)
		kfree_rcu(exited, rcu);
	if (children)
		kfree_rcu(children, rcu);
	ks->exited_threads = 0;
	ks->processes = 0;
	ks->exited_dropped = 0;
	ks->children_dropped = 0;
}

void ktau_signal_free(struct signal_struct *sig)
{
	struct ktau_signal *ks = sig->ktau;

	if (!ks)
		return;
	sig->ktau = NULL;
	kfree(rcu_dereference_raw(ks->exited));
	kfree(rcu_dereference_raw(ks->children));
	kfree(ks);
}
