// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the trace reader (docs/trace-format.md): events,
 * the per-thread rebuild and the JSON writer on whatever opens, and the
 * user-trace copy ktau-trace does.
 */
#define _GNU_SOURCE	/* fmemopen */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
	return 0;
}
