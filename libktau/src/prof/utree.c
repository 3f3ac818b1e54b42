// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One thread's callpath tree and timer stack: what every timer start and
 * stop runs, so no locks and no system calls here. Only the owning thread
 * writes; a snapshot may read from another thread, hence the relaxed
 * atomics (plain moves on x86) and nodes that never move.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prof/prof.h"

#define LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define ADD(p, v) STORE((p), LOAD(p) + (v))

int ktau__ut_init(struct ktau_ut_tree *t)
{
	memset(t, 0, sizeof(*t));
	t->roots.last_timer = KTAU_UT_NONE;
	t->stack = calloc(KTAU_UT_MAX_DEPTH, sizeof(*t->stack));
	return t->stack ? 0 : -ENOMEM;
}

void ktau__ut_free(struct ktau_ut_tree *t)
{
	size_t i;

	for (i = 0; i < KTAU_UT_MAX_CHUNKS && t->chunks[i]; i++)
		free(t->chunks[i]);
	free(t->stack);
	ktau__u64map_free(&t->children);
	memset(t, 0, sizeof(*t));
}

static struct ktau_ut_node *node_at(const struct ktau_ut_tree *t, uint32_t index)
{
	return &t->chunks[index >> KTAU_UT_CHUNK_SHIFT][index & (KTAU_UT_CHUNK - 1)];
}

/* A new node (timer under parent); KTAU_UT_NONE when out of room. */
static uint32_t new_node(struct ktau_ut_tree *t, uint32_t parent, uint32_t timer)
{
	uint32_t index = t->nr_nodes, chunk = index >> KTAU_UT_CHUNK_SHIFT;
	uint64_t key = (uint64_t)(parent + 1) << 32 | timer;
	struct ktau_ut_node *n;

	if (chunk >= KTAU_UT_MAX_CHUNKS)
		return KTAU_UT_NONE;
	if (!t->chunks[chunk]) {
		t->chunks[chunk] = calloc(KTAU_UT_CHUNK, sizeof(struct ktau_ut_node));
		if (!t->chunks[chunk])
			return KTAU_UT_NONE;
	}
	if (ktau__u64map_put(&t->children, key, index))
		return KTAU_UT_NONE;
	n = node_at(t, index);
	n->timer = timer;
	n->parent = parent;
	n->last_timer = KTAU_UT_NONE;
	__atomic_store_n(&t->nr_nodes, index + 1, __ATOMIC_RELEASE);
	return index;
}

static uint32_t child_of(struct ktau_ut_tree *t, struct ktau_ut_node *p, uint32_t parent,
			 uint32_t timer)
{
	uint32_t index;

	if (p->last_timer == timer)
		return p->last_child;
	index = ktau__u64map_get(&t->children, (uint64_t)(parent + 1) << 32 | timer);
	if (index == KTAU_U64MAP_NONE)
		index = new_node(t, parent, timer);
	if (index != KTAU_UT_NONE) {
		p->last_timer = timer;
		p->last_child = index;
	}
	return index;
}

struct ktau_ut_frame *ktau__ut_push(struct ktau_ut_tree *t, uint32_t timer)
{
	uint32_t depth = t->depth, index;
	struct ktau_ut_frame *f;

	if (t->overflow || depth == KTAU_UT_MAX_DEPTH)
		goto not_recorded;
	f = &t->stack[depth];
	index = depth ? child_of(t, f[-1].n, f[-1].node, timer)
		      : child_of(t, &t->roots, KTAU_UT_NONE, timer);
	if (index == KTAU_UT_NONE)
		goto not_recorded;
	STORE(&f->node, index);
	f->timer = timer;
	f->n = node_at(t, index);
	STORE(&f->start, 0);
	STORE(&f->child, 0);
	__atomic_store_n(&t->depth, depth + 1, __ATOMIC_RELEASE);
	return f;
not_recorded:
	t->overflow++;
	t->dropped++;
	return NULL;
}

void ktau__ut_set_start(struct ktau_ut_frame *f, uint64_t now)
{
	STORE(&f->start, now);
}

/* Cycles from start to now; 0 when unknown or the clock went backwards
 * (TSCs of two CPUs a few cycles apart). */
static uint64_t elapsed(uint64_t start, uint64_t now)
{
	return start && now > start ? now - start : 0;
}

