/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTAU internals shared by the recording core, the function id registry
 * and the /proc interface.
 */
#ifndef _KERNEL_KTAU_INTERNAL_H
#define _KERNEL_KTAU_INTERNAL_H

#include <linux/ktau.h>

#include "syscall_nr.h"
#include <linux/atomic.h>
#include <linux/interrupt.h>
#include <linux/rcupdate.h>
#include <asm/msr.h>

/*
 * Deepest nesting recorded per task: a syscall, a page fault in it, a
 * hard IRQ, a softirq at its exit, an IRQ inside that, and a few
 * run-time registered routines.  Deeper starts are counted as dropped.
 */
#define KTAU_MAX_DEPTH		8

/*
 * A profile table is allocated in kmalloc's power-of-two sizes, header
 * included, so that no allocation is rounded up: the first takes 512
 * bytes (15 slots), the next 768 (23 slots, from a cache of its own, so
 * that a typical process's profile and its task part stay within 1 KiB),
 * then 1024, and each further growth doubles it.  A table grows when
 * 7/8 of its slots are used, or 3/4 from 1024 bytes on: a task with that
 * many keys is a busy one, whose lookups want short probe sequences.  A
 * task never holds a table larger than the maximum; further keys are
 * dropped (and counted).
 */
#define KTAU_TABLE_MIN_BYTES	512
#define KTAU_TABLE_MID_BYTES	768
#define KTAU_TABLE_MAX_BYTES	(256 * 1024)

/*
 * A profile key packs (user context, caller fid + 1, fid + 1) so that one
 * lookup per stop updates the caller->callee entry; flat profiles are
 * sums over callers, computed when /proc is read.  Key 0 marks a free
 * slot.
 */
#define KTAU_KEY(ctx, parent_slot, fid) \
	(KTAU_CTX_KEY(ctx) | ((u64)(parent_slot) << 16) | ((u64)(fid) + 1))
#define KTAU_CTX_KEY(ctx)	((u64)(ctx) << 32)
#define KTAU_KEY_CTX(key)	((u32)((key) >> 32))
#define KTAU_KEY_PARENT(key)	((u32)(((key) >> 16) & 0xffff))
#define KTAU_KEY_FID(key)	((u32)((key) & 0xffff) - 1)
#define KTAU_NO_PARENT		0

/*
 * An atomic event takes two entries, told apart from caller -> callee
 * entries by caller slots no function id can have (ids stay below
 * U16_MAX - 2): one holds count, sum and sum of squares in calls, incl
 * and excl, the other count, minimum and maximum.
 */
#define KTAU_EVENT_RANGE	0xfffe
#define KTAU_EVENT_SUM		0xffff

static inline bool ktau_key_is_event(u64 key)
{
	return KTAU_KEY_PARENT(key) >= KTAU_EVENT_RANGE;
}

struct ktau_entry {
	u64 key;
	u64 calls;
	u64 incl;
	u64 excl;
};

struct ktau_table {
	struct rcu_head rcu;
	unsigned int slots;
	unsigned int used;
	struct ktau_entry slot[];
};

/*
 * One open (started, not yet stopped) instrumented routine.  The key of
 * the entry its stop updates is made at the start: the user context
 * cannot change before the kernel returns to user mode.
 */
struct ktau_frame {
	u64 start;
	u64 child;			/* cycles of instrumented children */
	u64 key;			/* KTAU_KEY(ctx, caller, fid) */
};

static inline unsigned int ktau_frame_fid(const struct ktau_frame *f)
{
	return KTAU_KEY_FID(f->key);
}

/*
 * Generations: the stack's is bumped whenever recording is switched on
 * (frames opened before may have missed their stops), the table's by
 * each clear (a task table of an older one reads as empty).
 */
union ktau_gens {
	struct {
		unsigned int stack;
		unsigned int table;
	};
	u64 both;
};

/*
 * Per-task profile.  Only the owning task, and interrupts taken while it
 * runs, write it, with interrupts disabled; /proc readers on other CPUs
 * read the table under RCU.
 */
struct proc_dir_entry;

struct ktau_task {
	struct ktau_table __rcu *table;
	unsigned int depth;
	unsigned int overflow;		/* starts beyond KTAU_MAX_DEPTH */
	union ktau_gens gens;		/* stack valid since, table of */
	u64 ctx_key;			/* KTAU_CTX_KEY(user context) */
	u32 __user *ctx_word;		/* where the task keeps it, or NULL */
	u64 dropped;
	struct ktau_frame stack[KTAU_MAX_DEPTH];
};

/* A process's totals of exited threads and reaped children. */
struct ktau_signal {
	struct ktau_table __rcu *exited;
	struct ktau_table __rcu *children;
	unsigned int exited_threads;
	unsigned int processes;
	u64 exited_dropped;
	u64 children_dropped;
};

