// SPDX-License-Identifier: GPL-2.0
/*
 * perm — what a non-root user may see and do.
 *
 * A forked child drops to uid/gid 65534 (nobody; made dumpable again, as a
 * program exec'ed by that user is) and checks:
 *   /proc/ktau/control: open for writing fails with EACCES (and for reading:
 *     the file is root-only, 0600);
 *   /proc/1/ktau, /proc/1/task/1/ktau, /proc/<parent>/ktau: EACCES (at open
 *     or at read);
 *   /proc/self/ktau and its own thread file: readable, valid, its own pid;
 *   /proc/ktau/profile: valid, and every block is its own pid (it has at
 *     least its thread block);
 *   a process of its own uid that made itself non-dumpable (as a setuid
 *     program is): EACCES on its ktau files, as on its /proc/<pid>/environ.
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOBODY 65534

/* open+read must fail with EACCES at either step */
static void expect_eacces(const char *check, const char *path)
{
	char buf[4096];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0) {
		ktr_check(errno == EACCES, check, "open(%s) as uid %d failed with %s, expected "
			  "EACCES", path, NOBODY, strerror(errno));
		return;
	}
	n = read(fd, buf, sizeof(buf));
	if (n >= 0)
		ktr_fail(check, "uid %d opened and read %zd bytes of %s, expected EACCES", NOBODY,
			 n, path);
	else
		ktr_check(errno == EACCES, check, "read(%s) as uid %d failed with %s, expected "
			  "EACCES", path, NOBODY, strerror(errno));
	close(fd);
}

static void own(const char *check, const char *path, const char *kind, long pid)
{
	struct ktr_profile p;
	struct ktr_block *b;

	if (ktr_load(path, 0, &p, check))
		return;
	b = ktr_block_kind(&p, kind, 0);
	ktr_check(b && b->pid == pid, check, "%s: %s block %s (pid %ld), expected pid %ld",
		  path, kind, b ? "found" : "MISSING", b ? b->pid : -1L, pid);
	ktr_free(&p);
}

/*
 * A process of the same user that made itself non-dumpable (as a setuid
 * program is) is hidden like its /proc/<pid>/io and environ, from others
 * and, the files being root's then, from itself.
 */
static void check_nondumpable(void)
{
	int ready[2], hold[2];
	char c, path[64];
	pid_t pid;

	if (pipe(ready) || pipe(hold)) {
		ktr_fail("nondumpable", "pipe: %s", strerror(errno));
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int ktau_fd, environ_fd;
		char result;

		close(ready[0]);
		close(hold[1]);	/* else its read() below never sees the end */
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
		/* its /proc files now belong to root, mode 0400 as before */
		ktau_fd = open("/proc/self/ktau", O_RDONLY);
		environ_fd = open("/proc/self/environ", O_RDONLY);
		result = (ktau_fd < 0) == (environ_fd < 0) ? 'y' : 'n';
		if (write(ready[1], &result, 1) != 1)
			_exit(1);
		while (read(hold[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	if (pid < 0 || read(ready[0], &c, 1) != 1) {
		ktr_fail("nondumpable", "the non-dumpable process did not start");
	} else {
		ktr_check(c == 'y', "nondumpable-own-like-environ",
			  "a non-dumpable process's access to its own /proc/self/ktau differs "
			  "from its access to /proc/self/environ");
		/* /proc/<pid>/io needs TASK_IO_ACCOUNTING; environ has the same
		 * ptrace-read rule and is always there */
		snprintf(path, sizeof(path), "/proc/%ld/environ", (long)pid);
		expect_eacces("nondumpable-environ-hidden", path);
		snprintf(path, sizeof(path), "/proc/%ld/ktau", (long)pid);
		expect_eacces("nondumpable-hidden", path);
		snprintf(path, sizeof(path), "/proc/%ld/task/%ld/ktau", (long)pid, (long)pid);
		expect_eacces("nondumpable-task-hidden", path);
	}
	close(hold[1]);
	close(ready[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

static void child(pid_t parent)
{
	struct ktr_profile p;
	long me = getpid();
	char path[64];
	int fd, nmine = 0, nother = 0;
	long other = 0;

	ktr_test = "perm";
	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY)) {
		ktr_fail("drop-root", "setgroups/setgid/setuid(%d): %s", NOBODY, strerror(errno));
		fflush(stdout);
		_exit(0);
	}
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	ktr_check(getuid() == NOBODY && geteuid() == NOBODY, "drop-root",
		  "uid %d euid %d after setuid(%d)", (int)getuid(), (int)geteuid(), NOBODY);

	fd = open(KTR_CONTROL, O_WRONLY);
	ktr_check(fd < 0 && errno == EACCES, "control-write",
		  "open(%s, O_WRONLY) as uid %d: %s, expected EACCES", KTR_CONTROL, NOBODY,
		  fd < 0 ? strerror(errno) : "succeeded");
	if (fd >= 0) {
		/* do no harm if it opened: a write must fail too */
		ssize_t w = write(fd, "start", 5);

		ktr_check(w < 0, "control-write-refused", "write('start') as uid %d returned %zd",
			  NOBODY, w);
		close(fd);
	}
	fd = open(KTR_CONTROL, O_RDONLY);
	ktr_check(fd < 0 && errno == EACCES, "control-read",
		  "open(%s, O_RDONLY) as uid %d: %s, expected EACCES (mode 0600, root only)",
		  KTR_CONTROL, NOBODY, fd < 0 ? strerror(errno) : "succeeded");
	if (fd >= 0)
		close(fd);

	expect_eacces("pid1", "/proc/1/ktau");
	expect_eacces("pid1-task", "/proc/1/task/1/ktau");
	snprintf(path, sizeof(path), "/proc/%ld/ktau", (long)parent);
	expect_eacces("parent", path);

	own("self", "/proc/self/ktau", "process", me);
	snprintf(path, sizeof(path), "/proc/self/task/%ld/ktau", (long)syscall(SYS_gettid));
	own("self-task", path, "thread", me);

	if (ktr_load("/proc/ktau/profile", 0, &p, "system-own-only") == 0) {
		for (size_t i = 0; i < p.nblocks; i++) {
			if (p.blocks[i].pid == me) {
				nmine += !strcmp(p.blocks[i].kind, "thread");
			} else {
				nother++;
				other = p.blocks[i].pid;
			}
		}
		ktr_check(nother == 0 && nmine == 1, "system-own-only",
			  "/proc/ktau/profile read as uid %d: %d thread blocks of its own pid %ld "
			  "(expected 1) and %d blocks of other pids (expected 0; e.g. pid %ld)",
			  NOBODY, nmine, me, nother, other);
		ktr_free(&p);
	}
	check_nondumpable();
	fflush(stdout);
	_exit(0);	/* its FAIL lines, if any, are printed: the parent checks only for a crash */
}

int main(void)
{
	pid_t pid, parent = getpid();
	int st;

	ktr_init("perm");
	if (geteuid() != 0) {
		ktr_fail("root", "must start as root to drop to uid %d (euid %d)", NOBODY,
			 (int)geteuid());
		return ktr_exit();
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		ktr_fail("fork", "%s", strerror(errno));
		return ktr_exit();
	}
	if (pid == 0)
		child(parent);
	st = -1;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		ktr_fail("child", "the uid %d child did not exit normally (status 0x%x)", NOBODY, st);
	return ktr_exit();
}
