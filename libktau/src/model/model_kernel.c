// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A kernel profile block as a model thread, named the way TAU's KTAU merge
 * named kernel routines: sys_read(), schedule_vol(), groups
 * TAU_KERNEL_MERGE | KTAU_SYSCALL and so on.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

#define NAME_MAX_LEN 512

/* A record's inclusive and exclusive cycles in nanoseconds. */
static int times_ns(uint64_t incl_cycles, uint64_t excl_cycles, uint64_t khz,
		    uint64_t *incl, uint64_t *excl)
{
	int ret = ktau__cycles_to_ns(incl_cycles, khz, incl);

	return ret ? ret : ktau__cycles_to_ns(excl_cycles, khz, excl);
}

/* The kernel's group name -> the TAU group string. */
static void tau_group(const char *group, char *buf, size_t size)
{
	static const struct {
		const char *kernel;
		const char *tau;
	} map[] = {
		{ "syscall", "KTAU_SYSCALL" },
		{ "softirq", "KTAU_BH" },
		{ "irq", "KTAU_IRQ" },
		{ "sched", "KTAU_SCHEDULE" },
		{ "exception", "KTAU_EXCEPTION" },
		{ "kernel", "KTAU_KERNEL" },
	};
	size_t i, len;

	for (i = 0; i < KTAU_ARRAY_SIZE(map); i++) {
		if (!strcmp(group, map[i].kernel)) {
			snprintf(buf, size, "TAU_KERNEL_MERGE | %s", map[i].tau);
			return;
		}
	}
	len = (size_t)snprintf(buf, size, "TAU_KERNEL_MERGE | KTAU_");
	for (; *group && len + 1 < size; group++)
		buf[len++] = (char)toupper((unsigned char)*group);
	buf[len < size ? len : size - 1] = '\0';
}

static void routine_name(const char *name, const char *group, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s()", group && !strcmp(group, "syscall") ? "sys_" : "",
		 name);
}

static int add_func(struct ktau_model_thread *t, const struct ktau_func *f,
		    uint64_t khz)
{
	char name[NAME_MAX_LEN], group[128];
	uint64_t incl, excl;
	int ret;

	ret = times_ns(f->incl_cycles, f->excl_cycles, khz, &incl, &excl);
	if (ret)
		return ret;
	routine_name(f->name, f->group, name, sizeof(name));
	tau_group(f->group, group, sizeof(group));
	return ktau_model_add_routine(t, name, group, f->calls, 0, incl, excl);
}

/* a[0..na) followed by b[0..nb), in a malloc()ed array. */
static const char **path_concat(const char *const *a, size_t na,
				const char *const *b, size_t nb)
{
	const char **p = malloc((na + nb) * sizeof(*p));

	if (!p)
		return NULL;
	if (na)
		memcpy(p, a, na * sizeof(*p));
	memcpy(p + na, b, nb * sizeof(*p));
	return p;
}

/* The kernel names of path p's elements into names[]; in a v2 block each
 * element's flat routine also gets its group (a prefix may have no func). */
static int element_names(struct ktau_model_thread *t, const struct ktau_block *b,
			 const struct ktau_path *p,
			 char (*names)[NAME_MAX_LEN], const char **elems)
{
	char group[128];
	uint32_t k;
	int ret;

	for (k = 0; k < p->depth; k++) {
		const char *g, *name = ktau__path_element(b, p, k, &g);

		if (name)
			routine_name(name, g, names[k], NAME_MAX_LEN);
		else
			snprintf(names[k], NAME_MAX_LEN, "%u", p->fids[k]);
		elems[k] = names[k];
		if (b->edges_own || !g)
			continue;
		tau_group(g, group, sizeof(group));
		ret = ktau_model_add_routine(t, names[k], group, 0, 0, 0, 0);
		if (ret)
			return ret;
	}
	return 0;
}

/* Adds path p (depth >= 2) as callpath "[<prefix> =>] a => b => c", its
 * calls as subroutine calls of its caller. */
