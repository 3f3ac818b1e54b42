// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What the kernel guarantees but the parser does not enforce: a reader
 * should still be able to show a profile a buggy kernel wrote, and tests
 * want to name the broken guarantee.
 */
#include <errno.h>

#include "internal.h"

static int check_scope(const struct ktau_profile *p, struct ktau_parse_error *err)
{
	size_t i;

	if (p->scope == KTAU_SCOPE_THREAD && p->nr_blocks != 1)
		return ktau__fail(err, EPROTO, 0,
				  "thread scope with %zu blocks, expected 1", p->nr_blocks);
	for (i = 0; i < p->nr_blocks; i++) {
		const struct ktau_block *b = p->blocks[i];
		int ok;

		switch (p->scope) {
		case KTAU_SCOPE_THREAD:
			ok = b->kind == KTAU_BLOCK_THREAD;
			break;
		case KTAU_SCOPE_PROCESS:
			ok = b->kind == KTAU_BLOCK_PROCESS || b->kind == KTAU_BLOCK_CHILDREN;
			break;
		default:
			ok = b->kind != KTAU_BLOCK_PROCESS;
			break;
		}
		if (!ok)
			return ktau__fail(err, EPROTO, b->line, "a %s block in a %s profile",
					  ktau_block_kind_name(b->kind),
					  ktau_scope_name(p->scope));
	}
	return 0;
}

static int check_edges_into(const struct ktau_block *b, const struct ktau_func_slot *f,
			    struct ktau_parse_error *err)
{
	uint64_t calls = 0, incl = 0;
	size_t i;

	for (i = 0; i < b->nr_edges; i++) {
		const struct ktau_edge *e = &b->edges[i].rec;

		if (e->ctx != f->rec.ctx || e->fid != f->rec.fid)
			continue;
		/* a wrapped sum is itself a violation: edges cannot exceed
		 * a 64-bit func total */
		if (calls + e->calls < calls || incl + e->incl_cycles < incl)
			goto too_much;
		calls += e->calls;
		incl += e->incl_cycles;
	}
	if (calls <= f->rec.calls && incl <= f->rec.incl_cycles)
		return 0;
too_much:
	return ktau__fail(err, EPROTO, f->line,
			  "the edges into '%s' (ctx %llu) add up to more than its func record",
			  f->rec.name, (unsigned long long)f->rec.ctx);
}

static int check_block(const struct ktau_block *b, struct ktau_parse_error *err)
{
	size_t i;
	int ret;

	for (i = 0; i < b->nr_funcs; i++) {
		const struct ktau_func_slot *f = &b->funcs[i];

		if (f->rec.excl_cycles > f->rec.incl_cycles)
			return ktau__fail(err, EPROTO, f->line,
					  "func '%s': excl_cycles %llu > incl_cycles %llu",
					  f->rec.name,
					  (unsigned long long)f->rec.excl_cycles,
					  (unsigned long long)f->rec.incl_cycles);
		ret = check_edges_into(b, f, err);
		if (ret)
			return ret;
	}
	for (i = 0; i < b->nr_edges; i++) {
		const struct ktau_edge_slot *e = &b->edges[i];

		if (e->rec.excl_cycles > e->rec.incl_cycles)
			return ktau__fail(err, EPROTO, e->line,
					  "edge '%s' -> '%s': excl_cycles %llu > incl_cycles %llu",
					  e->rec.parent, e->rec.name,
					  (unsigned long long)e->rec.excl_cycles,
					  (unsigned long long)e->rec.incl_cycles);
		if (ktau__find_func_index(b, e->rec.ctx, e->rec.fid) < 0)
			return ktau__fail(err, EPROTO, e->line,
					  "edge '%s' -> '%s' but no func record for '%s'",
					  e->rec.parent, e->rec.name, e->rec.name);
	}
	for (i = 0; i < b->nr_events; i++) {
		const struct ktau_event_slot *ev = &b->events[i];

		if (!ev->rec.count)
			return ktau__fail(err, EPROTO, ev->line,
					  "event '%s' with count 0", ev->rec.name);
		if (ev->rec.min > ev->rec.max)
			return ktau__fail(err, EPROTO, ev->line,
					  "event '%s': min %llu > max %llu", ev->rec.name,
					  (unsigned long long)ev->rec.min,
					  (unsigned long long)ev->rec.max);
	}
	return 0;
}

int ktau_profile_validate(const struct ktau_profile *p, struct ktau_parse_error *err)
{
	size_t i;
	int ret;

	ktau__clear_error(err);
	if (!p)
		return ktau__fail(err, EINVAL, 0, "NULL profile");
	ret = check_scope(p, err);
	for (i = 0; i < p->nr_blocks && !ret; i++)
		ret = check_block(p->blocks[i], err);
	return ret;
}
