// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ktau-dump — print a process's kernel profile as a table.
 * All reading and parsing is libktau's; this file only chooses what to
 * read and how to show it.
 */
#define _GNU_SOURCE	/* getopt_long */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ktau.h>

#include "profile-select.h"
#include "profile-table.h"
#include "tool.h"

struct options {
	pid_t pid;		/* 0: not given */
	pid_t tid;		/* 0: not given */
	const char *input;	/* --input FILE, or NULL for /proc */
	bool raw;
	bool children;
	bool system;
	bool callgraph;
	bool threads;
	bool json;
	bool completed;
	struct selection select;
};

static const char usage_text[] =
"Usage: ktau-dump [OPTIONS] PID\n"
"       ktau-dump [OPTIONS] --threads PID\n"
"       ktau-dump [OPTIONS] --system [PID]\n"
"       ktau-dump [OPTIONS] --input FILE [PID]\n"
"\n"
"Print the kernel profile that KTAU keeps for a process: one row per\n"
"instrumented kernel routine (system calls, softirqs, interrupts, page\n"
"faults, scheduling), with its group, number of calls, inclusive and\n"
"exclusive time in microseconds, and its share of the process's exclusive\n"
"kernel time. Rows are sorted by exclusive time, largest first. Routines\n"
"still running in a live thread (a read() blocked for minutes) count with\n"
"their time so far (no call until they return); a line under the table\n"
"says how much of the time that is.\n"
"\n"
"By default the profile is /proc/PID/ktau: all live and exited threads of\n"
"the process.\n"
"\n"
"Options:\n"
"  -t, --tid TID      only thread TID of process PID\n"
"                     (/proc/PID/task/TID/ktau)\n"
"      --children     also print the children block: the summed profiles of\n"
"                     the process's reaped children, like cutime/cstime\n"
"      --system       read /proc/ktau/profile: every task you may read, one\n"
"                     table per thread plus each process's exited and (with\n"
"                     --children) children blocks; with PID, only that process\n"
"      --threads      one table per live thread of process PID\n"
"                     (/proc/PID/task/TID/ktau for each thread TID)\n"
"      --callgraph    also print caller => callee edges (calls, inclusive usec)\n"
"      --groups LIST  only routines of these groups, comma-separated, e.g.\n"
"                     syscall,softirq,irq,sched,exception,kernel,event (atomic\n"
"                     events): the groups the kernel has (the profile's, with\n"
"                     --input); percentages are of the selected groups' time\n"
"      --top N        only the N routines with the most exclusive time per\n"
"                     table (the total line still counts them all)\n"
"      --completed    completed calls only: leave out the time of routines\n"
"                     still running\n"
"      --json         the selected tables as JSON (docs/json-schema.md, one\n"
"                     thread per table, routines named as in ktau-export):\n"
"                     completed calls, and the routines still running in\n"
"                     their own \"open\" array\n"
"      --raw          print the profile text exactly as the kernel wrote it\n"
"  -i, --input FILE   read a saved profile from FILE instead of /proc; PID and\n"
"                     --tid then select blocks of that file\n"
"  -h, --help         print this help and exit\n"
"  -V, --version      print the version and exit\n"
"\n"
"Profiles are readable by whoever may ptrace the process (the rule of\n"
"/proc/PID/io). The environment variable KTAU_PROCFS names another /proc root.\n"
"\n"
"Exit status:\n"
"  0  success\n"
"  1  runtime error: no such process, permission denied, no ktau support in\n"
"     this kernel, unreadable or malformed profile\n"
"  2  usage error: unknown option, bad or missing argument\n";

/* A process or thread id: 1 .. INT_MAX. */
static int parse_id(const char *s, pid_t *out)
{
	long v;

	if (tool_parse_uint(s, 1, &v))
		return -EINVAL;
	*out = (pid_t)v;
	return 0;
}

enum { OPT_RAW = 256, OPT_CHILDREN, OPT_SYSTEM, OPT_CALLGRAPH, OPT_THREADS,
	OPT_JSON, OPT_GROUPS, OPT_TOP, OPT_COMPLETED };

