// SPDX-License-Identifier: GPL-2.0
/*
 * KTAU recording core: the start/stop timers behind the instrumentation
 * hooks, and the records of kernel callpaths they fill.
 *
 * Every update of a task's profile happens in that task's context (or in
 * an interrupt taken while it runs) with interrupts disabled, so a timer
 * is never torn by an interrupt that starts or stops another timer on the
 * same task, and never allocates: a task's table grows on its way back
 * to user mode (kernel threads: through a worker), and until then a new
 * callpath that finds no room is counted as dropped.  Readers on other
 * CPUs see the table through RCU.
 */
#include <linux/cred.h>
#include <linux/export.h>
#include <linux/irq_work.h>
#include <linux/llist.h>
#include <linux/overflow.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/task_work.h>
#include <linux/workqueue.h>
#include <asm/unistd.h>

#include "internal.h"
#include "trace.h"

/* Modules test the keys inline, in KTAU_START() and ktau_event(). */
struct static_key_false ktau_group_keys[KTAU_NR_GROUPS] = {
	[0 ... KTAU_NR_GROUPS - 1] = STATIC_KEY_FALSE_INIT,
};
EXPORT_SYMBOL_GPL(ktau_group_keys);

DEFINE_STATIC_KEY_FALSE(ktau_sysfast_key);
DEFINE_STATIC_KEY_FALSE(ktau_fast_key);

/* schedule()'s hooks: set while the scheduler group's key is on. */
DEFINE_STATIC_CALL_NULL(ktau_switch_out_call, __ktau_switch_out);
DEFINE_STATIC_CALL_NULL(ktau_switch_in_call, __ktau_switch_in);

/* Every system call reads ktau_gen_state; control changes are rare. */
u32 ktau_gen __read_mostly;
u64 ktau_gen_state __read_mostly = 1;
u32 ktau_group_gen[KTAU_NR_GROUPS] __read_mostly;

/* Calls dropped by tasks that have no table at all. */
atomic64_t ktau_dropped_untabled = ATOMIC64_INIT(0);

/*
 * Idle tasks have no /proc entry to show a profile in; NMIs are not
 * masked by local_irq_save(), so they must never touch a table; an
 * exited task's profile has been folded into its process's.
 */
static __always_inline bool ktau_may_record(void)
{
	return !is_idle_task(current) && !in_nmi() &&
	       !test_bit(KTAU_TASK_DEAD, &current->ktau.flags);
}

static struct ktau_table *ktau_task_table(const struct ktau_task *kt)
{
	return rcu_dereference_raw(kt->table);
}

static void ktau_drop_calls(struct ktau_task *kt, u64 calls)
{
	struct ktau_table *t = ktau_task_table(kt);

	if (t == ktau_empty_table)
		atomic64_add(calls, &ktau_dropped_untabled);
	else
		WRITE_ONCE(*ktau_table_dropped(t),
			   *ktau_table_dropped(t) + calls);
}

static void ktau_drop(struct ktau_task *kt)
{
	ktau_drop_calls(kt, 1);
}

/* ---- frames and control generations ---------------------------------- */

static unsigned int ktau_frame_fid(const struct ktau_task *kt, unsigned int i)
{
	return ktau_key_fid(ktau_frame_key(kt, i));
}

static bool ktau_group_changed(unsigned int group, u32 valid_gen)
{
	return ktau_gen_after(READ_ONCE(ktau_group_gen[group]), valid_gen);
}

/*
 * Frame @i of @kt, valid as of control generation @valid_gen, has missed
 * a change of its group since: its stop may never come, or its start
 * was under other rules.
 */
bool ktau_stack_frame_stale(const struct ktau_task *kt, unsigned int i,
			    u32 valid_gen)
{
	int group = ktau_fid_group(ktau_frame_fid(kt, i));

	return group < 0 || ktau_group_changed(group, valid_gen);
}

/*
 * Bring the task's stack up to the current control generation: the
 * first frame whose group changed since the stack was last known valid
 * goes, and every frame above it, whose records would hang under it.
 * Starts kept beyond KTAU_MAX_DEPTH only by their groups: if one of
 * those changed, the whole stack goes (their stops would otherwise close
 * kept frames of the same routine).
 */
static noinline void ktau_stack_revalidate(struct ktau_task *kt, u32 gen)
{
	unsigned int i, n;

	n = min_t(unsigned int, kt->depth, KTAU_MAX_DEPTH);
	for (i = 0; i < n; i++) {
		if (ktau_stack_frame_stale(kt, i, kt->gen)) {
			kt->depth = i;
			break;
		}
	}
	if (kt->depth > KTAU_MAX_DEPTH) {
		unsigned long groups = kt->stack[KTAU_MAX_DEPTH - 1].deeper_groups;
		unsigned int g;

		for_each_set_bit(g, &groups, KTAU_NR_GROUPS) {
			if (ktau_group_changed(g, kt->gen))
				kt->depth = 0;
		}
	}
	kt->gen = gen;
}

/* Every hook checks this; control changes are rare. */
static __always_inline void ktau_stack_check(struct ktau_task *kt)
{
	u32 gen = READ_ONCE(ktau_gen);

	if (unlikely(kt->gen != gen))
		ktau_stack_revalidate(kt, gen);
}

/* Nothing of a task is open while it runs in user mode. */
static void ktau_stack_reset(struct ktau_task *kt)
{
	kt->depth = 0;
	kt->gen = READ_ONCE(ktau_gen);
}

/* ---- records ------------------------------------------------------- */

/*
 * One table of the second size per CPU, for a task whose first table
 * fills before it can grow: a user task grows on its way back to user
 * mode, and one system call (execve(), with the faults and interrupts
 * under it) may add more callpaths than a first table holds.  Also for
 * a task that has none when it first records (forked as recording
 * started, and missed by the start's walk of the tasks).  Taking it
 * allocates nothing; a worker makes the next one.  It is charged to
 * root's account (user.c), not to the task's memory cgroup, until a user
 * task takes it: then to the task's user, within that user's limit.
 */
#define KTAU_TABLE_RESERVE_RECORDS	KTAU_TABLE_NEXT_RECORDS

static DEFINE_PER_CPU(struct ktau_table *, ktau_reserve);

static void ktau_reserve_refill(struct work_struct *work)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct ktau_table **slot = per_cpu_ptr(&ktau_reserve, cpu);
		struct ktau_table *t;

		if (READ_ONCE(*slot))
			continue;
		t = ktau_table_new(KTAU_TABLE_RESERVE_RECORDS, GFP_KERNEL);
		if (!t)
			return;
		if (cmpxchg(slot, NULL, t))
			ktau_table_free(t);
		cond_resched();
	}
}

static DECLARE_WORK(ktau_reserve_work, ktau_reserve_refill);

static void ktau_queue_work(struct work_struct *work);

/*
 * This CPU's reserve table for @tsk, or NULL.  Interrupts are off.  A
 * user task's is charged to its (real) user, who must have room for it:
 * a user at its limit drops its own records, not root's.  A user that
 * has no account yet (nothing charged) cannot get one here, where
 * nothing is allocated: the table stays root's until the task's return
 * to user mode copies it into one of the user's (ktau_grow_task_work()).
 */
static struct ktau_table *ktau_reserve_take(struct task_struct *tsk)
{
	/* a locked xchg: the worker fills the slot from another CPU */
	struct ktau_table *t = xchg(this_cpu_ptr(&ktau_reserve), NULL);
	int ret = 0;

	if (!t)
		return NULL;
	if (!(tsk->flags & PF_KTHREAD))
		ret = ktau_table_recharge(t, task_uid(tsk));
	if (ret == -EDQUOT) {
		/* back in its slot: no refill, which would wake a worker */
		if (cmpxchg(this_cpu_ptr(&ktau_reserve), NULL, t))
			ktau_table_free_rcu(t);
		return NULL;
	}
	ktau_queue_work(&ktau_reserve_work);
	if (ret == -ENOENT)
		ktau_grow_request(tsk, t);
	return t;
}

/*
 * Full @t of @tsk: take a bigger table made ready for it (a kernel
 * thread's spare, which its worker left) or, for a first-size table or
 * none (the empty table of a task forked while nothing recorded), this
 * CPU's reserve.  Returns the task's table, bigger if one was taken.
 */
static noinline struct ktau_table *ktau_task_outgrow(struct task_struct *tsk,
						     struct ktau_table *t)
{
	struct ktau_task *kt = &tsk->ktau;
	struct ktau_table *bigger = NULL;
	bool spare = false;

	/* user tasks have no spare: grow_work shares its place */
	if ((tsk->flags & PF_KTHREAD) && READ_ONCE(kt->spare)) {
		bigger = xchg(&kt->spare, NULL);
		spare = !!bigger;
	}
	if (!bigger && t->maxrec <= KTAU_TABLE_MIN_RECORDS)
		bigger = ktau_reserve_take(tsk);
	if (!bigger)
		return t;
	if (bigger->maxrec > t->maxrec) {
		ktau_table_copy(bigger, t);
		if (cmpxchg((struct ktau_table __force **)&kt->table,
			    t, bigger) == t) {
			ktau_table_free_rcu(t);
			/* the worker's spare came: a later fill asks again */
			if (spare)
				clear_bit(KTAU_TASK_GROWING, &kt->flags);
			return bigger;
		}
		/* A clear replaced the table meanwhile. */
		t = ktau_task_table(kt);
	}
	ktau_table_free_rcu(bigger);
	return t;
}

/*
 * Add a record for @key to the task's table: NULL when there is no room
 * now and no bigger table is ready (ktau_task_outgrow()).  Past 3/4 of
 * the table, ask for a bigger one.
 */
static struct ktau_entry *ktau_task_add(struct task_struct *tsk,
					struct ktau_table *t, u32 key)
{
	struct ktau_entry *e;

	if (unlikely(t->nrec >= t->maxrec))
		t = ktau_task_outgrow(tsk, t);
	e = ktau_table_add(t, key);
	if (unlikely(4 * t->nrec >= 3 * t->maxrec))
		ktau_grow_request(tsk, t);
	return e;
}

/*
 * Record @e of current's table, just found by its key through the index,
 * whose count carried (KTAU_REC_CARRIED): its carry record gets the
 * carry and its key loses the bit, so that its hints match it again.
 * Returns the record, NULL when the task's table changed and lost it.
 * Interrupts are off.
 */
static struct ktau_entry *ktau_rec_uncarry(struct task_struct *tsk,
					   struct ktau_entry *e)
{
	struct ktau_task *kt = &tsk->ktau;
	struct ktau_table *t = ktau_task_table(kt);
	unsigned int id = ktau_record_id(t, e);
	struct ktau_entry *c;
	u32 key = ktau_carry_key(id);

