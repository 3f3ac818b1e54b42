// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Block and profile arithmetic. Each operation works on a private copy of
 * the destination's record arrays and swaps it in only when everything
 * succeeded, so a failed add or subtract leaves the destination as it was.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"

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
	free(b->paths);
	free(b->opens);
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
	tmp->paths = clone_array(dst->paths, dst->nr_paths, sizeof(*dst->paths),
				 &tmp->cap_paths);
	tmp->opens = clone_array(dst->opens, dst->nr_opens, sizeof(*dst->opens),
				 &tmp->cap_opens);
	if (!tmp->funcs || !tmp->edges || !tmp->events || !tmp->paths || !tmp->opens) {
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

typedef int (*counter_op)(uint64_t *acc, uint64_t v);

/* The calls and cycles of record s applied to those of d. */
#define APPLY3(op, d, s)						\
	apply3(op, &(d)->calls, &(d)->incl_cycles, &(d)->excl_cycles,	\
	       (s)->calls, (s)->incl_cycles, (s)->excl_cycles)

static int apply3(counter_op op, uint64_t *calls, uint64_t *incl, uint64_t *excl,
		  uint64_t s_calls, uint64_t s_incl, uint64_t s_excl)
{
	int ret;

	if ((ret = op(calls, s_calls)) || (ret = op(incl, s_incl)))
		return ret;
	return op(excl, s_excl);
}

static bool counted(uint64_t calls, uint64_t incl, uint64_t excl)
{
	return calls || incl || excl;
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
		ret = APPLY3(add, d, s);
		if (ret)
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
		ret = APPLY3(add, d, s);
		if (ret)
			return ret;
	}
	return 0;
}

static int add_paths(struct ktau_block *tmp, const struct ktau_block *src)
{
	size_t i;
	int ret;

	for (i = 0; i < src->nr_paths; i++) {
		const struct ktau_path *s = &src->paths[i].rec;
		ssize_t k = ktau__find_path_index(tmp, s->ctx, s->fids, s->depth);

		ret = k < 0 ? ktau__block_copy_path(tmp, s, 0) :
			      APPLY3(add, &tmp->paths[k].rec, s);
		if (ret)
			return ret;
	}
	return 0;
}

static int add_opens(struct ktau_block *tmp, const struct ktau_block *src)
{
	size_t i;
	int ret;

	for (i = 0; i < src->nr_opens; i++) {
		ret = ktau__block_copy_open(tmp, &src->opens[i].rec, 0);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Whether the result of combining dst and src owns its edges (both are v1
 * blocks) or its paths. A block with neither paths nor edges (a new one)
 * takes the other's way.
 */
static bool result_edges_own(const struct ktau_block *dst, const struct ktau_block *src)
{
	bool dst_empty = !dst->nr_paths && !dst->nr_edges;
	bool src_empty = !src->nr_paths && !src->nr_edges;

	if (dst_empty)
		return src->edges_own;
	return dst->edges_own && (src_empty || src->edges_own);
}

/* dst op= src on the records tmp owns, then the others derived again. */
static int combine_callpaths(struct ktau_block *tmp, const struct ktau_block *src,
			     int (*edges)(struct ktau_block *, const struct ktau_block *),
			     int (*paths)(struct ktau_block *, const struct ktau_block *))
{
	int ret;

	tmp->edges_own = result_edges_own(tmp, src);
	ret = tmp->edges_own ? edges(tmp, src) : paths(tmp, src);
	return ret ? ret : ktau__block_derive(tmp);
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
	    (ret = combine_callpaths(&tmp, src, add_edges, add_paths)) ||
	    (ret = add_events(&tmp, src)) ||
	    (ret = add_opens(&tmp, src)) ||
	    (ret = add(&tmp.private_processes, src->private_processes)) ||
	    (ret = add(&tmp.pending, src->pending)) ||
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
			if (counted(s->calls, s->incl_cycles, s->excl_cycles))
				return -ERANGE;
			continue;
		}
		d = &tmp->funcs[k].rec;
		ret = APPLY3(sub, d, s);
		if (ret)
			return ret;
	}
	for (i = 0; i < tmp->nr_funcs; i++) {
		const struct ktau_func *d = &tmp->funcs[i].rec;

		if (counted(d->calls, d->incl_cycles, d->excl_cycles))
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
			if (counted(s->calls, s->incl_cycles, s->excl_cycles))
				return -ERANGE;
			continue;
		}
		d = &tmp->edges[k].rec;
		ret = APPLY3(sub, d, s);
		if (ret)
			return ret;
	}
	for (i = 0; i < tmp->nr_edges; i++) {
		const struct ktau_edge *d = &tmp->edges[i].rec;

		if (counted(d->calls, d->incl_cycles, d->excl_cycles))
			tmp->edges[kept++] = tmp->edges[i];
	}
	tmp->nr_edges = kept;
	return 0;
}

