// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <string.h>

#include "internal.h"

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
