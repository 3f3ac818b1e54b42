// SPDX-License-Identifier: GPL-2.0-or-later
/* The profile model: kernel blocks as TAU threads, building by hand, errors. */
#include <errno.h>
#include <float.h>
#include <stdlib.h>

#include "harness.h"
#include "testutil.h"

/* system.ktau's second block (tsc_khz 1000000: one cycle is one ns). */
static struct ktau_model *worker_model(void)
{
	struct ktau_profile *p = load_profile(test_fixture("system.ktau"), NULL);
	struct ktau_model *m = ktau_model_new();

	if (!p || !m || !ktau_model_add_block(m, p, 1, 0, 0, 0)) {
		ktau_model_free(m);
		m = NULL;
	}
	ktau_profile_free(p);
	return m;
}

TEST(model_kernel_block_naming)
{
	struct ktau_model *m = worker_model();
	const struct ktau_model_thread *t;
	const struct ktau_model_routine *r;
	const struct ktau_model_callpath *c;
	const struct ktau_model_event *e;

	ASSERT_NOT_NULL(m);
	ASSERT_EQ(1, ktau_model_thread_count(m));
	t = ktau_model_thread(m, 0);
	ASSERT_STREQ("thread pid 500 tid 501 worker", ktau_model_thread_label(t));
	ASSERT_EQ(3, ktau_model_routine_count(t));
	r = ktau_model_find_routine(t, "sys_write()");
	ASSERT_NOT_NULL(r);
	ASSERT_STREQ("TAU_KERNEL_MERGE | KTAU_SYSCALL", r->group);
	ASSERT_EQ_U64(10, r->calls);
	ASSERT_EQ_U64(3, r->subrs);	/* the NET_RX edge's calls */
	ASSERT_EQ_U64(50000, r->incl_ns);
	ASSERT_EQ_U64(40000, r->excl_ns);
	r = ktau_model_find_routine(t, "NET_RX()");
	ASSERT_NOT_NULL(r);
	ASSERT_STREQ("TAU_KERNEL_MERGE | KTAU_BH", r->group);
	ASSERT_EQ_U64(0, r->subrs);
	ASSERT_EQ(1, ktau_model_callpath_count(t));
	c = ktau_model_callpath(t, 0);
	ASSERT_STREQ("sys_write() => NET_RX()", c->name);
	ASSERT_EQ(2, c->depth);
	ASSERT_STREQ("NET_RX()", c->path[1]);
	ASSERT_EQ_U64(3, c->calls);
	ASSERT_EQ_U64(10000, c->incl_ns);
	ASSERT_EQ(1, ktau_model_event_count(t));
	e = ktau_model_event(t, 0);
	ASSERT_STREQ("read_bytes", e->name);
	ASSERT_EQ_U64(2, e->count);
	ASSERT_NEAR(5, e->min, 0);
	ASSERT_NEAR(300, e->max, 0);
	ASSERT_EQ(6, ktau_model_metadata_count(t));
	ASSERT_STREQ("KTAU comm", ktau_model_metadata(t, 3)->name);
	ASSERT_STREQ("worker", ktau_model_metadata(t, 3)->value);
	ASSERT_NULL(ktau_model_metadata(t, 6));
	ASSERT_EQ(ERANGE, errno);
	ASSERT_NULL(ktau_model_find_routine(t, "sys_nothing()"));
	ASSERT_EQ(ENOENT, errno);
	ktau_model_free(m);
}

