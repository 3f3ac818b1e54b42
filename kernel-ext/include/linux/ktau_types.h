/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTAU's per-task and per-process profile state.  The per-task part is
 * embedded in task_struct, as delay accounting keeps its pointer there:
 * the system call timers, inlined in the entry code, reach it at a fixed
 * offset from current, and every task has one (no allocation that can
 * fail on a hot path, no NULL to test).  The records themselves live in
 * a table the part points to.
 */
#ifndef _LINUX_KTAU_TYPES_H
#define _LINUX_KTAU_TYPES_H

#include <linux/llist.h>
#include <linux/mutex_types.h>
#include <linux/types.h>

/*
 * Deepest nesting recorded per task: a system call, a page fault in it,
 * a hard IRQ, a softirq at its exit, an IRQ inside that, and a few
 * run-time registered routines.  Deeper starts are counted as dropped.
 */
#define KTAU_MAX_DEPTH		8

/*
 * A record is one kernel callpath: its key packs (user context, the
 * record id of its caller's path, its function id + 1), so that the
 * record of read => page_fault => irq is keyed by the record of
 * read => page_fault.  Only outermost records (caller id 0) carry the
 * user context; the others inherit it through their caller.  Key 0 is
 * never a record's.
 */
#define KTAU_KEY(ctx, parent, fid) \
	(KTAU_CTX_KEY(ctx) | ((u64)(parent) << 16) | ((u64)(fid) + 1))
#define KTAU_CTX_KEY(ctx)	((u64)(ctx) << 32)
#define KTAU_KEY_CTX(key)	((u32)((key) >> 32))
#define KTAU_KEY_PARENT(key)	((u32)(((key) >> 16) & 0xffff))
#define KTAU_KEY_FID(key)	((u32)((key) & 0xffff) - 1)
#define KTAU_NO_PARENT		0

struct ktau_entry {
	u64 key;
	u64 calls;
	u64 incl;
	u64 excl;
};

/*
 * Slots of the record hints: where the record of a key that hashes to
 * the slot was last found, as its byte offset from the first record, so
 * that the inline system call exit addresses it with no arithmetic.
 * Every record lookup of the recording paths tries its key's slot, then
 * the pair slot (slot ^ 1), where a record goes when its own slot holds
 * the record of a key of that slot (see ktau_hint_slot()): a task's few
 * hot callpaths (its system calls, read => schedule_vol, a page fault
 * from user mode) are each found with one or two compares, even when
 * two of them share a slot.  32 slots: a merged profile's read() and
 * write() under two user routines, with their schedule_vol and page
 * fault callpaths, overflowed 16 (64 bytes a table).
 */
#define KTAU_SLOT_HINTS		32
#define KTAU_HINT_MAX_INDEX	2047

/*
 * A profile table: records in an array that only grows at its end, so a
 * record's id (its index + 1) never changes, then the count of calls
 * that found no room (a u64), then an open-addressing index of u16
 * record ids.  Growth copies the table into a
 * bigger one, keeping every id.  Only the task that owns a table (and
 * interrupts taken while it runs) writes it, with interrupts off; other
 * CPUs read rec[0 .. nrec) under RCU.
 */
struct ktau_table {
	struct rcu_head rcu;
	u16 nrec;
	u16 maxrec;
	u8 index_bits;
	u8 flags;			/* KTAU_TABLE_* (kernel/ktau) */
	u16 bytes_hint[2];		/* read(), write(): their bytes */
					/* event's range record, followed */
					/* by its sum record (kernel/ktau) */
	u16 sched_hint[2][2];		/* schedule_vol, schedule_invol: */
					/* the records last timed under a */
					/* caller, or 0 (kernel/ktau) */
	u16 hint[KTAU_SLOT_HINTS];	/* byte offsets into rec[], < maxrec */
	struct ktau_entry rec[];	/* then u64 dropped, u16 index[] */
};

/*
 * An open (started, not yet stopped) instrumented routine.  The
 * outermost one's key is ktau_task.root_key (it carries the user
 * context); the others' keys fit in 32 bits.
 */
struct ktau_frame {
	u64 start;
	u64 child;			/* cycles of instrumented children */
	u32 key;			/* caller's record id << 16 | fid + 1 */
	u16 rec;			/* its record's id, when known */
	u16 deeper_groups;		/* the deepest frame's: the groups */
					/* of starts kept only as a count */
};

/*
 * Per-task profile.  @depth may exceed KTAU_MAX_DEPTH: the starts beyond
 * it are counted, not kept.  @gen is the control generation as of which
 * the open frames are known valid (see ktau_stack_check()); depth and gen
 * share a word so that the system call exit checks both in one compare.
 */
struct ktau_task {
	struct ktau_table __rcu *table;
	union {
		struct {
			u32 depth;
			u32 gen;
		};
		u64 state;
	};
	u64 root_key;			/* the outermost frame's record key */
	u32 __user *ctx_word;		/* registered user context, or NULL */
	unsigned long flags;		/* KTAU_TASK_* bits */
	u32 trace_tag;			/* trace mode: kernel/ktau/trace.c */
	struct callback_head grow_work;	/* user tasks: grow at return */
	struct llist_node grow_node;	/* kernel threads: the grow worker */
	struct ktau_table *spare;	/* kernel threads: a bigger table */
	struct ktau_frame stack[KTAU_MAX_DEPTH];
};

/*
 * A process's totals of exited threads and reaped children, in
 * signal_struct.  @lock (a mutex: folding allocates) serializes folds,
 * clears and the readers that need a consistent view of the live threads
 * and the exited total.
 */
struct ktau_signal {
	struct mutex lock;		/* folds, clears, consistent reads */
	struct ktau_table *exited;
	struct ktau_table *children;
	unsigned int exited_threads;
	unsigned int processes;
	unsigned int private_processes;
	bool private;			/* ran privileged: totals only */
	u64 exited_dropped;
	u64 children_dropped;
	/*
	 * Autoreaped children: the parent a process pinned for its fold as
	 * it was set EXIT_DEAD, and the folds into this process still to
	 * come, which its own release waits for (kernel/ktau/lifetime.c).
	 */
	struct task_struct *fold_parent;
	atomic_t folds_pending;
};

#endif /* _LINUX_KTAU_TYPES_H */
