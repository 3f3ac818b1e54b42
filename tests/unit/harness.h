/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A tiny test harness in the spirit of the kernel's kselftest_harness.h:
 *
 *	TEST(parses_header)
 *	{
 *		ASSERT_EQ(1, version);
 *	}
 *
 * Every test runs in its own child process (a crash or a leak fails that
 * test only) and prints one line: "PASS: <name>" or "FAIL: <name>: <reason>",
 * or "SKIP: <name>: <reason>" when it needs a tool that is missing (SKIP(),
 * after freeing what it holds: leaks still fail; the reason names the tool
 * and its Debian package).  SKIP_PART() notes a part that cannot run and
 * goes on: the test then ends as a SKIP with every such reason, unless it
 * fails, so that a test never prints both a SKIP and a PASS line.
 * The ASSERT_* macros end the test at the first failure; they may only be
 * used in the test body itself, not in helper functions (helpers return a
 * value the body asserts on).
 */
#ifndef KTAU_TEST_HARNESS_H
#define KTAU_TEST_HARNESS_H

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct test_ctx {
	int failed;
	int skipped;
	char reason[1024];
};

struct test_case {
	const char *name;
	void (*fn)(struct test_ctx *t);
	struct test_case *next;
};

void test_register(struct test_case *tc);
void test_fail(struct test_ctx *t, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void test_skip(struct test_ctx *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Where the fixture files are (the FIXTURES environment variable). */
const char *test_fixture(const char *name);

#define TEST(name)							\
	static void test_##name(struct test_ctx *_t);			\
	static struct test_case test_case_##name = { #name, test_##name, NULL }; \
	__attribute__((constructor)) static void test_register_##name(void) \
	{								\
		test_register(&test_case_##name);			\
	}								\
	static void test_##name(struct test_ctx *_t)

#define FAIL(...)							\
	do {								\
		test_fail(_t, __FILE__, __LINE__, __VA_ARGS__);		\
		return;							\
	} while (0)

/* Ends the test as skipped, e.g.
 * SKIP("go is not installed (Debian package golang-go)"). */
#define SKIP(...)							\
	do {								\
		test_skip(_t, __VA_ARGS__);				\
		return;							\
	} while (0)

/* A part of the test cannot run here: the rest runs, and the test ends
 * as skipped (with this reason, after any other) unless it fails. */
#define SKIP_PART(...) test_skip(_t, __VA_ARGS__)

#define ASSERT_TRUE(cond)						\
	do {								\
		if (!(cond))						\
			FAIL("expected %s", #cond);			\
	} while (0)

#define ASSERT_FALSE(cond)						\
	do {								\
		if (cond)						\
			FAIL("expected !(%s)", #cond);			\
	} while (0)

#define ASSERT_EQ(expected, actual)					\
	do {								\
		intmax_t e_ = (intmax_t)(expected), a_ = (intmax_t)(actual); \
		if (e_ != a_)						\
			FAIL("%s == %s: expected %jd, got %jd", #expected, #actual, e_, a_); \
	} while (0)

#define ASSERT_EQ_U64(expected, actual)					\
	do {								\
		uintmax_t e_ = (uintmax_t)(expected), a_ = (uintmax_t)(actual); \
		if (e_ != a_)						\
			FAIL("%s == %s: expected %ju, got %ju", #expected, #actual, e_, a_); \
	} while (0)

#define ASSERT_NULL(p)							\
	do {								\
		if ((p) != NULL)					\
			FAIL("expected %s to be NULL", #p);		\
	} while (0)

#define ASSERT_NOT_NULL(p)						\
	do {								\
		if ((p) == NULL)					\
			FAIL("%s is NULL (errno %d: %s)", #p, errno, strerror(errno)); \
	} while (0)

#define ASSERT_STREQ(expected, actual)					\
	do {								\
		const char *e_ = (expected), *a_ = (actual);		\
		if (!e_ || !a_ || strcmp(e_, a_))			\
			FAIL("%s: expected \"%s\", got \"%s\"", #actual, \
			     e_ ? e_ : "(null)", a_ ? a_ : "(null)");	\
	} while (0)

#define ASSERT_CONTAINS(haystack, needle)				\
	do {								\
		const char *h_ = (haystack), *n_ = (needle);		\
		if (!h_ || !strstr(h_, n_))				\
			FAIL("%s: \"%s\" does not contain \"%s\"", #haystack, \
			     h_ ? h_ : "(null)", n_);			\
	} while (0)

#define ASSERT_NOT_CONTAINS(haystack, needle)				\
	do {								\
		const char *h_ = (haystack), *n_ = (needle);		\
		if (h_ && strstr(h_, n_))				\
			FAIL("%s: \"%s\" contains \"%s\"", #haystack, h_, n_); \
	} while (0)

#define ASSERT_NEAR(expected, actual, tolerance)			\
	do {								\
		double e_ = (expected), a_ = (actual);			\
		if (!(fabs(e_ - a_) <= (tolerance)))			\
			FAIL("%s: expected %.17g, got %.17g", #actual, e_, a_); \
	} while (0)

#endif
