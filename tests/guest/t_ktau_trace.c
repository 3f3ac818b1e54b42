// SPDX-License-Identifier: GPL-2.0
/*
 * ktau_trace: ktau-trace, ktau-export -f perfetto and ktau-report --noise
 * on the real kernel, with this program as the workload
 * (`t_ktau_trace --workload`): a user timer "outer" (libktau-prof, traced
 * through KTAU_TRACE=1, which ktau-trace sets) around 100 getppid() calls,
 * then a child that makes 10 and exits; the workload exits with status 5.
 *
 * The Perfetto JSON is scanned here line by line (one event per line): the
 * workload's thread has exactly 100 getppid slices, all inside the one
 * "outer" user slice; the child's, 10; begins and ends balance and time
 * never goes back on any thread.  And: the exit status passed through,
 * the summary line, --noise naming the workload's thread, refusals
 * (nobody, no command, a bad size).
 *
 * And the drain while the command runs: `--rounds` makes 80 rounds of
 * 100 getppid() calls and a 2 ms sleep, 16 000 events and more, into a
 * 16 KiB buffer (1 024 units, a reader woken at 512).  Read only at the
 * end (as on kernels without signalfd, such as this guest's, before
 * ktau-trace polled), at most 1 024 of them are kept: 94 % lost.  Read
 * while the command runs, every one is, as long as the reader runs
 * within two rounds of its wake: ktau-trace and the command share one
 * CPU, so the reader runs in the sleep after the round that woke it.
 * That is the scheduler's doing, and on a loaded host the guest's clock
 * can outrun the reader (stop 44's CI lost 1 236 events with the two on
 * different vCPUs, 50 on one): so the checks are that fewer than 5 % are
 * lost, and that the trace has every call of the command but those the
 * lost events took (every one when none was lost).  The same with --all,
 * stopped by SIGINT: exit 0, the summary.
 */
#define _GNU_SOURCE
#include "ktr.h"
#include "toolrun.h"

#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <ktau-prof.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KTAU_TRACE TOOL_DIR "/ktau-trace"
#define KTAU_EXPORT TOOL_DIR "/ktau-export"
#define KTAU_REPORT TOOL_DIR "/ktau-report"
#define TRACE_OUT "/tmp/t_ktau_trace.ktt"
#define JSON_OUT "/tmp/t_ktau_trace.json"
#define PIDS_OUT "/tmp/t_ktau_trace.pids"
#define CALLS 100
#define CHILD_CALLS 10
#define WORKLOAD_STATUS 5
#define ALL_OUT "/tmp/t_ktau_trace.all.ktt"
#define ALL_ERR "/tmp/t_ktau_trace.all.err"
#define ROUNDS 80
#define ROUND_CALLS 100

static int workload(void)
{
	struct ktau_timer *outer = ktau_timer_get("outer", NULL);
	FILE *f = fopen(PIDS_OUT, "w");
	pid_t child;

	if (!outer || !f)
		return 3;
	ktau_timer_start(outer);
	for (int i = 0; i < CALLS; i++)
		syscall(SYS_getppid);
	ktau_timer_stop(outer);
	child = fork();
	if (!child) {
		for (int i = 0; i < CHILD_CALLS; i++)
			syscall(SYS_getppid);
		_exit(0);
	}
	fprintf(f, "%d %d\n", (int)getpid(), (int)child);
	fclose(f);
	waitpid(child, NULL, 0);
	return WORKLOAD_STATUS;
}

/* Events in bursts that fill a 16 KiB buffer many times over. */
static int rounds(void)
{
	const struct timespec ms = { .tv_nsec = 2000000 };

	for (int i = 0; i < ROUNDS; i++) {
		for (int j = 0; j < ROUND_CALLS; j++)
			syscall(SYS_getppid);
		nanosleep(&ms, NULL);
	}
	return 0;
}

/* What the JSON says of one thread. */
struct thread_view {
	long tid;
	size_t begins, ends, getppid, outer, outer_open_getppid;
	int backwards, outer_user;
	double last_ts;
	int outer_depth, depth;
};

