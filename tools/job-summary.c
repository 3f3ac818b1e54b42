// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The job summary: per rank and per node the time by kernel group, and
 * the routines whose time differs most between ranks. A rank is a file
 * name's node number; its threads are summed. A thread's time is the sum
 * of its routines' exclusive times (each instant counts once), its kernel
 * time that of the routines in group TAU_KERNEL_MERGE, whose other group
 * (KTAU_SYSCALL, KTAU_SCHEDULE, ...) is the kernel group reported.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>

#include "job-nodes.h"
#include "job-summary.h"

/* Where a rank's host name may be: libktau-prof writes Hostname, TAU
 * "Node Name" too, an MPI library its processor name. */
static const char *const host_keys[] = { "Hostname", "Node Name", "MPI Processor Name" };

static const char *thread_host(const struct ktau_tau_thread *t)
{
	size_t i;

	for (i = 0; i < sizeof(host_keys) / sizeof(host_keys[0]); i++) {
		const char *v = ktau_tau_thread_metadata_value(t, host_keys[i]);

		if (v && *v)
			return v;
	}
	return "?";
}

/* The kernel group of a kernel routine: its first group other than
 * TAU_KERNEL_MERGE (the merge's convention), else TAU_KERNEL_MERGE. */
static void kernel_group(const struct ktau_tau_function *f, char *buf, size_t size)
{
	const char *s = f->groups;

	while (*s) {
		size_t len;

		s += strspn(s, " |");
		len = strcspn(s, " |");
		if (len && (len != strlen(JOB_KERNEL_GROUP) || memcmp(s, JOB_KERNEL_GROUP, len))) {
			snprintf(buf, size, "%.*s", (int)len, s);
			return;
		}
		s += len;
	}
	snprintf(buf, size, "%s", JOB_KERNEL_GROUP);
}

static size_t group_index(const struct group_set *g, const char *name)
{
	size_t i;

	for (i = 0; i < g->count; i++)
		if (!strcmp(g->names[i], name))
			return i;
	return g->count;
}

/* Every kernel group in the directory, so that each rank's array has them all. */
static int collect_groups(struct job_summary *s)
{
	size_t i, j;
	char name[128];
	int ret = 0;

	for (i = 0; !ret && i < ktau_tau_dir_thread_count(s->profiles); i++) {
		const struct ktau_tau_thread *t = ktau_tau_dir_thread(s->profiles, i);

		for (j = 0; !ret && j < ktau_tau_thread_function_count(t); j++) {
			const struct ktau_tau_function *f = ktau_tau_thread_function(t, j);

			if (f->depth == 1 && ktau_tau_function_in_group(f, JOB_KERNEL_GROUP)) {
				kernel_group(f, name, sizeof(name));
				ret = group_set_add(&s->groups, name);
			}
		}
	}
	return ret;
}

static void add_thread_times(struct job_times *t, const struct ktau_tau_thread *th,
			     const struct group_set *groups)
{
	char name[128];
	size_t j;

	for (j = 0; j < ktau_tau_thread_function_count(th); j++) {
		const struct ktau_tau_function *f = ktau_tau_thread_function(th, j);

		if (f->depth != 1)
			continue;
		t->total += f->excl;
		if (ktau_tau_function_in_group(f, JOB_KERNEL_GROUP)) {
			kernel_group(f, name, sizeof(name));
			t->kernel += f->excl;
			t->group[group_index(groups, name)] += f->excl;
		}
	}
}

static void times_add(struct job_times *dst, const struct job_times *src, size_t groups)
{
	size_t g;

	dst->total += src->total;
	dst->kernel += src->kernel;
	for (g = 0; g < groups; g++)
		dst->group[g] += src->group[g];
}

/* Ranks from the sorted threads: a new rank where the node number changes. */
static int build_ranks(struct job_summary *s)
{
	size_t n = ktau_tau_dir_thread_count(s->profiles), i, ng = s->groups.count;

	s->ranks = calloc(n, sizeof(*s->ranks));
	if (!s->ranks)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct ktau_tau_thread *t = ktau_tau_dir_thread(s->profiles, i);
		struct job_rank *r = s->nr_ranks ? &s->ranks[s->nr_ranks - 1] : NULL;

		if (!r || r->rank != ktau_tau_thread_node(t)) {
			const char *pid = ktau_tau_thread_metadata_value(t, "KTAU pid");

			r = &s->ranks[s->nr_ranks++];
			r->rank = ktau_tau_thread_node(t);
			r->host = thread_host(t);
			r->pid = pid ? strtol(pid, NULL, 10) : -1;
			r->t.group = calloc(ng ? ng : 1, sizeof(double));
			if (!r->t.group)
				return -ENOMEM;
		}
		r->threads++;
		add_thread_times(&r->t, t, &s->groups);
	}
	s->nr_threads = n;
	return 0;
}

