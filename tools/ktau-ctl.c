// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ktau-ctl — start, stop and clear KTAU recording, switch instrumentation
 * groups, show the state.  The control file is libktau's to read and
 * write; this file turns commands and errors into words.
 */
#define _GNU_SOURCE	/* getopt_long */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ktau.h>

#include "ctl-counters.h"
#include "tool.h"
#include "../compat/ktau-tau/src/names.h"

static const char usage_text[] =
"Usage: ktau-ctl [status]\n"
"       ktau-ctl start | stop | clear | startclr\n"
"       ktau-ctl enable GROUP... | disable GROUP...\n"
"       ktau-ctl --system-map [FILE]\n"
"       ktau-ctl counters [--calls N] NAME...\n"
"\n"
"Control KTAU kernel profiling through /proc/ktau/control (root only).\n"
"\n"
"Commands:\n"
"  status            print whether recording runs and which instrumentation\n"
"                    groups are enabled (the default)\n"
"  start             start recording in the enabled groups\n"
"  stop              stop recording; the profiles recorded so far are kept\n"
"  clear             empty every task's profile and every exited-thread and\n"
"                    children total\n"
"  startclr          clear, then start\n"
"  enable GROUP...   enable instrumentation groups: syscall, softirq, irq,\n"
"                    sched, exception, kernel, event (the list the kernel has\n"
"                    is in 'ktau-ctl status'), or all\n"
"  disable GROUP...  disable groups; a disabled group's hooks cost nothing\n"
"  counters [--calls N] NAME...\n"
"                    (any user) check the kernel's shared counter area: register\n"
"                    up to 16 counters for this thread (NAME a routine of\n"
"                    /proc/ktau/functions, group:GROUP or all), make N getpid()\n"
"                    calls (1000), and print a line a counter: 'counter NAME\n"
"                    id=ID calls= incl= excl=' (the area) 'proc_calls= proc_incl=\n"
"                    proc_excl=' (/proc/self/task/TID/ktau, read next)\n"
"                    'after_calls= ...' (the area after that read) 'loop_calls='\n"
"                    (the loop's calls) 'check=exact|bounded|no'\n"
"\n"
"A group records only while recording is started and the group is enabled.\n"
"Commands print nothing when they succeed; a refused command changes nothing.\n"
"\n"
"Options:\n"
"  --system-map [FILE]\n"
"                 write a System.map for TAU's -ktausym= (any user): a line\n"
"                 'ADDRESS T NAME' per kernel routine ktau has, ending with\n"
"                 '_etext'; to FILE, else standard output (docs/tau.md)\n"
"  -h, --help     print this help and exit\n"
"  -V, --version  print the version and exit\n"
"\n"
"The environment variable KTAU_PROCFS names another /proc root.\n"
"\n"
"Exit status:\n"
"  0  success\n"
"  1  runtime error: permission denied (not root), no ktau support in this\n"
"     kernel (or, for counters, no shared counter area), the kernel refused\n"
"     the command, unreadable control file\n"
"  2  usage error: unknown command or option, missing or unknown group or\n"
"     counter name\n"
"  3  counters: a value of the area disagrees with /proc (check=no), or the\n"
"     kernel could not write the area (faults above 0)\n";

static const char *const simple_commands[] = { "start", "stop", "clear", "startclr" };

static void report_error(const char *what, int error, const struct ktau_error *perr)
{
	switch (error) {
	case EACCES:
		fprintf(stderr, "ktau-ctl: permission denied: /proc/ktau/control is "
			"root-only (run as root)\n");
		return;
	case ENODEV:
		fprintf(stderr, "ktau-ctl: this kernel has no ktau support (no /proc/ktau): "
			"boot a kernel built with CONFIG_KTAU\n");
		return;
	case EPROTO:
	case EPROTONOSUPPORT:
		if (ktau_error_line(perr)) {
			fprintf(stderr, "ktau-ctl: /proc/ktau/control:%u: %s\n",
				ktau_error_line(perr), ktau_error_message(perr));
			return;
		}
		if (perr) {
			fprintf(stderr, "ktau-ctl: %s: %s\n", what, ktau_error_message(perr));
			return;
		}
		break;
	}
	/* what already names the file, which the library's message repeats */
	fprintf(stderr, "ktau-ctl: %s: %s\n", what, ktau_strerror(error));
}