static int add_path(struct ktau_model_thread *t, const struct ktau_block *b,
		    const struct ktau_path *p, uint64_t khz,
		    const char *const *prefix, size_t depth)
{
	char names[KTAU_PATH_MAX_DEPTH][NAME_MAX_LEN];
	const char *elems[KTAU_PATH_MAX_DEPTH];
	const char **path;
	uint64_t incl, excl;
	int ret;

	ret = times_ns(p->incl_cycles, p->excl_cycles, khz, &incl, &excl);
	if (!ret)
		ret = element_names(t, b, p, names, elems);
	if (ret)
		return ret;
	path = path_concat(prefix, depth, elems, p->depth);
	if (!path)
		return -ENOMEM;
	ret = ktau_model_add_callpath(t, path, depth + p->depth, p->calls, 0, incl, excl);
	free(path);
	if (ret)
		return ret;
	return ktau_model_add_routine(t, names[p->depth - 2], NULL, 0, p->calls, 0, 0);
}

static int add_metadata(struct ktau_model_thread *t, const struct ktau_block *b,
			uint64_t khz)
{
	char num[4][24];
	const char *md[][2] = {
		{ "KTAU block", ktau_block_kind_name(ktau_block_kind(b)) },
		{ "KTAU pid", num[0] },
		{ "KTAU tid", num[1] },
		{ "KTAU comm", ktau_block_comm(b) },
		{ "KTAU tsc_khz", num[2] },
		{ "KTAU dropped", num[3] },
	};
	size_t i;
	int ret = 0;

	snprintf(num[0], sizeof(num[0]), "%d", (int)ktau_block_pid(b));
	snprintf(num[1], sizeof(num[1]), "%d", (int)ktau_block_tid(b));
	snprintf(num[2], sizeof(num[2]), "%" PRIu64, khz);
	snprintf(num[3], sizeof(num[3]), "%" PRIu64, ktau_block_dropped(b));
	for (i = 0; i < KTAU_ARRAY_SIZE(md) && !ret; i++)
		ret = ktau_model_add_metadata(t, md[i][0], md[i][1]);
	return ret;
}

static int add_event(struct ktau_model_thread *t, const struct ktau_event *e,
		     const char *name)
{
	return ktau_model_add_event(t, name, e->count, (double)e->min, (double)e->max,
				    (double)e->sum, (double)e->sumsq);
}

char *ktau__context_event_name(const char *event, const char *const *path, size_t depth)
{
	size_t i, len = strlen(event) + 4;
	char *name, *p;

	for (i = 0; i < depth; i++)
		len += strlen(path[i]) + 4;
	name = malloc(len);
	if (!name) {
		errno = ENOMEM;
		return NULL;
	}
	p = name + sprintf(name, "%s :", event);
	for (i = 0; i < depth; i++)
		p += sprintf(p, "%s %s", i ? " =>" : "", path[i]);
	return name;
}

static int add_context_event(struct ktau_model_thread *t, const struct ktau_event *e,
			     const char *const *path, size_t depth)
{
	char *name = ktau__context_event_name(e->name, path, depth);
	int ret;

	if (!name)
		return -ENOMEM;
	ret = add_event(t, e, name);
	free(name);
	return ret;
}

struct toplevel_ctx {
	struct ktau_model_thread *t;
	uint64_t khz;
	ktau_ctx_path_fn ctx_path;
	void *arg;
};

static int add_toplevel(void *arg, const struct ktau_toplevel *tl)
{
	const struct toplevel_ctx *c = arg;
	char name[NAME_MAX_LEN];
	const char *const *prefix;
	const char **path;
	uint64_t incl, excl;
	size_t depth;
	int ret;

	if (!tl->calls && !tl->incl)
		return 0;
	ret = times_ns(tl->incl, tl->excl, c->khz, &incl, &excl);
	if (ret)
		return ret;
	routine_name(tl->name, tl->group, name, sizeof(name));
	prefix = c->ctx_path(c->arg, tl->ctx, &depth);
	if (!prefix)
		return -ENOMEM;
	path = path_concat(prefix, depth, &(const char *){ name }, 1);
	if (!path)
		return -ENOMEM;
	ret = ktau_model_add_callpath(c->t, path, depth + 1, tl->calls, 0, incl, excl);
	free(path);
	return ret;
}

