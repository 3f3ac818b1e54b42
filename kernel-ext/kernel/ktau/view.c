// SPDX-License-Identifier: GPL-2.0
/*
 * KTAU views: copy the profile tables of a set of tasks while they keep
 * running, into the blocks a /proc file prints.
 *
 * A live table is copied under RCU, one at a time, to the end of the
 * reader's buffer of records.  A block's records are one table's, in its
 * order and with its ids, so that a thread's profile or a process total
 * is printed from its copy as it is; only a process block, which sums
 * the process's threads, is merged.  The index and the flat profile a
 * block's lines need are built when the reader reaches the block, in
 * buffers reused from block to block.  Everything but the copies happens
 * outside RCU, yielding the CPU between tasks and every few dozen
 * records.  A process's live threads and exited total are read under the
 * process's ktau mutex, so a thread exiting meanwhile is counted once:
 * live or folded.  All memory is charged to the reader.
 */
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/pid_namespace.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include "view.h"

/* A reader that asks too much gets -ENOMEM, and no warning in the log. */
#define KTAU_VIEW_GFP		(GFP_KERNEL_ACCOUNT | __GFP_NOWARN)

/* Room for @need elements of @size in *@array, keeping the first @keep. */
static int ktau_grow_array(void **array, unsigned int *max, unsigned int need,
			   unsigned int keep, size_t size)
{
	unsigned int n = max_t(unsigned int, need, 2 * *max);
	void *bigger;

	if (need <= *max)
		return 0;
	bigger = kvmalloc_array(n, size, KTAU_VIEW_GFP);
	if (!bigger)
		return -ENOMEM;
	if (keep)
		memcpy(bigger, *array, keep * size);
	kvfree(*array);
	*array = bigger;
	*max = n;
	return 0;
}

static struct ktau_block *ktau_block_new(struct ktau_view *v,
					 enum ktau_block_kind kind, pid_t pid)
{
	struct ktau_block *blk;

	if (ktau_grow_array((void **)&v->block, &v->max_blocks,
			    max(8U, v->nr_blocks + 1), v->nr_blocks,
			    sizeof(*v->block)))
		return NULL;
	blk = &v->block[v->nr_blocks++];
	memset(blk, 0, sizeof(*blk));
	blk->kind = kind;
	blk->pid = pid;
	blk->comm[0] = '-';
	blk->comm_len = 1;
	blk->rec = v->nr_rec;
	blk->open = v->nr_open;
	return blk;
}

/* comm may hold any byte; the format's tokens may not. */
static void ktau_block_set_comm(struct ktau_block *blk,
				struct task_struct *task)
{
	char *c;

	get_task_comm(blk->comm, task);
	for (c = blk->comm; *c; c++) {
		/* not in '!'..'~', or '=' */
		if ((u8)(*c - '!') > '~' - '!' || *c == '=')
			*c = '_';
	}
	blk->comm_len = c - blk->comm;
	if (!blk->comm_len) {
		blk->comm[0] = '-';
		blk->comm_len = 1;
	}
}

/* Room for @n more records after the view's @nr_rec. */
static int ktau_view_reserve(struct ktau_view *v, unsigned int n)
{
	unsigned int need;

	if (check_add_overflow(v->nr_rec, n, &need))
		return -ENOMEM;
	return ktau_grow_array((void **)&v->rec, &v->max_rec, need, v->nr_rec,
			       sizeof(*v->rec));
}

/*
 * Record @i of a table, @src[@i], whose count-and-key word and times are
 * @calls_key, @incl and @excl, as views keep it, in @dst[@i], with the
 * same id; @dst[0 .. @i) are the records before it, as views keep them.
 * A user context's record gives its value to the outermost records and
 * events under it, a carry record its calls to the count it carries for,
 * and both then have key 0; the events of the bytes of read() and
 * write(), keyed by the calls' ids, get their own.  A callpath whose
 * caller is not a callpath before it gets key 0 too, as ktau_fold()
 * would drop it: returns the calls so dropped.
 */
static __always_inline u64 ktau_widen_rec(const struct ktau_entry *src,
					  unsigned int i, u64 calls_key,
					  u64 incl, u64 excl,
					  struct ktau_view_entry *dst)
{
	u32 key = ktau_word_key(calls_key), ctx = 0;
	u64 calls = ktau_word_calls(calls_key), wide = 0, dropped = 0;
	unsigned int parent = KTAU_REC_PARENT(key), fid;

