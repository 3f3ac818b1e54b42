// SPDX-License-Identifier: GPL-2.0
/*
 * KTAU profiles outlive their tasks: an exiting thread's profile folds
 * into its process's exited-threads total, and a released process's
 * totals fold into its parent's children total, the way utime and
 * cutime do.  Both happen where the kernel may sleep (do_exit(),
 * release_task()), under the process's ktau mutex, never under
 * tasklist_lock: folding allocates, and a mass exit must not stall
 * fork, exit and kill for everyone.
 *
 * Profiles of privileged programs are kept from their unprivileged
 * owners: a set-user-ID (or file-capability) exec starts a new profile,
 * and the process then adds only its count, not its profile, to its
 * parent's children total.
 */
#include <linux/binfmts.h>
#include <linux/coredump.h>
#include <linux/cred.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>

#include "internal.h"

/*
 * Give @kt table @t; returns the old one.  The user context the task
 * cached is the old table's record: forgotten (see ktau_ctx_forget()).
 */
static struct ktau_table *ktau_table_swap(struct ktau_task *kt,
					  struct ktau_table *t)
{
	t = xchg((struct ktau_table __force **)&kt->table, t);
	ktau_ctx_forget(container_of(kt, struct task_struct, ktau));
	return t;
}

/* A kernel thread's spare table (a user task's grow_work takes its place). */
static struct ktau_table *ktau_spare_take(struct task_struct *tsk)
{
	if (!(tsk->flags & PF_KTHREAD))
		return NULL;
	return xchg(&tsk->ktau.spare, NULL);
}

/*
 * Called at fork, on the copy of the parent's task_struct, where the
 * kernel may sleep.  A forked process keeps its parent's user context
 * word, at the same address of its copy of the memory; a new thread
 * registers its own.  A task whose first table cannot be allocated
 * records nothing until one is (its calls count as dropped).
 */
void ktau_task_init(struct task_struct *tsk, u64 clone_flags)
{
	struct ktau_task *parent = &current->ktau;
	struct ktau_task *kt = &tsk->ktau;
	struct ktau_table *t;

	memset(kt, 0, sizeof(*kt));
	ktau_trace_fork(kt, parent);
	kt->gen = READ_ONCE(ktau_gen);
	t = ktau_table_new(KTAU_TABLE_MIN_RECORDS, GFP_KERNEL);
	RCU_INIT_POINTER(kt->table, t ? t : ktau_empty_table);
	if (!(clone_flags & CLONE_VM) && parent->ctx_word) {
		kt->ctx_word = parent->ctx_word;
		ktau_context_get();
	}
}

/* copy_process() failed after ktau_task_init(): no one saw the task. */
void ktau_task_fork_failed(struct task_struct *tsk)
{
	struct ktau_task *kt = &tsk->ktau;

	if (kt->ctx_word) {
		kt->ctx_word = NULL;
		ktau_context_put();
	}
	ktau_table_free(rcu_dereference_raw(kt->table));
	RCU_INIT_POINTER(kt->table, ktau_empty_table);
}

/* The last reference to the task is gone; any context. */
void ktau_task_free(struct task_struct *tsk)
{
	struct ktau_task *kt = &tsk->ktau;

	ktau_table_free(rcu_dereference_raw(kt->table));
	RCU_INIT_POINTER(kt->table, ktau_empty_table);
	ktau_table_free(ktau_spare_take(tsk));
}

static void ktau_private_set(struct ktau_signal *ks)
{
	lockdep_assert_held(&ks->lock);
	ks->private = true;
}

/*
 * Fold @n records of @src into *@dst under @ks->lock, what it grows into
 * charged to user @owner; returns the calls that found no room.  Sleeps.
 */
static u64 ktau_fold_into(struct ktau_signal *ks, struct ktau_table **dst,
			  const struct ktau_entry *src, unsigned int n,
			  kuid_t owner)
{
	struct ktau_alloc a = ktau_alloc_totals;
	u16 small[64], *map = small;
	u64 lost = 0;
	unsigned int i;

	lockdep_assert_held(&ks->lock);
	if (!n)
		return 0;
	if (n > ARRAY_SIZE(small)) {
		map = kvmalloc_array(n, sizeof(*map), GFP_KERNEL_ACCOUNT);
		if (!map) {
			for (i = 0; i < n; i++)
				lost += ktau_rec_calls(&src[i]);
			return lost;
		}
	}
	a.owner = owner;
	lost = ktau_fold(dst, src, n, map, &a);
	if (map != small)
		kvfree(map);
	return lost;
}

