/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTAU trace mode: the rings and the common event's writer, inline in
 * the recording paths that have the task, the routine and the TSC at
 * hand (core.c); the rest of the trace is trace.c's.
 */
#ifndef _KERNEL_KTAU_TRACE_H
#define _KERNEL_KTAU_TRACE_H

#include <linux/percpu.h>
#include <linux/sched.h>

#include "internal.h"

enum ktau_trace_type {
	KTAU_TRACE_ENTRY = 1,
	KTAU_TRACE_EXIT,
	KTAU_TRACE_TASK,
	KTAU_TRACE_EXEC,
	KTAU_TRACE_TASK_EXIT,
	KTAU_TRACE_CONTEXT,
	KTAU_TRACE_ATOMIC,
};

struct ktau_trace_unit {
	union {
		u64 stamp;		/* TSC, type in bits 56-63 */
		u8 stamp_bytes[8];	/* [7]: the type (little-endian) */
	};
	u32 tid;
	u32 data;
};

struct ktau_trace_cpu {
	struct ktau_trace_unit *ring;	/* NULL while not tracing */
	u64 mask;			/* units in the ring - 1 */
	u64 head;			/* units written (this CPU) */
	struct ktau_trace_unit *wp;	/* ring + head % units */
	struct ktau_trace_unit *wlimit;	/* the fast writer's end (see */
					/* ktau_trace_put_fast()) */
	u64 tail;			/* units drained (the reader) */
	u64 lost;			/* events that found the ring full */
	u64 lost_reported;		/* lost as of its last chunk (reader) */
	u64 wake;			/* units that wake a reader in poll() */
};

DECLARE_PER_CPU(struct ktau_trace_cpu, ktau_trace_cpus);

/*
 * The trace_tag of a task whose events go to the trace with no further
 * test (traced, announced in this trace, not the reader):
 * (tag & mask) == want.
 */
struct ktau_trace_match {
	u32 mask;
	u32 want;
};

extern struct ktau_trace_match ktau_trace_match;

void ktau_trace_put_slow(struct ktau_task *kt, u64 tsc, unsigned int type,
			 u32 data);
long ktau_trace_syscall_open_slow(const struct pt_regs *regs, long nr);
void ktau_trace_atomic(unsigned int fid, u64 value, u64 tsc);

/*
 * The common event: one unit, from a task whose tag matches, at wp,
 * below wlimit: the ring's end or where its room ended as of the last
 * time the general writer looked, or, while a reader waits in poll(),
 * where the ring holds enough to wake it (the reader sets it to NULL as
 * it starts to wait, so that the general writer sets that limit).  Returns false, having written
 * nothing, when the general writer (ktau_trace_put_slow()) must take it.
 * Interrupts are off; the CPU is the ring's only writer: raw per-CPU
 * accessors suffice for what only it writes (arm64's this_cpu_inc() is
 * an atomic add, out of line at -Os), not for wlimit, which a reader
 * may set.  Only the
 * points behind ktau_trace_key call it: the rings are there while the
 * key is on (static_branch_*() waits for every CPU, and writers run with
 * interrupts off).
 */
static __always_inline bool ktau_trace_put_fast(struct task_struct *tsk,
						unsigned int type, u32 data,
						u64 tsc)
{
	struct ktau_trace_unit *u = __this_cpu_read(ktau_trace_cpus.wp);

	if (unlikely((READ_ONCE(tsk->ktau.trace_tag) &
		      READ_ONCE(ktau_trace_match.mask)) !=
		     READ_ONCE(ktau_trace_match.want) ||
		     u >= this_cpu_read(ktau_trace_cpus.wlimit)))
		return false;
	/* the type's byte store replaces the TSC's bits 56 to 63 */
	u->stamp = tsc;
	u->stamp_bytes[7] = type;
	u->tid = tsk->pid;
	u->data = data;
	__this_cpu_write(ktau_trace_cpus.wp, u + 1);
	/*
	 * Pairs with smp_load_acquire() of head by the reader: the event's
	 * stores come first (a compiler barrier where stores stay in order,
	 * as on x86).
	 */
	smp_wmb();
	__this_cpu_inc(ktau_trace_cpus.head);
	return true;
}

/* An event of @tsk (current) at @tsc.  Interrupts are off. */
static __always_inline void ktau_trace_event(struct task_struct *tsk,
					     unsigned int type, u32 data,
					     u64 tsc)
{
	if (unlikely(!ktau_trace_put_fast(tsk, type, data, tsc)))
		ktau_trace_put_slow(&tsk->ktau, tsc, type, data);
}

/*
 * The entry of the frame ktau_open_root() opened on @tsk (current) for
 * @fid, a user mode fault's (a system call's: ktau_trace_syscall_open()).
 * Interrupts are off.
 */
static __always_inline void ktau_trace_root_open(struct task_struct *tsk,
						 unsigned int fid)
{
	if (static_branch_unlikely(&ktau_trace_key))
		ktau_trace_event(tsk, KTAU_TRACE_ENTRY, fid,
				 tsk->ktau.stack[0].start);
}

/*
 * A system call's, with the value of the user context word first when
 * one is registered.  Returns @nr, and ends in calls that need nothing
 * kept across them (tail calls), so that the entry saves no registers.
 */
static __always_inline long ktau_trace_syscall_open(struct task_struct *tsk,
						    const struct pt_regs *regs,
						    long nr)
{
	struct ktau_task *kt = &tsk->ktau;

	if (static_branch_unlikely(&ktau_trace_key) &&
	    unlikely(kt->ctx_word ||
		     !ktau_trace_put_fast(tsk, KTAU_TRACE_ENTRY, nr,
					  kt->stack[0].start)))
		return ktau_trace_syscall_open_slow(regs, nr);
	return nr;
}

/* Its exit at @now, once its record has it.  Interrupts are off. */
static __always_inline void ktau_trace_root_close(struct task_struct *tsk,
						  u64 now)
{
	if (static_branch_unlikely(&ktau_trace_key))
		ktau_trace_event(tsk, KTAU_TRACE_EXIT,
				 ktau_key_fid(tsk->ktau.stack[0].key), now);
}

#endif /* _KERNEL_KTAU_TRACE_H */
