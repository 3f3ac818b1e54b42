// SPDX-License-Identifier: LGPL-2.1-or-later
/* Where the ktau files live, and what their errors mean. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "proc/proc.h"

const char *ktau__procfs_root(void)
{
	/* secure_getenv: a set-uid tool must not be pointed at fake files */
	const char *root = secure_getenv("KTAU_PROCFS");

	return root && *root ? root : "/proc";
}

/* A handle on root (NULL: the default); NULL with errno set, err filled. */
static struct ktau_proc *proc_new(const char *root, struct ktau_parse_error *err)
{
	struct ktau_proc *proc;
	size_t len;

	if (!root)
		root = ktau__procfs_root();
	len = strlen(root);
	if (!len) {
		errno = -ktau__fail(err, EINVAL, 0, "empty /proc root");
		return NULL;
	}
	/* "dir/" and "dir" name the same tree; messages read better without */
	while (len > 1 && root[len - 1] == '/')
		len--;
	proc = calloc(1, sizeof(*proc));
	if (proc)
		proc->root = strndup(root, len);
	if (!proc || !proc->root) {
		free(proc);
		errno = ENOMEM;
		return NULL;
	}
	return proc;
}

struct ktau_proc *ktau_proc_open(const struct ktau_proc_opts *opts, struct ktau_error **err)
{
	struct ktau_parse_error pe;
	struct ktau_proc *proc = NULL;

	ktau__clear_error(&pe);
	errno = -KTAU__OPTS_CHECK(opts, ktau_proc_opts, root, &pe);
	if (!errno)
		proc = proc_new(KTAU__OPTS_GET(opts, root, NULL), &pe);
	return ktau__ret_ptr(proc, &pe, err);
}

void ktau_proc_close(struct ktau_proc *proc)
{
	/* kept: callers close the handle and then report errno */
	int saved = errno;

	if (proc) {
		free(proc->root);
		free(proc);
	}
	errno = saved;
}

const char *ktau_proc_root(const struct ktau_proc *proc)
{
	if (!proc) {
		errno = EINVAL;
		return NULL;
	}
	return proc->root;
}

static int exists(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int exists(const char *fmt, ...)
{
	char path[4096];
	struct stat st;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(path))
		return 0;
	return stat(path, &st) == 0;
}

int ktau__proc_errno(const char *root, int error, pid_t pid, pid_t tid)
{
	if (error == EPERM)
		return EACCES;
	if (error != ENOENT)
		return error;
	/* ENOENT is ambiguous: tell a kernel without ktau from a gone task */
	if (!exists("%s/ktau", root))
		return ENODEV;
	if (pid > 0 && !exists("%s/%d", root, (int)pid))
		return ESRCH;
	if (pid > 0 && tid > 0 && !exists("%s/%d/task/%d", root, (int)pid, (int)tid))
		return ESRCH;
	return ENOENT;
}

