// SPDX-License-Identifier: GPL-2.0
/*
 * inclexcl — in every profile read, for every func and edge line,
 * excl_cycles <= incl_cycles; and a function's edge lines sum to at most its
 * func line (calls and inclusive cycles).  Profiles: our own (process and
 * thread), the system-wide one, pid 1 and a few other processes.
 *
 * Before reading, the test does work that nests: page faults inside read(),
 * sleeps (schedule inside nanosleep), writes to a pipe.
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Returns 0 if consistent, else fills why. */
static int consistent(struct ktr_profile *p, char *why, size_t len)
{
	for (size_t i = 0; i < p->nblocks; i++) {
		struct ktr_block *b = &p->blocks[i];

		for (size_t k = 0; k < b->nfuncs; k++) {
			struct ktr_rec *r = &b->funcs[k];

			if (r->excl > r->incl) {
				snprintf(why, len, "line %d: func %s (pid %ld tid %ld %s) excl %" PRIu64
					 " > incl %" PRIu64, r->lineno, r->name, b->pid, b->tid,
					 b->kind, r->excl, r->incl);
				return -1;
			}
		}
		for (size_t k = 0; k < b->npaths + b->nopens; k++) {
			struct ktr_path *r = k < b->npaths ? &b->paths[k] : &b->opens[k - b->npaths];

			if (r->excl > r->incl) {
				snprintf(why, len, "line %d: path ending in %s => %s (pid %ld %s) excl %"
					 PRIu64 " > incl %" PRIu64, r->lineno, r->parent, r->name,
					 b->pid, b->kind, r->excl, r->incl);
				return -1;
			}
		}
		/* func (ctx, fid): calls and excl are the sums of the paths ending in fid */
		for (size_t k = 0; k < b->nfuncs; k++) {
			struct ktr_rec *f = &b->funcs[k];
			uint64_t c = 0, ex = 0;

			for (size_t e = 0; e < b->npaths; e++)
				if (b->paths[e].fids[b->paths[e].depth - 1] == f->fid &&
				    b->paths[e].ctx == f->ctx) {
					c += b->paths[e].calls;
					ex += b->paths[e].excl;
				}
			/* excl is capped at incl (a recursive routine whose outer
			 * call a control change discarded) */
			if (c != f->calls || (ex < f->incl ? ex : f->incl) != f->excl) {
				snprintf(why, len, "line %d: paths ending in %s (pid %ld %s) sum to calls %"
					 PRIu64 " excl %" PRIu64 ", its func line says %" PRIu64
					 " / %" PRIu64 " (incl %" PRIu64 ")", f->lineno, f->name, b->pid,
					 b->kind, c, ex, f->calls, f->excl, f->incl);
				return -1;
			}
		}
		/* and every path with calls ends in a routine with a func line */
		for (size_t e = 0; e < b->npaths; e++) {
			int found = !b->paths[e].calls;

			for (size_t k = 0; k < b->nfuncs && !found; k++)
				found = b->funcs[k].fid == b->paths[e].fids[b->paths[e].depth - 1] &&
					b->funcs[k].ctx == b->paths[e].ctx;
			if (!found) {
				snprintf(why, len, "line %d: path ending in %s (pid %ld %s) has no func line",
					 b->paths[e].lineno, b->paths[e].name, b->pid, b->kind);
				return -1;
			}
		}
	}
	return 0;
}

/* Reads and checks one file.  Processes may exit while we look: a file that
 * is gone (ENOENT/ESRCH) is skipped, returns 0.  Returns 1 if checked. */
static int check_file(const char *path, const char *check, int may_vanish)
{
	char err[512];
	size_t len;
	char *text = ktr_slurp(path, &len);
	struct ktr_profile p;

	if (!text) {
		if (may_vanish && (errno == ENOENT || errno == ESRCH))
			return 0;
		ktr_fail(check, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (ktr_parse(text, len, &p, err, sizeof(err))) {
		ktr_fail(check, "%s: not a valid v1 profile: %s", path, err);
		free(text);
		return -1;
	}
	free(text);
	if (consistent(&p, err, sizeof(err))) {
		ktr_fail(check, "%s: %s", path, err);
		ktr_free(&p);
		return -1;
	}
	ktr_free(&p);
	return 1;
}

static void work(void)
{
	size_t sz = 1 << 20;
	char *m = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = open("/dev/zero", O_RDONLY), pfd[2];
	struct timespec ts = { 0, 1000000 };
	char buf[256];

	if (m != MAP_FAILED && fd >= 0) {
		for (int i = 0; i < 4; i++)	/* page faults inside read() */
			if (read(fd, m + i * (sz / 4), sz / 4) < 0)
				break;
		munmap(m, sz);
	}
	if (fd >= 0)
		close(fd);
	for (int i = 0; i < 5; i++)
		nanosleep(&ts, NULL);
	if (pipe(pfd) == 0) {
		for (int i = 0; i < 20; i++)
			if (write(pfd[1], buf, sizeof(buf)) < 0 || read(pfd[0], buf, sizeof(buf)) < 0)
				break;
		close(pfd[0]);
		close(pfd[1]);
	}
}

int main(void)
{
	char path[300], tpath[300];
	long self = syscall(SYS_getpid), tid = syscall(SYS_gettid);
	int others = 0, tasks = 0, bad = 0;
	DIR *d;
	struct dirent *de;

	ktr_init("inclexcl");
	work();

	if (check_file("/proc/self/ktau", "self", 0) > 0)
		ktr_pass("self");
	snprintf(path, sizeof(path), "/proc/self/task/%ld/ktau", tid);
	if (check_file(path, "thread", 0) > 0)
		ktr_pass("thread");
	if (check_file("/proc/ktau/profile", "system", 0) > 0)
		ktr_pass("system");
	if (check_file("/proc/1/ktau", "pid1", 0) > 0)
		ktr_pass("pid1");

	/* up to 8 other processes (kernel threads included), with their threads */
	d = opendir("/proc");
	while (d && (de = readdir(d)) && others < 8 && !bad) {
		long pid;
		int r;
		DIR *td;
		struct dirent *te;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = atol(de->d_name);
		if (pid == 1 || pid == self)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/ktau", pid);
		r = check_file(path, "others", 1);
		if (r < 0) {
			bad = 1;
			break;
		}
		others += r;
		snprintf(path, sizeof(path), "/proc/%ld/task", pid);
		td = opendir(path);
		while (td && (te = readdir(td))) {
			if (!isdigit((unsigned char)te->d_name[0]))
				continue;
			snprintf(tpath, sizeof(tpath), "/proc/%ld/task/%s/ktau", pid, te->d_name);
			r = check_file(tpath, "others", 1);
			if (r < 0) {
				bad = 1;
				break;
			}
			tasks += r;
		}
		if (td)
			closedir(td);
	}
	if (d)
		closedir(d);
	if (!bad)
		ktr_check(others > 0, "others", "no other process's profile could be read");
	ktr_info("others", "%d processes and %d threads checked", others, tasks);
	return ktr_exit();
}