/*
 * From do_exit(), where the task may sleep: close the frames it leaves
 * open (the exit system call, which never returns), stop recording it,
 * and fold its records into its process's exited total.  A reader under
 * the same mutex sees the thread either live or folded.  What the task
 * does later in do_exit() is not recorded.
 */
void ktau_task_exit(struct task_struct *tsk)
{
	struct ktau_signal *ks = &tsk->signal->ktau;
	struct ktau_task *kt = &tsk->ktau;
	struct ktau_table *t;
	u64 lost;

	local_irq_disable();
	ktau_unwind(tsk);
	local_irq_enable();

	mutex_lock(&ks->lock);
	local_irq_disable();
	set_bit(KTAU_TASK_DEAD, &kt->flags);
	/*
	 * The trace's last event of the task: nothing is recorded once it
	 * is dead, not the wait for the lock above nor an interrupt after.
	 */
	ktau_trace_exit();
	t = ktau_table_swap(kt, ktau_empty_table);
	local_irq_enable();
	/* Nothing writes @t now; readers may still copy it under RCU. */
	lost = *ktau_table_dropped(t) +
	       ktau_fold_into(ks, &ks->exited, t->rec, t->nrec, task_uid(tsk));
	ks->exited_dropped += lost;
	ks->exited_threads++;
	if (tsk->mm && get_dumpable(tsk->mm) != SUID_DUMP_USER)
		ktau_private_set(ks);
	mutex_unlock(&ks->lock);

	ktau_table_free_rcu(t);
	ktau_table_free_rcu(ktau_spare_take(tsk));
	if (kt->ctx_word) {
		kt->ctx_word = NULL;
		ktau_context_put();
	}
}

/* Empty a process's totals.  Holds its lock. */
static void ktau_signal_reset(struct ktau_signal *ks)
{
	lockdep_assert_held(&ks->lock);
	ktau_table_free(ks->exited);
	ktau_table_free(ks->children);
	ks->exited = NULL;
	ks->children = NULL;
	ks->exited_threads = 0;
	ks->processes = 0;
	ks->private_processes = 0;
	ks->exited_dropped = 0;
	ks->children_dropped = 0;
}

/*
 * Under tasklist_lock, from exit_notify() or release_task(): @p, a
 * process's last task, is set EXIT_DEAD to be released without a wait()
 * (its parent ignores SIGCHLD or set SA_NOCLDWAIT).  From now on the
 * parent's wait() returns ECHILD, and the parent may exit and be
 * released before @p's release folds @p into it: pin the parent as the
 * fold's target and count the fold as pending there, so that the
 * parent's own release waits for it.  A parent that exits first has
 * reparented @p already (forget_original_parent(), under the same lock):
 * @p then folds into its new parent, as its reaper's.
 */
void ktau_process_autoreap(struct task_struct *p)
{
	struct ktau_signal *ks = &p->signal->ktau;
	struct task_struct *parent;

	lockdep_assert_held_write(&tasklist_lock);
	parent = rcu_dereference_protected(p->real_parent,
					   lockdep_is_held(&tasklist_lock));
	if (!thread_group_leader(p) || WARN_ON_ONCE(ks->fold_parent))
		return;
	ks->fold_parent = get_task_struct(parent);
	atomic_inc(&parent->signal->ktau.folds_pending);
}

/*
 * From release_task(), where the caller may sleep: when the last task of
 * a process goes (its group leader), fold the process's totals (its
 * threads, its own reaped children) into its parent's children total —
 * whether the parent waited for it or it was reaped automatically
 * (SIGCHLD ignored, SA_NOCLDWAIT; the parent pinned then).  Every thread
 * folded itself at its exit, and the children reaped automatically that
 * pinned this process fold before it does, so the totals are complete.
 * A process that ran privileged adds only its count.
 */
void ktau_process_release(struct task_struct *p)
{
	struct ktau_signal *ks = &p->signal->ktau;
	struct ktau_table *exited, *children;
	struct task_struct *parent, *pinned;
	struct ktau_signal *pks;
	unsigned int processes, private_processes;
	bool private;
	u64 dropped;

	if (!thread_group_leader(p))
		return;
	/* each is on its way out already, in release_task() */
	wait_var_event(&ks->folds_pending, !atomic_read(&ks->folds_pending));
	pinned = ks->fold_parent;
	ks->fold_parent = NULL;
	parent = pinned;
	if (!parent) {
		rcu_read_lock();
		parent = tryget_task_struct(rcu_dereference(p->real_parent));
		rcu_read_unlock();
		if (!parent)
			return;
	}

	mutex_lock(&ks->lock);
	exited = ks->exited;
	children = ks->children;
	ks->exited = NULL;
	ks->children = NULL;
	processes = ks->processes;
	private_processes = ks->private_processes;
	private = ks->private;
	dropped = ks->exited_dropped + ks->children_dropped;
	mutex_unlock(&ks->lock);

	pks = &parent->signal->ktau;
	mutex_lock(&pks->lock);
	pks->processes += 1 + processes;
	if (private) {
		pks->private_processes += 1 + processes;
	} else {
		pks->private_processes += private_processes;
		if (exited)
			dropped += ktau_fold_into(pks, &pks->children,
						  exited->rec, exited->nrec,
						  task_uid(parent));
		if (children)
			dropped += ktau_fold_into(pks, &pks->children,
						  children->rec, children->nrec,
						  task_uid(parent));
		pks->children_dropped += dropped;
	}
	mutex_unlock(&pks->lock);
	if (pinned && atomic_dec_and_test(&pks->folds_pending))
		wake_up_var(&pks->folds_pending);
	put_task_struct(parent);
	ktau_table_free(exited);
	ktau_table_free(children);
}

