// SPDX-License-Identifier: GPL-2.0-or-later
/* The built (static) ktau-dump binary, run on fixtures and fake /proc trees. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "json_check.h"
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

TEST(dump_groups_and_top)
{
	struct run_result r;
	char line[512];

	ASSERT_EQ(0, DUMP(&r, "--groups", "syscall,softirq", "--top", "1", "-t", "501",
			  "--input", test_fixture("system.ktau"), "500"));
	ASSERT_EQ(0, r.status);
	/* write 40000 of syscall+softirq 55000 cycles: 72.73% */
	ASSERT_STREQ("write syscall 10 50.000 40.000 72.73",
		     line_starting(r.out, "write", line, sizeof(line)));
	ASSERT_STREQ("(2 more routines not shown)",
		     line_starting(r.out, "(", line, sizeof(line)));
	ASSERT_STREQ("total 14 55.000 100.00",
		     line_starting(r.out, "total", line, sizeof(line)));
	ASSERT_NOT_CONTAINS(r.out, "NET_RX ");
	run_result_free(&r);

	ASSERT_EQ(0, DUMP(&r, "--groups", "softirq", "-t", "501", "--callgraph",
			  "--input", test_fixture("system.ktau"), "500"));
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("NET_RX softirq 3 10.000 10.000 100.00",
		     line_starting(r.out, "NET_RX", line, sizeof(line)));
	ASSERT_STREQ("write => NET_RX 3 10.000",
		     line_starting(r.out, "write =>", line, sizeof(line)));
	ASSERT_NOT_CONTAINS(r.out, "read_bytes");	/* events only with "event" */
	run_result_free(&r);
}

TEST(dump_json_parsed_back)
{
	struct run_result r;
	const struct json *t, *routine;
	struct json *doc;
	size_t at = 0;

	ASSERT_EQ(0, DUMP(&r, "--json", "--input", test_fixture("system.ktau")));
	ASSERT_EQ(0, r.status);
	doc = json_parse(r.out, &at);
	if (!doc)
		FAIL("not JSON at byte %zu: %s", at, r.out);
	ASSERT_STREQ("ktau-model", json_str(json_get(doc, "format")));
	/* blocks without children: server, worker, exited 500, idle_loop, exited 600 */
	ASSERT_EQ(5, json_get(doc, "threads")->count);
	t = json_find(json_get(doc, "threads"), "label", "thread pid 500 tid 501 worker");
	ASSERT_NOT_NULL(t);
	routine = json_find(json_get(t, "routines"), "name", "sys_write()");
	ASSERT_NOT_NULL(routine);
	ASSERT_EQ_U64(10, json_u64(json_get(routine, "calls")));
	ASSERT_EQ_U64(50000, json_u64(json_get(routine, "inclusive_ns")));
	ASSERT_EQ_U64(40000, json_u64(json_get(routine, "exclusive_ns")));
	ASSERT_EQ_U64(3, json_u64(json_get(json_find(json_get(t, "routines"), "name",
						      "NET_RX()"), "calls")));
	json_free(doc);
	run_result_free(&r);

	ASSERT_EQ(0, DUMP(&r, "--json", "--groups", "sched", "--input",
			  test_fixture("system.ktau"), "600"));
	ASSERT_EQ(0, r.status);
	doc = json_parse(r.out, &at);
	ASSERT_NOT_NULL(doc);
	t = json_at(json_get(doc, "threads"), 0);
	/* schedule_vol, and its caller select with no calls of its own: every
	 * callpath element has a routine (docs/json-schema.md) */
	ASSERT_EQ(2, json_get(t, "routines")->count);
	routine = json_find(json_get(t, "routines"), "name", "schedule_vol()");
	ASSERT_EQ_U64(1, json_u64(json_get(routine, "calls")));
	/* its group went with its func record: no sys_ prefix */
	routine = json_find(json_get(t, "routines"), "name", "select()");
	ASSERT_EQ_U64(0, json_u64(json_get(routine, "calls")));
	ASSERT_EQ_U64(1, json_u64(json_get(routine, "subrs")));
	json_free(doc);
	run_result_free(&r);
}