/*
 * Paths whose counts drop to zero stay while a longer path still has them
 * as its prefix (in a v2 block every prefix of a path is a path).
 */
static bool path_needed(const struct ktau_block *b, size_t i)
{
	const struct ktau_path *p = &b->paths[i].rec;
	size_t j;

	if (counted(p->calls, p->incl_cycles, p->excl_cycles))
		return true;
	for (j = 0; j < b->nr_paths; j++) {
		const struct ktau_path *q = &b->paths[j].rec;

		if (q->depth > p->depth && q->ctx == p->ctx &&
		    counted(q->calls, q->incl_cycles, q->excl_cycles) &&
		    !memcmp(q->fids, p->fids, p->depth * sizeof(*p->fids)))
			return true;
	}
	return false;
}

static int sub_paths(struct ktau_block *tmp, const struct ktau_block *src)
{
	size_t i, kept = 0;
	bool *keep;
	int ret;

	for (i = 0; i < src->nr_paths; i++) {
		const struct ktau_path *s = &src->paths[i].rec;
		ssize_t k = ktau__find_path_index(tmp, s->ctx, s->fids, s->depth);

		if (k >= 0)
			ret = APPLY3(sub, &tmp->paths[k].rec, s);
		else
			ret = counted(s->calls, s->incl_cycles, s->excl_cycles) ? -ERANGE : 0;
		if (ret)
			return ret;
	}
	keep = calloc(tmp->nr_paths ? tmp->nr_paths : 1, sizeof(*keep));
	if (!keep)
		return -ENOMEM;
	for (i = 0; i < tmp->nr_paths; i++)
		keep[i] = path_needed(tmp, i);
	for (i = 0; i < tmp->nr_paths; i++)
		if (keep[i])
			tmp->paths[kept++] = tmp->paths[i];
	tmp->nr_paths = kept;
	free(keep);
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
	    (ret = combine_callpaths(&tmp, src, sub_edges, sub_paths)) ||
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
	if (b->version > out->version)
		out->version = b->version;
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

/* A block of `before` and its place there, sorted by task so that each
 * block of `after` finds its counterpart by binary search: a system
 * profile has a block per thread, and a scan per block would be
 * quadratic in the tasks. */
struct block_ref {
	const struct ktau_block *b;
	size_t pos;
};

static int task_cmp(const struct ktau_block *a, const struct ktau_block *b)
{
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return (a->tid > b->tid) - (a->tid < b->tid);
}

static int by_task_then_pos(const void *x, const void *y)
{
	const struct block_ref *a = x, *b = y;
	int c = task_cmp(a->b, b->b);

	return c ? c : (a->pos > b->pos) - (a->pos < b->pos);
}

/* The first block in file order with like's task (as find_block()), or
 * NULL: the lowest entry of the sorted refs that matches. */
static const struct ktau_block *find_sorted(const struct block_ref *refs, size_t n,
					    const struct ktau_block *like)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (task_cmp(refs[mid].b, like) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !task_cmp(refs[lo].b, like) ? refs[lo].b : NULL;
}

struct ktau_profile *ktau_profile_diff(const struct ktau_profile *before,
				       const struct ktau_profile *after)
{
	struct ktau_profile *out;
	struct block_ref *refs;
	size_t i;
	int ret = 0;

	if (!compatible(before, after)) {
		errno = EINVAL;
		return NULL;
	}
	refs = calloc(before->nr_blocks ? before->nr_blocks : 1, sizeof(*refs));
	if (!refs)
		return NULL;
	for (i = 0; i < before->nr_blocks; i++)
		refs[i] = (struct block_ref){ before->blocks[i], i };
	qsort(refs, before->nr_blocks, sizeof(*refs), by_task_then_pos);
	out = ktau_profile_dup(after);
	for (i = 0; out && i < out->nr_blocks && !ret; i++) {
		const struct ktau_block *s = find_sorted(refs, before->nr_blocks,
							 out->blocks[i]);

		if (s)
			ret = ktau_block_subtract(out->blocks[i], s);
	}
	free(refs);
	if (ret) {
		ktau_profile_free(out);
		errno = -ret;
		return NULL;
	}
	return out;
}

/* ---- two runs compared routine by routine ---- */

/* A row and what it is sorted by (the public struct may grow, so the
 * sort keys live beside it, not in it). */
struct diff_slot {
	struct ktau_diff_row rec;
	uint64_t excl_change;	/* |b - a| exclusive cycles, exact */
	double excl_usec_change; /* |b - a| exclusive microseconds */
	bool by_usec;		/* the same for every row of one comparison */
};

struct ktau_routine_diff {
	struct diff_slot *rows;
	size_t count;
	struct ktau_diff_row total;
	struct ktau_strpool strings;	/* the names: the profiles may go first */
};

/* One func record of one side: both sides' records sorted by routine put
 * every record of a routine next to each other, so matching is a sort and
 * one pass, not a lookup per record. */
struct side_func {
	const struct ktau_func *f;
	unsigned int side;
};

static int by_routine(const void *x, const void *y)
{
	const struct ktau_func *a = ((const struct side_func *)x)->f;
	const struct ktau_func *b = ((const struct side_func *)y)->f;
	int c = strcmp(a->name, b->name);

	return c ? c : strcmp(a->group, b->group);
}

/* b - a, clamped to int64_t (|b - a| may need 64 bits plus a sign). */
static int64_t saturated_delta(uint64_t a, uint64_t b)
{
	if (b >= a)
		return b - a > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)(b - a);
	return a - b > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)(a - b);
}

