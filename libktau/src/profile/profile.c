// SPDX-License-Identifier: LGPL-2.1-or-later
/* The profile object: construction, copying, freeing. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"

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
	free(b->paths);
	free(b->opens);
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

/* Room for one more slot of size bytes at the end of *items; NULL when
 * out of memory. */
static void *new_slot(void **items, size_t *cap, size_t *count, size_t size)
{
	if (ktau__grow(items, cap, *count, size))
		return NULL;
	return (char *)*items + (*count)++ * size;
}

#define APPEND(b, array, rec, line)					\
	({								\
		__typeof__((b)->array) slot_ =				\
			new_slot((void **)&(b)->array, &(b)->cap_##array, \
				 &(b)->nr_##array, sizeof(*slot_));	\
		if (slot_) {						\
			slot_->rec = *(rec);				\
			slot_->line = (line);				\
		}							\
		slot_ ? 0 : -ENOMEM;					\
	})

int ktau__block_append_func(struct ktau_block *b, const struct ktau_func *rec,
			    unsigned int line)
{
	return APPEND(b, funcs, rec, line);
}

int ktau__block_append_edge(struct ktau_block *b, const struct ktau_edge *rec,
			    unsigned int line)
{
	return APPEND(b, edges, rec, line);
}

int ktau__block_append_event(struct ktau_block *b, const struct ktau_event *rec,
			     unsigned int line)
{
	return APPEND(b, events, rec, line);
}

int ktau__block_append_path(struct ktau_block *b, const struct ktau_path *rec,
			    unsigned int line)
{
	return APPEND(b, paths, rec, line);
}

int ktau__block_append_open(struct ktau_block *b, const struct ktau_open *rec,
			    unsigned int line)
{
	return APPEND(b, opens, rec, line);
}

const uint32_t *ktau__block_intern_fids(struct ktau_block *b, const uint32_t *fids,
					uint32_t depth)
{
	uint32_t *copy = ktau__strpool_alloc(&b->owner->strings, depth * sizeof(*fids));

	if (copy)
		memcpy(copy, fids, depth * sizeof(*fids));
	return copy;
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

/* A callpath record's fids and names copied into dst's profile. */
static int intern_callpath(struct ktau_block *dst, const uint32_t **fids, uint32_t depth,
			   const char **name, const char **group)
{
	*fids = ktau__block_intern_fids(dst, *fids, depth);
	*name = intern(dst, *name);
	*group = intern(dst, *group);
	return *fids && *name && *group ? 0 : -ENOMEM;
}

int ktau__block_copy_path(struct ktau_block *dst, const struct ktau_path *src,
			  unsigned int line)
{
	struct ktau_path rec = *src;

	if (intern_callpath(dst, &rec.fids, rec.depth, &rec.name, &rec.group))
		return -ENOMEM;
	return ktau__block_append_path(dst, &rec, line);
}

int ktau__block_copy_open(struct ktau_block *dst, const struct ktau_open *src,
			  unsigned int line)
{
	struct ktau_open rec = *src;

	if (intern_callpath(dst, &rec.fids, rec.depth, &rec.name, &rec.group))
		return -ENOMEM;
	return ktau__block_append_open(dst, &rec, line);
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
	for (i = 0; i < src->nr_paths; i++) {
		ret = ktau__block_copy_path(dst, &src->paths[i].rec, src->paths[i].line);
		if (ret)
			return ret;
	}
	for (i = 0; i < src->nr_opens; i++) {
		ret = ktau__block_copy_open(dst, &src->opens[i].rec, src->opens[i].line);
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
	b->private_processes = src->private_processes;
	b->pending = src->pending;
	b->line = src->line;
	b->edges_own = src->edges_own;
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
