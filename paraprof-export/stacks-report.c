// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ktau-stacks' report, read from the model thread the stacks became (so
 * it shows what the exported files hold, not a second computation).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "stacks-report.h"

static const char *metadata(const struct ktau_model_thread *t, const char *name)
{
	size_t i;

	for (i = 0; i < ktau_model_metadata_count(t); i++) {
		const struct ktau_model_metadata *md = ktau_model_metadata(t, i);

		if (!strcmp(md->name, name))
			return md->value;
	}
	return "?";
}

static int by_exclusive(const void *a, const void *b)
{
	const struct ktau_model_routine *x = *(const struct ktau_model_routine *const *)a;
	const struct ktau_model_routine *y = *(const struct ktau_model_routine *const *)b;

	if (x->excl_ns != y->excl_ns)
		return x->excl_ns < y->excl_ns ? 1 : -1;
	if (x->incl_ns != y->incl_ns)
		return x->incl_ns < y->incl_ns ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int by_inclusive(const void *a, const void *b)
{
	const struct ktau_model_routine *x = *(const struct ktau_model_routine *const *)a;
	const struct ktau_model_routine *y = *(const struct ktau_model_routine *const *)b;

	if (x->incl_ns != y->incl_ns)
		return x->incl_ns < y->incl_ns ? 1 : -1;
	return by_exclusive(a, b);
}

static double percent(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0.0;
}

static void table(FILE *out, const char *title, const struct ktau_model_routine **r,
		  size_t n, size_t top, uint64_t total)
{
	size_t i;

	fprintf(out, "\nTop %zu functions by %s samples\n", n < top ? n : top, title);
	fprintf(out, "%12s %7s %12s %7s  %s\n", "exclusive", "%", "inclusive", "%",
		"function [module]");
	for (i = 0; i < n && i < top; i++)
		fprintf(out, "%12" PRIu64 " %6.2f%% %12" PRIu64 " %6.2f%%  %s [%s]\n",
			r[i]->excl_ns, percent(r[i]->excl_ns, total), r[i]->incl_ns,
			percent(r[i]->incl_ns, total), r[i]->name, r[i]->group);
}

int stacks_report(const struct ktau_model_thread *t, size_t top, FILE *out)
{
	size_t i, n = ktau_model_routine_count(t);
	const struct ktau_model_routine **r = malloc((n ? n : 1) * sizeof(*r));
	uint64_t total = 0;

	if (!r)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		r[i] = ktau_model_routine(t, i);
		total += r[i]->excl_ns;	/* each sample has one leaf */
	}
	fprintf(out, "%s: %s samples in %s distinct stacks, %s samples without a stack, "
		"%zu functions\n", metadata(t, "stacks source"), metadata(t, "samples"),
		metadata(t, "distinct stacks"), metadata(t, "samples without a stack"), n);
	qsort(r, n, sizeof(*r), by_exclusive);
	table(out, "exclusive", r, n, top, total);
	qsort(r, n, sizeof(*r), by_inclusive);
	table(out, "inclusive", r, n, top, total);
	free(r);
	return ferror(out) ? -EIO : 0;
}
