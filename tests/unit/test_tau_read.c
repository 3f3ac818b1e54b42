// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libktau's reader of TAU profile directories: what libktau's writer
 * writes, read back value by value; what TAU itself writes (quotes in
 * names, SumExclSqr, aggregates, several metrics); and each bad input's
 * exact error. Also the launcher's rank variables.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"
#include "testutil.h"

/* Two threads of rank 3: user routines, a kernel routine under them,
 * events, metadata that needs escaping. */
static struct ktau_model *rank_model(void)
{
	struct ktau_model *m = ktau_model_new();
	struct ktau_model_thread *t0 = m ? ktau_model_add_thread(m, 3, 0, 0, "main") : NULL;
	struct ktau_model_thread *t1 = m ? ktau_model_add_thread(m, 3, 0, 1, "helper") : NULL;
	const char *path[] = { "main", "MPI_Send()", "sys_sendto()" };
	int ret = !t0 || !t1;

	ret = ret ?: ktau_model_add_routine(t0, "main", "TAU_DEFAULT", 1, 2, 10000000, 4000000);
	ret = ret ?: ktau_model_add_routine(t0, "MPI_Send()", "MPI", 8, 8, 5000000, 1500000);
	ret = ret ?: ktau_model_add_routine(t0, "sys_sendto()", "TAU_KERNEL_MERGE | KTAU_SYSCALL",
					    8, 0, 3500000, 3500000);
	ret = ret ?: ktau_model_add_callpath(t0, path, 2, 8, 8, 5000000, 1500000);
	ret = ret ?: ktau_model_add_callpath(t0, path, 3, 8, 0, 3500000, 3500000);
	ret = ret ?: ktau_model_add_event(t0, "Message size sent to all nodes", 8, 1024, 4096,
					  16384, 40000000);
	ret = ret ?: ktau_model_add_metadata(t0, "Hostname", "node<7> & \"co\"");
	ret = ret ?: ktau_model_add_routine(t1, "worker", "TAU_USER", 3, 0, 2000, 2000);
	if (!ret)
		return m;
	ktau_model_free(m);
	return NULL;
}

TEST(tau_dir_reads_back_what_the_writer_wrote)
{
	struct ktau_model *m = rank_model();
	char *dir = make_tmpdir();
	const struct ktau_tau_function *f;
	const struct ktau_tau_thread *t;
	const struct ktau_tau_event *e;
	struct ktau_tau_dir *d;

	ASSERT_NOT_NULL(m);
	ASSERT_NOT_NULL(dir);
	ASSERT_EQ(0, ktau_model_write_tau(m, dir));
	ktau_model_free(m);
	d = ktau_tau_dir_read(dir, NULL, test_err());
	remove_tree(dir);
	free(dir);
	ASSERT_NOT_NULL(d);
	ASSERT_STREQ("TIME", ktau_tau_dir_metric(d));
	ASSERT_EQ(2, ktau_tau_dir_thread_count(d));
	t = ktau_tau_dir_thread(d, 0);
	ASSERT_EQ(3, ktau_tau_thread_node(t));
	ASSERT_EQ(0, ktau_tau_thread_context(t));
	ASSERT_EQ(0, ktau_tau_thread_id(t));
	ASSERT_EQ(5, ktau_tau_thread_function_count(t));
	f = ktau_tau_thread_find_function(t, "MPI_Send()");
	ASSERT_NOT_NULL(f);
	ASSERT_EQ_U64(8, f->calls);
	ASSERT_EQ_U64(8, f->subrs);
	ASSERT_TRUE(f->excl == 1500.0 && f->incl == 5000.0);
	ASSERT_STREQ("MPI", f->groups);
	ASSERT_EQ(1, f->depth);
	f = ktau_tau_thread_find_function(t, "main => MPI_Send() => sys_sendto()");
	ASSERT_NOT_NULL(f);
	ASSERT_EQ(3, f->depth);
	ASSERT_TRUE(f->excl == 3500.0 && f->incl == 3500.0);
	ASSERT_TRUE(ktau_tau_function_in_group(f, "TAU_CALLPATH"));
	ASSERT_TRUE(ktau_tau_function_in_group(f, "TAU_KERNEL_MERGE"));
	ASSERT_FALSE(ktau_tau_function_in_group(f, "TAU_KERNEL"));
	f = ktau_tau_thread_find_function(t, "sys_sendto()");
	ASSERT_TRUE(f && ktau_tau_function_in_group(f, "KTAU_SYSCALL"));
	ASSERT_NULL(ktau_tau_thread_find_function(t, "nothing"));
	ASSERT_EQ(ENOENT, errno);
	ASSERT_NULL(ktau_tau_thread_function(t, 5));
	ASSERT_EQ(ERANGE, errno);
	ASSERT_EQ(1, ktau_tau_thread_event_count(t));
	e = ktau_tau_thread_event(t, 0);
	ASSERT_STREQ("Message size sent to all nodes", e->name);
	ASSERT_EQ_U64(8, e->count);
	ASSERT_TRUE(e->max == 4096 && e->min == 1024 && e->mean == 2048 && e->sumsq == 4e7);
	/* the model keeps names and values free of double quotes */
	ASSERT_STREQ("node<7> & 'co'", ktau_tau_thread_metadata_value(t, "Hostname"));
	ASSERT_STREQ("main", ktau_tau_thread_metadata_value(t, "Thread Label"));
	ASSERT_NULL(ktau_tau_thread_metadata_value(t, "nope"));
	t = ktau_tau_dir_find_thread(d, 3, 0, 1);
	ASSERT_TRUE(t == ktau_tau_dir_thread(d, 1));
	ASSERT_EQ(1, ktau_tau_thread_function_count(t));
	ASSERT_EQ(0, ktau_tau_thread_event_count(t));
	ASSERT_NULL(ktau_tau_dir_find_thread(d, 0, 0, 0));
	ASSERT_EQ(ENOENT, errno);
	ASSERT_NULL(ktau_tau_dir_thread(d, 2));
	ktau_tau_dir_free(d);
}