static void pop_one(struct ktau_ut_tree *t, uint64_t now)
{
	uint32_t depth = t->depth - 1;
	struct ktau_ut_frame *f = &t->stack[depth];
	struct ktau_ut_node *n = f->n;
	uint64_t d = elapsed(f->start, now);

	/* unpublish the frame first: a snapshot may then miss this call
	 * for a moment, but never counts it twice */
	__atomic_store_n(&t->depth, depth, __ATOMIC_RELEASE);
	ADD(&n->calls, 1);
	ADD(&n->incl, d);
	ADD(&n->excl, d > f->child ? d - f->child : 0);
	if (depth) {
		ADD(&f[-1].child, d);
		ADD(&f[-1].n->subrs, 1);
	}
}

/* The depth a stop of timer leaves (STOP_UNRECORDED: it stops a frame
 * that was not recorded), the context id then in *ctx; -EINVAL when timer
 * is not running. Changes nothing. */
#define STOP_UNRECORDED (-1)

static inline __attribute__((always_inline)) int stop_find(const struct ktau_ut_tree *t,
							 uint32_t timer, uint32_t *ctx)
{
	uint32_t i = t->depth;

	if (t->overflow) {
		*ctx = ktau__ut_context(t);
		return STOP_UNRECORDED;
	}
	while (i > 0 && t->stack[i - 1].timer != timer)
		i--;
	if (!i)
		return -EINVAL;
	*ctx = i > 1 ? t->stack[i - 2].node + 1 : 0;
	return (int)i - 1;
}

static inline __attribute__((always_inline)) void stop_at(struct ktau_ut_tree *t, int depth,
							  uint64_t now)
{
	if (depth == STOP_UNRECORDED) {
		t->overflow--;
		return;
	}
	while (t->depth > (uint32_t)depth)
		pop_one(t, now);
}

int ktau__ut_stop(struct ktau_ut_tree *t, uint32_t timer, volatile uint32_t *word,
		  uint64_t *now)
{
	uint32_t ctx;
	int depth = stop_find(t, timer, &ctx);
	uint64_t clock;

	if (depth == -EINVAL)
		return depth;
	clock = ktau__cycles();
	*word = ctx;
	stop_at(t, depth, clock);
	*now = clock;
	return 0;
}

int ktau__ut_pop(struct ktau_ut_tree *t, uint32_t timer, uint64_t now)
{
	uint32_t ctx;
	int depth = stop_find(t, timer, &ctx);

	if (depth == -EINVAL)
		return depth;
	stop_at(t, depth, now);
	return 0;
}

uint32_t ktau__ut_context(const struct ktau_ut_tree *t)
{
	return t->depth ? t->stack[t->depth - 1].node + 1 : 0;
}

struct ktau_ut_sample *ktau__ut_snapshot(const struct ktau_ut_tree *t, uint64_t now,
					 size_t *count)
{
	uint32_t n = __atomic_load_n(&t->nr_nodes, __ATOMIC_ACQUIRE);
	uint32_t depth = __atomic_load_n(&t->depth, __ATOMIC_ACQUIRE), i;
	struct ktau_ut_sample *s = calloc(n ? n : 1, sizeof(*s));
	uint64_t above = 0;

	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < n; i++) {
		const struct ktau_ut_node *node = node_at(t, i);

		s[i] = (struct ktau_ut_sample){
			.timer = node->timer,
			.parent = node->parent,
			.calls = LOAD(&node->calls),
			.subrs = LOAD(&node->subrs),
			.incl = LOAD(&node->incl),
			.excl = LOAD(&node->excl),
		};
	}
	/* open frames, innermost first: each excludes the one above it */
	for (i = depth; i-- > 0;) {
		const struct ktau_ut_frame *f = &t->stack[i];
		uint32_t index = LOAD(&f->node);
		uint64_t d = elapsed(LOAD(&f->start), now), child = LOAD(&f->child) + above;

		if (index >= n)
			continue;	/* pushed after the node count was read */
		s[index].calls++;
		s[index].incl += d;
		s[index].excl += d > child ? d - child : 0;
		if (i && s[index].parent < n)
			s[s[index].parent].subrs++;
		above = d;
	}
	*count = n;
	return s;
}
