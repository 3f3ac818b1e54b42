// SPDX-License-Identifier: GPL-2.0
/*
 * KTAU views: copy the profile tables of a set of tasks while they keep
 * running, and merge them into the blocks a /proc file prints.
 *
 * A live table is copied under RCU, one at a time, into a buffer of the
 * reader's; everything else (merging, summing, allocating) happens
 * outside RCU, yielding the CPU between tasks and every few dozen
 * records.  A process's live threads and exited total are read under the
 * process's ktau mutex, so a thread exiting meanwhile is counted once:
 * live or folded.  All memory is charged to the reader.
 */
#include <linux/mm.h>
#include <linux/pid_namespace.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include "view.h"

#define KTAU_VIEW_GFP		GFP_KERNEL_ACCOUNT

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

	if (v->nr_blocks == v->max_blocks) {
		unsigned int n = max(8U, 2 * v->max_blocks);
		struct ktau_block *bigger;

		bigger = kvmalloc_array(n, sizeof(*bigger), KTAU_VIEW_GFP);
		if (!bigger)
			return NULL;
		if (v->nr_blocks)
			memcpy(bigger, v->block, v->nr_blocks * sizeof(*bigger));
		kvfree(v->block);
		v->block = bigger;
		v->max_blocks = n;
	}
	blk = &v->block[v->nr_blocks++];
	memset(blk, 0, sizeof(*blk));
	blk->kind = kind;
	blk->pid = pid;
	strscpy(blk->comm, "-", sizeof(blk->comm));
	return blk;
}

/* comm may hold any byte; the format's tokens may not. */
static void ktau_block_set_comm(struct ktau_block *blk,
				struct task_struct *task)
{
	char *c;

	get_task_comm(blk->comm, task);
	for (c = blk->comm; *c; c++) {
		if (*c <= ' ' || *c == '=' || *c >= 0x7f)
			*c = '_';
	}
	if (!blk->comm[0])
		strscpy(blk->comm, "-", sizeof(blk->comm));
}

/* Merge @n records of some table (ids 1..@n in order) into @blk. */
static int ktau_block_fold(struct ktau_view *v, struct ktau_block *blk,
			   const struct ktau_entry *src, unsigned int n)
{
	if (ktau_grow_array((void **)&v->map, &v->max_map, n, 0, sizeof(u16)))
		return -ENOMEM;
	blk->dropped += ktau_fold(&blk->recs, src, n, v->map,
				  &ktau_alloc_reader);
	return 0;
}

/*
 * Copy @task's live table into v->copy; returns the records copied or
 * -ENOMEM.  The writer stores inclusive before exclusive time: loading
 * them in the opposite order keeps exclusive <= inclusive.
 */
static int ktau_copy_live(struct ktau_view *v, struct task_struct *task,
			  u64 *dropped)
{
	const struct ktau_table *t;
	unsigned int i, n;

	for (;;) {
		rcu_read_lock();
		t = rcu_dereference(task->ktau.table);
		/* the count before the records it covers */
		n = t ? smp_load_acquire(&t->nrec) : 0;
		if (n <= v->max_copy) {
			for (i = 0; i < n; i++) {
				struct ktau_entry *dst = &v->copy[i];

				dst->key = READ_ONCE(t->rec[i].key);
				dst->excl = READ_ONCE(t->rec[i].excl);
				/* excl before incl: ktau_entry_add()'s order */
				smp_rmb();
				dst->incl = READ_ONCE(t->rec[i].incl);
				dst->calls = READ_ONCE(t->rec[i].calls);
			}
			*dropped += t ? READ_ONCE(*ktau_table_dropped(t)) : 0;
			rcu_read_unlock();
			return n;
		}
		rcu_read_unlock();
		if (ktau_grow_array((void **)&v->copy, &v->max_copy, n, 0,
				    sizeof(*v->copy)))
			return -ENOMEM;
	}
}

/*
 * The frames open in @task, read from another CPU while it runs: the
 * stack is read twice and kept only if both reads agree, then cut at
 * the first frame a control change made stale.
 */
struct ktau_stack_copy {
	u64 state;
	u64 root_key;
	struct ktau_frame frame[KTAU_MAX_DEPTH];
};

static bool ktau_read_stack(const struct ktau_task *kt,
			    struct ktau_stack_copy *c)
{
	unsigned int i, depth;

