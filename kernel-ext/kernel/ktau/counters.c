// SPDX-License-Identifier: GPL-2.0
/*
 * Shared counters: a thread's kernel counters in its own memory.
 *
 * A profiler that wants, at each of its own timer starts and stops, the
 * kernel time its thread spent in a few routines (TAU's -ktau_shctr, a
 * PAPI component) cannot afford a read of /proc/self/task/TID/ktau each
 * time.  As with rseq, the thread registers an area of its memory
 * (struct ktau_counters, include/uapi/linux/ktau.h) naming up to
 * KTAU_COUNTERS_MAX routines or groups, with
 * prctl(PR_KTAU_SET_COUNTERS, addr, len), and the kernel writes their
 * calls, inclusive and exclusive time into it before the thread returns
 * to user mode, whenever they changed: the thread reads them with loads.
 *
 * The values are sums over the records of the thread's own table, the
 * same that /proc/self/task/TID/ktau shows: exact, and never a second
 * set of adds on the recording paths.  Records keep their place in a
 * table (a bigger table keeps every id), so the records an area sums are
 * found once, as they appear, and kept in a short list; an area whose
 * records outgrow it sums the whole table at each write.
 *
 * When: the system call exit writes the area when the call's own record
 * is one it sums (the common case for a profiler counting read() or the
 * system call group), with page faults disabled, as interrupts are off
 * there.  Every other recording of the thread (interrupts, softirqs,
 * page faults, the scheduler, run-time routines) sets TIF_NOTIFY_RESUME,
 * and the area is written from resume_user_mode_work(), where it may
 * fault in.  A write that faults there (the area unmapped or made
 * read-only since) is counted (PR_KTAU_GET_COUNTERS) and harms nothing:
 * the next write tries again.
 *
 * Cost: threads without an area pay one no-op at the system call exit
 * and in the out-of-line stops, behind ktau_counters_key, which is
 * deferred as ktau_context_key is (kernel/ktau/context.c): however tasks
 * register and unregister, it changes at most about once a second.
 */
#include <linux/jump_label_ratelimit.h>
#include <linux/prctl.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <uapi/linux/ktau.h>

#include "internal.h"

DEFINE_STATIC_KEY_DEFERRED_FALSE(ktau_counters_key, HZ);

/* Records an area keeps in its list; past them it sums whole tables. */
#define KTAU_COUNTERS_MATCHES	128

/* A record an area sums: its id, the counters it adds to. */
struct ktau_counters_match {
	u16 rec;
	u16 mask;
};

/*
 * The kernel's side of a thread's area: the ids as registered, and the
 * records of @table (the first @scanned of them looked at) they sum.
 * Only its thread uses it, from its own system calls, interrupts and
 * return to user mode.
 */
struct ktau_counters_state {
	struct ktau_counters __user *area;
	const struct ktau_table *table;
	u64 faults;
	u64 seq;
	u64 syscall_bits;		/* fid % 64 of each function id */
	u32 ids[KTAU_COUNTERS_MAX];
	u32 nr;
	bool all_syscalls;		/* a group id or "all" covers them */
	bool busy;			/* being copied out: see touch */
	bool missed;			/* a change while busy */
	bool overflow;			/* more records than @match holds */
	u16 scanned;
	u16 nmatch;
	struct ktau_counters_match match[KTAU_COUNTERS_MATCHES];
};

/* The counters of @c that function id @fid adds to. */
static u16 ktau_counters_fid_mask(const struct ktau_counters_state *c,
				  unsigned int fid)
{
	int group = ktau_fid_group(fid);
	u16 mask = 0;
	unsigned int i;

	for (i = 0; i < c->nr; i++) {
		u32 id = c->ids[i];

		if (id == KTAU_COUNTER_ALL || id == fid ||
		    ((id & KTAU_COUNTER_GROUP) &&
		     (id & ~KTAU_COUNTER_GROUP) == group))
			mask |= BIT(i);
	}
	return mask;
}

/*
 * The counters record @i of @t adds to.  A carry record's are its
 * callpath's: it holds calls only (its times are 0).
 */
