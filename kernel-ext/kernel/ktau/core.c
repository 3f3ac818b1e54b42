// SPDX-License-Identifier: GPL-2.0
/*
 * KTAU recording core: the start/stop timers behind the instrumentation
 * hooks and the per-task profile tables they fill.
 *
 * Every update of a task's profile happens in that task's context (or in
 * an interrupt taken while it runs) with interrupts disabled, so a timer
 * is never torn by an interrupt that starts or stops another timer on the
 * same task.  Readers on other CPUs see the table through RCU; a table
 * that grows is replaced and the old one freed after a grace period.
 */
#include <linux/export.h>
#include <linux/hash.h>
#include <linux/math.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/timex.h>
#include <asm/unistd.h>

#include "internal.h"

/* Modules test the keys inline, in KTAU_START() and ktau_event(). */
struct static_key_false ktau_group_keys[KTAU_NR_GROUPS] = {
	[0 ... KTAU_NR_GROUPS - 1] = STATIC_KEY_FALSE_INIT,
};
EXPORT_SYMBOL_GPL(ktau_group_keys);

DEFINE_STATIC_KEY_FALSE(ktau_sysentry_key);
DEFINE_STATIC_KEY_FALSE(ktau_sysfast_key);

union ktau_gens ktau_gens;
atomic64_t ktau_lost_tasks = ATOMIC64_INIT(0);

static struct kmem_cache *ktau_table_mid_cache;
static DEFINE_MUTEX(ktau_sysentry_lock);

/* The bytes of the allocation that holds @t (see KTAU_TABLE_MIN_BYTES). */
static size_t ktau_table_alloc_bytes(const struct ktau_table *t)
{
	size_t bytes;

	if (!t)
		return 0;
	bytes = struct_size(t, slot, t->slots);
	if (bytes > KTAU_TABLE_MIN_BYTES && bytes <= KTAU_TABLE_MID_BYTES)
		return KTAU_TABLE_MID_BYTES;
	return kmalloc_size_roundup(bytes);
}

/* kfree() and kfree_rcu() take either kind of allocation. */
static struct ktau_table *ktau_table_alloc(size_t bytes, gfp_t gfp)
{
	struct ktau_table *t;

	if (bytes == KTAU_TABLE_MID_BYTES)
		t = kmem_cache_zalloc(ktau_table_mid_cache, gfp);
	else
		t = kzalloc(bytes, gfp);
	if (t)
		t->slots = (bytes - sizeof(*t)) / sizeof(t->slot[0]);
	return t;
}

/*
 * Called at fork, on the copy of the parent's task_struct.  A forked
 * process keeps its parent's user context word, at the same address of
 * its copy of the memory; a new thread registers its own.
 */
void ktau_task_init(struct task_struct *tsk, u64 clone_flags)
{
	struct ktau_task *parent = &current->ktau;
	struct ktau_task *kt = &tsk->ktau;

	memset(kt, 0, sizeof(*kt));
	kt->gens.both = READ_ONCE(ktau_gens.both);
	if (!(clone_flags & CLONE_VM)) {
		kt->ctx_word = parent->ctx_word;
		kt->ctx_key = parent->ctx_key;
	}
}

void ktau_task_free(struct task_struct *tsk)
{
	struct ktau_task *kt = &tsk->ktau;

	kfree(rcu_dereference_protected(kt->table, 1));
	RCU_INIT_POINTER(kt->table, NULL);
}

static __always_inline struct ktau_entry *ktau_probe(struct ktau_table *t,
						     u64 key)
{
	/* The high bits of a multiplicative hash, scaled to the slots. */
	unsigned int i = ((u128)(key * GOLDEN_RATIO_64) * t->slots) >> 64;

	for (;;) {
		struct ktau_entry *e = &t->slot[i];

		if (e->key == key || !e->key)
			return e;
		if (++i == t->slots)
			i = 0;
	}
}

static struct ktau_table *ktau_table_grow(struct ktau_table __rcu **tp,
					  struct ktau_table *old)
{
	size_t bytes = ktau_table_alloc_bytes(old);
	struct ktau_table *t;
	unsigned int i;

