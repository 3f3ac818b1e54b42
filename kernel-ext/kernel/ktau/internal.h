/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTAU internals shared by the recording core, the profile tables, the
 * function id registry, lifetimes, control and the /proc interface.
 */
#ifndef _KERNEL_KTAU_INTERNAL_H
#define _KERNEL_KTAU_INTERNAL_H

#include <linux/ktau.h>

#include <asm/ktau_syscall_nr.h>
#include <linux/atomic.h>
#include <linux/overflow.h>
#include <linux/interrupt.h>
#include <linux/rcupdate.h>
#include <linux/uidgid.h>

struct seq_file;

/* ---- control generations (control.c writes, everyone reads) ---------- */

/*
 * ktau_gen counts control changes; ktau_group_gen[g] is the generation
 * of the last change that affected group g (its switch, a clear, a
 * start or stop).  A frame of group g opened when its task's stack was
 * valid as of generation G is still valid iff ktau_group_gen[g] <= G.
 */
extern u32 ktau_gen;
extern u32 ktau_group_gen[KTAU_NR_GROUPS];

static inline bool ktau_gen_after(u32 a, u32 b)
{
	return (s32)(a - b) > 0;
}

/* ---- profile tables (table.c) --------------------------------------- */

/*
 * Record counts: a new task's table has room for 24 (752 bytes, from a
 * cache of its own), which the callpaths of a short-lived command or of
 * most kernel threads fit: with its part in task_struct, such a task
 * takes under 1 KiB.  Its first growth is to 48 (1392 bytes, a cache of
 * its own too: a kmalloc bucket would round it to 2 KiB); each later
 * growth doubles it, up to the per-task limit.  Record ids are u16; the
 * highest caller ids mark user contexts and call count carries.
 */
#define KTAU_TABLE_MIN_RECORDS	24
#define KTAU_TABLE_NEXT_RECORDS	48
#define KTAU_RECORDS_LIMIT_MAX	65000
#define KTAU_RECORDS_DEFAULT	4096

/* Calls that make a record hot enough to keep a hint slot by its count. */
#define KTAU_HINT_HOT_CALLS	16

/* User contexts and call count carries: no callpath, no event. */
static inline bool ktau_key_is_meta(u32 key)
{
	return KTAU_REC_PARENT(key) >= KTAU_REC_CARRY;
}

/*
 * An atomic event takes two records, told apart from callpaths by a kind
 * bit: one holds count, sum and sum of squares in calls, incl and excl,
 * the other, first, the minimum and maximum in incl and excl, and in
 * calls whether they are set.
 */
static inline bool ktau_key_is_event(u32 key)
{
	return (key & KTAU_REC_RANGE) && !ktau_key_is_meta(key);
}

static inline bool ktau_key_is_range(u32 key)
{
	return (key & KTAU_REC_SUM) == KTAU_REC_RANGE && !ktau_key_is_meta(key);
}

/*
 * The key in a record's count-and-key word @calls_key, without the carry
 * bit of its count.
 */
static inline u32 ktau_word_key(u64 calls_key)
{
	u32 key = calls_key >> 32;

	return ktau_key_is_meta(key) ? key : key & ~KTAU_REC_CARRIED;
}

/*
 * The calls in a record's count-and-key word @calls_key, with the carry
 * its key holds (not those of its carry record); a carry record's are
 * the calls of its carries, a user context's none.
 */
static inline u64 ktau_word_calls(u64 calls_key)
{
	u32 key = calls_key >> 32;

	if (KTAU_REC_PARENT(key) == KTAU_REC_CTX)
		return 0;
	if (KTAU_REC_PARENT(key) == KTAU_REC_CARRY)
		return (u64)(u32)calls_key << KTAU_CALLS_CARRY_LOG;
	return ((u32)calls_key >> KTAU_CALLS_SHIFT) +
	       ((u64)(key & KTAU_REC_CARRIED) << KTAU_CALLS_CARRY_LOG);
}

/* @e's key, without the carry bit of its count. */
static inline u32 ktau_rec_key(const struct ktau_entry *e)
{
	return ktau_word_key(READ_ONCE(e->calls_key));
}

