// SPDX-License-Identifier: GPL-2.0-or-later
/* ktau_profile_validate(): the kernel's guarantees, checked. */
#include <errno.h>

#include "harness.h"
#include "testutil.h"

#define HEADER "ktau-profile 1\ntsc_khz 1000\nscope process\n"
#define TASK "task kind=process pid=1 tid=1 comm=init\n"

/* 0 when text parses and validation fails with msg at line; else -1. */
static int validate_fails(const char *text, unsigned int line, const char *msg,
			  struct ktau_error **err)
{
	struct ktau_profile *p = parse_str(text, NULL);
	int ret;

	*err = NULL;
	if (!p)
		return -1;
	ret = ktau_profile_validate(p, err);
	ktau_profile_free(p);
	if (ret != -EPROTO || ktau_error_code(*err) != -EPROTO ||
	    ktau_error_line(*err) != line || !strstr(ktau_error_message(*err), msg))
		return -1;
	return 0;
}

#define ASSERT_INVALID(text, want_line, msg)					\
	do {									\
		if (validate_fails(text, want_line, msg, test_err()))		\
			FAIL("expected validation failure \"%s\" at line %d, got %d at %u: %s", \
			     msg, want_line, ERR_CODE, ERR_LINE, ERR_MSG); \
	} while (0)

TEST(valid_fixtures_validate)
{
	static const char *const files[] = {
		"process-valid.ktau", "thread.ktau", "system.ktau", "before.ktau",
		"after.ktau",
	};
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct ktau_profile *p = load_profile(test_fixture(files[i]), NULL);
		int ret;

		ASSERT_NOT_NULL(p);
		ret = ktau_profile_validate(p, test_err());
		ktau_profile_free(p);
		if (ret)
			FAIL("%s: %s (line %u)", files[i], ERR_MSG, ERR_LINE);
	}
}

/* The format doc's example has an edge into page_fault but no func line for
 * page_fault; "summing a function's edge lines gives at most its func line"
 * says there must be one. */
TEST(doc_example_lacks_page_fault_func)
{
	struct ktau_profile *p = load_profile(test_fixture("doc-example.ktau"), NULL);

	ASSERT_NOT_NULL(p);
	ASSERT_EQ(-EPROTO, ktau_profile_validate(p, test_err()));
	ASSERT_EQ(10, ERR_LINE);
	ASSERT_CONTAINS(ERR_MSG, "no func record for 'page_fault'");
	ktau_profile_free(p);
}

TEST(invalid_excl_greater_than_incl)
{
	ASSERT_INVALID(HEADER TASK "func 0 1 f g 1 10 20\nend\n", 5,
		       "func 'f': excl_cycles 20 > incl_cycles 10");
	ASSERT_INVALID(HEADER TASK "func 0 2 c g 1 10 10\nfunc 0 1 p g 1 10 5\n"
		       "edge 0 1 p 2 c 1 5 6\nend\n", 7, "edge 'p' -> 'c': excl_cycles 6");
}

TEST(invalid_edges_exceed_func)
{
	ASSERT_INVALID(HEADER TASK "func 0 2 c g 2 10 10\nfunc 0 1 p g 1 10 5\n"
		       "func 0 3 q g 1 10 5\n"
		       "edge 0 1 p 2 c 1 6 6\nedge 0 3 q 2 c 1 6 6\nend\n", 5,
		       "the edges into 'c' (ctx 0) add up to more than its func record");
	ASSERT_INVALID(HEADER TASK "func 0 2 c g 2 10 10\n"
		       "edge 0 1 p 2 c 3 6 6\nend\n", 5, "edges into 'c'");
}

