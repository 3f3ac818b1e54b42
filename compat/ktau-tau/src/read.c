// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * read_size(), read_data(), purge_data() and the unsupported rest of the
 * KTAU user API, over libktau's reader (ktau_proc_interface.h).
 */
#define _GNU_SOURCE	/* syscall(), SYS_gettid */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "compat.h"
#include "names.h"

pid_t ktc_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

int ktc_cmp_ent(const void *a, const void *b)
{
	const o_ent *x = a, *y = b;

	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	if (x->entry.addr != y->entry.addr)
		return x->entry.addr < y->entry.addr ? -1 : 1;
	return 0;
}

/*
 * An event's index: 300 + fid % 100, or when another event of this process
 * has that one, the next free in 300-399, kept for the process's life: TAU's
 * own diff (TauKtau::DiffKProfile) needs each index to stay with one routine
 * from its first read to its last.  -ENOSPC past 100 events.
 */
static pthread_mutex_t event_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t event_slot[100];	/* fid + 1, 0: free */

static int event_index(uint32_t fid, unsigned int *index)
{
	unsigned int i, slot = ktau_tau_fid_index(fid, true) - 300;
	int ret = -ENOSPC;

	pthread_mutex_lock(&event_lock);
	for (i = 0; i < 100; i++, slot = (slot + 1) % 100) {
		if (event_slot[slot] == fid + 1 || !event_slot[slot]) {
			event_slot[slot] = fid + 1;
			*index = 300 + slot;
			ret = 0;
			break;
		}
	}
	pthread_mutex_unlock(&event_lock);
	return ret;
}

struct ent_list {
	o_ent *v;
	unsigned int n, cap;
};

/* the entry of (fid, event) in l, appended when new; NULL for no memory,
 * or for an event that has no index (*skip set) */
static o_ent *ent_get(struct ent_list *l, uint32_t fid, bool event, bool *skip)
{
	unsigned long addr = ktau_tau_fid_addr(fid);
	unsigned int i, index = ktau_tau_fid_index(fid, false);

	for (i = 0; i < l->n; i++)
		if (l->v[i].entry.addr == addr)
			return &l->v[i];
	if (event && event_index(fid, &index)) {
		*skip = true;
		return NULL;
	}
	if (l->n == l->cap) {
		unsigned int cap = l->cap ? 2 * l->cap : 32;
		o_ent *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		l->v = v;
		l->cap = cap;
	}
	memset(&l->v[l->n], 0, sizeof(l->v[0]));
	l->v[l->n].index = index;
	l->v[l->n].entry.addr = addr;
	l->v[l->n].entry.type = KTAU_TIMER;
	return &l->v[l->n++];
}

int ktc_block_entries(const struct ktau_block *b, o_ent **ents, unsigned int *n)
{
	struct ent_list l = { NULL, 0, 0 };
	bool overflow = false, skip = false;
	size_t k;

	for (k = 0; k < ktau_block_func_count(b); k++) {
		const struct ktau_func *f = ktau_block_func(b, k);
		ktau_timer *t;
		o_ent *e;

		if (f->fid >= KTAU_TAU_MAX_FIDS)
			goto range;
		e = ent_get(&l, f->fid, false, &skip);
		if (!e)
			goto nomem;
		t = &e->entry.data.timer;
		t->count = ktc_add(t->count, f->calls, &overflow);
		t->incl = ktc_add(t->incl, f->incl_cycles, &overflow);
		t->excl = ktc_add(t->excl, f->excl_cycles, &overflow);
	}
	for (k = 0; k < ktau_block_event_count(b); k++) {
		const struct ktau_event *ev = ktau_block_event(b, k);
		ktau_timer *t;
		o_ent *e;

		if (ev->fid >= KTAU_TAU_MAX_FIDS)
			goto range;
		skip = false;
		e = ent_get(&l, ev->fid, true, &skip);
		if (!e && skip)
			continue;	/* the 101st event: TAU has room for 100 */
		if (!e)
			goto nomem;
		t = &e->entry.data.timer;
		t->count = ktc_add(t->count, ev->count, &overflow);
		t->incl = ktc_add(t->incl, ev->sum, &overflow);
		t->excl = t->incl;
	}
	/* counters saturate (as the kernel's): overflow is not an error here */
	if (l.n)
		qsort(l.v, l.n, sizeof(l.v[0]), ktc_cmp_ent);
	*ents = l.v;
	*n = l.n;
	return 0;
range:
	free(l.v);
	return -ERANGE;
nomem:
	free(l.v);
	return -ENOMEM;
}

void ktc_free_tasks(struct ktc_task *tasks, size_t ntasks)
{
	size_t i;

	for (i = 0; i < ntasks; i++)
		free(tasks[i].ents);
	free(tasks);
}

