// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The shared counter area (the kernel's <linux/ktau.h>): counter names to
 * ids, and a thread's area allocated, registered, read and unregistered.
 */
#define _GNU_SOURCE	/* syscall(), SYS_gettid */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "proc/proc.h"

/* The groups an id may name, by their number (KTAU_COUNTER_SYSCALL ...). */
static const char *const counter_groups[] = {
	"syscall", "softirq", "irq", "sched", "exception", "kernel",
};
/* The kernel's group of atomic events: no calls or times to count. */
#define EVENT_GROUP_NUMBER 6U

#define GROUP_PREFIX "group:"

static int group_id(const char *group, uint32_t *id, struct ktau_parse_error *pe)
{
	size_t g;

	for (g = 0; g < KTAU_ARRAY_SIZE(counter_groups); g++) {
		if (!strcmp(group, counter_groups[g])) {
			*id = KTAU_COUNTER_GROUP | (uint32_t)g;
			return 0;
		}
	}
	if (!strcmp(group, "event"))
		return ktau__fail(pe, EINVAL, 0, "counter group:event: atomic events have "
				  "no calls or times to count");
	return ktau__fail(pe, ENOENT, 0, "counter group:%s: no such group (syscall, "
			  "softirq, irq, sched, exception, kernel)", group);
}

static int routine_id(struct ktau_proc *proc, const char *name, uint32_t *id,
		      struct ktau_parse_error *pe)
{
	const struct ktau_function *f;
	struct ktau_functions *map;
	int ret = 0;

	if (!proc)
		return ktau__fail(pe, EINVAL, 0, "counter %s: a routine name needs a "
				  "struct ktau_proc to read the function map", name);
	map = ktau__proc_parse_file(proc, "ktau/functions", &ktau__functions_parser, pe);
	if (!map)
		return pe->error;
	f = ktau_functions_find_name(map, name);
	if (!f)
		ret = ktau__fail(pe, ENOENT, 0, "counter %s: %s/ktau/functions names no "
				 "such routine (\"all\", \"group:NAME\" or a routine as "
				 "that file names it)", name, proc->root);
	else if (!strcmp(f->group, "event"))
		ret = ktau__fail(pe, EINVAL, 0, "counter %s: an atomic event, not a timed "
				 "routine: no calls or times to count", name);
	else
		*id = f->fid;
	ktau_functions_free(map);
	return ret;
}

int ktau_counter_id(struct ktau_proc *proc, const char *name, uint32_t *id,
		    struct ktau_error **err)
{
	struct ktau_parse_error pe;
	int ret;

	ktau__clear_error(&pe);
	if (!name || !id) {
		ret = ktau__fail(&pe, EINVAL, 0, "NULL counter name or id");
	} else if (!strcmp(name, "all")) {
		*id = KTAU_COUNTER_ALL;
		ret = 0;
	} else if (!strncmp(name, GROUP_PREFIX, strlen(GROUP_PREFIX))) {
		ret = group_id(name + strlen(GROUP_PREFIX), id, &pe);
	} else {
		ret = routine_id(proc, name, id, &pe);
	}
	return ktau__ret_int(ret, &pe, err);
}

/* ---- the area ---- */

static int prctl_counters(int option, unsigned long arg2, unsigned long arg3)
{
	return prctl(option, arg2, arg3, 0UL, 0UL);
}

/* Replaced by the unit tests, which play the kernel on a host without
 * one: the one piece of mutable global state here, set only by them. */
static ktau_counters_prctl_fn counters_prctl = prctl_counters;

void ktau__counters_prctl_hook(ktau_counters_prctl_fn fn)
{
	counters_prctl = fn ? fn : prctl_counters;
}

struct ktau_thread_counters {
	struct ktau__counter_area *area;	/* written by the kernel */
	unsigned int nr;
	pid_t pid, tid;				/* who registered it */
};

static pid_t current_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static bool valid_id(uint32_t id)
{
	if (id == KTAU_COUNTER_ALL || !(id & KTAU_COUNTER_GROUP))
		return true;	/* a function id: the kernel knows whether it is one */
	return (id & ~KTAU_COUNTER_GROUP) < KTAU_ARRAY_SIZE(counter_groups);
}

static void free_counters(struct ktau_thread_counters *c)
{
	free(c->area);
	free(c);
}