/* As TAU's own profiler writes a file: SumExclSqr, a name with quotes,
 * repeated lines, an aggregate line, context events. */
static const char tau_style[] =
	"4 templated_functions_MULTI_P_WALL_CLOCK_TIME\n"
	"# Name Calls Subrs Excl Incl SumExclSqr ProfileCalls # <metadata><attribute>"
	"<name>Metric Name</name><value>ignored</value></attribute><attribute><name>Node "
	"Name</name><value>cn12&#xa;x&#65;</value></attribute><attribute><name>Empty</name>"
	"<value></value></attribute></metadata>\n"
	"\".TAU application\" 1 1 2.5E+03 1.00000E+04 0 0 GROUP=\"TAU_DEFAULT\"\n"
	"\"void say(\"hi\") C\" 2 0 7500 7500 1e6 0 GROUP=\"TAU_USER\"\n"
	"\"void say(\"hi\") C\" 1 0 100 100 1e4 0 GROUP=\"TAU_USER\"\n"
	"\"MPI_Init()\" 1 0 0 0 0 0 GROUP=\"MPI\"\n"
	"1 aggregates\n"
	"whatever an aggregate held\n"
	"2 userevents\n"
	"# eventname numevents max min mean sumsqr\n"
	"\"Message size : \"x\" => y\" 4 8 2 5 116\n"
	"\"Temperature\" 2 -1 -3 -2 10\n"
	"\n";

TEST(tau_thread_reads_what_tau_writes)
{
	struct ktau_tau_thread *t = ktau_tau_thread_parse(tau_style, strlen(tau_style), test_err());
	const struct ktau_tau_function *f;
	const struct ktau_tau_event *e;

	ASSERT_NOT_NULL(t);
	ASSERT_STREQ("P_WALL_CLOCK_TIME", ktau_tau_thread_metric(t));
	ASSERT_EQ(3, ktau_tau_thread_function_count(t));
	f = ktau_tau_thread_function(t, 1);
	ASSERT_STREQ("void say(\"hi\") C", f->name);
	ASSERT_EQ_U64(3, f->calls);
	ASSERT_TRUE(f->excl == 7600 && f->incl == 7600);
	f = ktau_tau_thread_function(t, 0);
	ASSERT_STREQ(".TAU application", f->name);
	ASSERT_TRUE(f->excl == 2500 && f->incl == 10000);
	ASSERT_STREQ("TAU_DEFAULT", f->groups);
	ASSERT_EQ(3, ktau_tau_thread_metadata_count(t));
	ASSERT_STREQ("cn12\nxA", ktau_tau_thread_metadata_value(t, "Node Name"));
	ASSERT_STREQ("", ktau_tau_thread_metadata_value(t, "Empty"));
	ASSERT_EQ(2, ktau_tau_thread_event_count(t));
	e = ktau_tau_thread_event(t, 0);
	ASSERT_STREQ("Message size : \"x\" => y", e->name);
	ASSERT_TRUE(e->count == 4 && e->max == 8 && e->min == 2 && e->mean == 5 && e->sumsq == 116);
	e = ktau_tau_thread_event(t, 1);
	ASSERT_TRUE(e->max == -1 && e->min == -3 && e->mean == -2);
	ktau_tau_thread_free(t);
}