	/* a reader may see one carry counted twice meanwhile, never none */
	c = ktau_table_lookup(t, key);
	if (!c)
		c = ktau_task_add(tsk, t, key);
	if (c)
		WRITE_ONCE(c->calls, c->calls + 1);
	else
		ktau_drop_calls(kt, 1ULL << KTAU_CALLS_CARRY_LOG);
	/* adding may have switched to a bigger table: ids are kept */
	t = ktau_task_table(kt);
	if (id > t->nrec)
		return NULL;
	e = &t->rec[id - 1];
	WRITE_ONCE(e->key, e->key & ~KTAU_REC_CARRIED);
	return e;
}

/*
 * The caller field of an outermost record key under user context
 * @value: the id of the value's record in @tsk's table, found or added,
 * which the inline starts then find through the task's cache of two
 * (see ktau_root_ctx()); 0 for the value 0; KTAU_REC_NO_CTX, which no
 * record can have, when there is no room.  Interrupts are off.
 */
static u32 ktau_ctx_parent(struct task_struct *tsk, u32 value)
{
	struct ktau_task *kt = &tsk->ktau;
	struct ktau_table *t = ktau_task_table(kt);
	union ktau_ctx_cache cache;
	struct ktau_entry *e;
	u32 id = KTAU_NO_PARENT;

	/*
	 * 0 is cached too: a thread back outside its routines after using
	 * two others would otherwise take this path at every call
	 */
	if (value) {
		e = ktau_table_ctx(t, value, false);
		if (!e) {
			if (unlikely(t->nrec >= t->maxrec))
				t = ktau_task_outgrow(tsk, t);
			e = ktau_table_ctx(t, value, true);
			if (unlikely(4 * t->nrec >= 3 * t->maxrec))
				ktau_grow_request(tsk, t);
			if (!e)
				return KTAU_REC_NO_CTX;
		}
		id = ktau_record_id(t, e);
	}
	cache.value = value;
	cache.parent = id << 16;
	/* one store each: a clear resets them from another CPU */
	if (READ_ONCE(kt->ctx_cache[0].word) != cache.word) {
		WRITE_ONCE(kt->ctx_cache[1].word, READ_ONCE(kt->ctx_cache[0].word));
		WRITE_ONCE(kt->ctx_cache[0].word, cache.word);
	}
	return id;
}

/* The key of a new outermost frame of @tsk, for function id @fid. */
static u32 ktau_root_key(struct task_struct *tsk, unsigned int fid)
{
	const u32 __user *word = tsk->ktau.ctx_word;

	if (!word)
		return KTAU_REC_LOW(fid);
	return KTAU_REC_KEY(ktau_ctx_parent(tsk, ktau_read_ctx(tsk, word)),
			    KTAU_REC_LOW(fid));
}

/*
 * Find the record of the user context of @kt's outermost frame, when its
 * start left that to a slow path (KTAU_REC_CTX_PENDING).  Every slow
 * path that needs the frame's record or its caller field calls this.
 * Interrupts are off.
 */
static void ktau_root_resolve(struct task_struct *tsk)
{
	struct ktau_task *kt = &tsk->ktau;
	u32 key = kt->stack[0].key;

	if (likely(KTAU_REC_PARENT(key) != KTAU_REC_CTX_PENDING))
		return;
	kt->stack[0].key = KTAU_REC_KEY(ktau_ctx_parent(tsk, kt->ctx_pending),
					key & 0xffff);
}

/*
 * The record of @key in @tsk's table: found, then hinted with a carry of
 * its count moved; or else, if @add, added, and hinted only in a slot no
 * record of its own has (the many callpaths a task takes once, at exec,
 * at its start, would only evict the hot ones).  NULL if neither.  A new
 * callpath, the common case here, costs one probe of the index.
 */
static struct ktau_entry *ktau_task_get(struct task_struct *tsk, u32 key,
					bool add)
{
	struct ktau_table *t = ktau_task_table(&tsk->ktau);
	unsigned int n = t->nrec;
	struct ktau_entry *e;

	if (!add) {
		e = ktau_table_lookup(t, key);
	} else {
		e = ktau_table_add(t, key);
		/* not there, and no room: a bigger table, if one is ready */
		if (!e)
			return ktau_task_add(tsk, t, key);
		if (t->nrec != n) {
			ktau_table_hint_new(t, key, e);
			if (unlikely(4 * t->nrec >= 3 * t->maxrec))
				ktau_grow_request(tsk, t);
			return e;
		}
	}
	if (e && unlikely(e->key != key)) {
		e = ktau_rec_uncarry(tsk, e);
		t = ktau_task_table(&tsk->ktau);
	}
	if (e)
		ktau_table_hint(t, key, e);
	return e;
}

/*
 * ktau_frame_entry() when neither the frame's remembered record id nor
 * its key's hint slots name its record: the index, or a new record.
 */
static noinline struct ktau_entry *
ktau_frame_entry_slow(struct task_struct *tsk, struct ktau_frame *f, u32 key,
		      bool add)
{
	struct ktau_entry *e = ktau_task_get(tsk, key,
					     add && ktau_key_addable(key));

	if (e)
		f->rec = ktau_record_id(ktau_task_table(&tsk->ktau), e);
	return e;
}

/*
 * The record of open frame @i, added if @add and new; NULL if there is
 * none (no room, or the frame is not recorded because its caller's
 * record could not be made).  Its id is remembered in the frame, as a
 * hint checked against the key (the outermost frame's is not reset at
 * each system call).
 */
static __always_inline struct ktau_entry *
ktau_frame_entry(struct task_struct *tsk, unsigned int i, bool add)
{
	struct ktau_task *kt = &tsk->ktau;
	struct ktau_table *t;
	struct ktau_frame *f = &kt->stack[i];
	struct ktau_entry *e;
	u32 key;

	if (!i)
		ktau_root_resolve(tsk);
	t = ktau_task_table(kt);
	key = ktau_frame_key(kt, i);
	if (unlikely(!(u16)key))
		return NULL;
	if (f->rec && f->rec <= t->nrec && t->rec[f->rec - 1].key == key) {
		/* so that the inline paths find it next time */
		e = &t->rec[f->rec - 1];
		ktau_table_hint(t, key, e);
		return e;
	}
	e = ktau_table_hinted(t, key);
	if (likely(e)) {
		f->rec = ktau_record_id(t, e);
		return e;
	}
	return ktau_frame_entry_slow(tsk, f, key, add);
}

/* A completed call of open frame @i. */
static struct ktau_entry *ktau_record(struct task_struct *tsk, unsigned int i,
				      u64 incl, u64 excl)
{
	struct ktau_entry *e = ktau_frame_entry(tsk, i, true);

	if (likely(e))
		ktau_entry_add(e, incl, excl);
	else
		ktau_drop(&tsk->ktau);
	return e;
}

/* ---- start and stop ---------------------------------------------- */

/* A start of a profiled @fid: the profile only, no trace, no handler. */
static void __ktau_push(struct task_struct *tsk, unsigned int fid, u64 now)
{
	struct ktau_task *kt = &tsk->ktau;
	struct ktau_entry *caller;
	struct ktau_frame *f;
	unsigned int d;

	ktau_stack_check(kt);
	d = kt->depth;
	if (unlikely(d >= KTAU_MAX_DEPTH)) {
		int group = ktau_fid_group(fid);

		if (group >= 0)
			kt->stack[KTAU_MAX_DEPTH - 1].deeper_groups |= BIT(group);
		kt->depth++;
		ktau_drop(kt);
		return;
	}
	f = &kt->stack[d];
	if (!d) {
		/* The outermost frame carries the user context. */
		f->key = ktau_root_key(tsk, fid);
	} else {
		caller = ktau_frame_entry(tsk, d - 1, true);
		f->key = caller ? ktau_child_key(ktau_record_id(ktau_task_table(kt),
								caller), fid) : 0;
	}
	f->rec = 0;
	f->deeper_groups = 0;
	f->child = 0;
	/*
	 * Find the frame's record now, through its hint, so that its stop
	 * need not look for it; a new callpath's record is added at its
	 * first stop.
	 */
	ktau_frame_entry(tsk, d, false);
	f->start = now;
	/* the frame before its depth, as in ktau_open_root() */
	smp_wmb();
	kt->depth = d + 1;
}

static void ktau_push(struct task_struct *tsk, unsigned int fid, u64 now)
{
	ktau_handlers(fid, KTAU_HANDLER_START, now);
	/* its group's key is on for the trace alone */
	if (likely(ktau_fid_profiled(fid)))
		__ktau_push(tsk, fid, now);
}

/*
 * Close the innermost open frame of @fid.  Frames above it lost their
 * stop (e.g. a disabled group's) and are discarded; a stop with no
 * matching frame (its start was switched off) records nothing.
 */
/*
 * The stop of a profiled @fid: the profile only.  Returns whether it
 * closed a frame.
 */
static bool __ktau_pop(struct task_struct *tsk, unsigned int fid, u64 now)
{
	struct ktau_task *kt = &tsk->ktau;
	struct ktau_frame *f;
	unsigned int i;
	u64 incl;

	ktau_stack_check(kt);
	if (unlikely(kt->depth > KTAU_MAX_DEPTH)) {
		if (--kt->depth == KTAU_MAX_DEPTH)
			kt->stack[KTAU_MAX_DEPTH - 1].deeper_groups = 0;
		return false;
	}
	i = kt->depth;
	while (i && ktau_frame_fid(kt, i - 1) != fid)
		i--;
	if (unlikely(!i))
		return false;
	kt->depth = --i;
	f = &kt->stack[i];
	incl = ktau_elapsed(f->start, now);
	ktau_record(tsk, i, incl, ktau_excl(incl, f->child));
	if (i)
		kt->stack[i - 1].child += incl;
	return true;
}

static void ktau_pop(struct task_struct *tsk, unsigned int fid, u64 now)
{
	struct ktau_task *kt = &tsk->ktau;
	unsigned int i;

	if (unlikely(!ktau_fid_profiled(fid))) {
		ktau_handlers(fid, KTAU_HANDLER_STOP, now);
		/* opened while its group was profiled: it records nothing */
		i = kt->depth;
		if (i && i <= KTAU_MAX_DEPTH && ktau_frame_fid(kt, i - 1) == fid)
			kt->depth = i - 1;
		return;
	}
	if (__ktau_pop(tsk, fid, now))
		ktau_handlers(fid, KTAU_HANDLER_STOP, now);
}

