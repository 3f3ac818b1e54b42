// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One thread's user callpath tree merged with its kernel profile. The
 * kernel keyed each kernel routine by the context id the thread had
 * stored when it entered the kernel, and that id is a callpath node: so
 * `main => io` with id 2 gets `main => io => sys_read()` from the records
 * of ctx 2, and its exclusive time loses the kernel time spent there.
 * Records of context 0 (no timer running, or before the thread
 * registered) go under the top-level "[no user context]".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prof/prof.h"

/* Kernel time and calls entered from user mode, per context. */
struct ctx_kernel {
	uint64_t cycles;
	uint64_t calls;
};

struct merge {
	const struct ktau_ut_sample *nodes;
	size_t count;
	const struct ktau_timer_names *names;
	struct ctx_kernel *kernel;	/* [0]: no user context; [i + 1]: node i */
	const char **path;		/* scratch: the names of one callpath */
	size_t path_cap;
	struct ktau_merge_stats *stats;
};

/* The context's bucket: unknown ids (a stale word, a kernel bug) count as
 * no user context, and are counted. */
static size_t bucket(struct merge *m, uint64_t ctx)
{
	if (ctx <= m->count)
		return (size_t)ctx;
	m->stats->unknown_ctx_records++;
	return 0;
}

static int sum_toplevel(void *arg, const struct ktau_toplevel *tl)
{
	struct merge *m = arg;
	struct ctx_kernel *k = &m->kernel[bucket(m, tl->ctx)];

	k->cycles += tl->incl;
	k->calls += tl->calls;
	return 0;
}

static const char *timer_name(const struct merge *m, uint32_t timer, const char **group)
{
	const char *name = m->names->name(m->names->arg, timer, group);

	return name ? name : "[unknown timer]";
}

/* m->path[0..depth) = the names of node index's callpath, root first. */
static const char *const *node_path(struct merge *m, uint32_t index, size_t *depth)
{
	size_t n = 0, i;
	uint32_t j;

	for (j = index; j < m->count; j = m->nodes[j].parent)
		n++;
	if (n > m->path_cap) {
		const char **p = realloc(m->path, n * sizeof(*p));

		if (!p)
			return NULL;
		m->path = p;
		m->path_cap = n;
	}
	for (i = n, j = index; i-- > 0; j = m->nodes[j].parent)
		m->path[i] = timer_name(m, m->nodes[j].timer, &(const char *){ NULL });
	*depth = n;
	return m->path;
}

static const char *const *ctx_path(void *arg, uint64_t ctx, size_t *depth)
{
	static const char *const none[] = { KTAU_NO_USER_CONTEXT };
	struct merge *m = arg;
	size_t b = bucket(m, ctx);

	if (b == 0) {
		*depth = 1;
		return none;
	}
	return node_path(m, (uint32_t)(b - 1), depth);
}

/* A recursive call's inclusive time is inside its outer call's already. */
static bool outermost(const struct merge *m, uint32_t index)
{
	uint32_t j;

	for (j = m->nodes[index].parent; j < m->count; j = m->nodes[j].parent)
		if (m->nodes[j].timer == m->nodes[index].timer)
			return false;
	return true;
}

static int add_node(struct merge *m, struct ktau_model_thread *t, uint32_t index,
		    uint64_t khz)
{
	const struct ktau_ut_sample *s = &m->nodes[index];
	const struct ctx_kernel *k = &m->kernel[index + 1];
	uint64_t excl = s->excl, incl_ns, excl_ns, subrs = s->subrs + k->calls;
	const char *const *path;
	const char *name, *group = NULL;
	size_t depth;
	int ret;

	if (k->cycles > excl) {
		m->stats->clamped_nodes++;
		excl = 0;
	} else {
		excl -= k->cycles;
	}
	ret = ktau__cycles_to_ns(s->incl, khz, &incl_ns);
	if (!ret)
		ret = ktau__cycles_to_ns(excl, khz, &excl_ns);
	if (ret)
		return ret;
	name = timer_name(m, s->timer, &group);
	ret = ktau_model_add_routine(t, name, group, s->calls, subrs,
				     outermost(m, index) ? incl_ns : 0, excl_ns);
	if (ret)
		return ret;
	path = node_path(m, index, &depth);
	if (!path)
		return -ENOMEM;
	if (depth < 2)
		return 0;
	return ktau_model_add_callpath(t, path, depth, s->calls, subrs, incl_ns, excl_ns);
}

