// SPDX-License-Identifier: LGPL-2.1-or-later
/* Where the ktau files live, and what their errors mean. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "internal.h"

const char *ktau__procfs_root(void)
{
	/* secure_getenv: a set-uid tool must not be pointed at fake files */
	const char *root = secure_getenv("KTAU_PROCFS");

	return root && *root ? root : "/proc";
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

int ktau__proc_errno(int error, pid_t pid, pid_t tid)
{
	const char *root = ktau__procfs_root();

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

int ktau__proc_path(char *path, size_t size, const char *rel)
{
	int n = snprintf(path, size, "%s/%s", ktau__procfs_root(), rel);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* Reads <root>/<rel> and maps the errors; NULL with errno set. */
static char *read_proc(pid_t pid, pid_t tid, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static char *read_proc(pid_t pid, pid_t tid, size_t *len, const char *fmt, ...)
{
	char rel[256], path[4096];
	va_list ap;
	char *buf;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(rel))
		goto too_long;
	if (ktau__proc_path(path, sizeof(path), rel))
		goto too_long;
	buf = ktau__read_path_all(path, len);
	if (!buf)
		errno = ktau__proc_errno(errno, pid, tid);
	return buf;
too_long:
	errno = ENAMETOOLONG;
	return NULL;
}

char *ktau_raw_read_file(const char *path, size_t *len)
{
	if (!path) {
		errno = EINVAL;
		return NULL;
	}
	return ktau__read_path_all(path, len);
}

char *ktau_raw_read_pid(pid_t pid, size_t *len)
{
	if (pid <= 0) {
		errno = EINVAL;
		return NULL;
	}
	return read_proc(pid, 0, len, "%d/ktau", (int)pid);
}

char *ktau_raw_read_tid(pid_t pid, pid_t tid, size_t *len)
{
	if (pid <= 0 || tid <= 0) {
		errno = EINVAL;
		return NULL;
	}
	return read_proc(pid, tid, len, "%d/task/%d/ktau", (int)pid, (int)tid);
}

char *ktau_raw_read_system(size_t *len)
{
	return read_proc(0, 0, len, "ktau/profile");
}

char *ktau__raw_read_functions(size_t *len)
{
	return read_proc(0, 0, len, "ktau/functions");
}

char *ktau__raw_read_control(size_t *len)
{
	return read_proc(0, 0, len, "ktau/control");
}