static int cmp_host(const void *a, const void *b)
{
	return strcmp(((const struct job_node *)a)->host, ((const struct job_node *)b)->host);
}

static int build_nodes(struct job_summary *s)
{
	size_t i, j, ng = s->groups.count;

	s->nodes = calloc(s->nr_ranks, sizeof(*s->nodes));
	if (!s->nodes)
		return -ENOMEM;
	for (i = 0; i < s->nr_ranks; i++) {
		for (j = 0; j < s->nr_nodes && strcmp(s->nodes[j].host, s->ranks[i].host); j++)
			;
		if (j == s->nr_nodes) {
			s->nodes[j].host = s->ranks[i].host;
			s->nodes[j].t.group = calloc(ng ? ng : 1, sizeof(double));
			if (!s->nodes[j].t.group)
				return -ENOMEM;
			s->nr_nodes++;
		}
	}
	qsort(s->nodes, s->nr_nodes, sizeof(*s->nodes), cmp_host);
	for (i = 0; i < s->nr_ranks; i++) {
		struct job_node key = { .host = s->ranks[i].host };
		struct job_node *n = bsearch(&key, s->nodes, s->nr_nodes, sizeof(key), cmp_host);

		s->ranks[i].node = (size_t)(n - s->nodes);
		n->ranks++;
		n->threads += s->ranks[i].threads;
		times_add(&n->t, &s->ranks[i].t, ng);
	}
	return 0;
}

/* ---- routines across ranks ---- */

struct sample {
	const char *name;
	size_t rank;	/* index in s->ranks */
	double incl;
};

static int cmp_sample(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->rank < y->rank ? -1 : x->rank > y->rank;
}

