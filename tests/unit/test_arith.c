// SPDX-License-Identifier: GPL-2.0-or-later
/* Sums and differences of blocks and profiles, checked to the cycle. */
#include <errno.h>

#include "harness.h"
#include "testutil.h"

static struct ktau_profile *fixture(const char *name)
{
	return load_profile(test_fixture(name), NULL);
}

/* Process 500's total from the system file: its thread and exited blocks. */
TEST(sum_thread_blocks_into_process_total)
{
	struct ktau_profile *sys = fixture("system.ktau"), *out;
	struct ktau_block *total;
	const struct ktau_func *f;
	const struct ktau_event *ev;
	size_t i;

	ASSERT_NOT_NULL(sys);
	out = ktau_profile_new(KTAU_SCOPE_PROCESS, ktau_profile_tsc_khz(sys));
	ASSERT_NOT_NULL(out);
	total = ktau_profile_add_block(out, KTAU_BLOCK_PROCESS, 500, 500, "server");
	ASSERT_NOT_NULL(total);
	for (i = 0; i < ktau_profile_block_count(sys); i++) {
		const struct ktau_block *b = ktau_profile_block(sys, i);

		if (ktau_block_pid(b) == 500 && ktau_block_kind(b) != KTAU_BLOCK_CHILDREN)
			ASSERT_EQ(0, ktau_block_add(total, b));
	}
	ASSERT_EQ_U64(2, ktau_block_threads(total));
	ASSERT_EQ_U64(1, ktau_block_exited_threads(total));
	ASSERT_EQ_U64(1, ktau_block_dropped(total));
	ASSERT_EQ(5, ktau_block_func_count(total));
	f = ktau_block_find_func_by_name(total, 0, "read");
	ASSERT_NOT_NULL(f);
	ASSERT_EQ_U64(4 + 1 + 1, f->calls);
	ASSERT_EQ_U64(40000 + 5000 + 1000, f->incl_cycles);
	ASSERT_EQ_U64(30000 + 5000 + 1000, f->excl_cycles);
	ASSERT_STREQ("syscall", f->group);
	ASSERT_EQ_U64(7, ktau_block_find_func(total, 0, 39)->calls);
	ASSERT_EQ_U64(40000, ktau_block_find_func(total, 0, 1)->excl_cycles);
	ASSERT_EQ(2, ktau_block_edge_count(total));
	ASSERT_EQ_U64(3, ktau_block_find_edge(total, 0, 1, 465)->calls);
	ev = ktau_block_find_event(total, 0, 480);
	ASSERT_NOT_NULL(ev);
	ASSERT_EQ_U64(6, ev->count);
	ASSERT_EQ_U64(5, ev->min);
	ASSERT_EQ_U64(300, ev->max);
	ASSERT_EQ_U64(505, ev->sum);
	ASSERT_EQ_U64(102025, ev->sumsq);
	ASSERT_EQ(0, ktau_profile_validate(out, NULL));
	ktau_profile_free(sys);
	ktau_profile_free(out);
}

TEST(add_keeps_contexts_apart)
{
	struct ktau_profile *p = parse_str("ktau-profile 1\ntsc_khz 1\nscope system\n"
		"task kind=thread pid=1 tid=1 comm=a\nfunc 0 5 f g 1 10 10\nfunc 3 5 f g 2 20 20\n"
		"task kind=thread pid=1 tid=2 comm=a\nfunc 3 5 f g 4 40 40\nfunc 4 5 f g 8 80 80\n"
		"end\n", NULL);
	struct ktau_block *dst;

	ASSERT_NOT_NULL(p);
	dst = ktau_profile_add_block(p, KTAU_BLOCK_EXITED, 1, 0, NULL);
	ASSERT_NOT_NULL(dst);
	ASSERT_STREQ("-", ktau_block_comm(dst));
	ASSERT_EQ(0, ktau_block_add(dst, ktau_profile_block(p, 0)));
	ASSERT_EQ(0, ktau_block_add(dst, ktau_profile_block(p, 1)));
	ASSERT_EQ(3, ktau_block_func_count(dst));
	ASSERT_EQ_U64(1, ktau_block_find_func(dst, 0, 5)->calls);
	ASSERT_EQ_U64(6, ktau_block_find_func(dst, 3, 5)->calls);
	ASSERT_EQ_U64(60, ktau_block_find_func(dst, 3, 5)->incl_cycles);
	ASSERT_EQ_U64(8, ktau_block_find_func(dst, 4, 5)->calls);
	ktau_profile_free(p);
}

