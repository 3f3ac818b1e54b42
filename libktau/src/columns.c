// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Record lines are positional, but a `columns` line names the positions.
 * Following it (instead of hard-coding v1's order) lets the kernel add or
 * reorder fields within format version 1 without breaking this reader.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

static void update_min_words(struct ktau_columns *c)
{
	size_t i;

	c->min_words = 0;
	for (i = 0; i < c->count; i++)
		if (c->pos[i] + 1 > c->min_words)
			c->min_words = c->pos[i] + 1;
}

void ktau__columns_default(struct ktau_columns *c, const char *const *names,
			   size_t count, size_t first)
{
	size_t i;

	c->names = names;
	c->count = count;
	for (i = 0; i < count; i++)
		c->pos[i] = first + i;
	update_min_words(c);
}

int ktau__columns_from_line(struct ktau_columns *c, const struct ktau_words *w,
			    size_t first, size_t record_first, unsigned int lineno,
			    struct ktau_parse_error *err)
{
	size_t i, j;

	for (i = 0; i < c->count; i++) {
		size_t found = 0;

		for (j = first; j < w->count; j++) {
			if (!ktau__word_is(w->word[j], w->len[j], c->names[i]))
				continue;
			if (found)
				return ktau__fail(err, EPROTO, lineno,
						  "columns line names field '%s' twice",
						  c->names[i]);
			found = j;
		}
		if (!found)
			return ktau__fail(err, EPROTO, lineno,
					  "columns line lacks field '%s'",
					  c->names[i]);
		c->pos[i] = found - first + record_first;
	}
	update_min_words(c);
	return 0;
}