static int cmp_imbalance(const void *a, const void *b)
{
	const struct job_routine *x = a, *y = b;
	double dx = x->max - x->mean, dy = y->max - y->mean;

	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* One routine's samples [from, to), sorted by rank, into r. A rank
 * without it counts 0: the minimum is then 0, on the first such rank. */
static void routine_stats(const struct job_summary *s, const struct sample *sm, size_t from,
			  size_t to, struct job_routine *r)
{
	size_t i = from, expect = 0, gap = 0;
	bool has_gap = false;
	double sum = 0;

	r->name = sm[from].name;
	r->max = -1;
	r->min = -1;
	while (i < to) {
		size_t rank = sm[i].rank;
		double v = 0;

		for (; i < to && sm[i].rank == rank; i++)
			v += sm[i].incl;
		if (!has_gap && rank != expect) {
			has_gap = true;
			gap = expect;
		}
		expect = rank + 1;
		sum += v;
		if (v > r->max) {
			r->max = v;
			r->max_rank = s->ranks[rank].rank;
		}
		if (r->min < 0 || v < r->min) {
			r->min = v;
			r->min_rank = s->ranks[rank].rank;
		}
	}
	if (!has_gap && expect < s->nr_ranks) {
		has_gap = true;
		gap = expect;
	}
	if (has_gap) {
		r->min = 0;
		r->min_rank = s->ranks[gap].rank;
	}
	r->mean = sum / (double)s->nr_ranks;
}

static int build_routines(struct job_summary *s)
{
	struct sample *sm = NULL;
	size_t n = 0, cap = 0, r, i, j, from;

	for (r = 0, i = 0; r < s->nr_ranks; r++) {
		size_t end = i + s->ranks[r].threads;

		for (; i < end; i++) {
			const struct ktau_tau_thread *t = ktau_tau_dir_thread(s->profiles, i);

			for (j = 0; j < ktau_tau_thread_function_count(t); j++) {
				const struct ktau_tau_function *f = ktau_tau_thread_function(t, j);

				if (f->depth != 1)
					continue;
				if (n == cap) {
					struct sample *grown;

					cap = cap ? cap * 2 : 1024;
					grown = realloc(sm, cap * sizeof(*sm));
					if (!grown) {
						free(sm);
						return -ENOMEM;
					}
					sm = grown;
				}
				sm[n++] = (struct sample){ f->name, r, f->incl };
			}
		}
	}
	qsort(sm, n, sizeof(*sm), cmp_sample);
	s->routines = calloc(n ? n : 1, sizeof(*s->routines));
	if (!s->routines) {
		free(sm);
		return -ENOMEM;
	}
	for (from = 0; from < n; from = i) {
		for (i = from; i < n && !strcmp(sm[i].name, sm[from].name); i++)
			;
		routine_stats(s, sm, from, i, &s->routines[s->nr_routines++]);
	}
	free(sm);
	qsort(s->routines, s->nr_routines, sizeof(*s->routines), cmp_imbalance);
	return 0;
}

struct by_kernel {
	double kernel;
	unsigned int rank;
	size_t index;
};

static int cmp_kernel(const void *a, const void *b)
{
	const struct by_kernel *x = a, *y = b;

	if (x->kernel != y->kernel)
		return x->kernel > y->kernel ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static int sort_by_kernel(struct job_summary *s)
{
	struct by_kernel *k = calloc(s->nr_ranks ? s->nr_ranks : 1, sizeof(*k));
	size_t i;

	s->by_kernel = malloc((s->nr_ranks ? s->nr_ranks : 1) * sizeof(*s->by_kernel));
	if (!k || !s->by_kernel) {
		free(k);
		return -ENOMEM;
	}
	for (i = 0; i < s->nr_ranks; i++)
		k[i] = (struct by_kernel){ s->ranks[i].t.kernel, s->ranks[i].rank, i };
	qsort(k, s->nr_ranks, sizeof(*k), cmp_kernel);
	for (i = 0; i < s->nr_ranks; i++)
		s->by_kernel[i] = k[i].index;
	free(k);
	return 0;
}

/* ---- reading ---- */

/* Whether dir holds a file named profile.N.N.N (read later, once). */
static bool has_profile_file(const char *dir)
{
	DIR *dh = opendir(dir);
	struct dirent *de;
	bool yes = false;

	while (dh && !yes && (de = readdir(dh)) != NULL) {
		unsigned int n, c, t;
		int end = 0;

		yes = sscanf(de->d_name, "profile.%u.%u.%u%n", &n, &c, &t, &end) == 3 &&
		      !de->d_name[end];
	}
	if (dh)
		closedir(dh);
	return yes;
}

/* DIR itself, or a ktau-run output directory's tau-user, else its tau. */
static char *profile_dir(const char *dir)
{
	static const char *const subs[] = { "tau-user", "tau" };
	char path[4200];
	size_t i;

	if (has_profile_file(dir))
		return strdup(dir);
	for (i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, subs[i]);
		if (has_profile_file(path))
			return strdup(path);
	}
	return strdup(dir);
}

int job_summary_read(struct job_summary *s, const char *dir)
{
	struct ktau_error *err;
	int ret;

	memset(s, 0, sizeof(*s));
	s->dir = profile_dir(dir);
	if (!s->dir)
		return -ENOMEM;
	s->profiles = ktau_tau_dir_read(s->dir, NULL, &err);
	if (!s->profiles) {
		ret = ktau_error_code(err);
		fprintf(stderr, "ktau-report: %s\n", ktau_error_message(err));
		ktau_error_free(err);
		return ret;
	}
	s->metric = ktau_tau_dir_metric(s->profiles);
	ret = collect_groups(s);
	ret = ret ?: build_ranks(s);
	ret = ret ?: build_nodes(s);
	ret = ret ?: build_routines(s);
	ret = ret ?: sort_by_kernel(s);
	ret = ret ?: job_nodes_read(s, dir);
	return ret;
}

void job_summary_free(struct job_summary *s)
{
	size_t i;

	for (i = 0; s->ranks && i < s->nr_ranks; i++)
		free(s->ranks[i].t.group);
	for (i = 0; s->nodes && i < s->nr_nodes; i++) {
		free(s->nodes[i].t.group);
		job_node_activity_free(&s->nodes[i]);
	}
	free(s->ranks);
	free(s->nodes);
	free(s->routines);
	free(s->by_kernel);
	group_set_free(&s->groups);
	ktau_tau_dir_free(s->profiles);
	free(s->dir);
}
