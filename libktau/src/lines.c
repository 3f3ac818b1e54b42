// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Line-level checks shared by every ktau text format: ASCII only, bounded
 * line length. Doing them here keeps the record parsers free of byte-level
 * worries (a NUL in a name would silently shorten it).
 */
#include <errno.h>

#include "internal.h"

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
