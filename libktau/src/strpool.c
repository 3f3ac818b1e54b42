// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Names are copied once into large chunks owned by their profile, so that
 * record structs can hold plain const char * and freeing a profile is a
 * handful of free() calls, not one per name.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define CHUNK_SIZE 4096

struct ktau_strchunk {
	struct ktau_strchunk *next;
	size_t used;
	size_t size;
	char data[];
};

const char *ktau__strpool_add(struct ktau_strpool *pool, const char *s, size_t len)
{
	struct ktau_strchunk *c = pool->chunks;
	char *out;

	if (!c || c->size - c->used < len + 1) {
		size_t size = len + 1 > CHUNK_SIZE ? len + 1 : CHUNK_SIZE;

		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->used = 0;
		c->size = size;
		/* a big one-off string goes behind the current chunk so the
		 * current chunk's free space is not abandoned */
		if (pool->chunks && size > CHUNK_SIZE) {
			c->next = pool->chunks->next;
			pool->chunks->next = c;
		} else {
			c->next = pool->chunks;
			pool->chunks = c;
		}
	}
	out = c->data + c->used;
	memcpy(out, s, len);
	out[len] = '\0';
	c->used += len + 1;
	return out;
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
