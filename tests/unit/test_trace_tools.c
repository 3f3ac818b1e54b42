// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The built ktau-trace, ktau-export -f perfetto and ktau-report --noise.
 * ktau-trace runs under a fake /proc (KTAU_PROCFS): ktau/trace is a file
 * holding a kernel stream from the generator, which the tool drains once
 * (a regular file reads to its end, then 0, like an empty buffer);
 * ktau/control is a file the tool's commands overwrite in place.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ktau.h>

#include "harness.h"
#include "json_check.h"
#include "testutil.h"
#include "trace_gen.h"

#define CONTROL_BASE "ktau-control 1\nstate running\ngroups syscall\navailable syscall\n"

struct fake {
	char *root;
	char path[4200];
	char procfs[4200], utrace[4200], mark[4200];
	char *env[4];
};

/* A fake /proc: control says `trace_line` (NULL: none); ktau/trace holds
 * a kernel stream (with_trace); a user trace file for the command. */
static int fake_init(struct fake *f, const char *trace_line, int with_trace)
{
	struct tgen g = { 0 };
	char control[512];
	int ret;

	memset(f, 0, sizeof(*f));
	f->root = make_tmpdir();
	if (!f->root)
		return -1;
	snprintf(control, sizeof(control), "%s%s%send\n", CONTROL_BASE,
		 trace_line ? trace_line : "", trace_line ? "\n" : "");
	ret = write_tree_file(f->root, "ktau/control", control) ||
	      write_tree_file(f->root, "ktau/functions", TG_SAMPLE_FUNCTIONS);
	tg_header(&g, 1, 16, 2, 1000);
	tg_chunk(&g, TG_KERNEL, 0, 0, 4, 1);
	tg_event(&g, TG_TASK, 5, 100, 100);
	tg_comm(&g, "app");
	tg_event(&g, TG_ENTRY, 20, 100, 0);
	tg_event(&g, TG_EXIT, 50, 100, 0);
	snprintf(f->path, sizeof(f->path), "%s/ktau/trace", f->root);
	if (with_trace && !ret)
		ret = tg_write(&g, f->path);
	tg_free(&g);
	/* the user trace a libktau-prof program would leave */
	tg_header(&g, 1, 16, 0, 0);
	tg_chunk(&g, TG_USER, 0xffff, 0, 2, 0);
	tg_event(&g, TG_ENTRY, 10, 100, 1);
	tg_event(&g, TG_EXIT, 60, 100, 1);
	tg_names(&g, 1, 0, "1 main\n");
	snprintf(f->path, sizeof(f->path), "%s/user.ktt", f->root);
	if (!ret)
		ret = tg_write(&g, f->path);
	tg_free(&g);
	snprintf(f->procfs, sizeof(f->procfs), "KTAU_PROCFS=%s", f->root);
	snprintf(f->utrace, sizeof(f->utrace), "UTRACE=%s/user.ktt", f->root);
	snprintf(f->mark, sizeof(f->mark), "MARK=%s/mark", f->root);
	f->env[0] = f->procfs;
	f->env[1] = f->utrace;
	f->env[2] = f->mark;
	snprintf(f->path, sizeof(f->path), "%s/out.ktt", f->root);
	return ret ? -1 : 0;
}

static void fake_free(struct fake *f)
{
	if (f->root)
		remove_tree(f->root);
	free(f->root);
}

/* The command: two user traces into KTAU_TRACE_DIR, the environment it
 * saw into $MARK, exit 3. */
#define USER_COMMAND \
	"cp \"$UTRACE\" \"$KTAU_TRACE_DIR/ktau-utrace.7.ktt\" && " \
	"cp \"$UTRACE\" \"$KTAU_TRACE_DIR/ktau-utrace.8.ktt\" && " \
	"echo \"$KTAU_TRACE $KTAU_TRACE_DIR\" > \"$MARK\"; exit 3"

