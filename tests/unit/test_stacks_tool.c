// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The ktau-stacks tool: its report, its errors and exit codes, and its
 * files read back by their own readers (callgrind_annotate, protoc) with
 * the same total: the number of samples.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "stacks_test.h"

#define REC_SAMPLES 80	/* perf record's count for perf-script-rec.txt */

static int run_stacks(struct run_result *r, ...)
{
	const char *tool = getenv("KTAU_STACKS");
	char *argv[16] = { (char *)(tool ? tool : "ktau-stacks") };
	size_t n = 1;
	va_list ap;

	va_start(ap, r);
	while (n < 15 && (argv[n] = va_arg(ap, char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	return run_program(argv, NULL, r);
}

#define STACKS(r, ...) run_stacks(r, __VA_ARGS__, (char *)NULL)

/* test_fixture() reuses one buffer: a copy per path */
static char *fixture(const char *name)
{
	return strdup(test_fixture(name));
}

TEST(ktau_stacks_report)
{
	char *rec = fixture("perf-script-rec.txt"), line[256];
	struct run_result r;

	ASSERT_EQ(0, STACKS(&r, "-n", "3", rec));
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("", r.err);
	ASSERT_TRUE(!strncmp(r.out, "perf script: 80 samples in 13 distinct stacks, 0 samples "
			     "without a stack, 9 functions\n\nTop 3 functions by exclusive "
			     "samples\n", 121));
	ASSERT_NOT_NULL(line_starting(r.out, "67 83.75% 67 83.75% fib [rec]", line,
				      sizeof(line)));
	ASSERT_NOT_NULL(line_starting(r.out, "0 0.00% 80 100.00% __libc_start_call_main "
				      "[libc.so.6]", line, sizeof(line)));
	ASSERT_CONTAINS(r.out, "\nTop 3 functions by inclusive samples\n");
	run_result_free(&r);
	free(rec);
}

TEST(ktau_stacks_usage_and_runtime_errors)
{
	char *dir = make_tmpdir(), *path, *rec = fixture("perf-script-rec.txt");
	struct run_result r;

	ASSERT_NOT_NULL(dir);
	ASSERT_EQ(0, STACKS(&r, "--help"));
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.out, "Usage: ktau-stacks");
	ASSERT_CONTAINS(r.out, "Exit status:");
	run_result_free(&r);
	ASSERT_EQ(0, STACKS(&r, "-V"));
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.out, "ktau-stacks (ktau) ");
	run_result_free(&r);
#define USAGE_CASE(msg, ...)						\
	do {								\
		ASSERT_EQ(0, STACKS(&r, __VA_ARGS__));			\
		ASSERT_EQ(2, r.status);					\
		ASSERT_CONTAINS(r.err, msg);				\
		ASSERT_CONTAINS(r.err, "Try 'ktau-stacks --help'");	\
		run_result_free(&r);					\
	} while (0)
	USAGE_CASE("unknown input format 'oprofile' (perf, stap, dtrace)", "-F", "oprofile");
	USAGE_CASE("unknown output format 'png'", "--to", "png");
	USAGE_CASE("invalid number of rows '0'", "--top", "0");
	USAGE_CASE("unexpected argument 'b'", "a", "b");
	USAGE_CASE("unknown option '--nope'", "--nope");
	USAGE_CASE("option '--to' needs an argument", "--to");
	/* runtime errors */
	ASSERT_EQ(0, STACKS(&r, "/nonexistent/perf.txt"));
	ASSERT_EQ(1, r.status);
	ASSERT_STREQ("ktau-stacks: cannot read /nonexistent/perf.txt: "
		     "No such file or directory\n", r.err);
	run_result_free(&r);
	ASSERT_EQ(0, write_tree_file(dir, "cut.stap", "!\n 0xffffffff8106602d : "
				     "irq_exit+0xbd/0xe0 [kernel\n 1\n"));
	ASSERT_TRUE(asprintf(&path, "%s/cut.stap", dir) > 0);
	ASSERT_EQ(0, STACKS(&r, path));
	ASSERT_EQ(1, r.status);
	ASSERT_CONTAINS(r.err, "cut.stap:2: frame without '[MODULE]' at its end: "
			"a truncated line?\n");
	run_result_free(&r);
	/* a perf file forced through the dtrace parser */
	ASSERT_EQ(0, STACKS(&r, "--format", "dtrace", rec));
	ASSERT_EQ(1, r.status);
	ASSERT_CONTAINS(r.err, "perf-script-rec.txt:1: expected a frame 'module`function");
	run_result_free(&r);
	/* standard input is /dev/null here: nothing to detect */
	ASSERT_EQ(0, STACKS(&r, "-"));
	ASSERT_EQ(1, r.status);
	ASSERT_STREQ("ktau-stacks: standard input: not perf script, SystemTap or DTrace "
		     "stack output (no line says which): name the format (--format perf, "
		     "stap or dtrace)\n", r.err);
	run_result_free(&r);
	free(path);
	ASSERT_EQ(0, write_tree_file(dir, "nog.perf", "sleep 1 1.0: 1 cycles: ffff f (k)\n"
				     "sleep 1 1.1: 1 cycles: ffff f (k)\n"));
	ASSERT_TRUE(asprintf(&path, "%s/nog.perf", dir) > 0);
	ASSERT_EQ(0, STACKS(&r, "-F", "perf", path));
	ASSERT_EQ(1, r.status);
	ASSERT_CONTAINS(r.err, "nog.perf has no call stacks (2 samples without one: "
			"was perf record run with -g?)\n");
	run_result_free(&r);
	free(path);
	ASSERT_TRUE(asprintf(&path, "%s/missing/out.pb", dir) > 0);
	ASSERT_EQ(0, STACKS(&r, "--to", "pprof", "-o", path, rec));
	ASSERT_EQ(1, r.status);
	ASSERT_CONTAINS(r.err, "ktau-stacks: cannot write ");
	ASSERT_CONTAINS(r.err, "No such file or directory");
	run_result_free(&r);
	free(path);
	free(rec);
	remove_tree(dir);
	free(dir);
}

/* Sums the last number of each line. */
static uint64_t last_numbers_total(const char *text)
{
	uint64_t sum = 0;
	const char *p;

	for (p = text; *p;) {
		const char *nl = strchr(p, '\n'), *sp;

		if (!nl)
			break;
		for (sp = nl; sp > p && sp[-1] != ' '; sp--)
			;
		sum += strtoull(sp, NULL, 10);
		p = nl + 1;
	}
	return sum;
}

/* Every format written from the real capture has 80 samples in all, as
 * the formats' own readers count them where Debian has one. */
TEST(ktau_stacks_formats_read_back_by_their_readers)
{
	char *dir = make_tmpdir(), *rec = fixture("perf-script-rec.txt"), *path, *text;
	struct run_result r;
	size_t samples;

	ASSERT_NOT_NULL(dir);
	ASSERT_EQ(0, STACKS(&r, "--to", "folded", "--label", "rec", rec));
	ASSERT_EQ(0, r.status);
	ASSERT_EQ_U64(REC_SAMPLES, last_numbers_total(r.out));
	ASSERT_CONTAINS(r.out, "rec;__libc_start_call_main;main;fib;fib;");
	run_result_free(&r);

	ASSERT_TRUE(asprintf(&path, "%s/tau", dir) > 0);
	ASSERT_EQ(0, STACKS(&r, "-t", "tau", "-o", path, rec));
	ASSERT_EQ(0, r.status);
	run_result_free(&r);
	free(path);
	ASSERT_TRUE(asprintf(&path, "%s/tau/profile.0.0.0", dir) > 0);
	text = slurp(path, NULL);
	ASSERT_NOT_NULL(text);
	ASSERT_TRUE(!strncmp(text, "32 templated_functions_MULTI_SAMPLES\n", 37));
	ASSERT_CONTAINS(text, "\n\"fib\" 67 0 67 67 0 GROUP=\"rec\"\n");
	ASSERT_CONTAINS(text, "<attribute><name>samples</name><value>80</value></attribute>");
	free(text);
	free(path);

	ASSERT_TRUE(asprintf(&path, "%s/p.json", dir) > 0);
	ASSERT_EQ(0, STACKS(&r, "-t", "json", "-o", path, rec));
	ASSERT_EQ(0, r.status);
	run_result_free(&r);
	text = slurp(path, NULL);
	ASSERT_NOT_NULL(text);
	ASSERT_CONTAINS(text, "\"metric\": \"samples\"");
	ASSERT_CONTAINS(text, "{\"name\": \"fib\", \"group\": \"rec\", \"calls\": 67, "
			"\"subrs\": 0, \"inclusive_samples\": 67, \"exclusive_samples\": 67}");
	free(text);
	free(path);

	ASSERT_TRUE(asprintf(&path, "%s/callgrind.out", dir) > 0);
	ASSERT_EQ(0, STACKS(&r, "-t", "callgrind", "-o", path, rec));
	ASSERT_EQ(0, r.status);
	run_result_free(&r);
	if (!have_program("callgrind_annotate")) {
		SKIP_PART("callgrind_annotate is not installed (Debian package valgrind)");
	} else {
		ASSERT_EQ(0, callgrind_annotate(path, &r));
		ASSERT_EQ(0, r.status);
		ASSERT_NOT_CONTAINS(r.err, "WARNING");
		ASSERT_EQ_U64(REC_SAMPLES, callgrind_program_total(r.out));
		ASSERT_CONTAINS(r.out, "samples");
		run_result_free(&r);
	}
	free(path);

	ASSERT_TRUE(asprintf(&path, "%s/profile.pb", dir) > 0);
	ASSERT_EQ(0, STACKS(&r, "-t", "pprof", "-o", path, rec));
	ASSERT_EQ(0, r.status);
	run_result_free(&r);
	if (!have_program("protoc")) {
		SKIP_PART("protoc is not installed (Debian package protobuf-compiler)");
	} else {
		ASSERT_EQ(0, protoc_decode(path, &r));
		ASSERT_STREQ("", r.err);
		ASSERT_EQ(0, r.status);
		/* values: [samples, event count, event sum]; stacks have no events */
		ASSERT_EQ(0, protoc_value_total(r.out, 1, &samples));
		ASSERT_EQ(0, protoc_value_total(r.out, 2, &samples));
		ASSERT_EQ_U64(REC_SAMPLES, protoc_value_total(r.out, 0, &samples));
		ASSERT_EQ(13, samples);	/* one per distinct stack */
		ASSERT_CONTAINS(r.out, "string_table: \"samples\"\n");
		ASSERT_CONTAINS(r.out, "string_table: \"event_count\"\n");
		ASSERT_NOT_CONTAINS(r.out, "nanoseconds");
		run_result_free(&r);
	}
	free(path);
	free(rec);
	remove_tree(dir);
	free(dir);
}