TEST(dump_threads_one_table_per_thread)
{
	struct run_result r;
	char *root = make_tmpdir(), env[4200];
	char *envp[] = { env, NULL };

	ASSERT_NOT_NULL(root);
	snprintf(env, sizeof(env), "KTAU_PROCFS=%s", root);
	ASSERT_EQ(0, write_tree_file(root, "ktau/functions", "ktau-functions 1\nend\n"));
	ASSERT_EQ(0, write_tree_file(root, "77/task/77/ktau",
				     "ktau-profile 1\ntsc_khz 1000\nscope thread\n"
				     "task kind=thread pid=77 tid=77 comm=main dropped=0\n"
				     "func 0 39 getpid syscall 1000 3000 3000\nend\n"));
	ASSERT_EQ(0, write_tree_file(root, "77/task/78/ktau",
				     "ktau-profile 1\ntsc_khz 1000\nscope thread\n"
				     "task kind=thread pid=77 tid=78 comm=worker dropped=0\n"
				     "func 0 39 getpid syscall 250 1000 1000\nend\n"));
	ASSERT_EQ(0, dump(&r, envp, "--threads", "77", (char *)NULL));
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.out, "# thread pid=77 tid=77 comm=main tsc_khz=1000\n");
	ASSERT_CONTAINS(r.out, "# thread pid=77 tid=78 comm=worker tsc_khz=1000\n");
	ASSERT_TRUE(strstr(r.out, "tid=77 ") < strstr(r.out, "tid=78 "));
	ASSERT_CONTAINS(r.out, "getpid                   syscall             250");
	run_result_free(&r);

	ASSERT_EQ(0, dump(&r, envp, "--threads", "79", (char *)NULL));
	ASSERT_EQ(1, r.status);
	ASSERT_STREQ("ktau-dump: no such process 79\n", r.err);
	run_result_free(&r);
	remove_tree(root);
	free(root);
}

TEST(dump_new_options_bad_usage)
{
	struct run_result r;

	ASSERT_EQ(0, DUMP(&r, "--groups", "syscall,", "1"));
	ASSERT_EQ(2, r.status);
	ASSERT_CONTAINS(r.err, "empty group name in --groups 'syscall,'");
	run_result_free(&r);
	ASSERT_EQ(0, DUMP(&r, "--top", "0", "1"));
	ASSERT_EQ(2, r.status);
	ASSERT_CONTAINS(r.err, "invalid --top count '0' (a number from 1)");
	run_result_free(&r);
	ASSERT_EQ(0, DUMP(&r, "--threads", "--system"));
	ASSERT_EQ(2, r.status);
	ASSERT_CONTAINS(r.err, "--threads reads /proc/PID/task");
	run_result_free(&r);
	ASSERT_EQ(0, DUMP(&r, "--threads", "-t", "2", "1"));
	ASSERT_EQ(2, r.status);
	ASSERT_CONTAINS(r.err, "--threads and --tid cannot be combined");
	run_result_free(&r);
	ASSERT_EQ(0, DUMP(&r, "--raw", "--json", "1"));
	ASSERT_EQ(2, r.status);
	ASSERT_CONTAINS(r.err, "--raw prints the profile as it is");
	run_result_free(&r);
	ASSERT_EQ(0, DUMP(&r, "--json", "--callgraph", "1"));
	ASSERT_EQ(2, r.status);
	run_result_free(&r);
}

/*
 * A fake /proc whose kernel has a group no tool was built knowing:
 * control (root-only on a real kernel) lists netio, the function map
 * (readable by all) has only fsio besides syscall, so which list a dump
 * checks --groups against shows. "KTAU_PROCFS=<root>" in env.
 */
static char *groups_proc(char *env, size_t size)
{
	char *root = make_tmpdir();

	if (!root)
		return NULL;
	snprintf(env, size, "KTAU_PROCFS=%s", root);
	if (write_tree_file(root, "ktau/control", "ktau-control 1\nstate running\n"
			    "groups syscall netio\navailable syscall netio irq\nend\n") ||
	    write_tree_file(root, "ktau/functions", "ktau-functions 1\ncolumns fid group "
			    "name\n39 syscall getpid\n900 fsio vfs_flush\nend\n") ||
	    write_tree_file(root, "77/ktau", "ktau-profile 1\ntsc_khz 1000\n"
			    "scope process\ntask kind=process pid=77 tid=77 comm=app\n"
			    "func 0 39 getpid syscall 5 50 50\n"
			    "func 0 901 nfs_read netio 3 30 30\n"
			    "func 0 900 vfs_flush fsio 2 20 20\nend\n")) {
		remove_tree(root);
		free(root);
		return NULL;
	}
	return root;
}

/* --groups against the groups the kernel says it has: control when it
 * can be read, else the function map's; and against a saved profile's
 * own groups for --input. */