	if (!key || parent == KTAU_REC_CTX) {
		calls = 0;
	} else if (parent == KTAU_REC_CARRY) {
		parent = key & 0xffff;
		/* a dropped record's carries are dropped with it */
		if (!parent || parent > i || !dst[parent - 1].key)
			dropped = calls;
		else
			dst[parent - 1].calls += calls;
		calls = 0;
	} else {
		/* a live table's: a count carrying changes the key's low bit */
		if (parent && parent <= i &&
		    KTAU_REC_PARENT(READ_ONCE(src[parent - 1].key)) ==
		    KTAU_REC_CTX) {
			ctx = READ_ONCE(src[parent - 1].incl);
			parent = KTAU_NO_PARENT;
		}
		fid = KTAU_REC_FID(key);
		if (ktau_key_is_event(key)) {
			if (fid == __NR_read || fid == __NR_write)
				fid += KTAU_FID_STATIC(KTAU_SP_READ_BYTES) -
				       __NR_read;
			parent = ktau_key_is_range(key) ? KTAU_EVENT_RANGE :
							  KTAU_EVENT_SUM;
		} else if (parent &&
			   (parent > i || !dst[parent - 1].key ||
			    ktau_view_key_is_event(dst[parent - 1].key))) {
			dropped = calls;
			calls = 0;
			goto store;
		}
		wide = KTAU_KEY(ctx, parent, fid);
	}
store:
	/* each field stored once */
	dst[i].key = wide;
	dst[i].calls = calls;
	dst[i].incl = incl;
	dst[i].excl = excl;
	return dropped;
}

/*
 * A table's records @src[0 .. @n), which only their writer or a lock
 * keeps from changing, as views keep them (ktau_widen_rec()), in @dst[];
 * returns the calls of the callpaths it drops.
 */
static u64 ktau_view_widen(const struct ktau_entry *src, unsigned int n,
			   struct ktau_view_entry *dst)
{
	unsigned int i;
	u64 dropped = 0;

	for (i = 0; i < n; i++) {
		dropped += ktau_widen_rec(src, i, src[i].calls_key,
					  src[i].incl, src[i].excl, dst);
		if (i % 64 == 63)
			cond_resched();
	}
	return dropped;
}

/* Give @blk the @n records widened at the end of the view's. */
static void ktau_block_took(struct ktau_view *v, struct ktau_block *blk,
			    unsigned int n)
{
	blk->rec = v->nr_rec;
	blk->nrec = n;
	v->nr_rec += n;
}

/* Give @blk the @n records of such a table, @src[], after the view's. */
static int ktau_block_take(struct ktau_view *v, struct ktau_block *blk,
			   const struct ktau_entry *src, unsigned int n)
{
	if (ktau_view_reserve(v, n))
		return -ENOMEM;
	blk->dropped += ktau_view_widen(src, n, v->rec + v->nr_rec);
	ktau_block_took(v, blk, n);
	return 0;
}

/*
 * Record @r of a live table: returns its count-and-key word (one word,
 * one load, with the carry it holds), its times in *@incl and *@excl.
 * The writer stores inclusive before exclusive time (ktau_entry_add()):
 * loading them in the opposite order keeps exclusive <= inclusive.
 */
static __always_inline u64 ktau_load_rec(const struct ktau_entry *r,
					 u64 *incl, u64 *excl)
{
	u64 calls_key = READ_ONCE(r->calls_key);

	*excl = READ_ONCE(r->excl);
	/* excl before incl: ktau_entry_add()'s order */
	smp_rmb();
	*incl = READ_ONCE(r->incl);
	return calls_key;
}

/*
 * Read @task's live table: widened into @blk's records after the view's
 * when @blk is given, else copied as it is into v->copy; the calls it
 * dropped are added to *@dropped.  Returns the records read or -ENOMEM.
 * The count is loaded before the records it covers; a record's key and
 * a user context's value never change once the count that covers them
 * is published.  Inlined into each caller, so that neither tests @blk.
 */
static __always_inline int ktau_read_live(struct ktau_view *v,
					  struct task_struct *task,
					  struct ktau_block *blk, u64 *dropped)
{
	const struct ktau_table *t;
	struct ktau_view_entry *dst;
	const struct ktau_entry *src;
	u64 calls_key, incl, excl;
	unsigned int i, n;
	int err;

