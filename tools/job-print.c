// SPDX-License-Identifier: GPL-2.0-or-later
/* ktau-report --job's output: tables, or one JSON object. */
#include <stdio.h>
#include <string.h>

#include "job-nodes.h"

#define DEFAULT_TOP 10

static size_t top_of(size_t top, size_t count)
{
	if (!top)
		top = DEFAULT_TOP;
	return top < count ? top : count;
}

static double share(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0;
}

static double ratio(double max, double mean)
{
	return mean > 0 ? max / mean : 0;
}

static const char *unit(const struct job_summary *s)
{
	return strcmp(s->metric, "TIME") ? s->metric : "usec";
}

/* ---- text ---- */

static void group_heads(FILE *out, const struct job_summary *s)
{
	size_t g;

	for (g = 0; g < s->groups.count; g++)
		fprintf(out, " %14s", s->groups.names[g]);
	fputc('\n', out);
}

static void times_row(FILE *out, const struct job_summary *s, const struct job_times *t)
{
	size_t g;

	fprintf(out, " %14.3f %14.3f %14.3f %7.2f", t->total, t->total - t->kernel, t->kernel,
		share(t->kernel, t->total));
	for (g = 0; g < s->groups.count; g++)
		fprintf(out, " %14.3f", t->group[g]);
	fputc('\n', out);
}

static void print_activity(FILE *out, const struct job_node *n, size_t top)
{
	size_t i, k = top_of(top, n->nr_tasks);

	fprintf(out, "\nnode %s between the job's start and end (" JOB_NODE_PREFIX "%s"
		".{start,end}.ktar):", n->host, n->host);
	if (!n->has_activity) {
		fprintf(out, " none: %s\n", n->activity_note ? n->activity_note : "no archives");
		return;
	}
	fprintf(out, " kernel %.3f usec", n->activity_kernel);
	for (i = 0; i < n->activity_groups.count; i++)
		fprintf(out, "%s %s %.3f", i ? "," : ";", n->activity_groups.names[i],
			n->activity_group[i]);
	fputc('\n', out);
	if (n->activity_note)
		fprintf(out, "  note: %s\n", n->activity_note);
	fprintf(out, "  %8s %-16s %14s  %s\n", "pid", "comm", "kernel_usec", "job rank");
	for (i = 0; i < k; i++) {
		const struct job_task *t = &n->tasks[i];

		fprintf(out, "  %8ld %-16s %14.3f  ", t->pid, t->comm, t->kernel);
		if (t->rank >= 0)
			fprintf(out, "%ld\n", t->rank);
		else
			fputs("-\n", out);
	}
}

void job_print_text(FILE *out, const struct job_summary *s, size_t top)
{
	size_t i, k;

	fprintf(out, "# job %s: %zu rank%s, %zu thread%s, %zu node%s; metric %s (%s)\n",
		s->dir, s->nr_ranks, s->nr_ranks == 1 ? "" : "s", s->nr_threads,
		s->nr_threads == 1 ? "" : "s", s->nr_nodes, s->nr_nodes == 1 ? "" : "s",
		s->metric, unit(s));
	fprintf(out, "# kernel: routines in group " JOB_KERNEL_GROUP " (columns: their "
		"other group); user = total - kernel; total = every routine's exclusive time\n");
	fprintf(out, "\nper rank:\n%6s %-16s %7s %14s %14s %14s %7s", "rank", "node", "threads",
		"total", "user", "kernel", "kernel%");
	group_heads(out, s);
	for (i = 0; i < s->nr_ranks; i++) {
		const struct job_rank *r = &s->ranks[i];

		fprintf(out, "%6u %-16s %7zu", r->rank, r->host, r->threads);
		times_row(out, s, &r->t);
	}
	fprintf(out, "\nper node:\n%-16s %6s %7s %14s %14s %14s %7s", "node", "ranks", "threads",
		"total", "user", "kernel", "kernel%");
	group_heads(out, s);
	for (i = 0; i < s->nr_nodes; i++) {
		const struct job_node *n = &s->nodes[i];

		fprintf(out, "%-16s %6zu %7zu", n->host, n->ranks, n->threads);
		times_row(out, s, &n->t);
	}
	k = top_of(top, s->nr_ranks);
	fprintf(out, "\nranks with the most kernel time (top %zu):\n%6s %-16s %14s %7s\n", k,
		"rank", "node", "kernel", "kernel%");
	for (i = 0; i < k; i++) {
		const struct job_rank *r = &s->ranks[s->by_kernel[i]];

		fprintf(out, "%6u %-16s %14.3f %7.2f\n", r->rank, r->host, r->t.kernel,
			share(r->t.kernel, r->t.total));
	}
	k = top_of(top, s->nr_routines);
	fprintf(out, "\nimbalance: inclusive time per rank (0 where a rank lacks the routine), "
		"sorted by max - mean (top %zu):\n%14s %14s %14s %9s %8s %8s  %s\n", k, "min",
		"mean", "max", "max/mean", "min_rank", "max_rank", "routine");
	for (i = 0; i < k; i++) {
		const struct job_routine *r = &s->routines[i];

		fprintf(out, "%14.3f %14.3f %14.3f %9.3f %8u %8u  %s\n", r->min, r->mean, r->max,
			ratio(r->max, r->mean), r->min_rank, r->max_rank, r->name);
	}
	for (i = 0; i < s->nr_nodes; i++)
		if (s->nodes[i].has_activity || s->nodes[i].activity_note)
			print_activity(out, &s->nodes[i], top);
}