/*
 * After a successful exec: the registered context word's address means
 * nothing in the new program.  A privileged exec, and any exec of a
 * process that ran privileged, starts the process's profile afresh, so
 * that neither side of a privilege change sees the other's.
 */
void ktau_execve(struct task_struct *tsk, const struct linux_binprm *bprm)
{
	struct ktau_signal *ks = &tsk->signal->ktau;
	struct ktau_task *kt = &tsk->ktau;
	struct ktau_table *fresh, *old;

	ktau_trace_exec();
	if (kt->ctx_word) {
		local_irq_disable();
		kt->ctx_word = NULL;
		local_irq_enable();
		ktau_context_put();
	}
	mutex_lock(&ks->lock);
	if (bprm->secureexec || ks->private) {
		ktau_private_set(ks);
		ktau_signal_reset(ks);
		fresh = ktau_table_new(KTAU_TABLE_MIN_RECORDS, GFP_KERNEL);
		local_irq_disable();
		/* The exec's own frame started before: it records nothing. */
		kt->depth = 0;
		old = ktau_table_swap(kt, fresh ? fresh : ktau_empty_table);
		local_irq_enable();
		ktau_table_free_rcu(old);
	}
	mutex_unlock(&ks->lock);
}

void ktau_signal_init(struct signal_struct *sig)
{
	memset(&sig->ktau, 0, sizeof(sig->ktau));
	mutex_init(&sig->ktau.lock);
}

/* The last task of the process is freed: no reader can see it. */
void ktau_signal_free(struct signal_struct *sig)
{
	WARN_ON_ONCE(sig->ktau.fold_parent ||
		     atomic_read(&sig->ktau.folds_pending));
	ktau_table_free(sig->ktau.exited);
	ktau_table_free(sig->ktau.children);
	mutex_destroy(&sig->ktau.lock);
}

/*
 * Clear: a fresh first-size table for @p (unless its table is one
 * already, untouched), and the process's totals emptied, freeing the
 * memory of sleeping tasks too.  The caller bumped every group's
 * generation and waited for an RCU grace period first, so no frame
 * opened before the clear can land in the fresh table.
 */
void ktau_task_clear(struct task_struct *p)
{
	struct ktau_signal *ks = &p->signal->ktau;
	struct ktau_task *kt = &p->ktau;
	struct ktau_table *t, *fresh;
	bool untouched;

	mutex_lock(&ks->lock);
	if (thread_group_leader(p))
		ktau_signal_reset(ks);
	if (!test_bit(KTAU_TASK_DEAD, &kt->flags)) {
		rcu_read_lock();
		t = rcu_dereference(kt->table);
		untouched = t != ktau_empty_table && !READ_ONCE(t->nrec) &&
			    !READ_ONCE(*ktau_table_dropped(t)) &&
			    t->maxrec == KTAU_TABLE_MIN_RECORDS;
		rcu_read_unlock();
		if (!untouched) {
			fresh = ktau_table_new(KTAU_TABLE_MIN_RECORDS,
					       GFP_KERNEL);
			t = ktau_table_swap(kt, fresh ? fresh :
					    ktau_empty_table);
			ktau_table_free_rcu(t);
		}
	}
	ktau_table_free_rcu(ktau_spare_take(p));
	mutex_unlock(&ks->lock);
}

/*
 * After a clear swapped @p's table and an RCU grace period: the user
 * context a start cached for the old table as the swap happened is
 * forgotten.  Any start that may have used it opened its frame before
 * the control generation that follows (ktau_clear_all()).
 */
void ktau_ctx_forget(struct task_struct *p)
{
	unsigned int i;

	for (i = 0; i < KTAU_CTX_CACHED; i++)
		WRITE_ONCE(p->ktau.ctx_cache[i].word, 0);
}
