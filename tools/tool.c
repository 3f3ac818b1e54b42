// SPDX-License-Identifier: GPL-2.0-or-later
#define _GNU_SOURCE	/* getopt_long */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ktau.h>

#include "tool.h"

/* The program's name: set once at start, read by the error reporters. */
static const char *tool_prog = "ktau";

void tool_init(const char *prog)
{
	tool_prog = prog;
}

void tool_usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", tool_prog);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", tool_prog);
}

int tool_parse_uint(const char *s, long min, long *out)
{
	char *end;
	long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > INT_MAX)
		return -EINVAL;
	*out = v;
	return 0;
}

int tool_standard_option(int c, const char *usage, char *const argv[], int usage_exit)
{
	switch (c) {
	case 'h':
		fputs(usage, stdout);
		return EXIT_OK;
	case 'V':
		printf("%s (ktau) %s\n", tool_prog, ktau_version());
		return EXIT_OK;
	case ':':
		tool_usage_error("option '%s' needs an argument", argv[optind - 1]);
		return usage_exit;
	default:
		tool_usage_error("unknown option '%s'", argv[optind - 1]);
		return usage_exit;
	}
}

int tool_write_model(const struct ktau_model *m, int format, const char *output)
{
	int to_stdout = !output || !strcmp(output, "-");
	int ret;

	if (format == KTAU_FORMAT_TAU)
		ret = ktau_model_write_tau(m, output ? output : ".");
	else if (to_stdout)
		ret = ktau_model_write_stream(m, format, stdout);
	else
		ret = ktau_model_write(m, format, output);
	if (ret) {
		fprintf(stderr, "%s: cannot write %s: %s\n", tool_prog,
			format == KTAU_FORMAT_TAU ? (output ? output : ".")
			: to_stdout ? "standard output" : output, ktau_strerror(ret));
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

int tool_parse_args(int argc, char **argv, const char *shortopts,
		    const struct option *longopts, tool_option_fn fn, void *opts,
		    const char **operand)
{
	int c, ret;

	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		ret = fn(c, opts, argv);
		if (ret >= 0)
			return ret;
	}
	if (optind < argc)
		*operand = argv[optind++];
	if (optind < argc) {
		tool_usage_error("unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	return -1;
}

/* One /proc read through a handle on libktau's default root: the tools
 * take KTAU_PROCFS as every libktau program does, from the library. */
static void *proc_read(pid_t pid, pid_t tid, unsigned int flags, size_t *raw_len,
		       struct ktau_error **err)
{
	KTAU_OPTS(ktau_read_opts, opts, .pid = pid, .tid = tid, .flags = flags);
	struct ktau_proc *proc = ktau_proc_open(NULL, err);
	void *ret;
	int error;

	if (!proc)
		return NULL;
	ret = raw_len ? (void *)ktau_proc_read_raw(proc, &opts, raw_len, err)
		      : (void *)ktau_proc_read_profile(proc, &opts, err);
	error = errno;
	ktau_proc_close(proc);
	errno = error;
	return ret;
}

struct ktau_profile *tool_read_profile(const char *input, pid_t pid, pid_t tid,
				       unsigned int flags, struct ktau_error **err)
{
	KTAU_OPTS(ktau_load_opts, load, .path = input);

	return input ? ktau_profile_load(&load, err) : proc_read(pid, tid, flags, NULL, err);
}

char *tool_read_raw(const char *input, pid_t pid, pid_t tid, size_t *len,
		    struct ktau_error **err)
{
	KTAU_OPTS(ktau_load_opts, load, .path = input);
	size_t dummy;

	if (!len)
		len = &dummy;
	return input ? ktau_raw_load(&load, len, err) : proc_read(pid, tid, 0, len, err);
}
