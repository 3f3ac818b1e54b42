// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The built ktau-archive and ktau-report binaries: archives made from fake
 * /proc trees and the fixtures, reports with exact numbers, diffs with
 * exact deltas, JSON parsed back, and every bad input's message and exit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"
#include "json_check.h"
#include "testutil.h"

/* Runs the tool named by environment variable var with the arguments up
 * to a NULL, with env (may be NULL) added. */
static int tool(struct run_result *r, const char *var, char *const env[], ...)
{
	char *argv[16] = { getenv(var) ? getenv(var) : (char *)var };
	size_t n = 1;
	va_list ap;

	va_start(ap, env);
	while (n < 15 && (argv[n] = va_arg(ap, char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	return run_program(argv, env, r);
}

#define REPORT(r, ...) tool(r, "KTAU_REPORT", NULL, __VA_ARGS__, (char *)NULL)
#define ARCHIVE(r, env, ...) tool(r, "KTAU_ARCHIVE", env, __VA_ARGS__, (char *)NULL)

/* A fake /proc with process 412 and its threads 412 and 413, from the
 * fixtures archive-v1.ktar was made from; "KTAU_PROCFS=<root>" in env. */
static char *fake_proc(char *env, size_t size)
{
	static const char *const files[][2] = {
		{ "ktau/functions", "functions.txt" },
		{ "412/ktau", "doc-example.ktau" },
		{ "412/task/412/ktau", "thread-412.ktau" },
		{ "412/task/413/ktau", "thread-413.ktau" },
	};
	char *root = make_tmpdir();
	size_t i;

	for (i = 0; root && i < sizeof(files) / sizeof(files[0]); i++) {
		char *text = slurp(test_fixture(files[i][1]), NULL);
		int ret = text ? write_tree_file(root, files[i][0], text) : -1;

		free(text);
		if (ret) {
			remove_tree(root);
			free(root);
			return NULL;
		}
	}
	if (root)
		snprintf(env, size, "KTAU_PROCFS=%s", root);
	return root;
}

/* test_fixture(name) in buf: its own result is overwritten by the next call. */
static char *fixture_copy(char *buf, const char *name)
{
	snprintf(buf, 4200, "%s", test_fixture(name));
	return buf;
}

/* The report without its first line (which names the file). */
static const char *after_first_line(const char *out)
{
	const char *nl = strchr(out, '\n');

	return nl ? nl + 1 : out;
}

TEST(report_fixture_archive_exact)
{
	struct run_result r;
	char line[512];

	ASSERT_EQ(0, REPORT(&r, test_fixture("archive-v1.ktar")));
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("", r.err);
	ASSERT_CONTAINS(r.out, "archive-v1.ktar: archive of pids 412, host vm, kernel ");
	ASSERT_STREQ("# process pid=412 tid=412 comm=getpid_test threads=1 exited_threads=0 "
		     "tsc_khz=2899999", line_starting(r.out, "# process", line, sizeof(line)));
	ASSERT_STREQ("getpid syscall 1000 79.655 79.655 57.32",
		     line_starting(r.out, "getpid", line, sizeof(line)));
	ASSERT_STREQ("read syscall 500 62.241 59.310 42.68",
		     line_starting(r.out, "read ", line, sizeof(line)));
	ASSERT_STREQ("total 1500 138.966 100.00",
		     line_starting(r.out, "total", line, sizeof(line)));
	ASSERT_NOT_CONTAINS(r.out, "# thread");
	ASSERT_NOT_CONTAINS(r.out, "# children");
	run_result_free(&r);

	ASSERT_EQ(0, REPORT(&r, "--threads", "--callgraph", test_fixture("archive-v1.ktar")));
	ASSERT_EQ(0, r.status);
	ASSERT_NOT_CONTAINS(r.out, "# process");
	ASSERT_CONTAINS(r.out, "# thread pid=412 tid=412 comm=getpid_test tsc_khz=2899999\n");
	ASSERT_CONTAINS(r.out, "# thread pid=412 tid=413 comm=worker tsc_khz=2899999\n");
	ASSERT_STREQ("getpid syscall 400 31.862 31.862 100.00",
		     strstr(r.out, "tid=413") ? line_starting(strstr(r.out, "tid=413"),
							      "getpid", line, sizeof(line)) : NULL);
	ASSERT_STREQ("read => page_fault 2 2.931",
		     line_starting(r.out, "read =>", line, sizeof(line)));
	run_result_free(&r);
}

/* ktau-archive on a fake /proc, then ktau-report: the same report as the
 * fixture archive made the same way. */
TEST(archive_then_report_round_trip)
{
	struct run_result r, fixture;
	char env[4200], path[4300], *envp[] = { env, NULL };
	char *root = fake_proc(env, sizeof(env)), *dir = make_tmpdir();

	ASSERT_NOT_NULL(root);
	ASSERT_NOT_NULL(dir);
	snprintf(path, sizeof(path), "%s/run.ktar", dir);
	ASSERT_EQ(0, ARCHIVE(&r, envp, "-o", path, "412"));
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("", r.err);
	ASSERT_CONTAINS(r.out, "run.ktar: 3 profiles, 4 files, host ");
	run_result_free(&r);
	ASSERT_EQ(0, access(path, R_OK));

	ASSERT_EQ(0, REPORT(&r, "--threads", "--children", path));
	ASSERT_EQ(0, r.status);
	ASSERT_EQ(0, REPORT(&fixture, "--threads", "--children",
			    test_fixture("archive-v1.ktar")));
	ASSERT_STREQ(after_first_line(fixture.out), after_first_line(r.out));
	run_result_free(&fixture);
	run_result_free(&r);
	remove_tree(dir);
	remove_tree(root);
	free(dir);
	free(root);
}

TEST(report_system_profile_per_process)
{
	struct run_result r;
	char line[512];

	ASSERT_EQ(0, REPORT(&r, "--pid", "500", test_fixture("system.ktau")));
	ASSERT_EQ(0, r.status);
	/* threads 500, 501 and the exited block summed */
	ASSERT_STREQ("# process pid=500 tid=500 comm=server threads=2 exited_threads=1 "
		     "tsc_khz=1000000", line_starting(r.out, "# process", line, sizeof(line)));
	ASSERT_STREQ("read syscall 6 46.000 36.000 37.23",
		     line_starting(r.out, "read", line, sizeof(line)));
	ASSERT_STREQ("total 28 96.700 100.00",
		     line_starting(r.out, "total", line, sizeof(line)));
	ASSERT_NOT_CONTAINS(r.out, "pid=600");
	run_result_free(&r);

	ASSERT_EQ(0, REPORT(&r, "--groups", "sched", "--top", "1", test_fixture("system.ktau")));
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("schedule_vol sched 1 999.900 999.900 100.00",
		     line_starting(strstr(r.out, "pid=600"), "schedule_vol", line,
				   sizeof(line)));
	ASSERT_NOT_CONTAINS(r.out, "select ");
	run_result_free(&r);
}

TEST(report_diff_exact_deltas)
{
	char line[512], before[4200], after[4200];
	struct run_result r;

	ASSERT_EQ(0, REPORT(&r, "--diff", fixture_copy(before, "before.ktau"),
			    fixture_copy(after, "after.ktau")));
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("routine group calls_A calls_B delta excl_usec_A excl_usec_B delta "
		     "incl_usec_A incl_usec_B delta",
		     line_starting(r.out, "routine", line, sizeof(line)));
	/* tsc 2 GHz: read 15000 -> 40000 exclusive cycles, 20000 -> 50000 inclusive */
	ASSERT_STREQ("read syscall 10 25 +15 7.500 20.000 +12.500 10.000 25.000 +15.000",
		     line_starting(r.out, "read", line, sizeof(line)));
	ASSERT_STREQ("getpid syscall 0 100 +100 0.000 11.500 +11.500 0.000 11.500 +11.500",
		     line_starting(r.out, "getpid", line, sizeof(line)));
	ASSERT_STREQ("write syscall 5 5 +0 4.000 4.000 +0.000 4.000 4.000 +0.000",
		     line_starting(r.out, "write", line, sizeof(line)));
	ASSERT_STREQ("total 19 136 +117 14.000 40.500 +26.500",
		     line_starting(r.out, "total", line, sizeof(line)));
	/* sorted by the change of exclusive time */
	ASSERT_TRUE(strstr(r.out, "\nread ") < strstr(r.out, "\ngetpid "));
	ASSERT_TRUE(strstr(r.out, "\npage_fault ") < strstr(r.out, "\nwrite "));
	run_result_free(&r);

	/* the other way round: negative deltas */
	ASSERT_EQ(0, REPORT(&r, "--diff", "--top", "1", "--groups", "syscall", after, before));
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("read syscall 25 10 -15 20.000 7.500 -12.500 25.000 10.000 -15.000",
		     line_starting(r.out, "read", line, sizeof(line)));
	ASSERT_STREQ("(2 more routines not shown)",
		     line_starting(r.out, "(", line, sizeof(line)));
	ASSERT_STREQ("total 130 15 -115 35.500 11.500 -24.000",
		     line_starting(r.out, "total", line, sizeof(line)));
	ASSERT_NOT_CONTAINS(r.out, "page_fault");
	run_result_free(&r);
}

TEST(report_json_parsed_back)
{
	const struct json *threads, *t, *routine;
	char archive[4200], after[4200];
	struct run_result r;
	struct json *doc;
	size_t at = 0;

	ASSERT_EQ(0, REPORT(&r, "--json", fixture_copy(archive, "archive-v1.ktar"),
			    fixture_copy(after, "after.ktau")));
	ASSERT_EQ(0, r.status);
	doc = json_parse(r.out, &at);
	if (!doc)
		FAIL("not JSON at byte %zu", at);
	threads = json_get(doc, "threads");
	ASSERT_EQ(2, threads->count);
	t = json_at(threads, 0);
	ASSERT_EQ_U64(0, json_u64(json_get(t, "node")));
	routine = json_find(json_get(t, "routines"), "name", "sys_getpid()");
	ASSERT_EQ_U64(1000, json_u64(json_get(routine, "calls")));
	ASSERT_EQ_U64(79655, json_u64(json_get(routine, "exclusive_ns")));
	t = json_at(threads, 1);
	ASSERT_EQ_U64(1, json_u64(json_get(t, "node")));
	ASSERT_STREQ("process pid 700 tid 700 app", json_str(json_get(t, "label")));
	routine = json_find(json_get(t, "routines"), "name", "sys_read()");
	ASSERT_EQ_U64(25, json_u64(json_get(routine, "calls")));
	ASSERT_EQ_U64(25000, json_u64(json_get(routine, "inclusive_ns")));
	json_free(doc);
	run_result_free(&r);
}

/* A copy of the fixture archive cut to len bytes, in dir. */
static int truncated_copy(const char *dir, size_t len, char *path, size_t size)
{
	size_t full = 0;
	char *buf = slurp(test_fixture("archive-v1.ktar"), &full);
	FILE *f;
	int ret = -1;

	snprintf(path, size, "%s/cut.ktar", dir);
	f = buf && len <= full ? fopen(path, "w") : NULL;
	if (f) {
		ret = fwrite(buf, 1, len, f) == len ? 0 : -1;
		fclose(f);
	}
	free(buf);
	return ret;
}

TEST(report_bad_archives)
{
	char *dir = make_tmpdir(), path[4300], want[4600];
	struct ktau_archive *a = ktau_archive_new();
	struct run_result r;

	ASSERT_NOT_NULL(dir);
	/* manifest 2 blocks, functions 2: proc/412/ktau's data from 2560 */
	ASSERT_EQ(0, truncated_copy(dir, 2560 + 100, path, sizeof(path)));
	ASSERT_EQ(0, REPORT(&r, path));
	ASSERT_EQ(1, r.status);
	snprintf(want, sizeof(want), "ktau-report: %s: truncated archive: member "
		 "'proc/412/ktau' has 556 bytes, only 100 left\n", path);
	ASSERT_STREQ(want, r.err);
	ASSERT_STREQ("", r.out);
	run_result_free(&r);

	ASSERT_EQ(0, truncated_copy(dir, 100, path, sizeof(path)));
	ASSERT_EQ(0, REPORT(&r, path));
	ASSERT_EQ(1, r.status);
	snprintf(want, sizeof(want), "ktau-report: %s: truncated archive: 100 bytes at "
		 "byte 0 where a header or the end marker should be\n", path);
	ASSERT_STREQ(want, r.err);
	run_result_free(&r);

	/* a member that is not a profile */
	ASSERT_NOT_NULL(a);
	ASSERT_EQ(0, ktau_archive_add(a, "proc/9/ktau", "ktau-profile 1\ntsc_khz x\n", 24));
	snprintf(path, sizeof(path), "%s/bad.ktar", dir);
	ASSERT_EQ(0, ktau_archive_write(a, path));
	ASSERT_EQ(0, REPORT(&r, path));
	ASSERT_EQ(1, r.status);
	snprintf(want, sizeof(want), "ktau-report: %s: line 2: proc/9/ktau: ", path);
	if (strncmp(r.err, want, strlen(want)))
		FAIL("stderr \"%s\" does not start with \"%s\"", r.err, want);
	run_result_free(&r);
	ktau_archive_free(a);

	/* an archive without profiles */
	a = ktau_archive_new();
	ASSERT_EQ(0, ktau_archive_write(a, path));
	ASSERT_EQ(0, REPORT(&r, path));
	ASSERT_EQ(1, r.status);
	snprintf(want, sizeof(want), "ktau-report: %s: the archive has no profiles\n", path);
	ASSERT_STREQ(want, r.err);
	run_result_free(&r);
	ktau_archive_free(a);
	remove_tree(dir);
	free(dir);
}

TEST(report_bad_files_and_selections)
{
	struct run_result r;
	char want[4600];

	ASSERT_EQ(0, REPORT(&r, "/nonexistent/run.ktar"));
	ASSERT_EQ(1, r.status);
	ASSERT_STREQ("ktau-report: cannot read /nonexistent/run.ktar: No such file or "
		     "directory\n", r.err);
	run_result_free(&r);

	ASSERT_EQ(0, REPORT(&r, test_fixture("malformed.ktau")));
	ASSERT_EQ(1, r.status);
	snprintf(want, sizeof(want), "ktau-report: %s: line 6: func: field 'calls'",
		 test_fixture("malformed.ktau"));
	ASSERT_CONTAINS(r.err, want);
	run_result_free(&r);

	ASSERT_EQ(0, REPORT(&r, "--pid", "99", test_fixture("system.ktau")));
	ASSERT_EQ(1, r.status);
	snprintf(want, sizeof(want), "ktau-report: %s: nothing to report for that process\n",
		 test_fixture("system.ktau"));
	ASSERT_STREQ(want, r.err);
	run_result_free(&r);

	ASSERT_EQ(0, REPORT(&r, "--threads", test_fixture("before.ktau")));
	ASSERT_EQ(1, r.status);
	ASSERT_CONTAINS(r.err, "nothing to report per thread (it holds process totals only)");
	run_result_free(&r);
}

TEST(report_usage_errors)
{
	static const char *const cases[][4] = {
		{ "missing FILE", NULL },
		{ "--diff needs two files, A and B", "--diff", NULL },
		{ "--diff needs exactly two files, A and B", "--diff", "a", NULL },
		{ "--json has the call graph already", "--json", "--callgraph", "a" },
		{ "invalid --top count 'x' (a number from 1)", "--top", "x", "a" },
		{ "invalid process id '0'", "--pid", "0", "a" },
		{ "unknown option '--bogus'", "--bogus", "a", NULL },
		{ "option '--top' needs an argument", "--top", NULL },
	};
	struct run_result r;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ASSERT_EQ(0, tool(&r, "KTAU_REPORT", NULL, cases[i][1], cases[i][2],
				  cases[i][3], (char *)NULL));
		if (r.status != 2 || !strstr(r.err, cases[i][0]) ||
		    !strstr(r.err, "Try 'ktau-report --help'"))
			FAIL("case %zu: status %d, stderr \"%s\"", i, r.status, r.err);
		run_result_free(&r);
	}
	ASSERT_EQ(0, REPORT(&r, "--diff", "--json", "a", "b"));
	ASSERT_EQ(2, r.status);
	ASSERT_CONTAINS(r.err, "--diff prints one table: no --json or --callgraph");
	run_result_free(&r);
	ASSERT_EQ(0, REPORT(&r, "--help"));
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.out, "Usage: ktau-report");
	ASSERT_CONTAINS(r.out, "Exit status:");
	run_result_free(&r);
}

/* --groups against the groups in the files: an archive's function map,
 * a profile's own records; across all the FILEs (and both --diff runs),
 * since a group may be in one only. Read before anything is printed. */
TEST(report_groups_from_the_files)
{
	char want[9000], before[4200], *dir = make_tmpdir(), path[4300];
	struct run_result r;
	char line[512];

	ASSERT_NOT_NULL(dir);
	fixture_copy(before, "before.ktau");
	ASSERT_EQ(0, REPORT(&r, "--groups", "noise", before));
	ASSERT_EQ(2, r.status);
	snprintf(want, sizeof(want), "ktau-report: unknown group 'noise' (groups in %s: "
		 "syscall, exception, event)\nTry 'ktau-report --help' for more "
		 "information.\n", before);
	ASSERT_STREQ(want, r.err);
	ASSERT_STREQ("", r.out);
	run_result_free(&r);

	/* the archive's map has groups its profile never ran */
	ASSERT_EQ(0, REPORT(&r, "--groups", "irq", test_fixture("archive-v1.ktar")));
	ASSERT_EQ(2, r.status);
	ASSERT_CONTAINS(r.err, "(groups in ");
	ASSERT_CONTAINS(r.err, "archive-v1.ktar: syscall, kernel, softirq, exception, sched, "
			"event)\n");
	run_result_free(&r);
	ASSERT_EQ(0, REPORT(&r, "--groups", "sched", test_fixture("archive-v1.ktar")));
	ASSERT_EQ(0, r.status);
	run_result_free(&r);

	/* a group of a newer kernel, in the second file only */
	snprintf(path, sizeof(path), "%s/netio.ktau", dir);
	ASSERT_EQ(0, write_tree_file(dir, "netio.ktau", "ktau-profile 1\ntsc_khz 2000000\n"
				     "scope process\ntask kind=process pid=9 tid=9 comm=app\n"
				     "func 0 0 read syscall 10 20000 15000\n"
				     "func 0 901 nfs_read netio 4 9000 9000\nend\n"));
	ASSERT_EQ(0, REPORT(&r, "--groups", "netio", before, path));
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("nfs_read netio 4 4.500 4.500 100.00",
		     line_starting(r.out, "nfs_read", line, sizeof(line)));
	run_result_free(&r);
	ASSERT_EQ(0, REPORT(&r, "--groups", "bogus", before, path));
	ASSERT_EQ(2, r.status);
	ASSERT_CONTAINS(r.err, "unknown group 'bogus' (groups in the files: syscall, "
			"exception, event, netio)\n");
	run_result_free(&r);
	ASSERT_EQ(0, REPORT(&r, "--diff", "--groups", "netio", before, path));
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("nfs_read netio 0 4 +4 0.000 4.500 +4.500 0.000 4.500 +4.500",
		     line_starting(r.out, "nfs_read", line, sizeof(line)));
	ASSERT_NOT_CONTAINS(r.out, "\nread ");
	run_result_free(&r);
	remove_tree(dir);
	free(dir);
}

/* A side's sum that does not fit in 64 bits fails the comparison, and
 * says so, rather than printing a wrapped number. */
TEST(report_diff_overflow_is_an_error)
{
	char *dir = make_tmpdir(), path[4300], want[9000];
	struct run_result r;

	ASSERT_NOT_NULL(dir);
	/* two processes: each fits, their sum does not */
	ASSERT_EQ(0, write_tree_file(dir, "big.ktau", "ktau-profile 1\ntsc_khz 1000\n"
				     "scope system\ntask kind=thread pid=1 tid=1 comm=a\n"
				     "func 0 1 x syscall 1 1 18446744073709551615\n"
				     "task kind=thread pid=2 tid=2 comm=b\n"
				     "func 0 1 x syscall 1 1 1\nend\n"));
	snprintf(path, sizeof(path), "%s/big.ktau", dir);
	ASSERT_EQ(0, REPORT(&r, "--diff", test_fixture("before.ktau"), path));
	ASSERT_EQ(1, r.status);
	snprintf(want, sizeof(want), "ktau-report: cannot compare %s and %s: sum does not fit "
		 "in 64 bits\n", test_fixture("before.ktau"), path);
	ASSERT_STREQ(want, r.err);
	run_result_free(&r);
	remove_tree(dir);
	free(dir);
}

TEST(archive_tool_errors)
{
	char env[4200], *envp[] = { env, NULL }, *root = fake_proc(env, sizeof(env));
	struct run_result r;
	char want[4600];

	ASSERT_NOT_NULL(root);
	ASSERT_EQ(0, ARCHIVE(&r, envp, "-o", "/nonexistent/dir/x.ktar", "412"));
	ASSERT_EQ(1, r.status);
	ASSERT_STREQ("ktau-archive: cannot write /nonexistent/dir/x.ktar: No such file or "
		     "directory\n", r.err);
	run_result_free(&r);
	ASSERT_EQ(0, ARCHIVE(&r, envp, "-o", "/nonexistent/x.ktar", "413"));
	ASSERT_EQ(1, r.status);
	snprintf(want, sizeof(want), "ktau-archive: %s/413/ktau: no such process (check the "
		 "PID: the process may have exited)\n", root);
	ASSERT_STREQ(want, r.err);
	run_result_free(&r);
	remove_tree(root);
	ASSERT_EQ(0, ARCHIVE(&r, envp, "-o", "/nonexistent/x.ktar", "--all"));
	ASSERT_EQ(1, r.status);
	snprintf(want, sizeof(want), "ktau-archive: %s/ktau/functions: this kernel has no "
		 "ktau support (no /proc/ktau)\n", root);
	ASSERT_STREQ(want, r.err);
	run_result_free(&r);
	free(root);

	ASSERT_EQ(0, ARCHIVE(&r, NULL, "412"));
	ASSERT_EQ(2, r.status);
	ASSERT_CONTAINS(r.err, "ktau-archive: missing -o FILE (the archive to write)");
	run_result_free(&r);
	ASSERT_EQ(0, ARCHIVE(&r, NULL, "-o", "x", "--all", "1"));
	ASSERT_EQ(2, r.status);
	ASSERT_CONTAINS(r.err, "give either PIDs or --all, not both");
	run_result_free(&r);
	ASSERT_EQ(0, ARCHIVE(&r, NULL, "-o", "x"));
	ASSERT_EQ(2, r.status);
	ASSERT_CONTAINS(r.err, "missing PID (or --all)");
	run_result_free(&r);
	ASSERT_EQ(0, ARCHIVE(&r, NULL, "-o", "x", "12a"));
	ASSERT_EQ(2, r.status);
	ASSERT_CONTAINS(r.err, "invalid process id '12a'");
	run_result_free(&r);
}
