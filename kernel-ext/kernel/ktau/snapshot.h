/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Snapshots of task profiles, taken under RCU and printed afterwards.
 */
#ifndef _KERNEL_KTAU_SNAPSHOT_H
#define _KERNEL_KTAU_SNAPSHOT_H

#include <linux/sched.h>

#include "internal.h"

enum ktau_block_kind {
	KTAU_BLOCK_THREAD,
	KTAU_BLOCK_PROCESS,
	KTAU_BLOCK_EXITED,
	KTAU_BLOCK_CHILDREN,
};

struct ktau_block {
	enum ktau_block_kind kind;
	pid_t pid;
	pid_t tid;
	unsigned int threads;
	unsigned int exited_threads;
	unsigned int processes;
	u64 dropped;
	unsigned int first;		/* index of its first entry */
	unsigned int count;
	char comm[TASK_COMM_LEN];
};

/*
 * A snapshot is filled in an RCU read-side section, where it cannot
 * allocate: what does not fit is counted, and the caller retries with
 * room for that much.
 */
struct ktau_snapshot {
	struct ktau_entry *entry;
	unsigned int nr_entries;
	unsigned int max_entries;
	unsigned int need_entries;
	struct ktau_block *block;
	unsigned int nr_blocks;
	unsigned int max_blocks;
	unsigned int need_blocks;
	struct ktau_block spare;	/* takes a block there is no room for */
};

typedef void (*ktau_fill_fn)(struct ktau_snapshot *snap, void *arg);

int ktau_snapshot_take(struct ktau_snapshot *snap, ktau_fill_fn fill,
		       void *arg);
void ktau_snapshot_free(struct ktau_snapshot *snap);

struct ktau_block *ktau_block_open(struct ktau_snapshot *snap,
				   enum ktau_block_kind kind);
void ktau_block_add_task(struct ktau_snapshot *snap, struct ktau_block *blk,
			 struct task_struct *task);
void ktau_block_add_table(struct ktau_snapshot *snap, struct ktau_block *blk,
			  const struct ktau_table *t);
void ktau_block_close(struct ktau_snapshot *snap, struct ktau_block *blk);
void ktau_snapshot_rewind(struct ktau_snapshot *snap,
			  const struct ktau_snapshot *mark);

#endif /* _KERNEL_KTAU_SNAPSHOT_H */
