// SPDX-License-Identifier: GPL-2.0
/*
 * ktau_top — ktau-top --batch against the real kernel.
 *
 * A busy child spins in user mode (no system calls) on a shared flag.
 * ktau-top -b -d 1 -n 2 runs with its output on a pipe; once it prints
 * that it took its first snapshot, the child makes exactly 1000 getpid()s
 * and spins on.  The first interval's row for the child must say exactly
 * 1000 system calls; the second interval shows it still (busy: interrupted
 * by the timer), with 0 system calls.  A second child sleeps in read() on a
 * pipe, is woken at the same time, makes 10 000 getpid()s and sleeps again:
 * exactly 10 001 system calls, and "getpid 10000" among its top routines
 * (10 000: with 1 000, a run of a millisecond or two, a tick's interrupt
 * and softirqs could outrank getpid on a fast kernel), summed over the two
 * intervals where its run outlasts the first (on a slow kernel: arm64's
 * debug kernel under QEMU makes about 4 000 a second), the first showing
 * it.
 * Then: -p of a missing process, -p of pid 1 as user nobody, no ktau
 * kernel, a bad option, each its message and exit status.
 */
#define _GNU_SOURCE
#include "ktr.h"
#include "toolrun.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define KTAU_TOP TOOL_DIR "/ktau-top"

struct flags {
	volatile int go;
	volatile int done;
	volatile int sleeper_done;
};

static pid_t start_busy_child(struct flags *f)
{
	pid_t pid = fork();

	if (pid == 0) {
		while (!f->go)
			;
		for (int i = 0; i < 1000; i++)
			syscall(SYS_getpid);
		f->done = 1;
		for (;;)
			;	/* busy until killed */
	}
	return pid;
}

#define SLEEPER_CALLS 10000

/* Blocks in read() on fd; woken, makes SLEEPER_CALLS getpid()s and blocks
 * again until killed. */
static pid_t start_sleeper_child(struct flags *f, int fd)
{
	pid_t pid = fork();
	char c;

	if (pid == 0) {
		if (read(fd, &c, 1) == 1)
			for (int i = 0; i < SLEEPER_CALLS; i++)
				syscall(SYS_getpid);
		f->sleeper_done = 1;
		for (;;)
			pause();
	}
	return pid;
}

