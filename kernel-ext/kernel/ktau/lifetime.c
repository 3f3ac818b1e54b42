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
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

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
 * A new process's first table @t gets the records of the template its
 * parent's last released child left (see ktau_template_make()).
 */
static void ktau_template_take(struct ktau_table *t)
{
	struct ktau_table *tmpl;

	if (current->flags & PF_KTHREAD)
		return;
	rcu_read_lock();
	tmpl = rcu_dereference(current->signal->ktau.tmpl);
	if (tmpl)
		ktau_template_apply(t, tmpl);
	rcu_read_unlock();
}

/*
 * Children unlike the template in a row that replace it: one child that
 * took an interrupt in a call of its own, a callpath none of the others
 * has, leaves it as it is.
 */
#define KTAU_TEMPLATE_MISSES	2

/*
 * After released process @p's fold into its parent's children total
 * (@pks, its lock held): @p's table @exited, when @p had one thread,
 * becomes the template of the parent's next children, unless the one
 * they have has its records already or the children before it did; a
 * table that does not fit one then leaves none, so that children unlike
 * it do not start full.
 */
static void ktau_template_update(struct ktau_signal *pks,
				 const struct ktau_table *exited)
{
	struct ktau_table *old, *t;

	old = rcu_dereference_protected(pks->tmpl,
					lockdep_is_held(&pks->children_lock));
	if (old) {
		if (ktau_template_same(old, exited)) {
			pks->tmpl_misses = 0;
			return;
		}
		if (++pks->tmpl_misses < KTAU_TEMPLATE_MISSES)
			return;
	}
	pks->tmpl_misses = 0;
	t = ktau_template_make(exited);
	rcu_assign_pointer(pks->tmpl, t);
	ktau_table_free_rcu(old);
}

/* Drop @ks's template (a clear, a privileged exec).  Holds its lock. */
static void ktau_template_drop(struct ktau_signal *ks)
{
	lockdep_assert_held(&ks->children_lock);
	ktau_table_free_rcu(rcu_replace_pointer(ks->tmpl, NULL,
						lockdep_is_held(&ks->children_lock)));
}

/*
 * Whether a task gets a first table of its own: while a hook may record
 * (control.c sets it before the first group's key goes on, and gives a
 * table to every task that has none; it clears it once every key is
 * off).  A kernel with ktau in and nothing recording allocates nothing
 * at fork and frees the tables at a clear.  A task forked as recording
 * starts, that the start's walk did not find yet, takes its CPU's
 * reserve table at its first record (ktau_task_outgrow()).
 */
bool ktau_tables_wanted __read_mostly;

/* A fresh first table if tasks get one now, else the empty table. */
static struct ktau_table *ktau_table_first(void)
{
	struct ktau_table *t = NULL;

	if (READ_ONCE(ktau_tables_wanted))
		t = ktau_table_new(KTAU_TABLE_MIN_RECORDS, GFP_KERNEL);
	return t ? t : ktau_empty_table;
}

/*
 * Called at fork, on the copy of the parent's task_struct, where the
 * kernel may sleep.  A forked process keeps its parent's user context
 * word, at the same address of its copy of the memory; a new thread
 * registers its own.  A new process's first table starts from its
 * parent's children template, a new thread's empty.  A task whose
 * first table cannot be allocated records nothing until one is (its
 * calls count as dropped).
 */
void ktau_task_init(struct task_struct *tsk, u64 clone_flags)
{
	struct ktau_task *parent = &current->ktau;
	struct ktau_task *kt = &tsk->ktau;
	struct ktau_table *t;

	memset(kt, 0, sizeof(*kt));
	ktau_trace_fork(kt, parent);
	kt->gen = READ_ONCE(ktau_gen);
	t = ktau_table_first();
	if (t != ktau_empty_table && !(clone_flags & CLONE_THREAD))
		ktau_template_take(t);
	RCU_INIT_POINTER(kt->table, t);
	if (!(clone_flags & CLONE_VM) && parent->ctx_word) {
		kt->ctx_word = parent->ctx_word;
		ktau_context_get();
	}
	ktau_counters_fork(tsk, clone_flags);
}