struct ktau_thread_counters *ktau_thread_counters_register(const uint32_t *ids,
							    unsigned int n)
{
	struct ktau_thread_counters *c;
	size_t size = KTAU__COUNTER_AREA_SIZE(n), alloc;
	unsigned int i;
	int error;

	if (!ids || n == 0 || n > KTAU_COUNTERS_MAX) {
		errno = EINVAL;
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (!valid_id(ids[i])) {
			errno = EINVAL;
			return NULL;
		}
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	/* a cache line of its own: other threads' stores near it would
	 * bounce the line the owner reads at every timer boundary */
	alloc = (size + KTAU__COUNTER_AREA_ALIGN - 1) & ~(size_t)(KTAU__COUNTER_AREA_ALIGN - 1);
	c->area = aligned_alloc(KTAU__COUNTER_AREA_ALIGN, alloc);
	if (!c->area) {
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	memset(c->area, 0, alloc);
	c->area->version = KTAU__COUNTERS_VERSION;
	c->area->nr = n;
	memcpy(c->area->ids, ids, n * sizeof(*ids));
	c->nr = n;
	c->pid = getpid();
	c->tid = current_tid();
	if (counters_prctl(PR_KTAU_SET_COUNTERS, (unsigned long)c->area, size) == 0)
		return c;
	/* every argument the kernel checks with EINVAL was checked above:
	 * its EINVAL means that it has no counter area at all */
	error = errno == EINVAL ? ENODEV : errno;
	free_counters(c);
	errno = error;
	return NULL;
}

unsigned int ktau_thread_counters_count(const struct ktau_thread_counters *c)
{
	return c ? c->nr : 0;
}

/* The kernel writes the area between two of the owner's instructions
 * (at its returns to user mode), so the loads must happen where they are
 * written: volatile, and nothing cached across calls. */
static uint64_t load_u64(const uint64_t *p)
{
	return *(const volatile uint64_t *)p;
}

int ktau_thread_counters_read(const struct ktau_thread_counters *c, unsigned int i,
			      uint64_t *calls, uint64_t *incl_cycles,
			      uint64_t *excl_cycles)
{
	const struct ktau__counter_value *v;
	uint64_t seq, n, incl, excl;

	if (!c)
		return -EINVAL;
	if (i >= c->nr)
		return -ERANGE;
	v = &c->area->val[i];
	/* an interrupt may return to user mode between two loads, and the
	 * kernel then writes the area: load again until no write came
	 * between (the writer is this thread's own kernel side, so a
	 * compiler barrier is all the ordering needed) */
	do {
		seq = load_u64(&c->area->seq);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		n = load_u64(&v->calls);
		incl = load_u64(&v->incl);
		excl = load_u64(&v->excl);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	} while (load_u64(&c->area->seq) != seq);
	if (calls)
		*calls = n;
	if (incl_cycles)
		*incl_cycles = incl;
	if (excl_cycles)
		*excl_cycles = excl;
	return 0;
}

uint64_t ktau_thread_counters_seq(const struct ktau_thread_counters *c)
{
	return c ? load_u64(&c->area->seq) : 0;
}

/* The calling thread's registered area (0 if none) and the kernel's write
 * failures: 0 or -errno (-ENODEV when the kernel has no counter area). */
static int registered_area(uint64_t *addr, uint64_t *faults)
{
	*addr = 0;
	if (counters_prctl(PR_KTAU_GET_COUNTERS, (unsigned long)addr,
			   (unsigned long)faults) == 0)
		return 0;
	return errno == EINVAL ? -ENODEV : -errno;
}

int ktau_thread_counters_faults(const struct ktau_thread_counters *c, uint64_t *faults)
{
	uint64_t addr, n = 0;
	int ret;

	if (!c || !faults)
		return -EINVAL;
	ret = registered_area(&addr, &n);
	if (ret)
		return ret;
	if (addr != (uintptr_t)c->area)
		return -ENOENT;
	*faults = n;
	return 0;
}

/* Whether thread tid of this process still runs (a thread that exited
 * holds no area: the kernel writes one only on its thread's way back to
 * user mode). */
static bool thread_alive(pid_t tid)
{
	return syscall(SYS_tgkill, getpid(), tid, 0) == 0 || errno != ESRCH;
}

int ktau_thread_counters_unregister(struct ktau_thread_counters *c)
{
	uint64_t addr;
	pid_t holder;

	if (!c)
		return -EINVAL;
	if (registered_area(&addr, NULL) == 0 && addr == (uintptr_t)c->area) {
		if (counters_prctl(PR_KTAU_SET_COUNTERS, 0UL, 0UL))
			return -errno;
		free_counters(c);
		return 0;
	}
	/*
	 * Not this thread's. The one thread that may hold it: its own in the
	 * process that registered it; in a forked child, the child's first
	 * thread, since a fork copies the forking thread's registration alone,
	 * into that thread (a thread created since has none, and this memory
	 * was never handed to another registration). Free it unless that
	 * thread is another one and still runs.
	 */
	holder = getpid() == c->pid ? c->tid : getpid();
	if (holder != current_tid() && thread_alive(holder))
		return -EBUSY;
	free_counters(c);
	return 0;
}
