// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The built ktau-run binary under a fake /proc.  A shell puts a saved
 * profile at <root>/<its pid>/ktau and execs ktau-run (same pid); the
 * command ktau-run runs replaces that file by a later one
 * (<root>/$PPID/ktau), as the kernel's children block grows when the
 * command is reaped.  So the report must be exactly after - before.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "testutil.h"

/* The command's way of ending its run: the kernel's children block grows. */
#define GROW "cp \"$AFTER\" \"$KTAU_PROCFS/$PPID/ktau\""

struct fake_run {
	char *root;
	char procfs[4200], before[4200], after[4200];
	char *env[8];
	char extra[4][64];	/* more NAME=value entries, fake_setenv() */
	size_t nr_env;
};

static int fake_init(struct fake_run *f, const char *after_fixture)
{
	f->root = make_tmpdir();
	if (!f->root || make_tree_dir(f->root, "ktau"))
		return -1;
	snprintf(f->procfs, sizeof(f->procfs), "KTAU_PROCFS=%s", f->root);
	snprintf(f->before, sizeof(f->before), "BEFORE=%s", test_fixture("run-before.ktau"));
	snprintf(f->after, sizeof(f->after), "AFTER=%s", test_fixture(after_fixture));
	f->env[0] = f->procfs;
	f->env[1] = f->before;
	f->env[2] = f->after;
	f->env[3] = NULL;
	f->nr_env = 3;
	return 0;
}

/* One more environment entry for the next runs (up to 4). */
static void fake_setenv(struct fake_run *f, const char *entry)
{
	size_t i = f->nr_env - 3;

	snprintf(f->extra[i], sizeof(f->extra[i]), "%s", entry);
	f->env[f->nr_env++] = f->extra[i];
	f->env[f->nr_env] = NULL;
}

static void fake_free(struct fake_run *f)
{
	if (f->root)
		remove_tree(f->root);
	free(f->root);
}

