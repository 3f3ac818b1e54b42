// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What a model's values measure: time (ns), or samples when the model came
 * from sampled call stacks. The writers take names and scales from here,
 * so a sample count is never labelled as time in any format.
 */
#include <errno.h>

#include "model/model.h"

static const struct ktau_metric_info metrics[] = {
	[KTAU_METRIC_TIME] = {
		.tau_metric = "TIME",
		.tau_divisor = 1000.0,	/* TAU times are microseconds */
		.pprof_type = "time",
		.pprof_unit = "nanoseconds",
		.pprof_calls = 1,
		.callgrind_event = "ns",
		.callgrind_description = "Time (ns)",
		.json_suffix = "ns",
	},
	[KTAU_METRIC_SAMPLES] = {
		.tau_metric = "SAMPLES",
		.tau_divisor = 1.0,
		.pprof_type = "samples",
		.pprof_unit = "count",
		/* a sample model's calls are inclusive samples: as a pprof
		 * value they would add up to nothing meaningful */
		.pprof_calls = 0,
		.callgrind_event = "samples",
		.callgrind_description = "Samples",
		.json_suffix = "samples",
	},
};

#define NR_METRICS KTAU_ARRAY_SIZE(metrics)

const struct ktau_metric_info *ktau__metric_info(const struct ktau_model *m)
{
	return &metrics[m->metric];
}

int ktau_model_set_metric(struct ktau_model *m, enum ktau_model_metric metric)
{
	if (!m || (size_t)metric >= NR_METRICS)
		return -EINVAL;
	if (m->nr_threads && m->metric != metric)
		return -EINVAL;
	m->metric = metric;
	return 0;
}

enum ktau_model_metric ktau_model_get_metric(const struct ktau_model *m)
{
	return m ? m->metric : KTAU_METRIC_TIME;
}