/* ---- JSON ---- */

static void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void json_groups(FILE *out, const struct group_set *g, const double *v)
{
	size_t i;

	fputc('{', out);
	for (i = 0; i < g->count; i++) {
		fputs(i ? ", " : "", out);
		json_str(out, g->names[i]);
		fprintf(out, ": %.17g", v[i]);
	}
	fputc('}', out);
}

static void json_times(FILE *out, const struct job_summary *s, const struct job_times *t)
{
	fprintf(out, "\"total\": %.17g, \"user\": %.17g, \"kernel\": %.17g, \"kernel_by_group\": ",
		t->total, t->total - t->kernel, t->kernel);
	json_groups(out, &s->groups, t->group);
}

static void json_activity(FILE *out, const struct job_node *n)
{
	size_t i;

	fputs(", \"activity\": {", out);
	if (n->activity_note) {
		fputs("\"note\": ", out);
		json_str(out, n->activity_note);
		fputs(n->has_activity ? ", " : "", out);
	}
	if (n->has_activity) {
		fprintf(out, "\"kernel_usec\": %.17g, \"kernel_by_group\": ", n->activity_kernel);
		json_groups(out, &n->activity_groups, n->activity_group);
		fputs(", \"tasks\": [", out);
		for (i = 0; i < n->nr_tasks; i++) {
			fprintf(out, "%s{\"pid\": %ld, \"comm\": ", i ? ", " : "", n->tasks[i].pid);
			json_str(out, n->tasks[i].comm);
			fprintf(out, ", \"kernel_usec\": %.17g, \"rank\": %ld}", n->tasks[i].kernel,
				n->tasks[i].rank);
		}
		fputc(']', out);
	}
	fputc('}', out);
}

void job_print_json(FILE *out, const struct job_summary *s, size_t top)
{
	size_t i, k;

	fputs("{\"job\": {\"directory\": ", out);
	json_str(out, s->dir);
	fputs(", \"metric\": ", out);
	json_str(out, s->metric);
	fprintf(out, ", \"ranks\": %zu, \"threads\": %zu, \"nodes\": %zu,\n \"per_rank\": [",
		s->nr_ranks, s->nr_threads, s->nr_nodes);
	for (i = 0; i < s->nr_ranks; i++) {
		const struct job_rank *r = &s->ranks[i];

		fprintf(out, "%s\n  {\"rank\": %u, \"node\": ", i ? "," : "", r->rank);
		json_str(out, r->host);
		fprintf(out, ", \"threads\": %zu, ", r->threads);
		json_times(out, s, &r->t);
		fputc('}', out);
	}
	fputs("],\n \"per_node\": [", out);
	for (i = 0; i < s->nr_nodes; i++) {
		const struct job_node *n = &s->nodes[i];

		fprintf(out, "%s\n  {\"node\": ", i ? "," : "");
		json_str(out, n->host);
		fprintf(out, ", \"ranks\": %zu, \"threads\": %zu, ", n->ranks, n->threads);
		json_times(out, s, &n->t);
		if (n->has_activity || n->activity_note)
			json_activity(out, n);
		fputc('}', out);
	}
	fputs("],\n \"most_kernel\": [", out);
	for (i = 0, k = top_of(top, s->nr_ranks); i < k; i++)
		fprintf(out, "%s{\"rank\": %u, \"kernel\": %.17g}", i ? ", " : "",
			s->ranks[s->by_kernel[i]].rank, s->ranks[s->by_kernel[i]].t.kernel);
	fputs("],\n \"imbalance\": [", out);
	for (i = 0, k = top_of(top, s->nr_routines); i < k; i++) {
		const struct job_routine *r = &s->routines[i];

		fprintf(out, "%s\n  {\"routine\": ", i ? "," : "");
		json_str(out, r->name);
		fprintf(out, ", \"min\": %.17g, \"mean\": %.17g, \"max\": %.17g, "
			"\"max_over_mean\": %.17g, \"min_rank\": %u, \"max_rank\": %u}",
			r->min, r->mean, r->max, ratio(r->max, r->mean), r->min_rank, r->max_rank);
	}
	fputs("]}}\n", out);
}