/* The top-level pseudo-routine holding context 0's kernel time. */
static int add_no_context(struct ktau_model_thread *t, const struct ctx_kernel *k,
			  uint64_t khz)
{
	uint64_t ns;
	int ret = ktau__cycles_to_ns(k->cycles, khz, &ns);

	if (ret)
		return ret;
	return ktau_model_add_routine(t, KTAU_NO_USER_CONTEXT, KTAU_NO_USER_CONTEXT_GROUP,
				      1, k->calls, ns, 0);
}

/* Whether any record falls outside the user nodes' contexts. */
static bool needs_no_context(const struct merge *m, const struct ktau_block *b)
{
	size_t i;

	for (i = 0; i < ktau_block_func_count(b); i++)
		if (ktau_block_func(b, i)->ctx == 0 || ktau_block_func(b, i)->ctx > m->count)
			return true;
	for (i = 0; i < ktau_block_event_count(b); i++)
		if (ktau_block_event(b, i)->ctx == 0 || ktau_block_event(b, i)->ctx > m->count)
			return true;
	return false;
}

int ktau__merge_thread(struct ktau_model_thread *t, const struct ktau_ut_sample *nodes,
		       size_t count, const struct ktau_timer_names *names,
		       const struct ktau_block *kernel, uint64_t khz,
		       struct ktau_merge_stats *stats)
{
	struct merge m = { nodes, count, names, NULL, NULL, 0, stats };
	size_t i;
	int ret = 0;

	if (!t || (count && !nodes) || !names || !khz || !stats || count >= UINT32_MAX)
		return -EINVAL;
	m.kernel = calloc(count + 1, sizeof(*m.kernel));
	if (!m.kernel)
		return -ENOMEM;
	if (kernel)
		ret = ktau__kernel_toplevel(kernel, sum_toplevel, &m);
	/* the unknown contexts were counted once here; ctx_path counts again */
	if (!ret && kernel && needs_no_context(&m, kernel))
		ret = add_no_context(t, &m.kernel[0], khz);
	for (i = 0; i < count && !ret; i++)
		ret = add_node(&m, t, (uint32_t)i, khz);
	if (!ret && kernel) {
		struct ktau_merge_stats counted = *stats;

		ret = ktau__model_add_kernel(t, kernel, khz, ctx_path, &m);
		*stats = counted;
	}
	free(m.path);
	free(m.kernel);
	return ret;
}

static const char *event_name(const struct ktau_timer_names *names, uint32_t event)
{
	const char *name = names->event ? names->event(names->arg, event) : NULL;

	return name ? name : "[unknown event]";
}

int ktau__merge_events(struct ktau_model_thread *t, const struct ktau_ut_sample *nodes,
		       size_t count, const struct ktau_timer_names *names,
		       const struct ktau_ue_sample *events, size_t nr_events)
{
	struct ktau_merge_stats unused = { 0 };
	struct merge m = { nodes, count, names, NULL, NULL, 0, &unused };
	size_t i;
	int ret = 0;

	if (!t || (count && !nodes) || !names || (nr_events && !events))
		return -EINVAL;
	for (i = 0; i < nr_events && !ret; i++) {
		const struct ktau_ue_sample *e = &events[i];
		const char *name = event_name(names, e->event);
		const char *const *path;
		char *context;
		size_t depth;

		ret = ktau_model_add_event(t, name, e->count, e->min, e->max, e->sum,
					   e->sumsq);
		/* a context beyond the nodes (a snapshot's race) stays flat */
		if (ret || !e->ctx || e->ctx > count)
			continue;
		path = node_path(&m, e->ctx - 1, &depth);
		context = path ? ktau__context_event_name(name, path, depth) : NULL;
		if (!context) {
			ret = -ENOMEM;
			break;
		}
		ret = ktau_model_add_event(t, context, e->count, e->min, e->max, e->sum,
					   e->sumsq);
		free(context);
	}
	free(m.path);
	return ret;
}
