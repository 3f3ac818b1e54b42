// SPDX-License-Identifier: GPL-2.0
/*
 * Per-user accounts of KTAU's grown tables: every table beyond a task's
 * first size (a grown task table, a kernel thread's spare, a process's
 * exited or children total) is charged to one user, and a user's tables
 * take at most that user's limit, so that one user's job can make only
 * its own profiles drop records, never another user's.
 *
 * A user is a kuid_t, the uid of the initial user namespace: a task in a
 * user namespace is charged as the global uid it maps to, the way the
 * kernel counts inotify watches and message queue bytes per user (ucounts
 * count per namespace too, but their limits are namespace sysctls; these
 * are root's, in /proc/ktau/control).  Why not the memory cgroup: the
 * tables are charged there already (GFP_KERNEL_ACCOUNT), a cgroup limit
 * makes the whole job fail its allocations rather than only its profile,
 * jobs of several users often share one cgroup (or the node has no memory
 * controller), and the fairness asked for is between users.
 *
 * A table records the uid it was charged to (struct ktau_table's owner)
 * and gives the bytes back to that account when it is freed, whatever its
 * task's credentials are by then.  An account lives while a table is
 * charged to it or root set a limit of its own for it (a reference each),
 * and root's lives always: kernel threads and the CPUs' reserve tables are
 * charged to it.  Lookups are lockless (RCU); accounts are created where
 * the caller may sleep, and dropped from any context but NMI.
 */
#include <linux/cred.h>
#include <linux/hash.h>
#include <linux/rculist.h>
#include <linux/refcount.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/user_namespace.h>

#include "internal.h"

struct ktau_user {
	struct hlist_node node;
	struct rcu_head rcu;
	kuid_t uid;
	refcount_t ref;			/* charged tables, an own limit */
	atomic_long_t bytes;		/* of the tables charged to it */
	unsigned long limit;		/* its own limit; 0: ktau_user_limit */
};

#define KTAU_USERS_BITS		6

static struct hlist_head ktau_users[1 << KTAU_USERS_BITS];
/* Taken with interrupts off: the last put may come from any context. */
static DEFINE_SPINLOCK(ktau_users_lock);

/* Every user's limit, unless root set one of its own (control file). */
unsigned long ktau_user_limit __read_mostly;

/* Root's account, never freed: its reference is never dropped. */
static struct ktau_user ktau_user_root = {
	.uid = GLOBAL_ROOT_UID,
	.ref = REFCOUNT_INIT(1),
};

static struct hlist_head *ktau_user_bucket(kuid_t uid)
{
	return &ktau_users[hash_32(__kuid_val(uid), KTAU_USERS_BITS)];
}

/* @uid's account, under RCU or the lock; no reference taken. */
static struct ktau_user *ktau_user_lookup(kuid_t uid)
{
	struct ktau_user *u;

	hlist_for_each_entry_rcu(u, ktau_user_bucket(uid), node,
				 lockdep_is_held(&ktau_users_lock)) {
		if (uid_eq(u->uid, uid))
			return u;
	}
	return NULL;
}

/* A reference to @uid's account, or NULL if it has none; any context. */
static struct ktau_user *ktau_user_find(kuid_t uid)
{
	struct ktau_user *u;

	rcu_read_lock();
	u = ktau_user_lookup(uid);
	if (u && !refcount_inc_not_zero(&u->ref))
		u = NULL;
	rcu_read_unlock();
	return u;
}

/* A reference to @uid's account, created if new, or NULL; may sleep. */
static struct ktau_user *ktau_user_get(kuid_t uid)
{
	struct ktau_user *u, *new;
	unsigned long flags;

	might_sleep();
	u = ktau_user_find(uid);
	if (u)
		return u;
	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return NULL;
	new->uid = uid;
	refcount_set(&new->ref, 1);
	spin_lock_irqsave(&ktau_users_lock, flags);
	/* an account the lock sees is alive: its last put takes the lock */
	u = ktau_user_lookup(uid);
	if (u) {
		refcount_inc(&u->ref);
	} else {
		hlist_add_head_rcu(&new->node, ktau_user_bucket(uid));
		u = new;
		new = NULL;
	}
	spin_unlock_irqrestore(&ktau_users_lock, flags);
	kfree(new);
	return u;
}

/* Drop a reference; any context but NMI. */
static void ktau_user_put(struct ktau_user *u)
{
	unsigned long flags;
	bool last;

	/* refcount_dec_and_lock_irqsave(), in a form sparse can follow */
	if (refcount_dec_not_one(&u->ref))
		return;
	spin_lock_irqsave(&ktau_users_lock, flags);
	last = refcount_dec_and_test(&u->ref);
	if (last)
		hlist_del_rcu(&u->node);
	spin_unlock_irqrestore(&ktau_users_lock, flags);
	if (last)
		kfree_rcu(u, rcu);
}

