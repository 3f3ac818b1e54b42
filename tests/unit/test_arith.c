// SPDX-License-Identifier: GPL-2.0-or-later
/* Sums and differences of blocks and profiles, checked to the cycle. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

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

/* ---- ktau_profile_diff(): blocks matched through the sorted index ---- */

/* A system profile text with a thread block per pid in pids (n of them),
 * func 0 1 "f" with calls = pid * mult; the caller frees it. */
static char *system_text(const int *pids, size_t n, uint64_t mult)
{
	size_t size = 64 + n * 128, len;
	char *text = malloc(size);
	size_t i;

	if (!text)
		return NULL;
	len = (size_t)snprintf(text, size, "ktau-profile 1\ntsc_khz 1000\nscope system\n");
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, size - len,
					"task kind=thread pid=%d tid=%d comm=t\n"
					"func 0 1 f syscall %llu 10 10\n", pids[i], pids[i],
					(unsigned long long)(pids[i] * mult));
	snprintf(text + len, size - len, "end\n");
	return text;
}

/* Thousands of tasks (what a linear lookup per block would make slow):
 * every block finds its own counterpart; a task only in `before` is left
 * out, one only in `after` is copied as it is. Correctness, not timing. */
TEST(diff_many_blocks_matched_by_task)
{
	enum { N = 3000 };
	static int before_pids[N], after_pids[N];
	struct ktau_profile *before, *after, *d;
	char *bt, *at;
	size_t i;

	for (i = 0; i < N; i++) {
		before_pids[i] = (int)i + 1;		/* 1 .. N */
		after_pids[i] = (int)(N - i) + 1;	/* N+1 .. 2, the other order */
	}
	bt = system_text(before_pids, N, 1);
	at = system_text(after_pids, N, 3);
	ASSERT_NOT_NULL(bt);
	ASSERT_NOT_NULL(at);
	before = parse_str(bt, NULL);
	after = parse_str(at, NULL);
	free(bt);
	free(at);
	ASSERT_NOT_NULL(before);
	ASSERT_NOT_NULL(after);
	d = ktau_profile_diff(before, after);
	ASSERT_NOT_NULL(d);
	ASSERT_EQ(N, ktau_profile_block_count(d));
	ASSERT_NULL(ktau_profile_find_block(d, KTAU_BLOCK_THREAD, 1, 1));
	for (i = 0; i < N; i++) {
		const struct ktau_block *b = ktau_profile_block(d, i);
		int pid = after_pids[i];

		ASSERT_EQ(pid, ktau_block_pid(b));
		/* 3 pid - pid, or all of it for the task new in `after` */
		ASSERT_EQ_U64((uint64_t)pid * (pid == N + 1 ? 3 : 2),
			      ktau_block_find_func(b, 0, 1)->calls);
	}
	ktau_profile_free(before);
	ktau_profile_free(after);
	ktau_profile_free(d);
}

/* ---- ktau_profile_diff_routines(): two runs side by side ---- */

static const struct ktau_diff_row *row_named(const struct ktau_routine_diff *d,
					     const char *name)
{
	size_t i;

	for (i = 0; i < ktau_routine_diff_count(d); i++)
		if (!strcmp(ktau_routine_diff_row(d, i)->name, name))
			return ktau_routine_diff_row(d, i);
	return NULL;
}

/* before.ktau and after.ktau as two runs: every block summed per routine
 * (the children block's fork too), a routine of one run only, a routine
 * that did not change, sorted by the exclusive change. */
