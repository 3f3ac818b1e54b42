// SPDX-License-Identifier: GPL-2.0
/*
 * KTAU profile tables: records in an array that only grows at its end,
 * found through an open-addressing index of record ids.
 *
 * A record's id never changes, in its table or in the bigger copies the
 * table grows into, so a record can name its caller's record by id: that
 * is how a table holds full callpaths.  Tables are only allocated where
 * sleeping is allowed (fork, the return to user mode, a worker, /proc
 * readers, exit), charged to the memory cgroup; everything beyond a
 * task's first table is also counted against ktau_mem_limit.
 */
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched/stat.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "internal.h"

/* Tables beyond the first size, against the limit; first-size tables. */
static atomic_long_t ktau_growth_bytes = ATOMIC_LONG_INIT(0);
static atomic_long_t ktau_min_tables = ATOMIC_LONG_INIT(0);

/*
 * The first and the second size's caches: in a kmalloc bucket, the
 * second (1264 bytes) would take 2 KiB.
 */
static struct kmem_cache *ktau_table_cache;
static struct kmem_cache *ktau_table_next_cache;

unsigned int ktau_records_limit __read_mostly = KTAU_RECORDS_DEFAULT;
unsigned long ktau_mem_limit __read_mostly;

/*
 * The table of tasks that have none: no room, no records, and a zero
 * record for the system call exit's hint to compare with, which its
 * dropped count and index (one empty slot) overlap.  Nothing writes it.
 */
static u64 ktau_empty_storage[(sizeof(struct ktau_table) +
			       sizeof(struct ktau_entry)) / sizeof(u64)];
struct ktau_table *const ktau_empty_table =
	(struct ktau_table *)ktau_empty_storage;

/* An index at most 2/3 full keeps linear probing short. */
static unsigned int ktau_index_bits(unsigned int maxrec)
{
	return order_base_2(maxrec + maxrec / 2 + 1);
}

static size_t ktau_table_size(unsigned int maxrec)
{
	return struct_size_t(struct ktau_table, rec, maxrec) + sizeof(u64) +
	       (sizeof(u16) << ktau_index_bits(maxrec));
}

static u16 *ktau_table_index(const struct ktau_table *t)
{
	return (u16 *)(ktau_table_dropped(t) + 1);
}

/*
 * The memory a table of @maxrec records takes: its cache's object size
 * for the first two sizes, else what kvmalloc() may take at most (a
 * kmalloc bucket, or whole pages).
 */
static size_t ktau_table_footprint(unsigned int maxrec)
{
	size_t bytes = ktau_table_size(maxrec);

	if (maxrec == KTAU_TABLE_MIN_RECORDS ||
	    maxrec == KTAU_TABLE_NEXT_RECORDS)
		return bytes;
	if (bytes <= KMALLOC_MAX_CACHE_SIZE)
		return kmalloc_size_roundup(bytes);
	return PAGE_SIZE << get_order(bytes);
}

/* The bytes the allocation that holds @t takes (0 for the empty table). */
size_t ktau_table_bytes(const struct ktau_table *t)
{
	if (!t || t == ktau_empty_table)
		return 0;
	return ktau_table_footprint(t->maxrec);
}

static bool ktau_mem_charge(size_t bytes)
{
	if (atomic_long_add_return(bytes, &ktau_growth_bytes) <=
	    READ_ONCE(ktau_mem_limit))
		return true;
	atomic_long_sub(bytes, &ktau_growth_bytes);
	return false;
}

/* Tables a /proc reader builds: not counted against ktau_mem_limit. */
#define KTAU_TABLE_UNCHARGED	0x01

const struct ktau_alloc ktau_alloc_totals = {
	.limit = KTAU_RECORDS_LIMIT_MAX,
	.gfp = GFP_KERNEL_ACCOUNT,
	.charged = true,
};

const struct ktau_alloc ktau_alloc_reader = {
	.limit = KTAU_RECORDS_LIMIT_MAX,
	.gfp = GFP_KERNEL_ACCOUNT,
	.charged = false,
};

/*
 * A zeroed table with room for @maxrec records, or NULL (no memory, or
 * the memory limit is reached).  A task's first-size table comes from
 * its own cache; bigger charged ones count against ktau_mem_limit.
 */