	for (;;) {
		rcu_read_lock();
		t = rcu_dereference(task->ktau.table);
		/* the count before the records it covers */
		n = t ? smp_load_acquire(&t->nrec) : 0;
		if (n <= (blk ? v->max_rec - v->nr_rec : v->max_copy))
			break;
		rcu_read_unlock();
		err = blk ? ktau_view_reserve(v, n) :
			    ktau_grow_array((void **)&v->copy, &v->max_copy, n,
					    0, sizeof(*v->copy));
		if (err)
			return -ENOMEM;
	}
	src = t ? t->rec : NULL;
	if (blk) {
		dst = v->rec + v->nr_rec;
		for (i = 0; i < n; i++) {
			calls_key = ktau_load_rec(&src[i], &incl, &excl);
			*dropped += ktau_widen_rec(src, i, calls_key, incl,
						   excl, dst);
		}
	} else {
		for (i = 0; i < n; i++)
			v->copy[i].calls_key = ktau_load_rec(&src[i],
							     &v->copy[i].incl,
							     &v->copy[i].excl);
	}
	*dropped += t ? READ_ONCE(*ktau_table_dropped(t)) : 0;
	rcu_read_unlock();
	return n;
}

/*
 * Give @blk @task's live table, widened as it is copied: one pass, the
 * block's records straight from the table.
 */
static int ktau_block_take_live(struct ktau_view *v, struct ktau_block *blk,
				struct task_struct *task)
{
	int n = ktau_read_live(v, task, blk, &blk->dropped);

	if (n < 0)
		return n;
	ktau_block_took(v, blk, n);
	return 0;
}

/*
 * Copy @task's live table into v->copy, as it is, for a fold; returns
 * the records copied or -ENOMEM.
 */
static int ktau_copy_live(struct ktau_view *v, struct task_struct *task,
			  u64 *dropped)
{
	return ktau_read_live(v, task, NULL, dropped);
}

/* Fold @n records of some table (ids 1..@n in order) into v->merged. */
static int ktau_view_fold(struct ktau_view *v, struct ktau_block *blk,
			  const struct ktau_entry *src, unsigned int n)
{
	if (ktau_grow_array((void **)&v->map, &v->max_map, n, 0, sizeof(u16)))
		return -ENOMEM;
	blk->dropped += ktau_fold(&v->merged, src, n, v->map,
				  &ktau_alloc_reader);
	return 0;
}

/* Give @blk the records folded into v->merged. */
static int ktau_block_take_merged(struct ktau_view *v, struct ktau_block *blk)
{
	struct ktau_table *t = v->merged;

	if (!t)
		return 0;
	if (ktau_block_take(v, blk, t->rec, t->nrec))
		return -ENOMEM;
	v->merged = NULL;
	ktau_table_free(t);
	return 0;
}

/*
 * The frames open in @task, read from another CPU while it runs: the
 * stack is read twice and kept only if both reads agree, then cut at
 * the first frame a control change made stale.
 */
static bool ktau_read_stack(const struct ktau_task *kt,
			    struct ktau_stack_copy *c)
{
	unsigned int i, depth;

	c->state = READ_ONCE(kt->state);
	/* the depth before the frames it covers */
	smp_rmb();
	depth = min_t(u32, (u32)c->state, KTAU_MAX_DEPTH);
	/* and the slot where a switched out task waits (core.c) */
	if (depth < KTAU_MAX_DEPTH)
		depth = ktau_switch_slot(depth) + 1;
	for (i = 0; i < depth; i++) {
		c->frame[i].start = READ_ONCE(kt->stack[i].start);
		c->frame[i].child = READ_ONCE(kt->stack[i].child);
		c->frame[i].key = READ_ONCE(kt->stack[i].key);
	}
	c->ctx_pending = READ_ONCE(kt->ctx_pending);
	/* the frames before the second read that validates them */
	smp_rmb();
	if (READ_ONCE(kt->state) != c->state ||
	    READ_ONCE(kt->ctx_pending) != c->ctx_pending)
		return false;
	for (i = 0; i < depth; i++) {
		if (READ_ONCE(kt->stack[i].start) != c->frame[i].start ||
		    READ_ONCE(kt->stack[i].child) != c->frame[i].child ||
		    READ_ONCE(kt->stack[i].key) != c->frame[i].key)
			return false;
	}
	return true;
}