/* @e's calls (ktau_word_calls()). */
static inline u64 ktau_rec_calls(const struct ktau_entry *e)
{
	return ktau_word_calls(READ_ONCE(e->calls_key));
}

/* The key of a record whose caller is record @parent_id. */
static inline u32 ktau_child_key(unsigned int parent_id, unsigned int fid)
{
	return KTAU_REC_KEY(parent_id, KTAU_REC_LOW(fid));
}

/* The key of the record of user context @value (not 0). */
static inline u32 ktau_ctx_rec_key(u32 value)
{
	return KTAU_REC_KEY(KTAU_REC_CTX, (value ^ (value >> 16)) & 0xffff);
}

/* The key of the carries of the call count of record @id. */
static inline u32 ktau_carry_key(unsigned int id)
{
	return KTAU_REC_KEY(KTAU_REC_CARRY, id);
}

/*
 * A caller field a record may have: a record id, a user context's
 * record, or none.
 */
static inline bool ktau_key_addable(u32 key)
{
	return KTAU_REC_PARENT(key) <= KTAU_RECORDS_LIMIT_MAX ||
	       KTAU_REC_PARENT(key) >= KTAU_REC_CARRY;
}

/* Calls that found no room in @t (written by its owner only). */
static inline u64 *ktau_table_dropped(const struct ktau_table *t)
{
	return (u64 *)&t->rec[t->maxrec];
}

static inline unsigned int ktau_record_id(const struct ktau_table *t,
					  const struct ktau_entry *e)
{
	return e - t->rec + 1;
}

/*
 * A key's record is hinted in the key's own slot or, when another key
 * of that slot took it since, in the pair slot (slot ^ 1), so that two
 * hot callpaths whose keys share a slot (a process's write() and its
 * read() => schedule_vol) are both found without a lookup.  A hint is
 * always the offset of a record of @t's array (0 in a new table): one
 * that is not in use yet has key 0, which no record has.
 */
static __always_inline unsigned int
ktau_table_hinted_off(const struct ktau_table *t, u32 key)
{
	unsigned int slot = ktau_hint_off(key);
	unsigned int off = ktau_hint_at(t, slot);

	if (likely(((struct ktau_entry *)((void *)t->rec + off))->key == key))
		return off;
	/* the pair slot: slot ^ 1, as a byte offset */
	off = ktau_hint_at(t, slot ^ 2);
	if (((struct ktau_entry *)((void *)t->rec + off))->key == key)
		return off;
	return U16_MAX;
}

/* The record of @key if one of its hint slots names it, else NULL. */
static __always_inline struct ktau_entry *
ktau_table_hinted(const struct ktau_table *t, u32 key)
{
	unsigned int off = ktau_table_hinted_off(t, key);

	return off != U16_MAX ? (void *)t->rec + off : NULL;
}

/*
 * The record id a hint names: @off / sizeof(struct ktau_entry) + 1.  A
 * hint is a u16 multiple of 24, so off / 24 is (off / 8) / 3 with a
 * dividend below 2^13, where x / 3 == x * 0xaaab >> 17 holds; -Os would
 * otherwise compile a div on every start taken through a hint.
 */
static __always_inline unsigned int ktau_hint_id(unsigned int off)
{
	BUILD_BUG_ON(sizeof(struct ktau_entry) != 24);
	return ((off >> 3) * 0xaaab >> 17) + 1;
}

/* ktau_table_hinted() as a record id, 0 for none. */
static __always_inline unsigned int
ktau_table_hinted_id(const struct ktau_table *t, u32 key)
{
	unsigned int off = ktau_table_hinted_off(t, key);

	return off != U16_MAX ? ktau_hint_id(off) : 0;
}

/* Whether hint slot @slot names a record whose key's own slot it is. */
static __always_inline bool ktau_hint_owned(const struct ktau_table *t,
					    unsigned int slot)
{
	const struct ktau_entry *e = (void *)t->rec + t->hint[slot];

	return ktau_hint_slot(e->key) == slot;
}

/* The calls of the record hint slot @slot names. */
static inline u64 ktau_hint_calls(const struct ktau_table *t,
				  unsigned int slot)
{
	return ktau_rec_calls((void *)t->rec + t->hint[slot]);
}

