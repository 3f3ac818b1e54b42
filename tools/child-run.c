// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The caller blocks the signals it waits for from before the fork, so a
 * SIGCHLD that arrives before the wait starts is not lost; sig-wait takes
 * them, with the hooks' fd, inside its ppoll() only.
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
#include "sig-wait.h"

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* In the child: the caller's go (EOF on go_fd, when not -1), the
 * caller's signal state back, then the command. */
static void __attribute__((noreturn))
exec_child(char *const argv[], const sigset_t *old_mask, int err_fd, int go_fd,
	   void (*before_exec)(void *), void *arg)
{
	char c;
	int e;

	if (go_fd >= 0) {
		ssize_t n;

		do
			n = read(go_fd, &c, 1);
		while (n < 0 && errno == EINTR);
		if (n != 0)	/* the caller gave up on us */
			_exit(127);
		close(go_fd);
	}
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

static void forward(const struct reaper *r, int signo, int code)
{
	/* the terminal signals the whole foreground group: the command has it */
	if (code == SI_KERNEL)
		return;
	kill(r->command, signo);
}

/*
 * The next signal of the wait set (*code its si_code), or 0 when the
 * hooks' fd or timeout woke the caller (after on_wait), or -1 to try
 * again.
 */
static int next_signal(struct sig_wait *w, const struct child_hooks *h, bool *poll_fd,
		       int *code)
{
	bool ready;
	int sig;

	sig = sig_wait(w, h && *poll_fd ? h->fd : -1, h ? h->timeout_ms : -1, &ready, code);
	if (sig || !h)
		return sig ? sig : -1;
	*poll_fd = h->on_wait(h->arg, ready);
	return 0;
}

/* 0, or -errno when the wait could not be set up (nothing waited for). */
static int wait_loop(struct reaper *r, const sigset_t *wait_set, bool follow,
		     const struct child_hooks *h)
{
	bool poll_fd = h && h->fd >= 0;
	struct sig_wait w;
	int ret = sig_wait_open(&w, wait_set);

	if (ret)
		return ret;
	for (;;) {
		int sig, code;

		reap(r);
		if (r->command_done && (!follow || r->none_left))
			break;
		sig = next_signal(&w, h, &poll_fd, &code);
		if (sig <= 0 || sig == SIGCHLD)
			continue;
		if (!r->command_done) {
			forward(r, sig, code);
		} else {
			r->res->stopped_waiting = true;
			break;
		}
	}
	r->res->orphans_left = r->some_running;
	sig_wait_close(&w);
	return 0;
}

int child_run(char *const argv[], bool follow, void (*before_exec)(void *arg), void *arg,
	      struct child_result *res)
{
	return child_run_hooked(argv, follow, before_exec, arg, NULL, res);
}

/* Lets the child exec, or (ret non-zero) kills it before it does. */
static void release_child(struct reaper *r, int go_fd, int ret)
{
	if (go_fd < 0)
		return;
	if (ret) {
		char c = 0;

		if (write(go_fd, &c, 1) < 0)
			kill(r->command, SIGKILL);
	}
	close(go_fd);
}

int child_run_hooked(char *const argv[], bool follow, void (*before_exec)(void *arg),
		     void *arg, const struct child_hooks *hooks, struct child_result *res)
{
	struct reaper r = { .res = res };
	struct rusage before, after;
	sigset_t wait_set, old_mask;
	int err_pipe[2], go_pipe[2] = { -1, -1 }, ret = 0;
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
	if (hooks && hooks->after_fork && pipe2(go_pipe, O_CLOEXEC)) {
		ret = -errno;
		close(err_pipe[0]);
		close(err_pipe[1]);
		goto out;
	}
	getrusage(RUSAGE_CHILDREN, &before);
	r.start = now();
	r.command = fork();
	if (r.command < 0) {
		ret = -errno;
		close(err_pipe[0]);
		close(err_pipe[1]);
		if (go_pipe[0] >= 0) {
			close(go_pipe[0]);
			close(go_pipe[1]);
		}
		goto out;
	}
	if (r.command == 0) {
		close(err_pipe[0]);
		if (go_pipe[1] >= 0)
			close(go_pipe[1]);
		exec_child(argv, &old_mask, err_pipe[1], go_pipe[0], before_exec, arg);
	}
	close(err_pipe[1]);
	if (go_pipe[0] >= 0) {
		close(go_pipe[0]);
		ret = hooks->after_fork(r.command, hooks->arg);
		release_child(&r, go_pipe[1], ret);
		if (ret) {
			close(err_pipe[0]);
			while (waitpid(r.command, NULL, 0) < 0 && errno == EINTR)
				;
			goto out;
		}
	}
	res->exec_errno = exec_result(err_pipe[0]);
	close(err_pipe[0]);
	ret = wait_loop(&r, &wait_set, follow && !res->exec_errno, hooks);
	if (ret) {
		/* nothing to wait with: the command must not run on unwatched */
		kill(r.command, SIGKILL);
		while (waitpid(r.command, NULL, 0) < 0 && errno == EINTR)
			;
		goto out;
	}
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