	if (!bytes)
		bytes = KTAU_TABLE_MIN_BYTES;
	else if (bytes == KTAU_TABLE_MIN_BYTES)
		bytes = KTAU_TABLE_MID_BYTES;
	else if (bytes == KTAU_TABLE_MID_BYTES)
		bytes = 2 * KTAU_TABLE_MIN_BYTES;
	else
		bytes *= 2;

	if (bytes > KTAU_TABLE_MAX_BYTES)
		return NULL;
	t = ktau_table_alloc(bytes, GFP_ATOMIC | __GFP_NOWARN);
	if (!t)
		return NULL;
	if (old) {
		for (i = 0; i < old->slots; i++) {
			if (old->slot[i].key)
				*ktau_probe(t, old->slot[i].key) = old->slot[i];
		}
		t->used = old->used;
	}
	rcu_assign_pointer(*tp, t);
	if (old)
		kfree_rcu(old, rcu);
	return t;
}

static bool ktau_table_full(const struct ktau_table *t, unsigned int used)
{
	if (struct_size(t, slot, t->slots) <= KTAU_TABLE_MID_BYTES)
		return 8 * used > 7 * t->slots;
	return 4 * used > 3 * t->slots;
}

/*
 * The entry of @key in the table at @tp, inserted (and the table made or
 * grown) if new; NULL when there is no room.  The caller is the only
 * writer of the table: its task with interrupts off, or a fold under the
 * process's stats_lock.
 */
struct ktau_entry *ktau_table_entry(struct ktau_table __rcu **tp, u64 key)
{
	struct ktau_table *t = rcu_dereference_raw(*tp);
	struct ktau_entry *e;

	if (unlikely(!t)) {
		t = ktau_table_grow(tp, NULL);
		if (!t)
			return NULL;
	}
	e = ktau_probe(t, key);
	if (likely(e->key))
		return e;
	/*
	 * Linear probing always ends at a free slot, and stays short: a
	 * table grows at 7/8 full while it is small (most tasks never leave
	 * the first two sizes, see KTAU_TABLE_MIN_BYTES), at 3/4 after.
	 */
	if (ktau_table_full(t, t->used + 1)) {
		t = ktau_table_grow(tp, t);
		if (!t)
			return NULL;
		e = ktau_probe(t, key);
	}
	t->used++;
	WRITE_ONCE(e->key, key);
	return e;
}

/*
 * ktau_table_entry() for the hot paths: a key already in the table is
 * found inline; inserting (and growing) stays out of line.
 */
static __always_inline struct ktau_entry *
ktau_table_find(struct ktau_table __rcu **tp, u64 key)
{
	struct ktau_table *t = rcu_dereference_raw(*tp);

	if (likely(t)) {
		struct ktau_entry *e = ktau_probe(t, key);

		if (likely(e->key == key))
			return e;
	}
	return ktau_table_entry(tp, key);
}

/* An event's count, minimum and maximum (the other entry has the sums). */
void ktau_range_add(struct ktau_entry *e, u64 count, u64 min, u64 max)
{
	if (!e->calls || min < e->incl)
		WRITE_ONCE(e->incl, min);
	if (!e->calls || max > e->excl)
		WRITE_ONCE(e->excl, max);
	WRITE_ONCE(e->calls, e->calls + count);
}

/* Add every entry of @src to the table at @dst; returns entries lost. */
unsigned int ktau_table_fold(struct ktau_table __rcu **dst,
			     const struct ktau_table *src)
{
	unsigned int i, lost = 0;

	if (!src)
		return 0;
	for (i = 0; i < src->slots; i++) {
		const struct ktau_entry *s = &src->slot[i];
		struct ktau_entry *e;

		if (!s->key || !s->calls)
			continue;
		e = ktau_table_entry(dst, s->key);
		if (!e)
			lost++;
		else if (KTAU_KEY_PARENT(s->key) == KTAU_EVENT_RANGE)
			ktau_range_add(e, s->calls, s->incl, s->excl);
		else
			ktau_entry_add(e, s->calls, s->incl, s->excl);
	}
	return lost;
}