static void set_deltas(struct ktau_diff_row *r, const struct ktau_profile *a,
		       const struct ktau_profile *b)
{
	r->calls_delta = saturated_delta(r->calls[0], r->calls[1]);
	r->incl_cycles_delta = saturated_delta(r->incl_cycles[0], r->incl_cycles[1]);
	r->excl_cycles_delta = saturated_delta(r->excl_cycles[0], r->excl_cycles[1]);
	r->incl_usec_delta = ktau_profile_usec(b, r->incl_cycles[1]) -
			     ktau_profile_usec(a, r->incl_cycles[0]);
	r->excl_usec_delta = ktau_profile_usec(b, r->excl_cycles[1]) -
			     ktau_profile_usec(a, r->excl_cycles[0]);
}

static int by_change_desc(const void *x, const void *y)
{
	const struct diff_slot *a = x, *b = y;
	int c;

	if (a->by_usec && a->excl_usec_change != b->excl_usec_change)
		return a->excl_usec_change < b->excl_usec_change ? 1 : -1;
	if (!a->by_usec && a->excl_change != b->excl_change)
		return a->excl_change < b->excl_change ? 1 : -1;
	c = strcmp(a->rec.name, b->rec.name);
	return c ? c : strcmp(a->rec.group, b->rec.group);
}

/* Every func record of both profiles, side 0 for a, 1 for b. */
static struct side_func *collect_funcs(const struct ktau_profile *a,
				       const struct ktau_profile *b, size_t *count)
{
	const struct ktau_profile *sides[2] = { a, b };
	struct side_func *all;
	size_t n = 0, i, j;
	unsigned int s;

	for (s = 0; s < 2; s++)
		for (i = 0; i < sides[s]->nr_blocks; i++)
			n += sides[s]->blocks[i]->nr_funcs;
	all = calloc(n ? n : 1, sizeof(*all));
	if (!all)
		return NULL;
	*count = 0;
	for (s = 0; s < 2; s++)
		for (i = 0; i < sides[s]->nr_blocks; i++)
			for (j = 0; j < sides[s]->blocks[i]->nr_funcs; j++)
				all[(*count)++] = (struct side_func){
					&sides[s]->blocks[i]->funcs[j].rec, s };
	qsort(all, *count, sizeof(*all), by_routine);
	return all;
}

