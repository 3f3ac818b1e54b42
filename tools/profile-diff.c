// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <inttypes.h>

#include "profile-diff.h"

static void print_calls(FILE *out, const struct ktau_diff_row *r)
{
	fprintf(out, " %10" PRIu64 " %10" PRIu64 " %+10" PRId64, r->calls[0], r->calls[1],
		r->calls_delta);
}

/* cycles[0] of A and cycles[1] of B, each in its own profile's time */
static void print_times(FILE *out, const struct ktau_profile *pa,
			const struct ktau_profile *pb, const uint64_t cycles[2],
			double usec_delta)
{
	fprintf(out, " %13.3f %13.3f %+13.3f", ktau_profile_usec(pa, cycles[0]),
		ktau_profile_usec(pb, cycles[1]), usec_delta);
}

static void print_header(FILE *out)
{
	fprintf(out, "%-24s %-10s %10s %10s %10s %13s %13s %13s %13s %13s %13s\n",
		"routine", "group", "calls_A", "calls_B", "delta", "excl_usec_A",
		"excl_usec_B", "delta", "incl_usec_A", "incl_usec_B", "delta");
}

int print_diff(FILE *out, const struct ktau_profile *pa, const struct ktau_profile *pb,
	       size_t top)
{
	struct ktau_routine_diff *d = ktau_profile_diff_routines(pa, pb);
	const struct ktau_diff_row *t;
	size_t n, i, shown;

	if (!d)
		return -errno;
	n = ktau_routine_diff_count(d);
	shown = top && top < n ? top : n;
	print_header(out);
	for (i = 0; i < shown; i++) {
		const struct ktau_diff_row *r = ktau_routine_diff_row(d, i);

		fprintf(out, "%-24s %-10s", r->name, r->group);
		print_calls(out, r);
		print_times(out, pa, pb, r->excl_cycles, r->excl_usec_delta);
		print_times(out, pa, pb, r->incl_cycles, r->incl_usec_delta);
		fputc('\n', out);
	}
	if (shown < n)
		fprintf(out, "(%zu more routines not shown)\n", n - shown);
	/* no inclusive total: routines nest, their inclusive times overlap */
	t = ktau_routine_diff_total(d);
	fprintf(out, "%-24s %-10s", t->name, t->group);
	print_calls(out, t);
	print_times(out, pa, pb, t->excl_cycles, t->excl_usec_delta);
	fputc('\n', out);
	ktau_routine_diff_free(d);
	return 0;
}
