// SPDX-License-Identifier: GPL-2.0
/*
 * ktau_ctl — ktau-ctl against the real /proc/ktau/control, each effect
 * checked by reading the control file and the own profile directly (ktr):
 *   status        its lines agree with the file's state/groups lines
 *   stop, start   the file's state follows; getpid made while stopped
 *                 are not counted, after start exactly
 *   disable G..   the file's groups lose exactly those; enable all back
 *   clear         the own getpid count is 0 right after, then exact
 *   enable bogus  exit 2, the kernel's group list in the message, nothing
 *                 changed
 *   as nobody     exit 1 with the root-only message, nothing changed
 *   no ktau       (KTAU_PROCFS at an empty directory) exit 1, says so
 *   bad option    exit 2
 * Run after the other tests (run-all.sh); the state other tests expect
 * (start, enable all) is written back at the end, on exit and on signals.
 */
#define _GNU_SOURCE
#include "ktr.h"
#include "toolrun.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define KTAU_CTL TOOL_DIR "/ktau-ctl"

static void raw_ctl(const char *s)
{
	int fd = open(KTR_CONTROL, O_WRONLY);

	if (fd >= 0) {
		if (write(fd, s, strlen(s)) < 0) {
			/* nothing more to do */
		}
		close(fd);
	}
}

static void restore(void)
{
	raw_ctl("start");
	raw_ctl("enable all");
}

static void on_signal(int sig)
{
	static const char msg[] = "FAIL: ktau_ctl/signal: killed by a signal; "
				  "restored start + enable all\n";

	restore();
	if (write(1, msg, sizeof(msg) - 1) < 0) {
		/* nothing */
	}
	_exit(128 + sig);
}

/* ktau-ctl ARGS... (NULL-terminated); -1 on a failure to run (FAIL printed). */
static int ctl(const char *check, struct tool_result *r, int as_nobody, char *const env[],
	       const char *a1, const char *a2, const char *a3)
{
	char *argv[] = { KTAU_CTL, (char *)a1, (char *)a2, (char *)a3, NULL };

	return tool_run(check, argv, env, as_nobody, r);
}

/* A line of the control file, e.g. "state" -> "running"; "" if absent. */
static void field(const char *key, char *out, size_t len)
{
	char *t = ktr_ctl_read();

	if (!t || ktr_ctl_field(t, key, out, len))
		snprintf(out, len, "%s", "");
	free(t);
}

static char tpath[64];

static long long own_getpid(void)
{
	struct ktr_profile p;
	struct ktr_block *b;
	uint64_t g = 0;

	if (ktr_load(tpath, 1, &p, "own-profile"))
		return -1;
	b = ktr_block_kind(&p, "thread", 0);
	ktr_func(b, "getpid", &g, NULL, NULL);
	ktr_free(&p);
	return b ? (long long)g : -1;
}

static void getpids(int n)
{
	for (int i = 0; i < n; i++)
		syscall(SYS_getpid);
}

/* A command that must succeed silently. */
static int quiet_ok(const char *check, const char *a1, const char *a2, const char *a3)
{
	struct tool_result r;
	int ok;

	if (ctl(check, &r, 0, NULL, a1, a2, a3))
		return 0;
	ok = r.status == 0 && !r.out[0] && !r.err[0];
	if (!ok)
		ktr_fail(check, "ktau-ctl %s %s: exit status %d, stdout '%s', stderr '%s'; "
			 "expected 0 and no output", a1, a2 ? a2 : "", r.status, r.out, r.err);
	tool_result_free(&r);
	return ok;
}

static void check_status(void)
{
	struct tool_result r;
	char groups[256], line[512], want[300];

	if (ctl("status", &r, 0, NULL, "status", NULL, NULL))
		return;
	field("groups", groups, sizeof(groups));
	snprintf(want, sizeof(want), "enabled groups: %s", groups);
	ktr_check(r.status == 0 && tool_line(r.out, "recording: running", line, sizeof(line)) &&
		  tool_line(r.out, want, line, sizeof(line)) &&
		  !strcmp(line, want) &&
		  tool_line(r.out, "disabled groups: none", line, sizeof(line)),
		  "status", "exit status %d; stdout '%s'; expected 'recording: running', '%s', "
		  "'disabled groups: none'", r.status, r.out, want);
	tool_result_free(&r);
}

static void check_stop_start(void)
{
	char state[64];
	long long g0, g;

	if (!quiet_ok("stop", "stop", NULL, NULL))
		return;
	field("state", state, sizeof(state));
	ktr_check(!strcmp(state, "stopped"), "stop-state", "after 'ktau-ctl stop' the file "
		  "says 'state %s', expected stopped", state);
	g0 = own_getpid();
	getpids(100);
	g = own_getpid();
	ktr_check(g0 >= 0 && g == g0, "stop-not-counted", "getpid count went from %lld to %lld "
		  "across 100 calls while stopped, expected no change", g0, g);
	if (!quiet_ok("start", "start", NULL, NULL))
		return;
	field("state", state, sizeof(state));
	ktr_check(!strcmp(state, "running"), "start-state", "after 'ktau-ctl start' the file "
		  "says 'state %s', expected running", state);
	getpids(50);
	g = own_getpid();
	ktr_check(g == g0 + 50, "start-counted", "getpid count %lld after start + 50 calls, "
		  "expected %lld", g, g0 + 50);
}