	c->state = READ_ONCE(kt->state);
	c->root_key = READ_ONCE(kt->root_key);
	/* the depth before the frames it covers */
	smp_rmb();
	depth = min_t(u32, (u32)c->state, KTAU_MAX_DEPTH);
	for (i = 0; i < depth; i++) {
		c->frame[i].start = READ_ONCE(kt->stack[i].start);
		c->frame[i].child = READ_ONCE(kt->stack[i].child);
		c->frame[i].key = READ_ONCE(kt->stack[i].key);
	}
	/* the frames before the second read that validates them */
	smp_rmb();
	if (READ_ONCE(kt->state) != c->state ||
	    READ_ONCE(kt->root_key) != c->root_key)
		return false;
	for (i = 0; i < depth; i++) {
		if (READ_ONCE(kt->stack[i].start) != c->frame[i].start ||
		    READ_ONCE(kt->stack[i].child) != c->frame[i].child ||
		    READ_ONCE(kt->stack[i].key) != c->frame[i].key)
			return false;
	}
	return true;
}

static int ktau_block_open_frames(struct ktau_block *blk,
				  struct task_struct *task, pid_t tid)
{
	const struct ktau_task *kt = &task->ktau;
	struct ktau_stack_copy c;
	unsigned int i, depth, tries;
	u64 now, incl[KTAU_MAX_DEPTH];
	u32 gen;

	if (test_bit(KTAU_TASK_DEAD, &kt->flags) || is_idle_task(task))
		return 0;
	for (tries = 0; tries < 4; tries++) {
		if (ktau_read_stack(kt, &c))
			break;
		cpu_relax();
	}
	if (tries == 4)
		return 0;
	now = ktau_arch_now();
	depth = min_t(u32, (u32)c.state, KTAU_MAX_DEPTH);
	gen = c.state >> 32;
	for (i = 0; i < depth; i++) {
		u64 key = i ? c.frame[i].key : c.root_key;
		int group = ktau_fid_group(KTAU_KEY_FID(key));

		if (group < 0 || !(u16)key ||
		    ktau_gen_after(READ_ONCE(ktau_group_gen[group]), gen))
			break;
		incl[i] = ktau_elapsed(c.frame[i].start, now);
	}
	depth = i;
	if (ktau_grow_array((void **)&blk->open, &blk->max_open,
			    blk->nr_open + depth, blk->nr_open, sizeof(*blk->open)))
		return -ENOMEM;
	for (i = 0; i < depth; i++) {
		struct ktau_open_frame *o = &blk->open[blk->nr_open++];
		unsigned int j;

		o->tid = tid;
		o->ctx = KTAU_KEY_CTX(c.root_key);
		o->depth = i + 1;
		for (j = 0; j <= i; j++)
			o->fid[j] = KTAU_KEY_FID(j ? c.frame[j].key : c.root_key);
		o->incl = incl[i];
		o->excl = ktau_excl(incl[i], c.frame[i].child +
				    (i + 1 < depth ? incl[i + 1] : 0));
	}
	return 0;
}

/* Add @task's live table (and its open frames) to @blk. */
static int ktau_block_add_task(struct ktau_view *v, struct ktau_block *blk,
			       struct task_struct *task, pid_t tid)
{
	int n = ktau_copy_live(v, task, &blk->dropped);

	if (n < 0)
		return n;
	if (n && ktau_block_fold(v, blk, v->copy, n))
		return -ENOMEM;
	cond_resched();
	return ktau_block_open_frames(blk, task, tid);
}

/* The flat profile: per (ctx, fid), sums over the paths ending in fid. */
static int ktau_block_flatten(struct ktau_block *blk)
{
	const struct ktau_table *t = blk->recs;
	unsigned int i, depth, j;
	u16 fid[KTAU_MAX_DEPTH];
	struct ktau_entry *e;
	bool outermost;
	u32 ctx;

	if (!t)
		return 0;
	for (i = 0; i < t->nrec; i++) {
		const struct ktau_entry *r = &t->rec[i];

		if (ktau_key_is_event(r->key) || !r->calls)
			continue;
		depth = ktau_view_path(t, i + 1, fid, &ctx);
		outermost = true;
		for (j = 0; j + 1 < depth; j++)
			outermost &= fid[j] != fid[depth - 1];
		e = ktau_table_get(&blk->flat, KTAU_KEY(ctx, 0, fid[depth - 1]),
				   &ktau_alloc_reader);
		if (!e)
			return -ENOMEM;
		e->calls += r->calls;
		e->excl += r->excl;
		if (outermost)
			e->incl += r->incl;
		if (!(i % 64))
			cond_resched();
	}
	/*
	 * A recursive routine's inner calls add exclusive time only, which
	 * its outer call's inclusive time covers, unless a control change
	 * discarded that outer call after an inner one completed.
	 */
	for (i = 0; blk->flat && i < blk->flat->nrec; i++) {
		e = &blk->flat->rec[i];
		e->excl = min(e->excl, e->incl);
	}
	return 0;
}