TEST(trace_tool_traces_a_command_and_appends_names_and_user_traces)
{
	struct fake f;
	struct run_result r;
	const struct ktau_trace_event *ev;
	struct ktau_trace *t;
	char *control, *mark, dir[4200];
	int events = 0, user = 0, ret;
	struct stat st;

	ASSERT_EQ(0, fake_init(&f, "trace off size=1024 tasks=all lost=0", 1));
	ASSERT_EQ(0, run_tool("KTAU_TRACE_TOOL", f.env, &r, "-o", f.path, "-s", "64",
			      "sh", "-c", USER_COMMAND, (char *)NULL));
	ASSERT_EQ(3, r.status);
	ASSERT_CONTAINS(r.err, "7 events (4 from 2 user traces)");
	ASSERT_CONTAINS(r.err, "1 lost (0 user)");
	control = read_rel(f.root, "ktau/control");
	mark = read_rel(f.root, "mark");
	ASSERT_NOT_NULL(control);
	ASSERT_NOT_NULL(mark);
	/* the last command written; the child saw the variables */
	ASSERT_TRUE(!strncmp(control, "trace off", 9));
	ASSERT_TRUE(!strncmp(mark, "1 /", 3));
	snprintf(dir, sizeof(dir), "%s", mark + 2);
	dir[strcspn(dir, "\n")] = '\0';
	free(control);
	free(mark);
	/* the private directory is gone */
	ASSERT_EQ(-1, stat(dir, &st));
	{
		KTAU_OPTS(ktau_load_opts, lo, .path = f.path);

		t = ktau_trace_open(&lo, test_err());
	}
	ASSERT_NOT_NULL(t);
	while ((ret = ktau_trace_next(t, &ev, test_err())) > 0) {
		events++;
		if (ev->origin == KTAU_TRACE_USER) {
			ASSERT_TRUE(ev->source == 1 || ev->source == 2);
			user++;
		}
	}
	ASSERT_EQ(0, ret);
	ASSERT_EQ(7, events);
	ASSERT_EQ(4, user);
	ASSERT_STREQ("read", ktau_trace_name(t, KTAU_TRACE_KERNEL, 0, 0));
	ASSERT_STREQ("main", ktau_trace_name(t, KTAU_TRACE_USER, 1, 1));
	ASSERT_STREQ("main", ktau_trace_name(t, KTAU_TRACE_USER, 2, 1));
	ASSERT_EQ_U64(1, ktau_trace_lost(t, 0));
	ktau_trace_close(t);
	run_result_free(&r);
	fake_free(&f);
}

TEST(trace_tool_system_wide_for_a_while)
{
	struct fake f;
	struct run_result r;

	ASSERT_EQ(0, fake_init(&f, "trace off size=1024 tasks=all lost=0", 1));
	ASSERT_EQ(0, run_tool("KTAU_TRACE_TOOL", f.env, &r, "--all", "-d", "1", "-o", f.path,
			      (char *)NULL));
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.err, "3 events (0 from 0 user traces)");
	run_result_free(&r);
	fake_free(&f);
}

/* ktau-trace's stderr and status for a fake /proc and arguments. */
static int trace_fails(struct fake *f, struct run_result *r, const char *a1,
		       const char *a2, const char *a3, const char *a4)
{
	return run_tool("KTAU_TRACE_TOOL", f->env, r, a1, a2, a3, a4, (char *)NULL);
}

