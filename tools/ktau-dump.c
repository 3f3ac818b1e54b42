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
};

static const char usage_text[] =
"Usage: ktau-dump [OPTIONS] PID\n"
"       ktau-dump [OPTIONS] --system [PID]\n"
"       ktau-dump [OPTIONS] --input FILE [PID]\n"
"\n"
"Print the kernel profile that KTAU keeps for a process: one row per\n"
"instrumented kernel routine (system calls, softirqs, interrupts, page\n"
"faults, scheduling), with its group, number of calls, inclusive and\n"
"exclusive time in microseconds, and its share of the process's exclusive\n"
"kernel time. Rows are sorted by exclusive time, largest first.\n"
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
"      --callgraph    also print caller => callee edges (calls, inclusive usec)\n"
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

enum { OPT_RAW = 256, OPT_CHILDREN, OPT_SYSTEM, OPT_CALLGRAPH };

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
		default:
			return tool_common_option(c, argv, usage_text);
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
	return -1;
}

/* The file the profile comes from, for messages. */
static void source_name(const struct options *o, char *buf, size_t size)
{
	if (o->input)
		snprintf(buf, size, "%s", o->input);
	else if (o->system)
		snprintf(buf, size, "/proc/ktau/profile");
	else if (o->tid)
		snprintf(buf, size, "/proc/%d/task/%d/ktau", (int)o->pid, (int)o->tid);
	else
		snprintf(buf, size, "/proc/%d/ktau", (int)o->pid);
}

static void report_read_error(const struct options *o, int error,
			      const struct ktau_parse_error *perr)
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
		if (perr && perr->line)
			fprintf(stderr, "ktau-dump: %s:%u: %s\n", src, perr->line,
				perr->message);
		else
			fprintf(stderr, "ktau-dump: %s: %s\n", src,
				perr && perr->message[0] ? perr->message
							 : ktau_strerror(error));
		return;
	default:
		fprintf(stderr, "ktau-dump: cannot read %s: %s\n", src,
			ktau_strerror(error));
	}
}

static int dump_raw(const struct options *o)
{
	size_t len = 0;
	char *text;

	if (o->input)
		text = ktau_raw_read_file(o->input, &len);
	else if (o->system)
		text = ktau_raw_read_system(&len);
	else if (o->tid)
		text = ktau_raw_read_tid(o->pid, o->tid, &len);
	else
		text = ktau_raw_read_pid(o->pid, &len);
	if (!text) {
		report_read_error(o, errno, NULL);
		return EXIT_RUNTIME;
	}
	fwrite(text, 1, len, stdout);
	free(text);
	return EXIT_OK;
}

static struct ktau_profile *read_profile(const struct options *o,
					 struct ktau_parse_error *err)
{
	if (o->input)
		return ktau_profile_read_file(o->input, err);
	if (o->system)
		return ktau_profile_read_system(err);
	if (o->tid)
		return ktau_profile_read_tid(o->pid, o->tid, err);
	return ktau_profile_read_pid(o->pid, err);
}

static bool selected(const struct options *o, const struct ktau_block *b)
{
	if (o->pid && ktau_block_pid(b) != o->pid)
		return false;
	if (o->tid && ktau_block_tid(b) != o->tid)
		return false;
	return o->children || ktau_block_kind(b) != KTAU_BLOCK_CHILDREN;
}

static int print_block(const struct options *o, const struct ktau_profile *p,
		       const struct ktau_block *b)
{
	print_block_header(stdout, p, b);
	if (print_flat_table(stdout, p, b))
		return -ENOMEM;
	if (ktau_block_event_count(b)) {
		putchar('\n');
		print_events(stdout, b);
	}
	if (o->callgraph) {
		putchar('\n');
		if (print_callgraph(stdout, p, b))
			return -ENOMEM;
	}
	return 0;
}

static int dump(const struct options *o)
{
	struct ktau_parse_error perr;
	struct ktau_profile *p;
	size_t i, shown = 0;
	int ret = EXIT_OK;

	p = read_profile(o, &perr);
	if (!p) {
		report_read_error(o, errno, &perr);
		return EXIT_RUNTIME;
	}
	for (i = 0; i < ktau_profile_block_count(p); i++) {
		const struct ktau_block *b = ktau_profile_block(p, i);

		if (!selected(o, b))
			continue;
		if (shown++)
			putchar('\n');
		if (print_block(o, p, b)) {
			fprintf(stderr, "ktau-dump: out of memory\n");
			ret = EXIT_RUNTIME;
			break;
		}
	}
	if (!shown && ret == EXIT_OK) {
		char src[4200];

		source_name(o, src, sizeof(src));
		fprintf(stderr, "ktau-dump: %s has no profile data for the selected "
			"task\n", src);
		ret = EXIT_RUNTIME;
	}
	ktau_profile_free(p);
	return ret;
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
