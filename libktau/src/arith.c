// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Block and profile arithmetic. Each operation works on a private copy of
 * the destination's record arrays and swaps it in only when everything
 * succeeded, so a failed add or subtract leaves the destination as it was.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static void *clone_array(const void *items, size_t count, size_t size, size_t *cap)
{
	void *p;

	*cap = count ? count : 1;
	p = malloc(*cap * size);
	if (p && count)
		memcpy(p, items, count * size);
	return p;
}

static void free_arrays(struct ktau_block *b)
{
	free(b->funcs);
	free(b->edges);
	free(b->events);
}

/* tmp = dst with its own copies of the record arrays. */
static int begin_update(struct ktau_block *tmp, const struct ktau_block *dst)
{
	*tmp = *dst;
	tmp->funcs = clone_array(dst->funcs, dst->nr_funcs, sizeof(*dst->funcs),
				 &tmp->cap_funcs);
	tmp->edges = clone_array(dst->edges, dst->nr_edges, sizeof(*dst->edges),
				 &tmp->cap_edges);
	tmp->events = clone_array(dst->events, dst->nr_events, sizeof(*dst->events),
				  &tmp->cap_events);
	if (!tmp->funcs || !tmp->edges || !tmp->events) {
		free_arrays(tmp);
		return -ENOMEM;
	}
	return 0;
}

static void commit_update(struct ktau_block *dst, struct ktau_block *tmp)
{
	free_arrays(dst);
	*dst = *tmp;
}

static int add(uint64_t *acc, uint64_t v)
{
	if (*acc > UINT64_MAX - v)
		return -EOVERFLOW;
	*acc += v;
	return 0;
}

static int sub(uint64_t *acc, uint64_t v)
{
	if (*acc < v)
		return -ERANGE;
	*acc -= v;
	return 0;
}

static int add_funcs(struct ktau_block *tmp, const struct ktau_block *src)
{
	size_t i;
	int ret;

	for (i = 0; i < src->nr_funcs; i++) {
		const struct ktau_func *s = &src->funcs[i].rec;
		ssize_t k = ktau__find_func_index(tmp, s->ctx, s->fid);
		struct ktau_func *d;

		if (k < 0) {
			ret = ktau__block_copy_func(tmp, s, 0);
			if (ret)
				return ret;
			continue;
		}
		d = &tmp->funcs[k].rec;
		if ((ret = add(&d->calls, s->calls)) ||
		    (ret = add(&d->incl_cycles, s->incl_cycles)) ||
		    (ret = add(&d->excl_cycles, s->excl_cycles)))
			return ret;
	}
	return 0;
}

static int add_edges(struct ktau_block *tmp, const struct ktau_block *src)
{
	size_t i;
	int ret;

	for (i = 0; i < src->nr_edges; i++) {
		const struct ktau_edge *s = &src->edges[i].rec;
		ssize_t k = ktau__find_edge_index(tmp, s->ctx, s->parent_fid, s->fid);
		struct ktau_edge *d;

		if (k < 0) {
			ret = ktau__block_copy_edge(tmp, s, 0);
			if (ret)
				return ret;
			continue;
		}
		d = &tmp->edges[k].rec;
		if ((ret = add(&d->calls, s->calls)) ||
		    (ret = add(&d->incl_cycles, s->incl_cycles)) ||
		    (ret = add(&d->excl_cycles, s->excl_cycles)))
			return ret;
	}
	return 0;
}

static int add_events(struct ktau_block *tmp, const struct ktau_block *src)
{
	size_t i;
	int ret;

	for (i = 0; i < src->nr_events; i++) {
		const struct ktau_event *s = &src->events[i].rec;
		ssize_t k = ktau__find_event_index(tmp, s->ctx, s->fid);
		struct ktau_event *d;

		if (k < 0) {
			ret = ktau__block_copy_event(tmp, s, 0);
			if (ret)
				return ret;
			continue;
		}
		d = &tmp->events[k].rec;
		if (!s->count)
			continue;	/* no samples: min and max mean nothing */
		if (!d->count) {
			d->min = s->min;
			d->max = s->max;
		} else {
			if (s->min < d->min)
				d->min = s->min;
			if (s->max > d->max)
				d->max = s->max;
		}
		if ((ret = add(&d->count, s->count)) ||
		    (ret = add(&d->sum, s->sum)) ||
		    (ret = add(&d->sumsq, s->sumsq)))
			return ret;
	}
	return 0;
}

int ktau_block_add(struct ktau_block *dst, const struct ktau_block *src)
{
	struct ktau_block tmp;
	uint64_t threads;
	int ret;

	if (!dst || !src)
		return -EINVAL;
	ret = begin_update(&tmp, dst);
	if (ret)
		return ret;
	/* a thread block is one thread even when the file does not say so */
	threads = src->kind == KTAU_BLOCK_THREAD && !src->threads ? 1 : src->threads;
	if ((ret = add_funcs(&tmp, src)) ||
	    (ret = add_edges(&tmp, src)) ||
	    (ret = add_events(&tmp, src)) ||
	    (ret = add(&tmp.threads, threads)) ||
	    (ret = add(&tmp.exited_threads, src->exited_threads)) ||
	    (ret = add(&tmp.processes, src->processes)) ||
	    (ret = add(&tmp.dropped, src->dropped))) {
		free_arrays(&tmp);
		return ret;
	}
	commit_update(dst, &tmp);
	return 0;
}

