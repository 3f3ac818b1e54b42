/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every ktau command-line tool shares: its exit codes, how it
 * reports a usage error, how it reads a number argument.
 */
#ifndef KTAU_TOOL_H
#define KTAU_TOOL_H

#include <stddef.h>
#include <sys/types.h>

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
 * What getopt_long's return c means when it is not a tool's own option:
 * 'h' prints usage (on stdout) and gives EXIT_OK, 'V' prints the version
 * and gives EXIT_OK, ':' (missing argument; optstring must start with ':'
 * after any '+') and anything else report a usage error and give
 * usage_exit.
 */
int tool_standard_option(int c, const char *usage, char *const argv[], int usage_exit);

/* A decimal number in [min, INT_MAX], digits only; -EINVAL otherwise. */
int tool_parse_uint(const char *s, long min, long *out);

struct option;
/* Handles one getopt_long() result: -1 to go on, or the exit code. */
typedef int (*tool_option_fn)(int c, void *opts, char **argv);
/*
 * getopt_long() over argv with our own messages (opterr off), each option
 * through fn; then at most one operand, into *operand (left alone when
 * there is none). Returns -1 to go on, or the exit code.
 */
int tool_parse_args(int argc, char **argv, const char *shortopts,
		    const struct option *longopts, tool_option_fn fn, void *opts,
		    const char **operand);

struct ktau_model;
/*
 * Writes m in format (enum ktau_model_format) to output: a directory for
 * tau (default .), else a file, or standard output when output is NULL or
 * "-". Reports a failure on stderr; returns the exit code.
 */
int tool_write_model(const struct ktau_model *m, int format, const char *output);

struct ktau_error;
struct ktau_profile;
/*
 * What the tools read: the saved file `input` when it is not NULL, else
 * from libktau's default /proc tree (KTAU_PROCFS or /proc) the profile
 * struct ktau_read_opts names with pid, tid and flags (pid 0: the system
 * profile). NULL with errno set and *err as libktau sets it.
 */
struct ktau_profile *tool_read_profile(const char *input, pid_t pid, pid_t tid,
				       unsigned int flags, struct ktau_error **err);
/* The same, unparsed (ktau_proc_read_raw(), ktau_raw_load()). */
char *tool_read_raw(const char *input, pid_t pid, pid_t tid, size_t *len,
		    struct ktau_error **err);

#endif /* KTAU_TOOL_H */