/* A row per routine: the runs of equal (name, group) in the sorted
 * records, each side summed. */
static int make_rows(struct ktau_routine_diff *d, const struct side_func *all, size_t n)
{
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		const struct side_func *s = &all[i];
		struct ktau_diff_row *r;

		if (!i || by_routine(&all[i - 1], s)) {
			r = &d->rows[d->count++].rec;
			r->name = ktau__strpool_add(&d->strings, s->f->name, strlen(s->f->name));
			r->group = ktau__strpool_add(&d->strings, s->f->group,
						     strlen(s->f->group));
			if (!r->name || !r->group)
				return -ENOMEM;
		}
		r = &d->rows[d->count - 1].rec;
		ret = apply3(add, &r->calls[s->side], &r->incl_cycles[s->side],
			     &r->excl_cycles[s->side], s->f->calls, s->f->incl_cycles,
			     s->f->excl_cycles);
		if (ret)
			return ret;
	}
	return 0;
}

/* Deltas, sort keys and the total of the rows made. */
static int finish_rows(struct ktau_routine_diff *d, const struct ktau_profile *a,
		       const struct ktau_profile *b)
{
	/* one TSC rate: cycles compare exactly; two: only time does */
	bool by_usec = a->tsc_khz != b->tsc_khz && a->tsc_khz && b->tsc_khz;
	struct ktau_diff_row *t = &d->total;
	size_t i;
	int ret;

	t->name = "total";
	t->group = "";
	for (i = 0; i < d->count; i++) {
		struct diff_slot *s = &d->rows[i];
		struct ktau_diff_row *r = &s->rec;
		unsigned int side;

		set_deltas(r, a, b);
		s->excl_change = r->excl_cycles[1] >= r->excl_cycles[0] ?
				 r->excl_cycles[1] - r->excl_cycles[0] :
				 r->excl_cycles[0] - r->excl_cycles[1];
		s->excl_usec_change = r->excl_usec_delta < 0 ? -r->excl_usec_delta
							     : r->excl_usec_delta;
		s->by_usec = by_usec;
		for (side = 0; side < 2; side++)
			if ((ret = add(&t->calls[side], r->calls[side])) ||
			    (ret = add(&t->excl_cycles[side], r->excl_cycles[side])))
				return ret;
	}
	set_deltas(t, a, b);
	qsort(d->rows, d->count, sizeof(*d->rows), by_change_desc);
	return 0;
}

struct ktau_routine_diff *ktau_profile_diff_routines(const struct ktau_profile *a,
						     const struct ktau_profile *b)
{
	struct ktau_routine_diff *d;
	struct side_func *all;
	size_t n = 0;
	int ret;

	if (!a || !b) {
		errno = EINVAL;
		return NULL;
	}
	all = collect_funcs(a, b, &n);
	d = all ? calloc(1, sizeof(*d)) : NULL;
	if (d)
		d->rows = calloc(n ? n : 1, sizeof(*d->rows));
	if (!d || !d->rows) {
		free(all);
		ktau_routine_diff_free(d);
		errno = ENOMEM;
		return NULL;
	}
	ret = make_rows(d, all, n);
	free(all);
	if (!ret)
		ret = finish_rows(d, a, b);
	if (ret) {
		ktau_routine_diff_free(d);
		errno = -ret;
		return NULL;
	}
	return d;
}

void ktau_routine_diff_free(struct ktau_routine_diff *d)
{
	int saved = errno;

	if (!d)
		return;
	free(d->rows);
	ktau__strpool_free(&d->strings);
	free(d);
	errno = saved;
}

size_t ktau_routine_diff_count(const struct ktau_routine_diff *d)
{
	return d ? d->count : 0;
}

const struct ktau_diff_row *ktau_routine_diff_row(const struct ktau_routine_diff *d,
						  size_t index)
{
	if (!d || index >= d->count) {
		errno = ERANGE;
		return NULL;
	}
	return &d->rows[index].rec;
}

const struct ktau_diff_row *ktau_routine_diff_total(const struct ktau_routine_diff *d)
{
	if (!d) {
		errno = EINVAL;
		return NULL;
	}
	return &d->total;
}

/* ---- time so far: open records folded into the counters ---- */