TEST(diff_routines_exact)
{
	struct ktau_profile *a = fixture("before.ktau"), *b = fixture("after.ktau");
	struct ktau_routine_diff *d;
	const struct ktau_diff_row *r;
	static const char *const order[] = { "fork", "read", "getpid", "page_fault",
					     "write" };
	size_t i;

	ASSERT_NOT_NULL(a);
	ASSERT_NOT_NULL(b);
	d = ktau_profile_diff_routines(a, b);
	ASSERT_NOT_NULL(d);
	ktau_profile_free(a);	/* the result owns its names */
	ktau_profile_free(b);
	ASSERT_EQ(5, ktau_routine_diff_count(d));
	for (i = 0; i < 5; i++)
		ASSERT_STREQ(order[i], ktau_routine_diff_row(d, i)->name);
	errno = 0;
	ASSERT_NULL(ktau_routine_diff_row(d, 5));
	ASSERT_EQ(ERANGE, errno);

	r = row_named(d, "read");
	ASSERT_STREQ("syscall", r->group);
	ASSERT_EQ_U64(10, r->calls[0]);
	ASSERT_EQ_U64(25, r->calls[1]);
	ASSERT_EQ(15, r->calls_delta);
	ASSERT_EQ_U64(20000, r->incl_cycles[0]);
	ASSERT_EQ_U64(50000, r->incl_cycles[1]);
	ASSERT_EQ(30000, r->incl_cycles_delta);
	ASSERT_EQ_U64(15000, r->excl_cycles[0]);
	ASSERT_EQ_U64(40000, r->excl_cycles[1]);
	ASSERT_EQ(25000, r->excl_cycles_delta);
	ASSERT_NEAR(15.0, r->incl_usec_delta, 1e-9);	/* 2 GHz */
	ASSERT_NEAR(12.5, r->excl_usec_delta, 1e-9);

	r = row_named(d, "getpid");	/* B only */
	ASSERT_EQ_U64(0, r->calls[0]);
	ASSERT_EQ_U64(100, r->calls[1]);
	ASSERT_EQ(23000, r->excl_cycles_delta);
	r = row_named(d, "write");	/* the same in both */
	ASSERT_EQ(0, r->calls_delta);
	ASSERT_EQ(0, r->excl_cycles_delta);
	ASSERT_NEAR(0.0, r->excl_usec_delta, 0);
	r = row_named(d, "page_fault");
	ASSERT_STREQ("exception", r->group);
	ASSERT_EQ(2, r->calls_delta);

	r = ktau_routine_diff_total(d);
	ASSERT_STREQ("total", r->name);
	ASSERT_STREQ("", r->group);
	ASSERT_EQ_U64(19, r->calls[0]);
	ASSERT_EQ_U64(137, r->calls[1]);
	ASSERT_EQ(118, r->calls_delta);
	ASSERT_EQ_U64(28000, r->excl_cycles[0]);
	ASSERT_EQ_U64(111000, r->excl_cycles[1]);
	ASSERT_EQ(83000, r->excl_cycles_delta);
	ASSERT_EQ_U64(0, r->incl_cycles[0]);	/* inclusive times overlap */
	ASSERT_EQ_U64(0, r->incl_cycles[1]);
	ktau_routine_diff_free(d);

	/* the other way round: the same rows, negative */
	a = fixture("before.ktau");
	b = fixture("after.ktau");
	d = ktau_profile_diff_routines(b, a);
	ASSERT_NOT_NULL(d);
	r = row_named(d, "getpid");	/* A only now */
	ASSERT_EQ_U64(100, r->calls[0]);
	ASSERT_EQ_U64(0, r->calls[1]);
	ASSERT_EQ(-100, r->calls_delta);
	ASSERT_EQ(-23000, r->excl_cycles_delta);
	ASSERT_NEAR(-11.5, r->excl_usec_delta, 1e-9);
	ASSERT_EQ(-83000, ktau_routine_diff_total(d)->excl_cycles_delta);
	ktau_routine_diff_free(d);
	ktau_profile_free(a);
	ktau_profile_free(b);
}

/* Blocks of either side need no counterpart: pids differ between runs,
 * so each side is summed over its blocks and user contexts first; the
 * same name in another group is another routine. */
TEST(diff_routines_blocks_on_one_side)
{
	struct ktau_profile *a = parse_str("ktau-profile 1\ntsc_khz 1000\nscope system\n"
		"task kind=thread pid=1 tid=1 comm=a\n"
		"func 0 1 x syscall 1 10 10\nfunc 7 1 x syscall 2 20 20\n"
		"task kind=thread pid=2 tid=2 comm=a\nfunc 0 1 x syscall 4 40 40\n"
		"func 0 2 x irq 1 5 5\n"
		"task kind=thread pid=3 tid=3 comm=a\nfunc 0 3 only_a sched 9 90 90\n"
		"end\n", NULL);
	struct ktau_profile *b = parse_str("ktau-profile 1\ntsc_khz 1000\nscope system\n"
		"task kind=thread pid=20 tid=20 comm=b\nfunc 0 1 x syscall 8 80 80\n"
		"task kind=thread pid=21 tid=21 comm=b\nfunc 0 4 only_b sched 1 1 1\n"
		"end\n", NULL);
	struct ktau_profile *empty = ktau_profile_new(KTAU_SCOPE_SYSTEM, 1000);
	struct ktau_routine_diff *d;
	const struct ktau_diff_row *r;

	ASSERT_NOT_NULL(a);
	ASSERT_NOT_NULL(b);
	ASSERT_NOT_NULL(empty);
	d = ktau_profile_diff_routines(a, b);
	ASSERT_NOT_NULL(d);
	ASSERT_EQ(4, ktau_routine_diff_count(d));
	/* |change| 90 (only_a), 10 (x syscall), 5 (x irq), 1 (only_b) */
	ASSERT_STREQ("only_a", ktau_routine_diff_row(d, 0)->name);
	r = ktau_routine_diff_row(d, 1);
	ASSERT_STREQ("x", r->name);
	ASSERT_STREQ("syscall", r->group);
	ASSERT_EQ_U64(7, r->calls[0]);
	ASSERT_EQ_U64(8, r->calls[1]);
	ASSERT_EQ_U64(70, r->excl_cycles[0]);
	ASSERT_EQ(10, r->excl_cycles_delta);
	r = ktau_routine_diff_row(d, 2);
	ASSERT_STREQ("irq", r->group);
	ASSERT_EQ(-5, r->excl_cycles_delta);
	ASSERT_STREQ("only_b", ktau_routine_diff_row(d, 3)->name);
	ASSERT_EQ(-9, row_named(d, "only_a")->calls_delta);
	ASSERT_EQ_U64(17, ktau_routine_diff_total(d)->calls[0]);
	ASSERT_EQ_U64(9, ktau_routine_diff_total(d)->calls[1]);
	ktau_routine_diff_free(d);

	/* a side with no blocks at all */
	d = ktau_profile_diff_routines(empty, b);
	ASSERT_NOT_NULL(d);
	ASSERT_EQ(2, ktau_routine_diff_count(d));
	ASSERT_EQ(81, ktau_routine_diff_total(d)->excl_cycles_delta);
	ktau_routine_diff_free(d);
	d = ktau_profile_diff_routines(empty, empty);
	ASSERT_NOT_NULL(d);
	ASSERT_EQ(0, ktau_routine_diff_count(d));
	ASSERT_EQ(0, ktau_routine_diff_total(d)->calls_delta);
	ktau_routine_diff_free(d);
	ktau_profile_free(a);
	ktau_profile_free(b);
	ktau_profile_free(empty);
}