static u16 ktau_counters_rec_mask(const struct ktau_counters_state *c,
				  const struct ktau_table *t, unsigned int i)
{
	u32 key = ktau_rec_key(&t->rec[i]);
	unsigned int id;

	if (KTAU_REC_PARENT(key) == KTAU_REC_CARRY) {
		id = key & 0xffff;
		if (!id || id > i)
			return 0;
		key = ktau_rec_key(&t->rec[id - 1]);
	}
	if (!key || ktau_key_is_meta(key) || ktau_key_is_event(key))
		return 0;
	return ktau_counters_fid_mask(c, KTAU_REC_FID(key));
}

/* Add record @e to the counters of @mask in @val. */
static void ktau_counters_add(struct ktau_counter *val,
			      const struct ktau_entry *e, unsigned long mask)
{
	u64 calls = ktau_word_calls(READ_ONCE(e->calls_key));
	u64 incl = READ_ONCE(e->incl);
	u64 excl = READ_ONCE(e->excl);
	unsigned int i;

	for_each_set_bit(i, &mask, KTAU_COUNTERS_MAX) {
		val[i].calls += calls;
		val[i].incl += incl;
		val[i].excl += excl;
	}
}

/* Look at the records of @t that @c has not looked at yet. */
static void ktau_counters_scan(struct ktau_counters_state *c,
			       const struct ktau_table *t)
{
	unsigned int i, n = READ_ONCE(t->nrec);
	u16 mask;

	/*
	 * A clear swapped the table (and then set the bit): its new one may
	 * be where a freed one was.
	 */
	if (t != c->table || unlikely(test_bit(KTAU_TASK_COUNTERS_STALE,
					       &ktau_current()->flags))) {
		clear_bit(KTAU_TASK_COUNTERS_STALE, &ktau_current()->flags);
		c->table = t;
		c->scanned = 0;
		c->nmatch = 0;
		c->overflow = false;
	}
	if (c->overflow)
		return;
	for (i = c->scanned; i < n; i++) {
		mask = ktau_counters_rec_mask(c, t, i);
		if (!mask)
			continue;
		if (c->nmatch == KTAU_COUNTERS_MATCHES) {
			c->overflow = true;
			return;
		}
		c->match[c->nmatch].rec = i;
		c->match[c->nmatch].mask = mask;
		c->nmatch++;
	}
	c->scanned = n;
}

/* The counters of @c as its thread's table has them now, in @val. */
static void ktau_counters_sum(struct ktau_counters_state *c,
			      struct ktau_counter *val)
{
	const struct ktau_table *t = rcu_dereference(ktau_current()->table);
	unsigned int i, n;
	u16 mask;

	memset(val, 0, c->nr * sizeof(*val));
	ktau_counters_scan(c, t);
	if (!c->overflow) {
		for (i = 0; i < c->nmatch; i++)
			ktau_counters_add(val, &t->rec[c->match[i].rec],
					  c->match[i].mask);
		return;
	}
	n = READ_ONCE(t->nrec);
	for (i = 0; i < n; i++) {
		mask = ktau_counters_rec_mask(c, t, i);
		if (mask)
			ktau_counters_add(val, &t->rec[i], mask);
	}
}

/*
 * Write @c's counters to its area: -EFAULT when the area cannot be
 * written (without faulting it in, unless @may_fault).
 */
static int ktau_counters_write(struct ktau_counters_state *c, bool may_fault)
{
	struct {
		u64 seq;
		struct ktau_counter val[KTAU_COUNTERS_MAX];
	} out;
	size_t len = sizeof(out.seq) + c->nr * sizeof(out.val[0]);
	unsigned long left;

	BUILD_BUG_ON(offsetof(struct ktau_counters, val) !=
		     offsetof(struct ktau_counters, seq) + sizeof(u64));
	rcu_read_lock();
	ktau_counters_sum(c, out.val);
	rcu_read_unlock();
	out.seq = c->seq + 1;
	WRITE_ONCE(c->busy, true);
	barrier();
	if (may_fault) {
		left = copy_to_user(&c->area->seq, &out, len);
	} else {
		pagefault_disable();
		left = copy_to_user(&c->area->seq, &out, len);
		pagefault_enable();
	}
	barrier();
	WRITE_ONCE(c->busy, false);
	if (left)
		return -EFAULT;
	c->seq = out.seq;
	/* what changed during the copy (its own page fault): once more */
	if (READ_ONCE(c->missed)) {
		WRITE_ONCE(c->missed, false);
		set_tsk_thread_flag(current, TIF_NOTIFY_RESUME);
	}
	return 0;
}

