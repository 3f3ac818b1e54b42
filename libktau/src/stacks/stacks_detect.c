// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Which stack format a text is: the first line that only one of them
 * could have decides. Event lines, counts and blank lines are common to
 * several and decide nothing.
 */
#include <errno.h>
#include <string.h>

#include "stacks/stacks.h"

static int starts_with(const char *s, size_t len, const char *prefix)
{
	return len >= strlen(prefix) && !memcmp(s, prefix, strlen(prefix));
}

/* " 0xffffffff814cde75 : net_rx_action+0x105/0x2b0 [kernel]" */
static int stap_frame(const char *t, size_t n)
{
	size_t i = 2;

	if (!starts_with(t, n, "0x"))
		return 0;
	while (i < n && t[i] != ' ' && t[i] != '\t')
		i++;
	while (i < n && (t[i] == ' ' || t[i] == '\t'))
		i++;
	return i < n && t[i] == ':';
}

/* "              unix`mutex_delay_default+0x7" */
static int dtrace_frame(const char *t, size_t n)
{
	const char *tick = memchr(t, '`', n);

	return tick && tick > t && !memchr(t, ' ', n);
}

/* "\tffffffff816dfdb6 __d_lookup_rcu+0x56 ([kernel.kallsyms])" */
static int perf_frame(const char *l, size_t n, const char *t, size_t tn)
{
	size_t i = 0;

	if (!n || (l[0] != ' ' && l[0] != '\t') || t[tn - 1] != ')')
		return 0;
	while (i < tn && t[i] != ' ' && t[i] != '\t')
		i++;
	return ktau__all_hex(t, i);
}

int ktau_stacks_detect(const char *buf, size_t len)
{
	struct ktau_line_reader r;
	const char *l;
	size_t n;

	if (!buf)
		return -EPROTO;
	ktau__stacks_lines_init(&r, buf, len);
	while (ktau__lines_next(&r, &l, &n, NULL) > 0) {
		const char *t = l;
		size_t tn = n;

		ktau__trim(&t, &tn);
		if (!tn)
			continue;
		if ((tn == 1 && t[0] == '!') || stap_frame(t, tn))
			return KTAU_STACKS_STAP;
		if (starts_with(t, tn, "dtrace:") || dtrace_frame(t, tn))
			return KTAU_STACKS_DTRACE;
		if (perf_frame(l, n, t, tn))
			return KTAU_STACKS_PERF;
	}
	return -EPROTO;
}
