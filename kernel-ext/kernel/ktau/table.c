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
 * task's first table is also charged to a user, within that user's
 * limit (user.c), and counted against ktau_mem_limit, all users' total.
 */
#include <linux/cred.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched/stat.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "internal.h"

/* Tables beyond the first size, all users'; first-size tables. */
static atomic_long_t ktau_growth_bytes = ATOMIC_LONG_INIT(0);
static atomic_long_t ktau_min_tables = ATOMIC_LONG_INIT(0);

/*
 * The first three sizes' caches.  In a kmalloc bucket, the second (1392
 * bytes) would take 2 KiB.  The third fills a page: in kmalloc-4k, which
 * the kernel merges names_cache into (getname(), every path a system
 * call takes), long-lived tables left that cache's slabs so that a
 * file-tree workload's names made and freed an order-3 slab each (24 000
 * a run of busybox tar x, against 300 without ktau).  It is never merged.
 */
static struct kmem_cache *ktau_table_cache;
static struct kmem_cache *ktau_table_next_cache;
static struct kmem_cache *ktau_table_page_cache;
static unsigned int ktau_table_page_records;

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

/*
 * An index at most 3/4 full keeps linear probing short (and a first
 * table's to 32 slots).
 */
static unsigned int ktau_index_bits(unsigned int maxrec)
{
	/* more slots than records: the index always has an empty one */
	return order_base_2(DIV_ROUND_UP(4 * maxrec, 3));
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

/*
 * Charge a grown table of @bytes to @owner, within the user's limit and
 * the total; an account is created for a new user only if @may_sleep.
 * Returns 0 or what ktau_user_charge() does, -ENOSPC for the total.
 */
static int ktau_mem_charge(kuid_t owner, size_t bytes, bool may_sleep)
{
	int ret = ktau_user_charge(owner, bytes, may_sleep);

	if (ret)
		return ret;
	if (atomic_long_add_return(bytes, &ktau_growth_bytes) <=
	    READ_ONCE(ktau_mem_limit))
		return 0;
	atomic_long_sub(bytes, &ktau_growth_bytes);
	ktau_user_uncharge(owner, bytes);
	return -ENOSPC;
}

static void ktau_mem_uncharge(kuid_t owner, size_t bytes)
{
	atomic_long_sub(bytes, &ktau_growth_bytes);
	ktau_user_uncharge(owner, bytes);
}

/* Tables a /proc reader builds: not counted against ktau_mem_limit. */
#define KTAU_TABLE_UNCHARGED	0x01
/* A task's table kept as a process total: readers may still see it. */
#define KTAU_TABLE_SEEN_RCU	0x02

const struct ktau_alloc ktau_alloc_totals = {
	.limit = KTAU_RECORDS_LIMIT_MAX,
	.gfp = GFP_KERNEL_ACCOUNT,
	.charged = true,
	.owner = GLOBAL_ROOT_UID,
};

const struct ktau_alloc ktau_alloc_reader = {
	.limit = KTAU_RECORDS_LIMIT_MAX,
	.gfp = GFP_KERNEL_ACCOUNT,
	.charged = false,
};

/*
 * A zeroed table with room for @maxrec records, or NULL (no memory, or
 * a memory limit is reached).  A task's first-size table comes from its
 * own cache; bigger charged ones are charged to user @owner (an account
 * is created for a new user: @gfp must allow sleeping).
 */
static struct ktau_table *ktau_table_alloc(unsigned int maxrec, gfp_t gfp,
					   bool charged, kuid_t owner)
{
	struct ktau_table *t;
	size_t bytes = ktau_table_footprint(maxrec);

	if (!charged) {
		t = kvmalloc(ktau_table_size(maxrec), gfp | __GFP_NOWARN);
	} else if (maxrec == KTAU_TABLE_MIN_RECORDS) {
		/* Tasks forked before ktau_init() start without a table. */
		if (!ktau_table_cache)
			return NULL;
		t = kmem_cache_alloc(ktau_table_cache, gfp);
		if (t)
			atomic_long_inc(&ktau_min_tables);
	} else {
		if (ktau_mem_charge(owner, bytes, gfpflags_allow_blocking(gfp)))
			return NULL;
		if (maxrec == KTAU_TABLE_NEXT_RECORDS && ktau_table_next_cache)
			t = kmem_cache_alloc(ktau_table_next_cache,
					     gfp | __GFP_NOWARN);
		else if (maxrec == ktau_table_page_records &&
			 ktau_table_page_cache)
			t = kmem_cache_alloc(ktau_table_page_cache,
					     gfp | __GFP_NOWARN);
		else
			t = kvmalloc(ktau_table_size(maxrec),
				     gfp | __GFP_NOWARN);
		if (!t)
			ktau_mem_uncharge(owner, bytes);
	}
	if (!t)
		return NULL;
	/*
	 * Zeroed where read before written: the header, the dropped count,
	 * the index and the first two records, which a hint of 0 names (the
	 * bytes hint reads a pair) before they exist.  A record is written
	 * whole when it is added: a task's fork and its growth do not clear
	 * a kilobyte of records it may never use.
	 */
	memset(t, 0, struct_size(t, rec, min(maxrec, 2U)));
	t->maxrec = maxrec;
	t->index_bits = ktau_index_bits(maxrec);
	memset(ktau_table_dropped(t), 0,
	       sizeof(u64) + (sizeof(u16) << t->index_bits));
	t->owner = owner;
	t->flags = charged ? 0 : KTAU_TABLE_UNCHARGED;
	return t;
}

/* A task's first table, or a bigger one charged to root (kernel threads). */
struct ktau_table *ktau_table_new(unsigned int maxrec, gfp_t gfp)
{
	return ktau_table_alloc(maxrec, gfp, true, GLOBAL_ROOT_UID);
}

/* A table charged to user @owner if bigger than a first table. */
struct ktau_table *ktau_table_new_owned(unsigned int maxrec, gfp_t gfp,
					kuid_t owner)
{
	return ktau_table_alloc(maxrec, gfp, true, owner);
}

/* Whether @t is a grown table, charged to a user. */
static bool ktau_table_charged(const struct ktau_table *t)
{
	return !(t->flags & KTAU_TABLE_UNCHARGED) &&
	       t->maxrec != KTAU_TABLE_MIN_RECORDS;
}

/*
 * Whether @t, a grown table, is charged to another user than @uid.  @t
 * may be freed meanwhile (its owner stays readable under RCU).
 */
bool ktau_table_foreign(const struct ktau_table *t, kuid_t uid)
{
	return t != ktau_empty_table && ktau_table_charged(t) &&
	       !uid_eq(t->owner, uid);
}

/*
 * Move the charge of @t, a table no one else sees yet, to user @uid,
 * within @uid's limit and allocating nothing (interrupts may be off).
 * Returns 0, -EDQUOT (@uid is at its limit: @t is left as it was) or
 * -ENOENT (@uid has no account yet: @t is left as it was).
 */
int ktau_table_recharge(struct ktau_table *t, kuid_t uid)
{
	size_t bytes = ktau_table_bytes(t);
	int ret;

	if (!ktau_table_foreign(t, uid))
		return 0;
	ret = ktau_user_charge(uid, bytes, false);
	if (ret)
		return ret;
	ktau_user_uncharge(t->owner, bytes);
	t->owner = uid;
	return 0;
}

/*
 * Give @t's bytes back to the user it was charged to, whatever its
 * task's credentials are now; any context but NMI.
 */
static void ktau_table_uncharge(const struct ktau_table *t)
{
	if (t->flags & KTAU_TABLE_UNCHARGED)
		return;
	if (t->maxrec == KTAU_TABLE_MIN_RECORDS)
		atomic_long_dec(&ktau_min_tables);
	else
		ktau_mem_uncharge(t->owner, ktau_table_bytes(t));
}

/*
 * Free a table no reader can still see, or one ktau_table_keep() kept,
 * after a grace period; any context but NMI.
 */
void ktau_table_free(struct ktau_table *t)
{
	if (!t || t == ktau_empty_table)
		return;
	ktau_table_uncharge(t);
	if (t->flags & KTAU_TABLE_SEEN_RCU)
		kvfree_rcu(t, rcu);
	else
		kvfree(t);
}

/*
 * Keep @t, a task's table its exit swapped out, as a process total in
 * place of a copy: readers that found it through the task may still copy
 * it under RCU, so whoever frees it frees it after a grace period.
 */
void ktau_table_keep(struct ktau_table *t)
{
	t->flags |= KTAU_TABLE_SEEN_RCU;
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
 * The most records a table can hold in the memory a table of @maxrec
 * records takes (a kmalloc bucket or a power of two of pages): a table of
 * twice 48 records takes 2672 bytes of a 4096-byte bucket, where 144 fit.
 * The index may take the next power of two if the records then fit.
 */
static unsigned int ktau_table_fill(unsigned int maxrec)
{
	size_t room = ktau_table_footprint(maxrec), fixed;
	unsigned int bits, n, best = maxrec;

	for (bits = ktau_index_bits(maxrec);
	     bits <= ktau_index_bits(maxrec) + 1; bits++) {
		fixed = struct_size_t(struct ktau_table, rec, 0) + sizeof(u64) +
			(sizeof(u16) << bits);
		if (fixed >= room)
			break;
		n = min_t(size_t, (room - fixed) / sizeof(struct ktau_entry),
			  KTAU_RECORDS_LIMIT_MAX);
		/* at most 3/4 of the index: 4 * n <= 3 << bits */
		n = min(n, (3U << bits) / 4);
		best = max(best, n);
	}
	return best;
}

/*
 * The record count of the table @t grows into (a new one if @t is NULL),
 * or 0 when @t is at @limit already: the first two sizes, then about
 * twice as many records as @t has, filling their allocation.
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
		n = ktau_table_fill(2 * t->maxrec);
	n = min(n, limit);
	return max(n, t->maxrec + 1);
}

static unsigned int ktau_hash(u32 key, unsigned int bits)
{
	return bits ? hash_32(key, bits) : 0;
}

/*
 * Whether @e is the record of @key: a record whose count carried has its
 * key with KTAU_REC_CARRIED; the records of user contexts, whose keys
 * only hash their values, are also told apart by their values (@value).
 */
static bool ktau_rec_is(const struct ktau_entry *e, u32 key, u64 value)
{
	if (!ktau_key_is_meta(key))
		return (e->key & ~KTAU_REC_CARRIED) == key;
	return e->key == key &&
	       (KTAU_REC_PARENT(key) != KTAU_REC_CTX || e->incl == value);
}

/*
 * The index slot of @key: where its record id is, or the empty slot
 * where it goes.  The index always has an empty slot.
 */
static unsigned int ktau_table_slot(const struct ktau_table *t, u32 key,
				    u64 value)
{
	const u16 *index = ktau_table_index(t);
	unsigned int mask = (1U << t->index_bits) - 1;
	unsigned int i = ktau_hash(key, t->index_bits);

	for (;; i = (i + 1) & mask) {
		unsigned int id = index[i];

		if (!id || ktau_rec_is(&t->rec[id - 1], key, value))
			return i;
	}
}

/*
 * The record of @key (not a user context's), or NULL; its key may have
 * KTAU_REC_CARRIED.
 */
struct ktau_entry *ktau_table_lookup(const struct ktau_table *t, u32 key)
{
	unsigned int id = ktau_table_index(t)[ktau_table_slot(t, key, 0)];

	return id ? (struct ktau_entry *)&t->rec[id - 1] : NULL;
}

/*
 * The record of @key, added (zeroed, @value in its incl) if new; NULL
 * when the table is full.  Only the table's writer calls this.  A reader
 * that sees the new count sees the new record's key and value.
 */
static struct ktau_entry *ktau_table_add_value(struct ktau_table *t, u32 key,
					       u64 value)
{
	unsigned int slot = ktau_table_slot(t, key, value);
	u16 *index = ktau_table_index(t);
	struct ktau_entry *e;

	if (index[slot])
		return &t->rec[index[slot] - 1];
	if (t->nrec >= t->maxrec)
		return NULL;
	e = &t->rec[t->nrec];
	WRITE_ONCE(e->calls, 0);
	WRITE_ONCE(e->key, key);
	WRITE_ONCE(e->incl, value);
	WRITE_ONCE(e->excl, 0);
	index[slot] = t->nrec + 1;
	/* Pairs with smp_load_acquire() of nrec by readers. */
	smp_store_release(&t->nrec, t->nrec + 1);
	return e;
}

/* The record of @key (not a user context's), added if new; NULL if full. */
struct ktau_entry *ktau_table_add(struct ktau_table *t, u32 key)
{
	return ktau_table_add_value(t, key, 0);
}

/*
 * The record of user context @value (not 0), added if new and @add;
 * NULL if there is none (full).  Its caller field says what it is, its
 * incl holds the value.
 */
struct ktau_entry *ktau_table_ctx(struct ktau_table *t, u32 value, bool add)
{
	u32 key = ktau_ctx_rec_key(value);
	unsigned int id;

	if (add)
		return ktau_table_add_value(t, key, value);
	id = ktau_table_index(t)[ktau_table_slot(t, key, value)];
	return id ? &t->rec[id - 1] : NULL;
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
		index[ktau_table_slot(dst, ktau_rec_key(&src->rec[i]),
				      src->rec[i].incl)] = i + 1;
	memcpy(dst->hint, src->hint, sizeof(dst->hint));
	memcpy(dst->bytes_hint, src->bytes_hint, sizeof(dst->bytes_hint));
	memcpy(dst->sched_hint, src->sched_hint, sizeof(dst->sched_hint));
	*ktau_table_dropped(dst) = *ktau_table_dropped(src);
	/* the records before their count: readers load it with acquire */
	smp_store_release(&dst->nrec, n);
}

/*
 * A process's children templates (lifetime.c): a released child's table
 * as the first table of the next children, so that a shell's commands,
 * which each make the same twenty or so calls once or twice, find their
 * records through their hints from their first call instead of adding
 * each in the general exit, and do not grow their table at its 18th.
 * A template is a first-size table with at most 3/4 of its records, the
 * mark where a table grows, whose counts are zero; views do not show a
 * record no call reached (view.c).
 */
static bool ktau_template_fits(const struct ktau_table *src)
{
	return src->nrec && 4 * src->nrec <= 3 * KTAU_TABLE_MIN_RECORDS;
}

/*
 * Whether template @tmpl has @src's records, ids and keys, and no more:
 * the key's carry bit aside, which is a count's, not a key's, in all
 * but meta records, whose ids say as much.
 */
bool ktau_template_same(const struct ktau_table *tmpl,
			const struct ktau_table *src)
{
	unsigned int i, n = tmpl->nrec;

	if (src->nrec != n)
		return false;
	for (i = 0; i < n; i++)
		if ((src->rec[i].key ^ tmpl->rec[i].key) & ~KTAU_REC_CARRIED)
			return false;
	return true;
}

/*
 * A template made of @src, a released process's table no one writes: its
 * records with their ids, keys, index and hints, counts zeroed; NULL if
 * @src does not fit one or there is no memory.  Sleeps.
 */
struct ktau_table *ktau_template_make(const struct ktau_table *src)
{
	struct ktau_table *t;
	unsigned int i;

	if (!ktau_template_fits(src))
		return NULL;
	t = ktau_table_new(KTAU_TABLE_MIN_RECORDS, GFP_KERNEL);
	if (!t)
		return NULL;
	ktau_table_copy(t, src);
	*ktau_table_dropped(t) = 0;
	for (i = 0; i < t->nrec; i++) {
		struct ktau_entry *e = &t->rec[i];
		u32 key = ktau_rec_key(e);

		e->key = key;
		e->calls = 0;
		e->excl = 0;
		/* a user context's record keeps its value */
		if (KTAU_REC_PARENT(key) != KTAU_REC_CTX)
			e->incl = 0;
		/*
		 * An empty range that has a count: its first value is its
		 * minimum and maximum, through the inline bytes path (which
		 * takes a range record a hint names to have one) as through
		 * ktau_range_add(); the event shows once its sum record
		 * counts a value.
		 */
		if (ktau_key_is_range(key)) {
			e->calls = KTAU_CALLS_ONE;
			e->incl = U64_MAX;
		}
	}
	return t;
}

/*
 * Give @dst, a new task's first table no one sees yet, template @tmpl's
 * records, index and hints, its bytes hints too (a child's first read()
 * then adds its bytes inline, as its call's close is): both first-size
 * tables, whose indexes have one size.  Any context.
 */
void ktau_template_apply(struct ktau_table *dst, const struct ktau_table *tmpl)
{
	unsigned int n = tmpl->nrec;

	memcpy(dst->rec, tmpl->rec, n * sizeof(dst->rec[0]));
	memcpy(ktau_table_index(dst), ktau_table_index(tmpl),
	       sizeof(u16) << tmpl->index_bits);
	memcpy(dst->hint, tmpl->hint, sizeof(dst->hint));
	memcpy(dst->bytes_hint, tmpl->bytes_hint, sizeof(dst->bytes_hint));
	memcpy(dst->sched_hint, tmpl->sched_hint, sizeof(dst->sched_hint));
	dst->nrec = n;
}

/*
 * Make room in the table at *@tp (allocating it if NULL), which only its
 * owner sees or which a lock protects from readers (process totals, /proc
 * views), as @a says: false when it is at its limit or out of memory.
 * May sleep if @a->gfp allows.
 */
static bool ktau_table_grow(struct ktau_table **tp, const struct ktau_alloc *a)
{
	struct ktau_table *t = *tp, *bigger;
	unsigned int n = ktau_table_next_size(t, a->limit);

	if (!n)
		return false;
	bigger = ktau_table_alloc(n, a->gfp, a->charged, a->owner);
	if (!bigger)
		return false;
	if (t) {
		ktau_table_copy(bigger, t);
		ktau_table_free(t);
	}
	*tp = bigger;
	return true;
}

/* ktau_table_add() for such tables, growing them. */
struct ktau_entry *ktau_table_get(struct ktau_table **tp, u32 key,
				  const struct ktau_alloc *a)
{
	struct ktau_entry *e = *tp ? ktau_table_add(*tp, key) : NULL;

	if (e || !ktau_table_grow(tp, a))
		return e;
	return ktau_table_add(*tp, key);
}

/* ktau_table_ctx() for such tables, growing them. */
static struct ktau_entry *ktau_table_get_ctx(struct ktau_table **tp, u32 value,
					     const struct ktau_alloc *a)
{
	struct ktau_entry *e = *tp ? ktau_table_ctx(*tp, value, true) : NULL;

	if (e || !ktau_table_grow(tp, a))
		return e;
	return ktau_table_ctx(*tp, value, true);
}

/*
 * Add @calls to the count of record @id of such a table, carrying into
 * its carry record; returns the calls that found no room.
 */
static u64 ktau_calls_add(struct ktau_table **tp, unsigned int id, u64 calls,
			  const struct ktau_alloc *a)
{
	const u64 low = (1ULL << KTAU_CALLS_CARRY_LOG) - 1;
	struct ktau_entry *e = &(*tp)->rec[id - 1];
	u64 lo = (e->calls >> KTAU_CALLS_SHIFT) + (calls & low);
	u64 hi = (calls >> KTAU_CALLS_CARRY_LOG) + (lo >> KTAU_CALLS_CARRY_LOG);

	WRITE_ONCE(e->calls, (lo & low) << KTAU_CALLS_SHIFT);
	if (!hi)
		return 0;
	e = ktau_table_get(tp, ktau_carry_key(id), a);
	if (!e)
		return hi << KTAU_CALLS_CARRY_LOG;
	WRITE_ONCE(e->calls, e->calls + (u32)hi);
	return 0;
}

/*
 * The record of @key (not a meta key) at id @i + 1 of @t, or NULL: a
 * total built from tables of one shape, a shell's children's say, holds
 * each record at the id the next one's has, found without the index.
 */
static struct ktau_entry *ktau_fold_same_id(const struct ktau_table *t,
					    unsigned int i, u32 key)
{
	struct ktau_entry *e;

	if (!t || i >= t->nrec || ktau_key_is_meta(key))
		return NULL;
	e = (struct ktau_entry *)&t->rec[i];
	return ktau_rec_is(e, key, 0) ? e : NULL;
}

/*
 * The first records of a fold into @dst that need no lookup: a shell's
 * children start from its template and its children total took their
 * records in their order, so each of @src[]'s callpath records is at
 * its own id in @dst with its own key, callers included, and the map is
 * the identity.  Adds those while they are so and their calls need no
 * carry (each record's general fold costs about five times as much);
 * returns how many it added, the first ones of @map set.
 */
static unsigned int ktau_fold_same_ids(struct ktau_table *dst,
				       const struct ktau_entry *src,
				       unsigned int n, u16 *map)
{
	const u64 low = (1ULL << KTAU_CALLS_CARRY_LOG) - 1;
	unsigned int i, end = dst ? min_t(unsigned int, n, dst->nrec) : 0;

	BUILD_BUG_ON(KTAU_RECORDS_LIMIT_MAX >= KTAU_REC_CTX_PENDING);
	for (i = 0; i < end; i++) {
		const struct ktau_entry *s = &src[i];
		struct ktau_entry *e = &dst->rec[i];
		u64 word = READ_ONCE(s->calls_key);
		u32 key = word >> 32;
		u64 calls = (u64)(e->calls >> KTAU_CALLS_SHIFT) +
			    ((u32)word >> KTAU_CALLS_SHIFT);

		/*
		 * Not an empty record, a carried count or an event's; a
		 * caller field past @i is a meta record's or an outermost
		 * frame's mark (ids stay below them, KTAU_RECORDS_LIMIT_MAX).
		 */
		if (!key || (key & (KTAU_REC_CARRIED | KTAU_REC_RANGE)) ||
		    KTAU_REC_PARENT(key) > i ||
		    (e->key & ~KTAU_REC_CARRIED) != key || calls > low)
			break;
		WRITE_ONCE(e->incl, e->incl + s->incl);
		WRITE_ONCE(e->excl, e->excl + s->excl);
		WRITE_ONCE(e->calls, calls << KTAU_CALLS_SHIFT);
		map[i] = i + 1;
		if (!((i + 1) % 64))
			cond_resched();
	}
	return i;
}

/*
 * Add the @n records @src[] (ids 1..@n of some table, in order, so a
 * caller's id is below its callees') to the table at *@dst, keeping
 * their callpaths: each record's caller id becomes the id its caller got
 * in *@dst, which @map[] (@n entries) keeps, and a user context's record
 * is the one of its value there.  Returns the calls that found no room.
 * Sleeps: the destination grows as @a says.
 */
u64 ktau_fold(struct ktau_table **dst, const struct ktau_entry *src,
	      unsigned int n, u16 *map, const struct ktau_alloc *a)
{
	unsigned int i, parent, id;
	struct ktau_entry *e;
	u64 lost = 0;
	u32 key;

	for (i = ktau_fold_same_ids(*dst, src, n, map); i < n; i++) {
		const struct ktau_entry *s = &src[i];

		map[i] = 0;
		key = ktau_rec_key(s);
		parent = KTAU_REC_PARENT(key);
		if (!(i % 64))
			cond_resched();
		if (!key)
			continue;
		if (parent == KTAU_REC_CTX) {
			e = ktau_table_get_ctx(dst, s->incl, a);
			if (e)
				map[i] = ktau_record_id(*dst, e);
			continue;
		}
		if (parent == KTAU_REC_CARRY) {
			id = key & 0xffff;
			if (id && id <= i && map[id - 1])
				lost += ktau_calls_add(dst, map[id - 1],
						       ktau_rec_calls(s), a);
			else
				lost += ktau_rec_calls(s);
			continue;
		}
		if (parent) {
			if (parent > i || !map[parent - 1]) {
				lost += ktau_rec_calls(s);
				continue;
			}
			key = KTAU_REC_KEY(map[parent - 1], key & 0xffff);
		}
		e = ktau_fold_same_id(*dst, i, key);
		if (!e)
			e = ktau_table_get(dst, key, a);
		if (!e) {
			lost += ktau_rec_calls(s);
			continue;
		}
		id = ktau_record_id(*dst, e);
		map[i] = id;
		if ((key & KTAU_REC_SUM) == KTAU_REC_RANGE) {
			if (s->calls)
				ktau_range_add(e, s->incl, s->excl);
			continue;
		}
		if ((key & KTAU_REC_SUM) == KTAU_REC_SUM) {
			ktau_sum_add(e, s->incl, s->excl);
		} else {
			WRITE_ONCE(e->incl, e->incl + s->incl);
			WRITE_ONCE(e->excl, e->excl + s->excl);
		}
		lost += ktau_calls_add(dst, id, ktau_rec_calls(s), a);
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
	unsigned long ram = totalram_pages() << PAGE_SHIFT;

	BUILD_BUG_ON(KTAU_RECORDS_LIMIT_MAX >= KTAU_REC_NO_CTX);
	BUILD_BUG_ON(sizeof(struct ktau_entry) != 24);
	BUILD_BUG_ON(offsetof(struct ktau_table, rec) != 104);
	ktau_table_cache = kmem_cache_create("ktau_table",
					     ktau_table_size(KTAU_TABLE_MIN_RECORDS),
					     0, SLAB_PANIC | SLAB_ACCOUNT, NULL);
	ktau_table_next_cache =
		kmem_cache_create("ktau_table_next",
				  ktau_table_size(KTAU_TABLE_NEXT_RECORDS),
				  0, SLAB_PANIC | SLAB_ACCOUNT, NULL);
	ktau_table_page_records = ktau_table_fill(2 * KTAU_TABLE_NEXT_RECORDS);
	ktau_table_page_cache =
		kmem_cache_create("ktau_table_page",
				  ktau_table_size(ktau_table_page_records), 0,
				  SLAB_PANIC | SLAB_ACCOUNT | SLAB_NO_MERGE, NULL);
	/*
	 * Tables beyond their first size: each user at most 1/32 of RAM (at
	 * most 1 GiB), all users together 1/8 (at most 4 GiB), so that four
	 * users can each pin their whole share (docs/kernel-api.md).
	 */
	ktau_mem_limit = min_t(unsigned long, ram / 8, 4UL * SZ_1G);
	ktau_users_init(min_t(unsigned long, ram / 32, SZ_1G));
}
