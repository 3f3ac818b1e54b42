// SPDX-License-Identifier: GPL-2.0-or-later
/* Profile format version 2: paths, open records, private=, derived edges,
 * arithmetic on paths; version 1 edges seen as two-element paths. */
#include <errno.h>

#include "harness.h"
#include "testutil.h"

static const uint32_t READ[] = { 0 }, READ_PF[] = { 0, 470 }, READ_PF_IRQ[] = { 0, 470, 469 };

static struct ktau_profile *doc_example(void)
{
	return load_profile(test_fixture("doc-example-v2.ktau"), NULL);
}

TEST(v2_doc_example_paths)
{
	struct ktau_profile *p = doc_example();
	const struct ktau_block *b;
	const struct ktau_path *path;

	ASSERT_NOT_NULL(p);
	ASSERT_EQ(2, ktau_profile_version(p));
	ASSERT_EQ(2, ktau_profile_block_count(p));
	b = ktau_profile_block(p, 0);
	ASSERT_EQ(5, ktau_block_func_count(b));
	ASSERT_EQ(6, ktau_block_path_count(b));
	path = ktau_block_path(b, 3);
	ASSERT_EQ_U64(0, path->ctx);
	ASSERT_EQ(3, path->depth);
	ASSERT_EQ(0, path->fids[0]);
	ASSERT_EQ(470, path->fids[1]);
	ASSERT_EQ(469, path->fids[2]);
	ASSERT_STREQ("irq", path->name);
	ASSERT_STREQ("irq", path->group);
	ASSERT_EQ_U64(1, path->calls);
	ASSERT_EQ_U64(500, path->incl_cycles);
	ASSERT_EQ_U64(500, path->excl_cycles);
	ASSERT_TRUE(path == ktau_block_find_path(b, 0, READ_PF_IRQ, 3));
	ASSERT_STREQ("read", ktau_block_path_element_name(b, path, 0));
	ASSERT_STREQ("page_fault", ktau_block_path_element_name(b, path, 1));
	ASSERT_STREQ("irq", ktau_block_path_element_name(b, path, 2));
	errno = 0;
	ASSERT_NULL(ktau_block_path_element_name(b, path, 3));
	ASSERT_EQ(ERANGE, errno);
	path = ktau_block_find_path(b, 0, READ_PF, 2);
	ASSERT_NOT_NULL(path);
	ASSERT_EQ_U64(2, path->calls);
	ASSERT_EQ_U64(8500, path->incl_cycles);
	ASSERT_EQ_U64(8000, path->excl_cycles);
	ASSERT_STREQ("exception", path->group);
	ASSERT_EQ_U64(172000, ktau_block_find_path(b, 0, READ, 1)->excl_cycles);
	errno = 0;
	ASSERT_NULL(ktau_block_find_path(b, 1, READ, 1));
	ASSERT_EQ(ENOENT, errno);
	ASSERT_NULL(ktau_block_find_path(b, 0, READ, 0));
	errno = 0;
	ASSERT_NULL(ktau_block_path(b, 6));
	ASSERT_EQ(ERANGE, errno);
	ktau_profile_free(p);
}

TEST(v2_doc_example_opens_and_private)
{
	struct ktau_profile *p = doc_example();
	const struct ktau_block *b, *children;
	const struct ktau_open *o;

	ASSERT_NOT_NULL(p);
	b = ktau_profile_block(p, 0);
	children = ktau_profile_block(p, 1);
	ASSERT_EQ(2, ktau_block_open_count(b));
	o = ktau_block_open(b, 1);
	ASSERT_EQ(412, o->tid);
	ASSERT_EQ_U64(0, o->ctx);
	ASSERT_EQ(2, o->depth);
	ASSERT_EQ(0, o->fids[0]);
	ASSERT_EQ(473, o->fids[1]);
	ASSERT_STREQ("schedule_vol", o->name);
	ASSERT_STREQ("sched", o->group);
	ASSERT_EQ_U64(1500000, o->incl_cycles);
	ASSERT_EQ_U64(1500000, o->excl_cycles);
	ASSERT_EQ_U64(200, ktau_block_open(b, 0)->excl_cycles);
	errno = 0;
	ASSERT_NULL(ktau_block_open(b, 2));
	ASSERT_EQ(ERANGE, errno);
	ASSERT_EQ(0, ktau_block_open_count(children));
	ASSERT_EQ_U64(0, ktau_block_private(children));
	ASSERT_EQ(1, ktau_block_event_count(b));
	ktau_profile_free(p);
}