TEST(add_overflow_leaves_dst_unchanged)
{
	struct ktau_profile *p = parse_str("ktau-profile 1\ntsc_khz 1\nscope system\n"
		"task kind=thread pid=1 tid=1 comm=a\nfunc 0 1 a g 1 1 1\n"
		"func 0 2 b g 18446744073709551615 5 5\n"
		"task kind=thread pid=1 tid=2 comm=a\nfunc 0 9 new g 1 1 1\nfunc 0 1 a g 1 1 1\n"
		"func 0 2 b g 1 1 1\nend\n", NULL);
	struct ktau_block *dst;

	ASSERT_NOT_NULL(p);
	dst = (struct ktau_block *)ktau_profile_block(p, 0);
	ASSERT_EQ(-EOVERFLOW, ktau_block_add(dst, ktau_profile_block(p, 1)));
	ASSERT_EQ(2, ktau_block_func_count(dst));
	ASSERT_EQ_U64(1, ktau_block_find_func(dst, 0, 1)->calls);
	ASSERT_EQ_U64(UINT64_MAX, ktau_block_find_func(dst, 0, 2)->calls);
	ASSERT_EQ_U64(0, ktau_block_threads(dst));
	ktau_profile_free(p);
}

TEST(add_event_into_empty_event)
{
	struct ktau_profile *p = ktau_profile_new(KTAU_SCOPE_THREAD, 1);
	struct ktau_profile *q = parse_str("ktau-profile 1\ntsc_khz 1\nscope thread\n"
		"task kind=thread pid=1 tid=1 comm=a\nevent 0 7 e 2 3 9 12 90\nend\n", NULL);
	struct ktau_block *dst;
	const struct ktau_event *ev;

	ASSERT_NOT_NULL(p);
	ASSERT_NOT_NULL(q);
	dst = ktau_profile_add_block(p, KTAU_BLOCK_THREAD, 1, 1, "a");
	ASSERT_EQ(0, ktau_block_add(dst, ktau_profile_block(q, 0)));
	ASSERT_EQ(0, ktau_block_add(dst, ktau_profile_block(q, 0)));
	ev = ktau_block_event(dst, 0);
	ASSERT_EQ_U64(4, ev->count);
	ASSERT_EQ_U64(3, ev->min);
	ASSERT_EQ_U64(9, ev->max);
	ASSERT_EQ_U64(24, ev->sum);
	ASSERT_EQ_U64(180, ev->sumsq);
	ASSERT_EQ_U64(2, ktau_block_threads(dst));
	/* names live on after the source profile is gone */
	ktau_profile_free(q);
	ASSERT_STREQ("e", ktau_block_event(dst, 0)->name);
	ktau_profile_free(p);
}

TEST(diff_snapshots_exact)
{
	struct ktau_profile *before = fixture("before.ktau"), *after = fixture("after.ktau");
	struct ktau_profile *d;
	const struct ktau_block *b;
	const struct ktau_func *f;
	const struct ktau_event *ev;

	ASSERT_NOT_NULL(before);
	ASSERT_NOT_NULL(after);
	d = ktau_profile_diff(before, after);
	ASSERT_NOT_NULL(d);
	ASSERT_EQ(KTAU_SCOPE_PROCESS, ktau_profile_scope(d));
	ASSERT_EQ_U64(2000000, ktau_profile_tsc_khz(d));
	ASSERT_EQ(2, ktau_profile_block_count(d));
	b = ktau_profile_find_block(d, KTAU_BLOCK_PROCESS, 700, 700);
	ASSERT_NOT_NULL(b);
	ASSERT_EQ_U64(3, ktau_block_threads(b));
	ASSERT_EQ_U64(1, ktau_block_exited_threads(b));
	ASSERT_EQ_U64(3, ktau_block_dropped(b));
	/* write did not change: dropped from the interval */
	ASSERT_EQ(3, ktau_block_func_count(b));
	ASSERT_NULL(ktau_block_find_func(b, 0, 1));
	f = ktau_block_find_func(b, 0, 0);
	ASSERT_EQ_U64(15, f->calls);
	ASSERT_EQ_U64(30000, f->incl_cycles);
	ASSERT_EQ_U64(25000, f->excl_cycles);
	f = ktau_block_find_func(b, 0, 470);
	ASSERT_EQ_U64(2, f->calls);
	ASSERT_EQ_U64(5000, f->incl_cycles);
	f = ktau_block_find_func(b, 0, 39);
	ASSERT_EQ_U64(100, f->calls);
	ASSERT_EQ_U64(23000, f->excl_cycles);
	ASSERT_EQ_U64(2, ktau_block_find_edge(b, 0, 0, 470)->calls);
	ASSERT_EQ_U64(5000, ktau_block_find_edge(b, 0, 0, 470)->incl_cycles);
	ev = ktau_block_find_event(b, 0, 480);
	ASSERT_EQ_U64(20, ev->count);
	ASSERT_EQ_U64(2000, ev->sum);
	ASSERT_EQ_U64(400000, ev->sumsq);
	ASSERT_EQ_U64(1, ev->min);	/* the later snapshot's: not the interval's */
	ASSERT_EQ_U64(400, ev->max);
	b = ktau_profile_find_block(d, KTAU_BLOCK_CHILDREN, 700, 0);
	ASSERT_EQ_U64(1, ktau_block_processes(b));
	ASSERT_EQ_U64(30000, ktau_block_find_func(b, 0, 57)->incl_cycles);
	ASSERT_EQ(0, ktau_profile_validate(d, NULL));
	ktau_profile_free(before);
	ktau_profile_free(after);
	ktau_profile_free(d);
}

