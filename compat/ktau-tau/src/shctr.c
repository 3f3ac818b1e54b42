// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * KTAU's shared counters (TAU's -ktau_shctr, ktau_cont_data.h). Where the
 * kernel has the shared counter area (libktau's ktau_thread_counters_*),
 * a counter set reads it: ktau_get_counter() registers an area for the
 * set's routines on the calling thread, and each copy on that thread is a
 * few loads, no system call. TAU creates a thread's set on that thread, at
 * its first counter read, and reads it there (KtauCounters.cpp). Where the
 * kernel refuses the area (no ktau, a ktau from before it), and for a set
 * read on another thread than its own or a second set on one thread, each
 * copy reads /proc/self/task/<tid>/ktau once instead.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "names.h"

#define CONT_MAGIC	0x6b746375U	/* "ktcu" */
#define CTR_MAGIC	0x6b746372U	/* "ktcr" */

struct _ktau_ushcont {
	uint32_t magic;
	struct ktau_proc *proc;
	unsigned int counters;		/* sets not yet put */
};

struct _ktau_ush_ctr {
	uint32_t magic;
	ktau_ushcont *cont;
	int n;
	uint32_t fids[KTAU_SHCTR_MAX];
	char name[32];
	/* the kernel's area for fids on the thread that created the set;
	 * NULL: the set reads /proc */
	struct ktau_thread_counters *area;
};

/*
 * The calling thread's area, registered here. Thread-local because the
 * kernel's registration is per thread: it tells a copy whether the set's
 * area is the calling thread's own (a load, where asking the kernel would
 * be the system call the area saves). A fork copies it with the forking
 * thread's registration, which the child inherits at the same address.
 */
static __thread struct ktau_thread_counters *thread_area;

/* The calling thread's area for the set's routines when the kernel has
 * one and the thread none yet; else NULL (the set reads /proc). */
static struct ktau_thread_counters *register_area(const ktau_ush_ctr *c)
{
	struct ktau_thread_counters *area;

	if (thread_area)
		return NULL;
	area = ktau_thread_counters_register(c->fids, (unsigned int)c->n);
	thread_area = area;
	return area;
}

KTAU_COMPAT_API ktau_ushcont *ktau_add_container(int type, int self, pid_t *pid,
						 unsigned int nopids, unsigned int *flags,
						 long size)
{
	ktau_ushcont *c;

	(void)pid;
	(void)nopids;
	(void)flags;
	if (type != KTAU_TYPE_PROFILE || self != 1 || size <= 0) {
		errno = EINVAL;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->proc = ktau_proc_open(NULL, NULL);
	if (!c->proc) {
		free(c);
		return NULL;
	}
	c->magic = CONT_MAGIC;
	return c;
}

KTAU_COMPAT_API int ktau_del_container(int type, int self, pid_t *pid, unsigned int nopids,
				       unsigned int *flags, ktau_ushcont *cont)
{
	(void)type;
	(void)self;
	(void)pid;
	(void)nopids;
	(void)flags;
	if (!cont || cont->magic != CONT_MAGIC) {
		errno = EINVAL;
		return -1;
	}
	if (cont->counters) {
		errno = EBUSY;
		return -1;
	}
	cont->magic = 0;
	ktau_proc_close(cont->proc);
	free(cont);
	return 0;
}

KTAU_COMPAT_API int ktau_get_counter(ktau_ushcont *cont, const char *name, int nsyms,
				     unsigned long *syms, ktau_ush_ctr **ctr)
{
	struct ktau_functions *map;
	struct ktau_error *err = NULL;
	ktau_ush_ctr *c;
	int i;

	if (ctr)
		*ctr = NULL;
	if (!cont || cont->magic != CONT_MAGIC || !syms || !ctr || nsyms <= 0 ||
	    nsyms > KTAU_SHCTR_MAX) {
		errno = EINVAL;
		return -1;
	}
	map = ktau_proc_read_functions(cont->proc, &err);
	if (!map) {
		fprintf(stderr, "ktau: cannot read the kernel's function ids: %s\n",
			ktau_error_message(err));
		errno = -ktau_error_code(err);
		ktau_error_free(err);
		return -1;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		ktau_functions_free(map);
		return -1;
	}
	for (i = 0; i < nsyms; i++) {
		uint32_t fid;

		if (ktau_tau_addr_fid(syms[i], &fid) || !ktau_functions_find_fid(map, fid)) {
			fprintf(stderr, "ktau: counter %d of %s, address %#lx, names no ktau "
				"routine: a KTAU_<name> metric takes a name from the System.map "
				"'ktau-ctl --system-map' writes (e.g. KTAU_INCL_sys_read)\n",
				i + 1, name ? name : "the set", syms[i]);
			ktau_functions_free(map);
			free(c);
			errno = ENOENT;
			return -1;
		}
		c->fids[i] = fid;
	}
	ktau_functions_free(map);
	c->magic = CTR_MAGIC;
	c->cont = cont;
	c->n = nsyms;
	snprintf(c->name, sizeof(c->name), "%s", name ? name : "");
	c->area = register_area(c);
	cont->counters++;
	*ctr = c;
	return 0;
}

KTAU_COMPAT_API int ktau_put_counter(ktau_ush_ctr *ctr)
{
	if (!ctr || ctr->magic != CTR_MAGIC) {
		errno = EINVAL;
		return -1;
	}
	/* an area another running thread holds stays allocated (the kernel
	 * may write it): one area a thread at most, never reused */
	if (ctr->area && ktau_thread_counters_unregister(ctr->area) == 0 &&
	    thread_area == ctr->area)
		thread_area = NULL;
	ctr->cont->counters--;
	ctr->magic = 0;
	free(ctr);
	return 0;
}

static unsigned long long pick(const ktau_timer *t, int type)
{
	switch (type) {
	case KTAU_SHCTR_TYPE_INCL:
		return t->incl;
	case KTAU_SHCTR_TYPE_NUM:
		return t->count;
	default:
		return t->excl;
	}
}

/* the calling thread's own area: loads, counter i as types[i] (or type) */
static void copy_from_area(const ktau_ush_ctr *ctr, unsigned long long *vals, int n,
			   const int *types, int type)
{
	ktau_timer t;
	int i;

	for (i = 0; i < n; i++) {
		uint64_t calls = 0, incl = 0, excl = 0;

		ktau_thread_counters_read(ctr->area, (unsigned int)i, &calls, &incl, &excl);
		t.count = calls;
		t.incl = incl;
		t.excl = excl;
		vals[i] = pick(&t, types ? types[i] : type);
	}
}

/* one read of the calling thread's profile (or its area); counter i as
 * types[i] (or type) */
static int copy_counters(ktau_ush_ctr *ctr, unsigned long long *vals, int n,
			 const int *types, int type)
{
	KTAU_OPTS(ktau_read_opts, opts);
	const struct ktau_block *b;
	struct ktau_profile *p;
	unsigned int count, k;
	o_ent *ents;
	int i, ret;

	if (!ctr || ctr->magic != CTR_MAGIC || !vals || n < 0 || n > ctr->n) {
		errno = EINVAL;
		return -1;
	}
	if (ctr->area && ctr->area == thread_area) {
		copy_from_area(ctr, vals, n, types, type);
		return 0;
	}
	opts.pid = getpid();
	opts.tid = ktc_gettid();
	p = ktau_proc_read_profile(ctr->cont->proc, &opts, NULL);
	if (!p)
		return -1;
	b = ktau_profile_find_block(p, KTAU_BLOCK_THREAD, opts.pid, opts.tid);
	if (!b) {
		ktau_profile_free(p);
		errno = EPROTO;
		return -1;
	}
	ret = ktc_block_entries(b, &ents, &count);
	ktau_profile_free(p);
	if (ret) {
		errno = -ret;
		return -1;
	}
	for (i = 0; i < n; i++) {
		unsigned long addr = ktau_tau_fid_addr(ctr->fids[i]);
		unsigned long long v = 0;

		for (k = 0; k < count; k++) {
			if (ents[k].entry.addr == addr) {
				v = pick(&ents[k].entry.data.timer, types ? types[i] : type);
				break;
			}
		}
		vals[i] = v;
	}
	free(ents);
	return 0;
}

KTAU_COMPAT_API int ktau_copy_counter_type(ktau_ush_ctr *ctr, unsigned long long *vals, int n,
					   int *types)
{
	return copy_counters(ctr, vals, n, types, KTAU_SHCTR_TYPE_EXCL);
}

KTAU_COMPAT_API int ktau_copy_counter_excl(ktau_ush_ctr *ctr, unsigned long long *vals, int n)
{
	return copy_counters(ctr, vals, n, NULL, KTAU_SHCTR_TYPE_EXCL);
}

KTAU_COMPAT_API int ktau_copy_counter_incl(ktau_ush_ctr *ctr, unsigned long long *vals, int n)
{
	return copy_counters(ctr, vals, n, NULL, KTAU_SHCTR_TYPE_INCL);
}

KTAU_COMPAT_API int ktau_copy_counter_count(ktau_ush_ctr *ctr, unsigned long long *vals, int n)
{
	return copy_counters(ctr, vals, n, NULL, KTAU_SHCTR_TYPE_NUM);
}
