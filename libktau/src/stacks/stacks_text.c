// SPDX-License-Identifier: LGPL-2.1-or-later
/* Text helpers the stack-format parsers share. */
#include <errno.h>

#include "stacks/stacks.h"

void ktau__stacks_lines_init(struct ktau_line_reader *r, const char *buf, size_t len)
{
	ktau__lines_init(r, buf, len);
	r->max_len = KTAU_MAX_STACK_LINE;
	r->high_bytes = 1;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

void ktau__trim(const char **s, size_t *len)
{
	while (*len && is_blank(**s)) {
		(*s)++;
		(*len)--;
	}
	while (*len && is_blank((*s)[*len - 1]))
		(*len)--;
}

int ktau__all_digits(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return len > 0;
}

int ktau__all_hex(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		char c = s[i];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
		      (c >= 'A' && c <= 'F')))
			return 0;
	}
	return len > 0;
}

/* A count line (all digits): the pending stack, that many times. */
static int count_line(struct ktau_stacks *s, const char *l, size_t len, unsigned int line,
		      struct ktau_parse_error *err)
{
	uint64_t count;

	if (ktau__parse_u64(l, len, &count))
		return ktau__fail(err, EPROTO, line, "count '%.*s' does not fit in 64 bits",
				  KTAU_QUOTE(l, len));
	return ktau__stacks_commit(s, count, line, err);
}

int ktau__stacks_parse_counted(struct ktau_stacks *s, const char *buf, size_t len,
			       ktau_stack_line_fn fn, struct ktau_parse_error *err)
{
	struct ktau_line_reader r;
	const char *l;
	size_t n;
	int ret;

	ktau__stacks_lines_init(&r, buf, len);
	while ((ret = ktau__lines_next(&r, &l, &n, err)) > 0) {
		ktau__trim(&l, &n);
		if (!n)
			continue;
		ret = ktau__all_digits(l, n) ? count_line(s, l, n, r.line, err)
					     : fn(s, l, n, r.line, err);
		if (ret)
			return ret;
	}
	if (ret < 0)
		return ret;
	if (s->nr_pending)
		return ktau__fail(err, EPROTO, r.line,
				  "the stack from line %u has no count line: the input "
				  "ends early", s->pending_line);
	return 0;
}
