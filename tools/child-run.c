// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The caller blocks the signals it waits for and takes them with
 * sigwaitinfo(), so no handler and no global state is needed, and a
 * SIGCHLD that arrives before the wait starts is not lost.
 */
#define _GNU_SOURCE	/* pipe2, timersub */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child-run.h"

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* In the child: the caller's signal state back, then the command. */
static void __attribute__((noreturn))
exec_child(char *const argv[], const sigset_t *old_mask, int err_fd,
	   void (*before_exec)(void *), void *arg)
{
	int e;

	sigprocmask(SIG_SETMASK, old_mask, NULL);
	if (before_exec)
		before_exec(arg);
	execvp(argv[0], argv);
	e = errno;
	if (write(err_fd, &e, sizeof(e)) < 0) {
		/* the parent then reports a failed exec as exit 127 */
	}
	_exit(127);
}

/* 0 when exec succeeded (the pipe closed on exec), else its errno. */
static int exec_result(int fd)
{
	int e = 0;
	ssize_t n;

	do
		n = read(fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(e) ? e : 0;
}

struct reaper {
	pid_t command;
	bool command_done;
	bool none_left;		/* ECHILD: nothing more to wait for */
	bool some_running;
	double start;
	struct child_result *res;
};

/* Reaps whatever has ended, without blocking. */
static void reap(struct reaper *r)
{
	for (;;) {
		int status;
		pid_t pid = waitpid(-1, &status, WNOHANG);

		if (pid > 0) {
			if (pid == r->command) {
				r->command_done = true;
				r->res->status = status;
				r->res->wall_seconds = now() - r->start;
			}
			continue;
		}
		if (pid < 0 && errno == EINTR)
			continue;
		r->none_left = pid < 0;
		r->some_running = pid == 0;
		return;
	}
}

static void forward(const struct reaper *r, const siginfo_t *si)
{
	/* the terminal signals the whole foreground group: the command has it */
	if (si->si_code == SI_KERNEL)
		return;
	kill(r->command, si->si_signo);
}

static void wait_loop(struct reaper *r, const sigset_t *wait_set, bool follow)
{
	for (;;) {
		siginfo_t si;
		int sig;

		reap(r);
		if (r->command_done && (!follow || r->none_left))
			break;
		sig = sigwaitinfo(wait_set, &si);
		if (sig < 0 || sig == SIGCHLD)
			continue;
		if (!r->command_done) {
			forward(r, &si);
		} else {
			r->res->stopped_waiting = true;
			break;
		}
	}
	r->res->orphans_left = r->some_running;
}

int child_run(char *const argv[], bool follow, void (*before_exec)(void *arg), void *arg,
	      struct child_result *res)
{
	struct reaper r = { .res = res };
	struct rusage before, after;
	sigset_t wait_set, old_mask;
	int err_pipe[2], ret = 0;
	size_t i;

	memset(res, 0, sizeof(*res));
	sigemptyset(&wait_set);
	sigaddset(&wait_set, SIGCHLD);
	for (i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&wait_set, forwarded[i]);
	/* an ignored SIGCHLD would let the kernel reap children unwaited,
	 * and a child reaped that way is not folded into our totals */
	if (signal(SIGCHLD, SIG_DFL) == SIG_ERR ||
	    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) ||
	    sigprocmask(SIG_BLOCK, &wait_set, &old_mask))
		return -errno;
	if (pipe2(err_pipe, O_CLOEXEC)) {
		ret = -errno;
		goto out;
	}
	getrusage(RUSAGE_CHILDREN, &before);
	r.start = now();
	r.command = fork();
	if (r.command < 0) {
		ret = -errno;
		close(err_pipe[0]);
		close(err_pipe[1]);
		goto out;
	}
	if (r.command == 0) {
		close(err_pipe[0]);
		exec_child(argv, &old_mask, err_pipe[1], before_exec, arg);
	}
	close(err_pipe[1]);
	res->exec_errno = exec_result(err_pipe[0]);
	close(err_pipe[0]);
	wait_loop(&r, &wait_set, follow && !res->exec_errno);
	getrusage(RUSAGE_CHILDREN, &after);
	timersub(&after.ru_utime, &before.ru_utime, &res->rusage.ru_utime);
	timersub(&after.ru_stime, &before.ru_stime, &res->rusage.ru_stime);
	return 0;
out:
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	return ret;
}

int child_exit_code(int status)
{
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
