// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The built ktau-top binary in batch mode under a fake /proc: the system
 * profile is replaced by a later one as soon as ktau-top says it has taken
 * its first snapshot, so the first interval is exactly later - earlier,
 * process by process (threads that exited meanwhile included).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "testutil.h"

#define TOP(r, env, ...) run_tool("KTAU_TOP", env, r, __VA_ARGS__, (char *)NULL)

struct fake_top {
	char *root;
	char procfs[4200], later[4200], out[4200], top[4200];
	char *env[5];
};

/* /proc/ktau/profile is fixture `first`, replaced by `then` after the
 * first snapshot. */
static int fake_init_with(struct fake_top *f, const char *first, const char *then)
{
	char *earlier;
	int ret;

	f->root = make_tmpdir();
	if (!f->root || !getenv("KTAU_TOP"))
		return -1;
	earlier = slurp(test_fixture(first), NULL);
	ret = earlier ? write_tree_file(f->root, "ktau/profile", earlier) : -1;
	free(earlier);
	snprintf(f->procfs, sizeof(f->procfs), "KTAU_PROCFS=%s", f->root);
	snprintf(f->later, sizeof(f->later), "LATER=%s", test_fixture(then));
	snprintf(f->out, sizeof(f->out), "OUT=%s/out", f->root);
	snprintf(f->top, sizeof(f->top), "TOP=%s", getenv("KTAU_TOP"));
	f->env[0] = f->procfs;
	f->env[1] = f->later;
	f->env[2] = f->out;
	f->env[3] = f->top;
	f->env[4] = NULL;
	return ret;
}

static int fake_init(struct fake_top *f)
{
	return fake_init_with(f, "system.ktau", "system-later.ktau");
}

static void fake_free(struct fake_top *f)
{
	if (f->root)
		remove_tree(f->root);
	free(f->root);
}

/* ktau-top -b -d 1 -n 2 [extra], the profile growing after its first
 * snapshot; stdout as printed, stderr, its exit status. */
static int top_growing(struct fake_top *f, struct run_result *r, const char *extra)
{
	char *argv[] = {
		"/bin/sh", "-c",
		"\"$TOP\" -b -d 1 -n 2 $0 >\"$OUT\" & i=0; "
		"while ! grep -q sampling \"$OUT\" 2>/dev/null && [ $i -lt 1000 ]; do "
		"sleep 0.01; i=$((i+1)); done; "
		"cp \"$LATER\" \"$KTAU_PROCFS/ktau/profile\"; wait $!; rc=$?; cat \"$OUT\"; "
		"exit $rc",
		(char *)(extra ? extra : ""), NULL,
	};

	return run_program(argv, f->env, r);
}

TEST(top_batch_interval_is_the_difference)
{
	struct fake_top f;
	struct run_result r;
	char line[512];
	const char *second;

	ASSERT_EQ(0, fake_init(&f));
	ASSERT_EQ(0, top_growing(&f, &r, NULL));
	fake_free(&f);
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("", r.err);
	ASSERT_STREQ("ktau-top: sampling 2 processes every 1.000 s",
		     line_starting(r.out, "ktau-top: sampling", line, sizeof(line)));
	ASSERT_CONTAINS(r.out, "ktau-top: interval 1 of 2, ");
	ASSERT_CONTAINS(r.out, " s, 3 processes, 3 shown, kernel 5.070 ms, waiting 2.000 ms\n");
	ASSERT_STREQ("PID COMMAND THR KERNEL_MS %INTV WAIT_MS SYSCALLS TOP ROUTINES (calls)",
		     line_starting(r.out, "PID", line, sizeof(line)));
	/* new process: all of it; the others: what they did meanwhile */
	ASSERT_NOT_NULL(line_starting(r.out, "700 newproc 1 5.000 ", line, sizeof(line)));
	ASSERT_CONTAINS(line, " 0.000 5000 getpid 5000");
	/* the scheduler's time is waiting, not kernel time */
	ASSERT_NOT_NULL(line_starting(r.out, "600 idle_loop 1 0.000 ", line, sizeof(line)));
	ASSERT_CONTAINS(line, " 2.000 2 select 2");
	ASSERT_NOT_CONTAINS(line, "schedule_vol");
	/* thread 501 exited meanwhile: its calls are not new */
	ASSERT_NOT_NULL(line_starting(r.out, "500 server 1 0.070 ", line, sizeof(line)));
	ASSERT_CONTAINS(line, " 0.000 10 read 10");
	/* sorted by kernel time */
	ASSERT_TRUE(strstr(r.out, "700 newproc") < strstr(r.out, "500 server"));
	ASSERT_TRUE(strstr(r.out, "500 server") < strstr(r.out, "600 idle_loop"));
	/* nothing happened in the second interval: no rows */
	second = strstr(r.out, "ktau-top: interval 2 of 2, ");
	ASSERT_NOT_NULL(second);
	ASSERT_CONTAINS(second, " s, 3 processes, 0 shown, kernel 0.000 ms, waiting 0.000 ms\n");
	ASSERT_NOT_CONTAINS(second, "newproc");
	run_result_free(&r);
}

