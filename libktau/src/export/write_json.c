// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The model as JSON; the schema is docs/json-schema.md ("ktau-model",
 * version 1). Names are printable ASCII (the model's normal form), so
 * escaping '"' and '\\' is all JSON needs -- and the model has no '"'.
 */
#include <inttypes.h>

#include "export/export.h"

#define JSON_VERSION 1

static void put_string(FILE *out, const char *s)
{
	putc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putc('\\', out);
		putc(*s, out);
	}
	putc('"', out);
}

/* ", " between the elements of an array or object */
static void sep(FILE *out, size_t i)
{
	if (i)
		fputs(",", out);
	fputs("\n", out);
}

/* The counter names say the metric: inclusive_ns, or inclusive_samples. */
static void put_counters(FILE *out, const char *suffix, uint64_t calls, uint64_t subrs,
			 uint64_t incl, uint64_t excl)
{
	fprintf(out, "\"calls\": %" PRIu64 ", \"subrs\": %" PRIu64
		", \"inclusive_%s\": %" PRIu64 ", \"exclusive_%s\": %" PRIu64 "}",
		calls, subrs, suffix, incl, suffix, excl);
}

static void put_routines(FILE *out, const struct ktau_model_thread *t)
{
	const char *suffix = ktau__metric_info(t->owner)->json_suffix;
	size_t i;

	fputs("\"routines\": [", out);
	for (i = 0; i < t->nr_routines; i++) {
		const struct ktau_model_routine *r = &t->routines[i].rec;

		sep(out, i);
		fputs("    {\"name\": ", out);
		put_string(out, r->name);
		fputs(", \"group\": ", out);
		put_string(out, r->group);
		fputs(", ", out);
		put_counters(out, suffix, r->calls, r->subrs, r->incl_ns, r->excl_ns);
	}
	fputs("],\n", out);
}

static void put_callpaths(FILE *out, const struct ktau_model_thread *t)
{
	const char *suffix = ktau__metric_info(t->owner)->json_suffix;
	size_t i, j;

	fputs("   \"callpaths\": [", out);
	for (i = 0; i < t->nr_callpaths; i++) {
		const struct ktau_model_callpath *c = &t->callpaths[i];

		sep(out, i);
		fputs("    {\"path\": [", out);
		for (j = 0; j < c->depth; j++) {
			fputs(j ? ", " : "", out);
			put_string(out, c->path[j]);
		}
		fputs("], ", out);
		put_counters(out, suffix, c->calls, c->subrs, c->incl_ns, c->excl_ns);
	}
	fputs("],\n", out);
}

static void put_events(FILE *out, const struct ktau_model_thread *t)
{
	size_t i, n = 0;

	fputs("   \"events\": [", out);
	for (i = 0; i < t->nr_events; i++) {
		const struct ktau_model_event *e = &t->events[i];

		if (!e->count)
			continue;
		sep(out, n++);
		fputs("    {\"name\": ", out);
		put_string(out, e->name);
		fprintf(out, ", \"count\": %" PRIu64 ", \"min\": %.17g, \"max\": %.17g"
			", \"sum\": %.17g, \"sumsq\": %.17g}", e->count, e->min, e->max,
			e->sum, e->sumsq);
	}
	fputs("]", out);
}

/* Only when something was running: older readers see the schema they know. */
static void put_opens(FILE *out, const struct ktau_model_thread *t)
{
	size_t i, j;

	if (!t->nr_opens)
		return;
	fputs(",\n   \"open\": [", out);
	for (i = 0; i < t->nr_opens; i++) {
		const struct ktau_model_open *o = &t->opens[i];

		sep(out, i);
		fprintf(out, "    {\"tid\": %" PRIu64 ", \"path\": [", o->tid);
		for (j = 0; j < o->depth; j++) {
			fputs(j ? ", " : "", out);
			put_string(out, o->path[j]);
		}
		fprintf(out, "], \"inclusive_ns\": %" PRIu64 ", \"exclusive_ns\": %" PRIu64 "}",
			o->incl_ns, o->excl_ns);
	}
	fputs("]", out);
}

static void put_thread(FILE *out, const struct ktau_model_thread *t)
{
	size_t i;

	fprintf(out, "  {\"node\": %u, \"context\": %u, \"thread\": %u, \"label\": ",
		t->node, t->context, t->thread);
	put_string(out, t->label);
	fputs(",\n   \"metadata\": [", out);
	for (i = 0; i < t->nr_meta; i++) {
		sep(out, i);
		fputs("    {\"name\": ", out);
		put_string(out, t->meta[i].name);
		fputs(", \"value\": ", out);
		put_string(out, t->meta[i].value);
		fputs("}", out);
	}
	fputs("],\n   ", out);
	put_routines(out, t);
	put_callpaths(out, t);
	put_events(out, t);
	put_opens(out, t);
	fputs("}", out);
}

int ktau__emit_json(const struct ktau_model *m, FILE *out)
{
	size_t i;

	if (m->metric == KTAU_METRIC_SAMPLES)
		fprintf(out, "{\"format\": \"ktau-model\", \"version\": %d, "
			"\"metric\": \"samples\",\n \"threads\": [", JSON_VERSION);
	else
		fprintf(out, "{\"format\": \"ktau-model\", \"version\": %d, "
			"\"time_unit\": \"ns\",\n \"threads\": [", JSON_VERSION);
	for (i = 0; i < m->nr_threads; i++) {
		sep(out, i);
		put_thread(out, m->threads[i]);
	}
	fputs("]}\n", out);
	return 0;
}