TEST(diff_backwards_is_erange)
{
	struct ktau_profile *before = fixture("before.ktau"), *after = fixture("after.ktau");

	ASSERT_NOT_NULL(before);
	ASSERT_NOT_NULL(after);
	errno = 0;
	ASSERT_NULL(ktau_profile_diff(after, before));
	ASSERT_EQ(ERANGE, errno);
	ktau_profile_free(before);
	ktau_profile_free(after);
}

TEST(subtract_failure_leaves_dst_unchanged)
{
	struct ktau_profile *p = parse_str("ktau-profile 1\ntsc_khz 1\nscope system\n"
		"task kind=thread pid=1 tid=1 comm=a dropped=5\nfunc 0 1 a g 10 100 50\nfunc 0 2 b g 1 1 1\n"
		"task kind=thread pid=1 tid=2 comm=a\nfunc 0 1 a g 10 100 50\nfunc 0 2 b g 2 1 1\n"
		"task kind=thread pid=1 tid=3 comm=a\nfunc 0 3 c g 1 1 1\n"
		"task kind=thread pid=1 tid=4 comm=a dropped=6\n"
		"end\n", NULL);
	struct ktau_block *dst;

	ASSERT_NOT_NULL(p);
	dst = (struct ktau_block *)ktau_profile_block(p, 0);
	/* b went from 2 calls to 1 */
	ASSERT_EQ(-ERANGE, ktau_block_subtract(dst, ktau_profile_block(p, 1)));
	/* c vanished */
	ASSERT_EQ(-ERANGE, ktau_block_subtract(dst, ktau_profile_block(p, 2)));
	/* dropped went down */
	ASSERT_EQ(-ERANGE, ktau_block_subtract(dst, ktau_profile_block(p, 3)));
	ASSERT_EQ(2, ktau_block_func_count(dst));
	ASSERT_EQ_U64(10, ktau_block_find_func(dst, 0, 1)->calls);
	ASSERT_EQ_U64(50, ktau_block_find_func(dst, 0, 1)->excl_cycles);
	ASSERT_EQ_U64(1, ktau_block_find_func(dst, 0, 2)->calls);
	ASSERT_EQ_U64(5, ktau_block_dropped(dst));
	ktau_profile_free(p);
}

TEST(subtract_self_is_empty)
{
	struct ktau_profile *p = fixture("process-valid.ktau");
	struct ktau_block *b;

	ASSERT_NOT_NULL(p);
	b = (struct ktau_block *)ktau_profile_block(p, 0);
	ASSERT_EQ(0, ktau_block_subtract(b, b));
	ASSERT_EQ(0, ktau_block_func_count(b));
	ASSERT_EQ(0, ktau_block_edge_count(b));
	ASSERT_EQ(0, ktau_block_event_count(b));
	ktau_profile_free(p);
}

TEST(sum_profiles_matches_blocks)
{
	struct ktau_profile *a = fixture("before.ktau"), *b = fixture("after.ktau"), *s;
	const struct ktau_block *blk;
	const struct ktau_event *ev;

	ASSERT_NOT_NULL(a);
	ASSERT_NOT_NULL(b);
	s = ktau_profile_sum(a, b);
	ASSERT_NOT_NULL(s);
	ASSERT_EQ(2, ktau_profile_block_count(s));
	blk = ktau_profile_find_block(s, KTAU_BLOCK_PROCESS, 700, 700);
	ASSERT_EQ_U64(35, ktau_block_find_func(blk, 0, 0)->calls);
	ASSERT_EQ_U64(10, ktau_block_find_func(blk, 0, 1)->calls);
	ASSERT_EQ_U64(100, ktau_block_find_func(blk, 0, 39)->calls);
	ASSERT_EQ_U64(5, ktau_block_threads(blk));
	ASSERT_EQ_U64(5, ktau_block_dropped(blk));
	ev = ktau_block_find_event(blk, 0, 480);
	ASSERT_EQ_U64(40, ev->count);
	ASSERT_EQ_U64(1, ev->min);
	ASSERT_EQ_U64(400, ev->max);
	ASSERT_EQ_U64(3000, ev->sum);
	ASSERT_EQ_U64(480000, ev->sumsq);
	ASSERT_EQ_U64(1, ktau_block_processes(ktau_profile_find_block(s, KTAU_BLOCK_CHILDREN,
								    700, 0)));
	ktau_profile_free(a);
	ktau_profile_free(b);
	ktau_profile_free(s);
}