/* Close every valid open frame now, innermost first.  Interrupts are off. */
void ktau_unwind(struct task_struct *tsk)
{
	struct ktau_task *kt = &tsk->ktau;
	u64 now = ktau_arch_now();

	ktau_stack_check(kt);
	if (kt->depth > KTAU_MAX_DEPTH)
		kt->depth = KTAU_MAX_DEPTH;
	while (kt->depth) {
		unsigned int d = kt->depth;

		ktau_pop(tsk, ktau_frame_fid(kt, d - 1), now);
		/* a group no longer profiled leaves its frame: discard it */
		if (kt->depth >= d)
			kt->depth = d - 1;
	}
}

/*
 * The record id of open frame @i through the id the frame remembers or
 * its key's hint only, or 0: never a lookup, never an addition.  The
 * bottom frame's remembered id is not tried: a system call's inline
 * entry leaves it as it was, while the hint of its key is the one its
 * inline exit uses.
 */
static __always_inline unsigned int
ktau_frame_hinted_id(struct ktau_task *kt, struct ktau_table *t,
		     unsigned int i)
{
	struct ktau_frame *f = &kt->stack[i];
	u32 key = ktau_frame_key(kt, i);
	unsigned int id;

	/* a clear may have given the task a new, smaller table */
	if (i && f->rec && f->rec <= t->nrec && t->rec[f->rec - 1].key == key)
		return f->rec;
	id = ktau_table_hinted_id(t, key);
	if (id)
		f->rec = id;
	return id;
}

/*
 * The common start, inline in each hook: the fast paths are on
 * (ktau_fast_key: no handler, @fid's group profiled), no control change
 * since the task's stack was last checked, room for frame @d, and the
 * caller's record found through its frame or its hint.  The new frame's
 * record is looked for through its hint only (its first stop adds it).
 * Interrupts are off.  Returns false, having changed nothing, when
 * ktau_push() must take the start.
 */
static __always_inline bool ktau_push_fast(struct task_struct *tsk,
					   unsigned int fid, u64 now,
					   unsigned int d)
{
	struct ktau_task *kt = &tsk->ktau;
	struct ktau_table *t = ktau_task_table(kt);
	struct ktau_frame *f;
	unsigned int id;
	u32 key;

	if (!static_branch_likely(&ktau_fast_key) ||
	    kt->gen != READ_ONCE(ktau_gen) || d >= KTAU_MAX_DEPTH)
		return false;
	if (!d) {
		kt->stack[0].key = KTAU_REC_LOW(fid);
		if (static_branch_unlikely(&ktau_context_key.key) && kt->ctx_word)
			ktau_root_ctx(tsk, kt, KTAU_REC_LOW(fid));
		key = kt->stack[0].key;
	} else {
		id = ktau_frame_hinted_id(kt, t, d - 1);
		if (unlikely(!id))
			return false;
		key = ktau_child_key(id, fid);
		kt->stack[d].key = key;
	}
	f = &kt->stack[d];
	f->rec = ktau_table_hinted_id(t, key);
	f->deeper_groups = 0;
	f->child = 0;
	f->start = now;
	/* the frame before its depth, as in ktau_open_root() */
	smp_wmb();
	kt->depth = d + 1;
	return true;
}

/*
 * The common stop of the innermost frame, frame @d - 1 (1 <= @d <=
 * KTAU_MAX_DEPTH) of record key @key, inline in each hook: the fast
 * paths are on (the caller tested ktau_fast_key), no control change, the
 * frame's record is known, and the TSC did not run backwards under it
 * (a negative @incl makes @excl negative too).  Interrupts are off.
 * Returns false, having changed nothing, when ktau_pop() must take the
 * stop.
 */
static __always_inline bool ktau_pop_top_fast(struct task_struct *tsk,
					      unsigned int d, u32 key, u64 now)
{
	struct ktau_task *kt = &tsk->ktau;
	struct ktau_table *t = ktau_task_table(kt);
	struct ktau_frame *f = &kt->stack[d - 1];
	struct ktau_entry *e;
	s64 incl, excl;

	if (kt->gen != READ_ONCE(ktau_gen) || !f->rec || f->rec > t->nrec)
		return false;
	e = &t->rec[f->rec - 1];
	if (e->key != key)
		return false;
	incl = now - f->start;
	excl = incl - f->child;
	if (unlikely(excl < 0))
		return false;
	kt->depth = d - 1;
	ktau_entry_add(e, incl, excl);
	if (d > 1)
		kt->stack[d - 2].child += incl;
	return true;
}

/* ktau_pop_top_fast() when the innermost frame is @fid's. */
static __always_inline bool ktau_pop_fast(struct task_struct *tsk,
					  unsigned int fid, u64 now)
{
	struct ktau_task *kt = &tsk->ktau;
	unsigned int d = kt->depth;
	u32 key;

	if (!static_branch_likely(&ktau_fast_key) || d - 1 >= KTAU_MAX_DEPTH)
		return false;
	key = ktau_frame_key(kt, d - 1);
	return ktau_key_fid(key) == fid && ktau_pop_top_fast(tsk, d, key, now);
}

/*
 * Start timing @fid on current, interrupts off.  @from_user: the kernel
 * was entered from user mode, where nothing of this task can be open,
 * and which neither the idle task, an NMI nor an exited task comes from.
 */
static __always_inline void ktau_open(unsigned int fid, bool from_user)
{
	struct task_struct *tsk = current;
	u64 now;

	lockdep_assert_irqs_disabled();
	if (from_user)
		ktau_stack_reset(&tsk->ktau);
	else if (unlikely(!ktau_may_record()))
		return;
	now = ktau_arch_now();
	if (ktau_push_fast(tsk, fid, now, tsk->ktau.depth))
		ktau_trace_fast(fid, KTAU_HANDLER_START, now);
	else
		ktau_push(tsk, fid, now);
}

/* Stop timing @fid on current, interrupts off. */
static __always_inline void ktau_close(unsigned int fid, u64 now)
{
	struct task_struct *tsk = current;

	lockdep_assert_irqs_disabled();
	if (unlikely(!ktau_may_record()))
		return;
	if (ktau_pop_fast(tsk, fid, now))
		ktau_trace_fast(fid, KTAU_HANDLER_STOP, now);
	else
		ktau_pop(tsk, fid, now);
}

static __always_inline void ktau_start(unsigned int fid)
{
	unsigned long flags;

	local_irq_save(flags);
	ktau_open(fid, false);
	local_irq_restore(flags);
}

static __always_inline void ktau_stop(unsigned int fid)
{
	u64 now = ktau_arch_now();
	unsigned long flags;

	local_irq_save(flags);
	ktau_close(fid, now);
	local_irq_restore(flags);
}

void __ktau_softirq_enter(unsigned int vec)
{
	ktau_start(KTAU_FID_STATIC(KTAU_SP_SOFTIRQ + vec));
}

void __ktau_softirq_exit(unsigned int vec)
{
	ktau_stop(KTAU_FID_STATIC(KTAU_SP_SOFTIRQ + vec));
	ktau_counters_touch(current);
}

/* From irq_enter_rcu() and __irq_exit_rcu(): interrupts are off. */
void __ktau_irq_enter(void)
{
	ktau_open(KTAU_FID_STATIC(KTAU_SP_IRQ), false);
}

void __ktau_irq_exit(void)
{
	ktau_close(KTAU_FID_STATIC(KTAU_SP_IRQ), ktau_arch_now());
	ktau_counters_touch(current);
}

/*
 * Whether the trace alone records @group's points: it is on, the group
 * is not profiled (recording stopped, or the group disabled) and no
 * handler is registered.  The general paths then only write each point's
 * ENTRY and EXIT, through calls that test for the profile and the
 * handlers at each step; the system calls' and the user mode faults'
 * trace-alone paths do the same work without them, so that a trace costs
 * about what it costs with the profile, not twice as much.
 */
static __always_inline bool ktau_traced_alone(unsigned int group)
{
	return static_branch_unlikely(&ktau_trace_key) &&
	       !static_branch_unlikely(&ktau_handler_key) &&
	       !ktau_group_profiled(group);
}

/*
 * The inline fault stop looks for an outermost record in its key's own
 * hint slot only, so one that another key's hint moved to the pair slot
 * moves back (ktau_table_hint() leaves hinted records where they are; a
 * system call's exit closes a record in the pair slot where it is).
 * Returns whether it moved: once it did, it is in its own slot and no
 * other record has its key, so it does not move again.  A task that has
 * no outermost frame (key 0, as a new task's, or with only the trace on)
 * has nothing to move: a record not in use has key 0 too.  Closing it in
 * the pair slot instead, as a system call's exit does
 * (ktau_close_root_pair()), measured worse for faults: +17 instructions
 * a fault with the trace on and recording stopped, +40 with a shared
 * counter area, +1 with ktau on, -4 with the trace and the profile
 * (make bench rows 6, 4d, 3, 6a).
 */
static __always_inline bool ktau_root_hint_restore(struct ktau_task *kt)
{
	struct ktau_table *t = ktau_task_table(kt);
	u32 key = kt->stack[0].key;
	unsigned int slot = ktau_hint_slot(key);
	unsigned int off = t->hint[slot ^ 1];

	if (!(u16)key || off == t->hint[slot] ||
	    ((struct ktau_entry *)((void *)t->rec + off))->key != key)
		return false;
	t->hint[slot ^ 1] = t->hint[slot];
	t->hint[slot] = off;
	return true;
}

/* ktau_close_root_hinted() once its record moved back to its own slot. */
static __always_inline bool ktau_close_root_restored(struct ktau_task *kt,
						     u64 now)
{
	return ktau_root_hint_restore(kt) && ktau_close_root_hinted(kt, now);
}

/*
 * Whether @e is the record of an outermost frame (a system call's, a user
 * mode fault's), which the inline stops look for in its key's own hint
 * slot only: its caller is none or a user context's record.  Others are
 * looked for in both slots.
 */
static bool ktau_rec_is_root(const struct ktau_table *t,
			     const struct ktau_entry *e)
{
	unsigned int parent = KTAU_REC_PARENT(e->key);

	return !parent ||
	       (parent <= t->nrec &&
		KTAU_REC_PARENT(t->rec[parent - 1].key) == KTAU_REC_CTX);
}

/*
 * ktau_close_root_hinted() through the pair slot of the frame's key,
 * where ktau_table_hint() put its record when another key's owns its
 * own slot: two hot calls whose keys share a slot (a tar's openat() and
 * write()) then both close without a lookup, and without a swap at each
 * close that would only send the other's next close here.
 */