TEST(trace_tool_refuses_what_it_cannot_do)
{
	struct fake f;
	struct run_result r;
	struct stat st;
	char *saved;

	/* tracing already on: refused, and the command is not run */
	ASSERT_EQ(0, fake_init(&f, "trace on size=1024 tasks=all lost=0", 1));
	ASSERT_EQ(0, trace_fails(&f, &r, "sh", "-c", "echo ran > \"$MARK\"", NULL));
	ASSERT_EQ(125, r.status);
	ASSERT_CONTAINS(r.err, "tracing is already on");
	ASSERT_CONTAINS(r.err, "--force");
	ASSERT_EQ(-1, stat(f.mark + 5, &st));
	run_result_free(&r);
	/* --force takes it over */
	ASSERT_EQ(0, trace_fails(&f, &r, "--force", "-o", f.path, "true"));
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.err, "3 events");
	run_result_free(&r);
	fake_free(&f);

	/* a ktau without trace mode */
	ASSERT_EQ(0, fake_init(&f, NULL, 1));
	ASSERT_EQ(0, trace_fails(&f, &r, "true", NULL, NULL, NULL));
	ASSERT_EQ(125, r.status);
	ASSERT_CONTAINS(r.err, "no trace mode");
	run_result_free(&r);
	fake_free(&f);

	/* a trace line but no trace file: told after trace on, then off again */
	ASSERT_EQ(0, fake_init(&f, "trace off size=1024 tasks=all lost=0", 0));
	ASSERT_EQ(0, trace_fails(&f, &r, "-o", f.path, "true", NULL));
	ASSERT_EQ(125, r.status);
	ASSERT_CONTAINS(r.err, "/ktau/trace: this kernel's ktau has no trace mode");
	saved = read_rel(f.root, "ktau/control");
	ASSERT_NOT_NULL(saved);
	ASSERT_TRUE(!strncmp(saved, "trace off", 9));
	free(saved);
	run_result_free(&r);
	fake_free(&f);

	/* no ktau at all */
	ASSERT_EQ(0, fake_init(&f, NULL, 0));
	remove_tree(f.root);
	ASSERT_EQ(0, trace_fails(&f, &r, "true", NULL, NULL, NULL));
	ASSERT_EQ(125, r.status);
	ASSERT_CONTAINS(r.err, "this kernel has no ktau support");
	run_result_free(&r);
	fake_free(&f);
}

TEST(trace_tool_usage_errors_and_command_status)
{
	static const char *const bad[][4] = {
		{ "-s", "17", "true", NULL },
		{ "-s", "2097152", "true", NULL },
		{ "--all", NULL, NULL, NULL },
		{ "--all", "-d", "1", "true" },
		{ "-d", "1", "true", NULL },
		{ "-d", "0", "--all", NULL },
		{ "--bogus", "true", NULL, NULL },
		{ NULL, NULL, NULL, NULL },
	};
	struct fake f;
	struct run_result r;
	size_t i;

	ASSERT_EQ(0, fake_init(&f, "trace off size=1024 tasks=all lost=0", 1));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ASSERT_EQ(0, trace_fails(&f, &r, bad[i][0], bad[i][1], bad[i][2], bad[i][3]));
		if (r.status != 125 || !strstr(r.err, "--help"))
			FAIL("case %zu: status %d, stderr %s", i, r.status, r.err);
		run_result_free(&r);
	}
	ASSERT_EQ(0, trace_fails(&f, &r, "--help", NULL, NULL, NULL));
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.out, "Usage: ktau-trace");
	run_result_free(&r);
	ASSERT_EQ(0, trace_fails(&f, &r, "-o", f.path, "/nonexistent/command", NULL));
	ASSERT_EQ(127, r.status);
	run_result_free(&r);
	/* the commands overwrote the fake control file: a fresh one */
	ASSERT_EQ(0, write_tree_file(f.root, "ktau/control", CONTROL_BASE
				     "trace off size=1024 tasks=all lost=0\nend\n"));
	ASSERT_EQ(0, run_tool("KTAU_TRACE_TOOL", f.env, &r, "-o", f.path, "sh", "-c",
			      "kill -TERM $$", (char *)NULL));
	ASSERT_EQ(128 + 15, r.status);
	ASSERT_CONTAINS(r.err, "killed by signal 15");
	run_result_free(&r);
	fake_free(&f);
}

/* The sample trace in a fake's directory. */
static int sample_file(struct fake *f)
{
	struct tgen g = { 0 };
	int ret;

	tg_sample(&g);
	ret = tg_write(&g, f->path);
	tg_free(&g);
	return ret;
}

