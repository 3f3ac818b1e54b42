// SPDX-License-Identifier: LGPL-2.1-or-later
/* The profile object: construction, copying, freeing. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct ktau_profile *ktau_profile_new(enum ktau_scope scope, uint64_t tsc_khz)
{
	struct ktau_profile *p;

	if (scope < KTAU_SCOPE_THREAD || scope > KTAU_SCOPE_SYSTEM) {
		errno = EINVAL;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->version = KTAU_PROFILE_FORMAT_VERSION;
	p->scope = scope;
	p->tsc_khz = tsc_khz;
	return p;
}

static void block_free(struct ktau_block *b)
{
	free(b->funcs);
	free(b->edges);
	free(b->events);
	free(b);
}

void ktau_profile_free(struct ktau_profile *p)
{
	size_t i;
	int saved = errno;

	if (!p)
		return;
	for (i = 0; i < p->nr_blocks; i++)
		block_free(p->blocks[i]);
	free(p->blocks);
	ktau__strpool_free(&p->strings);
	free(p);
	/* freeing on an error path must not clobber the caller's errno */
	errno = saved;
}

struct ktau_block *ktau__profile_append_block(struct ktau_profile *p,
					      enum ktau_block_kind kind,
					      pid_t pid, pid_t tid,
					      const char *comm, size_t comm_len)
{
	struct ktau_block *b;

	if (ktau__grow((void **)&p->blocks, &p->cap_blocks, p->nr_blocks,
		       sizeof(*p->blocks))) {
		errno = ENOMEM;
		return NULL;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->comm = ktau__strpool_add(&p->strings, comm, comm_len);
	if (!b->comm) {
		free(b);
		errno = ENOMEM;
		return NULL;
	}
	b->owner = p;
	b->kind = kind;
	b->pid = pid;
	b->tid = tid;
	p->blocks[p->nr_blocks++] = b;
	return b;
}

struct ktau_block *ktau_profile_add_block(struct ktau_profile *p,
					  enum ktau_block_kind kind,
					  pid_t pid, pid_t tid, const char *comm)
{
	if (!p || kind < KTAU_BLOCK_THREAD || kind > KTAU_BLOCK_CHILDREN) {
		errno = EINVAL;
		return NULL;
	}
	if (!comm)
		comm = "-";
	return ktau__profile_append_block(p, kind, pid, tid, comm, strlen(comm));
}

const char *ktau__block_intern(struct ktau_block *b, const char *s, size_t len)
{
	return ktau__strpool_add(&b->owner->strings, s, len);
}

static const char *intern(struct ktau_block *b, const char *s)
{
	return ktau__block_intern(b, s, strlen(s));
}

int ktau__block_append_func(struct ktau_block *b, const struct ktau_func *rec,
			    unsigned int line)
{
	struct ktau_func_slot *slot;

	if (ktau__grow((void **)&b->funcs, &b->cap_funcs, b->nr_funcs,
		       sizeof(*b->funcs)))
		return -ENOMEM;
	slot = &b->funcs[b->nr_funcs];
	slot->rec = *rec;
	slot->line = line;
	b->nr_funcs++;
	return 0;
}

int ktau__block_append_edge(struct ktau_block *b, const struct ktau_edge *rec,
			    unsigned int line)
{
	struct ktau_edge_slot *slot;

	if (ktau__grow((void **)&b->edges, &b->cap_edges, b->nr_edges,
		       sizeof(*b->edges)))
		return -ENOMEM;
	slot = &b->edges[b->nr_edges];
	slot->rec = *rec;
	slot->line = line;
	b->nr_edges++;
	return 0;
}

int ktau__block_append_event(struct ktau_block *b, const struct ktau_event *rec,
			     unsigned int line)
{
	struct ktau_event_slot *slot;

	if (ktau__grow((void **)&b->events, &b->cap_events, b->nr_events,
		       sizeof(*b->events)))
		return -ENOMEM;
	slot = &b->events[b->nr_events];
	slot->rec = *rec;
	slot->line = line;
	b->nr_events++;
	return 0;
}

int ktau__block_copy_func(struct ktau_block *dst, const struct ktau_func *src,
			  unsigned int line)
{
	struct ktau_func rec = *src;

	rec.name = intern(dst, src->name);
	rec.group = intern(dst, src->group);
	if (!rec.name || !rec.group)
		return -ENOMEM;
	return ktau__block_append_func(dst, &rec, line);
}

int ktau__block_copy_edge(struct ktau_block *dst, const struct ktau_edge *src,
			  unsigned int line)
{
	struct ktau_edge rec = *src;

	rec.parent = intern(dst, src->parent);
	rec.name = intern(dst, src->name);
	if (!rec.parent || !rec.name)
		return -ENOMEM;
	return ktau__block_append_edge(dst, &rec, line);
}

int ktau__block_copy_event(struct ktau_block *dst, const struct ktau_event *src,
			   unsigned int line)
{
	struct ktau_event rec = *src;

	rec.name = intern(dst, src->name);
	if (!rec.name)
		return -ENOMEM;
	return ktau__block_append_event(dst, &rec, line);
}

int ktau__block_copy_records(struct ktau_block *dst, const struct ktau_block *src)
{
	size_t i;
	int ret;

	for (i = 0; i < src->nr_funcs; i++) {
		ret = ktau__block_copy_func(dst, &src->funcs[i].rec, src->funcs[i].line);
		if (ret)
			return ret;
	}
	for (i = 0; i < src->nr_edges; i++) {
		ret = ktau__block_copy_edge(dst, &src->edges[i].rec, src->edges[i].line);
		if (ret)
			return ret;
	}
	for (i = 0; i < src->nr_events; i++) {
		ret = ktau__block_copy_event(dst, &src->events[i].rec,
					     src->events[i].line);
		if (ret)
			return ret;
	}
	return 0;
}

struct ktau_block *ktau__profile_clone_block(struct ktau_profile *dst,
					     const struct ktau_block *src)
{
	struct ktau_block *b;

	b = ktau__profile_append_block(dst, src->kind, src->pid, src->tid,
				       src->comm, strlen(src->comm));
	if (!b)
		return NULL;
	b->threads = src->threads;
	b->exited_threads = src->exited_threads;
	b->processes = src->processes;
	b->dropped = src->dropped;
	b->line = src->line;
	if (ktau__block_copy_records(b, src)) {
		errno = ENOMEM;
		return NULL;
	}
	return b;
}

struct ktau_profile *ktau_profile_dup(const struct ktau_profile *src)
{
	struct ktau_profile *p;
	size_t i;

	if (!src) {
		errno = EINVAL;
		return NULL;
	}
	p = ktau_profile_new(src->scope, src->tsc_khz);
	if (!p)
		return NULL;
	p->version = src->version;
	for (i = 0; i < src->nr_blocks; i++) {
		if (!ktau__profile_clone_block(p, src->blocks[i])) {
			ktau_profile_free(p);
			errno = ENOMEM;
			return NULL;
		}
	}
	return p;
}