/* The WAIT_MS of process pid's row in the first interval; -1 if none. */
static double first_wait_ms(const char *out, const char *row_start)
{
	char line[512], comm[64];
	double kernel, pct, wait;
	int pid, thr;

	if (!line_starting(out, row_start, line, sizeof(line)) ||
	    sscanf(line, "%d %63s %d %lf %lf %lf", &pid, comm, &thr, &kernel, &pct, &wait) != 6)
		return -1;
	return wait;
}

/*
 * Calls running at one or both reads count the part of their time inside
 * the interval: blocked all along (open at both reads), blocked and then
 * returned (open, then completed), and a reading whose running call grew
 * more than the interval (skew): clamped at the interval.
 */
TEST(top_running_calls_count_inside_the_interval)
{
	struct fake_top f;
	struct run_result r;
	char line[512];
	double seconds = 0, wait;
	const char *first;

	ASSERT_EQ(0, fake_init_with(&f, "system-open.ktau", "system-open-later.ktau"));
	ASSERT_EQ(0, top_growing(&f, &r, NULL));
	fake_free(&f);
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("", r.err);
	first = strstr(r.out, "ktau-top: interval 1 of 2, ");
	ASSERT_NOT_NULL(first);
	ASSERT_EQ(1, sscanf(first, "ktau-top: interval 1 of 2, %lf s,", &seconds));
	ASSERT_TRUE(seconds > 0.9 && seconds < 30);
	ASSERT_CONTAINS(first, " s, 3 processes, 3 shown, kernel 0.500 ms, waiting ");
	/* read() blocked at both reads: 500 - 100 ms, no call completed */
	ASSERT_NOT_NULL(line_starting(first, "800 blocked 1 0.000 0.00 400.000 0 read 0", line,
				      sizeof(line)));
	/* blocked at the first read, returned before the second: the rest of
	 * its time, and its call */
	ASSERT_NOT_NULL(line_starting(first, "810 finisher 1 0.500 ", line, sizeof(line)));
	ASSERT_CONTAINS(line, " 399.500 1 read 1");
	ASSERT_EQ(399.5, first_wait_ms(first, "810 finisher"));
	/* 99 s more in a ~1 s interval: never more than the interval */
	wait = first_wait_ms(first, "820 skewed");
	ASSERT_TRUE(wait > 0);
	/* the interval is printed to the millisecond: half of one either way */
	ASSERT_TRUE(wait <= seconds * 1000.0 + 0.5);
	ASSERT_TRUE(wait >= seconds * 1000.0 - 1.0);
	/* nothing ran between the second and the third read */
	ASSERT_CONTAINS(strstr(r.out, "ktau-top: interval 2 of 2, "),
			" s, 3 processes, 0 shown, kernel 0.000 ms, waiting 0.000 ms\n");
	run_result_free(&r);
}

TEST(top_pid_filter_shows_idle_selected)
{
	struct fake_top f;
	struct run_result r;
	char line[512];
	const char *second;

	ASSERT_EQ(0, fake_init(&f));
	/* -p checks the process first */
	ASSERT_EQ(0, write_tree_file(f.root, "600/ktau", "ktau-profile 1\ntsc_khz 1000000\n"
				     "scope process\ntask kind=process pid=600 tid=600 "
				     "comm=idle_loop threads=1 exited_threads=0 dropped=0\nend\n"));
	ASSERT_EQ(0, top_growing(&f, &r, "-p600"));
	fake_free(&f);
	ASSERT_EQ(0, r.status);
	ASSERT_NOT_CONTAINS(r.out, "newproc");
	ASSERT_NOT_CONTAINS(r.out, "server");
	ASSERT_NOT_NULL(line_starting(r.out, "600 idle_loop 1 0.000 0.00 2.000 2 select 2", line,
				      sizeof(line)));
	/* idle in the second interval, but selected: shown */
	second = strstr(r.out, "interval 2 of 2");
	ASSERT_NOT_NULL(second);
	ASSERT_NOT_NULL(line_starting(second, "600 idle_loop 1 0.000 0.00 0.000 0", line,
				      sizeof(line)));
	run_result_free(&r);
}