/* Options that exclude each other; -1 or EXIT_USAGE. */
static int check_combinations(const struct options *o)
{
	const char *clash = NULL;

	if (o->threads && (o->system || o->input))
		clash = "--threads reads /proc/PID/task; it cannot be combined with "
			"--system or --input";
	else if (o->threads && o->tid)
		clash = "--threads and --tid cannot be combined";
	else if (o->raw && (o->json || o->select.nr_groups || o->select.top || o->threads ||
			    o->completed))
		clash = "--raw prints the profile as it is: no --json, --groups, --top, "
			"--threads or --completed";
	else if (o->json && o->callgraph)
		clash = "--json has the call graph already (callpaths): drop --callgraph";
	if (!clash)
		return -1;
	tool_usage_error("%s", clash);
	return EXIT_USAGE;
}

/* Returns -1 to go on, or the exit code to stop with. */
static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "tid", required_argument, NULL, 't' },
		{ "input", required_argument, NULL, 'i' },
		{ "raw", no_argument, NULL, OPT_RAW },
		{ "children", no_argument, NULL, OPT_CHILDREN },
		{ "system", no_argument, NULL, OPT_SYSTEM },
		{ "callgraph", no_argument, NULL, OPT_CALLGRAPH },
		{ "threads", no_argument, NULL, OPT_THREADS },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "groups", required_argument, NULL, OPT_GROUPS },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "completed", no_argument, NULL, OPT_COMPLETED },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;	/* our own messages, in one format */
	while ((c = getopt_long(argc, argv, ":t:i:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (parse_id(optarg, &o->tid)) {
				tool_usage_error("invalid thread id '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'i':
			o->input = optarg;
			break;
		case OPT_RAW:
			o->raw = true;
			break;
		case OPT_CHILDREN:
			o->children = true;
			break;
		case OPT_SYSTEM:
			o->system = true;
			break;
		case OPT_CALLGRAPH:
			o->callgraph = true;
			break;
		case OPT_THREADS:
			o->threads = true;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_COMPLETED:
			o->completed = true;
			break;
		case OPT_GROUPS:
			if (select_parse_groups(&o->select, optarg))
				return EXIT_USAGE;
			break;
		case OPT_TOP:
			if (select_parse_top(&o->select, optarg))
				return EXIT_USAGE;
			break;
		default:
			return tool_standard_option(c, usage_text, argv, EXIT_USAGE);
		}
	}
	if (optind < argc) {
		if (parse_id(argv[optind], &o->pid)) {
			tool_usage_error("invalid process id '%s'", argv[optind]);
			return EXIT_USAGE;
		}
		optind++;
	}
	if (optind < argc) {
		tool_usage_error("unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	if (o->system && o->input) {
		tool_usage_error("%s", "--system and --input cannot be combined");
		return EXIT_USAGE;
	}
	if (!o->pid && !o->system && !o->input) {
		tool_usage_error("%s", "missing process id");
		return EXIT_USAGE;
	}
	return check_combinations(o);
}

/* The file the profile comes from, for messages. */
static void source_name(const struct options *o, char *buf, size_t size)
{
	if (o->input)
		snprintf(buf, size, "%s", o->input);
	else if (o->threads)
		snprintf(buf, size, "/proc/%d/task", (int)o->pid);
	else if (o->system)
		snprintf(buf, size, "/proc/ktau/profile");
	else if (o->tid)
		snprintf(buf, size, "/proc/%d/task/%d/ktau", (int)o->pid, (int)o->tid);
	else
		snprintf(buf, size, "/proc/%d/ktau", (int)o->pid);
}

static void report_read_error(const struct options *o, int error,
			      const struct ktau_error *perr)
{
	char src[4200];

	source_name(o, src, sizeof(src));
	switch (error) {
	case ESRCH:
		if (o->tid)
			fprintf(stderr, "ktau-dump: no such thread %d in process %d\n",
				(int)o->tid, (int)o->pid);
		else
			fprintf(stderr, "ktau-dump: no such process %d\n", (int)o->pid);
		return;
	case EACCES:
		fprintf(stderr, "ktau-dump: permission denied reading %s (you need "
			"ptrace access to the process)\n", src);
		return;
	case ENODEV:
		fprintf(stderr, "ktau-dump: this kernel has no ktau support "
			"(no /proc/ktau)\n");
		return;
	case EPROTO:
	case EPROTONOSUPPORT:
		if (ktau_error_line(perr))
			fprintf(stderr, "ktau-dump: %s:%u: %s\n", src, ktau_error_line(perr),
				ktau_error_message(perr));
		else
			fprintf(stderr, "ktau-dump: %s: %s\n", src,
				perr ? ktau_error_message(perr) : ktau_strerror(error));
		return;
	default:
		fprintf(stderr, "ktau-dump: cannot read %s: %s\n", src,
			ktau_strerror(error));
	}
}

static int dump_raw(const struct options *o)
{
	struct ktau_error *err;
	size_t len = 0;
	char *text;

	/* --system: pid and tid select blocks, they do not name the file */
	text = tool_read_raw(o->input, o->system ? 0 : o->pid, o->system ? 0 : o->tid,
			     &len, &err);
	if (!text) {
		report_read_error(o, errno, NULL);
		ktau_error_free(err);
		return EXIT_RUNTIME;
	}
	fwrite(text, 1, len, stdout);
	free(text);
	return EXIT_OK;
}

static struct ktau_profile *read_profile(const struct options *o,
					 struct ktau_error **err)
{
	/* --system: pid and tid select blocks, they do not name the file */
	return tool_read_profile(o->input, o->system ? 0 : o->pid,
				 o->system ? 0 : o->tid,
				 o->threads ? KTAU_READ_THREADS : 0, err);
}

static bool selected(const struct ktau_block *b, const void *arg)
{
	const struct options *o = arg;

	if (o->pid && ktau_block_pid(b) != o->pid)
		return false;
	if (o->tid && ktau_block_tid(b) != o->tid)
		return false;
	return o->children || ktau_block_kind(b) != KTAU_BLOCK_CHILDREN;
}

static bool group_selected(const struct options *o, const char *group)
{
	size_t i;

	for (i = 0; i < o->select.nr_groups; i++)
		if (!strcmp(o->select.groups[i], group))
			return true;
	return !o->select.nr_groups;
}

/* Whether running routine i of b is one the note lists (its group is
 * selected), and the first of that name. */
static bool running_listed(const struct options *o, const struct ktau_block *b, size_t i,
			   bool *first)
{
	const struct ktau_open *r = ktau_block_open(b, i);
	size_t j;

	*first = true;
	for (j = 0; j < i && *first; j++)
		if (group_selected(o, ktau_block_open(b, j)->group) &&
		    !strcmp(ktau_block_open(b, j)->name, r->name))
			*first = false;
	return group_selected(o, r->group);
}

/*
 * "(includes 1500.200 usec in progress: read, schedule_vol)": what the
 * routines running in b (of the selected groups) add to its table, their
 * exclusive time so far. NULL when nothing runs.
 */
static const char *running_note(const struct options *o, const struct ktau_profile *p,
				const struct ktau_block *b, char *buf, size_t size)
{
	char names[512] = "";
	size_t i, len = 0;
	uint64_t excl = 0;
	bool first;

	for (i = 0; i < ktau_block_open_count(b); i++) {
		const struct ktau_open *r = ktau_block_open(b, i);
		int n;

		if (!running_listed(o, b, i, &first))
			continue;
		excl += r->excl_cycles;
		if (!first || len >= sizeof(names))
			continue;
		n = snprintf(names + len, sizeof(names) - len, "%s%s", len ? ", " : "", r->name);
		len += n > 0 ? (size_t)n : 0;
	}
	if (!len)
		return NULL;
	if (ktau_profile_tsc_khz(p))
		snprintf(buf, size, "(includes %.3f usec in progress: %s)",
			 ktau_profile_usec(p, excl), names);
	else
		snprintf(buf, size, "(includes time in progress: %s)", names);
	return buf;
}

/* p: as read; shown: p with the running routines' time added, or p. */
static int print_tables(const struct options *o, const struct ktau_profile *p,
			const struct ktau_profile *shown_p, const struct ktau_profile *grouped,
			const struct ktau_profile *rows, size_t *shown)
{
	char note[640];
	size_t i;

	for (i = 0; i < ktau_profile_block_count(p); i++) {
		const struct ktau_block *b = ktau_profile_block(p, i);

		if (!selected(b, o))
			continue;
		if ((*shown)++)
			putchar('\n');
		if (print_block_tables(stdout, shown_p, grouped, rows, i, o->callgraph,
				       shown_p == p ? NULL :
				       running_note(o, p, b, note, sizeof(note))))
			return -ENOMEM;
	}
	return 0;
}

static int print_json(const struct options *o, const struct ktau_profile *rows,
		      size_t *shown)
{
	struct ktau_model *m = ktau_model_new();
	int ret = m ? json_add_blocks(m, rows, 0, selected, o) : -ENOMEM;

	*shown = m ? ktau_model_thread_count(m) : 0;
	if (!ret && *shown)
		ret = ktau_model_write_stream(m, KTAU_FORMAT_JSON, stdout);
	ktau_model_free(m);
	return ret;
}

/*
 * The groups --groups may name: the kernel's for /proc (its groups exist
 * even when the profile has no calls of them yet), else those in the
 * profile read (p NULL: not read yet). 1 when the kernel's list cannot be
 * read and p is needed; 0; or -EINVAL after the usage error.
 */
static int check_groups(const struct options *o, const struct ktau_profile *p)
{
	struct group_set g = { 0 };
	char where[4300];
	int ret;

	if (!o->select.nr_groups)
		return 0;
	if (!o->input && !p) {
		ret = group_set_add_kernel(&g);
		snprintf(where, sizeof(where), "this kernel's groups");
	} else if (!p) {
		return 1;
	} else {
		char src[4200];

		source_name(o, src, sizeof(src));
		ret = group_set_add_profile(&g, p);
		snprintf(where, sizeof(where), "groups in %s", src);
	}
	if (!ret)
		ret = select_check_groups(&o->select, &g, where);
	else if (ret == -ENOMEM)
		fprintf(stderr, "ktau-dump: out of memory\n");
	else
		ret = 1;
	group_set_free(&g);
	return ret;
}

static int dump(const struct options *o)
{
	struct ktau_profile *p, *q, *grouped = NULL, *rows = NULL;
	struct ktau_error *perr;
	size_t shown = 0;
	int ret = check_groups(o, NULL);

	if (ret < 0)
		return ret == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
	p = read_profile(o, &perr);
	if (!p) {
		report_read_error(o, errno, perr);
		ktau_error_free(perr);
		return EXIT_RUNTIME;
	}
	/* the kernel's list was not there: the profile's then */
	if (ret > 0 && (ret = check_groups(o, p)) < 0) {
		ktau_profile_free(p);
		return ret == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
	}
	ret = 0;
	/* tables: with the time so far of what runs (JSON has it apart) */
	q = o->json || o->completed ? p : ktau_profile_with_open(p);
	if (!q)
		ret = -errno;
	if (!ret)
		ret = select_apply(&o->select, q, &grouped, &rows);
	if (!ret)
		ret = o->json ? print_json(o, rows, &shown)
			      : print_tables(o, p, q, grouped, rows, &shown);
	if (ret)
		fprintf(stderr, "ktau-dump: %s\n", ktau_strerror(ret));
	else if (!shown) {
		char src[4200];

		source_name(o, src, sizeof(src));
		fprintf(stderr, "ktau-dump: %s has no profile data for the selected "
			"task\n", src);
		ret = -ENOENT;
	}
	if (q)
		select_release(q, grouped, rows);
	if (q != p)
		ktau_profile_free(q);
	ktau_profile_free(p);
	return ret ? EXIT_RUNTIME : EXIT_OK;
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	int ret;

	tool_init("ktau-dump");
	ret = parse_options(argc, argv, &o);
	if (ret >= 0)
		return ret;
	ret = o.raw ? dump_raw(&o) : dump(&o);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "ktau-dump: write error: %s\n", strerror(errno));
		return EXIT_RUNTIME;
	}
	return ret;
}