static unsigned long ktau_user_limit_of(const struct ktau_user *u)
{
	return READ_ONCE(u->limit) ?: READ_ONCE(ktau_user_limit);
}

/*
 * Charge @bytes to @uid's account, within its limit; the account keeps a
 * reference for the table charged (ktau_user_uncharge() drops it).  With
 * @may_sleep an account is created if @uid has none; without, nothing is
 * allocated and a user without an account gets -ENOENT.  Returns 0,
 * -EDQUOT (the user's limit), -ENOENT or -ENOMEM.
 */
int ktau_user_charge(kuid_t uid, size_t bytes, bool may_sleep)
{
	struct ktau_user *u = may_sleep ? ktau_user_get(uid) :
					  ktau_user_find(uid);

	if (!u)
		return may_sleep ? -ENOMEM : -ENOENT;
	if ((unsigned long)atomic_long_add_return(bytes, &u->bytes) <=
	    ktau_user_limit_of(u))
		return 0;
	atomic_long_sub(bytes, &u->bytes);
	ktau_user_put(u);
	return -EDQUOT;
}

/*
 * Give @bytes back to @uid's account, which a table charged to it keeps
 * alive, and drop the table's reference; any context but NMI.
 */
void ktau_user_uncharge(kuid_t uid, size_t bytes)
{
	struct ktau_user *u;

	rcu_read_lock();
	u = ktau_user_lookup(uid);
	rcu_read_unlock();
	if (WARN_ON_ONCE(!u))
		return;
	atomic_long_sub(bytes, &u->bytes);
	ktau_user_put(u);
}

/*
 * Root's `limit user UID BYTES` (@limit) or `limit user UID default` (0),
 * under the control lock.  An account with a limit of its own lives on
 * with no table charged.  Returns 0 or -ENOMEM (nothing changed).
 */
int ktau_user_set_limit(kuid_t uid, unsigned long limit)
{
	struct ktau_user *u;

	if (!limit) {
		u = ktau_user_find(uid);
		if (!u)
			return 0;
		if (u->limit) {
			WRITE_ONCE(u->limit, 0);
			/* the own limit's: not the last, ours is left */
			ktau_user_put(u);
		}
		ktau_user_put(u);
		return 0;
	}
	u = ktau_user_get(uid);
	if (!u)
		return -ENOMEM;
	/* ours becomes the own limit's reference, unless it has one */
	if (u->limit)
		ktau_user_put(u);
	WRITE_ONCE(u->limit, limit);
	return 0;
}

/* The users listed in the control file: those with the most bytes. */
#define KTAU_USERS_SHOWN	5

struct ktau_user_line {
	kuid_t uid;
	unsigned long bytes;
	unsigned long limit;
};

/* Whether @a comes before @b: more bytes, then the lower uid. */
static bool ktau_user_before(const struct ktau_user_line *a,
			     const struct ktau_user_line *b)
{
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes;
	return uid_lt(a->uid, b->uid);
}

/*
 * The control file's lines: every user's limit and how many users have
 * tables charged, then the users with the most bytes (and those with a
 * limit of their own, while there is room), one line each.
 */
void ktau_users_show(struct seq_file *m)
{
	struct ktau_user_line top[KTAU_USERS_SHOWN], line;
	struct user_namespace *ns = seq_user_ns(m);
	unsigned int i, j, n = 0, users = 0;
	struct ktau_user *u;

	rcu_read_lock();
	for (i = 0; i < ARRAY_SIZE(ktau_users); i++) {
		hlist_for_each_entry_rcu(u, &ktau_users[i], node) {
			line.uid = u->uid;
			line.bytes = max(atomic_long_read(&u->bytes), 0L);
			line.limit = ktau_user_limit_of(u);
			if (line.bytes)
				users++;
			else if (!READ_ONCE(u->limit))
				continue;
			for (j = n; j > 0 && ktau_user_before(&line, &top[j - 1]);
			     j--) {
				if (j < KTAU_USERS_SHOWN)
					top[j] = top[j - 1];
			}
			if (j < KTAU_USERS_SHOWN) {
				top[j] = line;
				n = min_t(unsigned int, n + 1, KTAU_USERS_SHOWN);
			}
		}
	}
	rcu_read_unlock();
	seq_printf(m, "user_memory limit=%lu users=%u\n",
		   READ_ONCE(ktau_user_limit), users);
	for (i = 0; i < n; i++)
		seq_printf(m, "user uid=%u bytes=%lu limit=%lu\n",
			   from_kuid_munged(ns, top[i].uid), top[i].bytes,
			   top[i].limit);
}

void __init ktau_users_init(unsigned long limit)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ktau_users); i++)
		INIT_HLIST_HEAD(&ktau_users[i]);
	ktau_user_limit = limit;
	hlist_add_head_rcu(&ktau_user_root.node,
			   ktau_user_bucket(ktau_user_root.uid));
}
