// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The user-level profiler's pure parts, with times made up so that every
 * number is exact: callpath trees (inclusive, exclusive, recursion, open
 * frames, longjmp) and the merge with a kernel profile read from a fixture
 * (fixtures/userprof-thread.ktau, contexts 0..3, tsc_khz 1000000 so that a
 * cycle is a nanosecond). The merged model is also written as TAU files and
 * read back with tau_reader.c.
 */
#define _GNU_SOURCE
#include <stdlib.h>

#include "harness.h"
#include "tau_reader.h"
#include "testutil.h"
#include "prof/prof.h"

enum { MAIN, IO, COMPUTE, SOLVE };

static const char *const timer_names[] = {
	[MAIN] = "main", [IO] = "io", [COMPUTE] = "compute",
	[SOLVE] = "solve \"it\"  now",
};

static const char *fixed_name(void *arg, uint32_t timer, const char **group)
{
	(void)arg;
	*group = "TAU_USER";
	return timer < 4 ? timer_names[timer] : NULL;
}

static const struct ktau_timer_names names = { fixed_name, NULL, NULL };

static int enter_at(struct ktau_ut_tree *t, uint32_t timer, uint64_t now)
{
	struct ktau_ut_frame *f = ktau__ut_push(t, timer);

	if (!f)
		return -1;
	ktau__ut_set_start(f, now);
	return 0;
}

/* main [0, 10000]: io [1000, 6000], compute [6000, 9000], io [9000, 9500] */
static int build_main_io_compute(struct ktau_ut_tree *t)
{
	int ret = ktau__ut_init(t);

	ret = ret ?: enter_at(t, MAIN, 1);	/* start 0 means "not set" */
	ret = ret ?: enter_at(t, IO, 1001);
	ret = ret ?: ktau__ut_pop(t, IO, 6001);
	ret = ret ?: enter_at(t, COMPUTE, 6001);
	ret = ret ?: ktau__ut_pop(t, COMPUTE, 9001);
	ret = ret ?: enter_at(t, IO, 9001);
	ret = ret ?: ktau__ut_pop(t, IO, 9501);
	return ret ?: ktau__ut_pop(t, MAIN, 10001);
}

#define ASSERT_SAMPLE(s, calls_, subrs_, incl_, excl_)			\
	do {								\
		ASSERT_EQ_U64(calls_, (s).calls);			\
		ASSERT_EQ_U64(subrs_, (s).subrs);			\
		ASSERT_EQ_U64(incl_, (s).incl);				\
		ASSERT_EQ_U64(excl_, (s).excl);				\
	} while (0)

TEST(userprof_tree_inclusive_exclusive_exact)
{
	struct ktau_ut_tree t;
	struct ktau_ut_sample *s;
	size_t n;

	ASSERT_EQ(0, build_main_io_compute(&t));
	ASSERT_EQ(0, ktau__ut_context(&t));
	s = ktau__ut_snapshot(&t, 20000, &n);
	ASSERT_NOT_NULL(s);
	ASSERT_EQ(3, n);	/* main, main => io, main => compute */
	ASSERT_EQ(MAIN, s[0].timer);
	ASSERT_EQ(KTAU_UT_NONE, s[0].parent);
	ASSERT_SAMPLE(s[0], 1, 3, 10000, 1500);
	ASSERT_EQ(IO, s[1].timer);
	ASSERT_EQ(0, s[1].parent);
	ASSERT_SAMPLE(s[1], 2, 0, 5500, 5500);
	ASSERT_SAMPLE(s[2], 1, 0, 3000, 3000);
	free(s);
	ktau__ut_free(&t);
}

TEST(userprof_tree_context_ids_follow_the_stack)
{
	struct ktau_ut_tree t;

	ASSERT_EQ(0, ktau__ut_init(&t));
	ASSERT_EQ(0, enter_at(&t, MAIN, 1));
	ASSERT_EQ(1, ktau__ut_context(&t));
	ASSERT_EQ(0, enter_at(&t, IO, 2));
	ASSERT_EQ(2, ktau__ut_context(&t));
	ASSERT_EQ(0, ktau__ut_pop(&t, IO, 3));
	ASSERT_EQ(1, ktau__ut_context(&t));
	ASSERT_EQ(0, enter_at(&t, COMPUTE, 4));
	ASSERT_EQ(3, ktau__ut_context(&t));
	ASSERT_EQ(0, ktau__ut_pop(&t, COMPUTE, 5));
	ASSERT_EQ(0, enter_at(&t, IO, 6));	/* the same callpath again */
	ASSERT_EQ(2, ktau__ut_context(&t));
	ktau__ut_free(&t);
}