TEST(tau_thread_metric_without_multi)
{
	const char *a = "0 templated_functions\n# Name Calls Subrs Excl Incl ProfileCalls\n"
			"0 aggregates\n";
	const char *b = "0 templated_functions\n# Name Calls Subrs Excl Incl ProfileCalls # "
			"<metadata><attribute><name>Metric Name</name><value>PAPI_L1_DCM"
			"</value></attribute></metadata>\n0 aggregates\n";
	struct ktau_tau_thread *t = ktau_tau_thread_parse(a, strlen(a), NULL);
	struct ktau_tau_thread *u = ktau_tau_thread_parse(b, strlen(b), NULL);

	ASSERT_TRUE(t && u);
	ASSERT_STREQ("TIME", ktau_tau_thread_metric(t));
	ASSERT_STREQ("PAPI_L1_DCM", ktau_tau_thread_metric(u));
	ASSERT_EQ(0, ktau_tau_thread_function_count(t));
	ktau_tau_thread_free(t);
	ktau_tau_thread_free(u);
}

struct bad_case {
	const char *text;
	unsigned int line;
	const char *message;
};

#define HEAD "1 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls\n"

static const struct bad_case bad_cases[] = {
	{ "", 1, "the file ends where the \"templated_functions\" line should be" },
	{ "x templated_functions\n", 1, "not a TAU profile: expected \"<N> templated_functions\"" },
	{ "1 pprof\n", 1, "not a TAU profile: expected \"<N> templated_functions\"" },
	{ "0 templated_functions_MULTI_\n", 1, "empty metric name after \"_MULTI_\"" },
	{ "0 templated_functions\nName Calls\n", 2,
	  "expected the \"# Name Calls Subrs Excl Incl ...\" header" },
	{ HEAD, 3, "the file ends where a function line should be" },
	{ HEAD "main 1 0 1 1 0\n", 3, "expected a function line (\"name\" calls ...)" },
	{ HEAD "\"main 1 0 1 1 0\n", 3, "unterminated function name" },
	{ HEAD "\"\" 1 0 1 1 0\n", 3, "empty function name" },
	{ HEAD "\"main\" 1 0 1 1\n", 3, "a function line needs 5 numbers after the name, not 4" },
	{ HEAD "\"main\" 1.5 0 1 1 0\n", 3, "calls and subrs must be whole numbers" },
	{ HEAD "\"main\" 1 0 -1 1 0\n", 3,
	  "exclusive and inclusive values must be finite numbers >= 0" },
	{ HEAD "\"main\" 1 0 nan 1 0\n", 3,
	  "exclusive and inclusive values must be finite numbers >= 0" },
	{ HEAD "\"main\" 1 0 1 1e999 0\n", 3,
	  "exclusive and inclusive values must be finite numbers >= 0" },
	{ HEAD "\"main\" 1 0 1 1 0 X=\"a\"\n", 3,
	  "a function line ends in a quote but has no GROUP=\"...\"" },
	{ HEAD "\"main\" 1 0 1 1 0 GROUP=\"a\"\n", 4,
	  "the file ends where the \"<K> aggregates\" line should be" },
	{ HEAD "\"main\" 1 0 1 1 0 GROUP=\"a\"\naggregates\n", 4,
	  "expected \"<K> aggregates\" after the function lines" },
	{ HEAD "\"main\" 1 0 1 1 0 GROUP=\"a\"\n2 aggregates\nx\n", 6,
	  "the file ends where an aggregate line should be" },
	{ HEAD "\"m\" 1 0 1 1 0\n0 aggregates\njunk\n", 5,
	  "expected \"<M> userevents\" or the end of the file" },
	{ HEAD "\"m\" 1 0 1 1 0\n0 aggregates\n1 userevents\n", 6,
	  "the file ends where the user events' heading should be" },
	{ HEAD "\"m\" 1 0 1 1 0\n0 aggregates\n1 userevents\n# h\n\"e\" 1 2 3\n", 7,
	  "a user event line needs 5 numbers after the name, not 3" },
	{ HEAD "\"m\" 1 0 1 1 0\n0 aggregates\n1 userevents\n# h\n\"e\" 1 2 3 2 x\n", 7,
	  "an event's max, min, mean and sumsqr must be finite numbers" },
	{ HEAD "\"m\" 1 0 1 1 0\n0 aggregates\n1 userevents\n# h\n\"e\" 1 2 2 2 4\nmore\n", 8,
	  "unexpected text after the user events" },
	{ "0 templated_functions\n# Name Calls # <metadata><attribute><name>a&b</name>"
	  "<value>1</value></attribute></metadata>\n", 2,
	  "bad character reference in metadata (an unescaped '&'?)" },
	{ "0 templated_functions\n# Name Calls # <metadata><attribute><value>1</value>"
	  "</attribute></metadata>\n", 2, "metadata attribute without a <name>" },
	{ "0 templated_functions\n# Name Calls # <metadata><attribute>\n", 2,
	  "metadata without </metadata>" },
	{ "0 templated_functions\n# Name\n0 aggregates\n\x01\n", 4,
	  "byte 0x01 at column 1 is not printable ASCII" },
};

