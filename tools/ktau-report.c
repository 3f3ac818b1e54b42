// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ktau-report — report saved kernel profiles and ktau archives on any
 * machine: tables, call graphs, JSON, and the difference of two runs.
 * Reading is libktau's, choosing blocks report-view.c's, printing the
 * shared tables'; this file reads the command line.
 */
#define _GNU_SOURCE	/* getopt_long */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ktau.h>

#include "job-summary.h"
#include "profile-diff.h"
#include "profile-select.h"
#include "profile-table.h"
#include "report-view.h"
#include "tool.h"
#include "trace-noise.h"

struct options {
	struct view_options view;
	struct selection select;
	bool callgraph;
	bool json;
	bool diff;
	bool noise;
	bool job;
	char **files;
	size_t nr_files;
};

static const char usage_text[] =
"Usage: ktau-report [OPTIONS] FILE...\n"
"       ktau-report [OPTIONS] --diff A B\n"
"       ktau-report --noise TRACE\n"
"       ktau-report [--top N] [--json] --job DIR\n"
"\n"
"Report KTAU kernel profiles saved earlier, on any machine (no ktau kernel\n"
"needed). A FILE is an archive written by ktau-archive, or a profile text:\n"
"a copy of /proc/PID/ktau, /proc/PID/task/TID/ktau or /proc/ktau/profile\n"
"(ktau-dump --raw writes one). Each FILE is reported in turn, each\n"
"process (or thread) as a table sorted by exclusive time: routine, group,\n"
"calls, inclusive and exclusive microseconds, share of the kernel time.\n"
"\n"
"Per process (the default), a table shows a process's total: its live and\n"
"exited threads. Per thread (--threads), each live thread of the archived\n"
"processes has its table, and a system profile's exited threads theirs.\n"
"\n"
"Options:\n"
"      --threads      one table per thread instead of per process\n"
"  -p, --pid PID      only process PID\n"
"      --children     also the reaped children's totals of each process\n"
"      --callgraph    also print caller => callee edges\n"
"      --groups LIST  only routines of these groups, comma-separated, e.g.\n"
"                     syscall,softirq,irq,sched,exception,kernel,event: the\n"
"                     groups in the FILEs (an archive's: its kernel's)\n"
"      --top N        only the N routines with the most exclusive time per\n"
"                     table (with --diff: with the largest change)\n"
"      --json         JSON instead of tables (docs/json-schema.md); FILE\n"
"                     number i is node i\n"
"      --diff A B     compare two runs: per routine, the calls, exclusive and\n"
"                     inclusive time of A, of B and B - A, over all the\n"
"                     processes reported from each (see --pid, --groups),\n"
"                     sorted by the change of exclusive time\n"
"      --noise TRACE  from a trace ktau-trace wrote: per thread, the\n"
"                     interrupts, softirqs and involuntary switches that took\n"
"                     the CPU while it ran in user mode (not in a system call\n"
"                     or fault; nested ones count once): count, total and\n"
"                     longest time per kind, and a histogram of their lengths\n"
"                     in power-of-two microsecond buckets\n"
"      --job DIR      the summary of an MPI job: DIR holds one TAU profile per\n"
"                     thread, profile.<rank>.0.<thread> (or DIR is ktau-run's\n"
"                     -o DIR: its tau-user, else tau). Per rank and per node\n"
"                     (the ranks' Hostname metadata): threads, total, user and\n"
"                     kernel time, the kernel time by group (TAU_KERNEL_MERGE\n"
"                     routines by their other group: KTAU_SYSCALL, ...); the\n"
"                     ranks with the most kernel time; the routines whose\n"
"                     inclusive time differs most between ranks (min, mean, max,\n"
"                     max/mean, sorted by max - mean); and, for each\n"
"                     node.<host>.start.ktar in DIR with its .end.ktar\n"
"                     (ktau-run --node-profile), the node's kernel time between\n"
"                     them per process. --top N: rows of the last lists (10)\n"
"  -h, --help         print this help and exit\n"
"  -V, --version      print the version and exit\n"
"\n"
"Exit status:\n"
"  0  success\n"
"  1  runtime error: a file cannot be read, is truncated or malformed (the\n"
"     message names the file, member and line), or has nothing to report\n"
"  2  usage error: unknown option, bad or missing argument\n";

enum { OPT_THREADS = 256, OPT_CHILDREN, OPT_CALLGRAPH, OPT_GROUPS, OPT_TOP, OPT_JSON,
	OPT_DIFF, OPT_NOISE, OPT_JOB };

