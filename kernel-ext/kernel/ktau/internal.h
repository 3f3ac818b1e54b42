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

static inline unsigned int ktau_frame_fid(const struct ktau_frame *f)
{
	return KTAU_KEY_FID(f->key);
}

/* A process's totals of exited threads and reaped children. */
struct ktau_signal {
	struct ktau_table __rcu *exited;
	struct ktau_table __rcu *children;
	unsigned int exited_threads;
	unsigned int processes;
	u64 exited_dropped;
	u64 children_dropped;
};

static inline bool ktau_task_cleared(const struct ktau_task *kt)
{
	return READ_ONCE(kt->gens.table) != READ_ONCE(ktau_gens.table);
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

/* The profile of current, which every task has (see ktau_types.h). */
static __always_inline struct ktau_task *ktau_current(void)
{
	return &current->ktau;
}

void ktau_count_dropped(void);
struct ktau_entry *ktau_table_entry(struct ktau_table __rcu **tp, u64 key);

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
 * system call checks one static key on entry, ktau_sysentry_key: on
 * while the syscall group records or a context word was ever registered.
 * ktau_sysfast_key selects the inline system call timers: on while the
 * syscall group records and neither a context word nor a handler was
 * registered.  Call this after changing any of those.
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
