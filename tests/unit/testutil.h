/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers the tests share: parsing literals, temporary trees, running tools. */
#ifndef KTAU_TESTUTIL_H
#define KTAU_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

#include <ktau.h>

/*
 * Where a test has libktau put an error: test_err() frees the error the
 * previous call left and returns the slot for the next one; last_err()
 * and ERR_CODE/ERR_LINE/ERR_MSG read it (code 0, line 0, "" after a
 * success). The slot is a global, so the last error is still reachable
 * at exit and no test leaks it.
 */
struct ktau_error **test_err(void);
const struct ktau_error *last_err(void);
#define ERR_CODE ktau_error_code(last_err())
#define ERR_LINE ktau_error_line(last_err())
#define ERR_MSG ktau_error_message(last_err())

/* ktau_proc_open() of root (NULL: the default, $KTAU_PROCFS or /proc). */
struct ktau_proc *open_root(const char *root);
/* ktau_proc_read_profile() / ktau_proc_read_raw() of pid and tid. */
struct ktau_profile *read_task(struct ktau_proc *proc, pid_t pid, pid_t tid,
			       struct ktau_error **err);
char *read_task_raw(struct ktau_proc *proc, pid_t pid, pid_t tid, size_t *len,
		    struct ktau_error **err);
/* The ktau_*_load() of a file. */
struct ktau_profile *load_profile(const char *path, struct ktau_error **err);
struct ktau_functions *load_functions(const char *path, struct ktau_error **err);
struct ktau_archive *load_archive(const char *path, struct ktau_error **err);
struct ktau_stacks *load_stacks(const char *path, enum ktau_stacks_format format,
				struct ktau_error **err);

/* ktau_profile_parse() of a C string. */
struct ktau_profile *parse_str(const char *text, struct ktau_error **err);
struct ktau_functions *parse_functions_str(const char *text,
					   struct ktau_error **err);

/* ktau_model_write_stream() into a malloc()ed string (its length in *len
 * when len is not NULL); NULL on failure. */
char *model_text(const struct ktau_model *m, enum ktau_model_format format, size_t *len);

/* Stacks text parsed and added as thread 0 of a new sample model; NULL
 * (err filled by the parser) on failure. */
struct ktau_model *stacks_model(const char *text, enum ktau_stacks_format format,
				struct ktau_error **err);
/* Thread 0's routine / callpath ("a => b") of that name, or NULL. */
const struct ktau_model_routine *stacks_routine(const struct ktau_model *m, const char *name);
const struct ktau_model_callpath *stacks_callpath(const struct ktau_model *m, const char *name);

/* A whole file as a NUL-terminated malloc()ed string, or NULL. */
char *slurp(const char *path, size_t *len);
/* slurp() of dir/rel (no length), or NULL. */
char *read_rel(const char *dir, const char *rel);

/* The sum of the routines' exclusive times over the model's threads. */
uint64_t model_excl_total(const struct ktau_model *m);

/* mkdtemp() under $TMPDIR; the path is malloc()ed. NULL on failure. */
char *make_tmpdir(void);
/* Creates dir/rel (and its parent directories) holding text; 0 or -errno. */
int write_tree_file(const char *dir, const char *rel, const char *text);
/* Creates dir/rel as a directory (with parents); 0 or -errno. */
int make_tree_dir(const char *dir, const char *rel);
/* rm -rf, for cleaning up a make_tmpdir(). */
void remove_tree(const char *dir);

struct run_result {
	int status;	/* exit status, or 128 + signal */
	char *out;	/* stdout, NUL-terminated */
	char *err;	/* stderr, NUL-terminated */
};

/* Runs argv (argv[0] a path) with extra "NAME=value" environment entries
 * (NULL-terminated list, may be NULL); 0 or -errno. */
int run_program(char *const argv[], char *const env_add[], struct run_result *r);
void run_result_free(struct run_result *r);
/* Runs the program named by environment variable `var` (the Makefile
 * points it at the build) with the arguments up to a NULL. */
int run_tool(const char *var, char *const env_add[], struct run_result *r, ...);

/* Runs fn in a child process as user nobody (root drops to uid 65534);
 * fn's return value (0..254) as the child's exit status, or -1 when the
 * child could not run or drop privileges. */
int run_as_nobody(int (*fn)(void));

/* An executable /usr/bin/<name>: the external readers are optional. */
int have_program(const char *name);
/* `protoc --decode perftools.profiles.Profile` of a pprof file, with the
 * fixtures' profile.proto; 0 or -errno (r filled as by run_program). */
int protoc_decode(const char *path, struct run_result *r);
/* From protoc's text: the sum over samples of value[index], and the
 * number of samples; 0 when a sample lacks that value. */
uint64_t protoc_value_total(const char *text, size_t index, size_t *samples);
/* `callgrind_annotate path`; 0 or -errno. */
int callgrind_annotate(const char *path, struct run_result *r);
/* The number on callgrind_annotate's PROGRAM TOTALS line (digits only,
 * thousands separators skipped); 0 if there is none. */
uint64_t callgrind_program_total(const char *out);

/* The first line of text that starts with prefix once runs of blanks are
 * squeezed to one space (the squeezed line is copied to buf); NULL if none. */
const char *line_starting(const char *text, const char *prefix, char *buf, size_t size);

/* The names in dir (dot files left out), sorted, joined with blanks;
 * malloc'ed. */
char *listing(const char *dir);

#endif
