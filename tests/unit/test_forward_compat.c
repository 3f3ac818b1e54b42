// SPDX-License-Identifier: GPL-2.0-or-later
/* What a later kernel may add within format version 1 must not break us. */
#include <errno.h>

#include "harness.h"
#include "testutil.h"

#define HEADER "ktau-profile 1\ntsc_khz 1000\nscope process\n"
#define TASK "task kind=process pid=1 tid=1 comm=init\n"

TEST(unknown_keywords_skipped)
{
	struct ktau_profile *p = parse_str(
		"ktau-profile 1\nhostname node17\ntsc_khz 1000\nscope process\n"
		"columns sample ctx fid ip\n"
		TASK
		"sample 0 1 0xffffffff81000000\n"
		"func 0 1 write syscall 1 2 1\n"
		"histogram 0 1 1 2 3 4\n"
		"end\n", NULL);
	const struct ktau_block *b;

	ASSERT_NOT_NULL(p);
	b = ktau_profile_block(p, 0);
	ASSERT_EQ(1, ktau_block_func_count(b));
	ASSERT_EQ(0, ktau_block_edge_count(b));
	ASSERT_STREQ("write", ktau_block_func(b, 0)->name);
	ktau_profile_free(p);
}

TEST(unknown_task_keys_skipped)
{
	struct ktau_profile *p = parse_str(HEADER
		"task kind=process pid=9 cgroup=/user.slice tid=9 comm=x nice=-5 dropped=2\n"
		"end\n", NULL);
	const struct ktau_block *b;

	ASSERT_NOT_NULL(p);
	b = ktau_profile_block(p, 0);
	ASSERT_EQ(9, ktau_block_pid(b));
	ASSERT_EQ(9, ktau_block_tid(b));
	ASSERT_EQ_U64(2, ktau_block_dropped(b));
	ktau_profile_free(p);
}

TEST(extra_trailing_fields_skipped)
{
	struct ktau_profile *p = parse_str(HEADER TASK
		"func 0 1 write syscall 3 30 20 999 extra\n"
		"edge 0 1 write 2 open 1 5 5 7\n"
		"event 0 3 bytes 1 2 2 2 4 new\n"
		"end\n", NULL);
	const struct ktau_block *b;

	ASSERT_NOT_NULL(p);
	b = ktau_profile_block(p, 0);
	ASSERT_EQ_U64(20, ktau_block_func(b, 0)->excl_cycles);
	ASSERT_EQ_U64(5, ktau_block_edge(b, 0)->excl_cycles);
	ASSERT_EQ_U64(4, ktau_block_event(b, 0)->sumsq);
	ktau_profile_free(p);
}

TEST(columns_lines_are_followed)
{
	/* a later kernel reorders func fields and inserts a new one */
	struct ktau_profile *p = parse_str(HEADER
		"columns func fid name ctx cpu group excl_cycles incl_cycles calls\n"
		"columns event ctx fid name count min max sum sumsq\n"
		TASK
		"func 39 getpid 7 3 syscall 100 250 1000\n"
		"end\n", NULL);
	const struct ktau_func *f;

	ASSERT_NOT_NULL(p);
	f = ktau_block_func(ktau_profile_block(p, 0), 0);
	ASSERT_EQ(39, f->fid);
	ASSERT_STREQ("getpid", f->name);
	ASSERT_EQ_U64(7, f->ctx);
	ASSERT_STREQ("syscall", f->group);
	ASSERT_EQ_U64(100, f->excl_cycles);
	ASSERT_EQ_U64(250, f->incl_cycles);
	ASSERT_EQ_U64(1000, f->calls);
	ktau_profile_free(p);
}

TEST(columns_line_missing_a_field_fails)
{
	ASSERT_NULL(parse_str(HEADER "columns func ctx fid name group calls incl_cycles\n"
			      TASK "end\n", test_err()));
	ASSERT_EQ(-EPROTO, ERR_CODE);
	ASSERT_EQ(4, ERR_LINE);
	ASSERT_CONTAINS(ERR_MSG, "columns line lacks field 'excl_cycles'");
	ASSERT_NULL(parse_str(HEADER "columns edge ctx ctx parent_fid parent fid name "
			      "calls incl_cycles excl_cycles\n" TASK "end\n", test_err()));
	ASSERT_CONTAINS(ERR_MSG, "names field 'ctx' twice");
}

TEST(unknown_block_kind_skipped_whole)
{
	struct ktau_profile *p = parse_str(HEADER TASK
		"func 0 1 write syscall 1 2 1\n"
		"task kind=cgroup pid=0 tid=0 comm=- path=/\n"
		"func 0 1 write syscall 50 50 50\n"
		"edge 0 1 write 2 x 1 1 1\n"
		"task kind=children pid=1 tid=0 comm=- processes=0\n"
		"func 0 2 read syscall 4 4 4\n"
		"end\n", NULL);

	ASSERT_NOT_NULL(p);
	ASSERT_EQ(2, ktau_profile_block_count(p));
	ASSERT_EQ(1, ktau_block_func_count(ktau_profile_block(p, 0)));
	ASSERT_EQ_U64(1, ktau_block_func(ktau_profile_block(p, 0), 0)->calls);
	ASSERT_EQ(KTAU_BLOCK_CHILDREN, ktau_block_kind(ktau_profile_block(p, 1)));
	ASSERT_STREQ("read", ktau_block_func(ktau_profile_block(p, 1), 0)->name);
	ktau_profile_free(p);
}

TEST(crlf_blank_lines_and_missing_final_newline)
{
	struct ktau_profile *p = parse_str(
		"ktau-profile 1\r\ntsc_khz 1000\r\n\r\nscope thread\r\n"
		"task  kind=thread\tpid=5 tid=5 comm=a\r\n\n"
		"func 0 1 write  syscall 1 2 1\r\n"
		"end", NULL);
	const struct ktau_func *f;

	ASSERT_NOT_NULL(p);
	f = ktau_block_func(ktau_profile_block(p, 0), 0);
	ASSERT_STREQ("syscall", f->group);
	ASSERT_EQ_U64(1, f->excl_cycles);
	ASSERT_STREQ("a", ktau_block_comm(ktau_profile_block(p, 0)));
	ktau_profile_free(p);
}

TEST(blank_lines_after_end_allowed)
{
	struct ktau_profile *p = parse_str(HEADER TASK "end\n\n\n", NULL);

	ASSERT_NOT_NULL(p);
	ktau_profile_free(p);
}

TEST(extra_words_on_header_lines_ignored)
{
	struct ktau_profile *p = parse_str("ktau-profile 1 rev=3\ntsc_khz 1000 measured\n"
					   "scope process all\n" TASK "end now\n", NULL);

	ASSERT_NOT_NULL(p);
	ASSERT_EQ_U64(1000, ktau_profile_tsc_khz(p));
	ktau_profile_free(p);
}