static __always_inline bool ktau_close_root_pair(struct ktau_task *kt,
						 u64 now)
{
	u32 key = kt->stack[0].key;

	return __ktau_close_root_at(kt, ktau_task_table(kt), now, key,
				    ktau_hint_off(key) ^ 2);
}

/*
 * After a close through the pair slot: every 8th call of its record,
 * whether it takes its own slot back (ktau_hint_take_back()).
 */
static __always_inline bool ktau_hint_take_back_due(struct ktau_task *kt)
{
	struct ktau_table *t = ktau_task_table(kt);
	unsigned int slot = ktau_hint_slot(kt->stack[0].key);
	const struct ktau_entry *e = (void *)t->rec + t->hint[slot ^ 1];

	return unlikely(!(e->calls & (7 * KTAU_CALLS_ONE)));
}

/*
 * The record in the pair slot of the frame's key takes its own slot back
 * if the record there is not an outermost frame's (one that is found in
 * either slot, as read() => schedule_vol is) or has less than half its
 * calls, so that the inline exit finds it: a hot call does not stay out
 * of line behind a callee's record or one a program no longer uses.
 */
static __always_inline void ktau_hint_take_back(struct ktau_task *kt)
{
	struct ktau_table *t = ktau_task_table(kt);
	unsigned int slot = ktau_hint_slot(kt->stack[0].key);

	if (!ktau_rec_is_root(t, (void *)t->rec + t->hint[slot]) ||
	    ktau_hint_calls(t, slot ^ 1) > 2 * ktau_hint_calls(t, slot))
		swap(t->hint[slot], t->hint[slot ^ 1]);
}

/* ktau_close_root_hinted() for the traced fault, its record in either slot. */
static __always_inline bool ktau_close_root_paired(struct ktau_task *kt,
						   u64 now)
{
	return likely(ktau_close_root_hinted(kt, now)) ||
	       ktau_close_root_restored(kt, now);
}

/*
 * ktau_open()'s work for a user mode fault when only its event is made
 * (ktau_traced_alone()).  Out of line: the fast paths' registers stay as
 * they were.
 */
static noinline void ktau_fault_enter_trace_alone(struct task_struct *tsk)
{
	ktau_stack_reset(&tsk->ktau);
	ktau_trace_event(tsk, KTAU_TRACE_ENTRY,
			 KTAU_FID_STATIC(KTAU_SP_PAGE_FAULT), ktau_arch_now());
}

/*
 * A fault taken with page faults disabled only runs its exception fixup.
 * One of those comes from ktau itself, reading an unmapped user context
 * word while it opens an outermost frame: recording it would open that
 * frame again, and fault again.  A user mode fault never has them
 * disabled (the user mode entry does not look), and the count is the
 * same at a fault's exit as at its entry.
 */
void __ktau_fault_enter_user(void)
{
	const unsigned int fid = KTAU_FID_STATIC(KTAU_SP_PAGE_FAULT);
	struct task_struct *tsk = current;
	struct ktau_task *kt = &tsk->ktau;

	/* after irqentry_enter(): interrupts are still off */
	lockdep_assert_irqs_disabled();
	if (likely(static_branch_likely(&ktau_sysfast_key))) {
		/* as a system call's inline entry does */
		ktau_open_root(tsk, kt, fid);
		return;
	}
	/* the same while tracing, with the fault's event */
	if (static_branch_likely(&ktau_fast_key)) {
		ktau_open_root(tsk, kt, fid);
		ktau_trace_root_open(tsk, fid);
		return;
	}
	if (ktau_traced_alone(KTAU_GROUP_EXCEPTION)) {
		ktau_fault_enter_trace_alone(tsk);
		return;
	}
	ktau_open(fid, true);
}

void __ktau_fault_enter_kernel(void)
{
	lockdep_assert_irqs_disabled();
	if (likely(!current->pagefault_disabled))
		ktau_open(KTAU_FID_STATIC(KTAU_SP_PAGE_FAULT), false);
}

/*
 * A fault's stop while tracing (the inline timers are off): a user mode
 * fault's through its hint, with its event, else the general one.
 */
static noinline void ktau_fault_exit_traced(struct task_struct *tsk, u64 now)
{
	const unsigned int fid = KTAU_FID_STATIC(KTAU_SP_PAGE_FAULT);

	if ((u16)tsk->ktau.stack[0].key == KTAU_REC_LOW(fid) && !in_nmi() &&
	    static_branch_likely(&ktau_fast_key) &&
	    ktau_close_root_paired(&tsk->ktau, now))
		ktau_trace_root_close(tsk, now);
	/* ktau_close()'s work when only its event is made */
	else if (ktau_traced_alone(KTAU_GROUP_EXCEPTION) && !tsk->ktau.depth &&
		 ktau_may_record())
		ktau_trace_event(tsk, KTAU_TRACE_EXIT, fid, now);
	else
		ktau_close(fid, now);
}

/*
 * ktau_fault_exit_traced() for a user mode fault's frame without a user
 * context: its key, and so its hint's place, known here, and the tests
 * its caller made not made again.  @kt: @tsk's.  In this order, @now is
 * where the caller's clock read leaves it (x86-64: %rdx), so that the
 * untraced stop, which shares that read, moves nothing for this call.
 */
static noinline void ktau_fault_exit_traced_root(struct task_struct *tsk,
						 struct ktau_task *kt, u64 now)
{
	const unsigned int fid = KTAU_FID_STATIC(KTAU_SP_PAGE_FAULT);

	if (likely(static_branch_likely(&ktau_fast_key)) &&
	    (likely(__ktau_close_root_key(kt, ktau_task_table(kt), now,
					  KTAU_REC_LOW(fid))) ||
	     ktau_close_root_restored(kt, now)))
		ktau_trace_event(tsk, KTAU_TRACE_EXIT, fid, now);
	else
		ktau_close(fid, now);
}

/* After handle_page_fault(), which ends with interrupts off. */
void __ktau_fault_exit(void)
{
	const unsigned int fid = KTAU_FID_STATIC(KTAU_SP_PAGE_FAULT);
	struct task_struct *tsk = current;
	u64 now;

	lockdep_assert_irqs_disabled();
	if (unlikely(tsk->pagefault_disabled))
		return;
	now = ktau_arch_now();
	/*
	 * A frame ktau_open_root() opened (from user mode, so neither in
	 * the idle task nor in an exited one) is closed by the same test as
	 * a system call's; an NMI's fault must not close the frame of the
	 * fault it interrupted.  Without a user context, its key is known
	 * here, and so is its hint's place.
	 */
	if (likely(tsk->ktau.stack[0].key == KTAU_REC_LOW(fid)) && !in_nmi()) {
		if (static_branch_likely(&ktau_sysfast_key)) {
			if (__ktau_close_root_key(&tsk->ktau,
						  ktau_task_table(&tsk->ktau),
						  now, KTAU_REC_LOW(fid)))
				goto out;
		} else if (static_branch_unlikely(&ktau_trace_key)) {
			/* the inline timers are off while tracing */
			ktau_fault_exit_traced_root(tsk, &tsk->ktau, now);
			goto out;
		}
	}
	if ((u16)tsk->ktau.stack[0].key == KTAU_REC_LOW(fid) && !in_nmi() &&
	    ktau_close_root_fast(&tsk->ktau, ktau_task_table(&tsk->ktau), now))
		goto out;
	if (static_branch_unlikely(&ktau_trace_key)) {
		ktau_fault_exit_traced(tsk, now);
		goto out;
	}
	/* its record moved to the pair slot: back to the inline stops' slot */
	if ((u16)tsk->ktau.stack[0].key == KTAU_REC_LOW(fid) && !in_nmi() &&
	    static_branch_likely(&ktau_sysfast_key) &&
	    ktau_close_root_restored(&tsk->ktau, now))
		goto out;
	if (likely(ktau_may_record()) && !ktau_pop_fast(tsk, fid, now))
		ktau_pop(tsk, fid, now);
out:
	ktau_counters_touch(tsk);
}

/* ---- the scheduler --------------------------------------------------- */

static __always_inline unsigned int ktau_sched_fid(bool invol)
{
	return KTAU_FID_STATIC(invol ? KTAU_SP_SCHEDULE_INVOL :
				       KTAU_SP_SCHEDULE_VOL);
}

/*
 * ktau_close_root_fast() and ktau_sched_push_fast() index the table by
 * a hint without a bounds check: CONFIG_KTAU_DEBUG checks here that every
 * hint is a record of the table (or 0), and a schedule hint one whose
 * caller's record is before it.  ktau_bytes_add() takes a range record
 * followed by its sum record to have a count: checked too.
 */
static void ktau_check_hints(const struct ktau_table *t)
{
	unsigned int i;

	if (!IS_ENABLED(CONFIG_KTAU_DEBUG))
		return;
	for (i = 0; i + 1 < t->nrec; i++)
		WARN_ON_ONCE(ktau_key_is_range(t->rec[i].key) &&
			     t->rec[i + 1].key == t->rec[i].key +
			     (KTAU_REC_SUM - KTAU_REC_RANGE) &&
			     !t->rec[i].calls);
	for (i = 0; i < KTAU_SLOT_HINTS; i++)
		WARN_ON_ONCE(t->hint[i] % sizeof(t->rec[0]) ||
			     (t->hint[i] &&
			      t->hint[i] / sizeof(t->rec[0]) >= t->maxrec));
	for (i = 0; i < ARRAY_SIZE(t->bytes_hint); i++)
		WARN_ON_ONCE(t->bytes_hint[i] % sizeof(t->rec[0]) ||
			     (t->bytes_hint[i] &&
			      t->bytes_hint[i] / sizeof(t->rec[0]) + 1 >= t->maxrec));
	for (i = 0; i < 2 * ARRAY_SIZE(t->sched_hint); i++) {
		unsigned int off = t->sched_hint[i / 2][i % 2];
		unsigned int id = off / sizeof(t->rec[0]) + 1;
		u32 key;

		if (!off || WARN_ON_ONCE(off % sizeof(t->rec[0]) ||
					 id > t->nrec))
			continue;
		key = t->rec[id - 1].key;
		WARN_ON_ONCE(ktau_key_fid(key) != ktau_sched_fid(i / 2) ||
			     !KTAU_REC_PARENT(key) || KTAU_REC_PARENT(key) >= id);
	}
}

/*
 * Whether schedule hint @off names a record (its key in *@key) whose
 * caller's record has key @caller.  A hint names a schedule record under
 * a caller, whose id is below its own, or is 0 (none): nothing needs a
 * bounds check.
 */
