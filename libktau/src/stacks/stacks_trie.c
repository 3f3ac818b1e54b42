// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The stacks' trie: identical stacks share one leaf, stacks with a common
 * root share their prefix, so every count the model needs (per stack, per
 * prefix) is a node's, and a million perf samples of a hundred distinct
 * stacks take a hundred nodes' room.
 */
#include <errno.h>
#include <stdlib.h>

#include "stacks/stacks.h"

static uint64_t child_key(uint32_t parent, uint32_t frame)
{
	/* + 1: a key is never 0, the empty slot (neither index is UINT32_MAX) */
	return ((uint64_t)parent << 32 | frame) + 1;
}

static size_t child_slot(const struct ktau_child_table *t, uint64_t key)
{
	size_t i = (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 20) & (t->cap - 1);

	while (t->keys[i] && t->keys[i] != key)
		i = (i + 1) & (t->cap - 1);
	return i;
}

/* Keeps the table at most half full; 0 or -ENOMEM. */
static int child_table_reserve(struct ktau_child_table *t)
{
	struct ktau_child_table bigger;
	size_t i;

	if ((t->used + 1) * 2 <= t->cap)
		return 0;
	bigger.cap = t->cap ? t->cap * 2 : 64;
	bigger.used = t->used;
	bigger.keys = calloc(bigger.cap, sizeof(*bigger.keys));
	bigger.nodes = malloc(bigger.cap * sizeof(*bigger.nodes));
	if (!bigger.keys || !bigger.nodes || bigger.cap < t->cap) {
		free(bigger.keys);
		free(bigger.nodes);
		return -ENOMEM;
	}
	for (i = 0; i < t->cap; i++) {
		if (t->keys[i]) {
			size_t j = child_slot(&bigger, t->keys[i]);

			bigger.keys[j] = t->keys[i];
			bigger.nodes[j] = t->nodes[i];
		}
	}
	free(t->keys);
	free(t->nodes);
	*t = bigger;
	return 0;
}

static uint32_t new_node(struct ktau_stacks *s, uint32_t parent, uint32_t frame)
{
	struct ktau_stack_node *n;

	if (s->nr_nodes >= UINT32_MAX - 1 ||
	    ktau__grow((void **)&s->nodes, &s->cap_nodes, s->nr_nodes, sizeof(*s->nodes)))
		return KTAU_STACK_NONE;
	n = &s->nodes[s->nr_nodes];
	*n = (struct ktau_stack_node){ frame, parent, KTAU_STACK_NONE, KTAU_STACK_NONE,
				       KTAU_STACK_NONE, 0, 0 };
	return (uint32_t)s->nr_nodes++;
}

/* parent's child for frame, created when new; KTAU_STACK_NONE: ENOMEM. */
static uint32_t child(struct ktau_stacks *s, uint32_t parent, uint32_t frame)
{
	uint64_t key = child_key(parent, frame);
	struct ktau_child_table *t = &s->children;
	uint32_t n;
	size_t i;

	if (t->cap) {
		i = child_slot(t, key);
		if (t->keys[i])
			return t->nodes[i];
	}
	if (child_table_reserve(t))
		return KTAU_STACK_NONE;
	n = new_node(s, parent, frame);
	if (n == KTAU_STACK_NONE)
		return n;
	if (s->nodes[parent].last_child == KTAU_STACK_NONE)
		s->nodes[parent].first_child = n;
	else
		s->nodes[s->nodes[parent].last_child].next_sibling = n;
	s->nodes[parent].last_child = n;
	i = child_slot(t, key);
	t->keys[i] = key;
	t->nodes[i] = n;
	t->used++;
	return n;
}

int ktau__stacks_add_root(struct ktau_stacks *s)
{
	return new_node(s, KTAU_STACK_NONE, KTAU_STACK_NONE) == 0 ? 0 : -ENOMEM;
}

int ktau__stacks_commit(struct ktau_stacks *s, uint64_t count, unsigned int line,
			struct ktau_parse_error *err)
{
	uint64_t total;
	uint32_t node = 0;
	size_t i;

	if (__builtin_add_overflow(s->samples, s->empty_samples, &total) ||
	    __builtin_add_overflow(total, count, &total))
		return ktau__fail(err, EOVERFLOW, line,
				  "the sample counts add up to more than 2^64");
	if (!count) {
		s->nr_pending = 0;
		return 0;
	}
	if (!s->nr_pending) {
		s->empty_samples += count;
		return 0;
	}
	for (i = s->nr_pending; i-- > 0;) {
		node = child(s, node, s->pending[i]);
		if (node == KTAU_STACK_NONE)
			return ktau__fail(err, ENOMEM, line, "out of memory");
	}
	if (!s->nodes[node].excl)
		s->nr_stacks++;
	s->nodes[node].excl += count;
	for (; node != KTAU_STACK_NONE; node = s->nodes[node].parent)
		s->nodes[node].incl += count;
	s->samples += count;
	s->nr_pending = 0;
	return 0;
}

int ktau__stacks_walk(const struct ktau_stacks *s, ktau_stack_node_fn fn, void *arg)
{
	const char **path;
	size_t depth = 0;
	uint32_t n;
	int ret = 0;

	if (s->nr_nodes < 2)
		return 0;
	path = malloc(KTAU_STACKS_MAX_DEPTH * sizeof(*path));
	if (!path)
		return -ENOMEM;
	n = s->nodes[0].first_child;
	while (n != KTAU_STACK_NONE) {
		path[depth++] = s->frames[s->nodes[n].frame].name;
		ret = fn(arg, &s->nodes[n], path, depth);
		if (ret)
			break;
		if (s->nodes[n].first_child != KTAU_STACK_NONE) {
			n = s->nodes[n].first_child;
			continue;
		}
		/* up to the nearest ancestor with a next sibling */
		for (;;) {
			depth--;
			if (s->nodes[n].next_sibling != KTAU_STACK_NONE) {
				n = s->nodes[n].next_sibling;
				break;
			}
			n = s->nodes[n].parent;
			if (n == 0) {
				n = KTAU_STACK_NONE;
				break;
			}
		}
	}
	free(path);
	return ret;
}