/* Add the frames open in @task to @blk, the view's last block. */
static int ktau_block_open_frames(struct ktau_view *v, struct ktau_block *blk,
				  struct task_struct *task, pid_t tid)
{
	const struct ktau_task *kt = &task->ktau;
	struct ktau_stack_copy *c = &v->stack;
	unsigned int i, depth, slot, tries;
	u64 now, *incl = c->incl;
	u32 gen, ctx = 0;

	if (test_bit(KTAU_TASK_DEAD, &kt->flags) || is_idle_task(task))
		return 0;
	for (tries = 0; tries < 4; tries++) {
		if (ktau_read_stack(kt, c))
			break;
		cpu_relax();
	}
	if (tries == 4)
		return 0;
	now = ktau_arch_now();
	depth = min_t(u32, (u32)c->state, KTAU_MAX_DEPTH);
	gen = c->state >> 32;
	/* switched out: its schedule frame is open (core.c) */
	slot = ktau_switch_slot(depth);
	if (depth < KTAU_MAX_DEPTH && ktau_is_switch_key(c->frame[slot].key)) {
		unsigned int point = KTAU_SP_SCHEDULE_VOL;

		if (c->frame[slot].key == KTAU_SWITCH_KEY(true))
			point = KTAU_SP_SCHEDULE_INVOL;
		c->frame[depth].start = c->frame[slot].start;
		c->frame[depth].key = KTAU_REC_LOW(KTAU_FID_STATIC(point));
		c->frame[depth].child = 0;
		depth++;
	}
	/*
	 * the outermost frame's user context: the value its start kept for a
	 * slow path to find, or through its record
	 */
	if (depth && KTAU_REC_PARENT(c->frame[0].key) == KTAU_REC_CTX_PENDING) {
		ctx = c->ctx_pending;
	} else if (depth && KTAU_REC_PARENT(c->frame[0].key)) {
		rcu_read_lock();
		ctx = ktau_root_ctx_value(rcu_dereference(kt->table),
					  c->frame[0].key);
		rcu_read_unlock();
		if (!ctx)
			depth = 0;
	}
	for (i = 0; i < depth; i++) {
		u32 key = c->frame[i].key;
		int group = ktau_fid_group(KTAU_REC_FID(key));

		if (group < 0 || !(u16)key ||
		    ktau_gen_after(READ_ONCE(ktau_group_gen[group]), gen))
			break;
		incl[i] = ktau_elapsed(c->frame[i].start, now);
	}
	depth = i;
	if (ktau_grow_array((void **)&v->open, &v->max_open,
			    v->nr_open + depth, v->nr_open, sizeof(*v->open)))
		return -ENOMEM;
	for (i = 0; i < depth; i++) {
		struct ktau_open_frame *o = &v->open[v->nr_open++];
		unsigned int j;

		o->tid = tid;
		o->ctx = ctx;
		o->depth = i + 1;
		for (j = 0; j <= i; j++)
			o->fid[j] = KTAU_REC_FID(c->frame[j].key);
		o->incl = incl[i];
		o->excl = ktau_excl(incl[i], c->frame[i].child +
				    (i + 1 < depth ? incl[i + 1] : 0));
	}
	blk->nr_open += depth;
	return 0;
}

/* Add @task's live table and open frames to the merged process @blk. */
static int ktau_block_add_task(struct ktau_view *v, struct ktau_block *blk,
			       struct task_struct *task, pid_t tid)
{
	int n = ktau_copy_live(v, task, &blk->dropped);

	if (n < 0)
		return n;
	if (n && ktau_view_fold(v, blk, v->copy, n))
		return -ENOMEM;
	return ktau_block_open_frames(v, blk, task, tid);
}

/* A thread's block: its live table as copied, and its open frames. */
static int ktau_view_add_thread(struct ktau_view *v, struct task_struct *task,
				pid_t pid, pid_t tid)
{
	struct ktau_block *blk = ktau_block_new(v, KTAU_BLOCK_THREAD, pid);

	if (!blk)
		return -ENOMEM;
	blk->tid = tid;
	ktau_block_set_comm(blk, task);
	if (ktau_block_take_live(v, blk, task))
		return -ENOMEM;
	return ktau_block_open_frames(v, blk, task, tid);
}

