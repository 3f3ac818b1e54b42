// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The model in callgrind's format, for callgrind_annotate and KCachegrind.
 * One event, "ns" (or "samples" for a sample model): a routine's exclusive
 * time is its self cost; each
 * caller -> callee pair (the last two elements of the callpaths, summed)
 * is a call with the callee's inclusive time along it. Each thread is an
 * object and a file (ob=, fl=) named by its label, so the same routine in
 * two threads stays two functions. There is no "totals:" line: readers
 * compute the total, the sum of the exclusive times, themselves. Every
 * name goes through name compression ("(id) name" once, "(id)" after), so
 * a name that starts with '(' cannot be misread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"

/* A call: the last two elements of a callpath, as routine indexes. */
struct call {
	size_t caller, callee;
	uint64_t calls, incl_ns;
};

static int call_cmp(const void *a, const void *b)
{
	const struct call *x = a, *y = b;

	if (x->caller != y->caller)
		return x->caller < y->caller ? -1 : 1;
	if (x->callee != y->callee)
		return x->callee < y->callee ? -1 : 1;
	return 0;
}

/* The thread's calls, sorted by caller and merged; *n receives how many.
 * NULL only when out of memory. */
static struct call *collect_calls(const struct ktau_model_thread *t, size_t *n)
{
	struct call *calls = malloc((t->nr_callpaths ? t->nr_callpaths : 1) * sizeof(*calls));
	size_t i, out = 0;

	*n = 0;
	if (!calls)
		return NULL;
	for (i = 0; i < t->nr_callpaths; i++) {
		const struct ktau_model_callpath *c = &t->callpaths[i];

		calls[i] = (struct call){
			ktau__index_find(&t->routine_index, c->path[c->depth - 2]),
			ktau__index_find(&t->routine_index, c->path[c->depth - 1]),
			c->calls, c->incl_ns,
		};
	}
	qsort(calls, t->nr_callpaths, sizeof(*calls), call_cmp);
	for (i = 0; i < t->nr_callpaths; i++) {
		if (out && !call_cmp(&calls[out - 1], &calls[i])) {
			calls[out - 1].calls += calls[i].calls;
			calls[out - 1].incl_ns += calls[i].incl_ns;
		} else {
			calls[out++] = calls[i];
		}
	}
	*n = out;
	return calls;
}

/* Name compression for fn=/cfn=: ids by name, across the file. */
struct names {
	struct ktau_index ids;
	size_t next;
};

static int put_name(FILE *out, struct names *nm, const char *key, const char *name)
{
	size_t id = ktau__index_find(&nm->ids, name);

	if (id != KTAU_INDEX_NONE) {
		fprintf(out, "%s=(%zu)\n", key, id);
		return 0;
	}
	if (ktau__index_put(&nm->ids, name, ++nm->next))
		return -ENOMEM;
	fprintf(out, "%s=(%zu) %s\n", key, nm->next, name);
	return 0;
}

static int put_thread(FILE *out, const struct ktau_model_thread *t, size_t index,
		      struct names *nm)
{
	size_t i, nr_calls, c = 0;
	struct call *calls = collect_calls(t, &nr_calls);
	int ret = 0;

	if (!calls)
		return -ENOMEM;
	if (!t->nr_routines) {
		/* an fl= after the last fn= moves it there in callgrind_annotate */
		free(calls);
		return 0;
	}
	/* ob and fl ids: one per thread, names need not be unique */
	fprintf(out, "\nob=(%zu) %s\nfl=(%zu) %s\n", index + 1, t->label, index + 1,
		t->label);
	for (i = 0; i < t->nr_routines && !ret; i++) {
		const struct ktau_model_routine *r = &t->routines[i].rec;

		ret = put_name(out, nm, "fn", r->name);
		fprintf(out, "0 %" PRIu64 "\n", r->excl_ns);
		for (; c < nr_calls && calls[c].caller == i && !ret; c++) {
			/* "calls=0" would make the next line a self cost */
			if (!calls[c].calls)
				continue;
			ret = put_name(out, nm, "cfn", t->routines[calls[c].callee].rec.name);
			fprintf(out, "calls=%" PRIu64 " 0\n0 %" PRIu64 "\n",
				calls[c].calls, calls[c].incl_ns);
		}
	}
	free(calls);
	return ret;
}

int ktau__emit_callgrind(const struct ktau_model *m, FILE *out)
{
	const struct ktau_metric_info *metric = ktau__metric_info(m);
	struct names nm = { { 0 }, 0 };
	size_t i;
	int ret = 0;

	fprintf(out, "# callgrind format\nversion: 1\ncreator: libktau %s\n"
		"positions: line\nevent: %s : %s\nevents: %s\n",
		ktau_version(), metric->callgrind_event,
		metric->callgrind_description, metric->callgrind_event);
	for (i = 0; i < m->nr_threads && !ret; i++)
		ret = put_thread(out, m->threads[i], i, &nm);
	ktau__index_free(&nm.ids);
	return ret;
}