TEST(model_kernel_groups_and_cycles)
{
	struct ktau_profile *p = parse_str(
		"ktau-profile 1\ntsc_khz 3000000\nscope thread\n"
		"task kind=thread pid=1 tid=1 comm=x dropped=0\n"
		"func 0 1 a irq 1 1 1\n"
		"func 0 2 b sched 1 3000 3000\n"
		"func 0 3 c exception 1 1 1\n"
		"func 0 4 d kernel 1 1 1\n"
		"func 0 5 e newgroup 1 1 1\n"
		"func 7 2 b sched 2 6000 3000\n"
		"end\n", NULL);
	struct ktau_model *m = ktau_model_new();
	const struct ktau_model_thread *t;
	const struct ktau_model_routine *r;

	ASSERT_NOT_NULL(p);
	ASSERT_NOT_NULL(m);
	t = ktau_model_add_block(m, p, 0, 2, 0, 0);
	ASSERT_NOT_NULL(t);
	ASSERT_STREQ("TAU_KERNEL_MERGE | KTAU_IRQ", ktau_model_find_routine(t, "a()")->group);
	ASSERT_STREQ("TAU_KERNEL_MERGE | KTAU_SCHEDULE", ktau_model_find_routine(t, "b()")->group);
	ASSERT_STREQ("TAU_KERNEL_MERGE | KTAU_EXCEPTION", ktau_model_find_routine(t, "c()")->group);
	ASSERT_STREQ("TAU_KERNEL_MERGE | KTAU_KERNEL", ktau_model_find_routine(t, "d()")->group);
	ASSERT_STREQ("TAU_KERNEL_MERGE | KTAU_NEWGROUP", ktau_model_find_routine(t, "e()")->group);
	/* both user contexts summed; 3000 cycles at 3 GHz = 1000 ns */
	r = ktau_model_find_routine(t, "b()");
	ASSERT_EQ_U64(3, r->calls);
	ASSERT_EQ_U64(3000, r->incl_ns);
	ASSERT_EQ_U64(2000, r->excl_ns);
	/* truncated, never rounded up past incl */
	ASSERT_EQ_U64(0, ktau_model_find_routine(t, "a()")->incl_ns);
	ASSERT_EQ(2, ktau_model_thread_node(t));
	/* same ids again: refused, model unchanged */
	ASSERT_NULL(ktau_model_add_block(m, p, 0, 2, 0, 0));
	ASSERT_EQ(EEXIST, errno);
	ASSERT_NULL(ktau_model_add_block(m, p, 1, 2, 0, 1));
	ASSERT_EQ(ERANGE, errno);
	ASSERT_EQ(1, ktau_model_thread_count(m));
	ktau_profile_free(p);
	ktau_model_free(m);
}

TEST(model_kernel_block_errors_leave_model_unchanged)
{
	struct ktau_profile *zero = ktau_profile_new(KTAU_SCOPE_THREAD, 0);
	struct ktau_profile *huge = parse_str(
		"ktau-profile 1\ntsc_khz 1\nscope thread\n"
		"task kind=thread pid=1 tid=1 comm=x dropped=0\n"
		"func 0 1 a irq 1 18446744073709551615 1\nend\n", NULL);
	struct ktau_model *m = ktau_model_new();

	ASSERT_NOT_NULL(zero);
	ASSERT_NOT_NULL(huge);
	ASSERT_NOT_NULL(ktau_profile_add_block(zero, KTAU_BLOCK_THREAD, 1, 1, "x"));
	ASSERT_NULL(ktau_model_add_block(m, zero, 0, 0, 0, 0));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_NULL(ktau_model_add_block(m, huge, 0, 0, 0, 0));
	ASSERT_EQ(EOVERFLOW, errno);
	ASSERT_EQ(0, ktau_model_thread_count(m));
	ASSERT_NULL(ktau_model_add_block(NULL, huge, 0, 0, 0, 0));
	ASSERT_EQ(EINVAL, errno);
	ktau_profile_free(zero);
	ktau_profile_free(huge);
	ktau_model_free(m);
}