/* ktau-run with the arguments up to a NULL, its profile set up first. */
static int ktau_run(struct run_result *r, struct fake_run *f, ...)
{
	char *argv[24] = {
		"/bin/sh", "-c",
		"mkdir -p \"$KTAU_PROCFS/$$\" && cp \"$BEFORE\" "
		"\"$KTAU_PROCFS/$$/ktau\" && exec \"$@\"",
		"sh", getenv("KTAU_RUN"),
	};
	size_t n = 5;
	va_list ap;

	if (!argv[4])
		return -ENOENT;
	va_start(ap, f);
	while (n < 23 && (argv[n] = va_arg(ap, char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	return run_program(argv, f->env, r);
}

#define RUN(r, f, ...) ktau_run(r, f, __VA_ARGS__, (char *)NULL)

TEST(run_report_is_the_children_difference)
{
	struct fake_run f;
	struct run_result r;
	char line[512];

	ASSERT_EQ(0, fake_init(&f, "run-after.ktau"));
	ASSERT_EQ(0, RUN(&r, &f, "sh", "-c", GROW "; echo hello; exit 3"));
	fake_free(&f);
	ASSERT_EQ(3, r.status);
	ASSERT_STREQ("hello\n", r.out);	/* the command's output is its own */
	ASSERT_CONTAINS(r.err, "# exit status 3; 3 processes; wall ");
	ASSERT_STREQ("getpid syscall 1500 150.000 150.000 23.08",
		     line_starting(r.err, "getpid ", line, sizeof(line)));
	ASSERT_STREQ("read syscall 10 500.000 20.000 3.08",
		     line_starting(r.err, "read ", line, sizeof(line)));
	ASSERT_STREQ("schedule_vol sched 4 480.000 480.000 73.85",
		     line_starting(r.err, "schedule_vol ", line, sizeof(line)));
	ASSERT_STREQ("total 1514 650.000 100.00",
		     line_starting(r.err, "total", line, sizeof(line)));
	/* ktau-run's own system calls are not the command's */
	ASSERT_NOT_CONTAINS(r.err, "wait4");
	/* sorted by exclusive time */
	ASSERT_TRUE(strstr(r.err, "\nschedule_vol") < strstr(r.err, "\ngetpid"));
	ASSERT_TRUE(strstr(r.err, "\ngetpid") < strstr(r.err, "\nread"));
	ASSERT_NOT_CONTAINS(r.err, "=>");
	run_result_free(&r);
}

TEST(run_callgraph)
{
	struct fake_run f;
	struct run_result r;
	char line[512];

	ASSERT_EQ(0, fake_init(&f, "run-after.ktau"));
	ASSERT_EQ(0, RUN(&r, &f, "--callgraph", "sh", "-c", GROW));
	fake_free(&f);
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("read => schedule_vol 4 480.000",
		     line_starting(r.err, "read =>", line, sizeof(line)));
	run_result_free(&r);
}

TEST(run_exit_status_and_signals)
{
	static const struct {
		const char *script;
		int status;
		const char *outcome;
	} cases[] = {
		{ "exit 0", 0, "# exit status 0;" },
		{ "exit 42", 42, "# exit status 42;" },
		{ "kill -9 $$", 137, "# killed by signal 9 (Killed), exit status 137;" },
		{ "kill -TERM $$", 143, "# killed by signal 15 (Terminated), exit status 143;" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fake_run f;
		struct run_result r;

		ASSERT_EQ(0, fake_init(&f, "run-before.ktau"));
		ASSERT_EQ(0, RUN(&r, &f, "sh", "-c", cases[i].script));
		fake_free(&f);
		if (r.status != cases[i].status || !strstr(r.err, cases[i].outcome))
			FAIL("'%s': status %d, stderr '%s'; expected %d and '%s'",
			     cases[i].script, r.status, r.err, cases[i].status, cases[i].outcome);
		/* nothing changed: an empty table */
		ASSERT_CONTAINS(r.err, "; 0 processes;");
		run_result_free(&r);
	}
}

/* SIGTERM sent to ktau-run (not by a terminal) reaches the command. */
TEST(run_forwards_sigterm)
{
	struct fake_run f;
	struct run_result r;

	ASSERT_EQ(0, fake_init(&f, "run-after.ktau"));
	ASSERT_EQ(0, RUN(&r, &f, "sh", "-c",
			 "trap '" GROW "; exit 7' TERM; kill -TERM $PPID; "
			 "i=0; while [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done; exit 1"));
	fake_free(&f);
	ASSERT_EQ(7, r.status);
	ASSERT_CONTAINS(r.err, "# exit status 7; 3 processes;");
	run_result_free(&r);
}

TEST(run_command_not_found_or_not_executable)
{
	struct fake_run f;
	struct run_result r;

	ASSERT_EQ(0, fake_init(&f, "run-after.ktau"));
	ASSERT_EQ(0, RUN(&r, &f, "/nonexistent/cmd"));
	ASSERT_EQ(127, r.status);
	ASSERT_STREQ("ktau-run: cannot run '/nonexistent/cmd': No such file or directory\n",
		     r.err);
	run_result_free(&r);
	ASSERT_EQ(0, RUN(&r, &f, "no-such-command-in-path-ktau"));
	ASSERT_EQ(127, r.status);
	run_result_free(&r);
	ASSERT_EQ(0, RUN(&r, &f, test_fixture("run-after.ktau")));
	fake_free(&f);
	ASSERT_EQ(126, r.status);
	ASSERT_CONTAINS(r.err, "Permission denied");
	run_result_free(&r);
}

TEST(run_usage_errors_are_125)
{
	static const char *const cases[][3] = {
		{ NULL, NULL, "missing COMMAND to run" },
		{ "--bogus", "true", "unknown option '--bogus'" },
		{ "-x", "true", "unknown option '-x'" },
		{ "-o", NULL, "option '-o' needs an argument" },
		{ "-o", "", "-o needs a directory name" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fake_run f;
		struct run_result r;

		ASSERT_EQ(0, fake_init(&f, "run-after.ktau"));
		ASSERT_EQ(0, RUN(&r, &f, cases[i][0], cases[i][1], "true"));
		fake_free(&f);
		if (r.status != 125 || !strstr(r.err, cases[i][2]) || !strstr(r.err, "--help"))
			FAIL("case %zu: status %d err '%s', expected 125 and '%s'", i, r.status,
			     r.err, cases[i][2]);
		run_result_free(&r);
	}
}

/* The options belong to ktau-run only before COMMAND. */
TEST(run_command_options_are_its_own)
{
	struct fake_run f;
	struct run_result r;

	ASSERT_EQ(0, fake_init(&f, "run-before.ktau"));
	ASSERT_EQ(0, RUN(&r, &f, "sh", "-c", "echo \"$@\"", "sh", "-o", "--tau"));
	fake_free(&f);
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("-o --tau\n", r.out);
	run_result_free(&r);
}

TEST(run_without_ktau_does_not_run_the_command)
{
	char *root = make_tmpdir(), env[4200], marker[4200], script[8500];
	char *argv[] = { getenv("KTAU_RUN"), "sh", "-c", script, NULL };
	char *envs[] = { env, NULL };
	struct run_result r;

	ASSERT_NOT_NULL(root);
	ASSERT_NOT_NULL(argv[0]);
	snprintf(env, sizeof(env), "KTAU_PROCFS=%s", root);
	snprintf(marker, sizeof(marker), "%s/ran", root);
	snprintf(script, sizeof(script), "touch %s", marker);
	ASSERT_EQ(0, run_program(argv, envs, &r));
	ASSERT_EQ(125, r.status);
	ASSERT_STREQ("ktau-run: this kernel has no ktau support (no /proc/ktau): boot a "
		     "kernel built with CONFIG_KTAU; the command was not run\n", r.err);
	ASSERT_TRUE(access(marker, F_OK) != 0);
	remove_tree(root);
	free(root);
	run_result_free(&r);
}

TEST(run_output_dir_and_tau)
{
	struct fake_run f;
	struct run_result r;
	char out[4200], path[4300], *text, *want;

	ASSERT_EQ(0, fake_init(&f, "run-after.ktau"));
	snprintf(out, sizeof(out), "%s/out", f.root);
	ASSERT_EQ(0, RUN(&r, &f, "-o", out, "--tau", "sh", "-c", GROW "; exit 5"));
	ASSERT_EQ(5, r.status);
	/* the raw profiles, byte for byte */
	snprintf(path, sizeof(path), "%s/before.ktau", out);
	text = slurp(path, NULL);
	want = slurp(test_fixture("run-before.ktau"), NULL);
	ASSERT_STREQ(want, text);
	free(text);
	free(want);
	snprintf(path, sizeof(path), "%s/after.ktau", out);
	text = slurp(path, NULL);
	want = slurp(test_fixture("run-after.ktau"), NULL);
	ASSERT_STREQ(want, text);
	free(text);
	free(want);
	/* the report, as printed */
	snprintf(path, sizeof(path), "%s/report.txt", out);
	text = slurp(path, NULL);
	ASSERT_NOT_NULL(text);
	ASSERT_CONTAINS(r.err, text);
	ASSERT_CONTAINS(text, "# exit status 5; 3 processes;");
	free(text);
	/* TAU: microseconds, syscalls as sys_<name>() */
	snprintf(path, sizeof(path), "%s/tau/profile.0.0.0", out);
	text = slurp(path, NULL);
	fake_free(&f);
	ASSERT_NOT_NULL(text);
	ASSERT_CONTAINS(text, "\n\"sys_getpid()\" 1500 0 150 150 0 GROUP=\"TAU_KERNEL_MERGE | "
			"KTAU_SYSCALL\"\n");
	ASSERT_CONTAINS(text, "\n\"sys_read() => schedule_vol()\" 4 0 480 480 0 ");
	ASSERT_CONTAINS(text, "<name>ktau-run exit status</name><value>5</value>");
	free(text);
	run_result_free(&r);
}

TEST(run_output_dir_cannot_be_created)
{
	struct fake_run f;
	struct run_result r;
	char out[4200];

	ASSERT_EQ(0, fake_init(&f, "run-after.ktau"));
	snprintf(out, sizeof(out), "%s/no/such/dir", f.root);
	ASSERT_EQ(0, RUN(&r, &f, "-o", out, "sh", "-c", "echo ran"));
	fake_free(&f);
	ASSERT_EQ(125, r.status);
	ASSERT_STREQ("", r.out);	/* not run */
	ASSERT_CONTAINS(r.err, "ktau-run: cannot create directory");
	ASSERT_CONTAINS(r.err, "No such file or directory");
	run_result_free(&r);
}

/* An orphan that ends after the command: only --follow waits for it. */
TEST(run_follow_waits_for_orphans)
{
	static const char script[] = "(sleep 0.3; " GROW ") >/dev/null 2>&1 & exit 0";
	struct fake_run f;
	struct run_result r;
	char line[512];

	ASSERT_EQ(0, fake_init(&f, "run-after.ktau"));
	ASSERT_EQ(0, RUN(&r, &f, "--follow", "sh", "-c", script));
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("getpid syscall 1500 150.000 150.000 23.08",
		     line_starting(r.err, "getpid ", line, sizeof(line)));
	ASSERT_NOT_CONTAINS(r.err, "# note:");
	run_result_free(&r);

	ASSERT_EQ(0, RUN(&r, &f, "sh", "-c", script));
	usleep(600000);	/* the orphan must not write into the next test's tree */
	fake_free(&f);
	ASSERT_EQ(0, r.status);
	ASSERT_NULL(line_starting(r.err, "getpid ", line, sizeof(line)));
	ASSERT_CONTAINS(r.err, "# note: descendants still running are not included "
			"(--follow waits for them)");
	run_result_free(&r);
}

/* Counters lower after than before: a clear; report what is left. */
TEST(run_counters_cleared_meanwhile)
{
	struct fake_run f;
	struct run_result r;
	char line[512];

	ASSERT_EQ(0, fake_init(&f, "run-after-clear.ktau"));
	ASSERT_EQ(0, RUN(&r, &f, "sh", "-c", GROW));
	fake_free(&f);
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.err, "# warning: the profiles were cleared while the command ran");
	ASSERT_STREQ("getpid syscall 20 2.000 2.000 100.00",
		     line_starting(r.err, "getpid ", line, sizeof(line)));
	run_result_free(&r);
}

TEST(run_help_and_version)
{
	struct run_result r;

	ASSERT_EQ(0, run_tool("KTAU_RUN", NULL, &r, "--help", (char *)NULL));
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.out, "Usage: ktau-run [OPTIONS] [--] COMMAND [ARG...]");
	ASSERT_CONTAINS(r.out, "125  ktau-run failed");
	run_result_free(&r);
	ASSERT_EQ(0, run_tool("KTAU_RUN", NULL, &r, "-V", (char *)NULL));
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.out, "ktau-run (ktau) ");
	run_result_free(&r);
}

TEST(run_output_dir_is_a_file)
{
	struct fake_run f;
	struct run_result r;
	char out[4200];

	ASSERT_EQ(0, fake_init(&f, "run-after.ktau"));
	snprintf(out, sizeof(out), "%s/ktau", f.root);	/* a directory: fine */
	ASSERT_EQ(0, RUN(&r, &f, "-o", out, "true"));
	ASSERT_EQ(0, r.status);
	run_result_free(&r);
	snprintf(out, sizeof(out), "%s/file", f.root);
	ASSERT_EQ(0, write_tree_file(f.root, "file", "x"));
	ASSERT_EQ(0, RUN(&r, &f, "-o", out, "sh", "-c", "echo ran"));
	fake_free(&f);
	ASSERT_EQ(125, r.status);
	ASSERT_STREQ("", r.out);
	ASSERT_CONTAINS(r.err, "cannot create directory");
	ASSERT_CONTAINS(r.err, "a file of that name exists");
	run_result_free(&r);
}

/* The profile gone after the command: 125, and the command's outcome said. */
TEST(run_profile_unreadable_after)
{
	struct fake_run f;
	struct run_result r;

	ASSERT_EQ(0, fake_init(&f, "run-after.ktau"));
	ASSERT_EQ(0, RUN(&r, &f, "sh", "-c", "rm \"$KTAU_PROCFS/$PPID/ktau\"; exit 4"));
	fake_free(&f);
	ASSERT_EQ(125, r.status);
	ASSERT_CONTAINS(r.err, "/ktau after the command: No such file or directory\n");
	ASSERT_CONTAINS(r.err, "ktau-run: the command ended with exit status 4\n");
	run_result_free(&r);
}

/* --tau preloads libktau (found next to ktau-run) into an unmodified
 * program: its user profile lands in DIR/tau-user. The host kernel has
 * no ktau, so the profile is user-only (the library says so, once). */
TEST(run_tau_preloads_the_user_profiler)
{
	const char *progs = getenv("USERPROF_PROGS");
	struct fake_run f;
	struct run_result r;
	char out[4200], prog[4200], path[4300], *text;

	ASSERT_NOT_NULL(progs);
	snprintf(prog, sizeof(prog), "%s/prog-plain", progs);
	ASSERT_EQ(0, fake_init(&f, "run-after.ktau"));
	snprintf(out, sizeof(out), "%s/out", f.root);
	ASSERT_EQ(0, RUN(&r, &f, "-o", out, "--tau", prog));
	ASSERT_EQ(0, r.status);
	snprintf(path, sizeof(path), "%s/tau-user/profile.0.0.0", out);
	text = slurp(path, NULL);
	fake_free(&f);
	ASSERT_NOT_NULL(text);
	ASSERT_CONTAINS(text, "\".TAU application\" 1 ");
	ASSERT_CONTAINS(r.err, "ktau: kernel profiles will not be merged");
	free(text);
	run_result_free(&r);
}

/* A system profile and function map in the fake /proc, for the node's archives. */
static int fake_system(struct fake_run *f)
{
	char *profile = slurp(test_fixture("system.ktau"), NULL);
	char *functions = slurp(test_fixture("functions.txt"), NULL);
	int ret = profile && functions ? 0 : -ENOENT;

	ret = ret ?: write_tree_file(f->root, "ktau/profile", profile);
	ret = ret ?: write_tree_file(f->root, "ktau/functions", functions);
	free(profile);
	free(functions);
	return ret;
}

/* Whether dir/name is an archive whose system profile is system.ktau. */
static bool node_archive_ok(const char *dir, const char *name)
{
	char path[4300], *want = slurp(test_fixture("system.ktau"), NULL);
	struct ktau_archive *a;
	const struct ktau_archive_member *m;
	bool ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	a = load_archive(path, NULL);
	m = a ? ktau_archive_find(a, "proc/ktau/profile") : NULL;
	ok = m && want && m->size == strlen(want) && !memcmp(m->data, want, m->size);
	ktau_archive_free(a);
	free(want);
	return ok;
}

/*
 * Three ranks of one job on this host, as mpirun starts them: each its
 * own rank.<R> and tau/profile.<R>.0.0, the node's archives once (local
 * rank 0), no lock file.
 */
TEST(run_job_ranks_and_node_profile)
{
	struct fake_run f;
	struct run_result r;
	char out[4200], host[256], want[1200], name[400], *list, *text;
	int rank;

	ASSERT_EQ(0, fake_init(&f, "run-after.ktau"));
	ASSERT_EQ(0, fake_system(&f));
	ASSERT_EQ(0, gethostname(host, sizeof(host)));
	snprintf(out, sizeof(out), "%s/job", f.root);
	fake_setenv(&f, "KTAU_PRELOAD=/nonexistent");	/* the kernel profile only */
	fake_setenv(&f, "OMPI_COMM_WORLD_RANK=0");
	fake_setenv(&f, "OMPI_COMM_WORLD_LOCAL_RANK=0");
	for (rank = 0; rank < 3; rank++) {
		snprintf(f.extra[1], sizeof(f.extra[1]), "OMPI_COMM_WORLD_RANK=%d", rank);
		snprintf(f.extra[2], sizeof(f.extra[2]), "OMPI_COMM_WORLD_LOCAL_RANK=%d", rank);
		ASSERT_EQ(0, RUN(&r, &f, "--tau", "--node-profile", "-o", out, "sh", "-c",
				 GROW "; exit 4"));
		if (r.status != 4) {
			run_result_free(&r);
			fake_free(&f);
			FAIL("rank %d: status %d: %s", rank, r.status, r.err);
		}
		run_result_free(&r);
	}
	list = listing(out);
	snprintf(want, sizeof(want), "node.%s.end.ktar node.%s.start.ktar rank.0 rank.1 rank.2 tau",
		 host, host);
	if (!list || strcmp(list, want)) {
		fake_free(&f);
		FAIL("%s: \"%s\", expected \"%s\"", out, list, want);
	}
	free(list);
	snprintf(name, sizeof(name), "node.%s.start.ktar", host);
	ASSERT_TRUE(node_archive_ok(out, name));
	snprintf(name, sizeof(name), "node.%s.end.ktar", host);
	ASSERT_TRUE(node_archive_ok(out, name));
	list = listing(strcat(strcpy(name, out), "/tau"));
	ASSERT_STREQ("profile.0.0.0 profile.1.0.0 profile.2.0.0", list);
	free(list);
	list = listing(strcat(strcpy(name, out), "/rank.1"));
	ASSERT_STREQ("after.ktau before.ktau report.txt", list);
	free(list);
	text = read_rel(out, "tau/profile.2.0.0");
	fake_free(&f);
	ASSERT_NOT_NULL(text);
	ASSERT_CONTAINS(text, "\n\"sys_getpid()\" 1500 0 150 150 0 GROUP=");
	snprintf(want, sizeof(want), "<name>Hostname</name><value>%s</value>", host);
	ASSERT_CONTAINS(text, want);
	free(text);
}

/* Without a node-local rank, the first to create the lock file is the node's. */
TEST(run_job_node_profile_by_lock_file)
{
	struct fake_run f;
	struct run_result r;
	char out[4200], host[256], want[1200], name[400], *list, *lock;
	int rank;

	ASSERT_EQ(0, fake_init(&f, "run-after.ktau"));
	ASSERT_EQ(0, fake_system(&f));
	ASSERT_EQ(0, gethostname(host, sizeof(host)));
	snprintf(out, sizeof(out), "%s/job", f.root);
	fake_setenv(&f, "PMI_RANK=0");
	for (rank = 0; rank < 2; rank++) {
		snprintf(f.extra[0], sizeof(f.extra[0]), "PMI_RANK=%d", rank);
		ASSERT_EQ(0, RUN(&r, &f, "--node-profile", "-o", out, "sh", "-c", GROW));
		if (r.status) {
			run_result_free(&r);
			fake_free(&f);
			FAIL("rank %d: status %d: %s", rank, r.status, r.err);
		}
		run_result_free(&r);
	}
	list = listing(out);
	snprintf(want, sizeof(want), "node.%s.end.ktar node.%s.lock node.%s.start.ktar rank.0 "
		 "rank.1", host, host, host);
	snprintf(name, sizeof(name), "node.%s.lock", host);
	lock = read_rel(out, name);
	fake_free(&f);
	ASSERT_STREQ(want, list);
	free(list);
	ASSERT_NOT_NULL(lock);
	ASSERT_TRUE(atoi(lock) > 0);
	free(lock);
}
