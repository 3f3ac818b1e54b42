// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "profile-table.h"

void print_block_header(FILE *out, const struct ktau_profile *p,
			const struct ktau_block *b)
{
	enum ktau_block_kind kind = ktau_block_kind(b);

	fprintf(out, "# %s pid=%d tid=%d comm=%s", ktau_block_kind_name(kind),
		(int)ktau_block_pid(b), (int)ktau_block_tid(b), ktau_block_comm(b));
	if (kind == KTAU_BLOCK_PROCESS)
		fprintf(out, " threads=%" PRIu64 " exited_threads=%" PRIu64,
			ktau_block_threads(b), ktau_block_exited_threads(b));
	else if (kind == KTAU_BLOCK_EXITED)
		fprintf(out, " exited_threads=%" PRIu64, ktau_block_exited_threads(b));
	else if (kind == KTAU_BLOCK_CHILDREN)
		fprintf(out, " processes=%" PRIu64, ktau_block_processes(b));
	fprintf(out, " tsc_khz=%" PRIu64 "\n", ktau_profile_tsc_khz(p));
	if (ktau_block_dropped(b))
		fprintf(out, "# warning: %" PRIu64 " events were dropped, "
			"this profile is incomplete\n", ktau_block_dropped(b));
}

static int by_excl_desc(const void *a, const void *b)
{
	const struct ktau_func *fa = *(const struct ktau_func *const *)a;
	const struct ktau_func *fb = *(const struct ktau_func *const *)b;

	if (fa->excl_cycles != fb->excl_cycles)
		return fa->excl_cycles < fb->excl_cycles ? 1 : -1;
	return strcmp(fa->name, fb->name);
}

static int has_ctx(const struct ktau_block *b)
{
	size_t i;

	for (i = 0; i < ktau_block_func_count(b); i++)
		if (ktau_block_func(b, i)->ctx)
			return 1;
	return 0;
}

/* Times print as "-" when the profile has no usable tsc_khz. */
static void print_usec(FILE *out, const struct ktau_profile *p, uint64_t cycles)
{
	if (ktau_profile_tsc_khz(p))
		fprintf(out, " %14.3f", ktau_profile_usec(p, cycles));
	else
		fprintf(out, " %14s", "-");
}

int print_flat_table(FILE *out, const struct ktau_profile *p,
		     const struct ktau_block *b)
{
	return print_flat_table_of(out, p, b, b);
}

static void block_totals(const struct ktau_block *b, uint64_t *calls, uint64_t *excl)
{
	size_t i;

	*calls = *excl = 0;
	for (i = 0; i < ktau_block_func_count(b); i++) {
		*excl += ktau_block_func(b, i)->excl_cycles;
		*calls += ktau_block_func(b, i)->calls;
	}
}

int print_flat_table_of(FILE *out, const struct ktau_profile *p,
			const struct ktau_block *b, const struct ktau_block *all)
{
	size_t n = ktau_block_func_count(b), i;
	const struct ktau_func **rows;
	uint64_t total_excl, total_calls;
	int ctx = has_ctx(all);

	rows = calloc(n ? n : 1, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		rows[i] = ktau_block_func(b, i);
	block_totals(all, &total_calls, &total_excl);
	qsort(rows, n, sizeof(*rows), by_excl_desc);

	if (ctx)
		fprintf(out, "%8s ", "ctx");
	fprintf(out, "%-24s %-10s %12s %14s %14s %8s\n", "routine", "group", "calls",
		"incl_usec", "excl_usec", "%kernel");
	for (i = 0; i < n; i++) {
		const struct ktau_func *f = rows[i];

		if (ctx)
			fprintf(out, "%8" PRIu64 " ", f->ctx);
		fprintf(out, "%-24s %-10s %12" PRIu64, f->name, f->group, f->calls);
		print_usec(out, p, f->incl_cycles);
		print_usec(out, p, f->excl_cycles);
		fprintf(out, " %8.2f\n",
			total_excl ? 100.0 * (double)f->excl_cycles / (double)total_excl : 0.0);
	}
	if (n < ktau_block_func_count(all))
		fprintf(out, "(%zu more routines not shown)\n",
			ktau_block_func_count(all) - n);
	if (ctx)
		fprintf(out, "%8s ", "");
	fprintf(out, "%-24s %-10s %12" PRIu64 " %14s", "total", "", total_calls, "");
	print_usec(out, p, total_excl);
	fprintf(out, " %8.2f\n", total_excl ? 100.0 : 0.0);
	free(rows);
	return 0;
}

static int by_incl_desc(const void *a, const void *b)
{
	const struct ktau_edge *ea = *(const struct ktau_edge *const *)a;
	const struct ktau_edge *eb = *(const struct ktau_edge *const *)b;
	int c;

	if (ea->incl_cycles != eb->incl_cycles)
		return ea->incl_cycles < eb->incl_cycles ? 1 : -1;
	c = strcmp(ea->parent, eb->parent);
	return c ? c : strcmp(ea->name, eb->name);
}

int print_callgraph(FILE *out, const struct ktau_profile *p,
		    const struct ktau_block *b)
{
	size_t n = ktau_block_edge_count(b), i;
	const struct ktau_edge **rows;

	rows = calloc(n ? n : 1, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		rows[i] = ktau_block_edge(b, i);
	qsort(rows, n, sizeof(*rows), by_incl_desc);

	fprintf(out, "%-40s %12s %14s\n", "callgraph (parent => child)", "calls",
		"incl_usec");
	for (i = 0; i < n; i++) {
		char edge[256];

		snprintf(edge, sizeof(edge), "%s => %s", rows[i]->parent, rows[i]->name);
		fprintf(out, "%-40s %12" PRIu64, edge, rows[i]->calls);
		print_usec(out, p, rows[i]->incl_cycles);
		fputc('\n', out);
	}
	free(rows);
	return 0;
}

void print_events(FILE *out, const struct ktau_block *b)
{
	size_t n = ktau_block_event_count(b), i;

	if (!n)
		return;
	fprintf(out, "%-24s %12s %12s %12s %14s\n", "event", "count", "min", "max",
		"mean");
	for (i = 0; i < n; i++) {
		const struct ktau_event *e = ktau_block_event(b, i);

		fprintf(out, "%-24s %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %14.3f\n",
			e->name, e->count, e->min, e->max,
			e->count ? (double)e->sum / (double)e->count : 0.0);
	}
}

int print_block_tables(FILE *out, const struct ktau_profile *p,
		       const struct ktau_profile *grouped,
		       const struct ktau_profile *rows, size_t i, bool callgraph)
{
	const struct ktau_block *b = ktau_profile_block(rows, i);

	print_block_header(out, p, ktau_profile_block(p, i));
	if (print_flat_table_of(out, p, b, ktau_profile_block(grouped, i)))
		return -ENOMEM;
	if (ktau_block_event_count(b)) {
		fputc('\n', out);
		print_events(out, b);
	}
	if (callgraph) {
		fputc('\n', out);
		if (print_callgraph(out, p, b))
			return -ENOMEM;
	}
	return 0;
}