static void check_groups(void)
{
	char groups[256];

	if (!quiet_ok("disable", "disable", "softirq", "irq"))
		return;
	field("groups", groups, sizeof(groups));
	ktr_check(!strcmp(groups, "syscall sched exception kernel event"), "disable-groups",
		  "after 'ktau-ctl disable softirq irq' the file says 'groups %s', expected "
		  "'syscall sched exception kernel event'", groups);
	if (!quiet_ok("enable-all", "enable", "all", NULL))
		return;
	field("groups", groups, sizeof(groups));
	ktr_check(!strcmp(groups, "syscall softirq irq sched exception kernel event"),
		  "enable-all-groups", "after 'ktau-ctl enable all' the file says 'groups %s'",
		  groups);
}

static void check_clear(void)
{
	long long g;

	getpids(100);
	if (!quiet_ok("clear", "clear", NULL, NULL))
		return;
	g = own_getpid();
	ktr_check(g == 0, "clear-zero", "own getpid count %lld right after 'ktau-ctl clear', "
		  "expected 0", g);
	getpids(37);
	g = own_getpid();
	ktr_check(g == 37, "clear-then-exact", "own getpid count %lld after clear + 37 calls, "
		  "expected 37", g);
}

static void check_unknown_group(void)
{
	struct tool_result r;
	char before[256], after[256], available[256], want[400];

	field("groups", before, sizeof(before));
	field("available", available, sizeof(available));
	if (ctl("unknown-group", &r, 0, NULL, "disable", "irq", "bogus"))
		return;
	field("groups", after, sizeof(after));
	snprintf(want, sizeof(want), "ktau-ctl: unknown group 'bogus'; this kernel has: %s "
		 "(or all)\n", available);
	ktr_check(r.status == 2 && !strcmp(r.err, want) && !strcmp(before, after),
		  "unknown-group", "exit status %d (expected 2), stderr '%s' (expected '%s'), "
		  "groups '%s' -> '%s' (expected no change)", r.status, r.err, want, before,
		  after);
	tool_result_free(&r);
}

static void check_nobody(void)
{
	static const char msg[] = "ktau-ctl: permission denied: /proc/ktau/control is "
				  "root-only (run as root)\n";
	struct tool_result r;
	char state[64];

	if (!ctl("nobody-status", &r, 1, NULL, "status", NULL, NULL)) {
		ktr_check(r.status == 1 && !strcmp(r.err, msg), "nobody-status",
			  "as uid %d: exit status %d, stderr '%s'; expected 1 and '%s'", NOBODY,
			  r.status, r.err, msg);
		tool_result_free(&r);
	}
	if (!ctl("nobody-stop", &r, 1, NULL, "stop", NULL, NULL)) {
		field("state", state, sizeof(state));
		ktr_check(r.status == 1 && !strcmp(r.err, msg) && !strcmp(state, "running"),
			  "nobody-stop", "as uid %d: exit status %d, stderr '%s', state now %s; "
			  "expected 1, '%s', running", NOBODY, r.status, r.err, state, msg);
		tool_result_free(&r);
	}
}

static void check_no_ktau_and_usage(void)
{
	char *env[] = { "KTAU_PROCFS=" NO_KTAU_ROOT, NULL };
	struct tool_result r;

	mkdir(NO_KTAU_ROOT, 0755);
	if (!ctl("no-ktau", &r, 0, env, "status", NULL, NULL)) {
		ktr_check(r.status == 1 && !strcmp(r.err, "ktau-ctl: this kernel has no ktau "
						   "support (no /proc/ktau): boot a kernel "
						   "built with CONFIG_KTAU\n"),
			  "no-ktau", "exit status %d, stderr '%s'", r.status, r.err);
		tool_result_free(&r);
	}
	if (!ctl("bad-option", &r, 0, NULL, "--bogus", NULL, NULL)) {
		ktr_check(r.status == 2 && strstr(r.err, "unknown option '--bogus'"),
			  "bad-option", "exit status %d (expected 2), stderr '%s'", r.status, r.err);
		tool_result_free(&r);
	}
}

int main(void)
{
	ktr_init("ktau_ctl");
	snprintf(tpath, sizeof(tpath), "/proc/self/task/%ld/ktau", (long)syscall(SYS_gettid));
	if (geteuid() != 0 || access(KTAU_CTL, X_OK)) {
		ktr_fail("setup", "needs root and %s (euid %d): %s", KTAU_CTL, (int)geteuid(),
			 strerror(errno));
		return ktr_exit();
	}
	atexit(restore);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGALRM, on_signal);
	alarm(50);
	restore();

	check_status();
	check_stop_start();
	check_groups();
	check_clear();
	check_unknown_group();
	check_nobody();
	check_no_ktau_and_usage();
	restore();
	return ktr_exit();
}
