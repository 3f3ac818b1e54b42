// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * DTrace's printout of a stack aggregation (dtrace -n
 * 'profile-997 { @[stack()] = count(); }', or ustack()): per entry the
 * frames, leaf first, then the count, entries apart by blank lines:
 *	              unix`mutex_delay_default+0x7
 *	              genunix`cv_wait+0x2b
 *	              0xfffffffffb8001d6
 *	               17
 * A frame is "module`function+0xoffset", "module`0xaddress" or a bare
 * "0xaddress". dtrace's own messages ("dtrace: description ... matched 1
 * probe") are skipped. Frames left without a count mean the output was
 * cut short.
 */
#include <errno.h>
#include <string.h>

#include "stacks/stacks.h"

#define DTRACE_MESSAGE "dtrace:"

/* A line that is not blank and not a count: a frame or a message. */
static int dtrace_line(struct ktau_stacks *s, const char *l, size_t n, unsigned int line,
		       struct ktau_parse_error *err)
{
	const char *tick = memchr(l, '`', n);
	struct ktau_raw_frame f = { 0 };

	if (n >= strlen(DTRACE_MESSAGE) && !memcmp(l, DTRACE_MESSAGE, strlen(DTRACE_MESSAGE)))
		return 0;
	if (!tick) {
		if (n > 2 && l[0] == '0' && l[1] == 'x' && ktau__all_hex(l + 2, n - 2)) {
			f.address = l;
			f.address_len = n;
			return ktau__stacks_push_frame(s, &f, line, err);
		}
		return ktau__fail(err, EPROTO, line,
				  "expected a frame 'module`function+0xoffset', an address "
				  "or a count, not '%.*s'", KTAU_QUOTE(l, n));
	}
	f.module = l;
	f.module_len = (size_t)(tick - l);
	f.symbol = tick + 1;
	f.symbol_len = n - f.module_len - 1;
	if (!f.module_len || !f.symbol_len)
		return ktau__fail(err, EPROTO, line,
				  "frame '%.*s' lacks its module or its function",
				  KTAU_QUOTE(l, n));
	return ktau__stacks_push_frame(s, &f, line, err);
}

int ktau__stacks_parse_dtrace(struct ktau_stacks *s, const char *buf, size_t len,
			      struct ktau_parse_error *err)
{
	return ktau__stacks_parse_counted(s, buf, len, dtrace_line, err);
}
