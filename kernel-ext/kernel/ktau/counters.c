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
 * page faults, the scheduler, run-time routines, a general exit) marks
 * the area dirty and sets TIF_NOTIFY_RESUME, and the area is written
 * from resume_user_mode_work(), where it may fault in.  A write that
 * faults there (the area unmapped or made read-only since) is counted
 * (PR_KTAU_GET_COUNTERS) and harms nothing: the next write tries again.
 *
 * A counted call's exit with nothing else recorded since the last write
 * (the area is clean) does not sum: the kernel keeps the values it last
 * wrote, adds the call's own calls, inclusive and exclusive time, which
 * its inline close has just added to its record, to the counters the
 * call feeds (a table of them per system call, made at registration),
 * and stores those alone.
 *
 * Cost: threads without an area pay one no-op at the system call exit
 * and in the out-of-line stops, behind ktau_counters_key, which is
 * deferred as ktau_context_key is (kernel/ktau/context.c): however tasks
 * register and unregister, it changes at most about once a second.  A
 * thread with one takes its system call exit out of line, which keeps
 * everyone else's inline exit as it was.
 */
#include <linux/jump_label_ratelimit.h>
#include <linux/prctl.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <uapi/linux/ktau.h>

#include "internal.h"

DEFINE_STATIC_KEY_DEFERRED_FALSE(ktau_counters_key, HZ);

/*
 * Records an area keeps in its list; past them it sums whole tables.  So
 * many that the state fits in one 2 KiB object.
 */
#define KTAU_COUNTERS_MATCHES	96

/* A record an area sums: its id, the counters it adds to. */
struct ktau_counters_match {
	u16 rec;
	u16 mask;
};

/* The system call function ids, whose records' keys are 2 * (fid + 1). */
#define KTAU_COUNTERS_SYSCALLS	KTAU_FID_STATIC(0)

/*
 * The kernel's side of a thread's area: the ids as registered, the
 * values last written (@out, laid out as the area's seq and val), the
 * counters each system call feeds (@syscall_mask[fid + 1]), and the
 * records of @table (the first @scanned of them looked at) they sum.
 * Only its thread uses it, from its own system calls, interrupts and
 * return to user mode.  Whether @out still is what the table sums is
 * the task's KTAU_TASK_COUNTERS_DIRTY and _STALE: a clear, from another
 * task, sets the second.
 */
struct ktau_counters_state {
	struct ktau_counters __user *area;
	const struct ktau_table *table;
	u64 faults;
	struct {
		u64 seq;
		struct ktau_counter val[KTAU_COUNTERS_MAX];
	} out;
	u32 ids[KTAU_COUNTERS_MAX];
	u32 nr;
	bool busy;			/* being copied out: see touch */
	bool overflow;			/* more records than @match holds */
	u16 scanned;
	u16 nmatch;
	u16 syscall_mask[KTAU_COUNTERS_SYSCALLS + 1];
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
	struct ktau_counter *v;

