// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * SystemTap print_stack() / print_ubacktrace() output of aggregated
 * backtraces, as a script like
 *	foreach (bt in s) { printf("!\n"); print_stack(bt); printf("\t%d\n", @count(s[bt])) }
 * prints it: frames leaf first, then the stack's count on a line of its own.
 *	!
 *	 0xffffffff814cde75 : net_rx_action+0x105/0x2b0 [kernel]
 *	 0xffffffff81066247 : __do_softirq+0xd7/0x240 [kernel]
 *	        1
 * A frame is " 0xADDRESS : SYMBOL+0xOFFSET/0xSIZE [MODULE]", perhaps with
 * " (inexact)" after it, or the address alone when stap found no symbol.
 * "!" separators and blank lines may come between stacks; a count line
 * with no frames before it is an empty backtrace. Every stack needs its
 * count: frames left without one mean the output was cut short.
 */
#include <errno.h>
#include <string.h>

#include "stacks/stacks.h"

#define INEXACT " (inexact)"

static int stap_frame(struct ktau_stacks *s, const char *l, size_t n, unsigned int line,
		      struct ktau_parse_error *err)
{
	struct ktau_raw_frame f = { l, 2, NULL, 0, NULL, 0 };
	const char *rest, *open;
	size_t rest_len;

	while (f.address_len < n && l[f.address_len] != ' ' && l[f.address_len] != '\t' &&
	       l[f.address_len] != ':')
		f.address_len++;
	rest = l + f.address_len;
	rest_len = n - f.address_len;
	ktau__trim(&rest, &rest_len);
	if (!rest_len)
		return ktau__stacks_push_frame(s, &f, line, err);
	if (rest[0] != ':')
		return ktau__fail(err, EPROTO, line,
				  "expected ' : ' after the frame's address, not '%.*s'",
				  KTAU_QUOTE(rest, rest_len));
	rest++;
	rest_len--;
	if (rest_len >= strlen(INEXACT) &&
	    !memcmp(rest + rest_len - strlen(INEXACT), INEXACT, strlen(INEXACT)))
		rest_len -= strlen(INEXACT);
	ktau__trim(&rest, &rest_len);
	for (open = rest + rest_len; open > rest && open[-1] != '['; open--)
		;
	if (open == rest || rest[rest_len - 1] != ']')
		return ktau__fail(err, EPROTO, line,
				  "frame without '[MODULE]' at its end: a truncated line?");
	f.symbol = rest;
	f.symbol_len = (size_t)(open - 1 - rest);
	f.module = open;
	f.module_len = rest_len - f.symbol_len - 2;
	return ktau__stacks_push_frame(s, &f, line, err);
}

/* A line that is not blank and not a count. */
static int stap_line(struct ktau_stacks *s, const char *l, size_t n, unsigned int line,
		     struct ktau_parse_error *err)
{
	if (n == 1 && l[0] == '!') {
		if (s->nr_pending)
			return ktau__fail(err, EPROTO, line,
					  "the stack from line %u has no count line "
					  "before this '!'", s->pending_line);
		return 0;
	}
	if (n > 2 && l[0] == '0' && l[1] == 'x')
		return stap_frame(s, l, n, line, err);
	return ktau__fail(err, EPROTO, line,
			  "expected a frame ' 0xADDRESS : SYMBOL+0xOFFSET/0xSIZE "
			  "[MODULE]', a count or '!', not '%.*s'", KTAU_QUOTE(l, n));
}

int ktau__stacks_parse_stap(struct ktau_stacks *s, const char *buf, size_t len,
			    struct ktau_parse_error *err)
{
	return ktau__stacks_parse_counted(s, buf, len, stap_line, err);
}
