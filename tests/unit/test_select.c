// SPDX-License-Identifier: GPL-2.0-or-later
/* ktau_profile_filter_groups() and ktau_profile_top() on the system fixture. */
#include <errno.h>
#include <stdlib.h>

#include "harness.h"
#include "testutil.h"

static struct ktau_profile *fixture(void)
{
	return load_profile(test_fixture("system.ktau"), NULL);
}

TEST(filter_groups_keeps_listed_groups)
{
	static const char *const groups[] = { "softirq", "sched" };
	struct ktau_profile *p = fixture(), *f;
	const struct ktau_block *b;

	ASSERT_NOT_NULL(p);
	f = ktau_profile_filter_groups(p, groups, 2);
	ASSERT_NOT_NULL(f);
	ASSERT_EQ(ktau_profile_block_count(p), ktau_profile_block_count(f));
	b = ktau_profile_block(f, 0);		/* server: read, schedule_vol */
	ASSERT_EQ(1, ktau_block_func_count(b));
	ASSERT_STREQ("schedule_vol", ktau_block_func(b, 0)->name);
	ASSERT_EQ(1, ktau_block_edge_count(b));	/* read => schedule_vol */
	ASSERT_EQ(0, ktau_block_event_count(b));	/* "event" not listed */
	b = ktau_profile_block(f, 1);		/* worker: read, write, NET_RX */
	ASSERT_EQ(1, ktau_block_func_count(b));
	ASSERT_STREQ("NET_RX", ktau_block_func(b, 0)->name);
	ASSERT_EQ_U64(3, ktau_block_func(b, 0)->calls);
	ASSERT_EQ(1, ktau_block_edge_count(b));
	ASSERT_EQ(0, ktau_block_func_count(ktau_profile_block(f, 2)));	/* exited */
	ASSERT_EQ(0, ktau_profile_validate(f, NULL));
	/* the source is untouched */
	ASSERT_EQ(3, ktau_block_func_count(ktau_profile_block(p, 1)));
	ktau_profile_free(f);
	ktau_profile_free(p);
}

TEST(filter_groups_event_and_errors)
{
	static const char *const groups[] = { "event", "syscall" };
	struct ktau_profile *p = fixture(), *f;
	const struct ktau_block *b;

	ASSERT_NOT_NULL(p);
	f = ktau_profile_filter_groups(p, groups, 2);
	ASSERT_NOT_NULL(f);
	b = ktau_profile_block(f, 1);
	ASSERT_EQ(2, ktau_block_func_count(b));	/* read, write */
	ASSERT_EQ(0, ktau_block_edge_count(b));	/* write => NET_RX goes with NET_RX */
	ASSERT_EQ(1, ktau_block_event_count(b));
	ktau_profile_free(f);
	f = ktau_profile_filter_groups(p, NULL, 0);	/* nothing listed: empty blocks */
	ASSERT_NOT_NULL(f);
	ASSERT_EQ(0, ktau_block_func_count(ktau_profile_block(f, 0)));
	ktau_profile_free(f);
	errno = 0;
	ASSERT_NULL(ktau_profile_filter_groups(p, NULL, 1));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_NULL(ktau_profile_filter_groups(NULL, groups, 1));
	ktau_profile_free(p);
}

TEST(top_keeps_largest_exclusive)
{
	struct ktau_profile *p = fixture(), *t;
	const struct ktau_block *b;

	ASSERT_NOT_NULL(p);
	t = ktau_profile_top(p, 1);
	ASSERT_NOT_NULL(t);
	b = ktau_profile_block(t, 1);		/* write 40000 > NET_RX 10000 > read 5000 */
	ASSERT_EQ(1, ktau_block_func_count(b));
	ASSERT_STREQ("write", ktau_block_func(b, 0)->name);
	ASSERT_EQ(0, ktau_block_edge_count(b));
	ASSERT_EQ(1, ktau_block_event_count(b));
	ktau_profile_free(t);
	t = ktau_profile_top(p, 2);
	b = ktau_profile_block(t, 1);
	ASSERT_EQ(2, ktau_block_func_count(b));	/* file order kept */
	ASSERT_STREQ("write", ktau_block_func(b, 0)->name);
	ASSERT_STREQ("NET_RX", ktau_block_func(b, 1)->name);
	ASSERT_EQ(1, ktau_block_edge_count(b));
	ASSERT_EQ(2, ktau_block_func_count(ktau_profile_block(t, 0)));	/* has only 2 */
	ktau_profile_free(t);
	errno = 0;
	ASSERT_NULL(ktau_profile_top(p, 0));
	ASSERT_EQ(EINVAL, errno);
	ktau_profile_free(p);
}
