// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <ktau.h>

#include <getopt.h>

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
