// SPDX-License-Identifier: GPL-2.0
/*
 * setuid — a privileged program's timings never reach its unprivileged
 * owner.  User nobody starts /guest/setuid_helper (a copy of this program,
 * set-user-ID root), which:
 *   - makes 300 getppid() as euid 0: nobody cannot read its profile then
 *     (EACCES, the ptrace rule);
 *   - drops to nobody entirely and execs this program again ("after"),
 *     which finds no getppid() in its own profile: a privileged exec and
 *     any later exec start the profile afresh;
 * and when nobody reaps it, its children block counts it (processes=1,
 * private=1) without its profile: no getppid().
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOBODY 65534
#define HELPER "/guest/setuid_helper"

static uint64_t func_calls(const char *path, const char *kind, const char *name,
			   struct ktr_block *out)
{
	struct ktr_profile p;
	struct ktr_block *b;
	uint64_t calls = UINT64_MAX;

	if (ktr_load(path, 0, &p, "load"))
		return calls;
	b = ktr_block_kind(&p, kind, 0);
	if (b) {
		ktr_func(b, name, &calls, NULL, NULL);
		if (out)
			*out = *b;
	}
	ktr_free(&p);
	return calls;
}

/* The helper, running set-user-ID root. */
static int helper_priv(void)
{
	char c;

	for (int i = 0; i < 300; i++)
		syscall(SYS_getppid);
	/* tell nobody we are privileged and busy; wait for its read attempt */
	if (write(1, "P", 1) != 1 || read(0, &c, 1) != 1)
		return 1;
	if (setresuid(NOBODY, NOBODY, NOBODY))
		return 1;
	execl("/guest/t_setuid", "t_setuid", "after", NULL);
	return 1;
}

/* After the privileged program dropped its privileges and exec'd. */
static int helper_after(void)
{
	uint64_t calls = func_calls("/proc/self/ktau", "process", "getppid", NULL);
	char line[64];
	int n = snprintf(line, sizeof(line), "A%" PRIu64 "\n", calls);

	return write(1, line, n) == n ? 0 : 1;
}

/* nobody's side: start the helper, probe it, reap it, report to root. */
static int owner(int report)
{
	int to[2], from[2], st, n, denied;
	struct ktr_block kids;
	uint64_t after = UINT64_MAX, kid_calls;
	char path[64], buf[64], line[160];
	FILE *f;
	pid_t h;

	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY) || pipe(to) || pipe(from))
		return 2;
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	h = fork();
	if (h == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		execl(HELPER, "setuid_helper", "priv", NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	if (read(from[0], buf, 1) != 1 || buf[0] != 'P')
		return 3;
	snprintf(path, sizeof(path), "/proc/%d/ktau", (int)h);
	f = fopen(path, "r");
	denied = !f && errno == EACCES;
	if (f)
		fclose(f);
	if (write(to[1], "g", 1) != 1)
		return 3;
	n = read(from[0], buf, sizeof(buf) - 1);
	if (n > 1 && buf[0] == 'A') {
		buf[n] = '\0';
		after = strtoull(buf + 1, NULL, 10);
	}
	waitpid(h, &st, 0);
	memset(&kids, 0, sizeof(kids));
	kid_calls = func_calls("/proc/self/ktau", "children", "getppid", &kids);
	n = snprintf(line, sizeof(line), "%d %" PRIu64 " %ld %ld %" PRIu64 " %d\n", denied, after,
		     kids.processes, kids.private_processes, kid_calls, st);
	return write(report, line, n) == n ? 0 : 4;
}

int main(int argc, char **argv)
{
	long processes = -1, private = -1;
	uint64_t after = 0, kid_calls = 0;
	int fds[2], denied = 0, hst = -1, st;
	char buf[160] = "";
	pid_t o;

	if (argc == 2 && !strcmp(argv[1], "priv"))
		return helper_priv();
	if (argc == 2 && !strcmp(argv[1], "after"))
		return helper_after();
	ktr_init("setuid");
	if (access(HELPER, X_OK)) {
		ktr_fail("helper", "%s: %s (tests/qemu/mkinitramfs.sh installs it set-user-ID root)",
			 HELPER, strerror(errno));
		return ktr_exit();
	}
	if (pipe(fds)) {
		ktr_fail("pipe", "%s", strerror(errno));
		return ktr_exit();
	}
	o = fork();
	if (o == 0) {
		close(fds[0]);
		_exit(owner(fds[1]));
	}
	close(fds[1]);
	if (read(fds[0], buf, sizeof(buf) - 1) <= 0 ||
	    sscanf(buf, "%d %" SCNu64 " %ld %ld %" SCNu64 " %d", &denied, &after, &processes,
		   &private, &kid_calls, &hst) != 6) {
		waitpid(o, &st, 0);
		ktr_fail("owner", "user nobody's process reported nothing (status %#x)", st);
		return ktr_exit();
	}
	waitpid(o, &st, 0);
	ktr_check(denied, "privileged-hidden",
		  "nobody could open the profile of its set-user-ID child while it ran as root");
	ktr_check(after == 0, "exec-starts-afresh",
		  "after dropping privileges and exec'ing, the profile still shows %" PRIu64
		  " getppid() of the privileged phase, expected 0", after);
	ktr_check(processes == 1 && private == 1, "children-count",
		  "nobody's children block: processes=%ld private=%ld, expected 1 and 1",
		  processes, private);
	ktr_check(kid_calls == 0, "children-no-profile",
		  "nobody's children block shows %" PRIu64 " getppid() of the privileged child, "
		  "expected 0 (its totals only)", kid_calls);
	ktr_check(WIFEXITED(hst) && !WEXITSTATUS(hst), "helper", "the helper ended with %#x", hst);
	return ktr_exit();
}