TEST(userprof_tree_recursion)
{
	struct ktau_ut_tree t;
	struct ktau_ut_sample *s;
	struct ktau_merge_stats st = { 0 };
	struct ktau_model *m = ktau_model_new();
	struct ktau_model_thread *th;
	const struct ktau_model_routine *r;
	size_t n;

	/* solve [0, 1000] { solve [100, 900] { solve [200, 300] } } */
	ASSERT_EQ(0, ktau__ut_init(&t));
	ASSERT_EQ(0, enter_at(&t, MAIN, 1));
	ASSERT_EQ(0, enter_at(&t, MAIN, 101));
	ASSERT_EQ(0, enter_at(&t, MAIN, 201));
	ASSERT_EQ(0, ktau__ut_pop(&t, MAIN, 301));
	ASSERT_EQ(0, ktau__ut_pop(&t, MAIN, 901));
	ASSERT_EQ(0, ktau__ut_pop(&t, MAIN, 1001));
	s = ktau__ut_snapshot(&t, 5000, &n);
	ASSERT_NOT_NULL(s);
	ASSERT_EQ(3, n);
	ASSERT_SAMPLE(s[0], 1, 1, 1000, 200);
	ASSERT_SAMPLE(s[1], 1, 1, 800, 700);
	ASSERT_SAMPLE(s[2], 1, 0, 100, 100);
	th = ktau_model_add_thread(m, 0, 0, 0, NULL);
	ASSERT_EQ(0, ktau__merge_thread(th, s, n, &names, NULL, 1000000, &st));
	/* flat: every call, but the inclusive time of the outermost only */
	r = ktau_model_find_routine(th, "main");
	ASSERT_NOT_NULL(r);
	ASSERT_EQ_U64(3, r->calls);
	ASSERT_EQ_U64(1000, r->incl_ns);
	ASSERT_EQ_U64(1000, r->excl_ns);
	ASSERT_EQ(2, ktau_model_callpath_count(th));
	ASSERT_STREQ("main => main", ktau_model_callpath(th, 0)->name);
	ASSERT_EQ_U64(800, ktau_model_callpath(th, 0)->incl_ns);
	ASSERT_STREQ("main => main => main", ktau_model_callpath(th, 1)->name);
	ASSERT_EQ_U64(100, ktau_model_callpath(th, 1)->excl_ns);
	free(s);
	ktau_model_free(m);
	ktau__ut_free(&t);
}

TEST(userprof_tree_stop_outer_timer_and_errors)
{
	struct ktau_ut_tree t;
	struct ktau_ut_sample *s;
	size_t n;

	ASSERT_EQ(0, ktau__ut_init(&t));
	ASSERT_EQ(0, enter_at(&t, MAIN, 1));
	ASSERT_EQ(0, enter_at(&t, IO, 11));
	ASSERT_EQ(0, enter_at(&t, COMPUTE, 21));
	ASSERT_EQ(-EINVAL, ktau__ut_pop(&t, SOLVE, 30));	/* not running */
	ASSERT_EQ(3, ktau__ut_context(&t));
	/* as after a longjmp out of io: io and compute stop with it */
	ASSERT_EQ(0, ktau__ut_pop(&t, IO, 51));
	ASSERT_EQ(1, ktau__ut_context(&t));
	ASSERT_EQ(0, ktau__ut_pop(&t, MAIN, 101));
	ASSERT_EQ(-EINVAL, ktau__ut_pop(&t, MAIN, 102));
	s = ktau__ut_snapshot(&t, 200, &n);
	ASSERT_NOT_NULL(s);
	ASSERT_EQ(3, n);
	ASSERT_SAMPLE(s[0], 1, 1, 100, 60);
	ASSERT_SAMPLE(s[1], 1, 1, 40, 10);
	ASSERT_SAMPLE(s[2], 1, 0, 30, 30);
	free(s);
	ktau__ut_free(&t);
}

/* A stop that reads the clock itself: the context word holds the parent's
 * context once it returns, the clock it read is no earlier than one read
 * before it, and the frames it left are timed to that clock. */
