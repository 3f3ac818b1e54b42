// SPDX-License-Identifier: GPL-2.0
/*
 * exit — reading the profile of a task that has just exited.
 *
 * The child blocks on a pipe; the parent opens /proc/<child>/ktau and
 * /proc/<child>/task/<child>/ktau, lets the child exit, and reads from the
 * already-open fds: while the child is a zombie, and after it was reaped.
 * Each read must fail with ESRCH or return an empty or a complete, valid
 * profile — never garbage, never a crash.  Opening after the reap gives ENOENT.
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define BUFSZ (1 << 20)

static char *buf;

/* read(fd) must give ESRCH, nothing, or a valid profile */
static void check_read(int fd, const char *check, const char *what)
{
	char err[256];
	struct ktr_profile p;
	ssize_t n;

	if (fd < 0)
		return;
	lseek(fd, 0, SEEK_SET);	/* a re-read starts over, as a new reader would */
	errno = 0;
	n = read(fd, buf, BUFSZ);
	if (n < 0) {
		if (ktr_check(errno == ESRCH, check, "%s: read() failed with %s, expected ESRCH, "
			      "an empty or a valid profile", what, strerror(errno)))
			ktr_info(check, "%s: read() -> ESRCH", what);
		return;
	}
	if (n == 0) {
		ktr_pass(check);
		ktr_info(check, "%s: read() -> 0 bytes", what);
		return;
	}
	if (ktr_parse(buf, (size_t)n, &p, err, sizeof(err))) {
		ktr_fail(check, "%s: read() returned %zd bytes that are not a valid profile: %s",
			 what, n, err);
		return;
	}
	ktr_free(&p);
	ktr_pass(check);
	ktr_info(check, "%s: read() -> a valid profile (%zd bytes)", what, n);
}

int main(void)
{
	int go[2], fdp, fdt, fdz;
	char path[64], tpath[64], c = 'x';
	pid_t pid;
	siginfo_t si;

	ktr_init("exit");
	buf = malloc(BUFSZ + 1);
	if (!buf || pipe(go)) {
		ktr_fail("setup", "malloc/pipe failed");
		return ktr_exit();
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		ktr_fail("fork", "%s", strerror(errno));
		return ktr_exit();
	}
	if (pid == 0) {
		close(go[1]);
		for (int i = 0; i < 10; i++)
			syscall(SYS_getpid);
		if (read(go[0], &c, 1) < 0)
			_exit(2);
		_exit(0);
	}
	close(go[0]);
	snprintf(path, sizeof(path), "/proc/%d/ktau", pid);
	snprintf(tpath, sizeof(tpath), "/proc/%d/task/%d/ktau", pid, pid);
	fdp = open(path, O_RDONLY);
	fdt = open(tpath, O_RDONLY);
	fdz = open(path, O_RDONLY);
	ktr_check(fdp >= 0 && fdt >= 0 && fdz >= 0, "open-live", "open of %s / %s while the child "
		  "lives: %s", path, tpath, strerror(errno));

	/* let it exit; wait until it is a zombie, without reaping it */
	if (write(go[1], &c, 1) != 1)
		ktr_fail("release", "write to pipe: %s", strerror(errno));
	close(go[1]);
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) != 0)
		ktr_fail("waitid", "%s", strerror(errno));
	check_read(fdz, "read-zombie", "process file, child a zombie");

	if (waitpid(pid, NULL, 0) != pid)
		ktr_fail("reap", "waitpid: %s", strerror(errno));
	check_read(fdp, "read-reaped", "process file opened before exit, read after reap");
	check_read(fdt, "read-reaped-task", "thread file opened before exit, read after reap");
	/* a second read on the same fds: still sane */
	check_read(fdp, "reread-reaped", "process file, second read after reap");
	check_read(fdz, "reread-zombie-fd", "process file read as zombie, read again after reap");

	errno = 0;
	ktr_check(open(path, O_RDONLY) < 0 && errno == ENOENT, "open-reaped",
		  "open(%s) after reap: %s, expected ENOENT", path,
		  errno ? strerror(errno) : "succeeded");
	errno = 0;
	ktr_check(open(tpath, O_RDONLY) < 0 && errno == ENOENT, "open-reaped-task",
		  "open(%s) after reap: %s, expected ENOENT", tpath,
		  errno ? strerror(errno) : "succeeded");
	if (fdp >= 0)
		close(fdp);
	if (fdt >= 0)
		close(fdt);
	if (fdz >= 0)
		close(fdz);
	return ktr_exit();
}