int ktau_view_thread(struct ktau_view *v, struct task_struct *task,
		     struct pid_namespace *ns)
{
	return ktau_view_add_thread(v, task, task_tgid_nr_ns(task, ns),
				    task_pid_nr_ns(task, ns));
}

/*
 * A process's exited or children total, under its lock (the children
 * total: its children_lock), as it is.
 */
static int ktau_view_total(struct ktau_view *v, struct ktau_signal *ks,
			   enum ktau_block_kind kind, pid_t pid)
{
	struct ktau_block *blk = ktau_block_new(v, kind, pid);
	const struct ktau_table *t;

	if (!blk)
		return -ENOMEM;
	if (kind == KTAU_BLOCK_EXITED) {
		blk->exited_threads = ks->exited_threads;
		blk->dropped = ks->exited_dropped;
		t = ks->exited;
	} else {
		blk->processes = ks->processes;
		blk->private_processes = ks->private_processes;
		blk->pending = ktau_signal_pending(ks);
		blk->dropped = ks->children_dropped;
		t = ks->children;
	}
	if (!t || !t->nrec)
		return 0;
	return ktau_block_take(v, blk, t->rec, t->nrec);
}

/* References to the threads of @leader's process, live or not. */
static int ktau_collect_threads(struct task_struct *leader,
				struct task_struct ***threads,
				unsigned int *nr)
{
	struct task_struct *t, **list;
	unsigned int n, max;

	for (;;) {
		max = READ_ONCE(leader->signal->nr_threads) + 8;
		list = kvmalloc_array(max, sizeof(*list), KTAU_VIEW_GFP);
		if (!list)
			return -ENOMEM;
		n = 0;
		rcu_read_lock();
		for_each_thread(leader, t) {
			if (n == max)
				break;
			list[n++] = get_task_struct(t);
		}
		rcu_read_unlock();
		if (n < max)
			break;
		while (n)
			put_task_struct(list[--n]);
		kvfree(list);
	}
	*threads = list;
	*nr = n;
	return 0;
}

/*
 * Room for the blocks, records and open frames of @n threads' blocks, as
 * their tables and stacks are now, so that the view's arrays do not grow
 * (and copy what they hold) thread by thread.  Only a hint: a table that
 * grows meanwhile makes room for itself when it is copied.
 */
static int ktau_view_reserve_threads(struct ktau_view *v,
				     struct task_struct **threads,
				     unsigned int n)
{
	const struct ktau_table *t;
	u64 recs = 0, frames = 0;
	unsigned int i;

	rcu_read_lock();
	for (i = 0; i < n; i++) {
		t = rcu_dereference(threads[i]->ktau.table);
		recs += t ? READ_ONCE(t->nrec) : 0;
		frames += min_t(u32, (u32)READ_ONCE(threads[i]->ktau.state),
				KTAU_MAX_DEPTH);
	}
	rcu_read_unlock();
	/* room for some growth, and for the exited and children totals */
	recs += recs / 8 + 64;
	if (recs > U32_MAX - v->nr_rec || frames > U32_MAX - v->nr_open ||
	    n > U32_MAX - 3 - v->nr_blocks)
		return 0;
	if (ktau_view_reserve(v, recs) ||
	    ktau_grow_array((void **)&v->open, &v->max_open,
			    v->nr_open + frames, v->nr_open, sizeof(*v->open)) ||
	    ktau_grow_array((void **)&v->block, &v->max_blocks,
			    v->nr_blocks + n + 3, v->nr_blocks,
			    sizeof(*v->block)))
		return -ENOMEM;
	return 0;
}

/*
 * @leader's process: one process block (live threads and exited ones)
 * or, @per_thread, a block per live thread and one for the exited ones;
 * then the children block.  Under the process's ktau mutex, which exits
 * and clears take too.
 */
int ktau_view_process(struct ktau_view *v, struct task_struct *leader,
		      struct pid_namespace *ns, bool per_thread)
{
	struct ktau_signal *ks = &leader->signal->ktau;
	pid_t pid = task_tgid_nr_ns(leader, ns);
	struct task_struct **threads;
	struct ktau_block *blk = NULL;
	unsigned int n, i;
	int ret;