TEST(userprof_tree_stop_stores_the_context_word)
{
	struct ktau_ut_tree t;
	struct ktau_ut_sample *s;
	volatile uint32_t word = 77;
	uint64_t before, now = 0;
	uint32_t ctx;
	size_t n;

	ASSERT_EQ(0, ktau__ut_init(&t));
	ASSERT_EQ(-EINVAL, ktau__ut_stop(&t, MAIN, &word, &now));	/* nothing runs */
	ASSERT_EQ(77, word);
	before = ktau__cycles();
	ASSERT_EQ(0, enter_at(&t, MAIN, before));
	ASSERT_EQ(0, enter_at(&t, IO, before));
	ASSERT_EQ(0, enter_at(&t, COMPUTE, before));
	ASSERT_EQ(-EINVAL, ktau__ut_stop(&t, SOLVE, &word, &now));
	ASSERT_EQ(77, word);
	ASSERT_EQ(3, ktau__ut_context(&t));
	/* stopping io (compute with it) leaves main running: context 1 */
	ASSERT_EQ(0, ktau__ut_stop(&t, IO, &word, &now));
	ASSERT_EQ(1, word);
	ASSERT_EQ(1, ktau__ut_context(&t));
	ASSERT_TRUE(now >= before);
	s = ktau__ut_snapshot(&t, now, &n);
	ASSERT_NOT_NULL(s);
	ASSERT_EQ(3, n);
	ASSERT_SAMPLE(s[1], 1, 1, now - before, 0);	/* io: compute took it all */
	ASSERT_SAMPLE(s[2], 1, 0, now - before, now - before);
	free(s);
	ASSERT_EQ(0, ktau__ut_stop(&t, MAIN, &word, &now));
	ASSERT_EQ(0, word);
	ASSERT_EQ(0, ktau__ut_context(&t));
	/* a frame too deep to record: its stop keeps the context */
	for (n = 0; n < KTAU_UT_MAX_DEPTH; n++)
		ASSERT_EQ(0, enter_at(&t, MAIN, 300 + n));
	ASSERT_NULL(ktau__ut_push(&t, IO));
	word = 77;
	ctx = ktau__ut_context(&t);
	ASSERT_EQ(0, ktau__ut_stop(&t, IO, &word, &now));
	ASSERT_EQ(ctx, word);
	ASSERT_EQ(ctx, ktau__ut_context(&t));
	ASSERT_EQ(0, t.overflow);
	ASSERT_EQ(KTAU_UT_MAX_DEPTH, t.depth);
	ktau__ut_free(&t);
}

TEST(userprof_tree_snapshot_counts_open_frames)
{
	struct ktau_ut_tree t;
	struct ktau_ut_sample *s;
	size_t n;

	/* main from 100, io from 300 with compute [400, 450] done: at 1000 */
	ASSERT_EQ(0, ktau__ut_init(&t));
	ASSERT_EQ(0, enter_at(&t, MAIN, 100));
	ASSERT_EQ(0, enter_at(&t, IO, 300));
	ASSERT_EQ(0, enter_at(&t, COMPUTE, 400));
	ASSERT_EQ(0, ktau__ut_pop(&t, COMPUTE, 450));
	s = ktau__ut_snapshot(&t, 1000, &n);
	ASSERT_NOT_NULL(s);
	ASSERT_SAMPLE(s[0], 1, 1, 900, 200);
	ASSERT_SAMPLE(s[1], 1, 1, 700, 650);
	ASSERT_SAMPLE(s[2], 1, 0, 50, 50);
	free(s);
	/* the snapshot changed nothing: the frames still run */
	ASSERT_EQ(2, ktau__ut_context(&t));
	ASSERT_EQ(0, ktau__ut_pop(&t, MAIN, 2000));
	s = ktau__ut_snapshot(&t, 3000, &n);
	ASSERT_NOT_NULL(s);
	ASSERT_SAMPLE(s[0], 1, 1, 1900, 200);
	free(s);
	ktau__ut_free(&t);
}