static int parse_option(int c, struct options *o, char **argv)
{
	long v;

	switch (c) {
	case OPT_THREADS:
		o->view.threads = true;
		return -1;
	case 'p':
		if (tool_parse_uint(optarg, 1, &v)) {
			tool_usage_error("invalid process id '%s'", optarg);
			return EXIT_USAGE;
		}
		o->view.pid = (pid_t)v;
		return -1;
	case OPT_CHILDREN:
		o->view.children = true;
		return -1;
	case OPT_CALLGRAPH:
		o->callgraph = true;
		return -1;
	case OPT_GROUPS:
		return select_parse_groups(&o->select, optarg) ? EXIT_USAGE : -1;
	case OPT_TOP:
		return select_parse_top(&o->select, optarg) ? EXIT_USAGE : -1;
	case OPT_JSON:
		o->json = true;
		return -1;
	case OPT_DIFF:
		o->diff = true;
		return -1;
	case OPT_NOISE:
		o->noise = true;
		return -1;
	case OPT_JOB:
		o->job = true;
		return -1;
	default:
		return tool_standard_option(c, usage_text, argv, EXIT_USAGE);
	}
}

/* Returns -1 to go on, or the exit code to stop with. */
static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "threads", no_argument, NULL, OPT_THREADS },
		{ "pid", required_argument, NULL, 'p' },
		{ "children", no_argument, NULL, OPT_CHILDREN },
		{ "callgraph", no_argument, NULL, OPT_CALLGRAPH },
		{ "groups", required_argument, NULL, OPT_GROUPS },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "diff", no_argument, NULL, OPT_DIFF },
		{ "noise", no_argument, NULL, OPT_NOISE },
		{ "job", no_argument, NULL, OPT_JOB },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *clash = NULL;
	int c, ret;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:hV", longopts, NULL)) != -1) {
		ret = parse_option(c, o, argv);
		if (ret >= 0)
			return ret;
	}
	o->files = argv + optind;
	o->nr_files = (size_t)(argc - optind);
	if (o->noise && (o->nr_files != 1 || o->diff || o->json || o->callgraph ||
			 o->view.threads || o->view.pid || o->view.children ||
			 o->select.nr_groups || o->select.top))
		clash = "--noise takes one TRACE and no other option";
	else if (o->job && (o->nr_files != 1 || o->diff || o->noise || o->callgraph ||
			    o->view.threads || o->view.pid || o->view.children ||
			    o->select.nr_groups))
		clash = "--job takes one DIR and only --top and --json";
	else if (!o->nr_files)
		clash = o->diff ? "--diff needs two files, A and B" : "missing FILE";
	else if (o->diff && o->nr_files != 2)
		clash = "--diff needs exactly two files, A and B";
	else if (o->diff && (o->json || o->callgraph))
		clash = "--diff prints one table: no --json or --callgraph";
	else if (o->json && o->callgraph)
		clash = "--json has the call graph already (callpaths): drop --callgraph";
	if (!clash)
		return -1;
	tool_usage_error("%s", clash);
	return EXIT_USAGE;
}

static struct ktau_profile *make_view(const struct options *o,
				      const struct report_input *in)
{
	struct ktau_profile *view = report_view(in, &o->view);

	if (!view) {
		if (errno == EINVAL)
			fprintf(stderr, "ktau-report: %s: its profiles have different "
				"tsc_khz: report them one by one\n", in->path);
		else
			fprintf(stderr, "ktau-report: %s: %s\n", in->path, ktau_strerror(errno));
		return NULL;
	}
	if (!ktau_profile_block_count(view)) {
		fprintf(stderr, "ktau-report: %s: nothing to report%s\n", in->path,
			o->view.pid ? " for that process"
			: o->view.threads ? " per thread (it holds process totals only)"
			: "");
		ktau_profile_free(view);
		return NULL;
	}
	return view;
}

static int print_tables(const struct options *o, const struct ktau_profile *view)
{
	struct ktau_profile *grouped, *rows;
	size_t i;
	int ret = select_apply(&o->select, view, &grouped, &rows);

	for (i = 0; !ret && i < ktau_profile_block_count(view); i++) {
		putchar('\n');
		ret = print_block_tables(stdout, view, grouped, rows, i, o->callgraph, NULL);
	}
	select_release(view, grouped, rows);
	return ret;
}

static bool every_block(const struct ktau_block *b, const void *arg)
{
	(void)b;
	(void)arg;
	return true;
}

static int add_json(struct ktau_model *m, const struct options *o,
		    const struct ktau_profile *view, unsigned int node)
{
	struct ktau_profile *grouped, *rows;
	int ret = select_apply(&o->select, view, &grouped, &rows);

	if (!ret)
		ret = json_add_blocks(m, rows, node, every_block, NULL);
	select_release(view, grouped, rows);
	return ret;
}

/*
 * Every FILE read before anything is printed, so that --groups is checked
 * against the groups of them all (one file may lack a group another has).
 * 0, or -errno after the message (*bad_group set for an unknown group);
 * on failure every in[] is closed again.
 */