/* Whether fid occurs in fids[0..depth). */
static bool fid_in(const uint32_t *fids, uint32_t depth, uint32_t fid)
{
	uint32_t k;

	for (k = 0; k < depth; k++)
		if (fids[k] == fid)
			return true;
	return false;
}

/* The func of open o's innermost routine: excl always, incl when that
 * routine does not occur further out (its outermost call has it). */
static int open_to_func(struct ktau_block *tmp, const struct ktau_open *o)
{
	uint32_t fid = o->fids[o->depth - 1];
	uint64_t incl = fid_in(o->fids, o->depth - 1, fid) ? 0 : o->incl_cycles;
	ssize_t k = ktau__find_func_index(tmp, o->ctx, fid);
	struct ktau_func f = {
		.ctx = o->ctx, .fid = fid, .name = o->name, .group = o->group,
	};

	if (k < 0) {
		f.incl_cycles = incl;
		f.excl_cycles = o->excl_cycles;
		return ktau__block_copy_func(tmp, &f, 0);
	}
	return apply3(add, &tmp->funcs[k].rec.calls, &tmp->funcs[k].rec.incl_cycles,
		      &tmp->funcs[k].rec.excl_cycles, 0, incl, o->excl_cycles);
}

/* The path (ctx, fids) of open o; a v1 block's edge between its last two
 * routines instead (its paths are derived from its edges). */
static int open_to_callpath(struct ktau_block *tmp, const struct ktau_open *o)
{
	const struct ktau_path as_path = {
		.ctx = o->ctx, .depth = o->depth, .fids = o->fids, .name = o->name,
		.group = o->group, .incl_cycles = o->incl_cycles,
		.excl_cycles = o->excl_cycles,
	};
	struct ktau_edge e;
	const char *group;
	ssize_t k;

	if (!tmp->edges_own) {
		k = ktau__find_path_index(tmp, o->ctx, o->fids, o->depth);
		return k < 0 ? ktau__block_copy_path(tmp, &as_path, 0) :
			       APPLY3(add, &tmp->paths[k].rec, &as_path);
	}
	if (o->depth < 2)
		return 0;
	k = ktau__find_edge_index(tmp, o->ctx, o->fids[o->depth - 2], o->fids[o->depth - 1]);
	if (k >= 0)
		return APPLY3(add, &tmp->edges[k].rec, &as_path);
	e = (struct ktau_edge){
		.ctx = o->ctx, .parent_fid = o->fids[o->depth - 2],
		.fid = o->fids[o->depth - 1], .name = o->name,
		.incl_cycles = o->incl_cycles, .excl_cycles = o->excl_cycles,
	};
	e.parent = ktau__path_element(tmp, &as_path, o->depth - 2, &group);
	return e.parent ? ktau__block_copy_edge(tmp, &e, 0) : 0;
}

int ktau_block_add_open(struct ktau_block *b)
{
	struct ktau_block tmp;
	size_t i;
	int ret = 0;

	if (!b)
		return -EINVAL;
	if (!b->nr_opens)
		return 0;
	ret = begin_update(&tmp, b);
	if (ret)
		return ret;
	for (i = 0; i < tmp.nr_opens && !ret; i++) {
		const struct ktau_open *o = &tmp.opens[i].rec;

		if (!o->depth || o->depth > KTAU_PATH_MAX_DEPTH)
			ret = -EINVAL;
		else if (!(ret = open_to_func(&tmp, o)))
			ret = open_to_callpath(&tmp, o);
	}
	if (!ret)
		ret = ktau__block_derive(&tmp);
	if (ret) {
		free_arrays(&tmp);
		return ret;
	}
	tmp.nr_opens = 0;
	commit_update(b, &tmp);
	return 0;
}

struct ktau_profile *ktau_profile_with_open(const struct ktau_profile *p)
{
	struct ktau_profile *out;
	size_t i;
	int ret = 0;

	if (!p) {
		errno = EINVAL;
		return NULL;
	}
	out = ktau_profile_dup(p);
	for (i = 0; out && i < out->nr_blocks && !ret; i++)
		ret = ktau_block_add_open(out->blocks[i]);
	if (ret) {
		ktau_profile_free(out);
		errno = -ret;
		return NULL;
	}
	return out;
}
