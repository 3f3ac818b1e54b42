// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The node's view for ktau-run --node-profile. One process per node saves
 * it: the launcher says which (the node-local rank 0); without such a
 * variable the first ktau-run of the job on that host to create
 * DIR/node.<host>.lock with O_EXCL does, which needs DIR to be local to
 * the node or on a file system where O_EXCL holds (NFS v3 and later).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <ktau.h>

#include "job-nodes.h"
#include "run-node.h"

/* The host name as a file name: '/' cannot be in one. */
static void host_name(char *buf, size_t size)
{
	char *p;

	if (gethostname(buf, size) || !*buf)
		snprintf(buf, size, "localhost");
	buf[size - 1] = '\0';
	for (p = buf; *p; p++)
		if (*p == '/')
			*p = '_';
}

static int save_archive(const char *path)
{
	struct ktau_archive *a = ktau_archive_new();
	struct ktau_proc *proc = a ? ktau_proc_open(NULL, NULL) : NULL;
	struct ktau_error *err = NULL;
	int ret = -1;

	if (!a || !proc)
		fprintf(stderr, "ktau-run: cannot save the node profile: %s\n", strerror(errno));
	else if ((ret = ktau_archive_collect(a, proc, NULL, &err)))
		/* no pids: /proc/ktau/profile, every task this user may read */
		fprintf(stderr, "ktau-run: cannot collect the node profile: %s\n",
			ktau_error_message(err));
	else if ((ret = ktau_archive_write(a, path)))
		fprintf(stderr, "ktau-run: cannot write %s: %s\n", path, ktau_strerror(ret));
	ktau_error_free(err);
	ktau_proc_close(proc);
	ktau_archive_free(a);
	return ret ? -1 : 0;
}

/* Whether this process is the node's one; -1 after a message. */
static int is_leader(struct node_profile *np, const char *dir, const char *host)
{
	char lock[PATH_MAX];
	unsigned int local;
	int fd;

	if (!ktau_launcher_local_rank(&local, &np->why))
		return local == 0;
	np->why = "lock file";
	snprintf(lock, sizeof(lock), "%s/" JOB_NODE_PREFIX "%s.lock", dir, host);
	fd = open(lock, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd >= 0) {
		dprintf(fd, "%d\n", (int)getpid());
		close(fd);
		return 1;
	}
	if (errno == EEXIST)
		return 0;
	fprintf(stderr, "ktau-run: cannot create %s: %s\n", lock, strerror(errno));
	return -1;
}

int node_profile_start(struct node_profile *np, const char *dir)
{
	char host[256], start[PATH_MAX];
	int leader;

	memset(np, 0, sizeof(*np));
	host_name(host, sizeof(host));
	leader = is_leader(np, dir, host);
	if (leader <= 0)
		return leader;
	np->leader = true;
	snprintf(start, sizeof(start), "%s/" JOB_NODE_PREFIX "%s" JOB_NODE_START, dir, host);
	snprintf(np->end_path, sizeof(np->end_path), "%s/" JOB_NODE_PREFIX "%s" JOB_NODE_END,
		 dir, host);
	return save_archive(start);
}

int node_profile_end(const struct node_profile *np)
{
	return np->leader ? save_archive(np->end_path) : 0;
}