/* libktau's default /proc tree (KTAU_PROCFS or /proc); NULL after saying why. */
static struct ktau_proc *open_proc(void)
{
	struct ktau_proc *proc = ktau_proc_open(NULL, NULL);

	if (!proc)
		fprintf(stderr, "ktau-ctl: %s\n", ktau_strerror(errno));
	return proc;
}

static struct ktau_control_status *read_status(void)
{
	struct ktau_proc *proc = open_proc();
	struct ktau_control_status *s;
	struct ktau_error *perr;

	if (!proc)
		return NULL;
	s = ktau_proc_read_control(proc, &perr);
	if (!s)
		report_error("cannot read /proc/ktau/control", errno, perr);
	ktau_error_free(perr);
	ktau_proc_close(proc);
	return s;
}

/* The group names, space-separated, for messages and the status. */
static void print_groups(FILE *out, const struct ktau_control_status *s, int enabled)
{
	size_t i, shown = 0;

	for (i = 0; i < ktau_control_status_group_count(s); i++) {
		const char *g = ktau_control_status_group(s, i);

		if (enabled >= 0 && ktau_control_status_group_enabled(s, g) != enabled)
			continue;
		fprintf(out, "%s%s", shown++ ? " " : "", g);
	}
	if (!shown)
		fputs("none", out);
}

/* The memory of profiles: all users' limit, every user's, the top users. */
static void show_memory(const struct ktau_control_status *s)
{
	uint64_t bytes, limit, user_limit, b, l;
	uint32_t uid;
	size_t i;

	if (ktau_control_status_memory(s, &bytes, &limit, &user_limit))
		return;
	printf("memory:          %llu bytes; grown tables at most %llu bytes in all",
	       (unsigned long long)bytes, (unsigned long long)limit);
	if (user_limit)
		printf(", %llu per user", (unsigned long long)user_limit);
	putchar('\n');
	for (i = 0; !ktau_control_status_user(s, i, &uid, &b, &l); i++)
		printf("  uid %-10lu   %llu bytes of at most %llu\n", (unsigned long)uid,
		       (unsigned long long)b, (unsigned long long)l);
}

static int show_status(void)
{
	struct ktau_control_status *s = read_status();
	uint64_t a, b;

	if (!s)
		return EXIT_RUNTIME;
	printf("recording:       %s\n", ktau_control_status_running(s) ? "running" : "stopped");
	printf("enabled groups:  ");
	print_groups(stdout, s, 1);
	printf("\ndisabled groups: ");
	print_groups(stdout, s, 0);
	putchar('\n');
	if (!ktau_control_status_fids(s, &a, &b))
		printf("function ids:    %llu registered, at most %llu\n",
		       (unsigned long long)a, (unsigned long long)b);
	if (!ktau_control_status_lost_tasks(s, &a))
		printf("lost tasks:      %llu\n", (unsigned long long)a);
	show_memory(s);
	ktau_control_status_free(s);
	return EXIT_OK;
}

/* Every name must be a group this kernel has, or "all". */
static int check_groups(const struct ktau_control_status *s, char **names, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (!strcmp(names[i], "all") ||
		    ktau_control_status_group_enabled(s, names[i]) >= 0)
			continue;
		fprintf(stderr, "ktau-ctl: unknown group '%s'; this kernel has: ", names[i]);
		print_groups(stderr, s, -1);
		fprintf(stderr, " (or all)\n");
		return -1;
	}
	return 0;
}

static int send_command(const char *command)
{
	struct ktau_proc *proc = open_proc();
	char what[300];
	int ret;

	if (!proc)
		return EXIT_RUNTIME;
	ret = ktau_proc_write_control(proc, command, NULL);
	ktau_proc_close(proc);
	if (!ret)
		return EXIT_OK;
	if (ret == -EINVAL) {
		fprintf(stderr, "ktau-ctl: the kernel refused '%s' (nothing changed)\n", command);
		return EXIT_RUNTIME;
	}
	snprintf(what, sizeof(what), "cannot write '%s' to /proc/ktau/control", command);
	report_error(what, -ret, NULL);
	return EXIT_RUNTIME;
}

/* enable/disable GROUP...: checked against the kernel's list first, so that
 * a typo gets the list instead of a bare EINVAL. */
