// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ktau-export — write a kernel profile (or a TAU profile directory, such
 * as a merged user/kernel profile: tau-input.c) as a TAU profile directory
 * (for ParaProf), pprof, callgrind, folded stacks, JSON or an SVG flame
 * graph, and a trace as a timeline (Perfetto / Chrome trace-event JSON) or
 * an OTF2 archive (when built with libotf2: otf2-writer.c). Reading, the
 * model and the writers are libktau's; this file only picks blocks and a
 * format.
 */
#define _GNU_SOURCE	/* getopt_long */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <ktau.h>

#include "tau-input.h"
#include "tool.h"
#ifdef KTAU_HAVE_OTF2
#include "otf2-writer.h"
#endif

/* The formats of traces (ktau-trace's files) rather than profiles. */
enum trace_format {
	TRACE_NONE = 0,
	TRACE_PERFETTO,
	TRACE_OTF2,
};

struct options {
	int format;		/* enum ktau_model_format, 0: not given */
	enum trace_format trace_format;
	const char *output;	/* NULL: default */
	const char *input;	/* a saved profile or TAU directory, or NULL with pid */
	pid_t pid, tid;		/* 0: not given */
	bool children;
	unsigned int node;
};

static const char usage_text[] =
"Usage: ktau-export --format FORMAT [-o OUT] [OPTIONS] INPUT\n"
"       ktau-export --format FORMAT [-o OUT] [OPTIONS] --pid PID [--tid TID]\n"
"       ktau-export --format perfetto [-o OUT] TRACE\n"
"       ktau-export --format otf2 -o DIR TRACE\n"
"\n"
"Write a KTAU kernel profile in a format other tools read. INPUT is a saved\n"
"/proc ktau profile (any scope: thread, process or system); --pid reads\n"
"/proc/PID/ktau live instead. Every block of the profile (a thread, a\n"
"process total, a process's exited threads) becomes one TAU thread,\n"
"numbered from 0 in file order; children blocks only with --children.\n"
"INPUT may also be a TAU profile directory (TIME or SAMPLES), such as the\n"
"merged user/kernel profile a program linked with libktau-prof writes:\n"
"each profile.N.C.T file is one thread.\n"
"\n"
"Formats:\n"
"  tau        a directory of profile.NODE.0.THREAD files that ParaProf and\n"
"             TAU's pprof open (OUT: the directory, default .)\n"
"  pprof      profile.proto, uncompressed, for go tool pprof\n"
"  callgrind  for callgrind_annotate and KCachegrind (event ns)\n"
"  folded     'thread;root;...;leaf ns' lines for flamegraph.pl\n"
"  json       see docs/json-schema.md\n"
"  svg        an interactive flame graph, one self-contained file for a\n"
"             browser: click to zoom, Search to highlight, a tooltip per frame\n"
"             (calls, inclusive time, share); kernel frames coloured by kind\n"
"Formats of a TRACE (a file ktau-trace wrote):\n"
"  perfetto   Chrome/Perfetto trace-event JSON (ui.perfetto.dev,\n"
"             chrome://tracing): a track per thread, a slice per routine,\n"
"             user routines and the kernel work inside them nested\n"
"  otf2       an OTF2 archive for Vampir and Score-P's tools: OUT is a\n"
"             directory, made if need be, that gets traces.otf2, traces.def\n"
"             and traces/ (only when built with libotf2)\n"
"For every format but tau and otf2, OUT is a file; without -o, or with -o -, the\n"
"output goes to standard output. Files are replaced atomically.\n"
"\n"
"Options:\n"
"  -f, --format FORMAT  tau, pprof, callgrind, folded, json, svg, or for a trace\n"
"                       perfetto or otf2 (required)\n"
"  -o, --output OUT     where to write (see above)\n"
"  -p, --pid PID        read /proc/PID/ktau instead of INPUT\n"
"  -t, --tid TID        with --pid: only thread TID (/proc/PID/task/TID/ktau)\n"
"      --children       also export the children blocks (reaped children's\n"
"                       totals; not for a TAU directory)\n"
"      --node N         the TAU node number of the threads (default 0; a TAU\n"
"                       directory keeps its files' numbers)\n"
"  -h, --help           print this help and exit\n"
"  -V, --version        print the version and exit\n"
"\n"
"Kernel routines are named as TAU's KTAU merge named them: system calls\n"
"sys_NAME(), others NAME(), in groups TAU_KERNEL_MERGE | KTAU_SYSCALL (or\n"
"KTAU_BH, KTAU_IRQ, KTAU_SCHEDULE, KTAU_EXCEPTION, KTAU_KERNEL); caller =>\n"
"callee edges become callpaths. The environment variable KTAU_PROCFS names\n"
"another /proc root.\n"
"\n"
"Exit status:\n"
"  0  success\n"
"  1  runtime error: no such process, permission denied, no ktau support,\n"
"     unreadable or malformed profile, no data, cannot write the output\n"
"  2  usage error: unknown option, bad or missing argument\n";