TEST(edges_in_other_ctx_are_separate)
{
	struct ktau_profile *p = parse_str(HEADER TASK
		"func 0 2 c g 1 10 10\nfunc 1 2 c g 1 10 10\n"
		"edge 0 1 p 2 c 1 10 10\nedge 1 1 p 2 c 1 10 10\n"
		"func 0 1 p g 1 20 10\nfunc 1 1 p g 1 20 10\nend\n", NULL);

	ASSERT_NOT_NULL(p);
	ASSERT_EQ(0, ktau_profile_validate(p, NULL));
	ktau_profile_free(p);
}

TEST(invalid_events)
{
	ASSERT_INVALID(HEADER TASK "event 0 3 bytes 2 9 4 13 97\nend\n", 5,
		       "event 'bytes': min 9 > max 4");
	ASSERT_INVALID(HEADER TASK "event 0 3 bytes 0 0 0 0 0\nend\n", 5,
		       "event 'bytes' with count 0");
}

TEST(invalid_blocks_for_scope)
{
	ASSERT_INVALID("ktau-profile 1\ntsc_khz 1\nscope thread\n"
		       "task kind=thread pid=1 tid=1\ntask kind=thread pid=1 tid=2\nend\n",
		       0, "thread scope with 2 blocks");
	ASSERT_INVALID("ktau-profile 1\ntsc_khz 1\nscope thread\n"
		       "task kind=process pid=1 tid=1\nend\n", 4,
		       "a process block in a thread profile");
	ASSERT_INVALID(HEADER "task kind=thread pid=1 tid=1\nend\n", 4,
		       "a thread block in a process profile");
	ASSERT_INVALID("ktau-profile 1\ntsc_khz 1\nscope system\n"
		       "task kind=process pid=1 tid=1\nend\n", 4,
		       "a process block in a system profile");
}

TEST(validate_null_is_einval)
{
	ASSERT_EQ(-EINVAL, ktau_profile_validate(NULL, test_err()));
	ASSERT_EQ(-EINVAL, ERR_CODE);
}

/* ---- version 2 ---- */

#define HEADER2 "ktau-profile 2\ntsc_khz 1000\nscope process\n"

TEST(valid_v2_doc_example)
{
	struct ktau_profile *p = load_profile(test_fixture("doc-example-v2.ktau"),
							NULL);

	ASSERT_NOT_NULL(p);
	ASSERT_EQ(0, ktau_profile_validate(p, test_err()));
	ktau_profile_free(p);
}

TEST(invalid_v2_paths)
{
	ASSERT_INVALID(HEADER2 TASK "path 0 0 read syscall 1 5 5\n"
		       "path 0 0,470,469 irq irq 1 2 2\nend\n", 6,
		       "path 0,470,469 (ctx 0) without its prefix of depth 2");
	ASSERT_INVALID(HEADER2 TASK "path 0 470 page_fault exception 1 5 5\n"
		       "path 1 470,469 irq irq 1 2 2\nend\n", 6,
		       "path 470,469 (ctx 1) without its prefix of depth 1");
	ASSERT_INVALID(HEADER2 TASK "path 0 0 read syscall 1 5 6\nend\n", 5,
		       "path 0: excl_cycles 6 > incl_cycles 5");
}

TEST(invalid_v2_opens)
{
	ASSERT_INVALID(HEADER2 TASK "open 1 0 0,470 page_fault exception 5 6\nend\n", 5,
		       "open 'page_fault' (tid 1): excl_cycles 6 > incl_cycles 5");
	ASSERT_INVALID(HEADER2 "task kind=children pid=1 tid=0\n"
		       "open 1 0 0 read syscall 6 5\nend\n", 5,
		       "open record in a children block");
}

/* excl + the children's incl above incl is TSC skew, not an error */
TEST(v2_child_time_is_not_checked)
{
	struct ktau_profile *p = parse_str(HEADER2 TASK "path 0 0 read syscall 1 10 10\n"
					   "path 0 0,470 page_fault exception 1 5 5\nend\n",
					   NULL);

	ASSERT_NOT_NULL(p);
	ASSERT_EQ(0, ktau_profile_validate(p, test_err()));
	ktau_profile_free(p);
}
