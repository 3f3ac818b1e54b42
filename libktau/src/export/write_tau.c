// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One thread as a TAU profile file (profile.<node>.<context>.<thread>), by
 * the rules of TAU's writer and ParaProf's reader (docs/export-formats.md):
 * "<N> templated_functions_MULTI_<metric>" (TIME or SAMPLES), the header line with XML metadata,
 * GROUP="..." on every function line (a callpath's: "TAU_CALLPATH | <the
 * leaf routine's primary group>", as TAU's own callpath profiler names
 * it), "0 aggregates", the userevents block only when there are events
 * with samples. Names are already in the model's
 * normal form: no quotes, single spaces, no "=>" in flat names.
 */
#include <inttypes.h>
#include <string.h>

#include "export/export.h"

#define CALLPATH_GROUP "TAU_CALLPATH"
#define GROUP_SEPARATORS " |"

static void put_attribute(FILE *out, const char *name, const char *value)
{
	fputs("<attribute><name>", out);
	ktau__put_xml(out, name);
	fputs("</name><value>", out);
	ktau__put_xml(out, value);
	fputs("</value></attribute>", out);
}

static void put_metadata(FILE *out, const struct ktau_model_thread *t)
{
	size_t i;

	fputs("<metadata>", out);
	put_attribute(out, "Thread Label", t->label);
	for (i = 0; i < t->nr_meta; i++)
		put_attribute(out, t->meta[i].name, t->meta[i].value);
	fputs("</metadata>", out);
}

/* A function line up to its GROUP=: values scaled for the metric (time:
 * microseconds), %.16G in the C locale (the caller set it). */
static void put_function(FILE *out, const char *name, uint64_t calls, uint64_t subrs,
			 uint64_t excl, uint64_t incl, double divisor)
{
	fprintf(out, "\"%s\" %" PRIu64 " %" PRIu64 " %.16G %.16G 0 ",
		name, calls, subrs, (double)excl / divisor, (double)incl / divisor);
}

static void put_events(FILE *out, const struct ktau_model_thread *t)
{
	size_t i, n = 0;

	for (i = 0; i < t->nr_events; i++)
		n += t->events[i].count > 0;
	if (!n)
		return;
	fprintf(out, "%zu userevents\n# eventname numevents max min mean sumsqr\n", n);
	for (i = 0; i < t->nr_events; i++) {
		const struct ktau_model_event *e = &t->events[i];

		if (!e->count)
			continue;
		fprintf(out, "\"%s\" %" PRIu64 " %.16G %.16G %.16G %.16G\n", e->name,
			e->count, e->max, e->min, e->sum / (double)e->count, e->sumsq);
	}
}

/*
 * A callpath's group, as TAU's profiler writes it: TAU_CALLPATH, " | ",
 * then the primary group of its leaf routine -- that routine's first
 * group, up to a blank or '|' ("TAU_KERNEL_MERGE | KTAU_SYSCALL" gives
 * "TAU_KERNEL_MERGE"). Just TAU_CALLPATH when the leaf has no group.
 */
static void put_callpath_group(FILE *out, const struct ktau_model_thread *t,
			       const struct ktau_model_callpath *c)
{
	size_t leaf = ktau__index_find(&t->routine_index, c->path[c->depth - 1]);
	const char *group = "";
	size_t len;

	/* every element has its flat routine (ktau_model_add_callpath) */
	if (leaf != KTAU_INDEX_NONE && t->routines[leaf].rec.group)
		group = t->routines[leaf].rec.group;
	group += strspn(group, GROUP_SEPARATORS);
	len = strcspn(group, GROUP_SEPARATORS);
	if (len)
		fprintf(out, "GROUP=\"%s | %.*s\"\n", CALLPATH_GROUP, (int)len, group);
	else
		fputs("GROUP=\"" CALLPATH_GROUP "\"\n", out);
}

int ktau__emit_tau_thread(const struct ktau_model_thread *t, FILE *out)
{
	const struct ktau_metric_info *metric = ktau__metric_info(t->owner);
	size_t i;

	fprintf(out, "%zu templated_functions_MULTI_%s\n",
		t->nr_routines + t->nr_callpaths, metric->tau_metric);
	fputs("# Name Calls Subrs Excl Incl ProfileCalls # ", out);
	put_metadata(out, t);
	putc('\n', out);
	for (i = 0; i < t->nr_routines; i++) {
		const struct ktau_model_routine *r = &t->routines[i].rec;

		put_function(out, r->name, r->calls, r->subrs, r->excl_ns, r->incl_ns,
			     metric->tau_divisor);
		fprintf(out, "GROUP=\"%s\"\n", r->group);
	}
	for (i = 0; i < t->nr_callpaths; i++) {
		const struct ktau_model_callpath *c = &t->callpaths[i];

		put_function(out, c->name, c->calls, c->subrs, c->excl_ns, c->incl_ns,
			     metric->tau_divisor);
		put_callpath_group(out, t, c);
	}
	fputs("0 aggregates\n", out);
	put_events(out, t);
	return 0;
}
