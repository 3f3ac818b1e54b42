// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Names are copied once into large chunks owned by their profile, so that
 * record structs can hold plain const char * and freeing a profile is a
 * handful of free() calls, not one per name.
 */
#include <stdint.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

#define CHUNK_SIZE 4096

struct ktau_strchunk {
	struct ktau_strchunk *next;
	size_t used;
	size_t size;
	_Alignas(max_align_t) char data[];
};

/* size bytes at an offset that is a multiple of align in a chunk, whose
 * data start is aligned for any scalar */
static char *pool_take(struct ktau_strpool *pool, size_t size, size_t align)
{
	struct ktau_strchunk *c = pool->chunks;
	size_t start = c ? (c->used + align - 1) / align * align : 0;

	if (!c || start > c->size || c->size - start < size) {
		size_t chunk = size > CHUNK_SIZE ? size : CHUNK_SIZE;

		c = malloc(sizeof(*c) + chunk);
		if (!c)
			return NULL;
		c->used = 0;
		c->size = chunk;
		start = 0;
		/* a big one-off string goes behind the current chunk so the
		 * current chunk's free space is not abandoned */
		if (pool->chunks && chunk > CHUNK_SIZE) {
			c->next = pool->chunks->next;
			pool->chunks->next = c;
		} else {
			c->next = pool->chunks;
			pool->chunks = c;
		}
	}
	c->used = start + size;
	return c->data + start;
}

const char *ktau__strpool_add(struct ktau_strpool *pool, const char *s, size_t len)
{
	char *out = pool_take(pool, len + 1, 1);

	if (!out)
		return NULL;
	memcpy(out, s, len);
	out[len] = '\0';
	return out;
}

void *ktau__strpool_alloc(struct ktau_strpool *pool, size_t size)
{
	return pool_take(pool, size ? size : 1, _Alignof(max_align_t));
}

void ktau__strpool_free(struct ktau_strpool *pool)
{
	struct ktau_strchunk *c = pool->chunks;

	while (c) {
		struct ktau_strchunk *next = c->next;

		free(c);
		c = next;
	}
	pool->chunks = NULL;
}

int ktau__grow(void **items, size_t *cap, size_t count, size_t size)
{
	size_t new_cap;
	void *p;

	if (count < *cap)
		return 0;
	new_cap = *cap ? *cap * 2 : 16;
	if (new_cap < *cap || new_cap > SIZE_MAX / size)
		return -ENOMEM;
	p = realloc(*items, new_cap * size);
	if (!p)
		return -ENOMEM;
	*items = p;
	*cap = new_cap;
	return 0;
}
