// SPDX-License-Identifier: LGPL-2.1-or-later
/* Text scanning shared by every format: lines, words, `columns` lines. */
#include <errno.h>
#include <string.h>

#include "util/util.h"

/*
 * Line-level checks shared by every ktau text format: ASCII only, bounded
 * line length. Doing them here keeps the record parsers free of byte-level
 * worries (a NUL in a name would silently shorten it).
 */

void ktau__lines_init(struct ktau_line_reader *r, const char *buf, size_t len)
{
	r->pos = buf;
	r->end = buf + len;
	r->line = 0;
	r->max_len = KTAU_MAX_LINE;
	r->high_bytes = 0;
}

static int byte_allowed(unsigned char c, int high_bytes)
{
	return (c >= 0x20 && c < 0x7f) || c == '\t' || c == '\r' ||
	       (high_bytes && c >= 0x80);
}

int ktau__lines_next(struct ktau_line_reader *r, const char **line, size_t *len,
		     struct ktau_parse_error *err)
{
	const char *start = r->pos, *p;
	size_t n;

	if (r->pos >= r->end)
		return 0;
	r->line++;
	for (p = start; p < r->end && *p != '\n'; p++) {
		if (!byte_allowed((unsigned char)*p, r->high_bytes))
			return ktau__fail(err, EPROTO, r->line,
					  "byte 0x%02x at column %zu is not printable ASCII",
					  (unsigned char)*p, (size_t)(p - start) + 1);
		if ((size_t)(p - start) >= r->max_len)
			return ktau__fail(err, EPROTO, r->line,
					  "line too long (more than %zu bytes)",
					  r->max_len);
	}
	n = (size_t)(p - start);
	r->pos = p < r->end ? p + 1 : p;
	/* tolerate CRLF: files may have crossed a serial console */
	if (n && start[n - 1] == '\r')
		n--;
	*line = start;
	*len = n;
	return 1;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

int ktau__split_words(const char *line, size_t len, struct ktau_words *w,
		      unsigned int lineno, struct ktau_parse_error *err)
{
	size_t i = 0;

	w->count = 0;
	while (i < len) {
		size_t start;

		while (i < len && is_blank(line[i]))
			i++;
		if (i >= len)
			break;
		start = i;
		while (i < len && !is_blank(line[i]))
			i++;
		if (w->count == KTAU_MAX_WORDS)
			return ktau__fail(err, EPROTO, lineno,
					  "more than %d fields", KTAU_MAX_WORDS);
		w->word[w->count] = line + start;
		w->len[w->count] = i - start;
		w->count++;
	}
	return 0;
}

int ktau__word_is(const char *word, size_t len, const char *lit)
{
	return strlen(lit) == len && memcmp(word, lit, len) == 0;
}

int ktau__parse_u64(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (!len)
		return -EPROTO;
	for (i = 0; i < len; i++) {
		unsigned int d;

		if (s[i] < '0' || s[i] > '9')
			return -EPROTO;
		d = (unsigned int)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -EPROTO;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/*
 * Record lines are positional, but a `columns` line names the positions.
 * Following it (instead of hard-coding v1's order) lets the kernel add or
 * reorder fields within format version 1 without breaking this reader.
 */

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
