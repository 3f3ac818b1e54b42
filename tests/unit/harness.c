// SPDX-License-Identifier: GPL-2.0-or-later
/* The runner: forks one child per test, prints PASS/FAIL/SKIP lines. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define TEST_TIMEOUT_SECONDS 20

static struct test_case *first, **last = &first;

void test_register(struct test_case *tc)
{
	*last = tc;
	last = &tc->next;
}

void test_fail(struct test_ctx *t, const char *file, int line, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	t->failed = 1;
	n = (size_t)snprintf(t->reason, sizeof(t->reason), "%s:%d: ", file, line);
	if (n >= sizeof(t->reason))
		return;
	va_start(ap, fmt);
	vsnprintf(t->reason + n, sizeof(t->reason) - n, fmt, ap);
	va_end(ap);
}

/* A second reason (SKIP_PART() more than once) comes after the first. */
void test_skip(struct test_ctx *t, const char *fmt, ...)
{
	size_t n = t->skipped ? strlen(t->reason) : 0;
	va_list ap;

	if (n && n + 2 < sizeof(t->reason)) {
		memcpy(t->reason + n, "; ", 3);
		n += 2;
	}
	t->skipped = 1;
	va_start(ap, fmt);
	vsnprintf(t->reason + n, sizeof(t->reason) - n, fmt, ap);
	va_end(ap);
}

const char *test_fixture(const char *name)
{
	static char path[4096];
	const char *dir = getenv("FIXTURES");

	snprintf(path, sizeof(path), "%s/%s", dir ? dir : "fixtures", name);
	return path;
}

/* FAIL lines are one line: no newlines inside the reason. */
static void flatten(char *s)
{
	for (; *s; s++)
		if (*s == '\n' || *s == '\r')
			*s = ' ';
}

static void run_child(struct test_case *tc)
{
	struct test_ctx t = { 0 };

	alarm(TEST_TIMEOUT_SECONDS);
	tc->fn(&t);
	if (t.failed) {
		flatten(t.reason);
		printf("FAIL: %s: %s\n", tc->name, t.reason);
		fflush(stdout);
		/* _exit: an assertion returns early, leaking on purpose */
		_exit(3);
	}
	if (t.skipped) {
		flatten(t.reason);
		printf("SKIP: %s: %s\n", tc->name, t.reason);
		fflush(stdout);
		exit(4);	/* a skipped test frees what it holds too */
	}
	/* exit(), not _exit(): LeakSanitizer checks at exit */
	exit(0);
}

static void run_one(struct test_case *tc)
{
	int status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		printf("FAIL: %s: fork: %s\n", tc->name, strerror(errno));
		return;
	}
	if (pid == 0)
		run_child(tc);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			printf("FAIL: %s: waitpid: %s\n", tc->name, strerror(errno));
			return;
		}
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		printf("PASS: %s\n", tc->name);
	else if (WIFEXITED(status) && (WEXITSTATUS(status) == 3 || WEXITSTATUS(status) == 4))
		;	/* the child printed its FAIL or SKIP line */
	else if (WIFEXITED(status))
		printf("FAIL: %s: exited with status %d (sanitizer report on stderr?)\n",
		       tc->name, WEXITSTATUS(status));
	else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		printf("FAIL: %s: timed out after %d s\n", tc->name, TEST_TIMEOUT_SECONDS);
	else
		printf("FAIL: %s: killed by signal %d (%s)\n", tc->name,
		       WTERMSIG(status), strsignal(WTERMSIG(status)));
}

int main(int argc, char **argv)
{
	struct test_case *tc;

	/* an optional argument runs only the tests whose name contains it */
	for (tc = first; tc; tc = tc->next)
		if (argc < 2 || strstr(tc->name, argv[1]))
			run_one(tc);
	return 0;
}