/* Empty the task's table after a clear; only its owner writes it. */
static void ktau_task_reset(struct ktau_task *kt)
{
	struct ktau_table *old = rcu_dereference_raw(kt->table);

	RCU_INIT_POINTER(kt->table, NULL);
	if (old)
		kfree_rcu(old, rcu);
	/* Hints into the old table may be beyond the next one's slots. */
	memset(kt->slot_hint, 0, sizeof(kt->slot_hint));
	kt->dropped = 0;
	WRITE_ONCE(kt->gens.table, READ_ONCE(ktau_gens.table));
}

/* Add one call to @key's entry, which it returns (NULL: dropped). */
static __always_inline struct ktau_entry *
ktau_account(struct ktau_task *kt, u64 key, u64 incl, u64 excl)
{
	struct ktau_entry *e;

	if (unlikely(ktau_task_cleared(kt)))
		ktau_task_reset(kt);
	e = ktau_table_find(&kt->table, key);

	if (likely(e))
		ktau_entry_add(e, 1, incl, excl);
	else
		kt->dropped++;
	return e;
}

static u64 ktau_square_sat(u64 v)
{
	u64 sq;

	return check_mul_overflow(v, v, &sq) ? U64_MAX : sq;
}

static void ktau_account_event(struct ktau_task *kt, unsigned int fid,
			       u64 value)
{
	u64 sum_key = kt->ctx_key | KTAU_KEY(0, KTAU_EVENT_SUM, fid);
	u64 range_key = kt->ctx_key | KTAU_KEY(0, KTAU_EVENT_RANGE, fid);
	struct ktau_entry *sum, *range;
	u64 sumsq;
	struct ktau_table *t;

	if (unlikely(ktau_task_cleared(kt)))
		ktau_task_reset(kt);
	sum = ktau_table_find(&kt->table, sum_key);
	t = rcu_dereference_raw(kt->table);
	range = sum ? ktau_table_find(&kt->table, range_key) : NULL;
	if (unlikely(!range)) {
		kt->dropped++;
		return;
	}
	/* Inserting the range entry grew the table: the sum entry moved. */
	if (unlikely(rcu_dereference_raw(kt->table) != t))
		sum = ktau_table_find(&kt->table, sum_key);
	if (check_add_overflow(sum->excl, ktau_square_sat(value), &sumsq))
		sumsq = U64_MAX;
	WRITE_ONCE(sum->calls, sum->calls + 1);
	WRITE_ONCE(sum->incl, sum->incl + value);
	WRITE_ONCE(sum->excl, sumsq);
	ktau_range_add(range, 1, value, value);
}

static void ktau_push(struct ktau_task *kt, unsigned int fid, u64 now)
{
	struct ktau_frame *f;
	unsigned int gen = READ_ONCE(ktau_gens.stack);
	u64 caller;

	ktau_handlers(fid, KTAU_HANDLER_START, now);
	if (unlikely(kt->gens.stack != gen)) {
		kt->gens.stack = gen;
		kt->depth = 0;
		kt->overflow = 0;
	}
	if (unlikely(kt->depth >= KTAU_MAX_DEPTH)) {
		kt->overflow++;
		kt->dropped++;
		return;
	}
	/* The caller's fid + 1 is the low part of the caller's key. */
	caller = kt->depth ? kt->stack[kt->depth - 1].key & 0xffff :
			     KTAU_NO_PARENT;
	f = &kt->stack[kt->depth];
	f->key = kt->ctx_key | KTAU_KEY(0, caller, fid);
	f->child = 0;
	f->start = now;
	kt->depth++;
}

/*
 * Close the innermost open frame of @fid.  Frames above it lost their
 * stop (their group was switched off meanwhile) and are discarded; a stop
 * with no matching frame (its start was switched off) records nothing.
 */
static void ktau_pop(struct ktau_task *kt, unsigned int fid, u64 now)
{
	struct ktau_frame *f;
	unsigned int i = kt->depth;
	u64 incl, excl;

	if (unlikely(kt->overflow)) {
		kt->overflow--;
		return;
	}
	while (i && ktau_frame_fid(&kt->stack[i - 1]) != fid)
		i--;
	if (unlikely(!i))
		return;
	f = &kt->stack[i - 1];
	kt->depth = i - 1;
	incl = now - f->start;
	excl = ktau_excl(incl, f->child);
	ktau_account(kt, f->key, incl, excl);
	ktau_handlers(fid, KTAU_HANDLER_STOP, now);
	if (kt->depth)
		kt->stack[kt->depth - 1].child += incl;
}