/* copy_process() failed after ktau_task_init(): no one saw the task. */
void ktau_task_fork_failed(struct task_struct *tsk)
{
	struct ktau_task *kt = &tsk->ktau;

	if (kt->ctx_word) {
		kt->ctx_word = NULL;
		ktau_context_put();
	}
	ktau_counters_drop(kt);
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
 * Fold @n records of @src into *@dst under @lock, the total's, what it
 * grows into charged to user @owner; returns the calls that found no
 * room.  Sleeps.
 */
static u64 ktau_fold_into(struct mutex *lock, struct ktau_table **dst,
			  const struct ktau_entry *src, unsigned int n,
			  kuid_t owner)
{
	struct ktau_alloc a = ktau_alloc_totals;
	/* ktau_fold() writes each entry before it reads it: not cleared */
	u16 small[64] __uninitialized, *map = small;
	u64 lost = 0;
	unsigned int i;

	lockdep_assert_held(lock);
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
	/*
	 * Nothing writes @t now; readers may still copy it under RCU.  The
	 * first thread to exit (a single-threaded process's only one) leaves
	 * its table as the total: a fold into nothing would copy it.
	 */
	lost = *ktau_table_dropped(t);
	if (!ks->exited && t != ktau_empty_table) {
		ktau_table_keep(t);
		ks->exited = t;
		t = NULL;
	} else {
		lost += ktau_fold_into(&ks->lock, &ks->exited, t->rec,
				       t->nrec, task_uid(tsk));
	}
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
	ktau_counters_drop(kt);
}

/*
 * Clears so far, counted as each begins (under ktau_control_lock).  A
 * fold reads its process's totals, then adds them to its parent's under
 * the parent's lock: a clear that emptied the parent in between (its walk
 * of the tasks, or of the released processes a fold waits for) would
 * find the fold's totals, which date from before it, nowhere and let
 * them land after.  A process's totals carry the count of the clear they
 * date from, and a fold into a total of another clear adds nothing: it
 * is either from before the clear, or (a process forked or emptied
 * while the clear walks) from its walk, which takes it as emptied.
 */
static unsigned int ktau_clear_epoch;

/* A clear begins: before it empties anything. */
void ktau_clear_begin(void)
{
	WRITE_ONCE(ktau_clear_epoch, ktau_clear_epoch + 1);
}

/* Empty a process's totals.  Holds its lock. */
static void ktau_signal_reset(struct ktau_signal *ks)
{
	lockdep_assert_held(&ks->lock);
	ktau_table_free(ks->exited);
	ks->exited = NULL;
	ks->exited_threads = 0;
	ks->exited_dropped = 0;
	mutex_lock(&ks->children_lock);
	ks->clear_epoch = READ_ONCE(ktau_clear_epoch);
	ktau_template_drop(ks);
	ktau_table_free(ks->children);
	ks->children = NULL;
	ks->processes = 0;
	ks->private_processes = 0;
	ks->children_dropped = 0;
	mutex_unlock(&ks->children_lock);
}

/*
 * Under tasklist_lock, from exit_notify() or release_task(): @p, a
 * process's last task, is set EXIT_DEAD to be released without a wait()
 * (its parent ignores SIGCHLD or set SA_NOCLDWAIT).  From now on the
 * parent's wait() returns ECHILD, and the parent may exit and be
 * released before @p's release folds @p into it: pin the parent as the
 * fold's target and count the fold as pending there, so that the
 * parent's own fold into its parent waits for it (see
 * ktau_process_release()).  A parent that exits first has reparented @p
 * already (forget_original_parent(), under the same lock): @p then folds
 * into its new parent, as its reaper's.
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
 * Released processes whose fold waits for their autoreaped children's:
 * they have no pid any more, so a clear finds them here.
 */
static DEFINE_MUTEX(ktau_deferred_lock);
static LIST_HEAD(ktau_deferred);

/* After a clear's walk of the tasks: empty the released ones too. */
void ktau_clear_deferred(void)
{
	struct ktau_signal *ks;

	mutex_lock(&ktau_deferred_lock);
	list_for_each_entry(ks, &ktau_deferred, deferred) {
		mutex_lock(&ks->lock);
		ktau_signal_reset(ks);
		ks->cleared = true;
		mutex_unlock(&ks->lock);
	}
	mutex_unlock(&ktau_deferred_lock);
}

/*
 * Fold the totals of released process @p (its threads, its own reaped
 * children) into @parent's children total.  A process that ran
 * privileged adds only its count; one a clear emptied after its release
 * adds nothing.  Sleeps.
 */
static void ktau_process_fold(struct task_struct *p, struct task_struct *parent)
{
	struct ktau_signal *ks = &p->signal->ktau;
	struct ktau_signal *pks = &parent->signal->ktau;
	struct ktau_table *exited, *children;
	unsigned int processes, private_processes, threads, epoch;
	bool private, cleared;
	u64 dropped;

	mutex_lock(&ks->lock);
	epoch = ks->clear_epoch;
	exited = ks->exited;
	ks->exited = NULL;
	threads = ks->exited_threads;
	private = ks->private;
	cleared = ks->cleared;
	dropped = ks->exited_dropped;
	mutex_unlock(&ks->lock);
	mutex_lock(&ks->children_lock);
	children = ks->children;
	ks->children = NULL;
	processes = ks->processes;
	private_processes = ks->private_processes;
	dropped += ks->children_dropped;
	mutex_unlock(&ks->children_lock);

	if (!cleared) {
		/* the children total is its process's: charged to its owner */
		kuid_t owner = task_uid(parent);

		mutex_lock(&pks->children_lock);
		/* emptied by a clear since: see ktau_clear_epoch */
		if (pks->clear_epoch != epoch)
			goto unlock;
		pks->processes += 1 + processes;
		if (private) {
			pks->private_processes += 1 + processes;
		} else {
			pks->private_processes += private_processes;
			if (exited)
				dropped += ktau_fold_into(&pks->children_lock,
							  &pks->children,
							  exited->rec,
							  exited->nrec, owner);
			/* one thread's: its own table, as it ran */
			if (exited && threads == 1)
				ktau_template_update(pks, exited);
			if (children)
				dropped += ktau_fold_into(&pks->children_lock,
							  &pks->children,
							  children->rec,
							  children->nrec, owner);
			pks->children_dropped += dropped;
		}
unlock:
		mutex_unlock(&pks->children_lock);
	}
	ktau_table_free(exited);
	ktau_table_free(children);
}

/*
 * Fold released process @p into the parent it pinned, or else its real
 * parent; then, while that fold was the last one a released parent's
 * own fold waited for, fold that parent on up.  Only the first round's
 * @p is the caller's, being released: each later one is held through
 * the pin of the process folded before it.
 */
static void ktau_process_fold_up(struct task_struct *p)
{
	struct task_struct *held = NULL;

	while (p) {
		struct ktau_signal *ks = &p->signal->ktau;
		struct task_struct *parent = ks->fold_parent, *next = NULL;
		bool pinned = parent;

		ks->fold_parent = NULL;
		/* its fold or drop is the last thing done with its totals */
		if (!list_empty(&ks->deferred)) {
			mutex_lock(&ktau_deferred_lock);
			list_del_init(&ks->deferred);
			mutex_unlock(&ktau_deferred_lock);
		}
		/*
		 * The real parent of a process released earlier may be
		 * gone: one that had no parent to pin folds nowhere.
		 */
		if (!parent && !held) {
			rcu_read_lock();
			parent = tryget_task_struct(rcu_dereference(p->real_parent));
			rcu_read_unlock();
		}
		if (parent) {
			ktau_process_fold(p, parent);
			if (pinned &&
			    atomic_dec_and_test(&parent->signal->ktau.folds_pending))
				next = parent;
			else
				put_task_struct(parent);
		}
		if (held)
			put_task_struct(held);
		held = next;
		p = next;
	}
}

/*
 * From release_task(), where the caller may sleep: when the last task of
 * a process goes (its group leader), fold the process's totals into its
 * parent's children total, whether the parent waited for it or it was
 * reaped automatically (SIGCHLD ignored, SA_NOCLDWAIT; the parent pinned
 * then).  Every thread folded itself at its exit, but children reaped
 * automatically may still be on their way out, each to fold into this
 * process first: @folds_pending counts them, plus one until this
 * release.  Whoever brings it to zero, this release or the last of those
 * children's, does this process's fold, so no release ever waits for
 * another task to be scheduled.  A fold left to a child needs a target
 * that stays: the parent is pinned like an autoreaped child's, which
 * readers of its profile see as `pending` (ktau_signal_pending()).
 */
void ktau_process_release(struct task_struct *p)
{
	struct ktau_signal *ks = &p->signal->ktau;
	struct task_struct *parent;

	if (!thread_group_leader(p))
		return;
	/*
	 * No child can pin @p any more (its children were reparented as it
	 * exited): the count only goes down from here.
	 */
	if (atomic_read(&ks->folds_pending) > 1 && !ks->fold_parent) {
		rcu_read_lock();
		parent = tryget_task_struct(rcu_dereference(p->real_parent));
		rcu_read_unlock();
		if (parent) {
			atomic_inc(&parent->signal->ktau.folds_pending);
			ks->fold_parent = parent;
		}
	}
	if (atomic_read(&ks->folds_pending) > 1) {
		mutex_lock(&ktau_deferred_lock);
		list_add(&ks->deferred, &ktau_deferred);
		mutex_unlock(&ktau_deferred_lock);
	}
	/* Fully ordered: the pin and the list entry come before. */
	if (atomic_dec_and_test(&ks->folds_pending))
		ktau_process_fold_up(p);
}

/* Folds still to come into a live process's children total. */
unsigned int ktau_signal_pending(struct ktau_signal *ks)
{
	return max(atomic_read(&ks->folds_pending) - 1, 0);
}

/*
 * After a successful exec: the addresses of the registered context word
 * and shared counter area mean nothing in the new program.
 */
void ktau_execve(struct task_struct *tsk)
{
	struct ktau_task *kt = &tsk->ktau;

	ktau_trace_exec();
	if (kt->ctx_word) {
		local_irq_disable();
		kt->ctx_word = NULL;
		local_irq_enable();
		ktau_context_put();
	}
	ktau_counters_drop(kt);
}

/*
 * After a successful exec, ktau_execve()'s: a privileged exec, and any
 * exec of a process that ran privileged, starts the process's profile
 * afresh, so that neither side of a privilege change sees the other's.
 */
void ktau_execve_privilege(struct task_struct *tsk,
			   const struct linux_binprm *bprm)
{
	struct ktau_signal *ks = &tsk->signal->ktau;
	struct ktau_task *kt = &tsk->ktau;
	struct ktau_table *fresh, *old;

	mutex_lock(&ks->lock);
	if (bprm->secureexec || ks->private) {
		ktau_private_set(ks);
		ktau_signal_reset(ks);
		fresh = ktau_table_first();
		local_irq_disable();
		/* The exec's own frame started before: it records nothing. */
		kt->depth = 0;
		old = ktau_table_swap(kt, fresh);
		local_irq_enable();
		ktau_table_free_rcu(old);
	}
	mutex_unlock(&ks->lock);
}

void ktau_signal_init(struct signal_struct *sig)
{
	memset(&sig->ktau, 0, sizeof(sig->ktau));
	mutex_init(&sig->ktau.lock);
	mutex_init(&sig->ktau.children_lock);
	INIT_LIST_HEAD(&sig->ktau.deferred);
	sig->ktau.clear_epoch = READ_ONCE(ktau_clear_epoch);
	/* the process's own release: see ktau_process_release() */
	atomic_set(&sig->ktau.folds_pending, 1);
}

/*
 * The last task of the process is freed: no reader can see it.  It was
 * released and folded (no fold pending), or never ran (a failed fork:
 * only its own release pending).
 */
void ktau_signal_free(struct signal_struct *sig)
{
	WARN_ON_ONCE(sig->ktau.fold_parent ||
		     atomic_read(&sig->ktau.folds_pending) > 1 ||
		     !list_empty(&sig->ktau.deferred));
	ktau_table_free(sig->ktau.exited);
	ktau_table_free(sig->ktau.children);
	/* no fork reads it: the process has no task left */
	ktau_table_free(rcu_dereference_protected(sig->ktau.tmpl, true));
	mutex_destroy(&sig->ktau.lock);
	mutex_destroy(&sig->ktau.children_lock);
}

/*
 * Recording starts (ktau_walk_tasks() under ktau_control_lock, every key
 * still off): @p, forked while nothing recorded, gets its first table.
 * An exited task gets none.
 */
void ktau_task_table_give(struct task_struct *p, void *arg)
{
	struct ktau_signal *ks = &p->signal->ktau;
	struct ktau_task *kt = &p->ktau;
	struct ktau_table *t;

	mutex_lock(&ks->lock);
	if (!test_bit(KTAU_TASK_DEAD, &kt->flags) &&
	    rcu_access_pointer(kt->table) == ktau_empty_table) {
		t = ktau_table_first();
		/* its owner grows it without the lock: never over that */
		if (cmpxchg((struct ktau_table __force **)&kt->table,
			    ktau_empty_table, t) != ktau_empty_table)
			ktau_table_free(t);
	}
	mutex_unlock(&ks->lock);
}

/*
 * Clear, its first walk: a fresh first-size table for @p (unless its
 * table is one already, untouched), freeing the memory of sleeping tasks
 * too; none while nothing records.  The caller bumped every group's
 * generation and waited for an RCU grace period first, so no frame
 * opened before the clear can land in the fresh table.
 */
void ktau_task_clear(struct task_struct *p)
{
	struct ktau_signal *ks = &p->signal->ktau;
	struct ktau_task *kt = &p->ktau;
	struct ktau_table *t;
	bool untouched;

	mutex_lock(&ks->lock);
	if (!test_bit(KTAU_TASK_DEAD, &kt->flags)) {
		rcu_read_lock();
		t = rcu_dereference(kt->table);
		if (!READ_ONCE(ktau_tables_wanted))
			untouched = t == ktau_empty_table;
		else
			untouched = t != ktau_empty_table && !READ_ONCE(t->nrec) &&
				    !READ_ONCE(*ktau_table_dropped(t)) &&
				    t->maxrec == KTAU_TABLE_MIN_RECORDS;
		rcu_read_unlock();
		if (!untouched) {
			t = ktau_table_swap(kt, ktau_table_first());
			/* after the swap (counters.c) */
			smp_mb__before_atomic();
			set_bit(KTAU_TASK_COUNTERS_STALE, &kt->flags);
			ktau_table_free_rcu(t);
		}
	}
	ktau_table_free_rcu(ktau_spare_take(p));
	mutex_unlock(&ks->lock);
}

/*
 * Clear, its second walk: @p's process totals emptied, once every task
 * has its fresh table.  A thread that exits as the clear walks folds its
 * table into them: one from before the clear, if the first walk had not
 * reached it, which this empties; in one walk, a thread after its leader
 * in pid order could fold it after the leader's totals were emptied.
 */
void ktau_process_clear(struct task_struct *p)
{
	struct ktau_signal *ks = &p->signal->ktau;

	if (!thread_group_leader(p))
		return;
	mutex_lock(&ks->lock);
	ktau_signal_reset(ks);
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