TEST(model_by_hand_sums_and_normalises)
{
	struct ktau_model *m = ktau_model_new();
	struct ktau_model_thread *t;
	const char *path[] = { " main ", "solve", "sys_read()" };
	const struct ktau_model_routine *r;
	const struct ktau_model_event *e;

	ASSERT_NOT_NULL(m);
	t = ktau_model_add_thread(m, 0, 0, 0, NULL);
	ASSERT_NOT_NULL(t);
	ASSERT_STREQ("node 0 context 0 thread 0", ktau_model_thread_label(t));
	ASSERT_EQ(0, ktau_model_add_routine(t, "say  \"hi\"\n\tnow", "G", 1, 0, 20, 10));
	ASSERT_EQ(0, ktau_model_add_routine(t, "say 'hi' now", "other", 2, 1, 20, 10));
	ASSERT_EQ(1, ktau_model_routine_count(t));
	r = ktau_model_routine(t, 0);
	ASSERT_STREQ("say 'hi' now", r->name);
	ASSERT_STREQ("G", r->group);	/* the first group given stays */
	ASSERT_EQ_U64(3, r->calls);
	ASSERT_EQ_U64(40, r->incl_ns);
	/* a callpath creates its elements' flat entries; a later group sticks */
	ASSERT_EQ(0, ktau_model_add_callpath(t, path, 3, 4, 0, 100, 50));
	ASSERT_EQ(0, ktau_model_add_callpath(t, path, 3, 1, 0, 10, 5));
	ASSERT_EQ(1, ktau_model_callpath_count(t));
	ASSERT_STREQ("main => solve => sys_read()", ktau_model_callpath(t, 0)->name);
	ASSERT_EQ_U64(5, ktau_model_callpath(t, 0)->calls);
	ASSERT_EQ(4, ktau_model_routine_count(t));
	ASSERT_STREQ("TAU_DEFAULT", ktau_model_find_routine(t, "main")->group);
	ASSERT_EQ(0, ktau_model_add_routine(t, "main", "USER", 1, 1, 5, 5));
	ASSERT_STREQ("USER", ktau_model_find_routine(t, "main")->group);
	ASSERT_EQ(0, ktau_model_add_routine(t, "main", NULL, 0, 0, 0, 0));
	ASSERT_STREQ("USER", ktau_model_find_routine(t, "main")->group);
	/* events merge */
	ASSERT_EQ(0, ktau_model_add_event(t, "bytes", 0, 0, 0, 0, 0));
	ASSERT_EQ(0, ktau_model_add_event(t, "bytes", 2, 4, 8, 12, 80));
	ASSERT_EQ(0, ktau_model_add_event(t, "bytes", 1, 2, 2, 2, 4));
	e = ktau_model_event(t, 0);
	ASSERT_EQ_U64(3, e->count);
	ASSERT_NEAR(2, e->min, 0);
	ASSERT_NEAR(8, e->max, 0);
	ASSERT_NEAR(14, e->sum, 0);
	ASSERT_NEAR(84, e->sumsq, 0);
	ASSERT_EQ(0, ktau_model_add_metadata(t, "k\xc3\xa9y", ""));
	ASSERT_STREQ("k??y", ktau_model_metadata(t, 0)->name);
	ktau_model_free(m);
}