	ret = ktau_collect_threads(leader, &threads, &n);
	if (ret)
		return ret;
	if (per_thread) {
		ret = ktau_view_reserve_threads(v, threads, n);
		if (ret)
			goto put;
	}
	mutex_lock(&ks->lock);
	if (!per_thread) {
		blk = ktau_block_new(v, KTAU_BLOCK_PROCESS, pid);
		if (!blk) {
			ret = -ENOMEM;
			goto out;
		}
		blk->tid = pid;
		ktau_block_set_comm(blk, leader);
	}
	for (i = 0; i < n && !ret; i++) {
		struct task_struct *t = threads[i];
		pid_t tid = task_pid_nr_ns(t, ns);

		if (test_bit(KTAU_TASK_DEAD, &t->ktau.flags) || !tid)
			continue;
		if (per_thread) {
			ret = ktau_view_add_thread(v, t, pid, tid);
		} else {
			blk->threads++;
			ret = ktau_block_add_task(v, blk, t, tid);
		}
		cond_resched();
	}
	if (ret)
		goto out;
	if (per_thread) {
		ret = ktau_view_total(v, ks, KTAU_BLOCK_EXITED, pid);
	} else {
		blk->exited_threads = ks->exited_threads;
		blk->dropped += ks->exited_dropped;
		if (ks->exited)
			ret = ktau_view_fold(v, blk, ks->exited->rec,
					     ks->exited->nrec);
		if (!ret)
			ret = ktau_block_take_merged(v, blk);
	}
out:
	mutex_unlock(&ks->lock);
	if (!ret) {
		mutex_lock(&ks->children_lock);
		ret = ktau_view_total(v, ks, KTAU_BLOCK_CHILDREN, pid);
		mutex_unlock(&ks->children_lock);
	}
put:
	for (i = 0; i < n; i++)
		put_task_struct(threads[i]);
	kvfree(threads);
	return ret;
}

/* ---- readying a block for printing ------------------------------------ */

/*
 * Up to this many records are searched, not indexed: most threads have
 * a handful, for which clearing an index takes longer.
 */
#define KTAU_VIEW_SEARCH	16

/* An index with room for @n ids, empty. */
static int ktau_index_reset(struct ktau_index *ix, unsigned int n)
{
	/* at most 2/3 full keeps linear probing short */
	unsigned int bits = max(order_base_2(n + n / 2 + 1), 3);

	if (ktau_grow_array((void **)&ix->slot, &ix->max, 1U << bits, 0,
			    sizeof(*ix->slot)))
		return -ENOMEM;
	ix->bits = bits;
	memset(ix->slot, 0, sizeof(*ix->slot) << bits);
	return 0;
}

/*
 * The slot of @key in @ix, an index of records @rec: where its id is, or
 * the empty slot where it goes.  The index always has an empty slot.
 */
static unsigned int ktau_index_find(const struct ktau_index *ix,
				    const struct ktau_view_entry *rec, u64 key)
{
	unsigned int mask = (1U << ix->bits) - 1;
	unsigned int i = hash_64(key, ix->bits);

	for (;; i = (i + 1) & mask) {
		unsigned int id = ix->slot[i];

		if (!id || rec[id - 1].key == key)
			return i;
	}
}

const struct ktau_view_entry *ktau_view_lookup(const struct ktau_view *v,
					       const struct ktau_block *blk,
					       u64 key)
{
	const struct ktau_view_entry *rec = ktau_block_recs(v, blk);
	unsigned int i, id;

	if (blk->nrec <= KTAU_VIEW_SEARCH) {
		for (i = 0; i < blk->nrec; i++) {
			if (rec[i].key == key)
				return &rec[i];
		}
		return NULL;
	}
	id = v->index.slot[ktau_index_find(&v->index, rec, key)];
	return id ? &rec[id - 1] : NULL;
}

/* The flat profile's entry of @key, added (zeroed) if new. */
static struct ktau_view_entry *ktau_flat_get(struct ktau_view *v, u64 key,
					     bool search)
{
	unsigned int i, slot = 0;
	struct ktau_view_entry *e;

	if (search) {
		for (i = 0; i < v->nr_flat; i++) {
			if (v->flat[i].key == key)
				return &v->flat[i];
		}
	} else {
		slot = ktau_index_find(&v->flat_index, v->flat, key);
		if (v->flat_index.slot[slot])
			return &v->flat[v->flat_index.slot[slot] - 1];
	}
	e = &v->flat[v->nr_flat++];
	if (!search)
		v->flat_index.slot[slot] = v->nr_flat;
	e->key = key;
	e->calls = 0;
	e->incl = 0;
	e->excl = 0;
	return e;
}