/*
 * A system call's exit, interrupts off, for a thread with an area: write
 * it if the call's record @key is one it sums.  Faults are disabled: a
 * page that is not present waits for resume_user_mode_work().
 */
void __ktau_counters_syscall_exit(struct task_struct *tsk, u32 key)
{
	struct ktau_counters_state *c = tsk->ktau.counters;
	unsigned int fid = KTAU_REC_FID(key);

	if (!c->all_syscalls && !(c->syscall_bits & BIT_ULL(fid % 64)))
		return;
	if (ktau_counters_write(c, false))
		set_tsk_thread_flag(tsk, TIF_NOTIFY_RESUME);
}

/*
 * Something else of @tsk was recorded (any context, NMI included): its
 * area is written on its way back to user mode.  A change during the
 * copy out (the copy's own page fault, an interrupt) asks for another
 * write only once the copy succeeded: an area that faults every time
 * must not keep its thread from returning to user mode.
 */
void __ktau_counters_touch(struct task_struct *tsk)
{
	struct ktau_counters_state *c = tsk->ktau.counters;

	if (READ_ONCE(c->busy))
		WRITE_ONCE(c->missed, true);
	else
		set_tsk_thread_flag(tsk, TIF_NOTIFY_RESUME);
}

/* From resume_user_mode_work(): interrupts on, may fault and sleep. */
void __ktau_counters_resume(void)
{
	struct ktau_counters_state *c = ktau_current()->counters;

	if (ktau_counters_write(c, true))
		c->faults++;
}

static void ktau_counters_get(void)
{
	static_branch_deferred_inc(&ktau_counters_key);
}

static void ktau_counters_put(void)
{
	static_branch_slow_dec_deferred(&ktau_counters_key);
}

/* Interrupts off: the exit paths and interrupts read the pointer. */
static void ktau_counters_set(struct ktau_task *kt,
			      struct ktau_counters_state *c)
{
	unsigned long flags;

	local_irq_save(flags);
	kt->counters = c;
	local_irq_restore(flags);
}

/*
 * Check the ids @c was given: -ENOENT for one that names no routine or
 * group, -EINVAL for an event (events have no times).
 */
static int ktau_counters_check_ids(struct ktau_counters_state *c)
{
	unsigned int i;
	int group;
	u32 id;

	for (i = 0; i < c->nr; i++) {
		id = c->ids[i];
		if (id == KTAU_COUNTER_ALL) {
			c->all_syscalls = true;
			continue;
		}
		if (id & KTAU_COUNTER_GROUP) {
			group = id & ~KTAU_COUNTER_GROUP;
			if (group >= KTAU_NR_GROUPS)
				return -ENOENT;
		} else {
			group = ktau_fid_group(id);
			if (group < 0)
				return -ENOENT;
			c->syscall_bits |= BIT_ULL(id % 64);
		}
		if (group == KTAU_GROUP_EVENT)
			return -EINVAL;
		if ((id & KTAU_COUNTER_GROUP) && group == KTAU_GROUP_SYSCALL)
			c->all_syscalls = true;
	}
	return 0;
}

