// SPDX-License-Identifier: GPL-2.0-or-later
/* A sample model is labelled as samples in every format, never as time. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "testutil.h"

static struct ktau_model *sample_model(void)
{
	struct ktau_model *m = ktau_model_new();
	struct ktau_model_thread *t;
	const char *path[] = { "main", "work" };

	if (!m || ktau_model_set_metric(m, KTAU_METRIC_SAMPLES))
		goto fail;
	t = ktau_model_add_thread(m, 0, 0, 0, "perf");
	if (!t || ktau_model_add_routine(t, "main", "app", 7, 5, 7, 2) ||
	    ktau_model_add_routine(t, "work", "app", 5, 0, 5, 5) ||
	    ktau_model_add_callpath(t, path, 2, 5, 0, 5, 5))
		goto fail;
	return m;
fail:
	ktau_model_free(m);
	return NULL;
}

TEST(model_metric_rules)
{
	struct ktau_model *m = ktau_model_new();
	struct ktau_profile *p = load_profile(test_fixture("thread.ktau"), NULL);

	ASSERT_NOT_NULL(m);
	ASSERT_NOT_NULL(p);
	ASSERT_EQ(KTAU_METRIC_TIME, ktau_model_get_metric(m));
	ASSERT_EQ(-EINVAL, ktau_model_set_metric(m, (enum ktau_model_metric)7));
	ASSERT_EQ(-EINVAL, ktau_model_set_metric(NULL, KTAU_METRIC_SAMPLES));
	ASSERT_EQ(0, ktau_model_set_metric(m, KTAU_METRIC_SAMPLES));
	/* kernel blocks are time: a sample model refuses them */
	ASSERT_NULL(ktau_model_add_block(m, p, 0, 0, 0, 0));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(0, ktau_model_set_metric(m, KTAU_METRIC_TIME));
	ASSERT_NOT_NULL(ktau_model_add_block(m, p, 0, 0, 0, 0));
	/* a model with threads keeps its metric */
	ASSERT_EQ(-EINVAL, ktau_model_set_metric(m, KTAU_METRIC_SAMPLES));
	ASSERT_EQ(0, ktau_model_set_metric(m, KTAU_METRIC_TIME));
	ASSERT_EQ(KTAU_METRIC_TIME, ktau_model_get_metric(m));
	ktau_profile_free(p);
	ktau_model_free(m);
}

TEST(model_metric_samples_in_every_format)
{
	struct ktau_model *m = sample_model();
	char *dir = make_tmpdir(), *text, path[4200];
	size_t len;

	ASSERT_NOT_NULL(m);
	ASSERT_NOT_NULL(dir);
	ASSERT_EQ(0, ktau_model_write_tau(m, dir));
	snprintf(path, sizeof(path), "%s/profile.0.0.0", dir);
	text = slurp(path, NULL);
	ASSERT_NOT_NULL(text);
	/* counts, not microseconds */
	ASSERT_TRUE(!strncmp(text, "3 templated_functions_MULTI_SAMPLES\n", 36));
	ASSERT_CONTAINS(text, "\n\"main\" 7 5 2 7 0 GROUP=\"app\"\n");
	ASSERT_CONTAINS(text, "\n\"main => work\" 5 0 5 5 0 GROUP=\"TAU_CALLPATH | app\"\n");
	free(text);
	text = model_text(m, KTAU_FORMAT_CALLGRIND, NULL);
	ASSERT_NOT_NULL(text);
	ASSERT_CONTAINS(text, "\nevent: samples : Samples\nevents: samples\n");
	ASSERT_CONTAINS(text, "fn=(1) main\n0 2\ncfn=(2) work\ncalls=5 0\n0 5\n");
	free(text);
	text = model_text(m, KTAU_FORMAT_JSON, NULL);
	ASSERT_NOT_NULL(text);
	ASSERT_TRUE(!strncmp(text, "{\"format\": \"ktau-model\", \"version\": 1, "
			     "\"metric\": \"samples\",\n", 57));
	ASSERT_CONTAINS(text, "\"calls\": 7, \"subrs\": 5, \"inclusive_samples\": 7, "
			"\"exclusive_samples\": 2}");
	ASSERT_NOT_CONTAINS(text, "_ns");
	free(text);
	text = model_text(m, KTAU_FORMAT_FOLDED, NULL);
	ASSERT_STREQ("perf;main;work 5\nperf;main 2\n", text);
	free(text);
	text = model_text(m, KTAU_FORMAT_PPROF, &len);
	ASSERT_NOT_NULL(text);
	ASSERT_NOT_NULL(memmem(text, len, "samples", 7));
	ASSERT_NULL(memmem(text, len, "nanoseconds", 11));
	free(text);
	remove_tree(dir);
	free(dir);
	ktau_model_free(m);
}
