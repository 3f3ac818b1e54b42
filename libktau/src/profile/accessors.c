// SPDX-License-Identifier: LGPL-2.1-or-later
/* Read-only views of a profile: header, blocks, records, lookups. */
#include <errno.h>
#include <string.h>

#include "profile/profile.h"

unsigned int ktau_profile_version(const struct ktau_profile *p)
{
	return p->version;
}

uint64_t ktau_profile_tsc_khz(const struct ktau_profile *p)
{
	return p->tsc_khz;
}

enum ktau_scope ktau_profile_scope(const struct ktau_profile *p)
{
	return p->scope;
}

double ktau_profile_usec(const struct ktau_profile *p, uint64_t cycles)
{
	return ktau_cycles_to_usec(cycles, p->tsc_khz);
}

size_t ktau_profile_block_count(const struct ktau_profile *p)
{
	return p->nr_blocks;
}

const struct ktau_block *ktau_profile_block(const struct ktau_profile *p, size_t index)
{
	if (index >= p->nr_blocks) {
		errno = ERANGE;
		return NULL;
	}
	return p->blocks[index];
}

const struct ktau_block *ktau_profile_find_block(const struct ktau_profile *p,
						 enum ktau_block_kind kind,
						 pid_t pid, pid_t tid)
{
	size_t i;

	for (i = 0; i < p->nr_blocks; i++) {
		const struct ktau_block *b = p->blocks[i];

		if (b->kind == kind && b->pid == pid && b->tid == tid)
			return b;
	}
	errno = ENOENT;
	return NULL;
}

enum ktau_block_kind ktau_block_kind(const struct ktau_block *b)
{
	return b->kind;
}

pid_t ktau_block_pid(const struct ktau_block *b)
{
	return b->pid;
}

pid_t ktau_block_tid(const struct ktau_block *b)
{
	return b->tid;
}

const char *ktau_block_comm(const struct ktau_block *b)
{
	return b->comm;
}

uint64_t ktau_block_threads(const struct ktau_block *b)
{
	return b->threads;
}

uint64_t ktau_block_exited_threads(const struct ktau_block *b)
{
	return b->exited_threads;
}

uint64_t ktau_block_processes(const struct ktau_block *b)
{
	return b->processes;
}

uint64_t ktau_block_dropped(const struct ktau_block *b)
{
	return b->dropped;
}

size_t ktau_block_func_count(const struct ktau_block *b)
{
	return b->nr_funcs;
}

const struct ktau_func *ktau_block_func(const struct ktau_block *b, size_t index)
{
	if (index >= b->nr_funcs) {
		errno = ERANGE;
		return NULL;
	}
	return &b->funcs[index].rec;
}

ssize_t ktau__find_func_index(const struct ktau_block *b, uint64_t ctx, uint32_t fid)
{
	size_t i;

	for (i = 0; i < b->nr_funcs; i++)
		if (b->funcs[i].rec.ctx == ctx && b->funcs[i].rec.fid == fid)
			return (ssize_t)i;
	return -1;
}

const struct ktau_func *ktau_block_find_func(const struct ktau_block *b,
					     uint64_t ctx, uint32_t fid)
{
	ssize_t i = ktau__find_func_index(b, ctx, fid);

	if (i < 0) {
		errno = ENOENT;
		return NULL;
	}
	return &b->funcs[i].rec;
}

const struct ktau_func *ktau_block_find_func_by_name(const struct ktau_block *b,
						     uint64_t ctx, const char *name)
{
	size_t i;

	for (i = 0; i < b->nr_funcs; i++)
		if (b->funcs[i].rec.ctx == ctx && !strcmp(b->funcs[i].rec.name, name))
			return &b->funcs[i].rec;
	errno = ENOENT;
	return NULL;
}

size_t ktau_block_edge_count(const struct ktau_block *b)
{
	return b->nr_edges;
}

const struct ktau_edge *ktau_block_edge(const struct ktau_block *b, size_t index)
{
	if (index >= b->nr_edges) {
		errno = ERANGE;
		return NULL;
	}
	return &b->edges[index].rec;
}

ssize_t ktau__find_edge_index(const struct ktau_block *b, uint64_t ctx,
			      uint32_t parent_fid, uint32_t fid)
{
	size_t i;

	for (i = 0; i < b->nr_edges; i++) {
		const struct ktau_edge *e = &b->edges[i].rec;

		if (e->ctx == ctx && e->parent_fid == parent_fid && e->fid == fid)
			return (ssize_t)i;
	}
	return -1;
}

