// SPDX-License-Identifier: GPL-2.0
/*
 * carry — exact call counts past the width of a record's count.
 *
 * A record counts its calls in 32 bits (16 on kernels built with
 * CONFIG_KTAU_DEBUG, so that a test reaches the limit) and carries into a
 * record of its own, which every reader and every fold must add back.
 * NCALLS getppid() calls, more than 2^16, must read exactly NCALLS:
 *   - in this thread's profile (/proc/self/task/TID/ktau: a live table as
 *     a view widens it),
 *   - in the process's (/proc/self/ktau: live threads folded),
 *   - after a thread that made them exited (the exited total, folded at
 *     the thread's exit, then into the process block),
 *   - after a child process that made them was reaped (the children
 *     total, folded from the child's exited total);
 *   - after two children of one parent made NCALLS between them, the
 *     second from the first's template: the second's fold finds its
 *     records at the ids the first's have and adds them without a
 *     lookup until the getppid() count carries (ktau_fold_same_ids());
 * and NCALLS reads of one byte from /dev/zero add exactly NCALLS values to
 * the read_bytes event (its count carries too).  Every figure is a delta
 * from a first read, whose own read() is counted once it completed.
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define NCALLS 70000

static void getppid_calls(void)
{
	for (int i = 0; i < NCALLS; i++)
		syscall(SYS_getppid);
}

/*
 * A process whose two children make NCALLS getppid() calls between them,
 * neither enough for a carry; exits 0 when both ran and were reaped.
 */
static void two_children(void)
{
	for (int i = 0; i < 2; i++) {
		int status;
		pid_t pid = fork();

		if (pid == 0) {
			for (int j = 0; j < NCALLS / 2; j++)
				syscall(SYS_getppid);
			_exit(0);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			_exit(1);
	}
	_exit(0);
}

static void *thread_main(void *arg)
{
	(void)arg;
	getppid_calls();
	return NULL;
}

/* getppid() calls and read_bytes values in block `kind` of `path`. */
static int counts(const char *path, const char *kind, uint64_t *calls,
		  uint64_t *values)
{
	struct ktr_profile p;
	struct ktr_event ev;
	struct ktr_block *b;
	char check[64];

	snprintf(check, sizeof(check), "load-%s", kind);
	if (ktr_load(path, 1, &p, check))
		return -1;
	b = ktr_block_kind(&p, kind, 0);
	if (!b) {
		ktr_fail(check, "%s has no kind=%s block", path, kind);
		ktr_free(&p);
		return -1;
	}
	*calls = 0;
	ktr_func(b, "getppid", calls, NULL, NULL);
	if (values) {
		memset(&ev, 0, sizeof(ev));
		ktr_event_find(b, "read_bytes", &ev);
		*values = ev.count;
	}
	ktr_free(&p);
	return 0;
}

int main(void)
{
	uint64_t t0, t1, p0, p1, c0, c1 = 0, c2, v0, v1, unused;
	char task[64], byte;
	pthread_t th;
	int fd, status, bad = 0;
	pid_t child;

	ktr_init("carry");
	snprintf(task, sizeof(task), "/proc/self/task/%ld/ktau",
		 (long)syscall(SYS_gettid));
	if (counts(task, "thread", &t0, NULL) ||
	    counts("/proc/self/ktau", "process", &p0, &v0) ||
	    counts("/proc/self/ktau", "children", &c0, NULL))
		return ktr_exit();

	getppid_calls();
	if (!counts(task, "thread", &t1, NULL))
		ktr_check(t1 - t0 == NCALLS, "thread-table",
			  "getppid calls %" PRIu64 " - %" PRIu64 ", expected %d",
			  t1, t0, NCALLS);
	if (!counts("/proc/self/ktau", "process", &p1, NULL))
		ktr_check(p1 - p0 == NCALLS, "process-live",
			  "getppid calls %" PRIu64 " - %" PRIu64 ", expected %d",
			  p1, p0, NCALLS);

	errno = pthread_create(&th, NULL, thread_main, NULL);
	if (errno || (errno = pthread_join(th, NULL))) {
		ktr_fail("thread", "pthread: %s", strerror(errno));
	} else if (!counts("/proc/self/ktau", "process", &p1, NULL)) {
		ktr_check(p1 - p0 == 2 * NCALLS, "exited-thread",
			  "getppid calls %" PRIu64 " - %" PRIu64 ", expected %d",
			  p1, p0, 2 * NCALLS);
	}

	child = fork();
	if (child == 0) {
		getppid_calls();
		_exit(0);
	}
	if (child < 0 || waitpid(child, &status, 0) != child ||
	    !WIFEXITED(status) || WEXITSTATUS(status)) {
		ktr_fail("child", "fork or wait failed: %s", strerror(errno));
	} else if (!counts("/proc/self/ktau", "children", &c1, NULL)) {
		ktr_check(c1 - c0 == NCALLS, "reaped-child",
			  "getppid calls %" PRIu64 " - %" PRIu64 ", expected %d",
			  c1, c0, NCALLS);
	}

	/* c1: the reaped child's calls are in; then its sibling's two */
	child = fork();
	if (child == 0)
		two_children();
	if (child < 0 || waitpid(child, &status, 0) != child ||
	    !WIFEXITED(status) || WEXITSTATUS(status)) {
		ktr_fail("two-children", "fork or wait failed: %s",
			 strerror(errno));
	} else if (!counts("/proc/self/ktau", "children", &c2, NULL)) {
		ktr_check(c2 - c1 == NCALLS, "two-children",
			  "getppid calls %" PRIu64 " - %" PRIu64 ", expected %d",
			  c2, c1, NCALLS);
	}

	/* the process-block reads since v0: its own, c0, t1, p1 twice, c1, c2 */
	fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	for (int i = 0; fd >= 0 && i < NCALLS; i++)
		bad += read(fd, &byte, 1) != 1;
	if (fd < 0 || bad) {
		ktr_fail("read-dev-zero", "open or %d reads failed", bad);
	} else if (!counts("/proc/self/ktau", "process", &unused, &v1)) {
		ktr_check(v1 - v0 == NCALLS + 7, "read-bytes-event",
			  "read_bytes count %" PRIu64 " - %" PRIu64 ", expected %d",
			  v1, v0, NCALLS + 7);
	}
	if (fd >= 0)
		close(fd);
	return ktr_exit();
}