	/* for_each_set_bit() without its calls, for one bit or two */
	while (mask) {
		v = val + __ffs(mask);
		v->calls += calls;
		v->incl += incl;
		v->excl += excl;
		mask &= mask - 1;
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

/* The counters of @c as its thread's table has them now, in @c->out. */
static void ktau_counters_sum(struct ktau_counters_state *c)
{
	const struct ktau_table *t = rcu_dereference(ktau_current()->table);
	struct ktau_counter *val = c->out.val;
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
 * Sum @c's counters and write them to its area: -EFAULT when the area
 * cannot be written (without faulting it in, unless @may_fault).  The
 * area is clean from the sum on; a recording during the sum or the copy
 * out (the copy's own page fault, an interrupt) makes it dirty again and
 * asks for one more write, once the copy succeeded.
 */
static int ktau_counters_write(struct ktau_counters_state *c, bool may_fault)
{
	size_t len = sizeof(c->out.seq) + c->nr * sizeof(c->out.val[0]);
	unsigned long left;

	BUILD_BUG_ON(offsetof(struct ktau_counters, val) !=
		     offsetof(struct ktau_counters, seq) + sizeof(u64));
	BUILD_BUG_ON(offsetof(typeof(c->out), val) != sizeof(u64));
	clear_bit(KTAU_TASK_COUNTERS_DIRTY, &ktau_current()->flags);
	rcu_read_lock();
	ktau_counters_sum(c);
	rcu_read_unlock();
	c->out.seq++;
	WRITE_ONCE(c->busy, true);
	barrier();
	if (may_fault) {
		left = copy_to_user(&c->area->seq, &c->out, len);
	} else {
		pagefault_disable();
		left = copy_to_user(&c->area->seq, &c->out, len);
		pagefault_enable();
	}
	barrier();
	WRITE_ONCE(c->busy, false);
	if (left) {
		c->out.seq--;
		set_bit(KTAU_TASK_COUNTERS_DIRTY, &ktau_current()->flags);
		return -EFAULT;
	}
	if (test_bit(KTAU_TASK_COUNTERS_DIRTY, &ktau_current()->flags))
		set_tsk_thread_flag(current, TIF_NOTIFY_RESUME);
	return 0;
}

/*
 * pagefault_disable() and pagefault_enable(), inline: a build optimized
 * for size (the bench's tinyconfig) calls them out of line, two calls on
 * a counted exit and the three registers they made it save.
 */
static __always_inline void ktau_counters_faults_off(void)
{
	pagefault_disabled_inc();
	barrier();
}

static __always_inline void ktau_counters_faults_on(void)
{
	barrier();
	pagefault_disabled_dec();
}

/*
 * Add one call of @incl cycles, @excl of them its own, to the counters
 * of @mask in @c->out, and store the sequence and those in the area,
 * faults disabled: false if that faulted.  The sequence first: then the
 * loop needs neither @c nor the area's start, only the two arrays (no
 * register to save; the thread reads its area only once this is done).
 * No call between the access's begin and end (objtool checks it), so no
 * for_each_set_bit().
 */
static __always_inline bool
ktau_counters_add_call(struct ktau_counters_state *c,
		       unsigned long mask, u64 incl, u64 excl)
{
	struct ktau_counters __user *area = c->area;
	struct ktau_counter __user *uval;
	struct ktau_counter *kval = c->out.val;
	unsigned long i;
	bool ok = false;

	ktau_counters_faults_off();
	if (can_do_masked_user_access())
		area = masked_user_access_begin(area);
	else if (!user_write_access_begin(area, KTAU_COUNTERS_SIZE(c->nr)))
		goto out;
	unsafe_put_user(++c->out.seq, &area->seq, efault);
	uval = area->val;
	/* no array index either: a sanitizer's check is a call */
	do {
		i = __ffs(mask);
		unsafe_put_user(++(kval + i)->calls, &(uval + i)->calls, efault);
		unsafe_put_user((kval + i)->incl += incl, &(uval + i)->incl,
				efault);
		unsafe_put_user((kval + i)->excl += excl, &(uval + i)->excl,
				efault);
	} while ((mask &= mask - 1));
	ok = true;
efault:
	user_write_access_end();
out:
	ktau_counters_faults_on();
	return ok;
}

/*
 * A counted call's exit (@mask: the counters it feeds), interrupts off:
 * a clean area gets the call's own time added, which its exit's close
 * has just added to its record (the inline close's: the general exit
 * makes the area dirty); a dirty one is summed.  The call's times are
 * its frame's, read again here: kept from before the close, they would
 * be live across the bytes event and cost every exit two saved
 * registers.
 */
static __always_inline void
ktau_counters_syscall_write(struct ktau_task *kt, unsigned long mask, u64 now)
{
	struct ktau_counters_state *c = kt->counters;
	u64 incl = now - kt->stack[0].start;

	if (likely(!(READ_ONCE(kt->flags) & (BIT(KTAU_TASK_COUNTERS_DIRTY) |
					     BIT(KTAU_TASK_COUNTERS_STALE))))) {
		if (likely(ktau_counters_add_call(c, mask, incl,
						  incl - kt->stack[0].child)))
			return;
		set_bit(KTAU_TASK_COUNTERS_DIRTY, &kt->flags);
	} else if (!ktau_counters_write(c, false)) {
		return;
	}
	set_tsk_thread_flag(current, TIF_NOTIFY_RESUME);
}

/*
 * The exit's general path (@closed false) or its bytes event's, then the
 * area's work for a call that feeds the counters of @mask.  Out of line,
 * so that __ktau_syscall_exit_counted() makes no call it must keep
 * values across (no registers to save on its common path).
 */
static noinline void ktau_counters_exit_slow(struct pt_regs *regs, u64 now,
					     u32 key, unsigned long mask,
					     bool closed)
{
	if (closed)
		__ktau_syscall_bytes(key, regs_return_value(regs));
	else
		ktau_syscall_exit_at(regs, now);
	if (mask)
		ktau_counters_syscall_write(ktau_current(), mask, now);
}

/**
 * __ktau_syscall_exit_counted() - a system call's exit, for a thread
 *	with a shared counter area
 * @regs: the call's registers
 *
 * The exit's timers as any thread's (ktau_syscall_exit_timers()), then
 * the area's work when it sums the call.  Interrupts are off, so faults
 * are disabled: a page that is not present waits for
 * resume_user_mode_work().
 */
void __ktau_syscall_exit_counted(struct pt_regs *regs)
{
	u64 now = ktau_arch_now();
	struct ktau_task *kt = ktau_current();
	struct ktau_table *t = rcu_dereference_raw(kt->table);
	u32 key = kt->stack[0].key;
	/* the byte offset of syscall_mask[fid + 1] */
	unsigned int at = key & KTAU_REC_FID_MASK;
	unsigned long mask = 0;

	BUILD_BUG_ON(KTAU_REC_LOW(1) - KTAU_REC_LOW(0) !=
		     sizeof(kt->counters->syscall_mask[0]));
	if (likely(at < sizeof(kt->counters->syscall_mask)))
		mask = *(u16 *)((u8 *)kt->counters->syscall_mask + at);
	if (unlikely(!ktau_close_root_fast(kt, t, now))) {
		ktau_counters_exit_slow(regs, now, key, mask, false);
		return;
	}
	if (ktau_group_on(KTAU_GROUP_EVENT) && ktau_key_moves_bytes(key) &&
	    unlikely(!ktau_syscall_bytes_try(t, key, regs_return_value(regs)))) {
		ktau_counters_exit_slow(regs, now, key, mask, true);
		return;
	}
	if (mask)
		ktau_counters_syscall_write(kt, mask, now);
}

/*
 * Something else of @tsk was recorded (any context, NMI included): its
 * area is dirty, and written on its way back to user mode.  During a
 * copy out, the write asks for that itself once the copy succeeded: an
 * area that faults every time must not keep its thread from returning
 * to user mode.
 */
void __ktau_counters_touch(struct task_struct *tsk)
{
	struct ktau_counters_state *c = tsk->ktau.counters;

	set_bit(KTAU_TASK_COUNTERS_DIRTY, &tsk->ktau.flags);
	if (!READ_ONCE(c->busy))
		set_tsk_thread_flag(tsk, TIF_NOTIFY_RESUME);
}

/* From resume_user_mode_work(): interrupts on, may fault and sleep. */
void __ktau_counters_resume(void)
{
	struct ktau_counters_state *c = ktau_current()->counters;

	if (test_bit(KTAU_TASK_COUNTERS_DIRTY, &ktau_current()->flags) &&
	    ktau_counters_write(c, true))
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
 * Check the ids @c was given, -ENOENT for one that names no routine or
 * group, -EINVAL for an event (events have no times); then note the
 * counters each system call feeds.
 */
static int ktau_counters_check_ids(struct ktau_counters_state *c)
{
	unsigned int i;
	int group;
	u32 id;

	for (i = 0; i < c->nr; i++) {
		id = c->ids[i];
		if (id == KTAU_COUNTER_ALL)
			continue;
		if (id & KTAU_COUNTER_GROUP) {
			group = id & ~KTAU_COUNTER_GROUP;
			if (group >= KTAU_NR_GROUPS)
				return -ENOENT;
		} else {
			group = ktau_fid_group(id);
			if (group < 0)
				return -ENOENT;
		}
		if (group == KTAU_GROUP_EVENT)
			return -EINVAL;
	}
	for (i = 0; i < KTAU_COUNTERS_SYSCALLS; i++)
		c->syscall_mask[i + 1] = ktau_counters_fid_mask(c, i);
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
	BUILD_BUG_ON(sizeof(*c) > 2048);
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
	memcpy(c->syscall_mask, parent->syscall_mask, sizeof(c->syscall_mask));
	c->out.seq = parent->out.seq;
	set_bit(KTAU_TASK_COUNTERS_DIRTY, &tsk->ktau.flags);
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