/* Close every open frame now, innermost first.  Interrupts are off. */
void ktau_unwind(struct ktau_task *kt)
{
	u64 now = ktau_now();

	kt->overflow = 0;
	if (kt->gens.stack != READ_ONCE(ktau_gens.stack))
		kt->depth = 0;
	while (kt->depth)
		ktau_pop(kt, ktau_frame_fid(&kt->stack[kt->depth - 1]), now);
}

/*
 * Idle tasks have no /proc entry to show a profile in; NMIs are not
 * masked by local_irq_save(), so they must never touch a table.
 */
static __always_inline bool ktau_may_record(void)
{
	return !is_idle_task(current) && !in_nmi();
}

/*
 * The kernel was entered from user mode, where nothing of this task can
 * be open: start from an empty stack, which also drops frames whose stop
 * was missed while a group was switched off.
 */
static void ktau_stack_reset(struct ktau_task *kt)
{
	kt->depth = 0;
	kt->overflow = 0;
}

/*
 * Start timing @fid on current.  @from_user: the kernel was entered from
 * user mode, where nothing of this task can be open.
 */
static void ktau_start_at(unsigned int fid, bool from_user)
{
	struct ktau_task *kt;
	unsigned long flags;

	if (unlikely(!ktau_may_record()))
		return;
	local_irq_save(flags);
	kt = ktau_current();
	if (from_user)
		ktau_stack_reset(kt);
	ktau_push(kt, fid, ktau_now());
	local_irq_restore(flags);
}

void ktau_start(unsigned int fid)
{
	ktau_start_at(fid, false);
}

void ktau_stop(unsigned int fid)
{
	u64 now = ktau_now();
	unsigned long flags;

	if (unlikely(!ktau_may_record()))
		return;
	local_irq_save(flags);
	ktau_pop(ktau_current(), fid, now);
	local_irq_restore(flags);
}

void __ktau_softirq_enter(unsigned int vec)
{
	ktau_start(KTAU_FID_STATIC(KTAU_SP_SOFTIRQ + vec));
}

void __ktau_softirq_exit(unsigned int vec)
{
	ktau_stop(KTAU_FID_STATIC(KTAU_SP_SOFTIRQ + vec));
}

void __ktau_irq_enter(void)
{
	ktau_start(KTAU_FID_STATIC(KTAU_SP_IRQ));
}

void __ktau_irq_exit(void)
{
	ktau_stop(KTAU_FID_STATIC(KTAU_SP_IRQ));
}

void __ktau_fault_enter(bool user_mode)
{
	ktau_start_at(KTAU_FID_STATIC(KTAU_SP_PAGE_FAULT), user_mode);
}

void __ktau_fault_exit(void)
{
	ktau_stop(KTAU_FID_STATIC(KTAU_SP_PAGE_FAULT));
}

void __ktau_schedule_enter(bool voluntary)
{
	ktau_start(KTAU_FID_STATIC(voluntary ? KTAU_SP_SCHEDULE_VOL :
					       KTAU_SP_SCHEDULE_INVOL));
}

/* Whichever kind of schedule frame the task opened is on top now. */
void __ktau_schedule_exit(void)
{
	struct ktau_task *kt = ktau_current();
	unsigned int top;

	if (!kt->depth)
		return;
	top = ktau_frame_fid(&kt->stack[kt->depth - 1]);
	if (top == KTAU_FID_STATIC(KTAU_SP_SCHEDULE_VOL) ||
	    top == KTAU_FID_STATIC(KTAU_SP_SCHEDULE_INVOL))
		ktau_stop(top);
}

/*
 * A 64-bit system call's entry when ktau_syscall_enter() cannot take its
 * inline path: the context word, handlers, x32 and invalid numbers.
 * Number -1 asks for nothing (do_syscall_64() runs nothing for it):
 * nothing is recorded.  Interrupts are off.
 */