int ktau__proc_path(const char *root, char *path, size_t size, const char *rel)
{
	int n = snprintf(path, size, "%s/%s", root, rel);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* Reads <root>/<rel> and maps the errors; NULL with errno set, err filled. */
static char *read_proc(const char *root, pid_t pid, pid_t tid, size_t *len,
		       const char *rel, struct ktau_parse_error *err)
{
	char path[4096];
	char *buf;

	if (ktau__proc_path(root, path, sizeof(path), rel)) {
		errno = -ktau__fail(err, ENAMETOOLONG, 0, "%s/%s: %s", root, rel,
				    ktau_strerror(ENAMETOOLONG));
		return NULL;
	}
	buf = ktau__read_path_all(path, len);
	if (!buf) {
		int error = ktau__proc_errno(root, errno, pid, tid);

		ktau__fail(err, error, 0, "%s: %s", path, ktau_strerror(error));
		errno = error;
	}
	return buf;
}

char *ktau__proc_read_file(const char *root, const char *rel, size_t *len,
			   struct ktau_parse_error *err)
{
	return read_proc(root, 0, 0, len, rel, err);
}

char *ktau__proc_read_task(const char *root, pid_t pid, pid_t tid, size_t *len,
			   struct ktau_parse_error *err)
{
	char rel[64];

	if (pid < 0 || tid < 0 || (tid && !pid)) {
		errno = -ktau__fail(err, EINVAL, 0, "invalid process/thread id %d/%d",
				    (int)pid, (int)tid);
		return NULL;
	}
	if (!pid)
		snprintf(rel, sizeof(rel), "ktau/profile");
	else if (!tid)
		snprintf(rel, sizeof(rel), "%d/ktau", (int)pid);
	else
		snprintf(rel, sizeof(rel), "%d/task/%d/ktau", (int)pid, (int)tid);
	return read_proc(root, pid, tid, len, rel, err);
}

void *ktau__proc_parse_file(struct ktau_proc *proc, const char *rel,
			    const struct ktau_parser_ops *ops, struct ktau_parse_error *err)
{
	size_t len = 0;
	char *text;

	ktau__clear_error(err);
	if (!proc) {
		errno = -ktau__fail(err, EINVAL, 0, "NULL struct ktau_proc");
		return NULL;
	}
	text = ktau__proc_read_file(proc->root, rel, &len, err);
	return ktau__parse_read_text(ops, text, len, err);
}

struct ktau_profile *ktau__proc_profile(const char *root, pid_t pid, pid_t tid,
					struct ktau_parse_error *err)
{
	size_t len = 0;
	char *text = ktau__proc_read_task(root, pid, tid, &len, err);

	return ktau__parse_read_text(&ktau__profile_parser, text, len, err);
}

/* The checked read options: 0 or -EINVAL with err filled. */
static int read_opts(struct ktau_proc *proc, const struct ktau_read_opts *opts,
		     pid_t *pid, pid_t *tid, unsigned int *flags,
		     struct ktau_parse_error *err)
{
	int ret;

	if (!proc)
		return ktau__fail(err, EINVAL, 0, "NULL struct ktau_proc");
	ret = KTAU__OPTS_CHECK(opts, ktau_read_opts, flags, err);
	if (ret)
		return ret;
	*pid = KTAU__OPTS_GET(opts, pid, 0);
	*tid = KTAU__OPTS_GET(opts, tid, 0);
	*flags = KTAU__OPTS_GET(opts, flags, 0);
	/* an unknown flag is a newer caller's request: refuse, not ignore */
	if (*flags & ~KTAU_READ_THREADS)
		return ktau__fail(err, EINVAL, 0, "unknown read flags %#x",
				  *flags & ~KTAU_READ_THREADS);
	if ((*flags & KTAU_READ_THREADS) && (*pid <= 0 || *tid))
		return ktau__fail(err, EINVAL, 0, "KTAU_READ_THREADS needs a pid and no tid");
	return 0;
}

char *ktau_proc_read_raw(struct ktau_proc *proc, const struct ktau_read_opts *opts,
			 size_t *len, struct ktau_error **err)
{
	struct ktau_parse_error pe;
	unsigned int flags = 0;
	pid_t pid = 0, tid = 0;
	char *text = NULL;
	int ret;

	ktau__clear_error(&pe);
	ret = read_opts(proc, opts, &pid, &tid, &flags, &pe);
	if (!ret && flags)
		ret = ktau__fail(&pe, EINVAL, 0, "KTAU_READ_THREADS: no raw text");
	if (ret)
		errno = -ret;
	else
		text = ktau__proc_read_task(proc->root, pid, tid, len, &pe);
	return ktau__ret_ptr(text, &pe, err);
}

struct ktau_profile *ktau_proc_read_profile(struct ktau_proc *proc,
					    const struct ktau_read_opts *opts,
					    struct ktau_error **err)
{
	struct ktau_parse_error pe;
	struct ktau_profile *p = NULL;
	unsigned int flags = 0;
	pid_t pid = 0, tid = 0;
	int ret;

	ktau__clear_error(&pe);
	ret = read_opts(proc, opts, &pid, &tid, &flags, &pe);
	if (ret) {
		errno = -ret;
	} else if (flags & KTAU_READ_THREADS) {
		p = ktau__read_threads(proc->root, pid, &pe);
	} else {
		p = ktau__proc_profile(proc->root, pid, tid, &pe);
	}
	return ktau__ret_ptr(p, &pe, err);
}

int ktau__load_source(const struct ktau_load_opts *opts, const char **path, FILE **stream,
		      struct ktau_parse_error *err)
{
	int ret = KTAU__OPTS_CHECK(opts, ktau_load_opts, stream, err);

	if (!ret && !opts)
		ret = ktau__fail(err, EINVAL, 0, "NULL struct ktau_load_opts");
	if (ret)
		return ret;
	*path = KTAU__OPTS_GET(opts, path, NULL);
	*stream = KTAU__OPTS_GET(opts, stream, NULL);
	if (!*path == !*stream)
		return ktau__fail(err, EINVAL, 0, "struct ktau_load_opts: "
				  "give exactly one of path and stream");
	return 0;
}

char *ktau__load_text(const struct ktau_load_opts *opts, size_t *len,
		      struct ktau_parse_error *err)
{
	const char *path;
	FILE *stream;
	char *text;
	int ret;

	ret = ktau__load_source(opts, &path, &stream, err);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	text = path ? ktau__read_path_all(path, len) : ktau__read_stream_all(stream, len);
	if (!text) {
		int error = errno;

		ktau__fail(err, error, 0, "%s: %s", path ? path : "read",
			   ktau_strerror(error));
		errno = error;
	}
	return text;
}

void *ktau__load_parse(const struct ktau_parser_ops *ops,
		       const struct ktau_load_opts *opts, struct ktau_parse_error *err)
{
	size_t len = 0;
	char *text = ktau__load_text(opts, &len, err);

	return ktau__parse_read_text(ops, text, len, err);
}

char *ktau_raw_load(const struct ktau_load_opts *opts, size_t *len,
		    struct ktau_error **err)
{
	struct ktau_parse_error pe;

	ktau__clear_error(&pe);
	return ktau__ret_ptr(ktau__load_text(opts, len, &pe), &pe, err);
}