/* Sums are exact or fail (EOVERFLOW, for a routine's sum and for the
 * total); a change beyond int64_t saturates, its sides stay exact. */
TEST(diff_routines_overflow)
{
	struct ktau_profile *big = parse_str("ktau-profile 1\ntsc_khz 1000\nscope system\n"
		"task kind=thread pid=1 tid=1 comm=a\n"
		"func 0 1 x syscall 18446744073709551615 18446744073709551615 "
		"18446744073709551615\nend\n", NULL);
	struct ktau_profile *twice = parse_str("ktau-profile 1\ntsc_khz 1000\nscope system\n"
		"task kind=thread pid=1 tid=1 comm=a\n"
		"func 0 1 x syscall 18446744073709551615 1 1\n"
		"task kind=thread pid=2 tid=2 comm=a\nfunc 0 1 x syscall 1 1 1\nend\n", NULL);
	struct ktau_profile *total = parse_str("ktau-profile 1\ntsc_khz 1000\nscope system\n"
		"task kind=thread pid=1 tid=1 comm=a\n"
		"func 0 1 x syscall 1 1 18446744073709551615\n"
		"func 0 2 y syscall 1 1 1\nend\n", NULL);
	struct ktau_profile *zero = ktau_profile_new(KTAU_SCOPE_SYSTEM, 1000);
	struct ktau_routine_diff *d;
	const struct ktau_diff_row *r;

	ASSERT_NOT_NULL(big);
	ASSERT_NOT_NULL(twice);
	ASSERT_NOT_NULL(total);
	ASSERT_NOT_NULL(zero);
	d = ktau_profile_diff_routines(zero, big);
	ASSERT_NOT_NULL(d);
	r = ktau_routine_diff_row(d, 0);
	ASSERT_EQ_U64(UINT64_MAX, r->calls[1]);
	ASSERT_TRUE(r->calls_delta == INT64_MAX);
	ASSERT_TRUE(r->excl_cycles_delta == INT64_MAX);
	ktau_routine_diff_free(d);
	d = ktau_profile_diff_routines(big, zero);
	ASSERT_NOT_NULL(d);
	r = ktau_routine_diff_row(d, 0);
	ASSERT_EQ_U64(UINT64_MAX, r->calls[0]);
	ASSERT_TRUE(r->calls_delta == INT64_MIN);
	ASSERT_TRUE(ktau_routine_diff_total(d)->excl_cycles_delta == INT64_MIN);
	ktau_routine_diff_free(d);
	/* x's calls over two blocks: 2^64 */
	d = ktau_profile_diff_routines(twice, twice);
	ASSERT_NULL(d);
	ASSERT_EQ(EOVERFLOW, errno);
	errno = 0;
	ASSERT_NULL(ktau_profile_diff_routines(zero, total));
	ASSERT_EQ(EOVERFLOW, errno);
	errno = 0;
	ASSERT_NULL(ktau_profile_diff_routines(NULL, zero));
	ASSERT_EQ(EINVAL, errno);
	ktau_routine_diff_free(NULL);
	ktau_profile_free(big);
	ktau_profile_free(twice);
	ktau_profile_free(total);
	ktau_profile_free(zero);
}