enum { OPT_CHILDREN = 256, OPT_NODE };

static int parse_option(int c, void *opts, char **argv)
{
	struct options *o = opts;
	long v;

	switch (c) {
	case 'f':
		o->trace_format = !strcmp(optarg, "perfetto") ? TRACE_PERFETTO :
				  !strcmp(optarg, "otf2") ? TRACE_OTF2 : TRACE_NONE;
		o->format = o->trace_format ? 0 : ktau_model_format_from_name(optarg);
		if (o->format < 0) {
			tool_usage_error("unknown format '%s' (tau, pprof, callgrind, "
				    "folded, json, svg, perfetto, otf2)", optarg);
			return EXIT_USAGE;
		}
		return -1;
	case 'o':
		o->output = optarg;
		return -1;
	case 'p':
	case 't':
		if (tool_parse_uint(optarg, 1, &v)) {
			tool_usage_error(c == 'p' ? "invalid process id '%s'"
					     : "invalid thread id '%s'", optarg);
			return EXIT_USAGE;
		}
		*(c == 'p' ? &o->pid : &o->tid) = (pid_t)v;
		return -1;
	case OPT_CHILDREN:
		o->children = true;
		return -1;
	case OPT_NODE:
		if (tool_parse_uint(optarg, 0, &v)) {
			tool_usage_error("invalid node number '%s'", optarg);
			return EXIT_USAGE;
		}
		o->node = (unsigned int)v;
		return -1;
	default:
		return tool_standard_option(c, usage_text, argv, EXIT_USAGE);
	}
}

/* Returns -1 to go on, or the exit code to stop with. */
static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "children", no_argument, NULL, OPT_CHILDREN },
		{ "node", required_argument, NULL, OPT_NODE },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int ret;

	ret = tool_parse_args(argc, argv, ":f:o:p:t:hV", longopts, parse_option, o, &o->input);
	if (ret >= 0)
		return ret;
	if (!o->format && !o->trace_format) {
		tool_usage_error("%s", "missing --format");
		return EXIT_USAGE;
	}
	if (o->trace_format && (o->pid || o->children || o->node || !o->input)) {
		tool_usage_error("%s", o->input ? "a trace format takes a TRACE file only "
				 "(no --pid, --children, --node)" : "missing TRACE file");
		return EXIT_USAGE;
	}
	if (o->trace_format == TRACE_OTF2 && (!o->output || !strcmp(o->output, "-"))) {
		tool_usage_error("%s", "-f otf2 writes a directory: give -o DIR");
		return EXIT_USAGE;
	}
	if (!o->input == !o->pid) {
		tool_usage_error("%s", o->pid ? "give either INPUT or --pid, not both"
					 : "missing INPUT file or --pid");
		return EXIT_USAGE;
	}
	if (o->tid && !o->pid) {
		tool_usage_error("%s", "--tid needs --pid");
		return EXIT_USAGE;
	}
	return -1;
}