static int open_inputs(const struct options *o, struct report_input *in, bool *bad_group)
{
	struct group_set g = { 0 };
	char where[4300];
	size_t i, opened;
	int ret = 0;

	/* a failed open counts as opened: what it got so far needs closing */
	for (opened = 0; opened < o->nr_files && !ret; opened++)
		ret = report_input_open(&in[opened], o->files[opened]);
	for (i = 0; !ret && o->select.nr_groups && i < o->nr_files; i++)
		ret = report_input_groups(&in[i], &g);
	if (!ret && o->select.nr_groups) {
		if (o->nr_files == 1)
			snprintf(where, sizeof(where), "groups in %s", o->files[0]);
		else
			snprintf(where, sizeof(where), "groups in the files");
		ret = select_check_groups(&o->select, &g, where);
		*bad_group = ret != 0;
	}
	group_set_free(&g);
	if (ret)
		for (i = 0; i < opened; i++)
			report_input_close(&in[i]);
	return ret;
}

/* Every FILE, as tables or as one JSON document. */
static int report(const struct options *o, struct report_input *inputs)
{
	struct ktau_model *m = o->json ? ktau_model_new() : NULL;
	int ret = o->json && !m ? -ENOMEM : 0;
	size_t i;

	for (i = 0; i < o->nr_files && !ret; i++) {
		struct report_input *in = &inputs[i];
		struct ktau_profile *view = make_view(o, in);

		if (!view)
			ret = -ENOENT;
		else if (o->json) {
			ret = add_json(m, o, view, (unsigned int)i);
		} else {
			if (i)
				putchar('\n');
			report_input_describe(stdout, in);
			ret = print_tables(o, view);
		}
		ktau_profile_free(view);
	}
	if (!ret && m)
		ret = ktau_model_write_stream(m, KTAU_FORMAT_JSON, stdout);
	ktau_model_free(m);
	return ret;
}

/* A FILE's reported processes in the selected groups (--top picks the
 * largest changes later, not here). */
static struct ktau_profile *diff_side(const struct options *o,
				      const struct report_input *in)
{
	struct ktau_profile *view = make_view(o, in), *grouped;

	if (!view)
		return NULL;
	report_input_describe(stdout, in);
	if (!o->select.nr_groups)
		return view;
	grouped = ktau_profile_filter_groups(view, o->select.groups, o->select.nr_groups);
	if (!grouped)
		fprintf(stderr, "ktau-report: %s: %s\n", in->path, ktau_strerror(errno));
	ktau_profile_free(view);
	return grouped;
}

static int diff(const struct options *o, const struct report_input *in)
{
	struct ktau_profile *a = diff_side(o, &in[0]);
	struct ktau_profile *b = a ? diff_side(o, &in[1]) : NULL;
	int ret = -ENOENT;

	if (a && b) {
		printf("# A = %s, B = %s; delta = B - A\n\n", o->files[0], o->files[1]);
		ret = print_diff(stdout, a, b, o->select.top);
		if (ret && ret != -ENOMEM)
			fprintf(stderr, "ktau-report: cannot compare %s and %s: %s\n",
				o->files[0], o->files[1], ktau_strerror(ret));
	}
	ktau_profile_free(a);
	ktau_profile_free(b);
	return ret;
}

static int job(const struct options *o)
{
	struct job_summary s;
	int ret = job_summary_read(&s, o->files[0]);

	if (!ret) {
		if (o->json)
			job_print_json(stdout, &s, o->select.top);
		else
			job_print_text(stdout, &s, o->select.top);
	}
	job_summary_free(&s);
	if (ret == -ENOMEM)
		fprintf(stderr, "ktau-report: out of memory\n");
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "ktau-report: write error: %s\n", strerror(errno));
		return EXIT_RUNTIME;
	}
	return ret ? EXIT_RUNTIME : EXIT_OK;
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	struct report_input *inputs;
	bool usage = false;
	size_t i;
	int ret;

	tool_init("ktau-report");
	ret = parse_options(argc, argv, &o);
	if (ret >= 0)
		return ret;
	if (o.noise)
		return print_noise(stdout, o.files[0]);
	if (o.job)
		return job(&o);
	inputs = calloc(o.nr_files, sizeof(*inputs));
	if (!inputs)
		ret = -ENOMEM;
	else if (!(ret = open_inputs(&o, inputs, &usage))) {
		ret = o.diff ? diff(&o, inputs) : report(&o, inputs);
		for (i = 0; i < o.nr_files; i++)
			report_input_close(&inputs[i]);
	}
	free(inputs);
	if (ret == -ENOMEM)
		fprintf(stderr, "ktau-report: out of memory\n");
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "ktau-report: write error: %s\n", strerror(errno));
		return EXIT_RUNTIME;
	}
	return usage ? EXIT_USAGE : ret ? EXIT_RUNTIME : EXIT_OK;
}