static int sub_funcs(struct ktau_block *tmp, const struct ktau_block *src)
{
	size_t i, kept = 0;
	int ret;

	for (i = 0; i < src->nr_funcs; i++) {
		const struct ktau_func *s = &src->funcs[i].rec;
		ssize_t k = ktau__find_func_index(tmp, s->ctx, s->fid);
		struct ktau_func *d;

		if (k < 0) {
			if (s->calls || s->incl_cycles || s->excl_cycles)
				return -ERANGE;
			continue;
		}
		d = &tmp->funcs[k].rec;
		if ((ret = sub(&d->calls, s->calls)) ||
		    (ret = sub(&d->incl_cycles, s->incl_cycles)) ||
		    (ret = sub(&d->excl_cycles, s->excl_cycles)))
			return ret;
	}
	for (i = 0; i < tmp->nr_funcs; i++) {
		const struct ktau_func *d = &tmp->funcs[i].rec;

		if (d->calls || d->incl_cycles || d->excl_cycles)
			tmp->funcs[kept++] = tmp->funcs[i];
	}
	tmp->nr_funcs = kept;
	return 0;
}

static int sub_edges(struct ktau_block *tmp, const struct ktau_block *src)
{
	size_t i, kept = 0;
	int ret;

	for (i = 0; i < src->nr_edges; i++) {
		const struct ktau_edge *s = &src->edges[i].rec;
		ssize_t k = ktau__find_edge_index(tmp, s->ctx, s->parent_fid, s->fid);
		struct ktau_edge *d;

		if (k < 0) {
			if (s->calls || s->incl_cycles || s->excl_cycles)
				return -ERANGE;
			continue;
		}
		d = &tmp->edges[k].rec;
		if ((ret = sub(&d->calls, s->calls)) ||
		    (ret = sub(&d->incl_cycles, s->incl_cycles)) ||
		    (ret = sub(&d->excl_cycles, s->excl_cycles)))
			return ret;
	}
	for (i = 0; i < tmp->nr_edges; i++) {
		const struct ktau_edge *d = &tmp->edges[i].rec;

		if (d->calls || d->incl_cycles || d->excl_cycles)
			tmp->edges[kept++] = tmp->edges[i];
	}
	tmp->nr_edges = kept;
	return 0;
}

static int sub_events(struct ktau_block *tmp, const struct ktau_block *src)
{
	size_t i, kept = 0;
	int ret;

	for (i = 0; i < src->nr_events; i++) {
		const struct ktau_event *s = &src->events[i].rec;
		ssize_t k = ktau__find_event_index(tmp, s->ctx, s->fid);
		struct ktau_event *d;

		if (k < 0) {
			if (s->count || s->sum || s->sumsq)
				return -ERANGE;
			continue;
		}
		d = &tmp->events[k].rec;
		/* min and max stay: they cannot be taken apart */
		if ((ret = sub(&d->count, s->count)) ||
		    (ret = sub(&d->sum, s->sum)) ||
		    (ret = sub(&d->sumsq, s->sumsq)))
			return ret;
	}
	for (i = 0; i < tmp->nr_events; i++)
		if (tmp->events[i].rec.count)
			tmp->events[kept++] = tmp->events[i];
	tmp->nr_events = kept;
	return 0;
}

int ktau_block_subtract(struct ktau_block *dst, const struct ktau_block *src)
{
	struct ktau_block tmp;
	int ret;

	if (!dst || !src)
		return -EINVAL;
	ret = begin_update(&tmp, dst);
	if (ret)
		return ret;
	if ((ret = sub_funcs(&tmp, src)) ||
	    (ret = sub_edges(&tmp, src)) ||
	    (ret = sub_events(&tmp, src)) ||
	    (ret = sub(&tmp.dropped, src->dropped))) {
		free_arrays(&tmp);
		return ret;
	}
	commit_update(dst, &tmp);
	return 0;
}

static int compatible(const struct ktau_profile *a, const struct ktau_profile *b)
{
	return a && b && a->scope == b->scope && a->tsc_khz == b->tsc_khz;
}

static struct ktau_block *find_block(const struct ktau_profile *p,
				     const struct ktau_block *like)
{
	size_t i;

	for (i = 0; i < p->nr_blocks; i++) {
		struct ktau_block *b = p->blocks[i];

		if (b->kind == like->kind && b->pid == like->pid && b->tid == like->tid)
			return b;
	}
	return NULL;
}

struct ktau_profile *ktau_profile_sum(const struct ktau_profile *a,
				      const struct ktau_profile *b)
{
	struct ktau_profile *out;
	size_t i;
	int ret = 0;

	if (!compatible(a, b)) {
		errno = EINVAL;
		return NULL;
	}
	out = ktau_profile_dup(a);
	if (!out)
		return NULL;
	for (i = 0; i < b->nr_blocks && !ret; i++) {
		struct ktau_block *d = find_block(out, b->blocks[i]);

		if (d)
			ret = ktau_block_add(d, b->blocks[i]);
		else if (!ktau__profile_clone_block(out, b->blocks[i]))
			ret = -ENOMEM;
	}
	if (ret) {
		ktau_profile_free(out);
		errno = -ret;
		return NULL;
	}
	return out;
}

struct ktau_profile *ktau_profile_diff(const struct ktau_profile *before,
				       const struct ktau_profile *after)
{
	struct ktau_profile *out;
	size_t i;
	int ret = 0;

	if (!compatible(before, after)) {
		errno = EINVAL;
		return NULL;
	}
	out = ktau_profile_dup(after);
	if (!out)
		return NULL;
	for (i = 0; i < out->nr_blocks && !ret; i++) {
		const struct ktau_block *s = find_block(before, out->blocks[i]);

		if (s)
			ret = ktau_block_subtract(out->blocks[i], s);
	}
	if (ret) {
		ktau_profile_free(out);
		errno = -ret;
		return NULL;
	}
	return out;
}
