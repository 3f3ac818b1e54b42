// SPDX-License-Identifier: GPL-2.0
/*
 * KTAU snapshots: copy the profile tables of a set of tasks while they
 * keep running, so that printing happens outside any lock.
 */
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "snapshot.h"

struct ktau_block *ktau_block_open(struct ktau_snapshot *snap,
				   enum ktau_block_kind kind)
{
	struct ktau_block *blk = &snap->spare;

	snap->need_blocks++;
	if (snap->nr_blocks < snap->max_blocks)
		blk = &snap->block[snap->nr_blocks++];
	memset(blk, 0, sizeof(*blk));
	blk->kind = kind;
	blk->first = snap->nr_entries;
	return blk;
}

/*
 * Copy a table's entries.  The writer stores inclusive before exclusive
 * time; loading them in the opposite order keeps exclusive <= inclusive.
 */
void ktau_block_add_table(struct ktau_snapshot *snap, struct ktau_block *blk,
			  const struct ktau_table *t)
{
	unsigned int i;

	if (!t)
		return;
	for (i = 0; i < t->slots; i++) {
		const struct ktau_entry *src = &t->slot[i];
		struct ktau_entry *dst;
		u64 key = READ_ONCE(src->key);

		if (!key)
			continue;
		snap->need_entries++;
		if (snap->nr_entries >= snap->max_entries)
			continue;
		dst = &snap->entry[snap->nr_entries++];
		dst->key = key;
		dst->excl = READ_ONCE(src->excl);
		/* Pairs with smp_wmb() in ktau_entry_add(). */
		smp_rmb();
		dst->incl = READ_ONCE(src->incl);
		dst->calls = READ_ONCE(src->calls);
	}
}

void ktau_block_add_task(struct ktau_snapshot *snap, struct ktau_block *blk,
			 struct task_struct *task)
{
	struct ktau_task *kt = &task->ktau;

	if (ktau_task_cleared(kt))
		return;
	blk->dropped += READ_ONCE(kt->dropped);
	ktau_block_add_table(snap, blk, rcu_dereference(kt->table));
}

/* Forget what was added since @mark, to fill again after a race. */
void ktau_snapshot_rewind(struct ktau_snapshot *snap,
			  const struct ktau_snapshot *mark)
{
	snap->nr_entries = mark->nr_entries;
	snap->need_entries = mark->need_entries;
	snap->nr_blocks = mark->nr_blocks;
	snap->need_blocks = mark->need_blocks;
}

void ktau_block_close(struct ktau_snapshot *snap, struct ktau_block *blk)
{
	blk->count = snap->nr_entries - blk->first;
}

static void ktau_snapshot_reset(struct ktau_snapshot *snap)
{
	snap->nr_entries = 0;
	snap->need_entries = 0;
	snap->nr_blocks = 0;
	snap->need_blocks = 0;
}

void ktau_snapshot_free(struct ktau_snapshot *snap)
{
	kvfree(snap->entry);
	kvfree(snap->block);
	snap->entry = NULL;
	snap->block = NULL;
	snap->max_entries = 0;
	snap->max_blocks = 0;
}

static int ktau_snapshot_grow(struct ktau_snapshot *snap)
{
	unsigned int entries = snap->need_entries + snap->need_entries / 4 + 64;
	unsigned int blocks = snap->need_blocks + snap->need_blocks / 4 + 4;

	ktau_snapshot_free(snap);
	snap->entry = kvmalloc_array(entries, sizeof(*snap->entry), GFP_KERNEL);
	snap->block = kvmalloc_array(blocks, sizeof(*snap->block), GFP_KERNEL);
	if (!snap->entry || !snap->block) {
		ktau_snapshot_free(snap);
		return -ENOMEM;
	}
	snap->max_entries = entries;
	snap->max_blocks = blocks;
	return 0;
}

/* Order by (ctx, fid, caller) so that a function's callers are adjacent. */
static int ktau_entry_cmp(const void *a, const void *b)
{
	u64 ka = ((const struct ktau_entry *)a)->key;
	u64 kb = ((const struct ktau_entry *)b)->key;
	u64 oa = (ka & ~0xffffffffULL) | (ka & 0xffff) << 16 | KTAU_KEY_PARENT(ka);
	u64 ob = (kb & ~0xffffffffULL) | (kb & 0xffff) << 16 | KTAU_KEY_PARENT(kb);

	return oa < ob ? -1 : oa > ob;
}

/* Sort each block and fold entries with equal keys (several threads). */
static void ktau_snapshot_merge(struct ktau_snapshot *snap)
{
	unsigned int b, i, out;

	for (b = 0; b < snap->nr_blocks; b++) {
		struct ktau_block *blk = &snap->block[b];
		struct ktau_entry *e = snap->entry + blk->first;

		if (!blk->count)
			continue;
		sort(e, blk->count, sizeof(*e), ktau_entry_cmp, NULL);
		for (i = 1, out = 0; i < blk->count; i++) {
			if (e[i].key != e[out].key) {
				e[++out] = e[i];
			} else if (KTAU_KEY_PARENT(e[i].key) == KTAU_EVENT_RANGE) {
				ktau_range_add(&e[out], e[i].calls, e[i].incl,
					       e[i].excl);
			} else {
				e[out].calls += e[i].calls;
				e[out].incl += e[i].incl;
				e[out].excl += e[i].excl;
			}
		}
		blk->count = out + 1;
	}
}

int ktau_snapshot_take(struct ktau_snapshot *snap, ktau_fill_fn fill,
		       void *arg)
{
	int tries, ret;

	for (tries = 0; tries < 8; tries++) {
		ktau_snapshot_reset(snap);
		rcu_read_lock();
		fill(snap, arg);
		rcu_read_unlock();
		if (snap->need_entries <= snap->max_entries &&
		    snap->need_blocks <= snap->max_blocks) {
			ktau_snapshot_merge(snap);
			return 0;
		}
		ret = ktau_snapshot_grow(snap);
		if (ret)
			return ret;
	}
	return -EAGAIN;
}
