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

/* One row per routine: a profile keyed by user context (libktau's merged
 * profiles) has a func record per context; the table sums them. */
struct table_row {
	const char *name;
	const char *group;
	uint64_t calls, incl, excl;
};

static int by_excl_desc(const void *a, const void *b)
{
	const struct table_row *ra = a, *rb = b;

	if (ra->excl != rb->excl)
		return ra->excl < rb->excl ? 1 : -1;
	return strcmp(ra->name, rb->name);
}

/* The rows of b, merged by routine name; their count in *nrows. */
static struct table_row *table_rows(const struct ktau_block *b, size_t *nrows)
{
	size_t n = ktau_block_func_count(b), i, j, out = 0;
	struct table_row *rows = calloc(n ? n : 1, sizeof(*rows));

	if (!rows)
		return NULL;
	for (i = 0; i < n; i++) {
		const struct ktau_func *f = ktau_block_func(b, i);

		for (j = 0; j < out && strcmp(rows[j].name, f->name); j++)
			;
		if (j == out) {
			rows[out].name = f->name;
			rows[out].group = f->group;
			out++;
		}
		rows[j].calls += f->calls;
		rows[j].incl += f->incl_cycles;
		rows[j].excl += f->excl_cycles;
	}
	*nrows = out;
	return rows;
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
	size_t n, n_all, i;
	struct table_row *rows, *all_rows;
	uint64_t total_excl, total_calls;

	rows = table_rows(b, &n);
	all_rows = table_rows(all, &n_all);
	if (!rows || !all_rows) {
		free(rows);
		free(all_rows);
		return -ENOMEM;
	}
	free(all_rows);
	block_totals(all, &total_calls, &total_excl);
	qsort(rows, n, sizeof(*rows), by_excl_desc);

	fprintf(out, "%-24s %-10s %12s %14s %14s %8s\n", "routine", "group", "calls",
		"incl_usec", "excl_usec", "%kernel");
	for (i = 0; i < n; i++) {
		const struct table_row *r = &rows[i];

		fprintf(out, "%-24s %-10s %12" PRIu64, r->name, r->group, r->calls);
		print_usec(out, p, r->incl);
		print_usec(out, p, r->excl);
		fprintf(out, " %8.2f\n",
			total_excl ? 100.0 * (double)r->excl / (double)total_excl : 0.0);
	}
	if (n < n_all)
		fprintf(out, "(%zu more routines not shown)\n", n_all - n);
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

struct event_row {
	const char *name;
	uint64_t count, min, max, sum;
};

/* Events merged by name over user contexts, like the flat table. */
void print_events(FILE *out, const struct ktau_block *b)
{
	size_t n = ktau_block_event_count(b), i, j, nrows = 0;
	struct event_row *rows;

	if (!n)
		return;
	rows = calloc(n, sizeof(*rows));
	if (!rows)
		return;
	for (i = 0; i < n; i++) {
		const struct ktau_event *e = ktau_block_event(b, i);

		for (j = 0; j < nrows && strcmp(rows[j].name, e->name); j++)
			;
		if (j == nrows) {
			rows[nrows].name = e->name;
			rows[nrows].min = e->min;
			rows[nrows].max = e->max;
			nrows++;
		}
		rows[j].count += e->count;
		rows[j].sum += e->sum;
		if (e->min < rows[j].min)
			rows[j].min = e->min;
		if (e->max > rows[j].max)
			rows[j].max = e->max;
	}
	fprintf(out, "%-24s %12s %12s %12s %14s\n", "event", "count", "min", "max",
		"mean");
	for (i = 0; i < nrows; i++)
		fprintf(out, "%-24s %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %14.3f\n",
			rows[i].name, rows[i].count, rows[i].min, rows[i].max,
			rows[i].count ? (double)rows[i].sum / (double)rows[i].count : 0.0);
	free(rows);
}

int print_block_tables(FILE *out, const struct ktau_profile *p,
		       const struct ktau_profile *grouped,
		       const struct ktau_profile *rows, size_t i, bool callgraph,
		       const char *note)
{
	const struct ktau_block *b = ktau_profile_block(rows, i);

	print_block_header(out, p, ktau_profile_block(p, i));
	if (print_flat_table_of(out, p, b, ktau_profile_block(grouped, i)))
		return -ENOMEM;
	if (note)
		fprintf(out, "%s\n", note);
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