TEST(userprof_tree_too_deep_is_dropped_not_lost)
{
	struct ktau_ut_tree t;
	struct ktau_ut_sample *s;
	size_t n, i;

	ASSERT_EQ(0, ktau__ut_init(&t));
	for (i = 0; i < KTAU_UT_MAX_DEPTH; i++)
		ASSERT_EQ(0, enter_at(&t, MAIN, 1 + i));
	ASSERT_NULL(ktau__ut_push(&t, IO));	/* one too deep */
	ASSERT_EQ_U64(1, t.dropped);
	ASSERT_EQ(KTAU_UT_MAX_DEPTH, ktau__ut_context(&t));
	ASSERT_EQ(0, ktau__ut_pop(&t, IO, 5000));	/* its stop */
	ASSERT_EQ(0, ktau__ut_pop(&t, MAIN, 6000));	/* the innermost main */
	ASSERT_EQ(KTAU_UT_MAX_DEPTH - 1, ktau__ut_context(&t));
	s = ktau__ut_snapshot(&t, 6000, &n);
	ASSERT_NOT_NULL(s);
	ASSERT_EQ(KTAU_UT_MAX_DEPTH, n);
	ASSERT_EQ_U64(6000 - KTAU_UT_MAX_DEPTH, s[n - 1].incl);
	free(s);
	ktau__ut_free(&t);
}

/* The thread of fixtures/userprof-thread.ktau merged with the tree above:
 * contexts 1 main, 2 main => io, 3 main => compute. */
static struct ktau_model *merged_fixture(struct ktau_merge_stats *st)
{
	struct ktau_profile *p = load_profile(test_fixture("userprof-thread.ktau"),
							NULL);
	struct ktau_model *m = ktau_model_new();
	struct ktau_model_thread *th = m ? ktau_model_add_thread(m, 0, 0, 0, NULL) : NULL;
	struct ktau_ut_sample *s = NULL;
	struct ktau_ut_tree t;
	size_t n = 0;
	int ret = -1;

	if (th && p && !build_main_io_compute(&t)) {
		s = ktau__ut_snapshot(&t, 20000, &n);
		if (s)
			ret = ktau__merge_thread(th, s, n, &names, ktau_profile_block(p, 0),
						 ktau_profile_tsc_khz(p), st);
		ktau__ut_free(&t);
	}
	free(s);
	ktau_profile_free(p);
	if (ret) {
		ktau_model_free(m);
		return NULL;
	}
	return m;
}

static const struct ktau_model_callpath *find_callpath(const struct ktau_model_thread *t,
						       const char *name)
{
	size_t i;

	for (i = 0; i < ktau_model_callpath_count(t); i++)
		if (!strcmp(ktau_model_callpath(t, i)->name, name))
			return ktau_model_callpath(t, i);
	return NULL;
}

#define ASSERT_ROUTINE(t, name, group_, calls_, subrs_, incl_, excl_)	\
	do {								\
		const struct ktau_model_routine *r_ = ktau_model_find_routine(t, name); \
		ASSERT_NOT_NULL(r_);					\
		ASSERT_STREQ(group_, r_->group);			\
		ASSERT_EQ_U64(calls_, r_->calls);			\
		ASSERT_EQ_U64(subrs_, r_->subrs);			\
		ASSERT_EQ_U64(incl_, r_->incl_ns);			\
		ASSERT_EQ_U64(excl_, r_->excl_ns);			\
	} while (0)

#define ASSERT_PATH(t, name, calls_, subrs_, incl_, excl_)		\
	do {								\
		const struct ktau_model_callpath *c_ = find_callpath(t, name); \
		if (!c_)						\
			FAIL("no callpath \"%s\"", name);		\
		ASSERT_EQ_U64(calls_, c_->calls);			\
		ASSERT_EQ_U64(subrs_, c_->subrs);			\
		ASSERT_EQ_U64(incl_, c_->incl_ns);			\
		ASSERT_EQ_U64(excl_, c_->excl_ns);			\
	} while (0)

