// SPDX-License-Identifier: GPL-2.0
/*
 * KTAU function id registry: ids are dense indexes into every profile.
 * The 64-bit system calls own the ids equal to their numbers, the calls
 * only the compat ABI has follow (asm/ktau_syscall_names.h), then the
 * static instrumentation points, then ids that kernel code registers at
 * run time.
 *
 * Entries are published with a release store of the id count, so readers
 * (the /proc function map, profile printing) need no lock.
 */
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/nospec.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/types.h>

#include "internal.h"

#define KTAU_FID_NONE	U16_MAX

#include <asm/ktau_syscall_names.h>

struct ktau_func {
	const char *name;
	u8 group;
};

const char *const ktau_group_names[KTAU_NR_GROUPS] = {
	[KTAU_GROUP_SYSCALL]	= "syscall",
	[KTAU_GROUP_SOFTIRQ]	= "softirq",
	[KTAU_GROUP_IRQ]	= "irq",
	[KTAU_GROUP_SCHED]	= "sched",
	[KTAU_GROUP_EXCEPTION]	= "exception",
	[KTAU_GROUP_KERNEL]	= "kernel",
	[KTAU_GROUP_EVENT]	= "event",
};

static struct ktau_func ktau_funcs[KTAU_MAX_FIDS];
static unsigned int ktau_fid_count;
static unsigned int ktau_fid_refusals;
static DEFINE_RAW_SPINLOCK(ktau_fid_lock);

unsigned int ktau_nr_fids(void)
{
	/* Pairs with the release in ktau_fid_append(): names are set. */
	return smp_load_acquire(&ktau_fid_count);
}

const char *ktau_group_name(unsigned int group)
{
	return group < KTAU_NR_GROUPS ? ktau_group_names[group] : "unknown";
}

/*
 * Ids reach these from system call numbers a user chose: no speculative
 * load beyond the table (Spectre v1).
 */
static const struct ktau_func *ktau_func_of(unsigned int fid)
{
	unsigned int nr = ktau_nr_fids();

	if (fid >= nr)
		return NULL;
	return &ktau_funcs[array_index_nospec(fid, nr)];
}

/* Syscall-block ids the table leaves unnamed are calls of ni_syscall. */
const char *ktau_fid_name(unsigned int fid)
{
	const struct ktau_func *f = ktau_func_of(fid);

	if (!f)
		return "unknown";
	return f->name ? f->name : "ni_syscall";
}

int ktau_fid_group(unsigned int fid)
{
	const struct ktau_func *f = ktau_func_of(fid);

	return f ? f->group : -EINVAL;
}

/* The numbers ktau_sys64_fid() does not map inline. */
unsigned int ktau_sys64_fid_other(unsigned long nr)
{
#ifdef KTAU_ARCH_X32_BIT
	nr &= ~KTAU_ARCH_X32_BIT;
	if (nr < KTAU_NR_SYSCALL64)
		return nr;
	nr -= KTAU_X32_BASE;
	if (nr < KTAU_NR_X32) {
		nr = array_index_nospec(nr, KTAU_NR_X32);
		if (ktau_x32_fids[nr] != KTAU_FID_NONE)
			return ktau_x32_fids[nr];
	}
#endif
	return KTAU_FID_NI_SYSCALL;
}

unsigned int ktau_compat_fid(unsigned long nr)
{
	if (nr < KTAU_NR_COMPAT) {
		nr = array_index_nospec(nr, KTAU_NR_COMPAT);
		if (ktau_compat_fids[nr] != KTAU_FID_NONE)
			return ktau_compat_fids[nr];
	}
	return KTAU_FID_NI_SYSCALL;
}

/* Append an id; the caller holds ktau_fid_lock or is the only writer. */
static int ktau_fid_append(const char *name, unsigned int group)
{
	unsigned int fid = ktau_fid_count;

	if (fid >= KTAU_MAX_FIDS)
		return -ENOSPC;
	ktau_funcs[fid].name = name;
	ktau_funcs[fid].group = group;
	/* Publish the entry before the count that makes it visible. */
	smp_store_release(&ktau_fid_count, fid + 1);
	return fid;
}

static const char *const ktau_static_names[KTAU_NR_STATIC_POINTS] = {
	[KTAU_SP_NI_SYSCALL]		= "ni_syscall",
	[KTAU_SP_IRQ]			= "irq",
	[KTAU_SP_PAGE_FAULT]		= "page_fault",
	[KTAU_SP_SCHEDULE_VOL]		= "schedule_vol",
	[KTAU_SP_SCHEDULE_INVOL]	= "schedule_invol",
	[KTAU_SP_READ_BYTES]		= "read_bytes",
	[KTAU_SP_WRITE_BYTES]		= "write_bytes",
};