/* each path of depth >= 2 adds to the edge of its last two elements */
TEST(v2_edges_derived_from_paths)
{
	struct ktau_profile *p = parse_str(
		"ktau-profile 2\ntsc_khz 1000\nscope thread\n"
		"task kind=thread pid=5 tid=5 comm=x private=0\n"
		"path 0 0 read syscall 3 100 10\n"
		"path 0 0,470 page_fault exception 2 50 20\n"
		"path 0 0,470,469 irq irq 1 30 30\n"
		"path 0 1 write syscall 1 40 10\n"
		"path 0 1,470 page_fault exception 1 30 25\n"
		"path 0 1,470,469 irq irq 2 5 5\n"
		"path 7 1 write syscall 1 4 4\n"
		"path 7 1,470 page_fault exception 1 3 3\n"
		"end\n", NULL);
	const struct ktau_block *b;
	const struct ktau_edge *e;

	ASSERT_NOT_NULL(p);
	b = ktau_profile_block(p, 0);
	ASSERT_EQ(4, ktau_block_edge_count(b));
	e = ktau_block_find_edge(b, 0, 470, 469);
	ASSERT_NOT_NULL(e);
	ASSERT_STREQ("page_fault", e->parent);
	ASSERT_STREQ("irq", e->name);
	ASSERT_EQ_U64(3, e->calls);
	ASSERT_EQ_U64(35, e->incl_cycles);
	ASSERT_EQ_U64(35, e->excl_cycles);
	e = ktau_block_find_edge(b, 0, 1, 470);
	ASSERT_STREQ("write", e->parent);
	ASSERT_EQ_U64(1, e->calls);
	ASSERT_EQ_U64(3, ktau_block_find_edge(b, 7, 1, 470)->incl_cycles);
	ASSERT_EQ_U64(2, ktau_block_find_edge(b, 0, 0, 470)->calls);
	ASSERT_NULL(ktau_block_find_edge(b, 0, 0, 469));
	ktau_profile_free(p);
}

/* named by the columns lines, in any order, with fields to skip */
TEST(v2_columns_reorder_path_and_open)
{
	struct ktau_profile *p = parse_str(
		"ktau-profile 2\ntsc_khz 1000\nscope thread\n"
		"columns path fids ctx calls name incl_cycles group excl_cycles extra\n"
		"columns open ctx tid fids excl_cycles name group incl_cycles\n"
		"task kind=thread pid=5 tid=5 comm=x\n"
		"path 0 3 2 read 100 syscall 10 zzz\n"
		"path 0,470 3 1 page_fault 50 exception 20 zzz\n"
		"open 3 5 0,470 7 page_fault exception 9\n"
		"edge 3 0 read 470 page_fault 1 1 1\n"
		"end\n", NULL);
	const struct ktau_block *b;
	const struct ktau_path *path;
	const struct ktau_open *o;

	ASSERT_NOT_NULL(p);
	b = ktau_profile_block(p, 0);
	ASSERT_EQ(2, ktau_block_path_count(b));
	path = ktau_block_find_path(b, 3, READ_PF, 2);
	ASSERT_NOT_NULL(path);
	ASSERT_EQ_U64(1, path->calls);
	ASSERT_EQ_U64(50, path->incl_cycles);
	ASSERT_EQ_U64(20, path->excl_cycles);
	ASSERT_STREQ("exception", path->group);
	o = ktau_block_open(b, 0);
	ASSERT_EQ(5, o->tid);
	ASSERT_EQ_U64(3, o->ctx);
	ASSERT_EQ_U64(9, o->incl_cycles);
	ASSERT_EQ_U64(7, o->excl_cycles);
	/* no edge lines in v2: the one edge is the path's */
	ASSERT_EQ(1, ktau_block_edge_count(b));
	ASSERT_EQ_U64(1, ktau_block_edge(b, 0)->calls);
	ASSERT_EQ_U64(50, ktau_block_edge(b, 0)->incl_cycles);
	ktau_profile_free(p);
}

TEST(v2_private_children)
{
	struct ktau_profile *p = parse_str(
		"ktau-profile 2\ntsc_khz 1000\nscope process\n"
		"task kind=children pid=5 tid=0 comm=- processes=4 private=3 pending=2 dropped=0\n"
		"end\n", NULL);
	struct ktau_profile *sum, *diff;

	ASSERT_NOT_NULL(p);
	ASSERT_EQ_U64(3, ktau_block_private(ktau_profile_block(p, 0)));
	ASSERT_EQ_U64(2, ktau_block_pending(ktau_profile_block(p, 0)));
	sum = ktau_profile_sum(p, p);
	ASSERT_NOT_NULL(sum);
	ASSERT_EQ_U64(6, ktau_block_private(ktau_profile_block(sum, 0)));
	ASSERT_EQ_U64(4, ktau_block_pending(ktau_profile_block(sum, 0)));
	diff = ktau_profile_diff(p, sum);
	ASSERT_NOT_NULL(diff);
	/* a diff keeps the later snapshot's */
	ASSERT_EQ_U64(4, ktau_block_pending(ktau_profile_block(diff, 0)));
	ktau_profile_free(diff);
	ktau_profile_free(sum);
	ktau_profile_free(p);
}