TEST(userprof_merge_fixture_exact)
{
	struct ktau_merge_stats st = { 0 };
	struct ktau_model *m = merged_fixture(&st);
	const struct ktau_model_thread *t;
	const struct ktau_model_event *e;

	ASSERT_NOT_NULL(m);
	t = ktau_model_thread(m, 0);
	/* user routines lose the kernel time under them, keep their inclusive */
	ASSERT_ROUTINE(t, "main", "TAU_USER", 1, 3 + 10, 10000, 1500 - 200);
	ASSERT_ROUTINE(t, "io", "TAU_USER", 2, 1000 + 1, 5500, 5500 - 4000 - 100);
	ASSERT_ROUTINE(t, "compute", "TAU_USER", 1, 4, 3000, 3000 - 80);
	ASSERT_ROUTINE(t, KTAU_NO_USER_CONTEXT, "TAU_KERNEL_MERGE", 1, 4, 1000, 0);
	/* kernel routines flat: all contexts */
	ASSERT_ROUTINE(t, "sys_read()", "TAU_KERNEL_MERGE | KTAU_SYSCALL", 1000, 6, 4000, 2500);
	ASSERT_ROUTINE(t, "page_fault()", "TAU_KERNEL_MERGE | KTAU_EXCEPTION", 5, 0, 700, 700);
	ASSERT_ROUTINE(t, "schedule_vol()", "TAU_KERNEL_MERGE | KTAU_SCHEDULE", 5, 0, 1200, 1200);
	ASSERT_ROUTINE(t, "irq()", "TAU_KERNEL_MERGE | KTAU_IRQ", 4, 0, 80, 80);
	ASSERT_ROUTINE(t, "sys_getpid()", "TAU_KERNEL_MERGE | KTAU_SYSCALL", 10, 0, 200, 200);
	ASSERT_ROUTINE(t, "sys_execve()", "TAU_KERNEL_MERGE | KTAU_SYSCALL", 1, 0, 700, 700);
	ASSERT_EQ(10, ktau_model_routine_count(t));
	/* kernel routines under the user callpath that was running */
	ASSERT_PATH(t, "main => io", 2, 1001, 5500, 1400);
	ASSERT_PATH(t, "main => compute", 1, 4, 3000, 2920);
	ASSERT_PATH(t, "main => sys_getpid()", 10, 0, 200, 200);
	ASSERT_PATH(t, "main => io => sys_read()", 1000, 0, 4000, 2500);
	ASSERT_PATH(t, "main => io => page_fault()", 1, 0, 100, 100);
	ASSERT_PATH(t, "main => io => sys_read() => schedule_vol()", 5, 0, 1200, 1200);
	ASSERT_PATH(t, "main => io => sys_read() => page_fault()", 1, 0, 300, 300);
	ASSERT_PATH(t, "main => compute => irq()", 4, 0, 80, 80);
	ASSERT_PATH(t, KTAU_NO_USER_CONTEXT " => sys_execve()", 1, 0, 700, 700);
	ASSERT_PATH(t, KTAU_NO_USER_CONTEXT " => page_fault()", 3, 0, 300, 300);
	ASSERT_EQ(10, ktau_model_callpath_count(t));
	ASSERT_EQ(2, ktau_model_event_count(t));
	e = ktau_model_event(t, 0);
	ASSERT_STREQ("read_bytes", e->name);
	ASSERT_EQ_U64(1000, e->count);
	e = ktau_model_event(t, 1);
	ASSERT_STREQ("read_bytes : main => io", e->name);
	ASSERT_NEAR(64000, e->sum, 0);
	ASSERT_EQ_U64(0, st.unknown_ctx_records);
	ASSERT_EQ_U64(0, st.clamped_nodes);
	ktau_model_free(m);
}

TEST(userprof_merge_unknown_context_and_clamp)
{
	const char *text =
		"ktau-profile 1\ntsc_khz 1000000\nscope thread\n"
		"task kind=thread pid=1 tid=1 comm=x dropped=0\n"
		"func 9 39 getpid syscall 2 20 20\n"
		"func 1 0 read syscall 1 50000 50000\nend\n";
	struct ktau_profile *p = parse_str(text, NULL);
	struct ktau_merge_stats st = { 0 };
	struct ktau_model *m = ktau_model_new();
	struct ktau_model_thread *t = ktau_model_add_thread(m, 0, 0, 0, NULL);
	struct ktau_ut_sample one = { .timer = MAIN, .parent = KTAU_UT_NONE, .calls = 1,
				      .incl = 1000, .excl = 1000 };

	ASSERT_NOT_NULL(p);
	ASSERT_EQ(0, ktau__merge_thread(t, &one, 1, &names, ktau_profile_block(p, 0),
					 1000000, &st));
	ASSERT_EQ_U64(1, st.unknown_ctx_records);	/* ctx 9 of a 1-node tree */
	ASSERT_EQ_U64(1, st.clamped_nodes);		/* 50000 of kernel in 1000 */
	ASSERT_ROUTINE(t, "main", "TAU_USER", 1, 1, 1000, 0);
	ASSERT_PATH(t, KTAU_NO_USER_CONTEXT " => sys_getpid()", 2, 0, 20, 20);
	ASSERT_EQ(-EINVAL, ktau__merge_thread(t, &one, 1, &names, NULL, 0, &st));
	ktau_profile_free(p);
	ktau_model_free(m);
}