unsigned int ktau_view_path(const struct ktau_table *t, unsigned int id,
			    u16 fid[KTAU_MAX_DEPTH], u32 *ctx)
{
	u16 rev[KTAU_MAX_DEPTH];
	unsigned int n = 0, i;
	u64 key = 0;

	while (id && id <= t->nrec && n < KTAU_MAX_DEPTH) {
		key = t->rec[id - 1].key;
		rev[n++] = KTAU_KEY_FID(key);
		id = KTAU_KEY_PARENT(key);
	}
	*ctx = KTAU_KEY_CTX(key);
	for (i = 0; i < n; i++)
		fid[i] = rev[n - 1 - i];
	return n;
}

/* Whether @blk has the record of callpath @fid[0..@depth) under @ctx. */
static bool ktau_block_has_path(const struct ktau_block *blk, u32 ctx,
				const u16 *fid, unsigned int depth)
{
	const struct ktau_entry *e = NULL;
	unsigned int i;

	if (!blk->recs)
		return !depth;
	for (i = 0; i < depth; i++) {
		e = ktau_table_lookup(blk->recs,
				      i ? ktau_child_key(ktau_record_id(blk->recs, e),
							 fid[i]) :
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
static void ktau_block_trim_open(struct ktau_block *blk)
{
	unsigned int i, n = 0;

	for (i = 0; i < blk->nr_open; i++) {
		const struct ktau_open_frame *o = &blk->open[i];

		if (ktau_block_has_path(blk, o->ctx, o->fid, o->depth - 1))
			blk->open[n++] = *o;
	}
	blk->nr_open = n;
}

static int ktau_block_done(struct ktau_block *blk)
{
	ktau_block_trim_open(blk);
	return ktau_block_flatten(blk);
}

int ktau_view_thread(struct ktau_view *v, struct task_struct *task,
		     struct pid_namespace *ns)
{
	struct ktau_block *blk;
	pid_t tid = task_pid_nr_ns(task, ns);
	int ret;

	blk = ktau_block_new(v, KTAU_BLOCK_THREAD, task_tgid_nr_ns(task, ns));
	if (!blk)
		return -ENOMEM;
	blk->tid = tid;
	ktau_block_set_comm(blk, task);
	ret = ktau_block_add_task(v, blk, task, tid);
	return ret ? ret : ktau_block_done(blk);
}

/* A process's exited or children total, under its lock. */
static int ktau_view_total(struct ktau_view *v, struct ktau_signal *ks,
			   enum ktau_block_kind kind, pid_t pid)
{
	struct ktau_block *blk = ktau_block_new(v, kind, pid);
	const struct ktau_table *t;
	int ret;

	if (!blk)
		return -ENOMEM;
	if (kind == KTAU_BLOCK_EXITED) {
		blk->exited_threads = ks->exited_threads;
		blk->dropped = ks->exited_dropped;
		t = ks->exited;
	} else {
		blk->processes = ks->processes;
		blk->private_processes = ks->private_processes;
		blk->dropped = ks->children_dropped;
		t = ks->children;
	}
	if (t) {
		ret = ktau_block_fold(v, blk, t->rec, t->nrec);
		if (ret)
			return ret;
	}
	return ktau_block_done(blk);
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
			ret = ktau_view_thread(v, t, ns);
			continue;
		}
		blk->threads++;
		ret = ktau_block_add_task(v, blk, t, tid);
	}
	if (ret)
		goto out;
	if (per_thread) {
		ret = ktau_view_total(v, ks, KTAU_BLOCK_EXITED, pid);
	} else {
		blk->exited_threads = ks->exited_threads;
		blk->dropped += ks->exited_dropped;
		if (ks->exited)
			ret = ktau_block_fold(v, blk, ks->exited->rec,
					      ks->exited->nrec);
		if (!ret)
			ret = ktau_block_done(blk);
	}
	if (!ret)
		ret = ktau_view_total(v, ks, KTAU_BLOCK_CHILDREN, pid);
out:
	mutex_unlock(&ks->lock);
	for (i = 0; i < n; i++)
		put_task_struct(threads[i]);
	kvfree(threads);
	return ret;
}

/* Forget the blocks (keeping the buffers for the next process). */
void ktau_view_reset(struct ktau_view *v)
{
	unsigned int b;

	for (b = 0; b < v->nr_blocks; b++) {
		ktau_table_free(v->block[b].recs);
		ktau_table_free(v->block[b].flat);
		kvfree(v->block[b].open);
	}
	v->nr_blocks = 0;
}

void ktau_view_free(struct ktau_view *v)
{
	ktau_view_reset(v);
	kvfree(v->block);
	kvfree(v->copy);
	kvfree(v->map);
	memset(v, 0, sizeof(*v));
}