TEST(tau_thread_bad_inputs_have_exact_errors)
{
	size_t i;

	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		struct ktau_tau_thread *t = ktau_tau_thread_parse(c->text, strlen(c->text),
								  test_err());

		if (t) {
			ktau_tau_thread_free(t);
			FAIL("case %zu parsed", i);
		}
		if (errno != EPROTO || ERR_CODE != -EPROTO || ERR_LINE != c->line ||
		    strcmp(ERR_MSG, c->message))
			FAIL("case %zu: errno %d, line %u, \"%s\"; expected line %u, \"%s\"", i,
			     errno, ERR_LINE, ERR_MSG, c->line, c->message);
	}
}

/* A directory of text files for the directory tests. */
static char *tree(const char *const *files)
{
	char *dir = make_tmpdir();

	for (; dir && *files; files += 2)
		if (write_tree_file(dir, files[0], files[1])) {
			remove_tree(dir);
			free(dir);
			return NULL;
		}
	return dir;
}

#define EMPTY_PROFILE(metric) \
	"1 templated_functions_MULTI_" metric "\n# Name Calls Subrs Excl Incl ProfileCalls\n" \
	"\"main\" 1 0 5 5 0 GROUP=\"TAU_DEFAULT\"\n0 aggregates\n"

TEST(tau_dir_several_metrics)
{
	const char *files[] = {
		"MULTI__TIME/profile.0.0.0", EMPTY_PROFILE("TIME"),
		"MULTI__PAPI_TOT_CYC/profile.0.0.0", EMPTY_PROFILE("PAPI_TOT_CYC"),
		"MULTI__PAPI_TOT_CYC/profile.1.0.0", EMPTY_PROFILE("PAPI_TOT_CYC"),
		NULL,
	};
	char *dir = tree(files);
	KTAU_OPTS(ktau_tau_dir_opts, cyc, .metric = "PAPI_TOT_CYC");
	KTAU_OPTS(ktau_tau_dir_opts, bad, .metric = "L2");
	struct ktau_tau_dir *a, *b, *c;

	ASSERT_NOT_NULL(dir);
	a = ktau_tau_dir_read(dir, NULL, NULL);
	b = ktau_tau_dir_read(dir, &cyc, NULL);
	c = ktau_tau_dir_read(dir, &bad, test_err());
	remove_tree(dir);
	free(dir);
	ASSERT_TRUE(a && b && !c);
	ASSERT_STREQ("TIME", ktau_tau_dir_metric(a));
	ASSERT_EQ(1, ktau_tau_dir_thread_count(a));
	ASSERT_STREQ("PAPI_TOT_CYC", ktau_tau_dir_metric(b));
	ASSERT_EQ(2, ktau_tau_dir_thread_count(b));
	ASSERT_EQ(-EINVAL, ERR_CODE);
	ASSERT_CONTAINS(ERR_MSG, ": no MULTI__L2 subdirectory");
	ktau_tau_dir_free(a);
	ktau_tau_dir_free(b);
}

