/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Views: what a /proc profile file shows, built from copies of the live
 * tables and the process totals in steps that may sleep, in memory
 * charged to the reader, and printed afterwards.
 */
#ifndef _KERNEL_KTAU_VIEW_H
#define _KERNEL_KTAU_VIEW_H

#include <linux/sched.h>

#include "internal.h"

/*
 * Views keep records as profiles print them, told apart from the tables'
 * own (struct ktau_entry): a 64-bit key packs (user context, the record
 * id of its caller's path, its function id + 1), so that the outermost
 * records carry their user context and the others inherit it through
 * their caller; an atomic event's two records have caller ids no record
 * can have and the user context.  Call counts are whole.  Key 0 is never
 * a record's (user contexts and carries become key 0, calls 0).
 */
#define KTAU_KEY(ctx, parent, fid) \
	(KTAU_CTX_KEY(ctx) | ((u64)(parent) << 16) | ((u64)(fid) + 1))
#define KTAU_CTX_KEY(ctx)	((u64)(ctx) << 32)
#define KTAU_KEY_CTX(key)	((u32)((key) >> 32))
#define KTAU_KEY_PARENT(key)	((u32)(((key) >> 16) & 0xffff))
#define KTAU_KEY_FID(key)	((u32)((key) & 0xffff) - 1)
#define KTAU_EVENT_RANGE	0xfffe
#define KTAU_EVENT_SUM		0xffff

struct ktau_view_entry {
	u64 key;
	u64 calls;
	u64 incl;
	u64 excl;
};

static inline bool ktau_view_key_is_event(u64 key)
{
	return KTAU_KEY_PARENT(key) >= KTAU_EVENT_RANGE;
}

/* The key of a record whose caller is record @parent_id. */
static inline u64 ktau_view_child_key(unsigned int parent_id, unsigned int fid)
{
	return KTAU_KEY(0, parent_id, fid);
}

enum ktau_block_kind {
	KTAU_BLOCK_THREAD,
	KTAU_BLOCK_PROCESS,
	KTAU_BLOCK_EXITED,
	KTAU_BLOCK_CHILDREN,
};

/* A routine running in a live thread when the view was built. */
struct ktau_open_frame {
	pid_t tid;
	u32 ctx;
	unsigned int depth;		/* elements of its callpath */
	u16 fid[KTAU_MAX_DEPTH];
	u64 incl;
	u64 excl;
};

/*
 * A block's records are those of one table, in its order and with its
 * ids (a record names its caller by id): a thread's live table or a
 * process total as copied, or the fold of a process's threads.  A record
 * whose caller is missing was dropped (its key zeroed, its calls added
 * to @dropped) when the block was built.
 */
struct ktau_block {
	enum ktau_block_kind kind;
	pid_t pid;
	pid_t tid;
	unsigned int threads;
	unsigned int exited_threads;
	unsigned int processes;
	unsigned int private_processes;
	unsigned int pending;		/* children: folds still to come */
	u64 dropped;
	char comm[TASK_COMM_LEN];
	unsigned int comm_len;
	unsigned int rec;		/* its records: view rec[rec, rec + nrec) */
	unsigned int nrec;
	unsigned int open;		/* its open frames: view open[open, ...) */
	unsigned int nr_open;
};

/*
 * The frames open in a task, read from another CPU while it runs (in the
 * view: a copy on the stack would be cleared at each call).
 */
struct ktau_stack_copy {
	u64 state;
	u32 ctx_pending;
	struct ktau_frame frame[KTAU_MAX_DEPTH];
	u64 incl[KTAU_MAX_DEPTH];
};

/* An open-addressing index of the ids (1-based) of some records. */
struct ktau_index {
	u16 *slot;
	unsigned int bits;
	unsigned int max;		/* slots allocated */
};

struct ktau_view {
	struct ktau_block *block;
	unsigned int nr_blocks;
	unsigned int max_blocks;
	struct ktau_view_entry *rec;	/* the blocks' records */
	unsigned int nr_rec;
	unsigned int max_rec;
	struct ktau_entry *copy;	/* a live table's, as copied */
	unsigned int max_copy;
	struct ktau_open_frame *open;	/* the blocks' open frames */
	unsigned int nr_open;
	unsigned int max_open;
	struct ktau_table *merged;	/* a process block being folded */
	struct ktau_stack_copy stack;
	u16 *map;			/* ktau_fold()'s id translation */
	unsigned int max_map;
	/*
	 * The block ktau_view_ready() readied: its index (none for a few
	 * records: they are searched), flat profile and event records.
	 */
	struct ktau_index index;
	struct ktau_view_entry *flat;	/* per (ctx, fid) sums of its paths */
	unsigned int nr_flat;
	unsigned int max_flat;
	struct ktau_index flat_index;
	unsigned int nr_event;
	unsigned int nr_unreached;	/* records with no calls */
};

int ktau_view_thread(struct ktau_view *v, struct task_struct *task,
		     struct pid_namespace *ns);
int ktau_view_process(struct ktau_view *v, struct task_struct *leader,
		      struct pid_namespace *ns, bool per_thread);
int ktau_view_ready(struct ktau_view *v, unsigned int b);
void ktau_view_reset(struct ktau_view *v);
void ktau_view_free(struct ktau_view *v);

/* The records of block @blk of @v. */
static inline struct ktau_view_entry *
ktau_block_recs(const struct ktau_view *v, const struct ktau_block *blk)
{
	return v->rec + blk->rec;
}

/* The record of @key among @blk's, once ktau_view_ready() readied it. */
const struct ktau_view_entry *ktau_view_lookup(const struct ktau_view *v,
					       const struct ktau_block *blk,
					       u64 key);

/*
 * The callpath of record @id of the @nrec records @rec, outermost first;
 * returns its depth.
 */
unsigned int ktau_view_path(const struct ktau_view_entry *rec, unsigned int nrec,
			    unsigned int id, u16 fid[KTAU_MAX_DEPTH], u32 *ctx);

#endif /* _KERNEL_KTAU_VIEW_H */
