// SPDX-License-Identifier: GPL-2.0
/*
 * selftests — the kernel's KTAU selftests (kselftest harness,
 * kernel-ext/tools/testing/selftests/ktau/ktau_test.c, installed next to
 * this program as ktau_test), run as this suite's checks.  Their TAP
 * lines become
 *   ok N NAME             PASS: selftests/NAME
 *   ok N NAME # SKIP why  SKIP: selftests/NAME: why
 *   not ok N NAME         FAIL: selftests/NAME: the harness's diagnostics
 *                         of that test (its "# file:line:..." lines)
 * and the run itself fails (selftests/run) when the program is missing,
 * is killed, exits non-zero without a failed test, or reports fewer
 * tests than its plan ("1..N").
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define DIAG_MAX 480

/*
 * The diagnostics of the test running: its "# " lines since the harness's
 * "RUN NAME ...", but the harness's own.
 */
static char diag[DIAG_MAX];

static void diag_add(const char *line)
{
	size_t len = strlen(diag);

	if (!strncmp(line, "RUN ", 4)) {
		diag[0] = '\0';
		return;
	}
	if (!strncmp(line, "OK ", 3) || !strncmp(line, "FAIL ", 5) ||
	    !strncmp(line, "SKIP ", 5))
		return;
	if (len + 4 >= sizeof(diag))
		return;
	snprintf(diag + len, sizeof(diag) - len, "%s%s", len ? " | " : "", line);
}

/*
 * One TAP result line ("ok N NAME[ # DIRECTIVE]" or "not ok ..."): its
 * verdict.  Returns 1 if it was one, else 0.
 */
static int result_line(char *line)
{
	int ok = !strncmp(line, "ok ", 3);
	char *name, *directive;

	if (!ok && strncmp(line, "not ok ", 7))
		return 0;
	name = line + (ok ? 3 : 7);
	name += strspn(name, "0123456789");
	name += strspn(name, " ");
	directive = strstr(name, " #");
	if (directive) {
		*directive = '\0';
		directive += 2;
		directive += strspn(directive, " ");
	}
	if (!*name)
		name = "unnamed";
	if (ok && directive && !strncmp(directive, "SKIP", 4))
		ktr_skip(name, "%s", directive[4] ? directive + 5 : "no reason given");
	else if (ok && directive && !strncmp(directive, "XPASS", 5))
		ktr_fail(name, "passed, but is marked as expected to fail");
	else if (ok)
		ktr_pass(name);
	else
		ktr_fail(name, "%s%s%s", diag[0] ? diag : "no diagnostics",
			 directive && *directive ? " | " : "",
			 directive ? directive : "");
	diag[0] = '\0';
	return 1;
}

int main(void)
{
	char self[PATH_MAX], prog[PATH_MAX + 16];
	int results = 0, plan = -1, fds[2], status;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *out;
	pid_t pid;

	ktr_init("selftests");
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0) {
		ktr_fail("run", "readlink(/proc/self/exe): %s", strerror(errno));
		return ktr_exit();
	}
	self[n] = '\0';
	snprintf(prog, sizeof(prog), "%s/ktau_test", dirname(self));
	if (access(prog, X_OK)) {
		ktr_fail("run", "%s: %s (tests/guest/Makefile builds it)", prog,
			 strerror(errno));
		return ktr_exit();
	}
	if (pipe(fds)) {
		ktr_fail("run", "pipe: %s", strerror(errno));
		return ktr_exit();
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		ktr_fail("run", "fork: %s", strerror(errno));
		return ktr_exit();
	}
	if (pid == 0) {
		close(fds[0]);
		dup2(fds[1], STDOUT_FILENO);
		dup2(fds[1], STDERR_FILENO);
		close(fds[1]);
		execl(prog, prog, (char *)NULL);
		printf("Bail out! exec %s: %s\n", prog, strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	out = fdopen(fds[0], "r");
	if (!out) {
		ktr_fail("run", "fdopen: %s", strerror(errno));
		return ktr_exit();
	}
	while ((n = getline(&line, &cap, out)) > 0) {
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (!strncmp(line, "1..", 3)) {
			plan = atoi(line + 3);
			if (plan == 0 && strstr(line, "# SKIP"))
				ktr_skip("all", "%s", strstr(line, "# SKIP") + 6);
		} else if (!strncmp(line, "# ", 2)) {
			diag_add(line + 2 + strspn(line + 2, " "));
		} else if (!strncmp(line, "Bail out!", 9)) {
			ktr_fail("run", "%s", line);
		} else {
			results += result_line(line);
		}
	}
	free(line);
	fclose(out);
	if (waitpid(pid, &status, 0) != pid) {
		ktr_fail("run", "waitpid: %s", strerror(errno));
	} else if (WIFSIGNALED(status)) {
		ktr_fail("run", "ktau_test was killed by signal %d after %d results",
			 WTERMSIG(status), results);
	} else if (plan < 0) {
		ktr_fail("run", "ktau_test printed no plan (1..N); exit status %d",
			 WEXITSTATUS(status));
	} else if (results != plan) {
		ktr_fail("run", "ktau_test reported %d tests of its plan of %d; exit status %d",
			 results, plan, WEXITSTATUS(status));
	} else if (WEXITSTATUS(status) && !ktr_failed &&
		   !(plan == 0 && WEXITSTATUS(status) == 4)) {	/* KSFT_SKIP */
		ktr_fail("run", "ktau_test exited with status %d, no test failed",
			 WEXITSTATUS(status));
	} else {
		ktr_info("run", "%d tests, exit status %d", results,
			 WEXITSTATUS(status));
	}
	return ktr_exit();
}