TEST(export_perfetto_of_a_trace)
{
	struct fake f;
	struct run_result r;
	const struct json *events;
	struct json *root;
	size_t at = 0, i, b = 0, e = 0;
	char out[4300];

	ASSERT_EQ(0, fake_init(&f, NULL, 0));
	ASSERT_EQ(0, sample_file(&f));
	snprintf(out, sizeof(out), "%s/t.json", f.root);
	ASSERT_EQ(0, run_tool("KTAU_EXPORT", NULL, &r, "-f", "perfetto", f.path, "-o", out,
			      (char *)NULL));
	ASSERT_EQ(0, r.status);
	run_result_free(&r);
	{
		char *text = slurp(out, NULL);

		ASSERT_NOT_NULL(text);
		root = json_parse(text, &at);
		free(text);
	}
	ASSERT_NOT_NULL(root);
	events = json_get(root, "traceEvents");
	ASSERT_NOT_NULL(events);
	for (i = 0; i < events->count; i++) {
		const char *ph = json_str(json_get(json_at(events, i), "ph"));

		b += ph && !strcmp(ph, "B");
		e += ph && !strcmp(ph, "E");
	}
	json_free(root);
	ASSERT_EQ(13, b);
	ASSERT_EQ(13, e);
	/* to stdout */
	ASSERT_EQ(0, run_tool("KTAU_EXPORT", NULL, &r, "-f", "perfetto", f.path, (char *)NULL));
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.out, "\"name\":\"schedule_vol\",\"cat\":\"kernel,sched\"");
	run_result_free(&r);
	/* errors */
	ASSERT_EQ(0, run_tool("KTAU_EXPORT", NULL, &r, "-f", "perfetto", "--pid", "1",
			      (char *)NULL));
	ASSERT_EQ(2, r.status);
	run_result_free(&r);
	ASSERT_EQ(0, run_tool("KTAU_EXPORT", NULL, &r, "-f", "perfetto",
			      test_fixture("functions.txt"), (char *)NULL));
	ASSERT_EQ(1, r.status);
	ASSERT_CONTAINS(r.err, "not a ktau trace");
	run_result_free(&r);
	fake_free(&f);
}

TEST(report_noise_per_thread)
{
	struct fake f;
	struct run_result r;
	char line[256];

	ASSERT_EQ(0, fake_init(&f, NULL, 0));
	ASSERT_EQ(0, sample_file(&f));
	ASSERT_EQ(0, run_tool("KTAU_REPORT", NULL, &r, "--noise", f.path, (char *)NULL));
	ASSERT_EQ(0, r.status);
	/* tid 100: irq under main (user mode), schedule_invol with an irq
	 * inside (once); not schedule_vol, inside read */
	ASSERT_NOT_NULL(line_starting(r.out, "# thread 100 (app), process 100: 2 interruptions, "
				      "7.000 usec, max 5.000 usec", line, sizeof(line)));
	ASSERT_NOT_NULL(line_starting(r.out, "irq 1 5.000 5.000", line, sizeof(line)));
	ASSERT_NOT_NULL(line_starting(r.out, "schedule_invol 1 2.000 2.000", line,
				      sizeof(line)));
	ASSERT_NOT_NULL(line_starting(r.out, "[2,4) 1", line, sizeof(line)));
	ASSERT_NOT_NULL(line_starting(r.out, "[4,8) 1", line, sizeof(line)));
	/* tid 200: only NET_RX at depth 0 (the rest is inside read) */
	ASSERT_NOT_NULL(line_starting(r.out, "# thread 200 (worker), process 100: 1 "
				      "interruption, 10.000 usec", line, sizeof(line)));
	ASSERT_NOT_NULL(line_starting(r.out, "softirq 1 10.000 10.000", line, sizeof(line)));
	ASSERT_NOT_NULL(line_starting(r.out, "[8,16) 1", line, sizeof(line)));
	ASSERT_NULL(line_starting(r.out, "schedule_invol 2", line, sizeof(line)));
	run_result_free(&r);
	ASSERT_EQ(0, run_tool("KTAU_REPORT", NULL, &r, "--noise", f.path, f.path, (char *)NULL));
	ASSERT_EQ(2, r.status);
	ASSERT_CONTAINS(r.err, "--noise takes one TRACE");
	run_result_free(&r);
	ASSERT_EQ(0, run_tool("KTAU_REPORT", NULL, &r, "--noise", "/nonexistent.ktt",
			      (char *)NULL));
	ASSERT_EQ(1, r.status);
	ASSERT_CONTAINS(r.err, "/nonexistent.ktt");
	run_result_free(&r);
	fake_free(&f);
}

