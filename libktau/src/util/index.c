// SPDX-License-Identifier: LGPL-2.1-or-later
/* A string -> size_t hash table: the model's name lookups and the writers'
 * string tables. Keys are borrowed, never copied or freed. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

static size_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 1099511628211ULL;
	}
	return (size_t)(h ^ (h >> 32));
}

static struct ktau_index_slot *probe(struct ktau_index_slot *slots, size_t cap,
				     const char *key)
{
	size_t i = hash_str(key) & (cap - 1);

	while (slots[i].key && strcmp(slots[i].key, key))
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

size_t ktau__index_find(const struct ktau_index *ix, const char *key)
{
	const struct ktau_index_slot *s;

	if (!ix->cap)
		return KTAU_INDEX_NONE;
	s = probe(ix->slots, ix->cap, key);
	return s->key ? s->value : KTAU_INDEX_NONE;
}

static int rehash(struct ktau_index *ix, size_t cap)
{
	struct ktau_index_slot *slots = calloc(cap, sizeof(*slots));
	size_t i;

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < ix->cap; i++)
		if (ix->slots[i].key)
			*probe(slots, cap, ix->slots[i].key) = ix->slots[i];
	free(ix->slots);
	ix->slots = slots;
	ix->cap = cap;
	return 0;
}

int ktau__index_put(struct ktau_index *ix, const char *key, size_t value)
{
	struct ktau_index_slot *s;

	/* keep the load at most one half */
	if ((ix->used + 1) * 2 > ix->cap) {
		size_t cap = ix->cap ? ix->cap * 2 : 16;
		int ret;

		if (cap < ix->cap || cap > SIZE_MAX / sizeof(*s))
			return -ENOMEM;
		ret = rehash(ix, cap);
		if (ret)
			return ret;
	}
	s = probe(ix->slots, ix->cap, key);
	if (!s->key)
		ix->used++;
	s->key = key;
	s->value = value;
	return 0;
}

void ktau__index_free(struct ktau_index *ix)
{
	free(ix->slots);
	ix->slots = NULL;
	ix->cap = ix->used = 0;
}