/* The generations a task is current with: one compare checks both. */
extern union ktau_gens ktau_gens;

static inline bool ktau_task_cleared(const struct ktau_task *kt)
{
	return READ_ONCE(kt->gens.table) != READ_ONCE(ktau_gens.table);
}

static __always_inline bool ktau_task_current(const struct ktau_task *kt)
{
	return READ_ONCE(kt->gens.both) == READ_ONCE(ktau_gens.both);
}

/*
 * The clock of every timer: the TSC, whose rate the profile header gives
 * (tsc_khz).  rdtsc() is always inlined, get_cycles() not at -Os.
 */
static __always_inline u64 ktau_now(void)
{
	return rdtsc();
}

/* Tasks whose profile was lost for want of memory at exit. */
extern atomic64_t ktau_lost_tasks;

/* Function id registry (fid.c). */
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
	(KTAU_NR_SYSCALL64 + KTAU_NR_IA32_ONLY + (point))
#define KTAU_FID_NI_SYSCALL	KTAU_FID_STATIC(KTAU_SP_NI_SYSCALL)

extern const char *const ktau_group_names[KTAU_NR_GROUPS];

unsigned int ktau_nr_fids(void);
const char *ktau_fid_name(unsigned int fid);
const char *ktau_group_name(unsigned int group);
int ktau_fid_group(unsigned int fid);
unsigned int ktau_sys64_fid_other(unsigned long nr);

/* A 64-bit system call's id: its number, but for x32 and invalid ones. */
static __always_inline unsigned int ktau_sys64_fid(unsigned long nr)
{
	if (likely(nr < KTAU_NR_SYSCALL64))
		return nr;
	return ktau_sys64_fid_other(nr);
}

unsigned int ktau_ia32_fid(unsigned long nr);
int ktau_fid_init(void);
unsigned int ktau_fids_refused(void);

/* Recording core (core.c). */
void ktau_start(unsigned int fid);
void ktau_stop(unsigned int fid);
void ktau_unwind(struct ktau_task *kt);
struct ktau_task *ktau_current_alloc(void);

/* The profile of current, made on first use when fork could not. */
static __always_inline struct ktau_task *ktau_current(void)
{
	struct ktau_task *kt = current->ktau;

	return likely(kt) ? kt : ktau_current_alloc();
}

void ktau_count_dropped(void);
struct ktau_entry *ktau_table_entry(struct ktau_table __rcu **tp, u64 key);

/*
 * Add to a profile counter.  Only the table's writer updates it (its task
 * with interrupts off, or a fold under a lock) while readers on other
 * CPUs load it with READ_ONCE(): one add to memory, which they never see
 * torn, and no lock prefix, as local64_add() does.  WRITE_ONCE(c, c + v)
 * would take a load, an add and a store.
 */
static __always_inline void ktau_counter_add(u64 *c, u64 v)
{
	asm volatile("addq %1, %0" : "+m" (*c) : "er" (v));
}

/*
 * The inclusive time is stored before the exclusive time so that a
 * reader that loads them in the other order never sees exclusive >
 * inclusive.
 */
static __always_inline void ktau_entry_add(struct ktau_entry *e, u64 calls,
					   u64 incl, u64 excl)
{
	ktau_counter_add(&e->calls, calls);
	ktau_counter_add(&e->incl, incl);
	/* Pairs with smp_rmb() in ktau_block_add_table(). */
	smp_wmb();
	ktau_counter_add(&e->excl, excl);
}

void ktau_range_add(struct ktau_entry *e, u64 count, u64 min, u64 max);
unsigned int ktau_table_fold(struct ktau_table __rcu **dst,
			     const struct ktau_table *src);

/* Profiling handlers (handler.c). */
extern struct static_key_false ktau_handler_key;
void ktau_call_handlers(unsigned int fid, unsigned int type, u64 value);

/* By value: a hook whose handlers are off keeps its timestamp in a register. */
static __always_inline void ktau_handlers(unsigned int fid, unsigned int type,
					  u64 value)
{
	if (static_branch_unlikely(&ktau_handler_key))
		ktau_call_handlers(fid, type, value);
}

/*
 * The syscall entry hook reads the user context word as well, so that a
 * system call checks one static key on entry: this one, on while the
 * syscall group records or a context word was ever registered.
 */
void ktau_sysentry_update(void);

/* Memory in use by task profiles (core.c), for the control file. */
void ktau_memory_usage(unsigned long *tasks, unsigned long *bytes);

/* Lifetimes (lifetime.c). */
void ktau_signal_reset(struct signal_struct *sig);

/* /proc interface (proc.c, control.c). */
int ktau_proc_init(void);
int ktau_control_init(struct proc_dir_entry *dir);

#endif /* _KERNEL_KTAU_INTERNAL_H */