/*
 * Whether the record of hint slot @a gives way to one of slot @b's hot
 * key: @b's record is hot (KTAU_HINT_HOT_CALLS calls) and @a's has fewer.
 * A short process's records have a call or two each, and those of its
 * children template none yet: the ones it has not made yet are as likely
 * to come as a used one is to come again.
 */
static inline bool ktau_hint_colder(const struct ktau_table *t,
				    unsigned int a, unsigned int b)
{
	u64 calls = ktau_hint_calls(t, b);

	return calls >= KTAU_HINT_HOT_CALLS && ktau_hint_calls(t, a) < calls;
}

/*
 * Hint @key's record @e (only @t's writer), unless one of its two slots
 * names it already: in the key's own slot, unless that slot names a
 * record of its own and the pair slot does not, or names a colder one
 * (ktau_hint_colder()); then in the pair slot.  A record hinted once
 * stays where it is until another takes its slot, so that two keys of
 * one slot do not evict each other at every use (a system call's exit
 * closes a record in either slot); a record in a slot not its own gives
 * way first, then a colder one, so that a record a program no longer
 * uses (one of a children template, of its start) does not keep a hot
 * one out.  Three hot keys on two slots still evict one another.
 */
static __always_inline void ktau_table_hint(struct ktau_table *t, u32 key,
					    const struct ktau_entry *e)
{
	unsigned int idx = e - t->rec, slot = ktau_hint_slot(key);
	unsigned int off = idx * sizeof(*e);

	if (idx > KTAU_HINT_MAX_INDEX || t->hint[slot] == off ||
	    t->hint[slot ^ 1] == off)
		return;
	if (ktau_hint_owned(t, slot) &&
	    (!ktau_hint_owned(t, slot ^ 1) ||
	     ktau_hint_colder(t, slot ^ 1, slot)))
		slot ^= 1;
	t->hint[slot] = off;
}

/*
 * Hint the new record @e of @key in a slot of its two that names no
 * record of its own, if one does not: a record used once takes no hot
 * record's place, and one used twice (a short process's brk()) finds its
 * record through the hint at its second use already.
 */
static __always_inline void ktau_table_hint_new(struct ktau_table *t, u32 key,
						const struct ktau_entry *e)
{
	unsigned int idx = e - t->rec, slot = ktau_hint_slot(key);

	if (idx > KTAU_HINT_MAX_INDEX)
		return;
	if (ktau_hint_owned(t, slot)) {
		slot ^= 1;
		if (ktau_hint_owned(t, slot))
			return;
	}
	t->hint[slot] = idx * sizeof(*e);
}

/* A table with no room: tasks whose table could not be allocated. */
extern struct ktau_table *const ktau_empty_table;

/* Tunables (control file), read on the paths that may grow a table. */
extern unsigned int ktau_records_limit;
extern unsigned long ktau_mem_limit;

/*
 * How a table that is not a task's grows: up to how many records, with
 * which allocation flags, and whether it is charged to a user, @owner,
 * and counts against ktau_mem_limit (process totals are, to the user
 * whose task folds into them; a /proc reader's copies are charged to the
 * reader's memory cgroup only).
 */
struct ktau_alloc {
	unsigned int limit;
	gfp_t gfp;
	bool charged;
	kuid_t owner;
};

extern const struct ktau_alloc ktau_alloc_totals;
extern const struct ktau_alloc ktau_alloc_reader;

struct ktau_table *ktau_table_new(unsigned int maxrec, gfp_t gfp);
struct ktau_table *ktau_table_new_owned(unsigned int maxrec, gfp_t gfp,
					kuid_t owner);
bool ktau_table_foreign(const struct ktau_table *t, kuid_t uid);
int ktau_table_recharge(struct ktau_table *t, kuid_t uid);
void ktau_table_free(struct ktau_table *t);
void ktau_table_free_rcu(struct ktau_table *t);
void ktau_table_keep(struct ktau_table *t);
size_t ktau_table_bytes(const struct ktau_table *t);
unsigned int ktau_table_next_size(const struct ktau_table *t,
				  unsigned int limit);