TEST(sum_copies_unmatched_blocks)
{
	struct ktau_profile *a = fixture("system.ktau"), *b, *s;

	ASSERT_NOT_NULL(a);
	b = parse_str("ktau-profile 1\ntsc_khz 1000000\nscope system\n"
		      "task kind=thread pid=900 tid=900 comm=new\nfunc 0 1 write syscall 1 1 1\n"
		      "end\n", NULL);
	ASSERT_NOT_NULL(b);
	s = ktau_profile_sum(a, b);
	ASSERT_NOT_NULL(s);
	ASSERT_EQ(8, ktau_profile_block_count(s));
	ASSERT_STREQ("new", ktau_block_comm(ktau_profile_block(s, 7)));
	ASSERT_STREQ("write", ktau_block_func(ktau_profile_block(s, 7), 0)->name);
	ktau_profile_free(a);
	ktau_profile_free(b);
	ktau_profile_free(s);
}

TEST(mismatched_profiles_are_einval)
{
	struct ktau_profile *a = fixture("before.ktau"), *t = fixture("thread.ktau");
	struct ktau_profile *k = ktau_profile_new(KTAU_SCOPE_PROCESS, 1);

	ASSERT_NOT_NULL(a);
	ASSERT_NOT_NULL(t);
	ASSERT_NOT_NULL(k);
	errno = 0;
	ASSERT_NULL(ktau_profile_sum(a, t));	/* scope */
	ASSERT_EQ(EINVAL, errno);
	errno = 0;
	ASSERT_NULL(ktau_profile_diff(a, k));	/* tsc_khz */
	ASSERT_EQ(EINVAL, errno);
	errno = 0;
	ASSERT_NULL(ktau_profile_sum(NULL, a));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-EINVAL, ktau_block_add(NULL, ktau_profile_block(a, 0)));
	ASSERT_EQ(-EINVAL, ktau_block_subtract((struct ktau_block *)ktau_profile_block(a, 0),
					       NULL));
	ktau_profile_free(a);
	ktau_profile_free(t);
	ktau_profile_free(k);
}

TEST(new_and_add_block_reject_bad_arguments)
{
	struct ktau_profile *p;

	errno = 0;
	ASSERT_NULL(ktau_profile_new((enum ktau_scope)0, 1));
	ASSERT_EQ(EINVAL, errno);
	p = ktau_profile_new(KTAU_SCOPE_SYSTEM, 1);
	ASSERT_NOT_NULL(p);
	ASSERT_EQ(2, ktau_profile_version(p));
	errno = 0;
	ASSERT_NULL(ktau_profile_add_block(p, (enum ktau_block_kind)7, 1, 1, "x"));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_NULL(ktau_profile_add_block(NULL, KTAU_BLOCK_THREAD, 1, 1, "x"));
	ASSERT_NULL(ktau_profile_dup(NULL));
	ktau_profile_free(p);
	ktau_profile_free(NULL);
}

TEST(dup_is_deep)
{
	struct ktau_profile *a = fixture("system.ktau"), *b;
	struct ktau_block *blk;

	ASSERT_NOT_NULL(a);
	b = ktau_profile_dup(a);
	ASSERT_NOT_NULL(b);
	blk = (struct ktau_block *)ktau_profile_block(b, 0);
	ASSERT_EQ(0, ktau_block_add(blk, ktau_profile_block(a, 0)));
	ASSERT_EQ_U64(8, ktau_block_find_func(blk, 0, 0)->calls);
	ASSERT_EQ_U64(4, ktau_block_find_func(ktau_profile_block(a, 0), 0, 0)->calls);
	ktau_profile_free(a);
	ASSERT_STREQ("server", ktau_block_comm(blk));
	ASSERT_STREQ("read", ktau_block_find_func(blk, 0, 0)->name);
	ktau_profile_free(b);
}
