// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A node's kernel activity during the job: the difference of its two
 * system-wide archives, per process (ktau_profile_process_totals(), so
 * threads that ended meanwhile count), each process's kernel time summed
 * over its routines and, per kernel group, over the node. Processes that
 * ended before the end archive are not in it: a note says so.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "job-nodes.h"

static struct ktau_profile *archive_system_profile(const char *path, char **why)
{
	KTAU_OPTS(ktau_load_opts, lo, .path = path);
	struct ktau_error *err = NULL;
	struct ktau_archive *a = ktau_archive_load(&lo, &err);
	struct ktau_profile *p = NULL, *totals = NULL;
	size_t i;

	for (i = 0; a && i < ktau_archive_profile_count(a); i++)
		if (!strcmp(ktau_archive_profile_member(a, i)->name, "proc/ktau/profile"))
			break;
	if (!a) {
		if (asprintf(why, "%s: %s", path, ktau_error_message(err)) < 0)
			*why = NULL;
	} else if (i == ktau_archive_profile_count(a)) {
		if (asprintf(why, "%s has no system profile (proc/ktau/profile)", path) < 0)
			*why = NULL;
	} else {
		p = ktau_archive_profile(a, i, &err);
		totals = p ? ktau_profile_process_totals(p) : NULL;
		if (!totals && asprintf(why, "%s: %s", path, p ? ktau_strerror(errno) :
					ktau_error_message(err)) < 0)
			*why = NULL;
	}
	ktau_error_free(err);
	ktau_profile_free(p);
	ktau_archive_free(a);
	return totals;
}

static double block_kernel(const struct ktau_block *b, uint64_t khz, struct group_set *g,
			   double *per_group)
{
	double total = 0;
	size_t i, k;

	for (i = 0; i < ktau_block_func_count(b); i++) {
		const struct ktau_func *f = ktau_block_func(b, i);
		double us = ktau_cycles_to_usec(f->excl_cycles, khz);

		total += us;
		if (!per_group)
			continue;
		for (k = 0; k < g->count && strcmp(g->names[k], f->group); k++)
			;
		per_group[k] += us;
	}
	return total;
}

static long rank_of_pid(const struct job_summary *s, const struct job_node *n, long pid)
{
	size_t i;

	for (i = 0; i < s->nr_ranks; i++)
		if (s->ranks[i].pid == pid && !strcmp(s->ranks[i].host, n->host))
			return s->ranks[i].rank;
	return -1;
}

