// SPDX-License-Identifier: GPL-2.0-or-later
/* The built (static) ktau-dump binary, run on fixtures and fake /proc trees. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>

#include "harness.h"
#include "testutil.h"

static char *dump_path(void)
{
	const char *p = getenv("KTAU_DUMP");

	return (char *)(p ? p : "ktau-dump");
}

/* Runs ktau-dump with the arguments up to a NULL. */
static int dump(struct run_result *r, char *const env[], ...)
{
	char *argv[16] = { dump_path() };
	size_t n = 1;
	va_list ap;

	va_start(ap, env);
	while (n < 15 && (argv[n] = va_arg(ap, char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	return run_program(argv, env, r);
}

#define DUMP(r, ...) dump(r, NULL, __VA_ARGS__, (char *)NULL)

TEST(dump_table_rows)
{
	struct run_result r;
	char line[512];

	ASSERT_EQ(0, DUMP(&r, "--input", test_fixture("doc-example.ktau")));
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("", r.err);
	ASSERT_STREQ("# process pid=412 tid=412 comm=getpid_test threads=1 exited_threads=0 "
		     "tsc_khz=2899999",
		     line_starting(r.out, "# process", line, sizeof(line)));
	ASSERT_STREQ("routine group calls incl_usec excl_usec %kernel",
		     line_starting(r.out, "routine", line, sizeof(line)));
	ASSERT_STREQ("getpid syscall 1000 79.655 79.655 57.32",
		     line_starting(r.out, "getpid ", line, sizeof(line)));
	ASSERT_STREQ("read syscall 500 62.241 59.310 42.68",
		     line_starting(r.out, "read ", line, sizeof(line)));
	ASSERT_STREQ("total 1500 138.966 100.00",
		     line_starting(r.out, "total", line, sizeof(line)));
	ASSERT_STREQ("read_bytes 500 16 16 16.000",
		     line_starting(r.out, "read_bytes", line, sizeof(line)));
	/* sorted by exclusive time */
	ASSERT_TRUE(strstr(r.out, "\ngetpid ") < strstr(r.out, "\nread "));
	/* children and callgraph only on request */
	ASSERT_NOT_CONTAINS(r.out, "# children");
	ASSERT_NOT_CONTAINS(r.out, "=>");
	run_result_free(&r);
}

TEST(dump_children_and_callgraph)
{
	struct run_result r;
	char line[512];

	ASSERT_EQ(0, DUMP(&r, "--children", "--callgraph", "--input",
			  test_fixture("doc-example.ktau")));
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("# children pid=412 tid=0 comm=- processes=0 tsc_khz=2899999",
		     line_starting(r.out, "# children", line, sizeof(line)));
	ASSERT_STREQ("read => page_fault 2 2.931",
		     line_starting(r.out, "read =>", line, sizeof(line)));
	run_result_free(&r);
}

TEST(dump_raw_is_byte_exact)
{
	struct run_result r;
	char *text = slurp(test_fixture("doc-example.ktau"), NULL);

	ASSERT_NOT_NULL(text);
	ASSERT_EQ(0, DUMP(&r, "--raw", "-i", test_fixture("doc-example.ktau")));
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ(text, r.out);
	free(text);
	run_result_free(&r);
}

TEST(dump_system_filters)
{
	struct run_result r;
	char line[512];

	ASSERT_EQ(0, DUMP(&r, "--input", test_fixture("system.ktau")));
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.out, "# thread pid=500 tid=500 comm=server");
	ASSERT_CONTAINS(r.out, "# thread pid=600 tid=600 comm=idle_loop");
	ASSERT_CONTAINS(r.out, "# exited pid=500 tid=0 comm=server exited_threads=1");
	ASSERT_NOT_CONTAINS(r.out, "# children");
	ASSERT_CONTAINS(r.out, "# warning: 1 events were dropped");
	run_result_free(&r);

	ASSERT_EQ(0, DUMP(&r, "-t", "501", "--input", test_fixture("system.ktau"), "500"));
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.out, "# thread pid=500 tid=501 comm=worker");
	ASSERT_NOT_CONTAINS(r.out, "tid=500");
	ASSERT_STREQ("write syscall 10 50.000 40.000 72.73",
		     line_starting(r.out, "write", line, sizeof(line)));
	run_result_free(&r);

	ASSERT_EQ(0, DUMP(&r, "--children", "--input", test_fixture("system.ktau"), "600"));
	ASSERT_EQ(0, r.status);
	ASSERT_NOT_CONTAINS(r.out, "pid=500");
	ASSERT_CONTAINS(r.out, "# children pid=600");
	run_result_free(&r);
}

TEST(dump_nothing_selected_fails)
{
	struct run_result r;

	ASSERT_EQ(0, DUMP(&r, "--input", test_fixture("system.ktau"), "4242"));
	ASSERT_EQ(1, r.status);
	ASSERT_CONTAINS(r.err, "has no profile data for the selected task");
	run_result_free(&r);
}

TEST(dump_bad_option_is_usage_error)
{
	struct run_result r;

	ASSERT_EQ(0, DUMP(&r, "--bogus", "1"));
	ASSERT_EQ(2, r.status);
	ASSERT_CONTAINS(r.err, "ktau-dump: unknown option '--bogus'");
	ASSERT_CONTAINS(r.err, "--help");
	ASSERT_STREQ("", r.out);
	run_result_free(&r);

	ASSERT_EQ(0, DUMP(&r, "-x", "1"));
	ASSERT_EQ(2, r.status);
	ASSERT_CONTAINS(r.err, "unknown option '-x'");
	run_result_free(&r);

	ASSERT_EQ(0, DUMP(&r, "1", "-t"));
	ASSERT_EQ(2, r.status);
	ASSERT_CONTAINS(r.err, "option '-t' needs an argument");
	run_result_free(&r);
}

TEST(dump_bad_ids_are_usage_errors)
{
	struct run_result r;

	ASSERT_EQ(0, DUMP(&r, "abc"));
	ASSERT_EQ(2, r.status);
	ASSERT_CONTAINS(r.err, "invalid process id 'abc'");
	run_result_free(&r);

	ASSERT_EQ(0, DUMP(&r, "-t", "0", "1"));
	ASSERT_EQ(2, r.status);
	ASSERT_CONTAINS(r.err, "invalid thread id '0'");
	run_result_free(&r);

	ASSERT_EQ(0, DUMP(&r, "99999999999"));
	ASSERT_EQ(2, r.status);
	run_result_free(&r);

	ASSERT_EQ(0, DUMP(&r, "1", "2"));
	ASSERT_EQ(2, r.status);
	ASSERT_CONTAINS(r.err, "unexpected argument '2'");
	run_result_free(&r);

	ASSERT_EQ(0, DUMP(&r, "--system", "--input", "x"));
	ASSERT_EQ(2, r.status);
	ASSERT_CONTAINS(r.err, "cannot be combined");
	run_result_free(&r);
}

TEST(dump_missing_pid_is_usage_error)
{
	struct run_result r;

	ASSERT_EQ(0, DUMP(&r, NULL));
	ASSERT_EQ(2, r.status);
	ASSERT_CONTAINS(r.err, "missing process id");
	run_result_free(&r);
}

TEST(dump_missing_file)
{
	struct run_result r;

	ASSERT_EQ(0, DUMP(&r, "--input", "/nonexistent/profile"));
	ASSERT_EQ(1, r.status);
	ASSERT_CONTAINS(r.err, "ktau-dump: cannot read /nonexistent/profile: "
			"No such file or directory");
	run_result_free(&r);
	ASSERT_EQ(0, DUMP(&r, "--raw", "--input", "/nonexistent/profile"));
	ASSERT_EQ(1, r.status);
	ASSERT_CONTAINS(r.err, "No such file or directory");
	run_result_free(&r);
}

TEST(dump_malformed_file_names_line)
{
	struct run_result r;
	char want[4200];

	snprintf(want, sizeof(want), "ktau-dump: %s:6: func: field 'calls'",
		 test_fixture("malformed.ktau"));
	ASSERT_EQ(0, DUMP(&r, "--input", test_fixture("malformed.ktau")));
	ASSERT_EQ(1, r.status);
	ASSERT_CONTAINS(r.err, want);
	run_result_free(&r);
}

TEST(dump_help_and_version)
{
	struct run_result r;

	ASSERT_EQ(0, DUMP(&r, "--help"));
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.out, "Usage: ktau-dump");
	ASSERT_CONTAINS(r.out, "Exit status:");
	ASSERT_CONTAINS(r.out, "--callgraph");
	run_result_free(&r);
	ASSERT_EQ(0, DUMP(&r, "-h"));
	ASSERT_EQ(0, r.status);
	run_result_free(&r);
	ASSERT_EQ(0, DUMP(&r, "--version"));
	ASSERT_EQ(0, r.status);
	{
		char want[64];

		snprintf(want, sizeof(want), "ktau-dump (ktau) %s\n", ktau_version());
		ASSERT_STREQ(want, r.out);
	}
	run_result_free(&r);
}

