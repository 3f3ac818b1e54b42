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

#include <linux/bits.h>
#include <linux/llist.h>
#include <linux/mutex_types.h>
#include <linux/types.h>
#include <linux/uidgid_types.h>

struct ktau_counters_state;

/*
 * Deepest nesting recorded per task: a system call, a page fault in it,
 * a hard IRQ, a softirq at its exit, an IRQ inside that, and a few
 * run-time registered routines.  Deeper starts are counted as dropped.
 */
#define KTAU_MAX_DEPTH		8

/*
 * A record is one kernel callpath, keyed in 32 bits: the id of its
 * caller's record (its index + 1; 0 for an outermost record) in the upper
 * half, and in the lower half its function id + 1 (bits 1 to 13), or for
 * an atomic event's two records the event's function id + 1 with a kind
 * bit (14 and 15), so that the record of read => page_fault => irq is
 * keyed by the record of read => page_fault.  A user context is a record
 * of its own (caller field KTAU_REC_CTX, its value in @incl), the caller
 * of the outermost records and events under it; the records in between
 * inherit it.  Key 0 is never a record's.
 *
 * A record's call count is the low half of the 64-bit word it shares
 * with its key, so that adding one call is one add to that word: a count
 * that wraps carries into bit 0 of the key (KTAU_REC_CARRIED), which
 * then matches no hint, and the next update of the record, on a slow
 * path, moves the carry into a record of caller field KTAU_REC_CARRY
 * whose lower half is the record's id (ktau_rec_uncarry()).
 */
#define KTAU_REC_KEY(parent, low)	(((u32)(parent) << 16) | (u32)(low))
#define KTAU_REC_PARENT(key)		((u32)(key) >> 16)
#define KTAU_REC_LOW(fid)		(((u32)(fid) + 1) << 1)
#define KTAU_REC_FID(key)		((((u32)(key) & KTAU_REC_FID_MASK) >> 1) - 1)
#define KTAU_REC_FID_MASK		0x3ffeU
#define KTAU_REC_CARRIED		0x1U
#define KTAU_REC_RANGE			0x8000U	/* event: count, min, max */
#define KTAU_REC_SUM			0xc000U	/* event: count, sum, sumsq */
#define KTAU_REC_CTX			0xffffU
#define KTAU_REC_CARRY			0xfffeU
/* caller fields of outermost frames: no room for the context's record, */
#define KTAU_REC_NO_CTX			0xfffdU
/* or a context whose record is still to be found (ktau_root_resolve()) */
#define KTAU_REC_CTX_PENDING		0xfffcU
#define KTAU_NO_PARENT			0

/*
 * A count of KTAU_CALLS_ONE per call: kernels built with
 * CONFIG_KTAU_DEBUG count 2^16 per call, so that their counts carry
 * after 2^16 calls, which tests reach; a carry is 2^KTAU_CALLS_CARRY_LOG
 * calls.
 */
#ifdef CONFIG_KTAU_DEBUG
#define KTAU_CALLS_SHIFT	16
#else
#define KTAU_CALLS_SHIFT	0
#endif
#define KTAU_CALLS_ONE		BIT(KTAU_CALLS_SHIFT)
#define KTAU_CALLS_CARRY_LOG	(32 - KTAU_CALLS_SHIFT)

/*
 * 24 bytes: a task's typical callpaths, a table header and its part in
 * task_struct fit in 1 KiB.  The writer adds @incl before @excl (see
 * ktau_entry_add()).
 */
struct ktau_entry {
	union {
		struct {
			u32 calls;	/* in KTAU_CALLS_ONE units */
			u32 key;
		};
		u64 calls_key;
	};
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
	kuid_t owner;			/* the user a grown table is */
					/* charged to: in the header's */
					/* padding (kernel/ktau/user.c) */
	struct ktau_entry rec[];	/* then u64 dropped, u16 index[] */
};

/* An open (started, not yet stopped) instrumented routine. */
struct ktau_frame {
	u64 start;
	u64 child;			/* cycles of instrumented children */
	u32 key;			/* its record's key */
	u16 rec;			/* its record's id, when known */
	u16 deeper_groups;		/* the deepest frame's: the groups */
					/* of starts kept only as a count */
};

/*
 * A user context value a task found or added in its table, and its
 * record's id << 16, the caller field of the keys of outermost records
 * under it (see ktau_root_ctx()); 0 and 0 when none.  Written as one
 * word: a clear resets it from another CPU.
 */
union ktau_ctx_cache {
	struct {
		u32 value;
		u32 parent;
	};
	u64 word;
};

/* The two a task used last: a program alternating between two routines */
#define KTAU_CTX_CACHED		2

/*
 * Per-task profile.  @stack[0] is the outermost frame, whose key carries
 * the user context through its caller field.  @depth may exceed KTAU_MAX_DEPTH: the starts beyond
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
	union ktau_ctx_cache ctx_cache[KTAU_CTX_CACHED];
	u32 __user *ctx_word;		/* registered user context, or NULL */
	struct ktau_counters_state *counters;	/* shared counter area */
	unsigned long flags;		/* KTAU_TASK_* bits */
	u32 trace_tag;			/* trace mode: kernel/ktau/trace.c */
	u32 ctx_pending;		/* KTAU_REC_CTX_PENDING's value */
	union {
		struct callback_head grow_work;	/* user tasks: grow at return */
		struct {			/* kernel threads (PF_KTHREAD) */
			struct llist_node grow_node;	/* the grow worker */
			struct ktau_table *spare;	/* a bigger table */
		};
	};
	struct ktau_frame stack[KTAU_MAX_DEPTH];
};

/*
 * A process's totals of exited threads and reaped children, in
 * signal_struct.  @lock (a mutex: folding allocates) serializes folds,
 * clears and the readers that need a consistent view of the live threads
 * and the exited total.  @children_lock does the same for the children
 * total, apart, so that a reaped child folding into it, however slowly
 * it is scheduled, never holds up the process's own exits and reads of
 * its threads; taken after @lock when both are.
 */
struct ktau_signal {
	struct mutex lock;		/* folds, clears, consistent reads */
	struct mutex children_lock;	/* the children total */
	struct ktau_table *exited;
	struct ktau_table *children;	/* under @children_lock, */
	unsigned int exited_threads;
	unsigned int processes;		/* this, */
	unsigned int private_processes;	/* this */
	bool private;			/* ran privileged: totals only */
	u64 exited_dropped;
	u64 children_dropped;		/* and this */
	/*
	 * The first table of the process's next child: its last released
	 * child's records, counts zeroed, so that a shell's commands find
	 * theirs through their hints from their first call.  Replaced under
	 * @children_lock, read under RCU (kernel/ktau/lifetime.c).
	 */
	struct ktau_table __rcu *tmpl;
	unsigned int tmpl_misses;	/* children unlike it in a row */
	/*
	 * The parent a process pinned for its fold (as it was set EXIT_DEAD
	 * to be reaped automatically, or released before its autoreaped
	 * children folded), and the folds into this process still to come
	 * plus one for its own release: the one who brings the count to
	 * zero folds it (kernel/ktau/lifetime.c).  A released process
	 * waiting so is on a list a clear empties (@deferred, @cleared).
	 */
	struct task_struct *fold_parent;
	atomic_t folds_pending;
	bool cleared;
	struct list_head deferred;
	/*
	 * The clear this process's totals date from (its fork's, or the
	 * one that last emptied them): a fold into the children total
	 * lands only from a process of the same one (kernel/ktau/lifetime.c).
	 */
	unsigned int clear_epoch;
};

#endif /* _LINUX_KTAU_TYPES_H */
