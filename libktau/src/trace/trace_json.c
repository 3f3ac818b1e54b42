// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A timeline as Chrome/Perfetto trace-event JSON (the "JSON Array/Object
 * Format" both viewers open): name metadata per thread, then a "B" and an
 * "E" event per slice, in each thread's time order. B/E pairs rather than
 * "X" events, so that a viewer never has to infer the nesting from
 * durations that may be equal. An atomic event is a thread-scoped instant
 * event ("i", "s":"t") with its value in args, placed among the B and E
 * events by time: after a B of the same stamp, before an E of the same
 * stamp, so it sits inside the slices open when it was recorded.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "trace/trace.h"

/* Any bytes: comm and user names are not restricted to printable ASCII. */
static void put_chars(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			putc(c, out);
	}
}

static void put_string(FILE *out, const char *s)
{
	putc('"', out);
	put_chars(out, s);
	putc('"', out);
}

/* The stream and whether an element was written: "," goes between them. */
struct json_out {
	FILE *f;
	bool started;
};

static FILE *next_element(struct json_out *o)
{
	fputs(o->started ? ",\n" : "\n", o->f);
	o->started = true;
	return o->f;
}

/* Microseconds since the first event, with three decimals, without
 * floating point (so no locale and no rounding makes two stamps swap). */
static int put_ts(FILE *out, uint64_t tsc, uint64_t first, uint64_t khz)
{
	uint64_t ns;
	int ret = ktau__cycles_to_ns(tsc - first, khz, &ns);

	if (ret)
		return ret;
	fprintf(out, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
	return 0;
}

static int put_event(struct json_out *o, char ph, const struct ktau_trace_thread *th,
		     const struct ktau_trace_slice *s, uint64_t tsc, uint64_t first,
		     uint64_t khz)
{
	uint32_t pid = th->pid ? th->pid : th->tid;
	FILE *out = next_element(o);
	int ret;

	fprintf(out, "{\"ph\":\"%c\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"ts\":",
		ph, pid, th->tid);
	ret = put_ts(out, tsc, first, khz);
	if (ret)
		return ret;
	if (ph == 'B') {
		fputs(",\"name\":", out);
		put_string(out, s->name);
		fputs(",\"cat\":", out);
		if (s->origin == KTAU_TRACE_USER) {
			put_string(out, "user");
		} else {
			fputs("\"kernel,", out);
			put_chars(out, s->group);
			putc('"', out);
		}
		if (s->flags)
			fprintf(out, ",\"args\":{\"begin_unknown\":%s,\"end_unknown\":%s}",
				s->flags & KTAU_SLICE_BEGIN_UNKNOWN ? "true" : "false",
				s->flags & KTAU_SLICE_END_UNKNOWN ? "true" : "false");
	}
	putc('}', out);
	return 0;
}

static void put_names(struct json_out *o, const struct ktau_trace_thread *th)
{
	uint32_t pid = th->pid ? th->pid : th->tid;
	FILE *out = o->f;

	if (pid == th->tid) {
		fprintf(next_element(o), "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%" PRIu32
			",\"tid\":%" PRIu32 ",\"args\":{\"name\":", pid, th->tid);
		put_string(out, th->comm);
		fputs("}}", out);
	}
	fprintf(next_element(o), "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%" PRIu32
		",\"tid\":%" PRIu32 ",\"args\":{\"name\":", pid, th->tid);
	put_string(out, th->comm);
	fputs("}}", out);
}

/* The thread's atomic events from *next on that come before tsc (at tsc
 * too when at_too), as instant events. */
static int put_atomics(struct json_out *o, const struct ktau_trace_thread *th, size_t *next,
		       uint64_t tsc, bool at_too, uint64_t first, uint64_t khz)
{
	uint32_t pid = th->pid ? th->pid : th->tid;
	size_t n = ktau_trace_thread_atomic_count(th);

	for (; *next < n; ++*next) {
		const struct ktau_trace_atomic *a = ktau_trace_thread_atomic(th, *next);
		FILE *out;
		int ret;

		if (a->tsc > tsc || (a->tsc == tsc && !at_too))
			break;
		out = next_element(o);
		fprintf(out, "{\"ph\":\"i\",\"s\":\"t\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
			",\"ts\":", pid, th->tid);
		ret = put_ts(out, a->tsc, first, khz);
		if (ret)
			return ret;
		fputs(",\"name\":", out);
		put_string(out, a->name);
		fputs(",\"cat\":\"kernel,", out);
		put_chars(out, a->group);
		fprintf(out, "\",\"args\":{\"value\":%" PRIu64 "}}", a->value);
	}
	return 0;
}

/* B and E events of one thread: an E as soon as the next slice is not
 * inside the slice it ends; its atomic events merged in by time. */
static int put_thread(struct json_out *out, const struct ktau_trace_thread *th, uint64_t first,
		      uint64_t khz)
{
	size_t *open = malloc((th->nr_slices ? th->nr_slices : 1) * sizeof(*open));
	size_t depth = 0, next = 0, i;
	int ret = 0;

	if (!open)
		return -ENOMEM;
	for (i = 0; !ret && i <= th->nr_slices; i++) {
		const struct ktau_trace_slice *s = i < th->nr_slices ?
						   ktau_trace_thread_slice(th, i) : NULL;

		while (!ret && depth && (!s || s->parent != open[depth - 1])) {
			const struct ktau_trace_slice *o = ktau_trace_thread_slice(th,
										   open[--depth]);

			ret = put_atomics(out, th, &next, o->end, true, first, khz);
			if (!ret)
				ret = put_event(out, 'E', th, o, o->end, first, khz);
		}
		if (!ret && s) {
			ret = put_atomics(out, th, &next, s->begin, false, first, khz);
			if (!ret)
				ret = put_event(out, 'B', th, s, s->begin, first, khz);
			open[depth++] = i;
		}
	}
	if (!ret)
		ret = put_atomics(out, th, &next, UINT64_MAX, true, first, khz);
	free(open);
	return ret;
}

int ktau_trace_timeline_write_json(const struct ktau_trace_timeline *tl, FILE *out)
{
	struct json_out o = { out, false };
	uint64_t khz, first;
	size_t i;
	int ret = 0;

	if (!tl || !out)
		return -EINVAL;
	khz = ktau_trace_timeline_tsc_khz(tl);
	first = ktau_trace_timeline_first_tsc(tl);
	if (!khz)
		return -EINVAL;
	fprintf(out, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"libktau\","
		"\"tsc_khz\":\"%" PRIu64 "\",\"first_tsc\":\"%" PRIu64 "\"},\"traceEvents\":[",
		khz, first);
	for (i = 0; i < ktau_trace_timeline_thread_count(tl); i++)
		put_names(&o, ktau_trace_timeline_thread(tl, i));
	for (i = 0; !ret && i < ktau_trace_timeline_thread_count(tl); i++)
		ret = put_thread(&o, ktau_trace_timeline_thread(tl, i), first, khz);
	if (ret)
		return ret;
	fputs("\n]}\n", out);
	if (fflush(out) || ferror(out))
		return -EIO;
	return 0;
}