TEST(dump_proc_errors)
{
	struct run_result r;
	char *root = make_tmpdir(), env[4200];
	char *envp[] = { env, NULL };

	ASSERT_NOT_NULL(root);
	snprintf(env, sizeof(env), "KTAU_PROCFS=%s", root);
	ASSERT_EQ(0, dump(&r, envp, "1234", (char *)NULL));
	ASSERT_EQ(1, r.status);
	ASSERT_STREQ("ktau-dump: this kernel has no ktau support (no /proc/ktau)\n", r.err);
	run_result_free(&r);

	ASSERT_EQ(0, make_tree_dir(root, "ktau"));
	ASSERT_EQ(0, dump(&r, envp, "1234", (char *)NULL));
	ASSERT_EQ(1, r.status);
	ASSERT_STREQ("ktau-dump: no such process 1234\n", r.err);
	run_result_free(&r);

	ASSERT_EQ(0, dump(&r, envp, "-t", "7", "1234", (char *)NULL));
	ASSERT_EQ(1, r.status);
	ASSERT_STREQ("ktau-dump: no such thread 7 in process 1234\n", r.err);
	run_result_free(&r);

	ASSERT_EQ(0, write_tree_file(root, "1234/ktau",
				     "ktau-profile 1\ntsc_khz 1000\nscope process\n"
				     "task kind=process pid=1234 tid=1234 comm=x\n"
				     "func 0 1 write syscall 3 3000 2000\nend\n"));
	ASSERT_EQ(0, dump(&r, envp, "1234", (char *)NULL));
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.out, "# process pid=1234");
	run_result_free(&r);

	ASSERT_EQ(0, dump(&r, envp, "--system", (char *)NULL));
	ASSERT_EQ(1, r.status);
	ASSERT_CONTAINS(r.err, "cannot read /proc/ktau/profile: No such file");
	run_result_free(&r);
	remove_tree(root);
	free(root);
}