struct ktau_entry *ktau_table_lookup(const struct ktau_table *t, u32 key);
struct ktau_entry *ktau_table_add(struct ktau_table *t, u32 key);
struct ktau_entry *ktau_table_ctx(struct ktau_table *t, u32 value, bool add);
void ktau_table_copy(struct ktau_table *dst, const struct ktau_table *src);
struct ktau_table *ktau_template_make(const struct ktau_table *src);
bool ktau_template_same(const struct ktau_table *tmpl,
			const struct ktau_table *src);
void ktau_template_apply(struct ktau_table *dst, const struct ktau_table *tmpl);
struct ktau_entry *ktau_table_get(struct ktau_table **tp, u32 key,
				  const struct ktau_alloc *a);

/*
 * An event's minimum and maximum; its count only says that they are set
 * (the other record has the count).
 */
static inline void ktau_range_add(struct ktau_entry *e, u64 min, u64 max)
{
	if (!e->calls || min < e->incl)
		WRITE_ONCE(e->incl, min);
	if (!e->calls || max > e->excl)
		WRITE_ONCE(e->excl, max);
	WRITE_ONCE(e->calls, KTAU_CALLS_ONE);
}

/*
 * An event's sum and (saturating) sum of squares; the caller adds the
 * count, which carries.
 */
static inline void ktau_sum_add(struct ktau_entry *e, u64 sum, u64 sumsq)
{
	u64 sq;

	if (check_add_overflow(e->excl, sumsq, &sq))
		sq = U64_MAX;
	WRITE_ONCE(e->incl, e->incl + sum);
	WRITE_ONCE(e->excl, sq);
}

/*
 * ktau_fold() translates caller ids through one u16 per source record.
 * A fold's source is a table's records; a view's are its own (view.h).
 */
u64 ktau_fold(struct ktau_table **dst, const struct ktau_entry *src,
	      unsigned int n, u16 *map, const struct ktau_alloc *a);

/* Per-user accounts of grown tables (user.c). */
extern unsigned long ktau_user_limit;
int ktau_user_charge(kuid_t uid, size_t bytes, bool may_sleep);
void ktau_user_uncharge(kuid_t uid, size_t bytes);
int ktau_user_set_limit(kuid_t uid, unsigned long limit);
void ktau_users_show(struct seq_file *m);
void ktau_users_init(unsigned long limit);

/* Memory of profiles, for the control file. */
void ktau_memory_usage(unsigned long *tasks, unsigned long *bytes);
void ktau_memory_init(void);

/* ---- function id registry (fid.c) ----------------------------------- */

#define KTAU_MAX_FIDS		CONFIG_KTAU_MAX_FIDS

/* The static instrumentation points, registered after the syscalls. */
enum ktau_static_point {
	KTAU_SP_NI_SYSCALL,
	KTAU_SP_SOFTIRQ,	/* one per softirq vector */
	KTAU_SP_IRQ = KTAU_SP_SOFTIRQ + NR_SOFTIRQS,
	KTAU_SP_PAGE_FAULT,
	KTAU_SP_SCHEDULE_VOL,
	KTAU_SP_SCHEDULE_INVOL,
	KTAU_SP_READ_BYTES,	/* atomic events: bytes per read() */
	KTAU_SP_WRITE_BYTES,	/* and per write() */
	KTAU_NR_STATIC_POINTS,
};

#define KTAU_FID_STATIC(point) \
	(KTAU_NR_SYSCALL64 + KTAU_NR_COMPAT_ONLY + (point))
#define KTAU_FID_NI_SYSCALL	KTAU_FID_STATIC(KTAU_SP_NI_SYSCALL)

extern const char *const ktau_group_names[KTAU_NR_GROUPS];

unsigned int ktau_nr_fids(void);
const char *ktau_fid_name(unsigned int fid);
const char *ktau_group_name(unsigned int group);
int ktau_fid_group(unsigned int fid);
unsigned int ktau_sys64_fid_other(unsigned long nr);

/* A 64-bit system call's id: its number, but for x32's and invalid ones. */
static __always_inline unsigned int ktau_sys64_fid(unsigned long nr)
{
	if (likely(nr < KTAU_NR_SYSCALL64))
		return nr;
	return ktau_sys64_fid_other(nr);
}

unsigned int ktau_compat_fid(unsigned long nr);
int ktau_fid_init(void);
unsigned int ktau_fids_refused(void);

