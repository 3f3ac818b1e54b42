// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Sampled stacks as a thread of a sample model: a routine per frame name,
 * a callpath per stack prefix of two or more frames. A routine's inclusive
 * count takes each sample once, however often recursion puts the routine
 * on that sample's stack; a callpath's is the samples along that exact path.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "stacks/stacks.h"

static const char *const source_names[] = {
	[KTAU_STACKS_PERF] = "perf script",
	[KTAU_STACKS_STAP] = "SystemTap",
	[KTAU_STACKS_DTRACE] = "DTrace",
};

static int add_metadata(struct ktau_model_thread *t, const struct ktau_stacks *s)
{
	char num[3][24];
	const char *md[][2] = {
		{ "stacks source", source_names[s->format] },
		{ "samples", num[0] },
		{ "samples without a stack", num[1] },
		{ "distinct stacks", num[2] },
	};
	size_t i;
	int ret = 0;

	snprintf(num[0], sizeof(num[0]), "%" PRIu64, s->samples);
	snprintf(num[1], sizeof(num[1]), "%" PRIu64, s->empty_samples);
	snprintf(num[2], sizeof(num[2]), "%zu", s->nr_stacks);
	for (i = 0; i < KTAU_ARRAY_SIZE(md) && !ret; i++)
		ret = ktau_model_add_metadata(t, md[i][0], md[i][1]);
	return ret;
}

struct frame_counts {
	uint64_t incl, excl;
	size_t seen_in;		/* the stack (leaf node + 1) that counted it last */
};

/* Per frame: the samples whose stack holds it, and those it is the leaf of. */
static struct frame_counts *count_frames(const struct ktau_stacks *s)
{
	struct frame_counts *c = calloc(s->nr_frames ? s->nr_frames : 1, sizeof(*c));
	size_t leaf;

	if (!c)
		return NULL;
	for (leaf = 1; leaf < s->nr_nodes; leaf++) {
		const struct ktau_stack_node *n = &s->nodes[leaf];
		uint32_t i;

		if (!n->excl)
			continue;
		c[n->frame].excl += n->excl;
		for (i = (uint32_t)leaf; i; i = s->nodes[i].parent) {
			struct frame_counts *f = &c[s->nodes[i].frame];

			if (f->seen_in == leaf + 1)
				continue;	/* recursion: once per stack */
			f->seen_in = leaf + 1;
			f->incl += n->excl;
		}
	}
	return c;
}

static int add_routines(struct ktau_model_thread *t, const struct ktau_stacks *s)
{
	struct frame_counts *c = count_frames(s);
	size_t i;
	int ret = 0;

	if (!c)
		return -ENOMEM;
	for (i = 0; i < s->nr_frames && !ret; i++) {
		if (!c[i].incl)
			continue;	/* only in stacks counted 0 times */
		ret = ktau_model_add_routine(t, s->frames[i].name,
					     s->frames[i].module ? s->frames[i].module : "unknown",
					     c[i].incl, c[i].incl - c[i].excl,
					     c[i].incl, c[i].excl);
	}
	free(c);
	return ret;
}

static int add_callpath(void *arg, const struct ktau_stack_node *node,
			const char *const *path, size_t depth)
{
	if (depth < 2)
		return 0;
	return ktau_model_add_callpath(arg, path, depth, node->incl,
				       node->incl - node->excl, node->incl, node->excl);
}

struct ktau_model_thread *ktau_model_add_stacks(struct ktau_model *m,
						const struct ktau_stacks *s,
						unsigned int node, unsigned int context,
						unsigned int thread, const char *label)
{
	enum ktau_model_metric was;
	struct ktau_model_thread *t;
	char def[64];
	int ret;

	if (!m || !s || (m->nr_threads && m->metric != KTAU_METRIC_SAMPLES)) {
		errno = EINVAL;
		return NULL;
	}
	was = m->metric;
	m->metric = KTAU_METRIC_SAMPLES;
	if (!label) {
		snprintf(def, sizeof(def), "%s samples", ktau_stacks_format_name(s->format));
		label = def;
	}
	t = ktau_model_add_thread(m, node, context, thread, label);
	if (!t) {
		m->metric = was;
		return NULL;
	}
	ret = add_metadata(t, s);
	if (!ret)
		ret = add_routines(t, s);
	if (!ret)
		ret = ktau__stacks_walk(s, add_callpath, t);
	if (ret) {
		ktau__model_drop_last_thread(m);
		m->metric = was;
		errno = -ret;
		return NULL;
	}
	return t;
}
