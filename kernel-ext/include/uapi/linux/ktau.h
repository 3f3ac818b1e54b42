/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * KTAU's shared counter area: a thread's kernel counters for a few
 * routines or groups, kept current by the kernel in the thread's own
 * memory, so that a profiler reads them with loads, not system calls.
 *
 * The thread fills in @version, @nr and @ids, then registers the area
 * with prctl(PR_KTAU_SET_COUNTERS, addr, len, 0, 0).  From then on the
 * kernel writes @seq and @val[0 .. @nr) before the thread returns to
 * user mode whenever they changed: the calls, inclusive and exclusive
 * TSC cycles (the rate is /proc/ktau/profile's) of every record of the
 * thread's profile whose routine the id names, summed over callpaths
 * and user contexts, as /proc/self/task/TID/ktau shows them.  The ids
 * are read once, at registration.
 */
#ifndef _UAPI_LINUX_KTAU_H
#define _UAPI_LINUX_KTAU_H

#include <linux/types.h>

#define KTAU_COUNTERS_VERSION	1
#define KTAU_COUNTERS_MAX	16

/*
 * An id: a function id (/proc/ktau/functions), KTAU_COUNTER_GROUP | g
 * for every routine of group g (syscall 0, softirq 1, irq 2, sched 3,
 * exception 4, kernel 5; not event 6), or KTAU_COUNTER_ALL for every
 * routine: its exclusive time is all the thread's kernel time.
 */
#define KTAU_COUNTER_GROUP	0x80000000U
#define KTAU_COUNTER_ALL	0xffffffffU

struct ktau_counter {
	__u64 calls;
	__u64 incl;
	__u64 excl;
};

struct ktau_counters {
	__u32 version;			/* KTAU_COUNTERS_VERSION */
	__u32 nr;			/* 1 .. KTAU_COUNTERS_MAX */
	__u32 ids[KTAU_COUNTERS_MAX];
	__u64 seq;			/* kernel: one more per write */
	struct ktau_counter val[KTAU_COUNTERS_MAX];	/* kernel */
};

/* The bytes an area of @nr counters takes (prctl's len is at least it). */
#define KTAU_COUNTERS_SIZE(nr)	\
	(__builtin_offsetof(struct ktau_counters, val) + \
	 (nr) * sizeof(struct ktau_counter))

#endif /* _UAPI_LINUX_KTAU_H */
