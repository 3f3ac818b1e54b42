// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Known nested timers in two threads, for trace mode (KTAU_TRACE=1):
 *
 *   main thread:  main { setup { } ... } around the two workers
 *   worker W:     "worker W" { STEPS x step { inner { } inner { } } }
 *                 (inner: a KTAU_SCOPE)
 *
 * so the main thread has 4 events and each worker 2 + STEPS * 6. A timer
 * "never started" is created and never used. With the argument "fork",
 * the main thread then forks a child that times "child" once and exits.
 * Prints "pid=P child=C" (C 0 without fork) and exits with 3: a status
 * of its own, that a test can tell from the profiler's doing.
 */
#define _POSIX_C_SOURCE 200809L
#include <ktau-prof.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define STEPS 50

static void *worker(void *arg)
{
	struct ktau_timer *whole = ktau_timer_get(arg, NULL);
	struct ktau_timer *step = ktau_timer_get("step", NULL);

	ktau_timer_start(whole);
	for (int i = 0; i < STEPS; i++) {
		ktau_timer_start(step);
		for (int j = 0; j < 2; j++) {
			KTAU_SCOPE("inner");
		}
		ktau_timer_stop(step);
	}
	ktau_timer_stop(whole);
	return NULL;
}

static pid_t fork_child(void)
{
	struct ktau_timer *child = ktau_timer_get("child", NULL);
	pid_t pid;
	int status;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		ktau_timer_start(child);
		ktau_timer_stop(child);
		exit(0);	/* the exit handler writes the child's trace */
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "traced: the child failed\n");
		exit(1);
	}
	return pid;
}

int main(int argc, char **argv)
{
	struct ktau_timer *main_timer = ktau_timer_get("main", NULL);
	struct ktau_timer *setup = ktau_timer_get("setup", NULL);
	pthread_t th[2];
	pid_t child = 0;

	ktau_timer_get("never started", NULL);
	ktau_timer_start(main_timer);
	ktau_timer_start(setup);
	ktau_timer_stop(setup);
	if (pthread_create(&th[0], NULL, worker, "worker 0") ||
	    pthread_create(&th[1], NULL, worker, "worker 1"))
		return 1;
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	ktau_timer_stop(main_timer);
	if (argc > 1 && !strcmp(argv[1], "fork"))
		child = fork_child();
	printf("pid=%d child=%d\n", (int)getpid(), (int)child);
	return 3;
}
