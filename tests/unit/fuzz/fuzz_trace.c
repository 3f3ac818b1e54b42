// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the trace reader (docs/trace-format.md): events,
 * the per-thread rebuild and the JSON writer on whatever opens, and the
 * user-trace copy ktau-trace does.  And the tally ktau-trace keeps of what
 * it writes: fed whole and in pieces it must say the same, and where the
 * reader reads the whole stream the tally must accept it with the
 * reader's counts (it does not read names, so it may accept more).
 */
#define _GNU_SOURCE	/* fmemopen */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ktau.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct ktau_trace *open_buf(const uint8_t *data, size_t size, FILE **f)
{
	*f = size ? fmemopen((void *)data, size, "r") : NULL;
	if (!*f)
		return NULL;
	{
		KTAU_OPTS(ktau_load_opts, lo, .stream = *f);

		return ktau_trace_open(&lo, NULL);
	}
}

/* The tally of data fed in pieces of piece bytes: its result and counts. */
static int tally(const uint8_t *data, size_t size, size_t piece, uint64_t counts[4])
{
	struct ktau_trace_tally *t = ktau_trace_tally_new(NULL);
	size_t off = 0;
	int ret = 0;

	if (!t)
		return -1;
	for (; !ret && off < size; off += piece)
		ret = ktau_trace_tally_feed(t, data + off, size - off < piece ? size - off : piece,
					    NULL);
	if (!ret)
		ret = ktau_trace_tally_end(t, NULL);
	counts[0] = ktau_trace_tally_events(t, KTAU_TRACE_KERNEL);
	counts[1] = ktau_trace_tally_events(t, KTAU_TRACE_USER);
	counts[2] = ktau_trace_tally_lost(t, KTAU_TRACE_KERNEL);
	counts[3] = ktau_trace_tally_lost(t, KTAU_TRACE_USER);
	ktau_trace_tally_free(t);
	return ret;
}

/* The reader's counts as the tally's; 0 when it read to the end. */
static int reader(const uint8_t *data, size_t size, uint64_t counts[4])
{
	const struct ktau_trace_event *ev;
	struct ktau_trace *t;
	unsigned int cpu;
	FILE *f;
	int ret;

	t = open_buf(data, size, &f);
	if (!t) {
		if (f)
			fclose(f);
		return -1;
	}
	counts[0] = counts[1] = 0;
	while ((ret = ktau_trace_next(t, &ev, NULL)) > 0)
		counts[ev->origin == KTAU_TRACE_USER]++;
	counts[2] = 0;
	for (cpu = 0; cpu < ktau_trace_nr_cpus(t) && cpu <= 0xffff; cpu++)
		counts[2] += ktau_trace_lost(t, cpu);
	counts[3] = ktau_trace_lost_user(t);
	ktau_trace_close(t);
	fclose(f);
	return ret;
}

static void check_tally(const uint8_t *data, size_t size)
{
	uint64_t whole[4], pieces[4], read[4];
	int ret = tally(data, size, size ? size : 1, whole);

	if (tally(data, size, 7, pieces) != ret || memcmp(whole, pieces, sizeof(whole)))
		abort();
	if (!reader(data, size, read) && (ret || memcmp(whole, read, sizeof(read))))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f, *sink = fopen("/dev/null", "w");
	struct ktau_trace *t = open_buf(data, size, &f);

	if (t) {
		struct ktau_trace_timeline *tl = ktau_trace_timeline(t, NULL);

		if (tl && sink)
			ktau_trace_timeline_write_json(tl, sink);
		ktau_trace_timeline_free(tl);
		ktau_trace_lost(t, 0);
		ktau_trace_close(t);
	}
	if (f) {
		rewind(f);
		if (sink) {
			KTAU_OPTS(ktau_load_opts, lo, .stream = f);

			ktau_trace_append_user(sink, &lo, 1, NULL);
		}
		fclose(f);
	}
	if (sink)
		fclose(sink);
	check_tally(data, size);
	return 0;
}