static int cmp_task(const void *a, const void *b)
{
	const struct job_task *x = a, *y = b;

	if (x->kernel != y->kernel)
		return x->kernel > y->kernel ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* n's activity from the interval profile d. */
static int fill_activity(const struct job_summary *s, struct job_node *n,
			 const struct ktau_profile *d)
{
	uint64_t khz = ktau_profile_tsc_khz(d);
	size_t i, j, nb = ktau_profile_block_count(d);
	int ret = 0;

	for (i = 0; !ret && i < nb; i++) {
		const struct ktau_block *b = ktau_profile_block(d, i);

		for (j = 0; !ret && j < ktau_block_func_count(b); j++)
			ret = group_set_add(&n->activity_groups, ktau_block_func(b, j)->group);
	}
	n->activity_group = calloc(n->activity_groups.count + 1, sizeof(double));
	n->tasks = calloc(nb ? nb : 1, sizeof(*n->tasks));
	if (ret || !n->activity_group || !n->tasks)
		return -ENOMEM;
	for (i = 0; i < nb; i++) {
		const struct ktau_block *b = ktau_profile_block(d, i);
		double k = block_kernel(b, khz, &n->activity_groups, n->activity_group);
		struct job_task *t = &n->tasks[n->nr_tasks];

		n->activity_kernel += k;
		if (k <= 0)
			continue;
		t->pid = ktau_block_pid(b);
		t->comm = strdup(ktau_block_comm(b));
		if (!t->comm)
			return -ENOMEM;
		t->kernel = k;
		t->rank = rank_of_pid(s, n, t->pid);
		n->nr_tasks++;
	}
	qsort(n->tasks, n->nr_tasks, sizeof(*n->tasks), cmp_task);
	n->has_activity = true;
	return 0;
}

static int node_activity(const struct job_summary *s, struct job_node *n, const char *dir)
{
	char start[4200], end[4200];
	struct ktau_profile *a, *b = NULL, *d = NULL;
	char *why = NULL;
	int ret = 0;

	snprintf(start, sizeof(start), "%s/" JOB_NODE_PREFIX "%s" JOB_NODE_START, dir, n->host);
	snprintf(end, sizeof(end), "%s/" JOB_NODE_PREFIX "%s" JOB_NODE_END, dir, n->host);
	a = archive_system_profile(start, &why);
	if (a && access(end, F_OK)) {
		if (asprintf(&why, "no %s: the job did not end normally on this node", end) < 0)
			why = NULL;
	} else if (a) {
		b = archive_system_profile(end, &why);
	}
	if (a && b) {
		d = ktau_profile_diff(a, b);
		if (!d && errno == ERANGE) {
			/* cleared meanwhile: what the end holds is since then */
			d = ktau_profile_dup(b);
			if (asprintf(&why, "the counters were cleared during the job: "
				     "only what was recorded since") < 0)
				why = NULL;
		} else if (!d && asprintf(&why, "cannot compare %s and %s: %s", start, end,
					  ktau_strerror(errno)) < 0) {
			why = NULL;
		}
	}
	if (d)
		ret = fill_activity(s, n, d);
	n->activity_note = why;
	ktau_profile_free(a);
	ktau_profile_free(b);
	ktau_profile_free(d);
	return ret;
}

/* The host of a node.<host>.start.ktar name, or NULL. */
static char *start_host(const char *name)
{
	size_t len = strlen(name), p = strlen(JOB_NODE_PREFIX), sfx = strlen(JOB_NODE_START);

	if (len <= p + sfx || strncmp(name, JOB_NODE_PREFIX, p) ||
	    strcmp(name + len - sfx, JOB_NODE_START))
		return NULL;
	return strndup(name + p, len - p - sfx);
}

static struct job_node *node_for(struct job_summary *s, char *host)
{
	struct job_node *grown;
	size_t i;

	for (i = 0; i < s->nr_nodes; i++)
		if (!strcmp(s->nodes[i].host, host)) {
			free(host);
			return &s->nodes[i];
		}
	grown = realloc(s->nodes, (s->nr_nodes + 1) * sizeof(*s->nodes));
	if (!grown) {
		free(host);
		return NULL;
	}
	s->nodes = grown;
	memset(&s->nodes[s->nr_nodes], 0, sizeof(*s->nodes));
	s->nodes[s->nr_nodes].host = host;
	s->nodes[s->nr_nodes].own_host = true;
	s->nodes[s->nr_nodes].t.group = calloc(s->groups.count + 1, sizeof(double));
	if (!s->nodes[s->nr_nodes].t.group)
		return NULL;
	return &s->nodes[s->nr_nodes++];
}

int job_nodes_read(struct job_summary *s, const char *dir)
{
	DIR *dh = opendir(dir);
	struct dirent *de;
	int ret = 0;

	if (!dh)
		return 0;	/* the profiles were found: no node archives */
	while (!ret && (de = readdir(dh)) != NULL) {
		char *host = start_host(de->d_name);
		struct job_node *n;

		if (!host)
			continue;
		n = node_for(s, host);
		ret = n ? node_activity(s, n, dir) : -ENOMEM;
	}
	closedir(dh);
	if (ret == -ENOMEM)
		fprintf(stderr, "ktau-report: out of memory\n");
	return ret;
}

void job_node_activity_free(struct job_node *n)
{
	size_t i;

	for (i = 0; i < n->nr_tasks; i++)
		free((char *)n->tasks[i].comm);
	free(n->tasks);
	free(n->activity_group);
	free(n->activity_note);
	group_set_free(&n->activity_groups);
	if (n->own_host)
		free((char *)n->host);
}
