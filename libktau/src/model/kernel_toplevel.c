// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Which part of each kernel routine was entered straight from user mode:
 * a v2 block's one-element paths, or a v1 func record minus the edges into
 * it. That part is what a user routine's context "called"; the rest ran
 * nested in other kernel routines.
 */
#include <errno.h>
#include <stdlib.h>

#include "model/model.h"

struct sums {
	uint64_t calls, incl, excl;
};

/* Contexts are 32-bit ids; a record with a larger one matches nothing. */
static bool record_key(uint64_t ctx, uint32_t fid, uint64_t *key)
{
	*key = ctx << 32 | fid;
	return ctx <= UINT32_MAX;
}

static uint64_t minus(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static int from_paths(const struct ktau_block *b, ktau_toplevel_fn fn, void *arg)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < b->nr_paths && !ret; i++) {
		const struct ktau_path *p = &b->paths[i].rec;
		struct ktau_toplevel tl = {
			.ctx = p->ctx,
			.name = p->name,
			.group = p->group,
			.calls = p->calls,
			.incl = p->incl_cycles,
			.excl = p->excl_cycles,
		};

		if (p->depth == 1)
			ret = fn(arg, &tl);
	}
	return ret;
}

static int from_edges(const struct ktau_block *b, ktau_toplevel_fn fn, void *arg)
{
	size_t i, n = ktau_block_func_count(b);
	struct ktau_u64map by_key = { 0 };
	struct sums *in = calloc(n ? n : 1, sizeof(*in));
	uint64_t key;
	int ret = 0;

	if (!in)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++) {
		const struct ktau_func *f = ktau_block_func(b, i);

		if (record_key(f->ctx, f->fid, &key))
			ret = ktau__u64map_put(&by_key, key, (uint32_t)i);
	}
	for (i = 0; i < ktau_block_edge_count(b) && !ret; i++) {
		const struct ktau_edge *e = ktau_block_edge(b, i);
		uint32_t j;

		if (!record_key(e->ctx, e->fid, &key))
			continue;
		j = ktau__u64map_get(&by_key, key);
		if (j == KTAU_U64MAP_NONE)
			continue;
		in[j].calls += e->calls;
		in[j].incl += e->incl_cycles;
		in[j].excl += e->excl_cycles;
	}
	for (i = 0; i < n && !ret; i++) {
		const struct ktau_func *f = ktau_block_func(b, i);
		struct ktau_toplevel tl = {
			.ctx = f->ctx,
			.name = f->name,
			.group = f->group,
			.calls = minus(f->calls, in[i].calls),
			.incl = minus(f->incl_cycles, in[i].incl),
			.excl = minus(f->excl_cycles, in[i].excl),
		};

		ret = fn(arg, &tl);
	}
	ktau__u64map_free(&by_key);
	free(in);
	return ret;
}

int ktau__kernel_toplevel(const struct ktau_block *b, ktau_toplevel_fn fn, void *arg)
{
	return b->edges_own ? from_edges(b, fn, arg) : from_paths(b, fn, arg);
}
