// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What the kernel guarantees but the parser does not enforce: a reader
 * should still be able to show a profile a buggy kernel wrote, and tests
 * want to name the broken guarantee.
 */
#include <errno.h>
#include <stdio.h>

#include "profile/profile.h"

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

/* "0,470,469": the fids of a path, shortened to fit. */
static const char *fids_text(const uint32_t *fids, uint32_t depth, char *buf, size_t size)
{
	size_t len = 0;
	uint32_t k;

	buf[0] = '\0';
	for (k = 0; k < depth && len < size; k++)
		len += (size_t)snprintf(buf + len, size - len, "%s%u", k ? "," : "", fids[k]);
	return buf;
}

static int check_path(const struct ktau_block *b, const struct ktau_path_slot *p,
		      struct ktau_parse_error *err)
{
	char text[KTAU_PATH_MAX_DEPTH * 11];
	uint32_t k;

	fids_text(p->rec.fids, p->rec.depth, text, sizeof(text));
	if (!p->rec.depth || p->rec.depth > KTAU_PATH_MAX_DEPTH)
		return ktau__fail(err, EPROTO, p->line, "path of depth %u, expected 1 to %d",
				  p->rec.depth, KTAU_PATH_MAX_DEPTH);
	if (p->rec.excl_cycles > p->rec.incl_cycles)
		return ktau__fail(err, EPROTO, p->line,
				  "path %s: excl_cycles %llu > incl_cycles %llu", text,
				  (unsigned long long)p->rec.excl_cycles,
				  (unsigned long long)p->rec.incl_cycles);
	/* a v1 block's paths are its edges: they have no prefixes */
	for (k = 1; k < p->rec.depth && !b->edges_own; k++)
		if (ktau__find_path_index(b, p->rec.ctx, p->rec.fids, k) < 0)
			return ktau__fail(err, EPROTO, p->line,
					  "path %s (ctx %llu) without its prefix of depth %u",
					  text, (unsigned long long)p->rec.ctx, k);
	return 0;
}

static int check_open(const struct ktau_block *b, const struct ktau_open_slot *o,
		      struct ktau_parse_error *err)
{
	if (b->kind != KTAU_BLOCK_THREAD && b->kind != KTAU_BLOCK_PROCESS)
		return ktau__fail(err, EPROTO, o->line, "open record in a %s block",
				  ktau_block_kind_name(b->kind));
	if (o->rec.excl_cycles > o->rec.incl_cycles)
		return ktau__fail(err, EPROTO, o->line,
				  "open '%s' (tid %d): excl_cycles %llu > incl_cycles %llu",
				  o->rec.name, (int)o->rec.tid,
				  (unsigned long long)o->rec.excl_cycles,
				  (unsigned long long)o->rec.incl_cycles);
	return 0;
}

/* Version 1's rules for edges: they are edge lines there, and the edges
 * into a routine are part of its func record. A v2 block's derived edges
 * count a recursive routine at each level, its func only once. */
static int check_own_edges(const struct ktau_block *b, struct ktau_parse_error *err)
{
	size_t i;
	int ret;

	for (i = 0; i < b->nr_funcs; i++) {
		ret = check_edges_into(b, &b->funcs[i], err);
		if (ret)
			return ret;
	}
	for (i = 0; i < b->nr_edges; i++) {
		const struct ktau_edge_slot *e = &b->edges[i];

		if (ktau__find_func_index(b, e->rec.ctx, e->rec.fid) < 0)
			return ktau__fail(err, EPROTO, e->line,
					  "edge '%s' -> '%s' but no func record for '%s'",
					  e->rec.parent, e->rec.name, e->rec.name);
	}
	return 0;
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
	}
	for (i = 0; b->edges_own && i < b->nr_edges; i++) {
		const struct ktau_edge_slot *e = &b->edges[i];

		if (e->rec.excl_cycles > e->rec.incl_cycles)
			return ktau__fail(err, EPROTO, e->line,
					  "edge '%s' -> '%s': excl_cycles %llu > incl_cycles %llu",
					  e->rec.parent, e->rec.name,
					  (unsigned long long)e->rec.excl_cycles,
					  (unsigned long long)e->rec.incl_cycles);
	}
	ret = b->edges_own ? check_own_edges(b, err) : 0;
	if (ret)
		return ret;
	for (i = 0; i < b->nr_paths; i++) {
		ret = check_path(b, &b->paths[i], err);
		if (ret)
			return ret;
	}
	for (i = 0; i < b->nr_opens; i++) {
		ret = check_open(b, &b->opens[i], err);
		if (ret)
			return ret;
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

int ktau_profile_validate(const struct ktau_profile *p, struct ktau_error **err)
{
	struct ktau_parse_error pe;
	size_t i;
	int ret;

	ktau__clear_error(&pe);
	if (!p)
		return ktau__ret_int(ktau__fail(&pe, EINVAL, 0, "NULL profile"), &pe, err);
	ret = check_scope(p, &pe);
	for (i = 0; i < p->nr_blocks && !ret; i++)
		ret = check_block(p->blocks[i], &pe);
	return ktau__ret_int(ret, &pe, err);
}