static int cmp_task(const void *a, const void *b)
{
	const struct ktc_task *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* Appends the thread blocks of p to *tasks. */
static int add_blocks(const struct ktau_profile *p, struct ktc_task **tasks, size_t *n,
		      size_t *cap)
{
	size_t i;
	int ret;

	for (i = 0; i < ktau_profile_block_count(p); i++) {
		const struct ktau_block *b = ktau_profile_block(p, i);
		struct ktc_task *t;

		if (ktau_block_kind(b) != KTAU_BLOCK_THREAD)
			continue;
		if (*n == *cap) {
			size_t c = *cap ? 2 * *cap : 16;
			struct ktc_task *v = realloc(*tasks, c * sizeof(*v));

			if (!v)
				return -ENOMEM;
			*tasks = v;
			*cap = c;
		}
		t = &(*tasks)[*n];
		t->tid = ktau_block_tid(b);
		ret = ktc_block_entries(b, &t->ents, &t->size);
		if (ret)
			return ret;
		(*n)++;
	}
	return 0;
}

int ktc_read_tasks(int self, const pid_t *pids, unsigned int nopids,
		   struct ktc_task **tasks, size_t *ntasks)
{
	struct ktau_proc *proc = ktau_proc_open(NULL, NULL);
	size_t n = 0, cap = 0, i, out;
	struct ktc_task *v = NULL;
	int ret = 0, last = 0;
	unsigned int k;

	if (!proc)
		return -errno;
	if (self || nopids) {
		unsigned int count = self ? 1 : nopids;

		if (!self && !pids) {
			ret = -EINVAL;
			goto out;
		}
		for (k = 0; k < count; k++) {
			KTAU_OPTS(ktau_read_opts, opts, .pid = 0);
			struct ktau_profile *p;

			if (self) {
				opts.pid = getpid();
				opts.tid = ktc_gettid();
			} else {
				if (pids[k] <= 0) {
					ret = -EINVAL;
					goto out;
				}
				/* /proc/T/task/T: a thread of any process */
				opts.pid = pids[k];
				opts.tid = pids[k];
			}
			p = ktau_proc_read_profile(proc, &opts, NULL);
			if (!p) {
				/* a task that exited or that we may not read */
				last = -errno;
				if (last == -ENOMEM || last == -ENODEV) {
					ret = last;
					goto out;
				}
				continue;
			}
			ret = add_blocks(p, &v, &n, &cap);
			ktau_profile_free(p);
			if (ret)
				goto out;
		}
		if (!n && last) {
			ret = last;
			goto out;
		}
	} else {
		struct ktau_profile *p = ktau_proc_read_profile(proc, NULL, NULL);

		if (!p) {
			ret = -errno;
			goto out;
		}
		ret = add_blocks(p, &v, &n, &cap);
		ktau_profile_free(p);
		if (ret)
			goto out;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_task);
	/* a thread listed twice: once */
	for (i = 0, out = 0; i < n; i++) {
		if (out && v[out - 1].tid == v[i].tid) {
			free(v[i].ents);
			continue;
		}
		v[out++] = v[i];
	}
	n = out;
out:
	ktau_proc_close(proc);
	if (ret) {
		ktc_free_tasks(v, n);
		return ret;
	}
	*tasks = v;
	*ntasks = n;
	return 0;
}

size_t ktc_packed_size(const struct ktc_task *tasks, size_t ntasks)
{
	size_t size = KTAU_PACKED_HEADER_BYTES, i;

	for (i = 0; i < ntasks; i++)
		size += KTAU_PACKED_TASK_BYTES + (size_t)tasks[i].size * sizeof(o_ent);
	return size;
}

void ktc_pack(const struct ktc_task *tasks, size_t ntasks, char *buf)
{
	uint32_t u = (uint32_t)ntasks;
	size_t i;

	memcpy(buf, &u, 4);
	buf += 4;
	for (i = 0; i < ntasks; i++) {
		u = (uint32_t)tasks[i].tid;
		memcpy(buf, &u, 4);
		u = tasks[i].size;
		memcpy(buf + 4, &u, 4);
		buf += 8;
		if (tasks[i].size)
			memcpy(buf, tasks[i].ents, (size_t)tasks[i].size * sizeof(o_ent));
		buf += (size_t)tasks[i].size * sizeof(o_ent);
	}
}

static int check_type(int type)
{
	if (type == KTAU_TYPE_PROFILE)
		return 0;
	errno = type == KTAU_TYPE_TRACE ? ENOTSUP : EINVAL;
	return -1;
}

KTAU_COMPAT_API long read_size(int type, int self, pid_t *pid, unsigned int nopids,
			       unsigned long tol, unsigned int *flags, float compratio)
{
	struct ktc_task *tasks;
	size_t ntasks, size;
	double scaled;
	int ret;

	(void)tol;
	(void)flags;
	if (check_type(type))
		return -1;
	ret = ktc_read_tasks(self, pid, nopids, &tasks, &ntasks);
	if (ret) {
		errno = -ret;
		return -1;
	}
	size = ktc_packed_size(tasks, ntasks);
	ktc_free_tasks(tasks, ntasks);
	/* room for the profiles' growth until read_data() */
	if (!(compratio >= 0 && compratio <= 1))
		compratio = 0.5f;
	scaled = (double)size * (1.0 + compratio) + 64.0 * sizeof(o_ent);
	if (scaled > (double)(LONG_MAX / 2)) {
		errno = EOVERFLOW;
		return -1;
	}
	return (long)scaled;
}

KTAU_COMPAT_API long read_data(int type, int self, pid_t *pid, unsigned int nopids,
			       char *buffer, unsigned long size, unsigned long tol,
			       unsigned int *flags)
{
	struct ktc_task *tasks;
	size_t ntasks, need;
	int ret;

	(void)tol;
	(void)flags;
	if (check_type(type))
		return -1;
	if (!buffer) {
		errno = EINVAL;
		return -1;
	}
	ret = ktc_read_tasks(self, pid, nopids, &tasks, &ntasks);
	if (ret) {
		errno = -ret;
		return -1;
	}
	need = ktc_packed_size(tasks, ntasks);
	if (need > size || need > LONG_MAX) {
		ktc_free_tasks(tasks, ntasks);
		errno = ENOSPC;
		return -1;
	}
	ktc_pack(tasks, ntasks, buffer);
	ktc_free_tasks(tasks, ntasks);
	return (long)need;
}

KTAU_COMPAT_API long purge_data(pid_t *pid, unsigned int nopids, unsigned long tol,
				unsigned int *flags)
{
	struct ktau_proc *proc;
	int ret;

	(void)pid;
	(void)nopids;
	(void)tol;
	(void)flags;
	/* ktau clears all profiles at once, which only root may */
	if (geteuid() != 0) {
		errno = EPERM;
		return -1;
	}
	proc = ktau_proc_open(NULL, NULL);
	if (!proc)
		return -1;
	ret = ktau_proc_write_control(proc, "clear", NULL);
	ktau_proc_close(proc);
	if (ret) {
		errno = ret == -EACCES ? EPERM : -ret;
		return -1;
	}
	return 0;
}

KTAU_COMPAT_API long write_data(pid_t *pid, unsigned int nopids, char *buffer,
				unsigned long size, unsigned long tol, unsigned int *flags)
{
	(void)pid;
	(void)nopids;
	(void)buffer;
	(void)size;
	(void)tol;
	(void)flags;
	errno = ENOSYS;
	return -1;
}

KTAU_COMPAT_API long ktau_set_state(pid_t *pid, ktau_state *state, unsigned int *flags)
{
	(void)pid;
	(void)state;
	(void)flags;
	errno = ENOSYS;
	return -1;
}

KTAU_COMPAT_API long ktau_dump_toggle(void)
{
	errno = ENOSYS;
	return -1;
}

/* the tsc_khz of a profile (opts NULL: the system's); 0 with errno set */
static uint64_t profile_khz(struct ktau_proc *proc, const struct ktau_read_opts *opts)
{
	struct ktau_profile *p = ktau_proc_read_profile(proc, opts, NULL);
	uint64_t khz;

	if (!p)
		return 0;
	khz = ktau_profile_tsc_khz(p);
	ktau_profile_free(p);
	if (!khz)
		errno = ENODEV;
	return khz;
}

/*
 * ktau_get_tsc: the rate of the kernel's cycle counter in ticks per second,
 * as the original KTAU library's was (it read /proc/cpuinfo): here the
 * tsc_khz of the calling thread's own profile (x86: the TSC's rate; arm64:
 * the virtual counter's, CNTFRQ_EL0 or the firmware's override), or of the
 * system profile when the thread's cannot be read (a /proc tree without
 * it: the fake one of make check-tau).  TAU calls it once, at start, when
 * it is built with TAU_mips, for the MHz it divides KTAU cycles by
 * (KTauGetMHz()); ktau's TAU check builds TAU so on arm64, where TAU's own
 * KTAU clock (ktau_timer.h) has no counter to read (docs/tau.md).  TAU
 * does not check it: on failure a line on stderr says why, and 0 with
 * errno set.
 */
KTAU_COMPAT_API double ktau_get_tsc(void)
{
	KTAU_OPTS(ktau_read_opts, opts, .pid = getpid(), .tid = ktc_gettid());
	struct ktau_proc *proc = ktau_proc_open(NULL, NULL);
	uint64_t khz = 0;
	int err;

	if (proc) {
		khz = profile_khz(proc, &opts);
		if (!khz)
			khz = profile_khz(proc, NULL);
		err = errno;
		ktau_proc_close(proc);
		errno = err;
	}
	if (!khz) {
		err = errno;
		fprintf(stderr, "ktau: ktau_get_tsc: no cycle counter rate in the ktau "
			"profiles: %s; KTAU times will be wrong\n", strerror(err));
		errno = err;
		return 0;
	}
	return (double)khz * 1000.0;
}