static __always_inline bool ktau_sched_hint_is(const struct ktau_table *t,
					       unsigned int off, u32 caller,
					       u32 *key)
{
	*key = ((struct ktau_entry *)((void *)t->rec + off))->key;
	return off && t->rec[KTAU_REC_PARENT(*key) - 1].key == caller;
}

/*
 * After a general start of a schedule frame as frame @d: name its record
 * in the first schedule hint of its kind (the first one's goes second),
 * when the frame is open, a caller's callee, and its record known (not
 * at the frame's first start: a record is added at its first stop, and
 * hinted then, if a slot is free, or at its second use).
 */
static void ktau_sched_rehint(struct ktau_task *kt, unsigned int d,
			      bool invol)
{
	struct ktau_table *t = ktau_task_table(kt);
	u16 *hint = t->sched_hint[invol], off;
	const struct ktau_frame *f;

	/* @d may be past the stack: the start was only counted */
	if (!d || d >= KTAU_MAX_DEPTH || kt->depth != d + 1)
		return;
	f = &kt->stack[d];
	if (!f->rec || f->rec > t->nrec || f->rec - 1 > KTAU_HINT_MAX_INDEX ||
	    t->rec[f->rec - 1].key != f->key ||
	    ktau_key_fid(f->key) != ktau_sched_fid(invol) ||
	    !KTAU_REC_PARENT(f->key))
		return;
	off = (f->rec - 1) * sizeof(t->rec[0]);
	if (hint[0] == off || hint[1] == off)
		return;
	hint[1] = hint[0];
	hint[0] = off;
	ktau_check_hints(t);
}

/*
 * A context switch (include/linux/ktau.h): the out hook keeps, in the
 * leaving task's first free frame slot, the time and the kind, as a key
 * no frame has (its low half, the function id's, is 0); past the deepest
 * frame a flag says it.  With no frame open the slot is the second
 * (ktau_switch_slot()): the first one's key may name a call open while
 * its group is not profiled (ktau_syscall_open()).  The in hook closes the schedule frame with the
 * task's next clock read: its record takes the time, its caller's frame
 * the time as its child's.  So a wait costs one slot write and one
 * record update, and nothing is open while the task is away: readers
 * show the slot as an open schedule frame (view.c).
 *
 * The hooks run with the runqueue locked: their general paths set
 * ktau_in_switch, so that a table refill is kicked, not woken.
 */
static DEFINE_PER_CPU(bool, ktau_in_switch);

/*
 * The trace's start, at the switch, unless the task is exiting for good:
 * its event written here (ktau_trace_point() would add a call).
 */
static noinline void ktau_switch_out_trace(struct task_struct *tsk, u32 key,
					   u64 now)
{
	if (!test_bit(KTAU_TASK_DEAD, &tsk->ktau.flags))
		ktau_trace_event(tsk, KTAU_TRACE_ENTRY,
				 ktau_sched_fid(key == KTAU_SWITCH_KEY(true)),
				 now);
}

/* The out hook with no frame open, or past the deepest frame. */
static noinline void ktau_switch_out_edge(struct task_struct *tsk, u32 key,
					  u64 now)
{
	struct ktau_task *kt = &tsk->ktau;

	if (kt->depth) {
		assign_bit(KTAU_TASK_SCHED_INVOL, &kt->flags,
			   key == KTAU_SWITCH_KEY(true));
		set_bit(KTAU_TASK_SWITCHED_DEEP, &kt->flags);
	} else {
		kt->stack[1].start = now;
		/* after the start, as in __ktau_switch_out() */
		smp_wmb();
		WRITE_ONCE(kt->stack[1].key, key);
	}
	if (static_branch_unlikely(&ktau_trace_key))
		ktau_switch_out_trace(tsk, key, now);
}

/*
 * Current leaves the CPU.  It blocked (schedule_vol) when it is no longer
 * queued, or queued only until its delayed dequeue: the rule psi uses.
 * Leaving, it is queued (on_rq 1) or not (0), never migrating (2), so
 * the kind is 1 + on_rq - sched_delayed: 1 blocked, 2 runnable, the
 * caller field of KTAU_SWITCH_KEY().  The idle task records nothing.
 */
void __ktau_switch_out(void)
{
	struct task_struct *tsk = current;
	struct ktau_task *kt = &tsk->ktau;
	unsigned int d = kt->depth;
	u32 key;
	u64 now;

	lockdep_assert_irqs_disabled();
	if (unlikely(is_idle_task(tsk)))
		return;
	key = KTAU_REC_KEY(1 + READ_ONCE(tsk->on_rq) - tsk->se.sched_delayed,
			   0);
	now = ktau_arch_now();
	if (unlikely(d - 1 >= KTAU_MAX_DEPTH - 1)) {
		ktau_switch_out_edge(tsk, key, now);
		return;
	}
	kt->stack[d].start = now;
	/* after the start: readers take the key first (view.c) */
	smp_wmb();
	WRITE_ONCE(kt->stack[d].key, key);
	if (static_branch_unlikely(&ktau_trace_key))
		ktau_switch_out_trace(tsk, key, now);
}

/* After a switch's record: the trace's stop, the shared counters. */
static noinline void ktau_switch_in_events(struct task_struct *tsk,
					   unsigned int fid, u64 now)
{
	if (static_branch_unlikely(&ktau_trace_key))
		ktau_trace_event(tsk, KTAU_TRACE_EXIT, fid, now);
	ktau_counters_touch(tsk);
}

/*
 * The general paths: a frame opened at the switch out (the slot above
 * the task's frames keeps its time and kind) and closed now, as
 * current's callee.  A control change since the task's stack was last
 * checked discards the wait: it may have begun before the change.  The
 * handlers get the start and the stop here, in the task's context; the
 * trace got its start at the switch out.
 */
static noinline void ktau_switch_in_slow(struct task_struct *tsk)
{
	struct ktau_task *kt = &tsk->ktau;
	unsigned int d = kt->depth;
	struct ktau_frame *f = &kt->stack[ktau_switch_slot(d)];
	bool invol = f->key == KTAU_SWITCH_KEY(true);
	unsigned int fid = ktau_sched_fid(invol);
	u64 now = ktau_arch_now(), out = f->start;
	u32 open_call = kt->stack[0].key;

	WRITE_ONCE(f->key, 0);
	/* switched out once its exit folded it: it records nothing */
	if (test_bit(KTAU_TASK_DEAD, &kt->flags))
		return;
	if (static_branch_unlikely(&ktau_handler_key)) {
		ktau_call_handlers(fid, KTAU_HANDLER_START, out);
		ktau_call_handlers(fid, KTAU_HANDLER_STOP, now);
	}
	ktau_switch_in_events(tsk, fid, now);
	if (!ktau_fid_profiled(fid))
		return;
	if (kt->gen != READ_ONCE(ktau_gen)) {
		ktau_stack_check(kt);
		return;
	}
	this_cpu_write(ktau_in_switch, true);
	__ktau_push(tsk, fid, out);
	if (static_branch_likely(&ktau_fast_key))
		ktau_sched_rehint(kt, d, invol);
	__ktau_pop(tsk, fid, now);
	this_cpu_write(ktau_in_switch, false);
	/* a call open while its group is not profiled keeps its key */
	if (!d)
		kt->stack[0].key = open_call;
}

/* Past the deepest frame the wait was only counted, as a push there is. */
static noinline void ktau_switch_in_deep(struct task_struct *tsk)
{
	struct ktau_task *kt = &tsk->ktau;
	u64 now = ktau_arch_now();
	unsigned int fid;

	if (!test_and_clear_bit(KTAU_TASK_SWITCHED_DEEP, &kt->flags) ||
	    test_bit(KTAU_TASK_DEAD, &kt->flags))
		return;
	fid = ktau_sched_fid(test_bit(KTAU_TASK_SCHED_INVOL, &kt->flags));
	if (static_branch_unlikely(&ktau_handler_key)) {
		ktau_call_handlers(fid, KTAU_HANDLER_START, now);
		ktau_call_handlers(fid, KTAU_HANDLER_STOP, now);
	}
	ktau_switch_in_events(tsk, fid, now);
	if (ktau_fid_profiled(fid) && kt->gen == READ_ONCE(ktau_gen))
		ktau_drop(kt);
}

/*
 * ktau_switch_in_slow()'s work when only the switch's event is made
 * (ktau_traced_alone(): nothing is recorded, so no frame is open and the
 * wait is in the second slot).
 */
static noinline void ktau_switch_in_trace_alone(struct task_struct *tsk,
						u32 key)
{
	struct ktau_task *kt = &tsk->ktau;

	WRITE_ONCE(kt->stack[1].key, 0);
	if (test_bit(KTAU_TASK_DEAD, &kt->flags))
		return;
	ktau_trace_event(tsk, KTAU_TRACE_EXIT,
			 ktau_sched_fid(key == KTAU_SWITCH_KEY(true)),
			 ktau_arch_now());
	ktau_counters_touch(tsk);
}

/* A switch in with no frame open, or past the deepest. */
static noinline void ktau_switch_in_edge(struct task_struct *tsk)
{
	struct ktau_task *kt = &tsk->ktau;
	u32 key;

	if (kt->depth) {
		ktau_switch_in_deep(tsk);
		return;
	}
	key = kt->stack[1].key;
	if (!ktau_is_switch_key(key))
		return;
	if (ktau_traced_alone(KTAU_GROUP_SCHED))
		ktau_switch_in_trace_alone(tsk, key);
	else
		ktau_switch_in_slow(tsk);
}

/*
 * Current is back (finish_task_switch(), the runqueue still locked).
 * Its schedule frame is closed through the table's schedule hints of
 * its kind: a task blocks again and again under the same call (a pipe
 * reader in read(), a futex wait), so the hints name the records it was
 * last timed in (two: a merged profile's reads alternate between user
 * routines), and a record's caller says whether it is this frame's: the
 * caller's record is frame @d - 1's.  Anything else (a handler, a control change, a
 * miss, a new callpath, no caller) takes the general paths.  Every call
 * out is a tail call: the common case saves no register.
 */
