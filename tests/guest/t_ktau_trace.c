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
 */
#define _GNU_SOURCE
#include "ktr.h"
#include "toolrun.h"

#include <errno.h>
#include <inttypes.h>
#include <ktau-prof.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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
	ktr_init("ktau_trace");
	check_trace();
	check_refusals();
	return ktr_exit();
}