static void source_name(const struct options *o, char *buf, size_t size)
{
	if (o->input)
		snprintf(buf, size, "%s", o->input);
	else if (o->tid)
		snprintf(buf, size, "/proc/%d/task/%d/ktau", (int)o->pid, (int)o->tid);
	else
		snprintf(buf, size, "/proc/%d/ktau", (int)o->pid);
}

static struct ktau_profile *read_profile(const struct options *o)
{
	struct ktau_error *perr;
	struct ktau_profile *p;
	char src[4200];
	int error;

	p = tool_read_profile(o->input, o->pid, o->tid, 0, &perr);
	if (p)
		return p;
	error = errno;
	source_name(o, src, sizeof(src));
	if ((error == EPROTO || error == EPROTONOSUPPORT) && ktau_error_line(perr))
		fprintf(stderr, "ktau-export: %s:%u: %s\n", src, ktau_error_line(perr),
			ktau_error_message(perr));
	else if (error == ESRCH && o->pid)
		fprintf(stderr, "ktau-export: no such process or thread: %s\n", src);
	else
		fprintf(stderr, "ktau-export: cannot read %s: %s\n", src,
			ktau_error_message(perr));
	ktau_error_free(perr);
	return NULL;
}

/* The selected blocks as threads 0, 1, ... of node o->node. */
static struct ktau_model *build_model(const struct options *o,
				      const struct ktau_profile *p)
{
	struct ktau_model *m = ktau_model_new();
	unsigned int thread = 0;
	size_t i;

	for (i = 0; m && i < ktau_profile_block_count(p); i++) {
		const struct ktau_block *b = ktau_profile_block(p, i);

		if (!o->children && ktau_block_kind(b) == KTAU_BLOCK_CHILDREN)
			continue;
		if (!ktau_model_add_block(m, p, i, o->node, 0, thread++)) {
			fprintf(stderr, "ktau-export: cannot convert block %zu: %s\n",
				i + 1, ktau_strerror(errno));
			ktau_model_free(m);
			return NULL;
		}
	}
	if (!m)
		fprintf(stderr, "ktau-export: %s\n", ktau_strerror(errno));
	return m;
}

