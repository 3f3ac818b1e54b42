// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Copies of a profile that keep some of its records: by group, or the
 * routines with the most exclusive time. The copy is the whole profile
 * with the other records taken out, block by block.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"

/* Which funcs of b to keep: keep[i] for b->funcs[i]. */
typedef int (*choose_fn)(const struct ktau_block *b, bool *keep, const void *arg);

static bool leaf_kept(const struct ktau_block *b, const bool *keep, uint64_t ctx,
		      uint32_t fid)
{
	ssize_t i = ktau__find_func_index(b, ctx, fid);

	/* a record whose routine has no func record (the parser accepts
	 * that) has nothing to be chosen with: it goes */
	return i >= 0 && keep[i];
}

static uint32_t path_leaf(const struct ktau_path *p)
{
	return p->fids[p->depth - 1];
}

static int thin_block(struct ktau_block *b, choose_fn choose, const void *arg,
		      bool keep_events)
{
	bool *keep = calloc(b->nr_funcs ? b->nr_funcs : 1, sizeof(*keep));
	size_t i, n;
	int ret;

	if (!keep)
		return -ENOMEM;
	ret = choose(b, keep, arg);
	if (ret) {
		free(keep);
		return ret;
	}
	/* edges, paths and opens first: they look their funcs up by the
	 * original positions */
	for (i = n = 0; i < b->nr_edges; i++)
		if (leaf_kept(b, keep, b->edges[i].rec.ctx, b->edges[i].rec.fid))
			b->edges[n++] = b->edges[i];
	b->nr_edges = n;
	for (i = n = 0; i < b->nr_paths; i++)
		if (leaf_kept(b, keep, b->paths[i].rec.ctx, path_leaf(&b->paths[i].rec)))
			b->paths[n++] = b->paths[i];
	b->nr_paths = n;
	for (i = n = 0; i < b->nr_opens; i++)
		if (leaf_kept(b, keep, b->opens[i].rec.ctx,
			      b->opens[i].rec.fids[b->opens[i].rec.depth - 1]))
			b->opens[n++] = b->opens[i];
	b->nr_opens = n;
	for (i = n = 0; i < b->nr_funcs; i++)
		if (keep[i])
			b->funcs[n++] = b->funcs[i];
	b->nr_funcs = n;
	if (!keep_events)
		b->nr_events = 0;
	free(keep);
	return 0;
}

static struct ktau_profile *thin(const struct ktau_profile *src, choose_fn choose,
				 const void *arg, bool keep_events)
{
	struct ktau_profile *p = ktau_profile_dup(src);
	size_t i;
	int ret;

	for (i = 0; p && i < p->nr_blocks; i++) {
		ret = thin_block(p->blocks[i], choose, arg, keep_events);
		if (ret) {
			ktau_profile_free(p);
			errno = -ret;
			return NULL;
		}
	}
	return p;
}

/* ---- by group ---- */

struct group_list {
	const char *const *groups;
	size_t count;
};

static bool listed(const struct group_list *l, const char *group)
{
	size_t i;

	for (i = 0; i < l->count; i++)
		if (!strcmp(l->groups[i], group))
			return true;
	return false;
}

static int choose_groups(const struct ktau_block *b, bool *keep, const void *arg)
{
	size_t i;

	for (i = 0; i < b->nr_funcs; i++)
		keep[i] = listed(arg, b->funcs[i].rec.group);
	return 0;
}

struct ktau_profile *ktau_profile_filter_groups(const struct ktau_profile *p,
						const char *const *groups,
						size_t nr_groups)
{
	struct group_list l = { groups, nr_groups };
	size_t i;

	if (!p || (!groups && nr_groups)) {
		errno = EINVAL;
		return NULL;
	}
	for (i = 0; i < nr_groups; i++) {
		if (!groups[i]) {
			errno = EINVAL;
			return NULL;
		}
	}
	return thin(p, choose_groups, &l, listed(&l, "event"));
}

/* ---- the top n by exclusive time ---- */

static int by_excl_desc(const void *x, const void *y)
{
	const struct ktau_func *a = &(*(const struct ktau_func_slot *const *)x)->rec;
	const struct ktau_func *b = &(*(const struct ktau_func_slot *const *)y)->rec;
	int c;

	if (a->excl_cycles != b->excl_cycles)
		return a->excl_cycles < b->excl_cycles ? 1 : -1;
	c = strcmp(a->name, b->name);
	if (c)
		return c;
	return (a->ctx > b->ctx) - (a->ctx < b->ctx);
}

static int choose_top(const struct ktau_block *b, bool *keep, const void *arg)
{
	size_t n = *(const size_t *)arg, i;
	const struct ktau_func_slot **order;

	if (b->nr_funcs <= n) {
		for (i = 0; i < b->nr_funcs; i++)
			keep[i] = true;
		return 0;
	}
	order = malloc(b->nr_funcs * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (i = 0; i < b->nr_funcs; i++)
		order[i] = &b->funcs[i];
	qsort(order, b->nr_funcs, sizeof(*order), by_excl_desc);
	for (i = 0; i < n; i++)
		keep[order[i] - b->funcs] = true;
	free(order);
	return 0;
}

struct ktau_profile *ktau_profile_top(const struct ktau_profile *p, size_t n)
{
	if (!p || !n) {
		errno = EINVAL;
		return NULL;
	}
	return thin(p, choose_top, &n, true);
}