TEST(model_by_hand_errors)
{
	struct ktau_model *m = ktau_model_new();
	struct ktau_model_thread *t;
	const char *bad_path[] = { "a", "b => c" };
	const char *null_path[] = { "a", NULL };
	const char *ok_path[] = { "a", "b" };

	ASSERT_NOT_NULL(m);
	t = ktau_model_add_thread(m, 1, 2, 3, "t");
	ASSERT_NOT_NULL(t);
	ASSERT_NULL(ktau_model_add_thread(m, 1, 2, 3, "again"));
	ASSERT_EQ(EEXIST, errno);
	ASSERT_NULL(ktau_model_add_thread(NULL, 0, 0, 0, NULL));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-EINVAL, ktau_model_add_routine(t, "a => b", NULL, 1, 0, 1, 1));
	ASSERT_EQ(-EINVAL, ktau_model_add_routine(t, " \n ", NULL, 1, 0, 1, 1));
	ASSERT_EQ(-EINVAL, ktau_model_add_routine(t, NULL, NULL, 1, 0, 1, 1));
	ASSERT_EQ(-EINVAL, ktau_model_add_routine(NULL, "a", NULL, 1, 0, 1, 1));
	ASSERT_EQ(-EINVAL, ktau_model_add_routine(t, "a", "", 1, 0, 1, 1));
	ASSERT_EQ(-EINVAL, ktau_model_add_callpath(t, ok_path, 1, 1, 0, 1, 1));
	ASSERT_EQ(-EINVAL, ktau_model_add_callpath(t, bad_path, 2, 1, 0, 1, 1));
	ASSERT_EQ(-EINVAL, ktau_model_add_callpath(t, null_path, 2, 1, 0, 1, 1));
	ASSERT_EQ(-EINVAL, ktau_model_add_callpath(t, NULL, 2, 1, 0, 1, 1));
	ASSERT_EQ(0, ktau_model_routine_count(t));	/* nothing half-added */
	ASSERT_EQ(-EINVAL, ktau_model_add_event(t, "e", 1, NAN, 0, 0, 0));
	ASSERT_EQ(-EINVAL, ktau_model_add_event(t, "e", 1, 0, INFINITY, 0, 0));
	ASSERT_EQ(-EINVAL, ktau_model_add_event(t, "", 1, 0, 0, 0, 0));
	ASSERT_EQ(-EINVAL, ktau_model_add_metadata(t, "", "v"));
	ASSERT_EQ(-EINVAL, ktau_model_add_metadata(t, "n", NULL));
	/* overflow: refused, nothing changed */
	ASSERT_EQ(0, ktau_model_add_routine(t, "a", NULL, UINT64_MAX, 0, 1, 1));
	ASSERT_EQ(-EOVERFLOW, ktau_model_add_routine(t, "a", NULL, 1, 0, 1, 1));
	ASSERT_EQ_U64(1, ktau_model_routine(t, 0)->incl_ns);
	ASSERT_EQ(0, ktau_model_add_callpath(t, ok_path, 2, UINT64_MAX, 0, 1, 1));
	ASSERT_EQ(-EOVERFLOW, ktau_model_add_callpath(t, ok_path, 2, 1, 0, 0, 0));
	ASSERT_EQ(0, ktau_model_add_event(t, "e", UINT64_MAX, 0, 0, 0, 0));
	ASSERT_EQ(-EOVERFLOW, ktau_model_add_event(t, "e", 1, 0, 0, 0, 0));
	ASSERT_EQ(0, ktau_model_add_event(t, "f", 1, 0, 0, DBL_MAX, 0));
	ASSERT_EQ(-EOVERFLOW, ktau_model_add_event(t, "f", 1, 0, 0, DBL_MAX, 0));
	ASSERT_NULL(ktau_model_thread(m, 1));
	ASSERT_EQ(ERANGE, errno);
	ASSERT_NULL(ktau_model_routine(t, 5));
	ASSERT_NULL(ktau_model_callpath(t, 5));
	ASSERT_NULL(ktau_model_event(t, 5));
	ASSERT_EQ(0, ktau_model_thread_count(NULL));
	ktau_model_free(NULL);
	ktau_model_free(m);
}

TEST(model_many_names)
{
	struct ktau_model *m = ktau_model_new();
	struct ktau_model_thread *t;
	char name[32];
	int i;

	ASSERT_NOT_NULL(m);
	t = ktau_model_add_thread(m, 0, 0, 0, NULL);
	ASSERT_NOT_NULL(t);
	for (i = 0; i < 3000; i++) {
		snprintf(name, sizeof(name), "f%d", i % 1000);
		ASSERT_EQ(0, ktau_model_add_routine(t, name, NULL, 1, 0, 2, 1));
	}
	ASSERT_EQ(1000, ktau_model_routine_count(t));
	ASSERT_EQ_U64(3, ktau_model_find_routine(t, "f999")->calls);
	ktau_model_free(m);
}