unsigned int ktau_view_path(const struct ktau_view_entry *rec, unsigned int nrec,
			    unsigned int id, u16 fid[KTAU_MAX_DEPTH], u32 *ctx)
{
	u16 rev[KTAU_MAX_DEPTH];
	unsigned int n = 0, i;
	u64 key = 0;

	while (id && id <= nrec && n < KTAU_MAX_DEPTH) {
		key = rec[id - 1].key;
		rev[n++] = KTAU_KEY_FID(key);
		id = KTAU_KEY_PARENT(key);
	}
	*ctx = KTAU_KEY_CTX(key);
	for (i = 0; i < n; i++)
		fid[i] = rev[n - 1 - i];
	return n;
}

/*
 * The flat profile: per (ctx, fid), sums over the paths ending in fid;
 * and the count of event records.
 */
static int ktau_view_flatten(struct ktau_view *v, const struct ktau_block *blk)
{
	const struct ktau_view_entry *rec = ktau_block_recs(v, blk);
	bool outermost, search = blk->nrec <= KTAU_VIEW_SEARCH;
	unsigned int i, depth, fid, id;
	struct ktau_view_entry *e;
	u64 key;

	v->nr_flat = 0;
	v->nr_event = 0;
	v->nr_unreached = 0;
	if (ktau_grow_array((void **)&v->flat, &v->max_flat, blk->nrec, 0,
			    sizeof(*v->flat)))
		return -ENOMEM;
	if (!search && ktau_index_reset(&v->flat_index, blk->nrec))
		return -ENOMEM;
	for (i = 0; i < blk->nrec; i++) {
		const struct ktau_view_entry *r = &rec[i];

		if (ktau_view_key_is_event(r->key)) {
			v->nr_event++;
			continue;
		}
		if (!r->key)
			continue;
		if (!r->calls) {
			v->nr_unreached++;
			continue;
		}
		/* its callers, as ktau_view_path() finds them */
		key = r->key;
		fid = KTAU_KEY_FID(key);
		outermost = true;
		for (depth = 1; depth < KTAU_MAX_DEPTH; depth++) {
			id = KTAU_KEY_PARENT(key);
			if (!id || id > blk->nrec)
				break;
			key = rec[id - 1].key;
			outermost &= KTAU_KEY_FID(key) != fid;
		}
		e = ktau_flat_get(v, KTAU_KEY(KTAU_KEY_CTX(key), 0, fid), search);
		e->calls += r->calls;
		e->excl += r->excl;
		if (outermost)
			e->incl += r->incl;
		if (i % 64 == 63)
			cond_resched();
	}
	/*
	 * A recursive routine's inner calls add exclusive time only, which
	 * its outer call's inclusive time covers, unless a control change
	 * discarded that outer call after an inner one completed.
	 */
	for (i = 0; i < v->nr_flat; i++) {
		e = &v->flat[i];
		e->excl = min(e->excl, e->incl);
	}
	return 0;
}

/* Whether @blk has the record of callpath @fid[0..@depth) under @ctx. */
static bool ktau_block_has_path(const struct ktau_view *v,
				const struct ktau_block *blk, u32 ctx,
				const u16 *fid, unsigned int depth)
{
	const struct ktau_view_entry *rec = ktau_block_recs(v, blk), *e = NULL;
	unsigned int i;

	for (i = 0; i < depth; i++) {
		e = ktau_view_lookup(v, blk,
				     i ? ktau_view_child_key(e - rec + 1, fid[i]) :
					 KTAU_KEY(ctx, KTAU_NO_PARENT, fid[0]));
		if (!e)
			return false;
	}
	return true;
}

/*
 * An open frame's callers must have records, for readers to name its
 * path by: a frame opened after the table was copied may have a caller
 * whose record came later too.  Such a frame shows at its next read.
 */
static void ktau_block_trim_open(struct ktau_view *v, struct ktau_block *blk)
{
	struct ktau_open_frame *open = v->open + blk->open;
	unsigned int i, n = 0;

	for (i = 0; i < blk->nr_open; i++) {
		const struct ktau_open_frame *o = &open[i];

		if (ktau_block_has_path(v, blk, o->ctx, o->fid, o->depth - 1))
			open[n++] = *o;
		if (i % 64 == 63)
			cond_resched();
	}
	blk->nr_open = n;
}