/* The merged model as TAU files, read back by the independent reader:
 * names with spaces and quotes, callpaths with "=>", times in µs. */
TEST(userprof_merged_tau_file_reads_back)
{
	struct ktau_merge_stats st = { 0 };
	struct ktau_model *m = merged_fixture(&st);
	struct ktau_model_thread *t;
	const char *path[] = { "main", timer_names[SOLVE], "sys_read()" };
	char *dir = make_tmpdir(), file[4200], *text, err[512] = "", buf[256];
	const struct tau_entry *e;
	struct tau_profile tp;
	size_t kids;

	ASSERT_NOT_NULL(m);
	ASSERT_NOT_NULL(dir);
	t = (struct ktau_model_thread *)ktau_model_thread(m, 0);
	ASSERT_EQ(0, ktau_model_add_callpath(t, path, 3, 7, 0, 7000, 7000));
	ASSERT_EQ(0, ktau_model_add_metadata(t, "Command Line", "./a \"b\" < c & d"));
	ASSERT_EQ(0, ktau_model_write_tau(m, dir));
	snprintf(file, sizeof(file), "%s/profile.0.0.0", dir);
	text = slurp(file, NULL);
	ASSERT_NOT_NULL(text);
	if (tau_parse(text, &tp, err, sizeof(err)))
		FAIL("%s", err);
	ASSERT_STREQ("TIME", tp.metric);
	e = tau_find(&tp, "main => io => sys_read()");
	ASSERT_NOT_NULL(e);
	ASSERT_EQ_U64(1000, e->calls);
	ASSERT_NEAR(4.0, e->incl, 1e-9);
	ASSERT_NEAR(2.5, e->excl, 1e-9);
	ASSERT_STREQ("TAU_CALLPATH | TAU_KERNEL_MERGE", e->group);
	e = tau_find(&tp, "io");
	ASSERT_NOT_NULL(e);
	ASSERT_NEAR(5.5, e->incl, 1e-9);
	ASSERT_NEAR(1.4, e->excl, 1e-9);
	/* inclusive = exclusive + children, kernel children included */
	ASSERT_NEAR(e->incl - e->excl, tau_children_incl(&tp, "main => io", &kids), 1e-9);
	ASSERT_EQ(2, kids);
	e = tau_find(&tp, "main");
	ASSERT_NEAR(e->incl - e->excl, tau_children_incl(&tp, "main", &kids), 1e-9);
	ASSERT_EQ(3, kids);	/* io, compute, sys_getpid() */
	/* '"' became '\'', the blank run one blank; " => " still splits */
	e = tau_find(&tp, "main => solve 'it' now => sys_read()");
	ASSERT_NOT_NULL(e);
	ASSERT_NOT_NULL(tau_find(&tp, "solve 'it' now"));
	ASSERT_STREQ("sys_read()", strrchr(e->name, '>') + 2);
	ASSERT_STREQ("./a 'b' < c & d", tau_metadata(&tp, "Command Line", buf, sizeof(buf)));
	ASSERT_EQ(2, tp.nr_events);
	ASSERT_NOT_NULL(tau_find_event(&tp, "read_bytes : main => io"));
	ASSERT_NEAR(64, tau_find_event(&tp, "read_bytes")->mean, 0);
	tau_free(&tp);
	free(text);
	remove_tree(dir);
	free(dir);
	ktau_model_free(m);
}

/* A v2 kernel path goes whole under the user callpath that entered the
 * kernel: main => sys_read() => page_fault() => irq(). */