static struct ktau_table *ktau_table_alloc(unsigned int maxrec, gfp_t gfp,
					   bool charged)
{
	struct ktau_table *t;
	size_t bytes = ktau_table_footprint(maxrec);

	if (!charged) {
		t = kvzalloc(ktau_table_size(maxrec), gfp | __GFP_NOWARN);
	} else if (maxrec == KTAU_TABLE_MIN_RECORDS) {
		/* Tasks forked before ktau_init() start without a table. */
		if (!ktau_table_cache)
			return NULL;
		t = kmem_cache_zalloc(ktau_table_cache, gfp);
		if (t)
			atomic_long_inc(&ktau_min_tables);
	} else {
		if (!ktau_mem_charge(bytes))
			return NULL;
		if (maxrec == KTAU_TABLE_NEXT_RECORDS && ktau_table_next_cache)
			t = kmem_cache_zalloc(ktau_table_next_cache,
					      gfp | __GFP_NOWARN);
		else
			t = kvzalloc(ktau_table_size(maxrec),
				     gfp | __GFP_NOWARN);
		if (!t)
			atomic_long_sub(bytes, &ktau_growth_bytes);
	}
	if (!t)
		return NULL;
	t->maxrec = maxrec;
	t->index_bits = ktau_index_bits(maxrec);
	t->flags = charged ? 0 : KTAU_TABLE_UNCHARGED;
	return t;
}

struct ktau_table *ktau_table_new(unsigned int maxrec, gfp_t gfp)
{
	return ktau_table_alloc(maxrec, gfp, true);
}

static void ktau_table_uncharge(const struct ktau_table *t)
{
	if (t->flags & KTAU_TABLE_UNCHARGED)
		return;
	if (t->maxrec == KTAU_TABLE_MIN_RECORDS)
		atomic_long_dec(&ktau_min_tables);
	else
		atomic_long_sub(ktau_table_bytes(t), &ktau_growth_bytes);
}

/* Free a table no reader can still see. */
void ktau_table_free(struct ktau_table *t)
{
	if (!t || t == ktau_empty_table)
		return;
	ktau_table_uncharge(t);
	kvfree(t);
}

/* Free a table readers may still hold under RCU; any context but NMI. */
void ktau_table_free_rcu(struct ktau_table *t)
{
	if (!t || t == ktau_empty_table)
		return;
	ktau_table_uncharge(t);
	kvfree_rcu(t, rcu);
}

/*
 * The record count of the table @t grows into (a new one if @t is NULL),
 * or 0 when @t is at @limit already.
 */
unsigned int ktau_table_next_size(const struct ktau_table *t,
				  unsigned int limit)
{
	unsigned int n;

	if (!t || t == ktau_empty_table)
		return KTAU_TABLE_MIN_RECORDS;
	if (t->maxrec >= limit)
		return 0;
	if (t->maxrec < KTAU_TABLE_NEXT_RECORDS)
		n = KTAU_TABLE_NEXT_RECORDS;
	else
		n = 2 * t->maxrec;
	n = min(n, limit);
	return max(n, t->maxrec + 1);
}

static unsigned int ktau_hash(u64 key, unsigned int bits)
{
	return bits ? (key * GOLDEN_RATIO_64) >> (64 - bits) : 0;
}

/*
 * The index slot of @key: where its record id is, or the empty slot
 * where it goes.  The index always has an empty slot.
 */
static unsigned int ktau_table_slot(const struct ktau_table *t, u64 key)
{
	const u16 *index = ktau_table_index(t);
	unsigned int mask = (1U << t->index_bits) - 1;
	unsigned int i = ktau_hash(key, t->index_bits);

	for (;; i = (i + 1) & mask) {
		unsigned int id = index[i];

		if (!id || t->rec[id - 1].key == key)
			return i;
	}
}

/* The record of @key, or NULL. */
struct ktau_entry *ktau_table_lookup(const struct ktau_table *t, u64 key)
{
	unsigned int id = ktau_table_index(t)[ktau_table_slot(t, key)];

	return id ? (struct ktau_entry *)&t->rec[id - 1] : NULL;
}

/*
 * The record of @key, added (zeroed) if new; NULL when the table is
 * full.  Only the table's writer calls this.  A reader that sees the
 * new count sees the new record's key.
 */
struct ktau_entry *ktau_table_add(struct ktau_table *t, u64 key)
{
	unsigned int slot = ktau_table_slot(t, key);
	u16 *index = ktau_table_index(t);
	struct ktau_entry *e;

	if (index[slot])
		return &t->rec[index[slot] - 1];
	if (t->nrec >= t->maxrec)
		return NULL;
	e = &t->rec[t->nrec];
	WRITE_ONCE(e->key, key);
	index[slot] = t->nrec + 1;
	/* Pairs with smp_load_acquire() of nrec by readers. */
	smp_store_release(&t->nrec, t->nrec + 1);
	return e;
}

/*
 * Copy @src's records into the empty, bigger @dst, keeping their ids,
 * and @src's hints and dropped count.  The caller is @src's writer.
 */