void __ktau_switch_in(void)
{
	struct task_struct *tsk = current;
	struct ktau_task *kt = &tsk->ktau;
	unsigned int d = kt->depth, off;
	struct ktau_table *t;
	struct ktau_frame *f;
	const u16 *hint;
	u32 key, caller;
	s64 incl;
	u64 now;

	lockdep_assert_irqs_disabled();
	/* no caller's frame below the slot, or no slot */
	if (unlikely(d - 1 >= KTAU_MAX_DEPTH - 1)) {
		ktau_switch_in_edge(tsk);
		return;
	}
	f = &kt->stack[d];
	key = f->key;
	if (!ktau_is_switch_key(key))
		return;
	if (!static_branch_likely(&ktau_fast_key) ||
	    kt->gen != READ_ONCE(ktau_gen)) {
		ktau_switch_in_slow(tsk);
		return;
	}
	t = ktau_task_table(kt);
	/* the hints of its kind: key >> 14 is 4 blocked, 8 runnable */
	BUILD_BUG_ON(sizeof(t->sched_hint[0]) != 4 ||
		     KTAU_SWITCH_KEY(true) >> 14 != 8);
	hint = (const void *)t->sched_hint[0] + (key >> 14) - 4;
	caller = f[-1].key;
	off = hint[0];
	if (unlikely(!ktau_sched_hint_is(t, off, caller, &key))) {
		off = hint[1];
		if (!ktau_sched_hint_is(t, off, caller, &key)) {
			ktau_switch_in_slow(tsk);
			return;
		}
	}
	/* read late: fewer values live through the lookup */
	now = ktau_arch_now();
	incl = now - f->start;
	/* a count that carried: the general stop moves it */
	if (unlikely((key & KTAU_REC_CARRIED) || incl < 0)) {
		ktau_switch_in_slow(tsk);
		return;
	}
	WRITE_ONCE(f->key, 0);
	ktau_entry_add((struct ktau_entry *)((void *)t->rec + off), incl,
		       incl);
	f[-1].child += incl;
	if (static_branch_unlikely(&ktau_trace_key) ||
	    static_branch_unlikely(&ktau_counters_key.key))
		ktau_switch_in_events(tsk, KTAU_REC_FID(key), now);
}

/*
 * After the hooks are NULL: a task whose in hook was skipped keeps its
 * slot's key, which a later in hook must not take for its own.  The
 * task may run meanwhile: only a switch key is replaced.
 */
static void ktau_switch_forget(struct task_struct *p, void *arg)
{
	struct ktau_task *kt = &p->ktau;
	unsigned int i;

	for (i = 0; i < KTAU_MAX_DEPTH; i++) {
		cmpxchg(&kt->stack[i].key, KTAU_SWITCH_KEY(false), 0);
		cmpxchg(&kt->stack[i].key, KTAU_SWITCH_KEY(true), 0);
	}
	clear_bit(KTAU_TASK_SWITCHED_DEEP, &kt->flags);
}

/* ---- system calls ---------------------------------------------------- */

/*
 * Open a system call's frame from the slow entry paths.  The trace gets
 * the user context first; with only the trace on, the outermost frame's
 * key keeps the id for the exit (ktau_syscall_exit_traced()).
 * Interrupts are off.
 */
static void ktau_syscall_open(struct ktau_task *kt, unsigned int fid)
{
	if (ktau_trace_on() && kt->ctx_word)
		ktau_trace_context(ktau_read_ctx(current, kt->ctx_word));
	ktau_push(current, fid, ktau_arch_now());
	if (!ktau_fid_profiled(fid))
		kt->stack[0].key = KTAU_REC_LOW(fid);
}

/* The general entry: handlers, x32 and invalid numbers. */
static noinline long ktau_syscall_enter_general(const struct pt_regs *regs,
						long nr)
{
	struct ktau_task *kt = ktau_current();

	ktau_stack_reset(kt);
	if (nr != -1)
		ktau_syscall_open(kt, ktau_sys64_fid(nr));
	return nr;
}

/*
 * ktau_syscall_enter_general() for a 64-bit call while the trace alone
 * records system calls, of a task without a user context word (whose
 * value the general entry traces first): the outermost frame's key keeps
 * the call's id for the exit, as ktau_syscall_open() leaves it.
 */
static noinline long ktau_syscall_enter_trace_alone(struct task_struct *tsk,
						    long nr)
{
	struct ktau_task *kt = &tsk->ktau;

	ktau_stack_reset(kt);
	kt->stack[0].key = KTAU_REC_LOW(nr);
	ktau_trace_event(tsk, KTAU_TRACE_ENTRY, nr, ktau_arch_now());
	return nr;
}

/*
 * A 64-bit system call's entry when ktau_syscall_enter() cannot take its
 * inline path: the trace (the inline path's work and the call's event),
 * and the general entry.  Number -1 asks for nothing (do_syscall_64()
 * runs nothing for it): nothing is recorded.  Interrupts are off.
 */
long __ktau_syscall_enter(const struct pt_regs *regs, long nr)
{
	struct task_struct *tsk = current;

	if (likely(static_branch_likely(&ktau_fast_key) &&
		   (unsigned long)nr < NR_syscalls)) {
		ktau_open_root(tsk, &tsk->ktau, nr);
		return ktau_trace_syscall_open(tsk, regs, nr);
	}
	if (ktau_traced_alone(KTAU_GROUP_SYSCALL) && (unsigned long)nr < NR_syscalls &&
	    !tsk->ktau.ctx_word)
		return ktau_syscall_enter_trace_alone(tsk, nr);
	return ktau_syscall_enter_general(regs, nr);
}

/*
 * The open call's number became @nr (-1: skipped): handlers and the
 * trace see the old call stop and the new one start.
 */
static void ktau_syscall_renumbered(struct ktau_task *kt, long nr)
{
	unsigned int old = ktau_key_fid(kt->stack[0].key);
	u64 now = ktau_arch_now();

	if (nr == -1) {
		ktau_handlers(old, KTAU_HANDLER_STOP, now);
		kt->depth = 0;
		kt->stack[0].key = 0;
		return;
	}
	if (ktau_sys64_fid(nr) != old) {
		ktau_handlers(old, KTAU_HANDLER_STOP, now);
		ktau_handlers(ktau_sys64_fid(nr), KTAU_HANDLER_START, now);
	}
	kt->stack[0].key = KTAU_REC_KEY(KTAU_REC_PARENT(kt->stack[0].key),
					KTAU_REC_LOW(ktau_sys64_fid(nr)));
}

/*
 * The entry work (seccomp, ptrace, a tracepoint program) ran and may
 * have changed the number, to -1 when the call is skipped.  Interrupts
 * are on.  The compat paths open their frame after the entry work, with
 * the final number.
 */
long __ktau_syscall_renumber(long nr)
{
	struct ktau_task *kt;
	unsigned long flags;

	if (ktau_arch_in_compat_syscall())
		return nr;
	local_irq_save(flags);
	kt = ktau_current();
	ktau_stack_check(kt);
	/* with only the trace on, the frame's key alone says a call is open */
	if (kt->depth || (!ktau_syscalls_profiled() && (u16)kt->stack[0].key))
		ktau_syscall_renumbered(kt, nr);
	local_irq_restore(flags);
	return nr;
}

/* The compat paths: the number is settled, interrupts are on. */
void __ktau_compat_syscall_enter(long nr)
{
	unsigned long flags;

	local_irq_save(flags);
	ktau_stack_reset(ktau_current());
	if (nr != -1)
		ktau_syscall_open(ktau_current(), ktau_compat_fid(nr));
	local_irq_restore(flags);
}

/* ---- atomic events ----------------------------------------------------- */

/*
 * The caller field of the events of what the task runs now: the record
 * of its user context, as the outermost frame has it.
 */
static u32 ktau_event_parent(struct task_struct *tsk)
{
	struct ktau_task *kt = &tsk->ktau;

	if (kt->depth) {
		ktau_root_resolve(tsk);
		return KTAU_REC_PARENT(kt->stack[0].key);
	}
	return KTAU_REC_PARENT(ktau_root_key(tsk, 0));
}

/* ktau_event_entry() when the key's hint slot names another record. */
static noinline struct ktau_entry *ktau_event_entry_slow(struct task_struct *tsk,
							 u32 key)
{
	return ktau_task_get(tsk, key, ktau_key_addable(key));
}

/* The record of @key, found through its hint or added. */
static __always_inline struct ktau_entry *
ktau_event_entry(struct task_struct *tsk, u32 key)
{
	struct ktau_entry *e = ktau_table_hinted(ktau_task_table(&tsk->ktau),
						 key);

	return likely(e) ? e : ktau_event_entry_slow(tsk, key);
}

static u64 ktau_square_sat(u64 v)
{
	u64 sq;

	return check_mul_overflow(v, v, &sq) ? U64_MAX : sq;
}

/*
 * A value of atomic event @fid under caller field @parent (a user
 * context's record, or 0).  Its sum record is added right after its
 * range record, so it is normally the next one and only the range record
 * needs a hint.
 */
static __always_inline void ktau_account_event(struct task_struct *tsk,
					       u32 parent, unsigned int fid,
					       u64 value)
{
	u32 range_key = KTAU_REC_KEY(parent, KTAU_REC_RANGE | KTAU_REC_LOW(fid));
	u32 sum_key = KTAU_REC_KEY(parent, KTAU_REC_SUM | KTAU_REC_LOW(fid));
	struct ktau_entry *range, *sum = NULL;
	const struct ktau_table *t;

	range = ktau_event_entry(tsk, range_key);
	if (likely(range)) {
		t = ktau_task_table(&tsk->ktau);
		sum = range + 1;
		if (unlikely(ktau_record_id(t, range) >= t->nrec ||
			     sum->key != sum_key)) {
			/* A kernel thread may switch tables as it adds. */
			sum = ktau_event_entry(tsk, sum_key);
			if (sum)
				range = ktau_event_entry(tsk, range_key);
		}
	}
	if (unlikely(!range || !sum)) {
		ktau_drop(&tsk->ktau);
		return;
	}
	ktau_range_add(range, value, value);
	ktau_sum_add(sum, value, ktau_square_sat(value));
	ktau_calls_inc(sum);
}

/* The atomic event of the bytes a read() or write() of record key @key moved. */
static __always_inline unsigned int ktau_bytes_fid(u32 key)
{
	return KTAU_FID_STATIC(ktau_key_fid(key) == __NR_read ?
			       KTAU_SP_READ_BYTES : KTAU_SP_WRITE_BYTES);
}

/*
 * The key of the range record of the bytes event of a read() or write()
 * whose outermost record key is @key: the same user context, and the
 * call's own function id stands for the event's, which no other event
 * can have (only the event group's ids are events'); views print the
 * event's (kernel/ktau/view.c).
 */
static __always_inline u32 ktau_bytes_range_key(u32 key)
{
	BUILD_BUG_ON(KTAU_REC_KEY(1, KTAU_REC_RANGE | KTAU_REC_LOW(__NR_write)) !=
		     KTAU_REC_KEY(1, KTAU_REC_LOW(__NR_write)) +
		     KTAU_BYTES_KEY_DELTA);
	return key + KTAU_BYTES_KEY_DELTA;
}

