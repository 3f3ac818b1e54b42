// SPDX-License-Identifier: LGPL-2.1-or-later
/* The live threads of a process: /proc/PID/task/. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>

#include "proc/proc.h"

static int by_tid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* A directory entry named by a task id, or 0. */
static pid_t entry_tid(const char *name)
{
	long v = 0;

	if (*name < '1' || *name > '9')
		return 0;
	for (; *name; name++) {
		if (*name < '0' || *name > '9' || v > 0x7fffffff / 10)
			return 0;
		v = v * 10 + (*name - '0');
	}
	return v <= 0x7fffffff ? (pid_t)v : 0;
}

int ktau__list_tids(const char *root, pid_t pid, pid_t **tids, size_t *count)
{
	size_t cap = 0, n = 0;
	pid_t *list = NULL;
	struct dirent *e;
	char path[4200];
	DIR *dir;

	snprintf(path, sizeof(path), "%s/%d/task", root, (int)pid);
	dir = opendir(path);
	if (!dir)
		return -ktau__proc_errno(root, errno, pid, 0);
	while ((errno = 0, e = readdir(dir))) {
		pid_t tid = entry_tid(e->d_name);

		if (!tid)
			continue;
		if (ktau__grow((void **)&list, &cap, n, sizeof(*list))) {
			closedir(dir);
			free(list);
			return -ENOMEM;
		}
		list[n++] = tid;
	}
	closedir(dir);
	qsort(list, n, sizeof(*list), by_tid);
	*tids = list;
	*count = n;
	return 0;
}

/* Appends the one thread block of `one` to *all (created on first use). */
static int add_thread(struct ktau_profile **all, const struct ktau_profile *one,
		      pid_t tid, struct ktau_parse_error *err)
{
	if (ktau_profile_block_count(one) != 1 ||
	    ktau_block_kind(ktau_profile_block(one, 0)) != KTAU_BLOCK_THREAD)
		return ktau__fail(err, EPROTO, 0, "thread %d: not a thread profile",
				  (int)tid);
	if (!*all)
		*all = ktau_profile_new(KTAU_SCOPE_SYSTEM, ktau_profile_tsc_khz(one));
	if (!*all || !ktau__profile_clone_block(*all, ktau_profile_block(one, 0)))
		return ktau__fail(err, ENOMEM, 0, "out of memory");
	return 0;
}

struct ktau_profile *ktau__read_threads(const char *root, pid_t pid,
					struct ktau_parse_error *err)
{
	struct ktau_profile *all = NULL, *one;
	pid_t *tids = NULL;
	size_t n = 0, i;
	int ret;

	ktau__clear_error(err);
	if (pid <= 0) {
		errno = -ktau__fail(err, EINVAL, 0, "invalid process id %d", (int)pid);
		return NULL;
	}
	ret = ktau__list_tids(root, pid, &tids, &n);
	if (ret) {
		errno = -ktau__fail(err, -ret, 0, "threads of process %d: %s", (int)pid,
				    ktau_strerror(ret));
		return NULL;
	}
	for (i = 0, ret = 0; i < n && !ret; i++) {
		one = ktau__proc_profile(root, pid, tids[i], err);
		if (!one) {
			ret = errno == ESRCH ? 0 : -errno;	/* ESRCH: exited since */
			continue;
		}
		ret = add_thread(&all, one, tids[i], err);
		ktau_profile_free(one);
	}
	free(tids);
	if (!ret && !all)	/* every thread exited: so did the process */
		ret = ktau__fail(err, ESRCH, 0, "process %d has no live thread", (int)pid);
	if (ret) {
		ktau_profile_free(all);
		errno = -ret;
		return NULL;
	}
	ktau__clear_error(err);
	return all;
}