const struct ktau_edge *ktau_block_find_edge(const struct ktau_block *b, uint64_t ctx,
					     uint32_t parent_fid, uint32_t fid)
{
	ssize_t i = ktau__find_edge_index(b, ctx, parent_fid, fid);

	if (i < 0) {
		errno = ENOENT;
		return NULL;
	}
	return &b->edges[i].rec;
}

size_t ktau_block_event_count(const struct ktau_block *b)
{
	return b->nr_events;
}

const struct ktau_event *ktau_block_event(const struct ktau_block *b, size_t index)
{
	if (index >= b->nr_events) {
		errno = ERANGE;
		return NULL;
	}
	return &b->events[index].rec;
}

ssize_t ktau__find_event_index(const struct ktau_block *b, uint64_t ctx, uint32_t fid)
{
	size_t i;

	for (i = 0; i < b->nr_events; i++)
		if (b->events[i].rec.ctx == ctx && b->events[i].rec.fid == fid)
			return (ssize_t)i;
	return -1;
}

const struct ktau_event *ktau_block_find_event(const struct ktau_block *b,
					       uint64_t ctx, uint32_t fid)
{
	ssize_t i = ktau__find_event_index(b, ctx, fid);

	if (i < 0) {
		errno = ENOENT;
		return NULL;
	}
	return &b->events[i].rec;
}

const struct ktau_event *ktau_block_find_event_by_name(const struct ktau_block *b,
						       uint64_t ctx, const char *name)
{
	size_t i;

	for (i = 0; i < b->nr_events; i++)
		if (b->events[i].rec.ctx == ctx && !strcmp(b->events[i].rec.name, name))
			return &b->events[i].rec;
	errno = ENOENT;
	return NULL;
}

uint64_t ktau_block_private(const struct ktau_block *b)
{
	return b->private_processes;
}

uint64_t ktau_block_pending(const struct ktau_block *b)
{
	return b->pending;
}

size_t ktau_block_path_count(const struct ktau_block *b)
{
	return b->nr_paths;
}

const struct ktau_path *ktau_block_path(const struct ktau_block *b, size_t index)
{
	if (index >= b->nr_paths) {
		errno = ERANGE;
		return NULL;
	}
	return &b->paths[index].rec;
}

ssize_t ktau__find_path_index(const struct ktau_block *b, uint64_t ctx,
			      const uint32_t *fids, uint32_t depth)
{
	size_t i;

	for (i = 0; i < b->nr_paths; i++) {
		const struct ktau_path *p = &b->paths[i].rec;

		if (p->ctx == ctx && p->depth == depth &&
		    !memcmp(p->fids, fids, depth * sizeof(*fids)))
			return (ssize_t)i;
	}
	return -1;
}

const struct ktau_path *ktau_block_find_path(const struct ktau_block *b, uint64_t ctx,
					     const uint32_t *fids, uint32_t depth)
{
	ssize_t i = depth && fids ? ktau__find_path_index(b, ctx, fids, depth) : -1;

	if (i < 0) {
		errno = ENOENT;
		return NULL;
	}
	return &b->paths[i].rec;
}

const char *ktau_block_path_element_name(const struct ktau_block *b,
					 const struct ktau_path *path, uint32_t k)
{
	const char *group;

	if (k >= path->depth) {
		errno = ERANGE;
		return NULL;
	}
	return ktau__path_element(b, path, k, &group);
}

size_t ktau_block_open_count(const struct ktau_block *b)
{
	return b->nr_opens;
}

const struct ktau_open *ktau_block_open(const struct ktau_block *b, size_t index)
{
	if (index >= b->nr_opens) {
		errno = ERANGE;
		return NULL;
	}
	return &b->opens[index].rec;
}

const char *ktau_scope_name(enum ktau_scope scope)
{
	switch (scope) {
	case KTAU_SCOPE_THREAD:
		return "thread";
	case KTAU_SCOPE_PROCESS:
		return "process";
	case KTAU_SCOPE_SYSTEM:
		return "system";
	}
	return "unknown";
}

const char *ktau_block_kind_name(enum ktau_block_kind kind)
{
	switch (kind) {
	case KTAU_BLOCK_THREAD:
		return "thread";
	case KTAU_BLOCK_PROCESS:
		return "process";
	case KTAU_BLOCK_EXITED:
		return "exited";
	case KTAU_BLOCK_CHILDREN:
		return "children";
	}
	return "unknown";
}