/*
 * The bytes a read() or write() moved, as the atomic events of each, in
 * the user context of the call's record @key.  Interrupts are off.
 */
static void ktau_syscall_bytes(struct task_struct *tsk, u32 key, long ret)
{
	ktau_account_event(tsk, KTAU_REC_PARENT(key), ktau_key_fid(key), ret);
}

/*
 * The bytes a read() or write() of record key @key moved, as of its exit
 * at @now: counted while the event group is profiled (its handler
 * called), traced while it is enabled.  Interrupts are off.
 */
static void ktau_syscall_bytes_record(struct task_struct *tsk, u32 key,
				      long ret, u64 now)
{
	if (ret < 0)
		return;
	if (ktau_group_profiled(KTAU_GROUP_EVENT)) {
		ktau_syscall_bytes(tsk, key, ret);
		ktau_handlers(ktau_bytes_fid(key), KTAU_HANDLER_EVENT, ret);
	}
	if (READ_ONCE(ktau_trace_events))
		ktau_trace_atomic(ktau_bytes_fid(key), ret, now);
}

/*
 * ktau_syscall_exit()'s events when ktau_syscall_bytes_hinted() cannot
 * take them (the inline timers run only while nothing is traced, so the
 * event group's key is on only while the group is profiled): an error
 * moved nothing; else the call's bytes hint does not name the event's
 * range record, but its hint slots may (a program alternating between
 * user contexts), and then the bytes hint names it too, when its sum
 * record follows it.  Else the general path.  Interrupts are off.
 */
void __ktau_syscall_bytes(u32 key, long ret)
{
	struct task_struct *tsk = current;
	struct ktau_table *t = ktau_task_table(&tsk->ktau);
	u32 range_key = ktau_bytes_range_key(key);
	struct ktau_entry *e;
	unsigned int id;

	BUILD_BUG_ON(MAX_RW_COUNT > INT_MAX);
	if (unlikely(ret < 0))
		return;
	e = ktau_table_hinted(t, range_key);
	id = e ? ktau_record_id(t, e) : 0;
	if (!id || id >= t->nrec || id > KTAU_HINT_MAX_INDEX ||
	    e[1].key != range_key + (KTAU_REC_SUM - KTAU_REC_RANGE) ||
	    ret > MAX_RW_COUNT) {
		ktau_syscall_bytes(tsk, key, ret);
		return;
	}
	t->bytes_hint[ktau_key_fid(key) - __NR_read] = (e - t->rec) * sizeof(*e);
	ktau_bytes_add(e, ret);
}

/*
 * A system call's exit while only the trace records system calls: its
 * entry left the call's id in the outermost frame's key, as no frame was
 * opened.
 */
static void ktau_syscall_exit_traced(struct ktau_task *kt, long ret, u64 now)
{
	u32 key;

	ktau_root_resolve(current);
	key = kt->stack[0].key;

	if ((u16)key) {
		if (ktau_key_moves_bytes(key) && READ_ONCE(ktau_events_on))
			ktau_syscall_bytes_record(current, key, ret, now);
		ktau_handlers(ktau_key_fid(key), KTAU_HANDLER_STOP, now);
	}
	kt->stack[0].key = 0;
}

/*
 * A system call's exit when neither the inline path nor the trace's
 * fast path (__ktau_syscall_exit()) can take it:
 * nothing open (a new task's first return, or the group was switched on
 * during the call), frames left above the call's (their stop was
 * missed: discarded, as ktau_pop() does), a control change since the
 * entry, a key in neither of its hint slots (or not yet in the table),
 * handlers, the bytes of reads and writes.  Interrupts are off.
 */
static noinline void ktau_syscall_exit_general(struct task_struct *tsk,
					       struct pt_regs *regs, u64 now)
{
	struct ktau_task *kt = &tsk->ktau;
	u64 incl;
	u32 key;

	/* not the inline close's sum: a shared counter area sums it all */
	ktau_counters_touch(tsk);
	if (unlikely(!ktau_syscalls_profiled())) {
		ktau_syscall_exit_traced(kt, regs_return_value(regs), now);
		return;
	}
	ktau_stack_check(kt);
	if (!kt->depth)
		return;
	/* its bytes event, before its record, takes its context's too */
	ktau_root_resolve(tsk);
	key = kt->stack[0].key;
	if (kt->depth > KTAU_MAX_DEPTH ||
	    ktau_fid_group(ktau_key_fid(key)) != KTAU_GROUP_SYSCALL) {
		kt->depth = 0;
		return;
	}
	kt->depth = 0;
	if (ktau_key_moves_bytes(key) && READ_ONCE(ktau_events_on))
		ktau_syscall_bytes_record(tsk, key, regs_return_value(regs), now);
	incl = ktau_elapsed(kt->stack[0].start, now);
	/* ktau_record() hints the record: the next exit takes the inline path */
	if (ktau_record(tsk, 0, incl, ktau_excl(incl, kt->stack[0].child)))
		ktau_check_hints(ktau_task_table(kt));
	ktau_handlers(ktau_key_fid(key), KTAU_HANDLER_STOP, now);
}

/*
 * ktau_syscall_exit_traced() while the trace alone records system calls:
 * the call's EXIT, from the id its entry left in the outermost frame's
 * key.  A key with a caller (a user context's, or one from before a
 * control change) and the bytes of a read or write go the general way.
 */
static noinline void ktau_syscall_exit_trace_alone(struct task_struct *tsk,
						   struct pt_regs *regs,
						   u64 now)
{
	struct ktau_task *kt = &tsk->ktau;
	u32 key = kt->stack[0].key;

	if (unlikely(!(u16)key || key != (u16)key ||
		     (ktau_key_moves_bytes(key) && READ_ONCE(ktau_events_on)))) {
		ktau_syscall_exit_general(tsk, regs, now);
		return;
	}
	ktau_counters_touch(tsk);
	kt->stack[0].key = 0;
	ktau_trace_event(tsk, KTAU_TRACE_EXIT, ktau_key_fid(key), now);
}

/*
 * The traced exit of a call recorded through its hint, through the
 * general writer: its bytes first (a read or write, events on), then its
 * EXIT.
 */
static noinline void ktau_syscall_exit_trace_slow(struct task_struct *tsk,
						  struct pt_regs *regs,
						  u64 now)
{
	struct ktau_task *kt = &tsk->ktau;

	if (ktau_key_moves_bytes(kt->stack[0].key) && READ_ONCE(ktau_events_on))
		ktau_syscall_bytes_record(tsk, kt->stack[0].key,
					  regs_return_value(regs), now);
	if (static_branch_unlikely(&ktau_trace_key))
		ktau_trace_put_slow(kt, now, KTAU_TRACE_EXIT,
				    ktau_key_fid(kt->stack[0].key));
}

/*
 * After a system call's record was closed through one of its hints: a
 * read's or write's bytes, its trace event.  Each call a tail call, so
 * that the common case saves no registers.
 */
static __always_inline void ktau_syscall_exit_closed(struct task_struct *tsk,
						     struct pt_regs *regs,
						     u64 now)
{
	struct ktau_task *kt = &tsk->ktau;

	if (unlikely((ktau_key_moves_bytes(kt->stack[0].key) &&
		      READ_ONCE(ktau_events_on)) ||
		     (static_branch_unlikely(&ktau_trace_key) &&
		      !ktau_trace_put_fast(tsk, KTAU_TRACE_EXIT,
					   ktau_key_fid(kt->stack[0].key), now))))
		ktau_syscall_exit_trace_slow(tsk, regs, now);
}

/*
 * Every 8th close through the pair slot: its look at the slots, then the
 * rest of the exit.  Out of line, so that the common close keeps no
 * register across a call (the look's own calls, under a build optimized
 * for size, made it save five on every close through the pair slot).
 */
static noinline void ktau_syscall_exit_taking_back(struct task_struct *tsk,
						   struct pt_regs *regs,
						   u64 now)
{
	ktau_hint_take_back(&tsk->ktau);
	ktau_syscall_exit_closed(tsk, regs, now);
}

/*
 * A record not in its key's own hint slot: the pair slot, else the
 * general exit.
 */
static noinline void ktau_syscall_exit_paired(struct task_struct *tsk,
					      struct pt_regs *regs, u64 now)
{
	if (unlikely(!static_branch_likely(&ktau_fast_key)) ||
	    !ktau_close_root_pair(&tsk->ktau, now)) {
		ktau_syscall_exit_general(tsk, regs, now);
		return;
	}
	if (ktau_hint_take_back_due(&tsk->ktau)) {
		ktau_syscall_exit_taking_back(tsk, regs, now);
		return;
	}
	ktau_syscall_exit_closed(tsk, regs, now);
}

/*
 * The trace: the inline exit's work, the call's event, its bytes.  Else
 * the pair slot, or the general exit.
 */
static __always_inline void ktau_syscall_exit_body(struct task_struct *tsk,
						   struct pt_regs *regs,
						   u64 now)
{
	if (unlikely(!static_branch_likely(&ktau_fast_key))) {
		if (ktau_traced_alone(KTAU_GROUP_SYSCALL))
			ktau_syscall_exit_trace_alone(tsk, regs, now);
		else
			ktau_syscall_exit_general(tsk, regs, now);
		return;
	}
	if (unlikely(!ktau_close_root_hinted(&tsk->ktau, now))) {
		ktau_syscall_exit_paired(tsk, regs, now);
		return;
	}
	ktau_syscall_exit_closed(tsk, regs, now);
}

/* At @now, the clock the caller's own timers read (counters.c). */
void ktau_syscall_exit_at(struct pt_regs *regs, u64 now)
{
	ktau_syscall_exit_body(current, regs, now);
}

/*
 * For the inline exit: @tsk is current, @now the clock its close read.
 * In this order, @now is where the inline exit's clock read leaves it
 * (x86-64: %rdx), so that its common case moves nothing for the call.
 * With the inline timers on, that close looked in the record's own hint
 * slot already, so the pair slot is next (a key switched on since then
 * only costs the general exit); with the trace on, every exit comes here.
 */
void __ktau_syscall_exit(struct task_struct *tsk, struct pt_regs *regs,
			 u64 now)
{
	/* unlikely: no jump for the traced exits, which come here every time */
	if (static_branch_unlikely(&ktau_sysfast_key)) {
		ktau_syscall_exit_paired(tsk, regs, now);
		return;
	}
	ktau_syscall_exit_body(tsk, regs, now);
}

/* ---- run-time ids ---------------------------------------------------- */