long __ktau_syscall_enter(const struct pt_regs *regs, long nr)
{
	struct ktau_task *kt = ktau_current();

	if (static_branch_unlikely(&ktau_context_key))
		__ktau_enter_from_user();
	if (!ktau_group_on(KTAU_GROUP_SYSCALL))
		return nr;
	ktau_stack_reset(kt);
	if (nr != -1)
		ktau_push(kt, ktau_sys64_fid(nr), ktau_now());
	return nr;
}

/*
 * The entry work (seccomp, ptrace, a tracepoint program) ran and may
 * have changed the number, to -1 when the call is skipped.  Interrupts
 * are on.  The ia32 paths open their frame after the entry work, with
 * the final number.
 */
long __ktau_syscall_renumber(long nr)
{
	struct ktau_task *kt;
	unsigned long flags;

	if (in_ia32_syscall())
		return nr;
	local_irq_save(flags);
	kt = ktau_current();
	if (kt->depth && kt->gens.stack == READ_ONCE(ktau_gens.stack)) {
		if (nr == -1) {
			kt->depth = 0;
			kt->overflow = 0;
		} else {
			kt->stack[0].key = kt->ctx_key |
				KTAU_KEY(0, KTAU_NO_PARENT, ktau_sys64_fid(nr));
		}
	}
	local_irq_restore(flags);
	return nr;
}

/* The ia32 paths: the number is settled, interrupts are on. */
void __ktau_ia32_syscall_enter(long nr)
{
	struct ktau_task *kt;
	unsigned long flags;

	local_irq_save(flags);
	kt = ktau_current();
	ktau_stack_reset(kt);
	if (nr != -1)
		ktau_push(kt, ktau_ia32_fid(nr), ktau_now());
	local_irq_restore(flags);
}

/* The bytes a read() or write() moved, as the atomic events of each. */
static void ktau_syscall_bytes(struct ktau_task *kt, u64 key, long ret)
{
	unsigned int fid;
	u64 value = ret;

	if (ret < 0 || !ktau_group_on(KTAU_GROUP_EVENT))
		return;
	fid = KTAU_FID_STATIC(KTAU_KEY_FID(key) == __NR_read ?
			      KTAU_SP_READ_BYTES : KTAU_SP_WRITE_BYTES);
	ktau_account_event(kt, fid, value);
	ktau_handlers(fid, KTAU_HANDLER_EVENT, value);
}

/*
 * ktau_account() of the syscall frame @f, which also leaves the slot of
 * its entry as the hint ktau_syscall_exit_fast() tries first.
 */
static void ktau_syscall_account(struct ktau_task *kt,
				 const struct ktau_frame *f, u64 now)
{
	u64 incl = now - f->start;
	struct ktau_entry *e;
	size_t slot;

	e = ktau_account(kt, f->key, incl, ktau_excl(incl, f->child));
	if (unlikely(!e))
		return;
	slot = e - rcu_dereference_raw(kt->table)->slot;
	if (slot <= KTAU_SLOT_HINT_MAX)
		kt->slot_hint[f->key % KTAU_SLOT_HINTS] = slot;
}

/*
 * ktau_syscall_exit_fast() indexes the table by a hint without a bounds
 * check: CONFIG_KTAU_DEBUG checks here that every hint is below the slots.
 */
static void ktau_check_hints(const struct ktau_task *kt)
{
	const struct ktau_table *t = rcu_dereference_raw(kt->table);
	unsigned int i;

	if (!IS_ENABLED(CONFIG_KTAU_DEBUG) || !t)
		return;
	for (i = 0; i < KTAU_SLOT_HINTS; i++)
		WARN_ON_ONCE(kt->slot_hint[i] >= t->slots);
}

/*
 * A system call's exit when ktau_syscall_exit_fast() cannot take it:
 * nothing open (a new task's first return, or the group was switched on
 * during the call), frames left above the syscall's (their stop was
 * missed: discarded, as ktau_pop() does), a clear since the table was
 * filled, a key that is not where its hint says (or not yet in the
 * table), handlers, the bytes of reads and writes.  Interrupts are off.
 */
