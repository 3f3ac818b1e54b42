/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every ktau command-line tool shares: its exit codes, how it
 * reports a usage error, how it reads a number argument.
 */
#ifndef KTAU_TOOL_H
#define KTAU_TOOL_H

enum exit_code {
	EXIT_OK = 0,
	EXIT_RUNTIME = 1,
	EXIT_USAGE = 2,
};

/*
 * "PROG: <fmt with arg>" and a pointer to --help on stderr.  PROG is the
 * tool's name, set once by tool_init().
 */
void tool_init(const char *prog);
void tool_usage_error(const char *fmt, const char *arg);

/*
 * The getopt results every tool handles alike: 'h' prints usage_text,
 * 'V' the version, ':' and '?' are usage errors. Returns the exit code to
 * stop with.
 */
int tool_common_option(int c, char *const argv[], const char *usage_text);

/* A decimal number in [min, INT_MAX], digits only; -EINVAL otherwise. */
int tool_parse_uint(const char *s, long min, long *out);

#endif /* KTAU_TOOL_H */