TEST(tau_dir_errors)
{
	const char *mixed[] = {
		"profile.0.0.0", EMPTY_PROFILE("TIME"),
		"profile.1.0.0", EMPTY_PROFILE("PAPI_TOT_CYC"),
		NULL,
	};
	const char *bad[] = {
		"profile.0.0.0", EMPTY_PROFILE("TIME"),
		"profile.1.0.0", HEAD "\"main\" 1 0 1 1\n",
		"profile.1.0.0.tmp-1", "not a profile",
		NULL,
	};
	const char *none[] = { "profile.x.0.0", "x", "profile.0.0", "x", "README", "x", NULL };
	const char *two[] = {
		"MULTI__A/profile.0.0.0", EMPTY_PROFILE("A"),
		"MULTI__B/profile.0.0.0", EMPTY_PROFILE("B"),
		NULL,
	};
	char *d_mixed = tree(mixed), *d_bad = tree(bad), *d_none = tree(none), *d_two = tree(two);
	char path[4200];
	int ok = d_mixed && d_bad && d_none && d_two;

	if (ok)
		ok = !ktau_tau_dir_read(d_none, NULL, test_err()) && errno == ENOENT &&
		     ERR_CODE == -ENOENT && strstr(ERR_MSG, ": no TAU profile (profile.N.N.N) in it");
	if (ok) {
		snprintf(path, sizeof(path), "%s/profile.0.0", d_none);
		ok = !ktau_tau_dir_read(path, NULL, test_err()) && errno == ENOTDIR &&
		     strstr(ERR_MSG, "profile.0.0: not a directory");
	}
	if (ok) {
		snprintf(path, sizeof(path), "%s/missing", d_none);
		ok = !ktau_tau_dir_read(path, NULL, test_err()) && errno == ENOENT;
	}
	if (ok)
		ok = !ktau_tau_dir_read(d_mixed, NULL, test_err()) && errno == EPROTO &&
		     (strstr(ERR_MSG, "profile.1.0.0: metric PAPI_TOT_CYC, but the other "
			     "profiles have TIME") ||
		      strstr(ERR_MSG, "profile.0.0.0: metric TIME, but the other profiles "
			     "have PAPI_TOT_CYC"));
	if (ok)
		ok = !ktau_tau_dir_read(d_bad, NULL, test_err()) && errno == EPROTO &&
		     ERR_LINE == 3 && strstr(ERR_MSG, "/profile.1.0.0:3: a function line needs 5 "
					     "numbers after the name, not 4");
	if (ok)
		ok = !ktau_tau_dir_read(d_two, NULL, test_err()) && errno == EINVAL &&
		     strstr(ERR_MSG, ": 2 metrics (MULTI__* subdirectories), none TIME: choose one");
	if (ok)
		ok = !ktau_tau_dir_read(NULL, NULL, test_err()) && errno == EINVAL;
	remove_tree(d_mixed);
	remove_tree(d_bad);
	remove_tree(d_none);
	remove_tree(d_two);
	free(d_mixed);
	free(d_bad);
	free(d_none);
	free(d_two);
	if (!ok)
		FAIL("errno %d, line %u, message \"%s\"", errno, ERR_LINE, ERR_MSG);
}

TEST(launcher_rank_variables)
{
	unsigned int rank = 99;
	const char *var = NULL;
	static const char *const all[] = {
		"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID",
		"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "PMI_LOCAL_RANK", "SLURM_LOCALID",
	};
	size_t i;

	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		unsetenv(all[i]);
	ASSERT_EQ(-ENOENT, ktau_launcher_rank(&rank, &var));
	ASSERT_EQ(-ENOENT, ktau_launcher_local_rank(&rank, NULL));
	setenv("SLURM_PROCID", "12", 1);
	setenv("PMI_RANK", "x7", 1);	/* not a number: skipped */
	ASSERT_EQ(0, ktau_launcher_rank(&rank, &var));
	ASSERT_EQ(12, rank);
	ASSERT_STREQ("SLURM_PROCID", var);
	setenv("PMIX_RANK", "5", 1);
	ASSERT_EQ(0, ktau_launcher_rank(&rank, &var));
	ASSERT_EQ(5, rank);
	setenv("OMPI_COMM_WORLD_RANK", "4294967296", 1);	/* too large: skipped */
	ASSERT_EQ(0, ktau_launcher_rank(&rank, &var));
	ASSERT_STREQ("PMIX_RANK", var);
	setenv("SLURM_LOCALID", "1", 1);
	ASSERT_EQ(0, ktau_launcher_local_rank(&rank, &var));
	ASSERT_EQ(1, rank);
	ASSERT_STREQ("SLURM_LOCALID", var);
	setenv("MPI_LOCALRANKID", "0", 1);
	ASSERT_EQ(0, ktau_launcher_local_rank(&rank, &var));
	ASSERT_EQ(0, rank);
	ASSERT_STREQ("MPI_LOCALRANKID", var);
}
