// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perf script output: hand-made samples in the exact shape perf prints
 * them, and a real `perf record -g` capture checked against perf report's
 * own counts.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "stacks_test.h"

#define OPEN_SAMPLE(t)							\
	"sleep 11325  " t ":     250000 cpu-clock:pppH: \n"		\
	"\tffffffff816dfdb6 __d_lookup_rcu+0x56 ([kernel.kallsyms])\n"	\
	"\tffffffff816cb6ce lookup_fast+0x2e ([kernel.kallsyms])\n"	\
	"\t           20b1d __GI___open64_nocancel+0x2d "			\
	"(/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)\n"		\
	"\t               0 [unknown] ([unknown])\n"

static const char perf_text[] =
	"# ========\n"
	"# captured on    : Mon Jun  2 10:00:00 2025\n"
	"# ========\n"
	"#\n"
	OPEN_SAMPLE("4900.851296") "\n"
	OPEN_SAMPLE("4900.851544") "\n"
	/* recursion: main -> f -> g -> f -> g -> h */
	"a.out 42 [001] 1.500000:          1 cycles: \n"
	"\t    55d0e1234567 h+0x1 (/tmp/a.out)\n"
	"\t    55d0e1234500 g+0x10 (/tmp/a.out)\n"
	"\t    55d0e1234400 f+0x10 (/tmp/a.out)\n"
	"\t    55d0e1234500 g+0x20 (/tmp/a.out)\n"
	"\t    55d0e1234400 f+0x20 (/tmp/a.out)\n"
	"\t    55d0e1234300 main+0x5 (/tmp/a.out)\n"
	"\n"
	/* a module perf could not name, a C++ symbol with blanks and parens */
	"a.out 42 [001] 1.600000:          1 cycles: \n"
	"\tffffffffC0A1B2C3 [unknown] ([unknown])\n"
	"\t    55d0e1234300 main+0x5 (/tmp/a.out)\n"
	"\n"
	"a.out 42 [001] 1.700000:          1 cycles: \n"
	"\t    55d0e1234600 std::function<void (int)>::operator()(int) const+0x12 (/tmp/a.out)\n"
	"\t    55d0e1234300 main+0x5 (/tmp/a.out)\n"
	"\n"
	/* recorded without -g: no stack */
	"a.out 42 [001] 1.800000:          1 cycles:  55d0e1234300 main+0x5 (/tmp/a.out)\n"
	/* the last sample without its blank line */
	"a.out 42 [001] 1.900000:          1 cycles: \n"
	"\t    55d0e1234567 h+0x1 (/tmp/a.out)\n";

static struct ktau_stacks *parse(const char *text, struct ktau_error **err)
{
	return ktau_stacks_parse(text, strlen(text), KTAU_STACKS_AUTO, err);
}

TEST(stacks_perf_counts)
{
	struct ktau_stacks *s = parse(perf_text, test_err());
	struct ktau_model *m = stacks_model(perf_text, KTAU_STACKS_AUTO, test_err());

	ASSERT_NOT_NULL(s);
	ASSERT_NOT_NULL(m);
	ASSERT_EQ(KTAU_STACKS_PERF, ktau_stacks_format(s));
	ASSERT_EQ_U64(6, ktau_stacks_samples(s));
	ASSERT_EQ_U64(1, ktau_stacks_empty_samples(s));
	ASSERT_EQ(5, ktau_stacks_count(s));	/* the two open samples are one stack */
	ASSERT_ROUTINE(m, "__d_lookup_rcu", "kernel", 2, 2);
	ASSERT_ROUTINE(m, "lookup_fast", "kernel", 2, 0);
	ASSERT_ROUTINE(m, "__GI___open64_nocancel", "ld-linux-x86-64.so.2", 2, 0);
	ASSERT_ROUTINE(m, "0x0", "unknown", 2, 0);
	/* recursion: once per stack */
	ASSERT_ROUTINE(m, "f", "a.out", 1, 0);
	ASSERT_ROUTINE(m, "g", "a.out", 1, 0);
	ASSERT_ROUTINE(m, "h", "a.out", 2, 2);
	ASSERT_ROUTINE(m, "main", "a.out", 3, 0);
	ASSERT_ROUTINE(m, "0xffffffffc0a1b2c3", "unknown", 1, 1);
	ASSERT_ROUTINE(m, "std::function<void (int)>::operator()(int) const", "a.out", 1, 1);
	ASSERT_EQ(10, ktau_model_routine_count(ktau_model_thread(m, 0)));
	ASSERT_CALLPATH(m, "0x0 => __GI___open64_nocancel => lookup_fast => __d_lookup_rcu", 2, 2);
	ASSERT_CALLPATH(m, "0x0 => __GI___open64_nocancel", 2, 0);
	ASSERT_CALLPATH(m, "main => f => g => f => g => h", 1, 1);
	ASSERT_CALLPATH(m, "main => f => g => f", 1, 0);
	ASSERT_CALLPATH(m, "main => 0xffffffffc0a1b2c3", 1, 1);
	ASSERT_NULL(stacks_callpath(m, "h"));	/* one frame: the routine */
	ASSERT_EQ(10, ktau_model_callpath_count(ktau_model_thread(m, 0)));
	ktau_stacks_free(s);
	ktau_model_free(m);
}