/* Reads ktau-top's output until `marker` has been seen (or EOF). */
static int read_until(int fd, char **buf, size_t *len, size_t *cap, const char *marker)
{
	for (;;) {
		ssize_t n;

		if (marker && *buf && strstr(*buf, marker))
			return 0;
		if (*cap - *len < 4096) {
			char *p = realloc(*buf, *cap + 65536);

			if (!p)
				return -1;
			*buf = p;
			*cap += 65536;
		}
		n = read(fd, *buf + *len, *cap - *len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return marker ? -1 : 0;
		*len += (size_t)n;
		(*buf)[*len] = '\0';
	}
}

/*
 * The system calls and getpid()s of pid's row in text (its top routines
 * name getpid with its count), each 0 where there is no row or no getpid
 * among them; whether there is a row.
 */
static int sleeper_counts(const char *text, pid_t pid, long long *syscalls, long long *getpids)
{
	char line[512], prefix[32], rest[256] = "";
	const char *g;

	*syscalls = *getpids = 0;
	snprintf(prefix, sizeof(prefix), "%d ", (int)pid);
	if (!text || !tool_line(text, prefix, line, sizeof(line)) ||
	    sscanf(line, "%*d %*s %*d %*f %*f %*f %lld %255[^\n]", syscalls, rest) < 1)
		return 0;
	g = strstr(rest, "getpid ");
	if (g)
		*getpids = strtoll(g + strlen("getpid "), NULL, 10);
	return 1;
}

/* The row of pid in text (after squeezing blanks), copied into line. */
static const char *row_of(const char *text, pid_t pid, char *line, size_t size)
{
	char prefix[32];

	snprintf(prefix, sizeof(prefix), "%d ", (int)pid);
	return text ? tool_line(text, prefix, line, size) : NULL;
}

static void check_busy_task(void)
{
	struct flags *f = mmap(NULL, sizeof(*f), PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	char *out = NULL, line[512], comm[64], rest[256];
	size_t len = 0, cap = 0;
	int pipefd[2], wake[2], st = -1, thr, n;
	long long syscalls, sleeper_calls[2] = { 0, 0 }, sleeper_getpids[2] = { 0, 0 };
	double kernel_ms, pct, wait_ms;
	pid_t child, sleeper = -1, top;
	char *second;

	if (f == MAP_FAILED) {
		ktr_fail("busy-setup", "mmap: %s", strerror(errno));
		return;
	}
	child = start_busy_child(f);
	if (child < 0 || pipe(wake)) {
		ktr_fail("busy-setup", "fork/pipe: %s", strerror(errno));
		kill(child, SIGKILL);
		return;
	}
	sleeper = start_sleeper_child(f, wake[0]);
	/* after the forks: the children must not hold ktau-top's pipe open */
	if (sleeper < 0 || pipe(pipefd)) {
		ktr_fail("busy-setup", "fork/pipe: %s", strerror(errno));
		kill(child, SIGKILL);
		kill(sleeper, SIGKILL);
		return;
	}
	fflush(stdout);
	top = fork();
	if (top == 0) {
		dup2(pipefd[1], 1);
		close(pipefd[0]);
		execl(KTAU_TOP, "ktau-top", "-b", "-d", "1", "-n", "2", (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	if (read_until(pipefd[0], &out, &len, &cap, "every 1.000 s\n")) {
		ktr_fail("busy-started", "ktau-top printed no 'sampling ... every 1.000 s' line: "
			 "'%s'", out ? out : "");
	} else {
		f->go = 1;
		if (write(wake[1], "x", 1) != 1)
			ktr_fail("busy-setup", "cannot wake the sleeper: %s", strerror(errno));
		while (!f->done || !f->sleeper_done)
			usleep(1000);
	}
	read_until(pipefd[0], &out, &len, &cap, NULL);
	close(pipefd[0]);
	waitpid(top, &st, 0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	kill(sleeper, SIGKILL);
	waitpid(sleeper, NULL, 0);
	close(wake[1]);
	close(wake[0]);

	ktr_check(WIFEXITED(st) && WEXITSTATUS(st) == 0 && out &&
		  strstr(out, "interval 1 of 2") && strstr(out, "interval 2 of 2"),
		  "batch-two-intervals", "exit status 0x%x, output '%.500s'", st, out ? out : "");
	second = out ? strstr(out, "interval 2 of 2") : NULL;
	if (second)
		second[-1] = '\0';	/* out: the first interval only */
	n = row_of(out, child, line, sizeof(line)) ?
		sscanf(line, "%*d %63s %d %lf %lf %lf %lld %255[^\n]", comm, &thr, &kernel_ms, &pct,
		       &wait_ms, &syscalls, rest) : 0;
	/* its top routines are timer interrupts of the spinning: not checked */
	ktr_check(n == 7 && syscalls == 1000 && kernel_ms > 0, "busy-first-interval",
		  "row of the busy child %d: '%s'; expected exactly 1000 system calls and "
		  "some kernel time", (int)child, n ? line : "MISSING");
	/* woken from read(): that read, then its getpid()s, top by excl. time
	 * with nothing interrupting it but its own wait and the ticks */
	if (sleeper_counts(out, sleeper, &sleeper_calls[0], &sleeper_getpids[0]))
		sleeper_counts(second, sleeper, &sleeper_calls[1], &sleeper_getpids[1]);
	else
		sleeper_calls[0] = -1;
	ktr_check(sleeper_calls[0] > 0 &&
		  sleeper_calls[0] + sleeper_calls[1] == SLEEPER_CALLS + 1 &&
		  sleeper_getpids[0] + sleeper_getpids[1] == SLEEPER_CALLS,
		  "sleeper-first-interval", "rows of the sleeping child %d: %lld system calls "
		  "and %lld getpid in the first interval (-1: no row), %lld and %lld in the "
		  "second; expected %d system calls (the read it was woken from, %d getpid) "
		  "and getpid among its top routines, in the two together",
		  (int)sleeper, sleeper_calls[0], sleeper_getpids[0], sleeper_calls[1],
		  sleeper_getpids[1], SLEEPER_CALLS + 1, SLEEPER_CALLS);
	if (sleeper_calls[1])
		ktr_info("sleeper", "its run outlasted the first interval: %lld system calls "
			 "in it, %lld in the second", sleeper_calls[0], sleeper_calls[1]);
	n = row_of(second, child, line, sizeof(line)) ?
		sscanf(line, "%*d %63s %d %lf %lf %lf %lld", comm, &thr, &kernel_ms, &pct,
		       &wait_ms, &syscalls) : 0;
	ktr_check(n == 6 && syscalls == 0, "busy-second-interval", "row of the busy child %d "
		  "in the second interval: '%s'; expected it shown (interrupted while busy) "
		  "with 0 system calls", (int)child, n ? line : "MISSING");
	free(out);
	munmap(f, sizeof(*f));
}

static void expect_error(const char *check, char *const argv[], char *const env[],
			 int as_nobody, int status, const char *err)
{
	struct tool_result r;

	if (tool_run(check, argv, env, as_nobody, &r))
		return;
	ktr_check(r.status == status && strstr(r.err, err), check, "exit status %d (expected "
		  "%d), stderr '%s' (expected '%s')", r.status, status, r.err, err);
	tool_result_free(&r);
}

int main(void)
{
	char *no_ktau[] = { "KTAU_PROCFS=" NO_KTAU_ROOT, NULL };
	char *argv_missing[] = { KTAU_TOP, "-b", "-n", "1", "-p", "999999", NULL };
	char *argv_pid1[] = { KTAU_TOP, "-b", "-n", "1", "-p", "1", NULL };
	char *argv_plain[] = { KTAU_TOP, "-b", "-n", "1", "-d", "0.1", NULL };
	char *argv_bad[] = { KTAU_TOP, "-d", "0", NULL };

	ktr_init("ktau_top");
	if (access(KTAU_TOP, X_OK)) {
		ktr_fail("present", "%s: %s", KTAU_TOP, strerror(errno));
		return ktr_exit();
	}
	check_busy_task();
	expect_error("no-such-pid", argv_missing, NULL, 0, 1,
		     "ktau-top: no such process 999999\n");
	expect_error("nobody-pid1", argv_pid1, NULL, 1, 1,
		     "ktau-top: permission denied reading /proc/1/ktau (you need ptrace access "
		     "to the process: run as root)\n");
	mkdir(NO_KTAU_ROOT, 0755);
	expect_error("no-ktau", argv_plain, no_ktau, 0, 1,
		     "ktau-top: this kernel has no ktau support (no /proc/ktau): boot a kernel "
		     "built with CONFIG_KTAU\n");
	expect_error("bad-delay", argv_bad, NULL, 0, 2, "ktau-top: invalid delay '0'");
	return ktr_exit();
}
