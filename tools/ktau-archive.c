// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ktau-archive — put everything needed to analyze kernel profiles on
 * another machine into one file (docs/archive-format.md). Collecting and
 * writing are libktau's; this file only reads the command line.
 */
#define _GNU_SOURCE	/* getopt_long */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ktau.h>

#include "tool.h"

struct options {
	const char *output;
	bool all;
	pid_t *pids;
	size_t nr_pids;
};

static const char usage_text[] =
"Usage: ktau-archive -o FILE PID...\n"
"       ktau-archive -o FILE --all\n"
"\n"
"Write one file with everything needed to analyze KTAU kernel profiles on\n"
"another machine, like oprofile's oparchive: the profiles of the given\n"
"processes (/proc/PID/ktau and each live thread's /proc/PID/task/TID/ktau),\n"
"or with --all /proc/ktau/profile (every task you may read); the function\n"
"map /proc/ktau/functions; the recording state /proc/ktau/control; the\n"
"kernel's configuration /proc/config.gz and symbols /proc/kallsyms when\n"
"readable; the host name, kernel version (uname), time and TSC frequency.\n"
"\n"
"FILE is a tar file (tar -tvf lists it; docs/archive-format.md describes\n"
"it), written to a temporary name and renamed into place. Read it with\n"
"ktau-report FILE on any machine, with or without a ktau kernel.\n"
"\n"
"Options:\n"
"  -o, --output FILE  the archive to write (required)\n"
"  -a, --all          every task's profile instead of PIDs\n"
"  -h, --help         print this help and exit\n"
"  -V, --version      print the version and exit\n"
"\n"
"Run as root to archive other users' processes and kallsyms addresses;\n"
"as a user, kallsyms addresses read as 0 (the manifest says so). The\n"
"environment variable KTAU_PROCFS names another /proc root.\n"
"\n"
"Exit status:\n"
"  0  success; one line on standard output says what was written\n"
"  1  runtime error: no such process, permission denied, no ktau support\n"
"     in this kernel, a malformed profile, cannot write FILE\n"
"  2  usage error: unknown option, bad or missing argument\n";

static int add_pid(struct options *o, const char *arg, int argc)
{
	long v;

	if (tool_parse_uint(arg, 1, &v)) {
		tool_usage_error("invalid process id '%s'", arg);
		return -EINVAL;
	}
	if (!o->pids) {
		o->pids = calloc((size_t)argc, sizeof(*o->pids));
		if (!o->pids)
			return -ENOMEM;
	}
	o->pids[o->nr_pids++] = (pid_t)v;
	return 0;
}

/* Returns -1 to go on, or the exit code to stop with. */
static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "all", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:ahV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'a':
			o->all = true;
			break;
		default:
			return tool_standard_option(c, usage_text, argv, EXIT_USAGE);
		}
	}
	for (; optind < argc; optind++) {
		int ret = add_pid(o, argv[optind], argc);

		if (ret)
			return ret == -ENOMEM ? EXIT_RUNTIME : EXIT_USAGE;
	}
	if (!o->output || !*o->output) {
		tool_usage_error("%s", "missing -o FILE (the archive to write)");
		return EXIT_USAGE;
	}
	if (o->all == (o->nr_pids > 0)) {
		tool_usage_error("%s", o->all ? "give either PIDs or --all, not both"
					      : "missing PID (or --all)");
		return EXIT_USAGE;
	}
	return -1;
}

/* What to do about it, after libktau's message naming the file. */
static const char *hint(int error)
{
	switch (error) {
	case EACCES:
		return " (you need ptrace access to the process: run as its owner "
		       "or as root)";
	case ESRCH:
		return " (check the PID: the process may have exited)";
	default:
		return "";
	}
}

static int archive(const struct options *o)
{
	KTAU_OPTS(ktau_collect_opts, opts, .pids = o->pids, .nr_pids = o->nr_pids);
	struct ktau_archive *a = ktau_archive_new();
	/* libktau's default tree: KTAU_PROCFS or /proc */
	struct ktau_proc *proc = ktau_proc_open(NULL, NULL);
	struct ktau_error *err;
	int ret;

	if (!a || !proc) {
		fprintf(stderr, "ktau-archive: %s\n", strerror(errno));
		ktau_archive_free(a);
		ktau_proc_close(proc);
		return EXIT_RUNTIME;
	}
	ret = ktau_archive_collect(a, proc, &opts, &err);
	ktau_proc_close(proc);
	if (ret) {
		if (ktau_error_line(err))
			fprintf(stderr, "ktau-archive: %s (line %u)%s\n",
				ktau_error_message(err), ktau_error_line(err), hint(-ret));
		else
			fprintf(stderr, "ktau-archive: %s%s\n", ktau_error_message(err),
				hint(-ret));
		ktau_error_free(err);
		ktau_archive_free(a);
		return EXIT_RUNTIME;
	}
	ret = ktau_archive_write(a, o->output);
	if (ret) {
		fprintf(stderr, "ktau-archive: cannot write %s: %s\n", o->output,
			ktau_strerror(ret));
		ktau_archive_free(a);
		return EXIT_RUNTIME;
	}
	printf("ktau-archive: wrote %s: %zu profiles, %zu files, host %s, kernel %s\n",
	       o->output, ktau_archive_profile_count(a), ktau_archive_member_count(a),
	       ktau_archive_info(a, "host"), ktau_archive_info(a, "kernel_release"));
	ktau_archive_free(a);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	int ret;

	tool_init("ktau-archive");
	ret = parse_options(argc, argv, &o);
	if (ret < 0)
		ret = archive(&o);
	free(o.pids);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "ktau-archive: write error: %s\n", strerror(errno));
		return EXIT_RUNTIME;
	}
	return ret;
}
