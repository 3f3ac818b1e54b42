/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTAU's per-task profile, kept in task_struct as delay accounting keeps
 * its pointer there: embedded, so that the system call hooks, inlined in
 * the entry code, reach it at a fixed offset from current and every task
 * has one (no allocation that can fail, no NULL to test).
 */
#ifndef _LINUX_KTAU_TYPES_H
#define _LINUX_KTAU_TYPES_H

#include <linux/limits.h>
#include <linux/types.h>

/*
 * Deepest nesting recorded per task: a syscall, a page fault in it, a
 * hard IRQ, a softirq at its exit, an IRQ inside that, and a few
 * run-time registered routines.  Deeper starts are counted as dropped.
 */
#define KTAU_MAX_DEPTH		8

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
 * Where a system call's entry was last found in the table, by the low
 * bits of its key: the system call exit tries that slot before hashing.
 * A hint is only a guess, checked against the slot's key; every hint is
 * below the slots of the task's table (tables only grow, and a reset
 * that drops the table zeroes them).
 */
#define KTAU_SLOT_HINTS		8
#define KTAU_SLOT_HINT_MAX	U8_MAX

/*
 * Per-task profile.  Only the owning task, and interrupts taken while it
 * runs, write it, with interrupts disabled; /proc readers on other CPUs
 * read the table under RCU.
 */
struct ktau_task {
	struct ktau_table __rcu *table;
	unsigned int depth;
	unsigned int overflow;		/* starts beyond KTAU_MAX_DEPTH */
	union ktau_gens gens;		/* stack valid since, table of */
	u64 ctx_key;			/* KTAU_CTX_KEY(user context) */
	u32 __user *ctx_word;		/* where the task keeps it, or NULL */
	u64 dropped;
	u8 slot_hint[KTAU_SLOT_HINTS];
	struct ktau_frame stack[KTAU_MAX_DEPTH];
};

#endif /* _LINUX_KTAU_TYPES_H */
