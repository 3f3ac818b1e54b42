// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ktau-stacks — import call stacks sampled by perf, SystemTap or DTrace and
 * write them as a report or in ktau-export's formats. Parsing, counting and
 * writing are libktau's; this file reads options and reports errors.
 */
#define _GNU_SOURCE	/* getopt_long */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ktau.h>

#include "stacks-report.h"
#include "tool.h"

#define REPORT 0	/* --to report: not a model format */
#define DEFAULT_TOP 20

struct options {
	int input_format;	/* enum ktau_stacks_format */
	int output_format;	/* enum ktau_model_format, or REPORT */
	const char *output;	/* NULL: default */
	const char *input;	/* NULL or "-": standard input */
	const char *label;
	long top;
};

static const char usage_text[] =
"Usage: ktau-stacks [--format IN] [--to OUT_FORMAT] [-o OUT] [OPTIONS] [INPUT]\n"
"\n"
"Read call stacks sampled by perf, SystemTap or DTrace, count the samples\n"
"per function (exclusive: the function is the leaf; inclusive: it is on\n"
"the stack, once per sample even under recursion) and per call path, and\n"
"print a report or write them as ktau-export does (TAU for ParaProf, pprof,\n"
"callgrind, folded stacks, JSON, an SVG flame graph) with samples as the\n"
"metric. INPUT is a file; without it, or with -, standard input.\n"
"\n"
"Inputs (detected from the text, or named with --format):\n"
"  perf    perf script output of perf record -g (default fields):\n"
"            perf record -g -- CMD; perf script | ktau-stacks\n"
"  stap    SystemTap print_stack()/print_ubacktrace() of aggregated\n"
"          backtraces, each stack followed by its count, '!' separators\n"
"  dtrace  DTrace @[stack()] = count() (or ustack()) aggregations as dtrace\n"
"          prints them\n"
"Frame names lose offsets (+0x105/0x2b0), addresses and module prefixes;\n"
"the module becomes the TAU group; frames without a symbol keep their\n"
"address (0xffffffffc0a1b2c3). See docs/export-formats.md.\n"
"\n"
"Options:\n"
"  -F, --format IN      perf, stap or dtrace (default: detect)\n"
"  -t, --to FORMAT      report (default), tau, pprof, callgrind, folded, json,\n"
"                       svg\n"
"  -o, --output OUT     where to write: a directory for tau (default .), else\n"
"                       a file (default, or -: standard output)\n"
"  -n, --top N          rows in each table of the report (default 20)\n"
"  -l, --label TEXT     the TAU thread's name (default: 'FORMAT samples')\n"
"  -h, --help           print this help and exit\n"
"  -V, --version        print the version and exit\n"
"\n"
"Exit status:\n"
"  0  success\n"
"  1  runtime error: unreadable or malformed input (the message gives the\n"
"     line), no call stacks in it, cannot write the output\n"
"  2  usage error: unknown option, bad or missing argument\n";

static int parse_to(const char *name, struct options *o)
{
	int f = ktau_model_format_from_name(name);

	if (!strcmp(name, "report"))
		f = REPORT;
	if (f < 0) {
		tool_usage_error("unknown output format '%s' (report, tau, pprof, callgrind, "
				 "folded, json, svg)", name);
		return EXIT_USAGE;
	}
	o->output_format = f;
	return -1;
}

/* Returns -1 to go on, or the exit code to stop with. */
static int parse_option(int c, void *opts, char **argv)
{
	struct options *o = opts;

	switch (c) {
	case 'F':
		o->input_format = ktau_stacks_format_from_name(optarg);
		if (o->input_format < 0) {
			tool_usage_error("unknown input format '%s' (perf, stap, dtrace)", optarg);
			return EXIT_USAGE;
		}
		return -1;
	case 't':
		return parse_to(optarg, o);
	case 'o':
		o->output = optarg;
		return -1;
	case 'n':
		if (tool_parse_uint(optarg, 1, &o->top)) {
			tool_usage_error("invalid number of rows '%s'", optarg);
			return EXIT_USAGE;
		}
		return -1;
	case 'l':
		o->label = optarg;
		return -1;
	default:
		return tool_standard_option(c, usage_text, argv, EXIT_USAGE);
	}
}

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'F' },
		{ "to", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "top", required_argument, NULL, 'n' },
		{ "label", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	return tool_parse_args(argc, argv, ":F:t:o:n:l:hV", longopts, parse_option, o,
			       &o->input);
}

static const char *input_name(const struct options *o)
{
	return o->input && strcmp(o->input, "-") ? o->input : "standard input";
}

static struct ktau_stacks *read_stacks(const struct options *o)
{
	bool from_file = o->input && strcmp(o->input, "-");
	KTAU_OPTS(ktau_load_opts, load, .path = from_file ? o->input : NULL,
		  .stream = from_file ? NULL : stdin);
	struct ktau_error *perr;
	struct ktau_stacks *s;
	int error;

	s = ktau_stacks_load(&load, o->input_format, &perr);
	if (s)
		return s;
	error = errno;
	if (error == EPROTO && ktau_error_line(perr))
		fprintf(stderr, "ktau-stacks: %s:%u: %s\n", input_name(o),
			ktau_error_line(perr), ktau_error_message(perr));
	else if (error == EPROTO)
		fprintf(stderr, "ktau-stacks: %s: %s (--format perf, stap or dtrace)\n",
			input_name(o), ktau_error_message(perr));
	else
		fprintf(stderr, "ktau-stacks: cannot read %s: %s\n", input_name(o),
			ktau_strerror(error));
	ktau_error_free(perr);
	return NULL;
}

static int write_report(const struct options *o, const struct ktau_model_thread *t)
{
	const char *out = o->output && strcmp(o->output, "-") ? o->output : NULL;
	FILE *f = out ? fopen(out, "w") : stdout;
	int ret;

	if (!f) {
		fprintf(stderr, "ktau-stacks: cannot write %s: %s\n", out, strerror(errno));
		return EXIT_RUNTIME;
	}
	ret = stacks_report(t, o->top ? (size_t)o->top : DEFAULT_TOP, f);
	if ((out && fclose(f)) || (!out && fflush(f)))
		ret = -errno;
	if (ret) {
		fprintf(stderr, "ktau-stacks: cannot write %s: %s\n",
			out ? out : "standard output", ktau_strerror(ret));
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	const struct ktau_model_thread *t;
	struct ktau_stacks *s;
	struct ktau_model *m;
	int ret;

	tool_init("ktau-stacks");
	ret = parse_options(argc, argv, &o);
	if (ret >= 0)
		return ret;
	s = read_stacks(&o);
	if (!s)
		return EXIT_RUNTIME;
	if (!ktau_stacks_samples(s)) {
		fprintf(stderr, "ktau-stacks: %s has no call stacks (%" PRIu64 " samples "
			"without one: was perf record run with -g?)\n", input_name(&o),
			ktau_stacks_empty_samples(s));
		ktau_stacks_free(s);
		return EXIT_RUNTIME;
	}
	m = ktau_model_new();
	t = m ? ktau_model_add_stacks(m, s, 0, 0, 0, o.label) : NULL;
	ktau_stacks_free(s);
	if (!t) {
		fprintf(stderr, "ktau-stacks: %s\n", ktau_strerror(errno));
		ktau_model_free(m);
		return EXIT_RUNTIME;
	}
	ret = o.output_format == REPORT ? write_report(&o, t) : tool_write_model(m, o.output_format, o.output);
	ktau_model_free(m);
	return ret;
}
