// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The records a block does not own, rebuilt from the ones it does: a
 * version 2 block's edges from its paths (each path of depth >= 2 adds to
 * the edge between its last two elements), a version 1 block's
 * two-element paths from its edge lines. Sums saturate: a derived record
 * is a view, and a view does not fail.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "profile/profile.h"

/* The name and group of fid's func record, same ctx first; NULL if none. */
static const char *func_name(const struct ktau_block *b, uint64_t ctx, uint32_t fid,
			     const char **group)
{
	ssize_t i = ktau__find_func_index(b, ctx, fid);
	size_t j;

	for (j = 0; i < 0 && j < b->nr_funcs; j++)
		if (b->funcs[j].rec.fid == fid)
			i = (ssize_t)j;
	if (i < 0)
		return NULL;
	*group = b->funcs[i].rec.group;
	return b->funcs[i].rec.name;
}

const char *ktau__path_element(const struct ktau_block *b, const struct ktau_path *path,
			       uint32_t k, const char **group)
{
	const char *name;
	ssize_t i;

	*group = NULL;
	if (k + 1 == path->depth) {
		*group = path->group;
		return path->name;
	}
	i = ktau__find_path_index(b, path->ctx, path->fids, k + 1);
	if (i >= 0) {
		*group = b->paths[i].rec.group;
		return b->paths[i].rec.name;
	}
	name = func_name(b, path->ctx, path->fids[k], group);
	if (b->edges_own && path->depth == 2) {
		i = ktau__find_edge_index(b, path->ctx, path->fids[0], path->fids[1]);
		if (i >= 0)
			return b->edges[i].rec.parent;
	}
	if (!name)
		errno = ENOENT;
	return name;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* A new edge for path p (depth >= 2), its parent named as well as b can. */
static int new_edge(struct ktau_block *b, const struct ktau_path_slot *p)
{
	const struct ktau_path *r = &p->rec;
	struct ktau_edge e = {
		.ctx = r->ctx,
		.parent_fid = r->fids[r->depth - 2],
		.fid = r->fids[r->depth - 1],
		.name = r->name,
		.calls = r->calls,
		.incl_cycles = r->incl_cycles,
		.excl_cycles = r->excl_cycles,
	};
	const char *group;
	char num[16];

	e.parent = ktau__path_element(b, r, r->depth - 2, &group);
	if (!e.parent) {
		snprintf(num, sizeof(num), "%u", e.parent_fid);
		e.parent = ktau__block_intern(b, num, strlen(num));
		if (!e.parent)
			return -ENOMEM;
	}
	return ktau__block_append_edge(b, &e, p->line);
}

static int derive_edges(struct ktau_block *b)
{
	size_t i;
	int ret;

	b->nr_edges = 0;
	for (i = 0; i < b->nr_paths; i++) {
		const struct ktau_path *p = &b->paths[i].rec;
		struct ktau_edge *e;
		ssize_t k;

		if (p->depth < 2)
			continue;
		k = ktau__find_edge_index(b, p->ctx, p->fids[p->depth - 2],
					  p->fids[p->depth - 1]);
		if (k < 0) {
			ret = new_edge(b, &b->paths[i]);
			if (ret)
				return ret;
			continue;
		}
		e = &b->edges[k].rec;
		e->calls = sat_add(e->calls, p->calls);
		e->incl_cycles = sat_add(e->incl_cycles, p->incl_cycles);
		e->excl_cycles = sat_add(e->excl_cycles, p->excl_cycles);
	}
	return 0;
}

static int derive_paths(struct ktau_block *b)
{
	size_t i;

	b->nr_paths = 0;
	for (i = 0; i < b->nr_edges; i++) {
		const struct ktau_edge *e = &b->edges[i].rec;
		const uint32_t fids[2] = { e->parent_fid, e->fid };
		struct ktau_path p = {
			.ctx = e->ctx,
			.depth = 2,
			.name = e->name,
			.group = "-",
			.calls = e->calls,
			.incl_cycles = e->incl_cycles,
			.excl_cycles = e->excl_cycles,
		};

		func_name(b, e->ctx, e->fid, &p.group);
		p.fids = ktau__block_intern_fids(b, fids, 2);
		if (!p.fids || ktau__block_append_path(b, &p, b->edges[i].line))
			return -ENOMEM;
	}
	return 0;
}

int ktau__block_derive(struct ktau_block *b)
{
	return b->edges_own ? derive_paths(b) : derive_edges(b);
}