static int ktau_counters_register(unsigned long addr, unsigned long len)
{
	struct ktau_counters __user *area = (void __user *)addr;
	struct ktau_task *kt = ktau_current();
	struct ktau_counters_state *c;
	u32 head[2];
	int err;

	if (!IS_ALIGNED(addr, sizeof(u64)) || len < KTAU_COUNTERS_SIZE(1))
		return -EINVAL;
	if (kt->counters)
		return -EBUSY;
	if (copy_from_user(head, area, sizeof(head)))
		return -EFAULT;
	if (head[0] != KTAU_COUNTERS_VERSION || !head[1] ||
	    head[1] > KTAU_COUNTERS_MAX || len < KTAU_COUNTERS_SIZE(head[1]))
		return -EINVAL;
	c = kzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
	if (!c)
		return -ENOMEM;
	c->area = area;
	c->nr = head[1];
	err = -EFAULT;
	if (copy_from_user(c->ids, area->ids, c->nr * sizeof(c->ids[0])))
		goto fail;
	err = ktau_counters_check_ids(c);
	if (err)
		goto fail;
	/* the first values, before the prctl returns: the area is writable */
	err = ktau_counters_write(c, true);
	if (err)
		goto fail;
	ktau_counters_get();
	ktau_counters_set(kt, c);
	return 0;
fail:
	kfree(c);
	return err;
}

/* Drop @kt's area, if it has one.  Does not sleep. */
void ktau_counters_drop(struct ktau_task *kt)
{
	struct ktau_counters_state *c = kt->counters;

	if (!c)
		return;
	ktau_counters_set(kt, NULL);
	ktau_counters_put();
	kfree(c);
}

/*
 * A forked process (not a thread: CLONE_VM) keeps its parent's area, at
 * the same address of its copy of the memory, with its own counters,
 * written at its first return to user mode.  May sleep.
 */
void ktau_counters_fork(struct task_struct *tsk, u64 clone_flags)
{
	const struct ktau_counters_state *parent = ktau_current()->counters;
	struct ktau_counters_state *c;

	tsk->ktau.counters = NULL;
	if (!parent || (clone_flags & CLONE_VM))
		return;
	c = kzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
	if (!c)
		return;
	c->area = parent->area;
	c->nr = parent->nr;
	memcpy(c->ids, parent->ids, sizeof(c->ids));
	c->syscall_bits = parent->syscall_bits;
	c->all_syscalls = parent->all_syscalls;
	c->seq = parent->seq;
	ktau_counters_get();
	tsk->ktau.counters = c;
	set_tsk_thread_flag(tsk, TIF_NOTIFY_RESUME);
}

/**
 * ktau_counters_prctl() - PR_KTAU_SET_COUNTERS and PR_KTAU_GET_COUNTERS
 * @option: which of the two
 * @arg2: SET: the area's address (8-byte aligned; 0 unregisters); GET: a
 *	u64 pointer that receives the registered address (0 if none)
 * @arg3: SET: the area's length, at least KTAU_COUNTERS_SIZE(nr) (0 to
 *	unregister); GET: a u64 pointer that receives the writes that
 *	faulted, or 0
 * @arg4: must be 0 (SET: flags, none defined yet)
 * @arg5: must be 0
 *
 * Return: 0, -EINVAL (bad alignment, length, version, count or
 * arguments, or an event's id), -ENOENT (an id naming no routine or
 * group; unregistering with none registered), -EFAULT (the area cannot
 * be read or written), -EBUSY (an area is registered already),
 * -ENOMEM.
 */
int ktau_counters_prctl(int option, unsigned long arg2, unsigned long arg3,
			unsigned long arg4, unsigned long arg5)
{
	struct ktau_task *kt = ktau_current();
	u64 addr, faults;

	if (arg4 || arg5)
		return -EINVAL;
	switch (option) {
	case PR_KTAU_SET_COUNTERS:
		if (arg2)
			return ktau_counters_register(arg2, arg3);
		if (arg3)
			return -EINVAL;
		if (!kt->counters)
			return -ENOENT;
		ktau_counters_drop(kt);
		return 0;
	case PR_KTAU_GET_COUNTERS:
		addr = kt->counters ? (unsigned long)kt->counters->area : 0;
		faults = kt->counters ? kt->counters->faults : 0;
		if (put_user(addr, (u64 __user *)arg2))
			return -EFAULT;
		if (arg3 && put_user(faults, (u64 __user *)arg3))
			return -EFAULT;
		return 0;
	default:
		return -EINVAL;
	}
}
