// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for one stack importer, named at build time
 * (-DFUZZ_STACKS_FORMAT='"perf"', "stap" or "dtrace"): make -C tests/unit fuzz
 * Whatever parses must keep its counts consistent through the model and
 * the writers; a broken invariant aborts, which libFuzzer reports.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <ktau.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct totals {
	uint64_t samples;
	size_t stacks;
};

static int add_stack(void *arg, const char *const *frames, size_t depth, uint64_t count)
{
	struct totals *t = arg;

	if (!depth || depth > KTAU_STACKS_MAX_DEPTH || !count || !frames[depth - 1][0])
		abort();
	t->samples += count;
	t->stacks++;
	return 0;
}

static void check_model(const struct ktau_stacks *s)
{
	struct ktau_model *m = ktau_model_new();
	const struct ktau_model_thread *t = m ? ktau_model_add_stacks(m, s, 0, 0, 0, NULL) : NULL;
	uint64_t leaves = 0;
	char *buf = NULL;
	size_t i, len = 0;
	FILE *out;

	if (!t) {
		if (errno != ENOMEM)
			abort();	/* counts that parsed always fit the model */
		ktau_model_free(m);
		return;
	}
	for (i = 0; i < ktau_model_routine_count(t); i++) {
		const struct ktau_model_routine *r = ktau_model_routine(t, i);

		if (r->excl_ns > r->incl_ns || r->incl_ns > ktau_stacks_samples(s))
			abort();
		leaves += r->excl_ns;
	}
	if (leaves != ktau_stacks_samples(s))
		abort();	/* every sample has exactly one leaf */
	out = open_memstream(&buf, &len);
	if (out) {
		ktau_model_write_stream(m, KTAU_FORMAT_FOLDED, out);
		ktau_model_write_stream(m, KTAU_FORMAT_PPROF, out);
		ktau_model_write_stream(m, KTAU_FORMAT_CALLGRIND, out);
		fclose(out);
	}
	free(buf);
	ktau_model_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int format = ktau_stacks_format_from_name(FUZZ_STACKS_FORMAT);
	struct ktau_error *err;
	struct ktau_stacks *s;
	struct totals t = { 0, 0 };

	ktau_stacks_detect((const char *)data, size);
	s = ktau_stacks_parse((const char *)data, size, (enum ktau_stacks_format)format, &err);
	if (!s) {
		if (!ktau_error_code(err) || !ktau_error_message(err)[0])
			abort();	/* every failure says why */
		ktau_error_free(err);
		return 0;
	}
	if (ktau_stacks_foreach(s, add_stack, &t) || t.samples != ktau_stacks_samples(s) ||
	    t.stacks != ktau_stacks_count(s))
		abort();
	check_model(s);
	ktau_stacks_free(s);
	return 0;
}