/* The same text with CRLF line ends counts the same. */
TEST(stacks_perf_crlf)
{
	char *crlf = malloc(2 * sizeof(perf_text)), *w = crlf;
	struct ktau_model *m;
	const char *r;

	ASSERT_NOT_NULL(crlf);
	for (r = perf_text; *r; r++) {
		if (*r == '\n')
			*w++ = '\r';
		*w++ = *r;
	}
	*w = '\0';
	m = stacks_model(crlf, KTAU_STACKS_AUTO, NULL);
	ASSERT_NOT_NULL(m);
	ASSERT_ROUTINE(m, "main", "a.out", 3, 0);
	ASSERT_ROUTINE(m, "h", "a.out", 2, 2);
	ASSERT_ROUTINE(m, "std::function<void (int)>::operator()(int) const", "a.out", 1, 1);
	ASSERT_CALLPATH(m, "0x0 => __GI___open64_nocancel => lookup_fast => __d_lookup_rcu", 2, 2);
	free(crlf);
	ktau_model_free(m);
}

static int print_stack(void *arg, const char *const *frames, size_t depth, uint64_t count)
{
	size_t i;

	fprintf(arg, "%ju ", (uintmax_t)count);
	for (i = 0; i < depth; i++)
		fprintf(arg, "%s%s", i ? ";" : "", frames[i]);
	fputc('\n', arg);
	return 0;
}

TEST(stacks_perf_foreach_gives_the_stacks_root_first)
{
	struct ktau_stacks *s = parse(perf_text, NULL);
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	ASSERT_NOT_NULL(s);
	ASSERT_NOT_NULL(f);
	ASSERT_EQ(0, ktau_stacks_foreach(s, print_stack, f));
	fclose(f);
	ASSERT_STREQ("2 0x0;__GI___open64_nocancel;lookup_fast;__d_lookup_rcu\n"
		     "1 main;f;g;f;g;h\n"
		     "1 main;0xffffffffc0a1b2c3\n"
		     "1 main;std::function<void (int)>::operator()(int) const\n"
		     "1 h\n", buf);
	ASSERT_EQ(-EINVAL, ktau_stacks_foreach(s, NULL, NULL));
	free(buf);
	ktau_stacks_free(s);
}

TEST(stacks_perf_errors)
{
	char deep[KTAU_STACKS_MAX_DEPTH * 12 + 64], *w = deep;
	int i;

	ASSERT_STACKS_ERROR("\tffffffff816dfdb6 x ([k])\n", KTAU_STACKS_PERF, 1,
			    "a stack frame with no event line before it");
	ASSERT_STACKS_ERROR("ev 1: \n\tffffffff816cb6ce lookup_fast+0x2e ([kernel.kall",
			    KTAU_STACKS_PERF, 2,
			    "frame without '(DSO)' at its end: a truncated line? "
			    "(perf script's default fields are needed)");
	ASSERT_STACKS_ERROR("ev 1: \n\tffffffff816cb6ce lookup_fa", KTAU_STACKS_PERF, 2,
			    "frame without '(DSO)' at its end: a truncated line? "
			    "(perf script's default fields are needed)");
	ASSERT_STACKS_ERROR("ev 1: \n\tzzzz foo ([k])\n", KTAU_STACKS_PERF, 2,
			    "expected a frame 'ADDRESS SYMBOL (DSO)', not 'zzzz foo ([k])'");
	ASSERT_STACKS_ERROR("ev 1: \n\tf1ffffffff816dfdb6 foo (x)\n", KTAU_STACKS_PERF, 2,
			    "address 'f1ffffffff816dfdb6' is not a 64-bit hex number");
	ASSERT_STACKS_ERROR("ev 1: \n\tffff foo)\n", KTAU_STACKS_PERF, 2,
			    "frame without '(DSO)' at its end");
	ASSERT_STACKS_ERROR("ev 1: \n\tffff f\001o (x)\n", KTAU_STACKS_PERF, 2,
			    "byte 0x01 at column 8 is not printable ASCII");
	w += sprintf(w, "ev 1:\n");
	for (i = 0; i <= KTAU_STACKS_MAX_DEPTH; i++)
		w += sprintf(w, "\t%x f%d (m)\n", i, i % 7);
	ASSERT_STACKS_ERROR(deep, KTAU_STACKS_PERF, KTAU_STACKS_MAX_DEPTH + 2,
			    "a stack deeper than 1024 frames (from line 2)");
}