/* Runs on machines with other TSC rates: each side's microseconds with
 * its own tsc_khz, and the order by time, not by cycles. */
TEST(diff_routines_other_tsc_rates)
{
	struct ktau_profile *a = parse_str("ktau-profile 1\ntsc_khz 1000\nscope process\n"
		"task kind=process pid=1 tid=1 comm=a\n"
		"func 0 1 x syscall 1 3000 3000\nfunc 0 2 y syscall 1 1000 1000\nend\n", NULL);
	struct ktau_profile *b = parse_str("ktau-profile 1\ntsc_khz 4000\nscope process\n"
		"task kind=process pid=9 tid=9 comm=b\n"
		"func 0 1 x syscall 1 20000 20000\nfunc 0 2 y syscall 1 16000 16000\nend\n",
		NULL);
	struct ktau_routine_diff *d;
	const struct ktau_diff_row *r;

	ASSERT_NOT_NULL(a);
	ASSERT_NOT_NULL(b);
	d = ktau_profile_diff_routines(a, b);
	ASSERT_NOT_NULL(d);
	/* y: 1000 -> 4000 usec (15000 cycles more), x: 3000 -> 5000 usec
	 * (17000 cycles more): in cycles x would come first */
	r = ktau_routine_diff_row(d, 0);
	ASSERT_STREQ("y", r->name);
	ASSERT_NEAR(3000.0, r->excl_usec_delta, 1e-9);
	ASSERT_EQ(15000, r->excl_cycles_delta);
	r = ktau_routine_diff_row(d, 1);
	ASSERT_STREQ("x", r->name);
	ASSERT_NEAR(2000.0, r->excl_usec_delta, 1e-9);
	ASSERT_NEAR(5000.0, ktau_routine_diff_total(d)->excl_usec_delta, 1e-9);
	ktau_routine_diff_free(d);
	ktau_profile_free(a);
	ktau_profile_free(b);
}

/* Many routines over many blocks (what a scan per record would make
 * slow): every row's sums and deltas exact, in order. Correctness only. */
TEST(diff_routines_many_routines)
{
	enum { N = 4000, BLOCKS = 40 };
	size_t size = 128 + (size_t)N * 80 + BLOCKS * 64, len[2];
	char *text[2] = { malloc(size), malloc(size) };
	struct ktau_profile *p[2];
	struct ktau_routine_diff *d;
	size_t i, side;

	ASSERT_NOT_NULL(text[0]);
	ASSERT_NOT_NULL(text[1]);
	/* routine r<i> in block i % BLOCKS: A has i calls and 10 i cycles,
	 * B 2 i calls and 11 i cycles (a change of i) */
	for (side = 0; side < 2; side++) {
		size_t blk;

		len[side] = (size_t)snprintf(text[side], size, "ktau-profile 1\ntsc_khz 1000\n"
					     "scope system\n");
		for (blk = 0; blk < BLOCKS; blk++) {
			len[side] += (size_t)snprintf(text[side] + len[side], size - len[side],
				"task kind=thread pid=%zu tid=%zu comm=t\n",
				blk + 1 + side * 100, blk + 1 + side * 100);
			for (i = blk; i < N; i += BLOCKS)
				len[side] += (size_t)snprintf(text[side] + len[side],
					size - len[side], "func 0 %zu r%zu syscall %zu %zu %zu\n",
					i, i, side ? 2 * i : i, (side ? 11 : 10) * i,
					(side ? 11 : 10) * i);
		}
		snprintf(text[side] + len[side], size - len[side], "end\n");
		p[side] = parse_str(text[side], NULL);
		free(text[side]);
		ASSERT_NOT_NULL(p[side]);
	}
	d = ktau_profile_diff_routines(p[0], p[1]);
	ASSERT_NOT_NULL(d);
	ASSERT_EQ(N, ktau_routine_diff_count(d));
	for (i = 0; i < N; i++) {
		const struct ktau_diff_row *r = ktau_routine_diff_row(d, i);
		size_t k = N - 1 - i;	/* the largest change first */
		char name[32];

		snprintf(name, sizeof(name), "r%zu", k);
		ASSERT_STREQ(name, r->name);
		ASSERT_EQ_U64(k, r->calls[0]);
		ASSERT_EQ_U64(2 * k, r->calls[1]);
		ASSERT_EQ_U64(10 * k, r->excl_cycles[0]);
		ASSERT_EQ((int64_t)k, r->excl_cycles_delta);
		ASSERT_EQ((int64_t)k, r->incl_cycles_delta);
	}
	/* sum of i, 0 .. N-1 */
	ASSERT_EQ_U64((uint64_t)N * (N - 1) / 2, ktau_routine_diff_total(d)->calls_delta);
	ktau_routine_diff_free(d);
	ktau_profile_free(p[0]);
	ktau_profile_free(p[1]);
}