static void scan_line(const char *line, struct thread_view *v)
{
	char ph;
	long pid, tid;
	double ts;
	const char *name;

	if (sscanf(line, "{\"ph\":\"%c\",\"pid\":%ld,\"tid\":%ld,\"ts\":%lf", &ph, &pid, &tid,
		   &ts) != 4 || tid != v->tid || (ph != 'B' && ph != 'E'))
		return;
	if (ts < v->last_ts)
		v->backwards = 1;
	v->last_ts = ts;
	if (ph == 'E') {
		v->ends++;
		if (v->depth == v->outer_depth)
			v->outer_depth = -1;
		v->depth--;
		return;
	}
	v->begins++;
	v->depth++;
	name = strstr(line, "\"name\":\"");
	if (!name)
		return;
	name += 8;
	if (!strncmp(name, "getppid\"", 8)) {
		v->getppid++;
		v->outer_open_getppid += v->outer_depth >= 0 && v->depth > v->outer_depth;
	} else if (!strncmp(name, "outer\"", 6)) {
		v->outer++;
		v->outer_depth = v->depth;
		v->outer_user = strstr(line, "\"cat\":\"user\"") != NULL;
	}
}

static void view_thread(const char *json, long tid, struct thread_view *v)
{
	const char *l;

	memset(v, 0, sizeof(*v));
	v->tid = tid;
	v->outer_depth = -1;
	for (l = json; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		scan_line(l, v);
}

static void check_trace(void)
{
	char self[256], *json, status[512];
	char *argv[] = { KTAU_TRACE, "-o", TRACE_OUT, self, "--workload", NULL };
	char *env[] = { "KTAU_PROFILE_DIR=/tmp/t_ktau_trace.prof", NULL };
	char *exp[] = { KTAU_EXPORT, "-f", "perfetto", TRACE_OUT, "-o", JSON_OUT, NULL };
	char *noise[] = { KTAU_REPORT, "--noise", TRACE_OUT, NULL };
	struct tool_result r;
	struct thread_view w, c;
	long wpid = 0, cpid = 0;
	size_t len;
	FILE *f;

	if (!tool_self_path(self, sizeof(self)))
		return;
	unlink(PIDS_OUT);
	if (tool_run("trace", argv, env, 0, &r))
		return;
	ktr_check(r.status == WORKLOAD_STATUS, "exit-status",
		  "ktau-trace exited %d, expected the workload's %d; stderr: %s", r.status,
		  WORKLOAD_STATUS, r.err);
	ktr_check(tool_line(r.err, "ktau-trace: " TRACE_OUT ":", status, sizeof(status)) &&
		  strstr(status, "events") && strstr(status, " 0 lost"), "summary",
		  "no summary line naming %s with its events and 0 lost: %s", TRACE_OUT, r.err);
	tool_result_free(&r);
	f = fopen(PIDS_OUT, "r");
	if (!f || fscanf(f, "%ld %ld", &wpid, &cpid) != 2) {
		ktr_fail("workload", "the workload wrote no pids to %s", PIDS_OUT);
		if (f)
			fclose(f);
		return;
	}
	fclose(f);

	if (tool_run("export", exp, NULL, 0, &r))
		return;
	ktr_check(r.status == 0, "export", "ktau-export -f perfetto: status %d: %s", r.status,
		  r.err);
	tool_result_free(&r);
	json = ktr_slurp(JSON_OUT, &len);
	if (!json) {
		ktr_fail("json", "%s: %s", JSON_OUT, strerror(errno));
		return;
	}
	view_thread(json, wpid, &w);
	view_thread(json, cpid, &c);
	ktr_check(w.getppid == CALLS && w.outer == 1 && w.outer_user &&
		  w.outer_open_getppid == CALLS, "json-nested",
		  "workload %ld: %zu getppid slices (%zu inside the user slice 'outer'), %zu "
		  "'outer' (user category: %d); expected %d, %d inside, 1, yes", wpid, w.getppid,
		  w.outer_open_getppid, w.outer, w.outer_user, CALLS, CALLS);
	ktr_check(c.getppid == CHILD_CALLS, "json-child",
		  "the workload's child %ld: %zu getppid slices, expected %d", cpid, c.getppid,
		  CHILD_CALLS);
	ktr_check(w.begins == w.ends && c.begins == c.ends && !w.backwards && !c.backwards,
		  "json-balanced", "begins/ends %zu/%zu and %zu/%zu, time backwards %d %d",
		  w.begins, w.ends, c.begins, c.ends, w.backwards, c.backwards);
	free(json);

	if (tool_run("noise", noise, NULL, 0, &r))
		return;
	snprintf(status, sizeof(status), "# thread %ld ", wpid);
	ktr_check(r.status == 0 && strstr(r.out, status), "noise",
		  "ktau-report --noise: status %d, no '%s' line: %s%s", r.status, status, r.out,
		  r.err);
	tool_result_free(&r);
}

/* The tid of the first getppid() slice of a Perfetto export; 0 if none. */
static long first_getppid_tid(const char *json)
{
	const char *line = strstr(json, "\"name\":\"getppid\"");
	long tid;

	while (line && line > json && line[-1] != '\n')
		line--;
	if (!line || sscanf(line, "{\"ph\":\"%*c\",\"pid\":%*d,\"tid\":%ld", &tid) != 1)
		return 0;
	return tid;
}

/*
 * getppid() slices of thread *tid (0: the thread of the first one, set
 * here) in the Perfetto export of trace; 0 when its slices do not balance.
 */
static size_t exported_getppid(const char *check, const char *trace, long *tid)
{
	char *exp[] = { KTAU_EXPORT, "-f", "perfetto", (char *)trace, "-o", JSON_OUT, NULL };
	struct tool_result r;
	struct thread_view v;
	size_t len;
	char *json;

	if (tool_run(check, exp, NULL, 0, &r))
		return 0;
	ktr_check(r.status == 0, check, "ktau-export: status %d: %s", r.status, r.err);
	tool_result_free(&r);
	json = ktr_slurp(JSON_OUT, &len);
	if (!json) {
		ktr_fail(check, "%s: %s", JSON_OUT, strerror(errno));
		return 0;
	}
	if (!*tid)
		*tid = first_getppid_tid(json);
	view_thread(json, *tid, &v);
	free(json);
	return v.begins == v.ends ? v.getppid : 0;
}

static bool tracing_on(void)
{
	size_t len;
	char *text = ktr_slurp("/proc/ktau/control", &len);
	bool on = text && strstr(text, "\ntrace on ");

	free(text);
	return on;
}

/*
 * Runs this thread, and the children it forks, on CPU 0 alone; *saved
 * gets the mask to restore.  Whether it could.
 */
static bool pin_to_cpu0(const char *check, cpu_set_t *saved)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (sched_getaffinity(0, sizeof(*saved), saved) ||
	    sched_setaffinity(0, sizeof(one), &one)) {
		ktr_fail(check, "pinning to CPU 0: %s", strerror(errno));
		return false;
	}
	return true;
}

