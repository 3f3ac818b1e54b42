// SPDX-License-Identifier: GPL-2.0-or-later
/* The function id map, /proc/ktau/functions. */
#include <errno.h>

#include "harness.h"
#include "testutil.h"

TEST(functions_map_parses)
{
	struct ktau_functions *m = load_functions(test_fixture("functions.txt"), test_err());
	const struct ktau_function *f;

	ASSERT_NOT_NULL(m);
	ASSERT_EQ(10, ktau_functions_count(m));
	f = ktau_functions_get(m, 0);
	ASSERT_EQ(0, f->fid);
	ASSERT_STREQ("syscall", f->group);
	ASSERT_STREQ("read", f->name);
	f = ktau_functions_get(m, 3);
	ASSERT_EQ(463, f->fid);
	ASSERT_STREQ("ia32_waitpid", f->name);
	f = ktau_functions_get(m, 9);
	ASSERT_EQ(480, f->fid);
	ASSERT_STREQ("event", f->group);
	errno = 0;
	ASSERT_NULL(ktau_functions_get(m, 10));
	ASSERT_EQ(ERANGE, errno);
	ktau_functions_free(m);
}

TEST(functions_lookup)
{
	struct ktau_functions *m = load_functions(test_fixture("functions.txt"), NULL);

	ASSERT_NOT_NULL(m);
	ASSERT_STREQ("getpid", ktau_functions_find_fid(m, 39)->name);
	ASSERT_STREQ("schedule_invol", ktau_functions_find_fid(m, 472)->name);
	ASSERT_STREQ("read", ktau_functions_find_fid(m, 0)->name);
	ASSERT_EQ(465, ktau_functions_find_name(m, "NET_RX")->fid);
	ASSERT_STREQ("sched", ktau_functions_find_name(m, "schedule_vol")->group);
	errno = 0;
	ASSERT_NULL(ktau_functions_find_fid(m, 2));
	ASSERT_EQ(ENOENT, errno);
	errno = 0;
	ASSERT_NULL(ktau_functions_find_fid(m, 100000));
	ASSERT_EQ(ENOENT, errno);
	errno = 0;
	ASSERT_NULL(ktau_functions_find_name(m, "fork"));
	ASSERT_EQ(ENOENT, errno);
	ktau_functions_free(m);
}

TEST(functions_out_of_order_ids)
{
	struct ktau_functions *m = parse_functions_str(
		"ktau-functions 1\n7 kernel g\n3 syscall c\n5 irq e\n1 syscall a\n", NULL);

	ASSERT_NOT_NULL(m);
	ASSERT_STREQ("a", ktau_functions_find_fid(m, 1)->name);
	ASSERT_STREQ("c", ktau_functions_find_fid(m, 3)->name);
	ASSERT_STREQ("e", ktau_functions_find_fid(m, 5)->name);
	ASSERT_STREQ("g", ktau_functions_find_fid(m, 7)->name);
	ASSERT_STREQ("g", ktau_functions_get(m, 0)->name);
	ASSERT_NULL(ktau_functions_find_fid(m, 4));
	ktau_functions_free(m);
}

TEST(functions_forward_compat)
{
	/* reordered columns, an extra column, an unknown keyword line */
	struct ktau_functions *m = parse_functions_str(
		"ktau-functions 1\ncolumns fid name flags group\n"
		"generated-by mksyscalls\n"
		"0 read 0x1 syscall\n1 write 0 syscall trailing\n\n", NULL);

	ASSERT_NOT_NULL(m);
	ASSERT_EQ(2, ktau_functions_count(m));
	ASSERT_STREQ("write", ktau_functions_find_fid(m, 1)->name);
	ASSERT_STREQ("syscall", ktau_functions_find_fid(m, 1)->group);
	ktau_functions_free(m);
}

static const char *functions_fail(const char *text, int error, unsigned int line,
				  const char *msg)
{
	static char why[512];
	struct ktau_functions *m;

	errno = 0;
	m = parse_functions_str(text, test_err());
	if (m) {
		ktau_functions_free(m);
		return "parsed successfully";
	}
	if (errno != error || ERR_CODE != -error || ERR_LINE != line ||
	    !strstr(ERR_MSG, msg)) {
		snprintf(why, sizeof(why), "errno %d line %u message \"%s\"", errno,
			 ERR_LINE, ERR_MSG);
		return why;
	}
	return NULL;
}

#define ASSERT_FUNCTIONS_FAIL(text, error, want_line, msg)		\
	do {								\
		const char *why_ = functions_fail(text, error, want_line, msg); \
		if (why_)						\
			FAIL("%s", why_);				\
	} while (0)

TEST(functions_errors)
{
	ASSERT_FUNCTIONS_FAIL("", EPROTO, 0, "empty input");
	ASSERT_FUNCTIONS_FAIL("ktau-profile 1\n", EPROTO, 1, "not a ktau function map");
	ASSERT_FUNCTIONS_FAIL("ktau-functions 2\n0 syscall read\n", EPROTONOSUPPORT, 1,
			      "format version 2");
	ASSERT_FUNCTIONS_FAIL("ktau-functions x\n", EPROTO, 1, "bad format version");
	ASSERT_FUNCTIONS_FAIL("ktau-functions 1\n0 syscall read\n1 syscall wr", EPROTO, 3,
			      "truncated");
	ASSERT_FUNCTIONS_FAIL("ktau-functions 1\n0 syscall\n", EPROTO, 2,
			      "2 fields, expected 3");
	ASSERT_FUNCTIONS_FAIL("ktau-functions 1\n4294967296 syscall x\n", EPROTO, 2,
			      "out of range");
	ASSERT_FUNCTIONS_FAIL("ktau-functions 1\n0 syscall read\n0 syscall write\n",
			      EPROTO, 0, "function id 0 listed twice");
	ASSERT_FUNCTIONS_FAIL("ktau-functions 1\ncolumns fid name\n", EPROTO, 2,
			      "lacks field 'group'");
	ASSERT_FUNCTIONS_FAIL("ktau-functions 1\n0 sys\x01 read\n", EPROTO, 2, "byte 0x01");
	ASSERT_FUNCTIONS_FAIL("ktau-functions 1\ncolumns name fid group\n", EPROTO, 2,
			      "fid must be the first field");
}

TEST(functions_empty_map)
{
	struct ktau_functions *m = parse_functions_str("ktau-functions 1\n", NULL);

	ASSERT_NOT_NULL(m);
	ASSERT_EQ(0, ktau_functions_count(m));
	ASSERT_NULL(ktau_functions_find_fid(m, 0));
	ktau_functions_free(m);
	ktau_functions_free(NULL);
}

TEST(functions_missing_file)
{
	errno = 0;
	ASSERT_NULL(load_functions("/nonexistent/functions", test_err()));
	ASSERT_EQ(ENOENT, errno);
	ASSERT_EQ(-ENOENT, ERR_CODE);
}