void ktau_table_copy(struct ktau_table *dst, const struct ktau_table *src)
{
	unsigned int i, n = src->nrec;
	u16 *index = ktau_table_index(dst);

	memcpy(dst->rec, src->rec, n * sizeof(src->rec[0]));
	for (i = 0; i < n; i++)
		index[ktau_table_slot(dst, src->rec[i].key)] = i + 1;
	memcpy(dst->hint, src->hint, sizeof(dst->hint));
	memcpy(dst->bytes_hint, src->bytes_hint, sizeof(dst->bytes_hint));
	memcpy(dst->sched_hint, src->sched_hint, sizeof(dst->sched_hint));
	*ktau_table_dropped(dst) = *ktau_table_dropped(src);
	/* the records before their count: readers load it with acquire */
	smp_store_release(&dst->nrec, n);
}

/*
 * ktau_table_add() for tables only their owner sees or that a lock
 * protects from readers (process totals, /proc views): grows the table
 * at *@tp (allocating it if NULL) as @a says.  May sleep if @a->gfp
 * allows.
 */
struct ktau_entry *ktau_table_get(struct ktau_table **tp, u64 key,
				  const struct ktau_alloc *a)
{
	struct ktau_table *t = *tp, *bigger;
	struct ktau_entry *e;
	unsigned int n;

	if (t) {
		e = ktau_table_add(t, key);
		if (e)
			return e;
	}
	n = ktau_table_next_size(t, a->limit);
	if (!n)
		return NULL;
	bigger = ktau_table_alloc(n, a->gfp, a->charged);
	if (!bigger)
		return NULL;
	if (t) {
		ktau_table_copy(bigger, t);
		ktau_table_free(t);
	}
	*tp = bigger;
	return ktau_table_add(bigger, key);
}

/*
 * Add the @n records @src[] (ids 1..@n of some table, in order, so a
 * caller's id is below its callees') to the table at *@dst, keeping
 * their callpaths: each record's caller id becomes the id its caller got
 * in *@dst, which @map[] (@n entries) keeps.  Returns the calls that
 * found no room.  Sleeps: the destination grows as @a says.
 */
u64 ktau_fold(struct ktau_table **dst, const struct ktau_entry *src,
	      unsigned int n, u16 *map, const struct ktau_alloc *a)
{
	unsigned int i, parent;
	struct ktau_entry *e;
	u64 lost = 0, key;

	for (i = 0; i < n; i++) {
		const struct ktau_entry *s = &src[i];

		map[i] = 0;
		key = s->key;
		parent = KTAU_KEY_PARENT(key);
		if (!(i % 64))
			cond_resched();
		if (!key)
			continue;
		if (ktau_key_is_event(key)) {
			e = ktau_table_get(dst, key, a);
			if (!e)
				lost += s->calls;
			else if (parent == KTAU_EVENT_RANGE)
				ktau_range_add(e, s->calls, s->incl, s->excl);
			else
				ktau_sum_add(e, s->calls, s->incl, s->excl);
			continue;
		}
		if (parent) {
			if (parent > i || !map[parent - 1]) {
				lost += s->calls;
				continue;
			}
			key = KTAU_KEY(KTAU_KEY_CTX(key), map[parent - 1],
				       KTAU_KEY_FID(key));
		}
		e = ktau_table_get(dst, key, a);
		if (!e) {
			lost += s->calls;
			continue;
		}
		map[i] = ktau_record_id(*dst, e);
		ktau_entry_add(e, s->calls, s->incl, s->excl);
	}
	return lost;
}

/*
 * The bytes task profiles take: the part in task_struct of every task,
 * first-size tables, and every bigger table (task tables, spares,
 * process totals).
 */
void ktau_memory_usage(unsigned long *tasks, unsigned long *bytes)
{
	*tasks = nr_threads;
	*bytes = nr_threads * sizeof(struct ktau_task) +
		 atomic_long_read(&ktau_min_tables) *
		 ktau_table_size(KTAU_TABLE_MIN_RECORDS) +
		 atomic_long_read(&ktau_growth_bytes);
}

void __init ktau_memory_init(void)
{
	BUILD_BUG_ON(KTAU_RECORDS_LIMIT_MAX >= KTAU_EVENT_RANGE);
	ktau_table_cache = kmem_cache_create("ktau_table",
					     ktau_table_size(KTAU_TABLE_MIN_RECORDS),
					     0, SLAB_PANIC | SLAB_ACCOUNT, NULL);
	ktau_table_next_cache =
		kmem_cache_create("ktau_table_next",
				  ktau_table_size(KTAU_TABLE_NEXT_RECORDS),
				  0, SLAB_PANIC | SLAB_ACCOUNT, NULL);
	/* 1/64 of RAM, at most 1 GiB, for tables beyond their first size. */
	ktau_mem_limit = min_t(unsigned long,
			       (totalram_pages() << PAGE_SHIFT) / 64, SZ_1G);
}