/* Counts what a site could not record, e.g. for want of a function id. */
void ktau_count_dropped(void)
{
	unsigned long flags;

	if (unlikely(!ktau_may_record()))
		return;
	local_irq_save(flags);
	ktau_drop(ktau_current());
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

/**
 * ktau_start_fid() - start timing a run-time registered routine
 * @fid: its id, from ktau_get_fid() (a negative errno counts as dropped)
 *
 * The routine is timed on the current task while its group records, as
 * a callee of whatever instrumented routine is open.  Any context but
 * NMI.
 */
void ktau_start_fid(int fid)
{
	unsigned long flags;

	if (!ktau_fid_recording(fid))
		return;
	if (likely(ktau_fid_profiled(fid))) {
		ktau_start(fid);
		return;
	}
	/* the fast paths record what they take: the trace alone's is here */
	local_irq_save(flags);
	if (ktau_may_record())
		ktau_push(current, fid, ktau_arch_now());
	local_irq_restore(flags);
}
EXPORT_SYMBOL_GPL(ktau_start_fid);

/**
 * ktau_stop_fid() - stop timing a run-time registered routine
 * @fid: the id given to ktau_start_fid()
 *
 * Closes the innermost open start of @fid on the current task.
 */
void ktau_stop_fid(int fid)
{
	u64 now = ktau_arch_now();
	unsigned long flags;

	if (!ktau_fid_recording(fid))
		return;
	ktau_counters_touch(current);
	if (likely(ktau_fid_profiled(fid))) {
		ktau_stop(fid);
		return;
	}
	local_irq_save(flags);
	if (ktau_may_record())
		ktau_pop(current, fid, now);
	local_irq_restore(flags);
}
EXPORT_SYMBOL_GPL(ktau_stop_fid);

void __ktau_event(int fid, u64 value)
{
	unsigned long flags;

	/* the key is on while tracing: events are profiled, traced or not */
	if (unlikely(!READ_ONCE(ktau_events_on)))
		return;
	/* only the event group's: read() and write() stand for their bytes */
	if (unlikely(fid < 0 || fid >= ktau_nr_fids() ||
		     ktau_fid_group(fid) != KTAU_GROUP_EVENT)) {
		ktau_count_dropped();
		return;
	}
	if (unlikely(!ktau_may_record()))
		return;
	local_irq_save(flags);
	if (ktau_group_profiled(KTAU_GROUP_EVENT)) {
		ktau_account_event(current, ktau_event_parent(current), fid,
				   value);
		ktau_handlers(fid, KTAU_HANDLER_EVENT, value);
	}
	if (READ_ONCE(ktau_trace_events))
		ktau_trace_atomic(fid, value, ktau_arch_now());
	local_irq_restore(flags);
}
EXPORT_SYMBOL_GPL(__ktau_event);

/* ---- growth ---------------------------------------------------------- */

/*
 * A task's table grows where allocating may sleep: user tasks on their
 * way back to user mode (task work, in their own context, so the table
 * is charged to their memory cgroup and to their real user), kernel
 * threads through a worker that leaves a bigger table for them to take
 * at their next new record (charged to root).
 */
static LLIST_HEAD(ktau_grow_list);

static void ktau_grow_task_work(struct callback_head *cb)
{
	struct ktau_task *kt = container_of(cb, struct ktau_task, grow_work);
	struct ktau_table *t, *bigger, *old = NULL;
	kuid_t uid = task_uid(current);
	unsigned int n;

	rcu_read_lock();
	t = rcu_dereference(kt->table);
	n = ktau_table_next_size(t, READ_ONCE(ktau_records_limit));
	/* the CPU's reserve took the full table's place meanwhile */
	if (4 * READ_ONCE(t->nrec) < 3 * t->maxrec)
		n = 0;
	/* a reserve still charged to root: a copy charged to the user */
	if (!n && ktau_table_foreign(t, uid))
		n = t->maxrec;
	rcu_read_unlock();
	bigger = n ? ktau_table_new_owned(n, GFP_KERNEL_ACCOUNT, uid) : NULL;
	local_irq_disable();
	t = ktau_task_table(kt);
	if (bigger && (bigger->maxrec > t->maxrec ||
		       (bigger->maxrec == t->maxrec &&
			ktau_table_foreign(t, uid))) &&
	    !test_bit(KTAU_TASK_DEAD, &kt->flags)) {
		ktau_table_copy(bigger, t);
		if (cmpxchg((struct ktau_table __force **)&kt->table,
			    t, bigger) == t) {
			old = t;
			bigger = NULL;
		}
	}
	clear_bit(KTAU_TASK_GROWING, &kt->flags);
	local_irq_enable();
	ktau_table_free_rcu(old);
	ktau_table_free(bigger);
}

static void ktau_grow_worker(struct work_struct *work)
{
	struct llist_node *list = llist_del_all(&ktau_grow_list);
	struct ktau_task *kt, *next;

	llist_for_each_entry_safe(kt, next, list, grow_node) {
		struct task_struct *tsk = container_of(kt, struct task_struct,
						       ktau);
		struct ktau_table *bigger = NULL;
		unsigned int n = 0;

		rcu_read_lock();
		if (!test_bit(KTAU_TASK_DEAD, &kt->flags))
			n = ktau_table_next_size(rcu_dereference(kt->table),
						 READ_ONCE(ktau_records_limit));
		rcu_read_unlock();
		if (n)
			bigger = ktau_table_new(n, GFP_KERNEL);
		/* a kernel thread's: no grow_work shares the spare's place */
		if (bigger)
			ktau_table_free_rcu(xchg(&kt->spare, bigger));
		else
			clear_bit(KTAU_TASK_GROWING, &kt->flags);
		put_task_struct(tsk);
		cond_resched();
	}
}

static DECLARE_WORK(ktau_grow_work, ktau_grow_worker);

/*
 * Under the runqueue lock (a context switch's hooks), a worker's wakeup
 * could deadlock: an irq_work queues both workers once interrupts are on
 * (each finds nothing to do if it was not asked).
 */
static void ktau_kick_workers(struct irq_work *work)
{
	schedule_work(&ktau_reserve_work);
	if (!llist_empty(&ktau_grow_list))
		schedule_work(&ktau_grow_work);
}

static DEFINE_IRQ_WORK(ktau_kick_work, ktau_kick_workers);

static void ktau_queue_work(struct work_struct *work)
{
	if (this_cpu_read(ktau_in_switch))
		irq_work_queue(&ktau_kick_work);
	else
		schedule_work(work);
}

/*
 * Ask for a bigger table for @tsk (current, interrupts off), once until
 * it comes.  Tables stop growing at the per-task record limit.  An
 * exiting task asks for none: the exit's own records (ktau_task_exit()
 * closing the exit call) would otherwise have its last task work make a
 * table only to free it, some 2 000 instructions of every short process
 * whose last record crosses the mark; a full table still takes this
 * CPU's reserve, as in any context.
 */
void ktau_grow_request(struct task_struct *tsk, struct ktau_table *t)
{
	struct ktau_task *kt = &tsk->ktau;

	if (!ktau_table_next_size(t, READ_ONCE(ktau_records_limit)) ||
	    (tsk->flags & PF_EXITING) ||
	    test_and_set_bit(KTAU_TASK_GROWING, &kt->flags))
		return;
	if (tsk->flags & PF_KTHREAD) {
		get_task_struct(tsk);
		llist_add(&kt->grow_node, &ktau_grow_list);
		ktau_queue_work(&ktau_grow_work);
		return;
	}
	init_task_work(&kt->grow_work, ktau_grow_task_work);
	if (task_work_add(tsk, &kt->grow_work, TWA_RESUME))
		clear_bit(KTAU_TASK_GROWING, &kt->flags);
}

/*
 * The hooks that are static calls, not static branches, follow their
 * group's key: set after the key is enabled, cleared before it is
 * disabled.  A stop is set before its start and cleared after it, so
 * that a task that passed a start passes its stop unless the group went
 * off in between (a change, whose generation bump discards the frames
 * opened before it).
 */
void ktau_group_calls_set(unsigned int group, bool on)
{
	switch (group) {
	case KTAU_GROUP_SYSCALL:
		ktau_arch_time_syscalls(on);
		break;
	case KTAU_GROUP_SCHED:
		if (on) {
			static_call_update(ktau_switch_in_call,
					   __ktau_switch_in);
			static_call_update(ktau_switch_out_call,
					   __ktau_switch_out);
		} else {
			static_call_update(ktau_switch_out_call, NULL);
			static_call_update(ktau_switch_in_call, NULL);
			ktau_walk_tasks(ktau_switch_forget, NULL);
		}
		break;
	}
}

static void ktau_static_key_set(struct static_key_false *key, bool on)
{
	if (on && !static_key_enabled(key))
		static_branch_enable(key);
	else if (!on && static_key_enabled(key))
		static_branch_disable(key);
}

void ktau_fast_keys_set(bool fast, bool inline_timers)
{
	if (!inline_timers)
		ktau_static_key_set(&ktau_sysfast_key, false);
	ktau_static_key_set(&ktau_fast_key, fast);
	if (inline_timers)
		ktau_static_key_set(&ktau_sysfast_key, true);
}

/*
 * Tasks forked before ktau_init() got no table: give them one.  The boot
 * task, init_task, was never forked: its table is NULL, and it records
 * until it becomes the idle task, at the end of rest_init().
 */
static void __init ktau_table_early(struct task_struct *p, void *arg)
{
	struct ktau_task *kt = &p->ktau;
	struct ktau_table *old = rcu_access_pointer(kt->table);
	struct ktau_table *t;

	if (old && old != ktau_empty_table)
		return;
	t = ktau_table_new(KTAU_TABLE_MIN_RECORDS, GFP_KERNEL);
	if (!t)
		t = ktau_empty_table;
	if (cmpxchg((struct ktau_table __force **)&kt->table, old, t) != old)
		ktau_table_free(t);
}

static int __init ktau_init(void)
{
	int ret;

	BUILD_BUG_ON(NR_syscalls != KTAU_NR_SYSCALL64);
	BUILD_BUG_ON(KTAU_NR_GROUPS > 16);
	ktau_memory_init();
	ret = ktau_fid_init();
	if (ret)
		return ret;
	mutex_init(&init_task.signal->ktau.lock);
	mutex_init(&init_task.signal->ktau.children_lock);
	INIT_LIST_HEAD(&init_task.signal->ktau.deferred);
	atomic_set(&init_task.signal->ktau.folds_pending, 1);
	ktau_table_early(&init_task, NULL);
	ktau_walk_tasks(ktau_table_early, NULL);
	schedule_work(&ktau_reserve_work);
	return ktau_proc_init();
}
core_initcall(ktau_init);