static void unpin(cpu_set_t *saved)
{
	sched_setaffinity(0, sizeof(*saved), saved);
}

/*
 * The checks of a trace of rounds() (see the top): @status, the
 * summary's line, or NULL when there was none.
 */
static void check_rounds_trace(const char *prefix, const char *status, const char *trace,
			       long tid)
{
	unsigned long long events = 0, lost = 0;
	const char *p = status ? strstr(status, trace) : NULL;
	char check[64];
	size_t calls;

	snprintf(check, sizeof(check), "%s-read-while-running", prefix);
	if (!p || sscanf(p + strlen(trace), ": %llu events", &events) != 1 ||
	    !(p = strstr(p, "bytes, ")) || sscanf(p, "bytes, %llu lost", &lost) != 1) {
		ktr_fail(check, "no summary line: %s", status ? status : "(none)");
		return;
	}
	ktr_check(events >= 2 * ROUNDS * ROUND_CALLS && lost * 20 < events + lost, check,
		  "%llu events kept, %llu lost, of %d and more made into a buffer of 1 024: "
		  "under 5 %% lost only if it was read while the command ran", events, lost,
		  2 * ROUNDS * ROUND_CALLS);
	if (lost)
		ktr_info(check, "%llu events lost (the reader ran late)", lost);
	snprintf(check, sizeof(check), "%s-export", prefix);
	calls = exported_getppid(check, trace, &tid);
	snprintf(check, sizeof(check), "%s-every-call", prefix);
	ktr_check(calls <= ROUNDS * ROUND_CALLS && calls + lost >= ROUNDS * ROUND_CALLS, check,
		  "thread %ld: %zu getppid slices, expected %d less at most the %llu lost events",
		  tid, calls, ROUNDS * ROUND_CALLS, lost);
}