static int set_groups(const char *verb, char **names, int n)
{
	struct ktau_control_status *s;
	char command[KTAU_CONTROL_COMMAND_MAX + 1];
	size_t len;
	int i;

	if (!n) {
		tool_usage_error("'%s' needs at least one group (see 'ktau-ctl status', "
				 "or all)", verb);
		return EXIT_USAGE;
	}
	s = read_status();
	if (!s)
		return EXIT_RUNTIME;
	i = check_groups(s, names, n);
	ktau_control_status_free(s);
	if (i)
		return EXIT_USAGE;
	len = (size_t)snprintf(command, sizeof(command), "%s", verb);
	for (i = 0; i < n && len < sizeof(command); i++)
		len += (size_t)snprintf(command + len, sizeof(command) - len, " %s", names[i]);
	if (len >= sizeof(command)) {
		fprintf(stderr, "ktau-ctl: the command is longer than %d bytes: give fewer "
			"groups (or all)\n", KTAU_CONTROL_COMMAND_MAX);
		return EXIT_USAGE;
	}
	return send_command(command);
}

static int run_command(char **args, int n)
{
	size_t i;

	if (!n || !strcmp(args[0], "status")) {
		if (n > 1) {
			tool_usage_error("unexpected argument '%s'", args[1]);
			return EXIT_USAGE;
		}
		return show_status();
	}
	if (!strcmp(args[0], "enable") || !strcmp(args[0], "disable"))
		return set_groups(args[0], args + 1, n - 1);
	if (!strcmp(args[0], "counters"))
		return ctl_counters(args + 1, n - 1);
	for (i = 0; i < sizeof(simple_commands) / sizeof(simple_commands[0]); i++) {
		if (strcmp(args[0], simple_commands[i]))
			continue;
		if (n > 1) {
			tool_usage_error("unexpected argument '%s'", args[1]);
			return EXIT_USAGE;
		}
		return send_command(args[0]);
	}
	tool_usage_error("unknown command '%s' (status, start, stop, clear, startclr, "
			 "enable, disable, counters)", args[0]);
	return EXIT_USAGE;
}

/* The System.map of TAU's names for the routines the kernel has now
 * (names.h): to path (replaced whole), or standard output. */
static int write_system_map(char **args, int n)
{
	struct ktau_proc *proc;
	struct ktau_functions *map;
	struct ktau_error *perr;
	const char *path = n ? args[0] : NULL;
	char tmp[4096];
	FILE *out = stdout;
	int ret;

	if (n > 1) {
		tool_usage_error("unexpected argument '%s'", args[1]);
		return EXIT_USAGE;
	}
	proc = open_proc();
	if (!proc)
		return EXIT_RUNTIME;
	map = ktau_proc_read_functions(proc, &perr);
	ktau_proc_close(proc);
	if (!map) {
		report_error("cannot read /proc/ktau/functions", errno, perr);
		ktau_error_free(perr);
		return EXIT_RUNTIME;
	}
	if (path) {
		if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp)) {
			fprintf(stderr, "ktau-ctl: %s: %s\n", path, strerror(ENAMETOOLONG));
			ktau_functions_free(map);
			return EXIT_RUNTIME;
		}
		out = fopen(tmp, "w");
		if (!out) {
			fprintf(stderr, "ktau-ctl: cannot write %s: %s\n", tmp, strerror(errno));
			ktau_functions_free(map);
			return EXIT_RUNTIME;
		}
	}
	ret = ktau_tau_write_system_map(out, map);
	ktau_functions_free(map);
	if (path) {
		if (fclose(out) && !ret)
			ret = -EIO;
		if (!ret && rename(tmp, path))
			ret = -errno;
		if (ret)
			remove(tmp);
	}
	if (ret) {
		fprintf(stderr, "ktau-ctl: cannot write the System.map%s%s: %s\n",
			path ? " " : "", path ? path : "", strerror(-ret));
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "system-map", no_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	tool_init("ktau-ctl");
	opterr = 0;
	/* '+': options end at the command, so no group name is taken for one */
	c = getopt_long(argc, argv, "+:hV", longopts, NULL);
	if (c == 'm')
		ret = write_system_map(argv + optind, argc - optind);
	else if (c != -1)
		return tool_standard_option(c, usage_text, argv, EXIT_USAGE);
	else
		ret = run_command(argv + optind, argc - optind);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "ktau-ctl: write error: %s\n", strerror(errno));
		return EXIT_RUNTIME;
	}
	return ret;
}