/* v1 files: each edge is path [parent_fid, fid]; no paths, opens, private */
TEST(v1_edges_are_two_element_paths)
{
	struct ktau_profile *p = load_profile(test_fixture("doc-example.ktau"), NULL);
	const struct ktau_block *b;
	const struct ktau_path *path;

	ASSERT_NOT_NULL(p);
	ASSERT_EQ(1, ktau_profile_version(p));
	b = ktau_profile_block(p, 0);
	ASSERT_EQ(1, ktau_block_path_count(b));
	path = ktau_block_path(b, 0);
	ASSERT_EQ(2, path->depth);
	ASSERT_EQ(0, path->fids[0]);
	ASSERT_EQ(470, path->fids[1]);
	ASSERT_STREQ("page_fault", path->name);
	ASSERT_EQ_U64(2, path->calls);
	ASSERT_EQ_U64(8500, path->incl_cycles);
	ASSERT_STREQ("read", ktau_block_path_element_name(b, path, 0));
	ASSERT_TRUE(path == ktau_block_find_path(b, 0, READ_PF, 2));
	ASSERT_EQ(1, ktau_block_edge_count(b));
	ASSERT_EQ(0, ktau_block_open_count(b));
	ASSERT_EQ_U64(0, ktau_block_private(ktau_profile_block(p, 1)));
	ASSERT_EQ_U64(0, ktau_block_pending(ktau_profile_block(p, 1)));
	ktau_profile_free(p);
}

TEST(v2_sum_and_diff_of_paths)
{
	struct ktau_profile *p = doc_example(), *sum, *diff;
	const struct ktau_block *b;

	ASSERT_NOT_NULL(p);
	sum = ktau_profile_sum(p, p);
	ASSERT_NOT_NULL(sum);
	ASSERT_EQ(2, ktau_profile_version(sum));
	b = ktau_profile_block(sum, 0);
	ASSERT_EQ(6, ktau_block_path_count(b));
	ASSERT_EQ_U64(2, ktau_block_find_path(b, 0, READ_PF_IRQ, 3)->calls);
	ASSERT_EQ_U64(17000, ktau_block_find_path(b, 0, READ_PF, 2)->incl_cycles);
	ASSERT_EQ_U64(4, ktau_block_find_edge(b, 0, 0, 470)->calls);
	ASSERT_EQ_U64(17000, ktau_block_find_edge(b, 0, 0, 470)->incl_cycles);
	ASSERT_EQ(3, ktau_block_edge_count(b));
	/* a sum keeps both snapshots' open records */
	ASSERT_EQ(4, ktau_block_open_count(b));
	ASSERT_EQ(0, ktau_profile_validate(sum, NULL));

	diff = ktau_profile_diff(p, sum);
	ASSERT_NOT_NULL(diff);
	b = ktau_profile_block(diff, 0);
	ASSERT_EQ(6, ktau_block_path_count(b));
	ASSERT_EQ_U64(1, ktau_block_find_path(b, 0, READ_PF_IRQ, 3)->calls);
	ASSERT_EQ_U64(8000, ktau_block_find_path(b, 0, READ_PF, 2)->excl_cycles);
	ASSERT_EQ_U64(2, ktau_block_find_edge(b, 0, 0, 470)->calls);
	/* a diff keeps the later snapshot's */
	ASSERT_EQ(4, ktau_block_open_count(b));
	ktau_profile_free(diff);

	/* nothing new: every path goes */
	diff = ktau_profile_diff(p, p);
	ASSERT_NOT_NULL(diff);
	b = ktau_profile_block(diff, 0);
	ASSERT_EQ(0, ktau_block_path_count(b));
	ASSERT_EQ(0, ktau_block_edge_count(b));
	ASSERT_EQ(2, ktau_block_open_count(b));
	ktau_profile_free(diff);

	/* counters that went backwards */
	errno = 0;
	ASSERT_NULL(ktau_profile_diff(sum, p));
	ASSERT_EQ(ERANGE, errno);
	ktau_profile_free(sum);
	ktau_profile_free(p);
}