void __ktau_syscall_exit(struct pt_regs *regs, u64 now)
{
	struct ktau_task *kt = ktau_current();
	struct ktau_frame *f = &kt->stack[0];

	if (!kt->depth || kt->gens.stack != READ_ONCE(ktau_gens.stack)) {
		ktau_stack_reset(kt);
		return;
	}
	kt->depth = 1;
	kt->overflow = 0;
	if (ktau_key_moves_bytes(f->key))
		ktau_syscall_bytes(kt, f->key, regs_return_value(regs));
	kt->depth = 0;
	ktau_syscall_account(kt, f, now);
	ktau_check_hints(kt);
	ktau_handlers(ktau_frame_fid(f), KTAU_HANDLER_STOP, now);
}

/* Counts what a site could not record, e.g. for want of a function id. */
void ktau_count_dropped(void)
{
	struct ktau_task *kt;
	unsigned long flags;

	if (unlikely(!ktau_may_record()))
		return;
	local_irq_save(flags);
	kt = ktau_current();
	kt->dropped++;
	local_irq_restore(flags);
}

static bool ktau_fid_recording(int fid)
{
	int group;

	if (unlikely(fid < 0)) {
		ktau_count_dropped();
		return false;
	}
	group = ktau_fid_group(fid);
	return group >= 0 && static_key_enabled(&ktau_group_keys[group]);
}

/* Start timing @fid (from ktau_get_fid()) if its group is recording. */
void ktau_start_fid(int fid)
{
	if (ktau_fid_recording(fid))
		ktau_start(fid);
}
EXPORT_SYMBOL_GPL(ktau_start_fid);

void ktau_stop_fid(int fid)
{
	if (ktau_fid_recording(fid))
		ktau_stop(fid);
}
EXPORT_SYMBOL_GPL(ktau_stop_fid);

void __ktau_event(int fid, u64 value)
{
	struct ktau_task *kt;
	unsigned long flags;

	if (unlikely(fid < 0 || fid >= ktau_nr_fids())) {
		ktau_count_dropped();
		return;
	}
	if (unlikely(!ktau_may_record()))
		return;
	local_irq_save(flags);
	kt = ktau_current();
	ktau_account_event(kt, fid, value);
	ktau_handlers(fid, KTAU_HANDLER_EVENT, value);
	local_irq_restore(flags);
}
EXPORT_SYMBOL_GPL(__ktau_event);

static void ktau_static_key_set(struct static_key_false *key, bool on)
{
	if (on && !static_key_enabled(key))
		static_branch_enable(key);
	else if (!on && static_key_enabled(key))
		static_branch_disable(key);
}

/*
 * Keep the system call keys in step with the syscall group, the context
 * key and the handler key, any of which may change.  The inline timers'
 * key is only tested under the entry key and the syscall group's, so
 * the order of the switches does not matter.
 */
void ktau_sysentry_update(void)
{
	bool syscall, context, handler;

	mutex_lock(&ktau_sysentry_lock);
	syscall = static_key_enabled(&ktau_group_keys[KTAU_GROUP_SYSCALL]);
	context = static_key_enabled(&ktau_context_key);
	handler = static_key_enabled(&ktau_handler_key);
	ktau_static_key_set(&ktau_sysentry_key, syscall || context);
	ktau_static_key_set(&ktau_sysfast_key, syscall && !context && !handler);
	mutex_unlock(&ktau_sysentry_lock);
}

/* The bytes task profiles take: the task part and its table. */
void ktau_memory_usage(unsigned long *tasks, unsigned long *bytes)
{
	struct task_struct *p, *t;
	unsigned long n = 0, b = 0;

	rcu_read_lock();
	for_each_process_thread(p, t) {
		n++;
		b += sizeof(t->ktau);
		b += ktau_table_alloc_bytes(rcu_dereference(t->ktau.table));
	}
	rcu_read_unlock();
	*tasks = n;
	*bytes = b;
}

static int __init ktau_init(void)
{
	int ret;

	BUILD_BUG_ON(NR_syscalls != KTAU_NR_SYSCALL64);
	ktau_table_mid_cache = kmem_cache_create("ktau_table_768",
						 KTAU_TABLE_MID_BYTES, 0,
						 SLAB_PANIC, NULL);
	ret = ktau_fid_init();
	if (ret)
		return ret;
	return ktau_proc_init();
}
core_initcall(ktau_init);
