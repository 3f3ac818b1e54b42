// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile-diff.h"

struct diff_row {
	const char *name, *group;
	uint64_t calls[2], incl[2], excl[2];	/* [0] A, [1] B, cycles */
	double d_excl_usec;			/* B - A, for sorting */
};

struct diff_table {
	struct diff_row *rows;
	size_t count;
};

static struct diff_row *row_for(struct diff_table *t, const struct ktau_func *f)
{
	size_t i;

	for (i = 0; i < t->count; i++)
		if (!strcmp(t->rows[i].name, f->name) && !strcmp(t->rows[i].group, f->group))
			return &t->rows[i];
	/* rows has room for every func of both blocks */
	memset(&t->rows[t->count], 0, sizeof(t->rows[0]));
	t->rows[t->count].name = f->name;
	t->rows[t->count].group = f->group;
	return &t->rows[t->count++];
}

static void add_side(struct diff_table *t, const struct ktau_block *b, int side)
{
	size_t i;

	for (i = 0; i < ktau_block_func_count(b); i++) {
		const struct ktau_func *f = ktau_block_func(b, i);
		struct diff_row *r = row_for(t, f);

		r->calls[side] += f->calls;
		r->incl[side] += f->incl_cycles;
		r->excl[side] += f->excl_cycles;
	}
}

static int by_change_desc(const void *x, const void *y)
{
	const struct diff_row *a = x, *b = y;
	double da = fabs(a->d_excl_usec), db = fabs(b->d_excl_usec);

	if (da != db)
		return da < db ? 1 : -1;
	return strcmp(a->name, b->name);
}

static void print_calls(FILE *out, const uint64_t calls[2])
{
	fprintf(out, " %10" PRIu64 " %10" PRIu64 " %+10" PRId64, calls[0], calls[1],
		(int64_t)(calls[1] - calls[0]));
}

static void print_times(FILE *out, const struct ktau_profile *pa,
			const struct ktau_profile *pb, const uint64_t cycles[2])
{
	double a = ktau_profile_usec(pa, cycles[0]), b = ktau_profile_usec(pb, cycles[1]);

	fprintf(out, " %13.3f %13.3f %+13.3f", a, b, b - a);
}

static void print_header(FILE *out)
{
	fprintf(out, "%-24s %-10s %10s %10s %10s %13s %13s %13s %13s %13s %13s\n",
		"routine", "group", "calls_A", "calls_B", "delta", "excl_usec_A",
		"excl_usec_B", "delta", "incl_usec_A", "incl_usec_B", "delta");
}

int print_diff(FILE *out, const struct ktau_profile *pa, const struct ktau_block *a,
	       const struct ktau_profile *pb, const struct ktau_block *b, size_t top)
{
	size_t n = ktau_block_func_count(a) + ktau_block_func_count(b), i, shown;
	struct diff_table t = { calloc(n ? n : 1, sizeof(struct diff_row)), 0 };
	struct diff_row total = { .name = "total", .group = "" };

	if (!t.rows)
		return -ENOMEM;
	add_side(&t, a, 0);
	add_side(&t, b, 1);
	for (i = 0; i < t.count; i++) {
		struct diff_row *r = &t.rows[i];
		int s;

		r->d_excl_usec = ktau_profile_usec(pb, r->excl[1]) -
				 ktau_profile_usec(pa, r->excl[0]);
		for (s = 0; s < 2; s++) {
			total.calls[s] += r->calls[s];
			total.excl[s] += r->excl[s];
		}
	}
	qsort(t.rows, t.count, sizeof(*t.rows), by_change_desc);
	shown = top && top < t.count ? top : t.count;

	print_header(out);
	for (i = 0; i < shown; i++) {
		fprintf(out, "%-24s %-10s", t.rows[i].name, t.rows[i].group);
		print_calls(out, t.rows[i].calls);
		print_times(out, pa, pb, t.rows[i].excl);
		print_times(out, pa, pb, t.rows[i].incl);
		fputc('\n', out);
	}
	if (shown < t.count)
		fprintf(out, "(%zu more routines not shown)\n", t.count - shown);
	fprintf(out, "%-24s %-10s", "total", "");
	print_calls(out, total.calls);
	print_times(out, pa, pb, total.excl);
	fputc('\n', out);
	free(t.rows);
	return 0;
}