int ktau__model_add_kernel(struct ktau_model_thread *t, const struct ktau_block *b,
			   uint64_t khz, ktau_ctx_path_fn ctx_path, void *arg)
{
	struct toplevel_ctx tc = { t, khz, ctx_path, arg };
	const char *const *prefix = NULL;
	size_t i, depth = 0;
	int ret = 0;

	/* funcs first, so that paths find their routines' groups in place */
	for (i = 0; i < ktau_block_func_count(b) && !ret; i++)
		ret = add_func(t, ktau_block_func(b, i), khz);
	if (!ret && ctx_path)
		ret = ktau__kernel_toplevel(b, add_toplevel, &tc);
	/* a v1 block's paths are its edges: "parent => child" */
	for (i = 0; i < ktau_block_path_count(b) && !ret; i++) {
		const struct ktau_path *p = ktau_block_path(b, i);

		if (p->depth < 2)
			continue;
		if (ctx_path && !(prefix = ctx_path(arg, p->ctx, &depth)))
			return -ENOMEM;
		ret = add_path(t, b, p, khz, prefix, depth);
	}
	for (i = 0; i < ktau_block_event_count(b) && !ret; i++) {
		const struct ktau_event *e = ktau_block_event(b, i);

		ret = add_event(t, e, e->name);
		if (!ret && ctx_path) {
			if (!(prefix = ctx_path(arg, e->ctx, &depth)))
				return -ENOMEM;
			ret = add_context_event(t, e, prefix, depth);
		}
	}
	return ret;
}

/* A routine running when the block was read, its path named like the
 * callpaths' ("sys_read() => schedule_vol()"). */
static int add_open(struct ktau_model_thread *t, const struct ktau_block *b,
		    const struct ktau_open *o, uint64_t khz)
{
	const struct ktau_path as_path = {
		.ctx = o->ctx, .depth = o->depth, .fids = o->fids,
		.name = o->name, .group = o->group,
	};
	char names[KTAU_PATH_MAX_DEPTH][NAME_MAX_LEN];
	const char *elems[KTAU_PATH_MAX_DEPTH];
	uint64_t incl, excl;
	uint32_t k;
	int ret;

	ret = times_ns(o->incl_cycles, o->excl_cycles, khz, &incl, &excl);
	if (ret)
		return ret;
	for (k = 0; k < o->depth && k < KTAU_PATH_MAX_DEPTH; k++) {
		const char *g, *name = ktau__path_element(b, &as_path, k, &g);

		if (name)
			routine_name(name, g, names[k], NAME_MAX_LEN);
		else
			snprintf(names[k], NAME_MAX_LEN, "%u", o->fids[k]);
		elems[k] = names[k];
	}
	return ktau__model_add_open(t, (uint64_t)o->tid, elems, k, incl, excl);
}

static int add_records(struct ktau_model_thread *t, const struct ktau_block *b,
		       uint64_t khz)
{
	int ret = add_metadata(t, b, khz);
	size_t i;

	if (!ret)
		ret = ktau__model_add_kernel(t, b, khz, NULL, NULL);
	for (i = 0; i < ktau_block_open_count(b) && !ret; i++)
		ret = add_open(t, b, ktau_block_open(b, i), khz);
	return ret;
}

struct ktau_model_thread *ktau_model_add_block(struct ktau_model *m,
					       const struct ktau_profile *p,
					       size_t index, unsigned int node,
					       unsigned int context,
					       unsigned int thread)
{
	const struct ktau_block *b;
	struct ktau_model_thread *t;
	char label[256];
	int ret;

	/* cycles become time: a sample model cannot take them */
	if (!m || !p || m->metric != KTAU_METRIC_TIME) {
		errno = EINVAL;
		return NULL;
	}
	b = ktau_profile_block(p, index);
	if (!b)
		return NULL;
	if (!ktau_profile_tsc_khz(p)) {
		errno = EINVAL;
		return NULL;
	}
	snprintf(label, sizeof(label), "%s pid %d tid %d %s",
		 ktau_block_kind_name(ktau_block_kind(b)), (int)ktau_block_pid(b),
		 (int)ktau_block_tid(b), ktau_block_comm(b));
	t = ktau_model_add_thread(m, node, context, thread, label);
	if (!t)
		return NULL;
	ret = add_records(t, b, ktau_profile_tsc_khz(p));
	if (ret) {
		ktau__model_drop_last_thread(m);
		errno = -ret;
		return NULL;
	}
	return t;
}
