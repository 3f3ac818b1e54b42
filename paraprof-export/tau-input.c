// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * TAU profiles into the model, through libktau's TAU reader (one parser of
 * the format, ktau_tau_dir_read()): each profile.N.C.T is thread (N, C, T)
 * labelled by its "Thread Label" metadata; a flat function is a routine
 * with its groups, a callpath "a => b => c" a callpath (TAU's callpath
 * group is not kept: the model's callpaths have none); events and the
 * other metadata are kept. TIME profiles are in microseconds and become
 * nanoseconds (rounded); SAMPLES profiles (ktau-stacks -t tau) make a
 * sample model. Other metrics are refused: the model holds time or
 * samples.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ktau.h>

#include "tau-input.h"

#define PATH_SEP "=>"
#define LABEL_METADATA "Thread Label"

/* A TAU value in the model's unit; -EOVERFLOW past 64 bits. */
static int model_value(double v, bool samples, uint64_t *out)
{
	double x = (samples ? v : v * 1000) + 0.5;	/* the reader gives v >= 0 */

	if (!(x < 0x1p64))
		return -EOVERFLOW;
	*out = (uint64_t)x;
	return 0;
}

/* "a => b => c" (the reader's depth counts the "=>"; the model trims the
 * blanks around each element); 0, -ENOMEM, or -EINVAL for an empty element. */
static int add_callpath(struct ktau_model_thread *mt, const struct ktau_tau_function *f,
			uint64_t incl, uint64_t excl)
{
	char *copy = strdup(f->name), *p = copy;
	const char **path = calloc(f->depth, sizeof(*path));
	size_t n;
	int ret = -ENOMEM;

	if (copy && path) {
		for (n = 0; n < f->depth; n++) {
			char *sep = strstr(p, PATH_SEP);

			path[n] = p;
			if (sep) {
				*sep = '\0';
				p = sep + strlen(PATH_SEP);
			}
		}
		ret = ktau_model_add_callpath(mt, path, f->depth, f->calls, f->subrs, incl, excl);
	}
	free(path);
	free(copy);
	return ret;
}

static int add_function(struct ktau_model_thread *mt, const struct ktau_tau_function *f,
			bool samples)
{
	uint64_t incl, excl;
	int ret = model_value(f->incl, samples, &incl);

	if (!ret)
		ret = model_value(f->excl, samples, &excl);
	if (ret)
		return ret;
	if (f->depth > 1)
		return add_callpath(mt, f, incl, excl);
	return ktau_model_add_routine(mt, f->name, *f->groups ? f->groups : NULL, f->calls,
				      f->subrs, incl, excl);
}

/* One file's functions, events and metadata into thread mt; on failure
 * what failed in msg. */
static int add_thread(struct ktau_model_thread *mt, const struct ktau_tau_thread *t,
		      bool samples, char *what, size_t size)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < ktau_tau_thread_function_count(t) && !ret; i++) {
		const struct ktau_tau_function *f = ktau_tau_thread_function(t, i);

		ret = add_function(mt, f, samples);
		if (ret)
			snprintf(what, size, "function '%s'", f->name);
	}
	for (i = 0; i < ktau_tau_thread_event_count(t) && !ret; i++) {
		const struct ktau_tau_event *e = ktau_tau_thread_event(t, i);

		ret = ktau_model_add_event(mt, e->name, e->count, e->min, e->max,
					   e->mean * (double)e->count, e->sumsq);
		if (ret)
			snprintf(what, size, "event '%s'", e->name);
	}
	for (i = 0; i < ktau_tau_thread_metadata_count(t) && !ret; i++) {
		const struct ktau_tau_metadata *md = ktau_tau_thread_metadata(t, i);

		if (!strcmp(md->name, LABEL_METADATA))
			continue;
		ret = ktau_model_add_metadata(mt, md->name, md->value);
		if (ret)
			snprintf(what, size, "metadata '%s'", md->name);
	}
	return ret;
}

struct ktau_model *tau_dir_model(const char *dir, char *msg, size_t size)
{
	struct ktau_error *err;
	struct ktau_tau_dir *d = ktau_tau_dir_read(dir, NULL, &err);
	struct ktau_model *m = NULL;
	const char *metric;
	bool samples;
	size_t i;
	int ret = 0;

	if (!d) {
		snprintf(msg, size, "%s", ktau_error_message(err));
		ktau_error_free(err);
		return NULL;
	}
	metric = ktau_tau_dir_metric(d);
	samples = !strcmp(metric, "SAMPLES");
	if (!samples && strcmp(metric, "TIME")) {
		snprintf(msg, size, "%s: metric %s: only TIME (microseconds) and SAMPLES "
			 "profiles can be converted", dir, metric);
		goto out;
	}
	m = ktau_model_new();
	ret = !m ? -ENOMEM : samples ? ktau_model_set_metric(m, KTAU_METRIC_SAMPLES) : 0;
	if (ret) {
		snprintf(msg, size, "%s: %s", dir, ktau_strerror(ret));
		goto fail;
	}
	for (i = 0; i < ktau_tau_dir_thread_count(d); i++) {
		const struct ktau_tau_thread *t = ktau_tau_dir_thread(d, i);
		const char *label = ktau_tau_thread_metadata_value(t, LABEL_METADATA);
		struct ktau_model_thread *mt;
		char what[600] = "the thread";

		mt = ktau_model_add_thread(m, ktau_tau_thread_node(t), ktau_tau_thread_context(t),
					   ktau_tau_thread_id(t), label);
		ret = mt ? add_thread(mt, t, samples, what, sizeof(what)) : -errno;
		if (ret) {
			snprintf(msg, size, "%s/profile.%u.%u.%u: %s: %s", dir,
				 ktau_tau_thread_node(t), ktau_tau_thread_context(t),
				 ktau_tau_thread_id(t), what, ktau_strerror(ret));
			goto fail;
		}
	}
	goto out;
fail:
	ktau_model_free(m);
	m = NULL;
out:
	ktau_tau_dir_free(d);
	return m;
}