/* A version 2 trace with atomic events: tid 100 ("app") records read_bytes
 * 4096 at 10 and write_bytes 7 at 22, inside an irq [20,25] that
 * interrupted its own code. */
static int atomic_file(const char *path)
{
	struct tgen g = { 0 };
	int ret;

	tg_header(&g, 2, 16, 1, 1000);
	tg_chunk(&g, TG_KERNEL, 0, 0, 8, 0);
	tg_event(&g, TG_TASK, 5, 100, 100);
	tg_comm(&g, "app");
	tg_atomic(&g, 10, 100, 480, 4096);
	tg_event(&g, TG_ENTRY, 20, 100, 300);
	tg_atomic(&g, 22, 100, 481, 7);
	tg_event(&g, TG_EXIT, 25, 100, 300);
	tg_names(&g, 0, 0, TG_SAMPLE_FUNCTIONS "480 event read_bytes\n481 event write_bytes\n");
	ret = tg_write(&g, path);
	tg_free(&g);
	return ret;
}

TEST(trace_tools_take_atomic_events)
{
	struct fake f;
	struct run_result r;
	char path[4300], line[256];

	ASSERT_EQ(0, fake_init(&f, "trace off size=1024 tasks=all lost=0", 0));
	/* ktau-trace drains a version 2 stream and counts its ATOMICs as events */
	snprintf(path, sizeof(path), "%s/ktau/trace", f.root);
	ASSERT_EQ(0, atomic_file(path));
	ASSERT_EQ(0, run_tool("KTAU_TRACE_TOOL", f.env, &r, "--all", "-d", "1", "-o", f.path,
			      (char *)NULL));
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.err, "5 events (0 from 0 user traces)");
	run_result_free(&r);
	/* --noise: the irq, nothing of the atomic events */
	ASSERT_EQ(0, run_tool("KTAU_REPORT", NULL, &r, "--noise", path, (char *)NULL));
	ASSERT_EQ(0, r.status);
	ASSERT_NOT_NULL(line_starting(r.out, "# thread 100 (app), process 100: 1 interruption, "
				      "5.000 usec, max 5.000 usec", line, sizeof(line)));
	ASSERT_NOT_NULL(line_starting(r.out, "irq 1 5.000 5.000", line, sizeof(line)));
	ASSERT_NULL(strstr(r.out, "bytes"));
	run_result_free(&r);
	/* perfetto: instant events on the thread's track */
	ASSERT_EQ(0, run_tool("KTAU_EXPORT", NULL, &r, "-f", "perfetto", path, (char *)NULL));
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.out, "{\"ph\":\"i\",\"s\":\"t\",\"pid\":100,\"tid\":100,\"ts\":5.000,"
			"\"name\":\"read_bytes\",\"cat\":\"kernel,event\",\"args\":{\"value\":4096}}");
	ASSERT_CONTAINS(r.out, "{\"ph\":\"B\",\"pid\":100,\"tid\":100,\"ts\":15.000,"
			"\"name\":\"irq\",\"cat\":\"kernel,irq\"},\n"
			"{\"ph\":\"i\",\"s\":\"t\",\"pid\":100,\"tid\":100,\"ts\":17.000,"
			"\"name\":\"write_bytes\",\"cat\":\"kernel,event\",\"args\":{\"value\":7}},\n"
			"{\"ph\":\"E\",\"pid\":100,\"tid\":100,\"ts\":20.000}");
	run_result_free(&r);
	fake_free(&f);
}