TEST(userprof_merge_v2_full_kernel_paths)
{
	const char *text =
		"ktau-profile 2\ntsc_khz 1000000\nscope thread\n"
		"task kind=thread pid=1 tid=1 comm=x dropped=0\n"
		"func 1 0 read syscall 1 500 200\n"
		"func 1 470 page_fault exception 1 300 100\n"
		"func 1 469 irq irq 1 200 200\n"
		"path 1 0 read syscall 1 500 200\n"
		"path 1 0,470 page_fault exception 1 300 100\n"
		"path 1 0,470,469 irq irq 1 200 200\nend\n";
	struct ktau_profile *p = parse_str(text, NULL);
	struct ktau_merge_stats st = { 0 };
	struct ktau_model *m = ktau_model_new();
	struct ktau_model_thread *t = ktau_model_add_thread(m, 0, 0, 0, NULL);
	struct ktau_ut_sample one = { .timer = MAIN, .parent = KTAU_UT_NONE, .calls = 1,
				      .incl = 1000, .excl = 1000 };

	ASSERT_NOT_NULL(p);
	ASSERT_EQ(0, ktau__merge_thread(t, &one, 1, &names, ktau_profile_block(p, 0),
					 1000000, &st));
	ASSERT_EQ_U64(0, st.clamped_nodes);
	ASSERT_ROUTINE(t, "main", "TAU_USER", 1, 1, 1000, 500);
	ASSERT_PATH(t, "main => sys_read()", 1, 0, 500, 200);
	ASSERT_PATH(t, "main => sys_read() => page_fault()", 1, 0, 300, 100);
	ASSERT_PATH(t, "main => sys_read() => page_fault() => irq()", 1, 0, 200, 200);
	ASSERT_NULL(find_callpath(t, "main => page_fault() => irq()"));
	ASSERT_NULL(find_callpath(t, "page_fault() => irq()"));
	ktau_profile_free(p);
	ktau_model_free(m);
}

/* ---- atomic events (uevents.c) and their merge ---- */

static const char *event_name(void *arg, uint32_t event)
{
	(void)arg;
	return event == 0 ? "bytes" : NULL;
}

TEST(userprof_events_table_and_merge)
{
	static const struct ktau_timer_names with_events = { fixed_name, NULL, event_name };
	struct ktau_ue_table table = { 0 };
	struct ktau_ut_tree tree;
	struct ktau_ut_sample *nodes;
	struct ktau_ue_sample *samples;
	struct ktau_model *m = ktau_model_new();
	struct ktau_model_thread *t;
	const struct ktau_model_event *e;
	size_t n = 0, nr = 0;

	ASSERT_NOT_NULL(m);
	ASSERT_EQ(0, build_main_io_compute(&tree));	/* nodes: main 0, io 1, compute 2 */
	nodes = ktau__ut_snapshot(&tree, 10001, &n);
	ASSERT_NOT_NULL(nodes);
	ASSERT_EQ(3, n);
	ktau__ue_add(&table, 0, 0, 4);		/* no timer */
	ktau__ue_add(&table, 0, 2, 10);		/* main => io */
	ktau__ue_add(&table, 0, 2, 30);
	ktau__ue_add(&table, 0, 99, 1);		/* a context beyond the tree: flat only */
	ktau__ue_add(&table, 7, 1, 5);		/* an id without a name */
	samples = ktau__ue_snapshot(&table, &nr);
	ASSERT_NOT_NULL(samples);
	ASSERT_EQ(4, nr);			/* (event, ctx) pairs */
	ASSERT_EQ_U64(2, samples[1].count);
	ASSERT_NEAR(10, samples[1].min, 0);
	ASSERT_NEAR(30, samples[1].max, 0);
	ASSERT_NEAR(1000, samples[1].sumsq, 0);
	t = ktau_model_add_thread(m, 0, 0, 0, NULL);
	ASSERT_NOT_NULL(t);
	ASSERT_EQ(0, ktau__merge_events(t, nodes, n, &with_events, samples, nr));
	ASSERT_EQ(-EINVAL, ktau__merge_events(t, nodes, n, &with_events, NULL, 1));
	ASSERT_EQ(4, ktau_model_event_count(t));
	e = ktau_model_event(t, 0);
	ASSERT_STREQ("bytes", e->name);
	ASSERT_EQ_U64(4, e->count);
	ASSERT_NEAR(45, e->sum, 0);
	ASSERT_NEAR(1, e->min, 0);
	e = ktau_model_event(t, 1);
	ASSERT_STREQ("bytes : main => io", e->name);
	ASSERT_EQ_U64(2, e->count);
	ASSERT_NEAR(40, e->sum, 0);
	ASSERT_STREQ("[unknown event]", ktau_model_event(t, 2)->name);
	ASSERT_STREQ("[unknown event] : main", ktau_model_event(t, 3)->name);
	free(samples);
	free(nodes);
	ktau__ue_free(&table);
	ktau__ut_free(&tree);
	ktau_model_free(m);
}