static unsigned int ktau_static_group(unsigned int point)
{
	if (point == KTAU_SP_NI_SYSCALL)
		return KTAU_GROUP_SYSCALL;
	if (point < KTAU_SP_IRQ)
		return KTAU_GROUP_SOFTIRQ;
	if (point == KTAU_SP_IRQ)
		return KTAU_GROUP_IRQ;
	if (point == KTAU_SP_PAGE_FAULT)
		return KTAU_GROUP_EXCEPTION;
	if (point >= KTAU_SP_READ_BYTES)
		return KTAU_GROUP_EVENT;
	return KTAU_GROUP_SCHED;
}

int __init ktau_fid_init(void)
{
	unsigned int nr, point;
	const char *name;

	BUILD_BUG_ON(KTAU_FID_STATIC(KTAU_NR_STATIC_POINTS) >= KTAU_MAX_FIDS);
	/* a record key keeps a function id + 1 in 13 bits */
	BUILD_BUG_ON(KTAU_REC_LOW(KTAU_MAX_FIDS - 1) & ~KTAU_REC_FID_MASK);

	raw_spin_lock(&ktau_fid_lock);
	for (nr = 0; nr < KTAU_NR_SYSCALL64; nr++)
		ktau_fid_append(ktau_sys64_names[nr], KTAU_GROUP_SYSCALL);
	for (nr = 0; nr < KTAU_NR_COMPAT_ONLY; nr++)
		ktau_fid_append(ktau_compat_only_names[nr], KTAU_GROUP_SYSCALL);
	for (point = 0; point < KTAU_NR_STATIC_POINTS; point++) {
		name = ktau_static_names[point];
		if (point >= KTAU_SP_SOFTIRQ && point < KTAU_SP_IRQ)
			name = softirq_to_name[point - KTAU_SP_SOFTIRQ];
		ktau_fid_append(name, ktau_static_group(point));
	}
	raw_spin_unlock(&ktau_fid_lock);
	return 0;
}

unsigned int ktau_fids_refused(void)
{
	return READ_ONCE(ktau_fid_refusals);
}

/* Names go into the profile text as one token: printable, no blanks. */
static bool ktau_name_valid(const char *name)
{
	size_t len = strnlen(name, KTAU_NAME_MAX + 1);
	size_t i;

	if (!len || len > KTAU_NAME_MAX)
		return false;
	for (i = 0; i < len; i++) {
		if (name[i] <= ' ' || name[i] >= 0x7f)
			return false;
	}
	return true;
}

/* Search ids [from, to) for @name; -ENOENT if it is not there. */
static int ktau_fid_find(const char *name, unsigned int from, unsigned int to)
{
	unsigned int fid;

	for (fid = from; fid < to; fid++) {
		if (ktau_funcs[fid].name && !strcmp(ktau_funcs[fid].name, name))
			return fid;
	}
	return -ENOENT;
}

static int ktau_fid_check_group(int fid, unsigned int group)
{
	return ktau_funcs[fid].group == group ? fid : -EEXIST;
}

int ktau_get_fid(const char *name, unsigned int group)
{
	unsigned int seen = ktau_nr_fids();
	unsigned long flags;
	char *copy;
	int fid;

	if (!name || group >= KTAU_NR_GROUPS || !ktau_name_valid(name))
		return -EINVAL;
	/* Published entries never change: look without the lock first. */
	fid = ktau_fid_find(name, 0, seen);
	if (fid >= 0)
		return ktau_fid_check_group(fid, group);

	copy = kstrdup(name, GFP_ATOMIC | __GFP_NOWARN);
	if (!copy)
		return -ENOMEM;
	raw_spin_lock_irqsave(&ktau_fid_lock, flags);
	fid = ktau_fid_find(name, seen, ktau_fid_count);
	if (fid >= 0) {
		fid = ktau_fid_check_group(fid, group);
	} else {
		fid = ktau_fid_append(copy, group);
		if (fid >= 0)
			copy = NULL;
		else
			ktau_fid_refusals++;
	}
	raw_spin_unlock_irqrestore(&ktau_fid_lock, flags);
	kfree(copy);
	if (fid == -ENOSPC)
		pr_warn_once("ktau: all %u function ids are taken (CONFIG_KTAU_MAX_FIDS); '%s' and later names are not registered\n",
			     KTAU_MAX_FIDS, name);
	return fid;
}
EXPORT_SYMBOL_GPL(ktau_get_fid);

int __ktau_site_fid(int *site, const char *name, unsigned int group)
{
	int fid = ktau_get_fid(name, group);

	/*
	 * Racing first uses register the same id: either store is right.
	 * A refusal is final, but a failed allocation is tried again.
	 */
	if (fid >= 0)
		WRITE_ONCE(*site, fid + 1);
	else if (fid != -ENOMEM)
		WRITE_ONCE(*site, fid);
	return fid;
}
EXPORT_SYMBOL_GPL(__ktau_site_fid);
