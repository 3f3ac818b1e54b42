// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * `perf script` output of `perf record -g`, with perf script's default
 * fields. A sample is an event line (not indented:
 * "sleep 11325  4900.851296:     250000 cpu-clock:pppH: ") and its frames,
 * one per indented line, leaf first:
 *	\tffffffff816dfdb6 __d_lookup_rcu+0x56 ([kernel.kallsyms])
 *	\t           20b1d __GI___open64_nocancel+0x2d (/usr/lib/.../ld-linux-x86-64.so.2)
 *	\t               0 [unknown] ([unknown])
 * and a blank line after it. Each sample counts once (perf's period is not
 * a weight here). A frame line may be the address alone (perf script -F ip);
 * otherwise it must end with "(DSO)", so that a line cut short is noticed.
 * Lines starting with '#' outside samples (perf script --header) are skipped.
 */
#include <errno.h>
#include <string.h>

#include "stacks/stacks.h"

static int perf_frame(struct ktau_stacks *s, const char *l, size_t n, unsigned int line,
		      struct ktau_parse_error *err)
{
	struct ktau_raw_frame f = { 0 };
	const char *rest;
	size_t i = 0, rest_len, open;

	ktau__trim(&l, &n);
	while (i < n && l[i] != ' ' && l[i] != '\t')
		i++;
	if (!ktau__all_hex(l, i))
		return ktau__fail(err, EPROTO, line,
				  "expected a frame 'ADDRESS SYMBOL (DSO)', not '%.*s'",
				  KTAU_QUOTE(l, n));
	f.address = l;
	f.address_len = i;
	rest = l + i;
	rest_len = n - i;
	ktau__trim(&rest, &rest_len);
	if (rest_len) {
		if (rest[rest_len - 1] != ')')
			return ktau__fail(err, EPROTO, line,
					  "frame without '(DSO)' at its end: a truncated line? "
					  "(perf script's default fields are needed)");
		/* the DSO is the last " (...)": a C++ symbol may hold "(" too */
		for (open = rest_len - 1; open > 0; open--)
			if (rest[open] == '(' && (rest[open - 1] == ' ' || rest[open - 1] == '\t'))
				break;
		if (!open && rest[0] != '(')
			return ktau__fail(err, EPROTO, line, "frame without '(DSO)' at its end");
		f.symbol = rest;
		f.symbol_len = open;
		f.module = rest + open + 1;
		f.module_len = rest_len - open - 2;
	}
	return ktau__stacks_push_frame(s, &f, line, err);
}

int ktau__stacks_parse_perf(struct ktau_stacks *s, const char *buf, size_t len,
			    struct ktau_parse_error *err)
{
	struct ktau_line_reader r;
	int in_sample = 0, ret;
	const char *l;
	size_t n;

	ktau__stacks_lines_init(&r, buf, len);
	while ((ret = ktau__lines_next(&r, &l, &n, err)) > 0) {
		const char *t = l;
		size_t tn = n;

		ktau__trim(&t, &tn);
		if (!tn) {
			ret = in_sample ? ktau__stacks_commit(s, 1, r.line, err) : 0;
			in_sample = 0;
		} else if (l[0] == ' ' || l[0] == '\t') {
			if (!in_sample)
				return ktau__fail(err, EPROTO, r.line,
						  "a stack frame with no event line before it");
			ret = perf_frame(s, l, n, r.line, err);
		} else if (l[0] == '#' && !in_sample) {
			continue;
		} else {
			ret = in_sample ? ktau__stacks_commit(s, 1, r.line, err) : 0;
			in_sample = 1;
		}
		if (ret)
			return ret;
	}
	if (ret < 0)
		return ret;
	return in_sample ? ktau__stacks_commit(s, 1, r.line, err) : 0;
}