/* ---- recording core (core.c) ---------------------------------------- */

/* ktau_task.flags bits */
/*
 * The key a context switch leaves in the task's first free frame slot
 * until it is switched in (core.c): no frame has a key whose low half,
 * the function id's, is 0.
 */
#define KTAU_SWITCH_KEY(invol)	KTAU_REC_KEY(1 + (invol), 0)

/* Whether frame key @key is one a switch left. */
static inline bool ktau_is_switch_key(u32 key)
{
	return key == KTAU_SWITCH_KEY(false) || key == KTAU_SWITCH_KEY(true);
}

/*
 * Its slot: the first free one, the second with no frame open (the
 * first one's key may name a call open while its group is not
 * profiled).
 */
static inline unsigned int ktau_switch_slot(unsigned int depth)
{
	return depth ? depth : 1;
}

enum {
	KTAU_TASK_DEAD,		/* exited: its profile was folded */
	KTAU_TASK_GROWING,	/* a bigger table is on its way */
	KTAU_TASK_SCHED_INVOL,	/* its switch past the deepest frame: preempted */
	KTAU_TASK_SWITCHED_DEEP, /* switched out past the deepest frame */
	KTAU_TASK_TRACE_READER,	/* has /proc/ktau/trace open: not traced */
	KTAU_TASK_COUNTERS_STALE, /* a clear swapped its table (counters.c) */
	KTAU_TASK_COUNTERS_DIRTY, /* its area may differ from its table */
};

static inline struct ktau_task *ktau_current(void)
{
	return &current->ktau;
}

static inline unsigned int ktau_key_fid(u32 key)
{
	return KTAU_REC_FID(key);
}

/* The record key of frame @i of @kt. */
static inline u32 ktau_frame_key(const struct ktau_task *kt, unsigned int i)
{
	return kt->stack[i].key;
}

/*
 * The user context value of @kt's outermost frame, whose key is @key,
 * through its record in @t; 0 if it has none, or @t no such record.
 */
static inline u32 ktau_root_ctx_value(const struct ktau_table *t, u32 key)
{
	unsigned int id = KTAU_REC_PARENT(key);

	if (!id || id > READ_ONCE(t->nrec) ||
	    KTAU_REC_PARENT(READ_ONCE(t->rec[id - 1].key)) != KTAU_REC_CTX)
		return 0;
	return READ_ONCE(t->rec[id - 1].incl);
}

void ktau_unwind(struct task_struct *tsk);
void ktau_count_dropped(void);
bool ktau_stack_frame_stale(const struct ktau_task *kt, unsigned int i,
			    u32 valid_gen);
void ktau_grow_request(struct task_struct *tsk, struct ktau_table *t);
void ktau_grow_init(void);

/* Profiling handlers (handler.c). */
extern struct static_key_false ktau_handler_key;
void ktau_call_handlers(unsigned int fid, unsigned int type, u64 value);

void ktau_trace_point(unsigned int fid, unsigned int type, u64 tsc);

/*
 * The trace and the handlers of a point the general paths take.  By
 * value: a hook whose handlers are off keeps its timestamp in a register.
 */
static __always_inline void ktau_handlers(unsigned int fid, unsigned int type,
					  u64 value)
{
	if (static_branch_unlikely(&ktau_trace_key))
		ktau_trace_point(fid, type, value);
	if (static_branch_unlikely(&ktau_handler_key))
		ktau_call_handlers(fid, type, value);
}

/* The trace of a start or stop the fast paths took. */
static __always_inline void ktau_trace_fast(unsigned int fid,
					    unsigned int type, u64 tsc)
{
	if (static_branch_unlikely(&ktau_trace_key))
		ktau_trace_point(fid, type, tsc);
}

/*
 * ktau_fast_key selects the fast paths: ktau_push_fast(), the fast stops,
 * and the root frames of system calls and user mode faults opened and
 * closed through their hints.  They call no handler and record every
 * point of the groups they serve (KTAU_FAST_GROUPS), so they are on only
 * while no handler is registered and each of those groups whose key is
 * on is profiled (the trace turns every key on).  The general paths,
 * which test each point's group, take everything else.
 * ktau_sysfast_key selects the inline system call timers, which do not
 * trace either: on with ktau_fast_key while nothing is traced.  Both are
 * set under the control lock (ktau_fast_sync(), control.c).
 */
