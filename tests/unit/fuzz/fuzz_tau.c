// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the TAU profile reader (make -C tests/unit fuzz).
 * Whatever parses must hand out only what the format allows; a broken
 * invariant aborts, which libFuzzer reports.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ktau.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct ktau_tau_thread *t)
{
	size_t i;

	if (!ktau_tau_thread_metric(t) || !*ktau_tau_thread_metric(t))
		abort();
	for (i = 0; i < ktau_tau_thread_function_count(t); i++) {
		const struct ktau_tau_function *f = ktau_tau_thread_function(t, i);

		if (!*f->name || !f->groups || f->depth < 1 || !isfinite(f->excl) ||
		    !isfinite(f->incl) || f->excl < 0 || f->incl < 0 ||
		    ktau_tau_thread_find_function(t, f->name) != f)
			abort();
	}
	if (ktau_tau_thread_function(t, i))
		abort();
	for (i = 0; i < ktau_tau_thread_event_count(t); i++) {
		const struct ktau_tau_event *e = ktau_tau_thread_event(t, i);

		if (!*e->name || !isfinite(e->max) || !isfinite(e->min) || e->sumsq < 0)
			abort();
	}
	for (i = 0; i < ktau_tau_thread_metadata_count(t); i++) {
		const struct ktau_tau_metadata *m = ktau_tau_thread_metadata(t, i);

		if (!*m->name || !m->value)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ktau_error *err;
	struct ktau_tau_thread *t = ktau_tau_thread_parse((const char *)data, size, &err);

	if (t) {
		if (err)
			abort();
		check(t);
		ktau_tau_thread_free(t);
	} else {
		if (!err || ktau_error_code(err) >= 0 || !*ktau_error_message(err))
			abort();
		ktau_error_free(err);
	}
	return 0;
}