/* a zero path stays while a longer path still has it as its prefix */
TEST(v2_diff_keeps_needed_prefixes)
{
	static const char before[] =
		"ktau-profile 2\ntsc_khz 1000\nscope thread\n"
		"task kind=thread pid=5 tid=5 comm=x\n"
		"path 0 0 read syscall 1 100 50\n"
		"path 0 0,470 page_fault exception 1 50 50\n"
		"end\n";
	static const char after[] =
		"ktau-profile 2\ntsc_khz 1000\nscope thread\n"
		"task kind=thread pid=5 tid=5 comm=x\n"
		"path 0 0 read syscall 1 100 50\n"
		"path 0 0,470 page_fault exception 2 80 80\n"
		"end\n";
	struct ktau_profile *a = parse_str(before, NULL), *b = parse_str(after, NULL), *d;
	const struct ktau_block *blk;

	ASSERT_NOT_NULL(a);
	ASSERT_NOT_NULL(b);
	d = ktau_profile_diff(a, b);
	ASSERT_NOT_NULL(d);
	blk = ktau_profile_block(d, 0);
	ASSERT_EQ(2, ktau_block_path_count(blk));
	ASSERT_EQ_U64(0, ktau_block_find_path(blk, 0, READ, 1)->calls);
	ASSERT_EQ_U64(30, ktau_block_find_path(blk, 0, READ_PF, 2)->incl_cycles);
	ASSERT_STREQ("read", ktau_block_edge(blk, 0)->parent);
	ASSERT_EQ(0, ktau_profile_validate(d, NULL));
	ktau_profile_free(d);
	ktau_profile_free(a);
	ktau_profile_free(b);
}

/* an empty block built by hand takes a v1 block's edges as they are */
TEST(v1_block_added_to_new_block_keeps_edges)
{
	struct ktau_profile *v1 = load_profile(test_fixture("doc-example.ktau"), NULL);
	struct ktau_profile *p = ktau_profile_new(KTAU_SCOPE_PROCESS, 2899999);
	struct ktau_block *b;

	ASSERT_NOT_NULL(v1);
	ASSERT_NOT_NULL(p);
	b = ktau_profile_add_block(p, KTAU_BLOCK_PROCESS, 412, 412, "x");
	ASSERT_NOT_NULL(b);
	ASSERT_EQ(0, ktau_block_add(b, ktau_profile_block(v1, 0)));
	ASSERT_EQ(0, ktau_block_add(b, ktau_profile_block(v1, 0)));
	ASSERT_EQ(1, ktau_block_edge_count(b));
	ASSERT_STREQ("read", ktau_block_edge(b, 0)->parent);
	ASSERT_EQ_U64(4, ktau_block_edge(b, 0)->calls);
	ASSERT_EQ(1, ktau_block_path_count(b));
	ASSERT_EQ_U64(4, ktau_block_path(b, 0)->calls);
	ktau_profile_free(p);
	ktau_profile_free(v1);
}

/* a v1 block and a v2 block: the sum is a v2 block, edges derived */
TEST(v1_plus_v2_sums_paths)
{
	struct ktau_profile *v1 = load_profile(test_fixture("doc-example.ktau"), NULL);
	struct ktau_profile *v2 = doc_example(), *sum;
	const struct ktau_block *b;

	ASSERT_NOT_NULL(v1);
	ASSERT_NOT_NULL(v2);
	sum = ktau_profile_sum(v1, v2);
	ASSERT_NOT_NULL(sum);
	ASSERT_EQ(2, ktau_profile_version(sum));
	b = ktau_profile_block(sum, 0);
	ASSERT_EQ_U64(4, ktau_block_find_path(b, 0, READ_PF, 2)->calls);
	ASSERT_EQ_U64(4, ktau_block_find_edge(b, 0, 0, 470)->calls);
	ASSERT_STREQ("read", ktau_block_find_edge(b, 0, 0, 470)->parent);
	ASSERT_EQ(3, ktau_block_edge_count(b));
	ktau_profile_free(sum);
	ktau_profile_free(v1);
	ktau_profile_free(v2);
}

TEST(v2_filter_keeps_paths_ending_in_groups)
{
	struct ktau_profile *p = doc_example(), *f;
	const char *groups[] = { "irq" };
	const struct ktau_block *b;
	const struct ktau_path *path;

	ASSERT_NOT_NULL(p);
	f = ktau_profile_filter_groups(p, groups, 1);
	ASSERT_NOT_NULL(f);
	b = ktau_profile_block(f, 0);
	ASSERT_EQ(1, ktau_block_func_count(b));
	ASSERT_EQ(1, ktau_block_path_count(b));
	path = ktau_block_path(b, 0);
	ASSERT_EQ(3, path->depth);
	/* the prefixes went: elements are named by... nothing left but numbers */
	errno = 0;
	ASSERT_NULL(ktau_block_path_element_name(b, path, 0));
	ASSERT_EQ(ENOENT, errno);
	ASSERT_EQ(1, ktau_block_edge_count(b));
	ASSERT_EQ(0, ktau_block_open_count(b));
	ktau_profile_free(f);
	ktau_profile_free(p);
}
