/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Running a command as a child subreaper's child, the way ktau-run needs
 * it: every descendant that ends is reaped by someone in the tree (so its
 * kernel profile folds up into the caller's children total), signals sent
 * to the caller reach the command, and the command's status comes back.
 */
#ifndef KTAU_TOOLS_CHILD_RUN_H
#define KTAU_TOOLS_CHILD_RUN_H

#include <stdbool.h>
#include <sys/resource.h>

struct child_result {
	int status;		/* the command's wait status */
	int exec_errno;		/* non-zero: the command could not be executed */
	bool orphans_left;	/* descendants were still running at the end */
	bool stopped_waiting;	/* --follow wait cut short by a signal */
	double wall_seconds;	/* from fork to the command's end */
	struct rusage rusage;	/* of all descendants reaped meanwhile */
};

/*
 * Runs argv (execvp) and waits for it to end, then reaps the descendants
 * that ended too; with follow, also waits for every orphaned descendant
 * (reparented to the caller) to end, until a SIGINT, SIGTERM, SIGHUP or
 * SIGQUIT arrives after the command has ended. Those signals, sent to the
 * caller while the command runs, are forwarded to it, unless the terminal
 * sent them (the whole foreground process group got them already).
 * before_exec(arg), if not NULL, runs in the child just before execvp.
 * Those signals and SIGCHLD stay blocked on return, so that one arriving as
 * the command ends cannot kill the caller before it reports.
 * 0, or -errno when the caller could not set up or fork.
 */
int child_run(char *const argv[], bool follow, void (*before_exec)(void *arg), void *arg,
	      struct child_result *res);

/*
 * What a caller that works while the command runs (ktau-trace) adds to
 * child_run(): after_fork(pid, arg) runs in the caller once the child
 * exists and before it may exec (the child waits on a pipe), so that the
 * caller can name its pid to the kernel first; non-zero kills the child
 * and child_run_hooked() returns it. While waiting, the caller's fd (or
 * -1) is polled with the signals: on_wait(arg, ready) runs when fd is
 * readable (ready) or every timeout_ms (not ready), and returns whether
 * fd should still be polled (false: it was idle; only the timeout next).
 */
struct child_hooks {
	int (*after_fork)(pid_t pid, void *arg);
	int fd;
	int timeout_ms;
	bool (*on_wait)(void *arg, bool ready);
	void *arg;
};

int child_run_hooked(char *const argv[], bool follow, void (*before_exec)(void *arg),
		     void *arg, const struct child_hooks *hooks, struct child_result *res);

/* The shell's number for a wait status: the exit code, or 128 + signal. */
int child_exit_code(int status);

#endif