TEST(top_usage_errors)
{
	static const char *const cases[][3] = {
		{ "-d", "0", "invalid delay '0' (seconds, 0.01 to 86400)" },
		{ "-d", "abc", "invalid delay 'abc'" },
		{ "-d", "-1", "invalid delay '-1'" },
		{ "-d", "1e9", "invalid delay '1e9'" },
		{ "-n", "0", "invalid number of iterations '0'" },
		{ "-n", "x", "invalid number of iterations 'x'" },
		{ "-p", "0", "invalid process id list '0'" },
		{ "-p", "1,x", "invalid process id list '1,x'" },
		{ "-p", ",", "invalid process id list ','" },
		{ "-d", NULL, "option '-d' needs an argument" },
		{ "--bogus", NULL, "unknown option '--bogus'" },
		{ "extra", NULL, "unexpected argument 'extra'" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run_result r;

		ASSERT_EQ(0, TOP(&r, NULL, cases[i][0], cases[i][1]));
		if (r.status != 2 || !strstr(r.err, cases[i][2]) || !strstr(r.err, "--help") ||
		    r.out[0])
			FAIL("'%s %s': status %d err '%s' out '%s', expected 2 and '%s'",
			     cases[i][0], cases[i][1] ? cases[i][1] : "", r.status, r.err, r.out,
			     cases[i][2]);
		run_result_free(&r);
	}
}

TEST(top_without_ktau_kernel)
{
	char *root = make_tmpdir(), env[4200], *envs[] = { env, NULL };
	struct run_result r;

	ASSERT_NOT_NULL(root);
	snprintf(env, sizeof(env), "KTAU_PROCFS=%s", root);
	ASSERT_EQ(0, TOP(&r, envs, "-b", "-n", "1"));
	remove_tree(root);
	free(root);
	ASSERT_EQ(1, r.status);
	ASSERT_STREQ("ktau-top: this kernel has no ktau support (no /proc/ktau): boot a "
		     "kernel built with CONFIG_KTAU\n", r.err);
	ASSERT_STREQ("", r.out);
	run_result_free(&r);
}

TEST(top_no_such_pid)
{
	struct fake_top f;
	struct run_result r;

	ASSERT_EQ(0, fake_init(&f));
	ASSERT_EQ(0, TOP(&r, f.env, "-b", "-n", "1", "-p", "4242"));
	fake_free(&f);
	ASSERT_EQ(1, r.status);
	ASSERT_STREQ("ktau-top: no such process 4242\n", r.err);
	run_result_free(&r);
}

static char *nobody_env[2];

/* 0 when ktau-top -p 412 as nobody says permission denied, exit 1. */
static int top_as_nobody(void)
{
	struct run_result r;
	int bad;

	if (TOP(&r, nobody_env, "-b", "-n", "1", "-p", "412"))
		return 99;
	bad = r.status != 1 || strcmp(r.err, "ktau-top: permission denied reading "
				      "/proc/412/ktau (you need ptrace access to the "
				      "process: run as root)\n");
	if (bad)
		fprintf(stderr, "status %d err '%s'\n", r.status, r.err);
	run_result_free(&r);
	return bad;
}

TEST(top_pid_permission_denied)
{
	struct fake_top f;
	char path[4300];
	int got;

	ASSERT_EQ(0, fake_init(&f));
	ASSERT_EQ(0, write_tree_file(f.root, "412/ktau", "x"));
	snprintf(path, sizeof(path), "%s/412/ktau", f.root);
	ASSERT_EQ(0, chmod(path, 0));
	nobody_env[0] = f.procfs;
	got = run_as_nobody(top_as_nobody);
	fake_free(&f);
	ASSERT_EQ(0, got);
}

TEST(top_help_and_version)
{
	struct run_result r;

	ASSERT_EQ(0, TOP(&r, NULL, "--help"));
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.out, "Usage: ktau-top [-d SECS] [-n N] [-p PID[,PID...]] [-b]");
	ASSERT_CONTAINS(r.out, "Exit status:");
	run_result_free(&r);
	ASSERT_EQ(0, TOP(&r, NULL, "-V"));
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.out, "ktau-top (ktau) ");
	run_result_free(&r);
}

TEST(top_malformed_profile_midway)
{
	struct fake_top f;
	struct run_result r;

	ASSERT_EQ(0, fake_init(&f));
	snprintf(f.later, sizeof(f.later), "LATER=%s", test_fixture("malformed.ktau"));
	ASSERT_EQ(0, top_growing(&f, &r, NULL));
	fake_free(&f);
	ASSERT_EQ(1, r.status);
	ASSERT_CONTAINS(r.err, "ktau-top: /proc/ktau/profile:");
	ASSERT_CONTAINS(r.out, "ktau-top: sampling");
	ASSERT_NOT_CONTAINS(r.out, "interval 1");
	run_result_free(&r);
}