/* perf report's "[.] name" / "[k] name" rows: the count in column `col`
 * (0-based, words) or the first percentage times total. */
static int perf_report_value(const char *report, const char *name, int col,
			     uint64_t total, uint64_t *value)
{
	const char *line = report;

	while (*line) {
		const char *end = strchr(line, '\n'), *sym = strstr(line, "] ");

		if (!end)
			end = line + strlen(line);
		if (sym && sym < end && (size_t)(end - sym - 2) == strlen(name) &&
		    !strncmp(sym + 2, name, strlen(name))) {
			double pct;
			unsigned long long n;

			if (col < 0 && sscanf(line, " %lf%%", &pct) == 1) {
				*value = (uint64_t)(pct * (double)total / 100.0 + 0.5);
				return 0;
			}
			if (col == 1 && sscanf(line, " %*f%% %llu", &n) == 1) {
				*value = n;
				return 0;
			}
			return -1;
		}
		line = *end ? end + 1 : end;
	}
	return -1;
}

/* A real perf record -g capture (fixtures/perf-rec-workload.c): every
 * symbol's exclusive and inclusive samples as perf report counted them. */
TEST(stacks_perf_real_capture_agrees_with_perf_report)
{
	struct ktau_stacks *s = load_stacks(test_fixture("perf-script-rec.txt"),
						      KTAU_STACKS_AUTO, test_err());
	char *self = slurp(test_fixture("perf-report-rec-self.txt"), NULL);
	char *children = slurp(test_fixture("perf-report-rec-children.txt"), NULL);
	struct ktau_model *m = ktau_model_new();
	const struct ktau_model_thread *t;
	size_t i, compared = 0;

	ASSERT_NOT_NULL(s);
	ASSERT_NOT_NULL(self);
	ASSERT_NOT_NULL(children);
	ASSERT_NOT_NULL(m);
	ASSERT_EQ_U64(80, ktau_stacks_samples(s));	/* perf record said 80 samples */
	ASSERT_EQ_U64(0, ktau_stacks_empty_samples(s));
	t = ktau_model_add_stacks(m, s, 0, 0, 0, NULL);
	ASSERT_NOT_NULL(t);
	for (i = 0; i < ktau_model_routine_count(t); i++) {
		const struct ktau_model_routine *r = ktau_model_routine(t, i);
		uint64_t excl = 0, incl = 0;

		if (perf_report_value(children, r->name, -1, 80, &incl))
			continue;	/* perf report names unresolved frames otherwise */
		if (perf_report_value(self, r->name, 1, 80, &excl))
			excl = 0;	/* no row: never a leaf */
		if (incl != r->incl_ns || excl != r->excl_ns)
			FAIL("%s: perf report incl %ju excl %ju, ktau %ju %ju", r->name,
			     (uintmax_t)incl, (uintmax_t)excl, (uintmax_t)r->incl_ns,
			     (uintmax_t)r->excl_ns);
		compared++;
	}
	ASSERT_EQ(9, compared);
	ASSERT_ROUTINE(m, "fib", "rec", 67, 67);	/* recursive: once per sample */
	ASSERT_ROUTINE(m, "main", "rec", 80, 0);
	ASSERT_ROUTINE(m, "do_syscall_64", "kernel", 7, 5);
	free(self);
	free(children);
	ktau_stacks_free(s);
	ktau_model_free(m);
}