/* Calls of a record that has none, whose path line a shown one needs. */
#define KTAU_VIEW_NEEDED	U64_MAX

static bool ktau_view_unreached(const struct ktau_view_entry *e)
{
	return !e->calls && !e->incl && !e->excl;
}

static void ktau_view_need(struct ktau_view_entry *e)
{
	if (ktau_view_unreached(e))
		e->calls = KTAU_VIEW_NEEDED;
}

/*
 * Hide (key 0) the records of @blk no call reached, no calls and no
 * cycles: a new process's first table holds its parent's last child's
 * records (table.c, ktau_template_make()), and those it does not call
 * stay so.  One that a shown record or an open frame has as a caller
 * stays, as the path line its callees' lines need (a caller a control
 * change discarded shows 0 calls so).  Callers have lower ids: one pass
 * down the ids marks them before they are reached.
 */
static void ktau_block_hide_unreached(struct ktau_view *v,
				      const struct ktau_block *blk)
{
	struct ktau_view_entry *rec = v->rec + blk->rec, *e;
	const struct ktau_open_frame *o = v->open + blk->open;
	unsigned int i, d, parent;

	for (i = 0; i < blk->nr_open; i++, o++) {
		e = NULL;
		for (d = 0; d + 1 < o->depth; d++) {
			e = (struct ktau_view_entry *)ktau_view_lookup(v, blk,
				d ? ktau_view_child_key(e - rec + 1, o->fid[d]) :
				    KTAU_KEY(o->ctx, KTAU_NO_PARENT, o->fid[0]));
			if (!e)
				break;
			ktau_view_need(e);
		}
	}
	for (i = blk->nrec; i-- > 0;) {
		e = &rec[i];
		if (!e->key || ktau_view_key_is_event(e->key))
			continue;
		if (e->calls == KTAU_VIEW_NEEDED) {
			e->calls = 0;
		} else if (ktau_view_unreached(e)) {
			e->key = 0;
			continue;
		}
		parent = KTAU_KEY_PARENT(e->key);
		if (parent && parent <= i)
			ktau_view_need(&rec[parent - 1]);
		if (i % 64 == 0)
			cond_resched();
	}
}

/**
 * ktau_view_ready() - ready block @b of @v for printing
 * @v: the view
 * @b: the block
 *
 * Indexes the block's records (for ktau_view_lookup()), counts its event
 * records, drops its open frames whose callers have no record, builds
 * its flat profile, in v->flat[0 .. nr_flat), and hides the records no
 * call reached that no shown line needs, all in buffers the next block
 * reuses.
 *
 * Return: 0 or -ENOMEM.
 */
int ktau_view_ready(struct ktau_view *v, unsigned int b)
{
	struct ktau_block *blk = &v->block[b];
	const struct ktau_view_entry *rec = ktau_block_recs(v, blk);
	unsigned int i;
	int ret;

	if (blk->nrec > KTAU_VIEW_SEARCH) {
		if (ktau_index_reset(&v->index, blk->nrec))
			return -ENOMEM;
		for (i = 0; i < blk->nrec; i++) {
			if (rec[i].key)
				v->index.slot[ktau_index_find(&v->index, rec,
							      rec[i].key)] = i + 1;
			if (i % 64 == 63)
				cond_resched();
		}
	}
	ktau_block_trim_open(v, blk);
	ret = ktau_view_flatten(v, blk);
	if (!ret && v->nr_unreached)
		ktau_block_hide_unreached(v, blk);
	return ret;
}

/* Forget the blocks (keeping the buffers for the next process). */
void ktau_view_reset(struct ktau_view *v)
{
	ktau_table_free(v->merged);
	v->merged = NULL;
	v->nr_blocks = 0;
	v->nr_rec = 0;
	v->nr_open = 0;
	v->nr_flat = 0;
	v->nr_event = 0;
}

void ktau_view_free(struct ktau_view *v)
{
	ktau_view_reset(v);
	kvfree(v->block);
	kvfree(v->rec);
	kvfree(v->copy);
	kvfree(v->open);
	kvfree(v->map);
	kvfree(v->index.slot);
	kvfree(v->flat);
	kvfree(v->flat_index.slot);
	memset(v, 0, sizeof(*v));
}
