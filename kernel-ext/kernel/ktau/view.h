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

struct ktau_block {
	enum ktau_block_kind kind;
	pid_t pid;
	pid_t tid;
	unsigned int threads;
	unsigned int exited_threads;
	unsigned int processes;
	unsigned int private_processes;
	u64 dropped;
	char comm[TASK_COMM_LEN];
	struct ktau_table *recs;	/* callpaths and events, NULL if none */
	struct ktau_table *flat;	/* per (ctx, fid) sums, NULL if none */
	struct ktau_open_frame *open;
	unsigned int nr_open;
	unsigned int max_open;
};

struct ktau_view {
	struct ktau_block *block;
	unsigned int nr_blocks;
	unsigned int max_blocks;
	struct ktau_entry *copy;	/* one live table at a time */
	unsigned int max_copy;
	u16 *map;			/* ktau_fold()'s id translation */
	unsigned int max_map;
};

int ktau_view_thread(struct ktau_view *v, struct task_struct *task,
		     struct pid_namespace *ns);
int ktau_view_process(struct ktau_view *v, struct task_struct *leader,
		      struct pid_namespace *ns, bool per_thread);
void ktau_view_reset(struct ktau_view *v);
void ktau_view_free(struct ktau_view *v);

/* The callpath of record @id of @t, outermost first; returns its depth. */
unsigned int ktau_view_path(const struct ktau_table *t, unsigned int id,
			    u16 fid[KTAU_MAX_DEPTH], u32 *ctx);

#endif /* _KERNEL_KTAU_VIEW_H */