TEST(dump_groups_from_the_kernel)
{
	char env[4200], path[4300], *envp[] = { env, NULL }, *root = groups_proc(env, sizeof(env));
	struct run_result r;

	ASSERT_NOT_NULL(root);
	ASSERT_EQ(0, dump(&r, envp, "--groups", "netio", "77", (char *)NULL));
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("", r.err);
	ASSERT_CONTAINS(r.out, "nfs_read");
	ASSERT_NOT_CONTAINS(r.out, "getpid");
	ASSERT_NOT_CONTAINS(r.out, "vfs_flush");
	run_result_free(&r);
	ASSERT_EQ(0, dump(&r, envp, "--groups", "syscall,bogus", "77", (char *)NULL));
	ASSERT_EQ(2, r.status);
	ASSERT_STREQ("ktau-dump: unknown group 'bogus' (this kernel's groups: syscall, netio, "
		     "irq)\nTry 'ktau-dump --help' for more information.\n", r.err);
	ASSERT_STREQ("", r.out);
	run_result_free(&r);

	/* no control file: the function map's groups */
	snprintf(path, sizeof(path), "%s/ktau/control", root);
	ASSERT_EQ(0, unlink(path));
	ASSERT_EQ(0, dump(&r, envp, "--groups", "fsio", "77", (char *)NULL));
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.out, "vfs_flush");
	ASSERT_NOT_CONTAINS(r.out, "nfs_read");
	run_result_free(&r);
	ASSERT_EQ(0, dump(&r, envp, "--groups", "netio", "77", (char *)NULL));
	ASSERT_EQ(2, r.status);
	ASSERT_STREQ("ktau-dump: unknown group 'netio' (this kernel's groups: syscall, fsio)\n"
		     "Try 'ktau-dump --help' for more information.\n", r.err);
	run_result_free(&r);

	/* neither: the groups of the profile read */
	snprintf(path, sizeof(path), "%s/ktau/functions", root);
	ASSERT_EQ(0, unlink(path));
	ASSERT_EQ(0, dump(&r, envp, "--groups", "bogus", "77", (char *)NULL));
	ASSERT_EQ(2, r.status);
	ASSERT_STREQ("ktau-dump: unknown group 'bogus' (groups in /proc/77/ktau: syscall, netio, "
		     "fsio)\nTry 'ktau-dump --help' for more information.\n", r.err);
	run_result_free(&r);

	/* a saved profile: its own groups, whatever the kernel here has */
	snprintf(path, sizeof(path), "%s/77/ktau", root);
	ASSERT_EQ(0, dump(&r, envp, "--input", path, "--groups", "netio,fsio", (char *)NULL));
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.out, "nfs_read");
	ASSERT_NOT_CONTAINS(r.out, "getpid");
	run_result_free(&r);
	ASSERT_EQ(0, DUMP(&r, "--input", test_fixture("doc-example.ktau"), "--groups", "irq"));
	ASSERT_EQ(2, r.status);
	snprintf(path, sizeof(path), "ktau-dump: unknown group 'irq' (groups in %s: syscall, "
		 "event)\n", test_fixture("doc-example.ktau"));
	ASSERT_CONTAINS(r.err, path);
	run_result_free(&r);
	remove_tree(root);
	free(root);
}

static char *nobody_env[2];

/* ktau-dump as nobody, who may not read control: 0 when the function
 * map's groups were the ones used, else 100 + the failing check. */
static int dump_groups_as_nobody(void)
{
	struct run_result r;
	int bad;

	if (dump(&r, nobody_env, "--groups", "fsio", "77", (char *)NULL))
		return 99;
	bad = r.status || !strstr(r.out, "vfs_flush") || strstr(r.out, "nfs_read");
	if (bad)
		fprintf(stderr, "fsio: status %d err '%s'\n", r.status, r.err);
	run_result_free(&r);
	if (bad)
		return 100;
	if (dump(&r, nobody_env, "--groups", "netio", "77", (char *)NULL))
		return 99;
	bad = r.status != 2 || strcmp(r.err, "ktau-dump: unknown group 'netio' (this "
				      "kernel's groups: syscall, fsio)\nTry 'ktau-dump --help' "
				      "for more information.\n");
	if (bad)
		fprintf(stderr, "netio: status %d err '%s'\n", r.status, r.err);
	run_result_free(&r);
	return bad ? 101 : 0;
}

TEST(dump_groups_control_unreadable)
{
	char env[4200], path[4300], *root = groups_proc(env, sizeof(env));
	int got;

	ASSERT_NOT_NULL(root);
	snprintf(path, sizeof(path), "%s/ktau/control", root);
	/* the kernel's 0600 keeps nobody out; 0 keeps out a non-root owner too */
	ASSERT_EQ(0, chmod(path, 0));
	nobody_env[0] = env;
	got = run_as_nobody(dump_groups_as_nobody);
	remove_tree(root);
	free(root);
	ASSERT_EQ(0, got);
}

/* doc-example-v2.ktau: a read() blocked in schedule_vol when it was read
 * (open records of 1500200 and 1500000 cycles at 2899999 kHz). */