#ifdef KTAU_HAVE_OTF2
/* The timeline as an OTF2 archive in directory o->output. */
static int write_otf2(const struct options *o, const struct ktau_trace *t,
		      const struct ktau_trace_timeline *tl)
{
	struct otf2_trace_info info = { .lost_user = ktau_trace_lost_user(t) };
	uint64_t khz = ktau_trace_timeline_tsc_khz(tl), first = ktau_trace_timeline_first_tsc(tl);
	uint64_t anchor, realtime;
	char creator[64], msg[600];
	unsigned int cpu;

	for (cpu = 0; cpu < ktau_trace_nr_cpus(t); cpu++)
		info.lost_kernel += ktau_trace_lost(t, cpu);
	/* the wall clock at the first event, from the stream's anchor (0,
	 * unknown, when it is not there or the result is out of range) */
	ktau_trace_clock(t, &anchor, &realtime, NULL);
	if (anchor && realtime) {
		unsigned __int128 d = (unsigned __int128)(anchor >= first ? anchor - first
								       : first - anchor) *
				      1000000 / khz;

		if (anchor < first && d < UINT64_MAX - realtime)
			info.realtime_ns = realtime + (uint64_t)d;
		else if (anchor >= first && d < realtime)
			info.realtime_ns = realtime - (uint64_t)d;
	}
	snprintf(creator, sizeof(creator), "ktau-export %s", ktau_version());
	info.creator = creator;
	if (mkdir(o->output, 0777) && errno != EEXIST) {
		fprintf(stderr, "ktau-export: cannot write %s: %s\n", o->output, strerror(errno));
		return EXIT_RUNTIME;
	}
	if (otf2_write_timeline(tl, &info, o->output, msg, sizeof(msg))) {
		fprintf(stderr, "ktau-export: cannot write %s: %s\n", o->output, msg);
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}
#endif

/* The timeline as trace-event JSON: to OUT, or stdout. */
static int write_json(const struct options *o, const struct ktau_trace_timeline *tl)
{
	bool to_stdout = !o->output || !strcmp(o->output, "-");
	FILE *out = to_stdout ? stdout : fopen(o->output, "w");
	int ret;

	if (!out) {
		fprintf(stderr, "ktau-export: cannot write %s: %s\n", o->output, strerror(errno));
		return EXIT_RUNTIME;
	}
	ret = ktau_trace_timeline_write_json(tl, out);
	if (!to_stdout && fclose(out) && !ret)
		ret = -errno;
	if (ret) {
		fprintf(stderr, "ktau-export: cannot write %s: %s\n",
			to_stdout ? "standard output" : o->output, ktau_strerror(ret));
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

/* A trace's timeline in o->trace_format. */
static int export_trace(const struct options *o)
{
	KTAU_OPTS(ktau_load_opts, lo, .path = o->input);
	struct ktau_trace_timeline *tl;
	struct ktau_error *err;
	struct ktau_trace *t;
	int ret;

#ifndef KTAU_HAVE_OTF2
	if (o->trace_format == TRACE_OTF2) {
		fprintf(stderr, "ktau-export: this ktau-export was built without OTF2 "
			"support (libotf2); -f perfetto writes a timeline\n");
		return EXIT_RUNTIME;
	}
#endif
	t = ktau_trace_open(&lo, &err);
	tl = t ? ktau_trace_timeline(t, &err) : NULL;
	if (!tl) {
		fprintf(stderr, "ktau-export: %s: %s\n", o->input, ktau_error_message(err));
		ktau_error_free(err);
		ktau_trace_close(t);
		return EXIT_RUNTIME;
	}
	if (!ktau_trace_timeline_tsc_khz(tl)) {
		fprintf(stderr, "ktau-export: %s: the trace has no tsc_khz: its time stamps "
			"cannot be converted\n", o->input);
		ret = EXIT_RUNTIME;
	} else {
#ifdef KTAU_HAVE_OTF2
		ret = o->trace_format == TRACE_OTF2 ? write_otf2(o, t, tl) : write_json(o, tl);
#else
		ret = write_json(o, tl);
#endif
	}
	ktau_trace_timeline_free(tl);
	ktau_trace_close(t);
	return ret;
}

static bool is_directory(const char *path)
{
	struct stat st;

	return path && !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* The model to write: of the profile's blocks, or of a TAU directory;
 * NULL when it cannot be had (said on stderr). */
static struct ktau_model *input_model(const struct options *o)
{
	struct ktau_profile *p;
	struct ktau_model *m;
	char msg[4400];

	if (is_directory(o->input)) {
		m = tau_dir_model(o->input, msg, sizeof(msg));
		if (!m)
			fprintf(stderr, "ktau-export: %s\n", msg);
		return m;
	}
	p = read_profile(o);
	if (!p)
		return NULL;
	m = build_model(o, p);
	ktau_profile_free(p);
	return m;
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	struct ktau_model *m;

	int ret;

	tool_init("ktau-export");
	ret = parse_options(argc, argv, &o);
	if (ret >= 0)
		return ret;
	if (o.trace_format)
		return export_trace(&o);
	if ((o.children || o.node) && is_directory(o.input)) {
		tool_usage_error("%s", "--children and --node are for a ktau profile, "
				 "not a TAU directory");
		return EXIT_USAGE;
	}
	m = input_model(&o);
	if (!m)
		return EXIT_RUNTIME;
	if (!ktau_model_thread_count(m)) {
		char src[4200];

		source_name(&o, src, sizeof(src));
		fprintf(stderr, "ktau-export: %s has no profile data to export\n", src);
		ktau_model_free(m);
		return EXIT_RUNTIME;
	}
	ret = tool_write_model(m, o.format, o.output);
	ktau_model_free(m);
	return ret;
}