/*
 * ktau-trace --all until SIGINT, with the rounds made here: stopped by
 * the signal (exit 0, its summary), nothing lost, every call in it.
 */
static void check_all(void)
{
	char *argv[] = { KTAU_TRACE, "--all", "-d", "60", "-s", "16", "-o", ALL_OUT, NULL };
	char status[512], *err;
	long self = getpid();
	bool summary;
	size_t len;
	int st = -1, i;
	cpu_set_t saved;
	pid_t pid;

	if (!pin_to_cpu0("all", &saved))
		return;
	pid = fork();
	if (pid < 0) {
		ktr_fail("all", "fork: %s", strerror(errno));
		unpin(&saved);
		return;
	}
	if (!pid) {
		int fd = open(ALL_ERR, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0 || dup2(fd, STDERR_FILENO) < 0)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	for (i = 0; i < 1000 && !tracing_on(); i++)
		usleep(10000);
	rounds();
	kill(pid, SIGINT);
	waitpid(pid, &st, 0);
	unpin(&saved);
	err = ktr_slurp(ALL_ERR, &len);
	summary = err && tool_line(err, "ktau-trace: " ALL_OUT ":", status, sizeof(status));
	ktr_check(WIFEXITED(st) && WEXITSTATUS(st) == 0 && summary, "all-sigint",
		  "ktau-trace --all stopped by SIGINT: wait status 0x%x (expected exit 0), "
		  "a summary: %s", st, err ? err : "(no stderr)");
	free(err);
	check_rounds_trace("all", summary ? status : NULL, ALL_OUT, self);
}

/* A trace larger than the buffer, read while the command runs. */
static void check_drain(void)
{
	char self[256], status[512];
	char *argv[] = { KTAU_TRACE, "-s", "16", "-o", TRACE_OUT, self, "--rounds", NULL };
	struct tool_result r;
	cpu_set_t saved;
	bool summary;
	int failed;

	if (!tool_self_path(self, sizeof(self)) || !pin_to_cpu0("drain", &saved))
		return;
	failed = tool_run("drain", argv, NULL, 0, &r);
	unpin(&saved);
	if (failed)
		return;
	summary = tool_line(r.err, "ktau-trace: " TRACE_OUT ":", status, sizeof(status));
	ktr_check(r.status == 0 && summary, "drain-status", "status %d, a summary: %s",
		  r.status, r.err);
	tool_result_free(&r);
	/* the command's thread: the one of the trace's first getppid() */
	check_rounds_trace("drain", summary ? status : NULL, TRACE_OUT, 0);
}

static void check_refusals(void)
{
	char *none[] = { KTAU_TRACE, NULL };
	char *size[] = { KTAU_TRACE, "-s", "17", "true", NULL };
	char *user[] = { KTAU_TRACE, "-o", "/tmp/nobody.ktt", "true", NULL };
	struct tool_result r;

	if (!tool_run("no-command", none, NULL, 0, &r)) {
		ktr_check(r.status == 125 && strstr(r.err, "missing COMMAND"), "no-command",
			  "status %d: %s", r.status, r.err);
		tool_result_free(&r);
	}
	if (!tool_run("bad-size", size, NULL, 0, &r)) {
		ktr_check(r.status == 125 && strstr(r.err, "invalid size"), "bad-size",
			  "status %d: %s", r.status, r.err);
		tool_result_free(&r);
	}
	if (!tool_run("nobody", user, NULL, 1, &r)) {
		ktr_check(r.status == 125 && strstr(r.err, "root"), "nobody",
			  "as nobody: status %d: %s", r.status, r.err);
		tool_result_free(&r);
	}
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--workload"))
		return workload();
	if (argc > 1 && !strcmp(argv[1], "--rounds"))
		return rounds();
	ktr_init("ktau_trace");
	check_trace();
	check_drain();
	check_all();
	check_refusals();
	return ktr_exit();
}