extern struct static_key_false ktau_fast_key;
#define KTAU_FAST_GROUPS	(BIT(KTAU_GROUP_SYSCALL) | BIT(KTAU_GROUP_SOFTIRQ) | \
				 BIT(KTAU_GROUP_IRQ) | BIT(KTAU_GROUP_SCHED) | \
				 BIT(KTAU_GROUP_EXCEPTION))
void ktau_fast_keys_set(bool fast, bool inline_timers);
void ktau_group_calls_set(unsigned int group, bool on);
void ktau_fast_sync(void);

void ktau_syscall_exit_at(struct pt_regs *regs, u64 now);

/* ---- shared counters (counters.c) ------------------------------------- */

void ktau_counters_fork(struct task_struct *tsk, u64 clone_flags);
void ktau_counters_drop(struct ktau_task *kt);
void __ktau_counters_touch(struct task_struct *tsk);

/*
 * A recording other than a system call's exit changed @tsk's profile:
 * if it has a shared counter area, have it written before @tsk returns
 * to user mode.  Any context.
 */
static __always_inline void ktau_counters_touch(struct task_struct *tsk)
{
	if (static_branch_unlikely(&ktau_counters_key.key) &&
	    unlikely(tsk->ktau.counters))
		__ktau_counters_touch(tsk);
}

/* ---- user contexts (context.c) ---------------------------------------- */

void ktau_context_get(void);
void ktau_context_put(void);
unsigned int ktau_contexts(void);

/* ---- lifetimes (lifetime.c) ------------------------------------------- */

extern bool ktau_tables_wanted;
void ktau_task_table_give(struct task_struct *p, void *arg);
void ktau_clear_begin(void);
void ktau_task_clear(struct task_struct *p);
void ktau_process_clear(struct task_struct *p);
void ktau_clear_deferred(void);
unsigned int ktau_signal_pending(struct ktau_signal *ks);
void ktau_ctx_forget(struct task_struct *p);
void ktau_signal_clear(struct signal_struct *sig);
extern atomic64_t ktau_dropped_untabled;

/* ---- trace mode (trace.c) ------------------------------------------- */

struct ktau_control_cmd;

extern bool ktau_tracing;

/*
 * Atomic events are traced while the event group is enabled, recording
 * started or not (ktau_trace_events); ktau_events_on: they are profiled
 * or traced (control.c).
 */
extern bool ktau_trace_events;
extern bool ktau_events_on;

static inline bool ktau_trace_on(void)
{
	/* Pairs with smp_store_release() when tracing starts: rings first. */
	return smp_load_acquire(&ktau_tracing);
}

void ktau_trace_context(u32 value);
void ktau_trace_exec(void);
void ktau_trace_exit(void);
void ktau_trace_fork(struct ktau_task *child, const struct ktau_task *parent);
int ktau_trace_control(const struct ktau_control_cmd *cmd);
void ktau_trace_show(struct seq_file *m);
int ktau_trace_init(struct proc_dir_entry *dir);

/* ---- control and /proc (control.c, proc.c) ----------------------------- */

/*
 * The groups whose points update profiles: recording started and the
 * group enabled.  A group's key may be on for tracing alone.
 */
extern unsigned long ktau_profiled_groups;

static inline bool ktau_fid_profiled(unsigned int fid)
{
	int group = ktau_fid_group(fid);

	return group >= 0 && (READ_ONCE(ktau_profiled_groups) & BIT(group));
}

static inline bool ktau_group_profiled(unsigned int group)
{
	return READ_ONCE(ktau_profiled_groups) & BIT(group);
}

static inline bool ktau_syscalls_profiled(void)
{
	return ktau_group_profiled(KTAU_GROUP_SYSCALL);
}

int ktau_proc_init(void);
int ktau_control_init(struct proc_dir_entry *dir);
typedef void (*ktau_task_fn_t)(struct task_struct *p, void *arg);
void ktau_walk_tasks(ktau_task_fn_t fn, void *arg);

#endif /* _KERNEL_KTAU_INTERNAL_H */