TEST(dump_running_calls_time_so_far)
{
	const char *fixture = test_fixture("doc-example-v2.ktau");
	struct run_result r;
	char line[512];

	/* by default their time so far counts, their calls do not */
	ASSERT_EQ(0, DUMP(&r, "--input", fixture));
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("", r.err);
	ASSERT_STREQ("schedule_vol sched 1 1379.311 1379.311 90.64",
		     line_starting(r.out, "schedule_vol ", line, sizeof(line)));
	ASSERT_STREQ("read syscall 501 1441.621 59.379 3.90",
		     line_starting(r.out, "read ", line, sizeof(line)));
	ASSERT_STREQ("total 1506 1521.725 100.00",
		     line_starting(r.out, "total", line, sizeof(line)));
	/* 1521.725 - 1004.414 usec completed, right under the table */
	ASSERT_CONTAINS(r.out, "100.00\n(includes 517.311 usec in progress: read, "
			"schedule_vol)\n\nevent ");
	run_result_free(&r);

	/* --completed: the kernel's counters as they are */
	ASSERT_EQ(0, DUMP(&r, "--completed", "--input", fixture));
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("schedule_vol sched 1 862.069 862.069 85.83",
		     line_starting(r.out, "schedule_vol ", line, sizeof(line)));
	ASSERT_STREQ("read syscall 501 924.311 59.310 5.90",
		     line_starting(r.out, "read ", line, sizeof(line)));
	ASSERT_STREQ("total 1506 1004.414 100.00",
		     line_starting(r.out, "total", line, sizeof(line)));
	ASSERT_NOT_CONTAINS(r.out, "in progress");
	run_result_free(&r);

	/* the note counts the selected groups only */
	ASSERT_EQ(0, DUMP(&r, "--groups", "sched", "--input", fixture));
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("total 1 1379.311 100.00",
		     line_starting(r.out, "total", line, sizeof(line)));
	ASSERT_CONTAINS(r.out, "\n(includes 517.242 usec in progress: schedule_vol)\n");
	run_result_free(&r);

	/* --raw: the open lines as the kernel wrote them */
	ASSERT_EQ(0, DUMP(&r, "--raw", "--input", fixture));
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.out, "\nopen 412 0 0 read syscall 1500200 200\n");
	run_result_free(&r);
	ASSERT_EQ(0, DUMP(&r, "--raw", "--completed", "--input", fixture));
	ASSERT_EQ(2, r.status);
	ASSERT_CONTAINS(r.err, "--raw prints the profile as it is");
	run_result_free(&r);
}

TEST(dump_json_running_calls_apart)
{
	struct run_result r;
	const struct json *t, *o, *routine;
	struct json *doc;
	size_t at = 0;

	ASSERT_EQ(0, DUMP(&r, "--json", "--children", "--input",
			  test_fixture("doc-example-v2.ktau")));
	ASSERT_EQ(0, r.status);
	doc = json_parse(r.out, &at);
	if (!doc)
		FAIL("not JSON at byte %zu: %s", at, r.out);
	t = json_at(json_get(doc, "threads"), 0);
	/* routines: completed calls only */
	routine = json_find(json_get(t, "routines"), "name", "sys_read()");
	ASSERT_EQ_U64(501, json_u64(json_get(routine, "calls")));
	ASSERT_EQ_U64(924310, json_u64(json_get(routine, "inclusive_ns")));
	/* the running ones in their own array */
	ASSERT_EQ(2, json_get(t, "open")->count);
	o = json_at(json_get(t, "open"), 0);
	ASSERT_EQ_U64(412, json_u64(json_get(o, "tid")));
	ASSERT_EQ(1, json_get(o, "path")->count);
	ASSERT_STREQ("sys_read()", json_str(json_at(json_get(o, "path"), 0)));
	ASSERT_EQ_U64(517310, json_u64(json_get(o, "inclusive_ns")));
	ASSERT_EQ_U64(68, json_u64(json_get(o, "exclusive_ns")));
	o = json_at(json_get(t, "open"), 1);
	ASSERT_EQ(2, json_get(o, "path")->count);
	ASSERT_STREQ("schedule_vol()", json_str(json_at(json_get(o, "path"), 1)));
	ASSERT_EQ_U64(517241, json_u64(json_get(o, "inclusive_ns")));
	ASSERT_EQ_U64(517241, json_u64(json_get(o, "exclusive_ns")));
	/* the children block ran nothing: no array */
	ASSERT_NULL(json_get(json_at(json_get(doc, "threads"), 1), "open"));
	json_free(doc);
	run_result_free(&r);
}
