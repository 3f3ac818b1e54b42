// SPDX-License-Identifier: GPL-2.0-or-later
/* "Time so far": open records folded into their funcs and paths
 * (ktau_block_add_open(), ktau_profile_with_open()), and intervals of a
 * call that is still running at either end. */
#include <errno.h>
#include <string.h>

#include "harness.h"
#include "testutil.h"

static const uint32_t READ[] = { 0 }, READ_SCHED[] = { 0, 473 };
static const uint32_t PF[] = { 470 }, PF_IRQ[] = { 470, 469 }, PF_IRQ_PF[] = { 470, 469, 470 };

#define V2_HEADER							\
	"ktau-profile 2\ntsc_khz 1000000\nscope thread\n"		\
	"columns func ctx fid name group calls incl_cycles excl_cycles\n" \
	"columns path ctx fids name group calls incl_cycles excl_cycles\n" \
	"columns open tid ctx fids name group incl_cycles excl_cycles\n" \
	"task kind=thread pid=5 tid=5 comm=t dropped=0\n"

/* calls, inclusive and exclusive cycles of a func or path record */
#define ASSERT_COUNTS(rec, n, incl, excl)				\
	do {								\
		ASSERT_NOT_NULL(rec);					\
		ASSERT_EQ_U64(n, (rec)->calls);				\
		ASSERT_EQ_U64(incl, (rec)->incl_cycles);		\
		ASSERT_EQ_U64(excl, (rec)->excl_cycles);		\
	} while (0)

static struct ktau_profile *parse(const char *text)
{
	return ktau_profile_parse(text, strlen(text), NULL);
}

TEST(open_fold_doc_example)
{
	struct ktau_profile *p = load_profile(test_fixture("doc-example-v2.ktau"),
							NULL), *q;
	const struct ktau_block *b;
	const struct ktau_func *f;
	const struct ktau_path *path;
	const struct ktau_edge *e;

	ASSERT_NOT_NULL(p);
	q = ktau_profile_with_open(p);
	ASSERT_NOT_NULL(q);
	/* the original keeps its opens */
	ASSERT_EQ(2, ktau_block_open_count(ktau_profile_block(p, 0)));
	b = ktau_profile_block(q, 0);
	ASSERT_EQ(0, ktau_block_open_count(b));
	ASSERT_EQ(5, ktau_block_func_count(b));
	ASSERT_EQ(6, ktau_block_path_count(b));
	/* read: 501 completed calls, plus the running one's 1500200 / 200 */
	f = ktau_block_find_func(b, 0, 0);
	ASSERT_NOT_NULL(f);
	ASSERT_COUNTS(f, 501, 2680500 + 1500200, 172000 + 200);
	f = ktau_block_find_func(b, 0, 473);
	ASSERT_COUNTS(f, 1, 4000000, 4000000);
	path = ktau_block_find_path(b, 0, READ, 1);
	ASSERT_COUNTS(path, 501, 4180700, 172200);
	path = ktau_block_find_path(b, 0, READ_SCHED, 2);
	ASSERT_COUNTS(path, 1, 4000000, 4000000);
	/* edges derived again from the paths */
	e = ktau_block_find_edge(b, 0, 0, 473);
	ASSERT_NOT_NULL(e);
	ASSERT_EQ_U64(1, e->calls);
	ASSERT_EQ_U64(4000000, e->incl_cycles);
	/* untouched records stay */
	ASSERT_EQ_U64(231000, ktau_block_find_func(b, 0, 39)->incl_cycles);
	ASSERT_EQ_U64(500, ktau_block_find_event(b, 0, 480)->count);
	ASSERT_EQ(0, ktau_profile_validate(q, NULL));
	/* the children block has no opens: as it was */
	ASSERT_EQ(0, ktau_block_func_count(ktau_profile_block(q, 1)));
	ktau_profile_free(q);
	ktau_profile_free(p);
}

/* Records that do not exist yet are made with 0 calls; a recursive
 * routine's inclusive time counts at its outermost call only. */
TEST(open_fold_new_records_and_recursion)
{
	struct ktau_profile *p = parse(V2_HEADER
				       "open 5 7 470 page_fault exception 3000 1000\n"
				       "open 5 7 470,469 irq irq 2000 500\n"
				       "open 5 7 470,469,470 page_fault exception 1500 1500\n"
				       "end\n");
	struct ktau_block *b;
	const struct ktau_func *f;
	const struct ktau_path *path;

	ASSERT_NOT_NULL(p);
	b = (struct ktau_block *)ktau_profile_block(p, 0);
	ASSERT_EQ(0, ktau_block_add_open(b));
	ASSERT_EQ(0, ktau_block_open_count(b));
	ASSERT_EQ(2, ktau_block_func_count(b));
	f = ktau_block_find_func(b, 7, 470);
	ASSERT_NOT_NULL(f);
	ASSERT_STREQ("page_fault", f->name);
	ASSERT_STREQ("exception", f->group);
	ASSERT_COUNTS(f, 0, 3000, 2500);
	f = ktau_block_find_func(b, 7, 469);
	ASSERT_COUNTS(f, 0, 2000, 500);
	ASSERT_EQ(3, ktau_block_path_count(b));
	path = ktau_block_find_path(b, 7, PF, 1);
	ASSERT_COUNTS(path, 0, 3000, 1000);
	path = ktau_block_find_path(b, 7, PF_IRQ, 2);
	ASSERT_EQ_U64(2000, path->incl_cycles);
	ASSERT_EQ_U64(500, path->excl_cycles);
	path = ktau_block_find_path(b, 7, PF_IRQ_PF, 3);
	ASSERT_COUNTS(path, 0, 1500, 1500);
	ASSERT_STREQ("page_fault", path->name);
	ASSERT_EQ(2, ktau_block_edge_count(b));
	ASSERT_EQ(0, ktau_profile_validate(p, NULL));
	/* nothing left to add */
	ASSERT_EQ(0, ktau_block_add_open(b));
	ASSERT_EQ_U64(3000, ktau_block_find_func(b, 7, 470)->incl_cycles);
	ktau_profile_free(p);
}

/*
 * (completed2 + open2) - (completed1 + open1): a read open at both reads
 * counts what it ran in between; one that completed meanwhile counts its
 * rest, and its call.
 */
TEST(open_fold_interval_of_running_calls)
{
	struct ktau_profile *before = parse(V2_HEADER
					    "func 0 0 read syscall 2 10000 10000\n"
					    "path 0 0 read syscall 2 10000 10000\n"
					    "open 5 0 0 read syscall 4000 4000\n"
					    "task kind=thread pid=6 tid=6 comm=u dropped=0\n"
					    "open 6 0 0 read syscall 700000 100\n"
					    "open 6 0 0,473 schedule_vol sched 699900 699900\n"
					    "end\n");
	struct ktau_profile *after = parse(V2_HEADER
					   "func 0 0 read syscall 3 19000 19000\n"
					   "path 0 0 read syscall 3 19000 19000\n"
					   "task kind=thread pid=6 tid=6 comm=u dropped=0\n"
					   "open 6 0 0 read syscall 1700000 100\n"
					   "open 6 0 0,473 schedule_vol sched 1699900 1699900\n"
					   "end\n");
	struct ktau_profile *b0, *a0, *d;
	const struct ktau_block *b;
	const struct ktau_func *f;

	ASSERT_NOT_NULL(before);
	ASSERT_NOT_NULL(after);
	b0 = ktau_profile_with_open(before);
	a0 = ktau_profile_with_open(after);
	ASSERT_NOT_NULL(b0);
	ASSERT_NOT_NULL(a0);
	d = ktau_profile_diff(b0, a0);
	ASSERT_NOT_NULL(d);
	/* thread 5: the read completed, 9000 cycles of which 5000 after the
	 * first read */
	b = ktau_profile_find_block(d, KTAU_BLOCK_THREAD, 5, 5);
	f = ktau_block_find_func(b, 0, 0);
	ASSERT_COUNTS(f, 1, 5000, 5000);
	/* thread 6: blocked all along, exactly the 1000000 cycles between the
	 * reads, and no call */
	b = ktau_profile_find_block(d, KTAU_BLOCK_THREAD, 6, 6);
	f = ktau_block_find_func(b, 0, 473);
	ASSERT_NOT_NULL(f);
	ASSERT_COUNTS(f, 0, 1000000, 1000000);
	f = ktau_block_find_func(b, 0, 0);
	ASSERT_COUNTS(f, 0, 1000000, 0);
	ktau_profile_free(d);
	ktau_profile_free(a0);
	ktau_profile_free(b0);
	ktau_profile_free(after);
	ktau_profile_free(before);
}

TEST(open_fold_errors_leave_block_unchanged)
{
	struct ktau_profile *p = parse(V2_HEADER
				       "func 0 0 read syscall 1 18446744073709551600 10\n"
				       "path 0 0 read syscall 1 18446744073709551600 10\n"
				       "open 5 0 0 read syscall 100 100\n"
				       "end\n");
	struct ktau_block *b;

	ASSERT_EQ(-EINVAL, ktau_block_add_open(NULL));
	errno = 0;
	ASSERT_NULL(ktau_profile_with_open(NULL));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_NOT_NULL(p);
	b = (struct ktau_block *)ktau_profile_block(p, 0);
	ASSERT_EQ(-EOVERFLOW, ktau_block_add_open(b));
	ASSERT_EQ(1, ktau_block_open_count(b));
	ASSERT_EQ_U64(10, ktau_block_find_func(b, 0, 0)->excl_cycles);
	errno = 0;
	ASSERT_NULL(ktau_profile_with_open(p));
	ASSERT_EQ(EOVERFLOW, errno);
	ktau_profile_free(p);
}
