/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Assertions the stack-importer tests share (test bodies only). */
#ifndef KTAU_STACKS_TEST_H
#define KTAU_STACKS_TEST_H

#include <errno.h>
#include <string.h>

#include "harness.h"
#include "testutil.h"

/* Routine `name` of thread 0: calls = inclusive samples. */
#define ASSERT_ROUTINE(m, name, group_, incl, excl)			\
	do {								\
		const struct ktau_model_routine *r_ = stacks_routine(m, name); \
		if (!r_)						\
			FAIL("no routine '%s'", name);			\
		ASSERT_STREQ(group_, r_->group);			\
		ASSERT_EQ_U64(incl, r_->incl_ns);			\
		ASSERT_EQ_U64(excl, r_->excl_ns);			\
		ASSERT_EQ_U64(incl, r_->calls);				\
		ASSERT_EQ_U64((incl) - (excl), r_->subrs);		\
	} while (0)

#define ASSERT_CALLPATH(m, name, incl, excl)				\
	do {								\
		const struct ktau_model_callpath *c_ = stacks_callpath(m, name); \
		if (!c_)						\
			FAIL("no callpath '%s'", name);			\
		ASSERT_EQ_U64(incl, c_->incl_ns);			\
		ASSERT_EQ_U64(excl, c_->excl_ns);			\
		ASSERT_EQ_U64(incl, c_->calls);				\
	} while (0)

/* text (a C string) fails to parse as format with EPROTO at line. */
#define ASSERT_STACKS_ERROR(text, format, line_, msg)			\
	do {								\
		struct ktau_stacks *s_;					\
		errno = 0;						\
		s_ = ktau_stacks_parse(text, strlen(text), format, test_err()); \
		if (s_) {						\
			ktau_stacks_free(s_);				\
			FAIL("parsed, expected '%s'", msg);		\
		}							\
		ASSERT_EQ(EPROTO, errno);				\
		ASSERT_EQ(-EPROTO, ERR_CODE);				\
		ASSERT_STREQ(msg, ERR_MSG);				\
		ASSERT_EQ(line_, ERR_LINE);				\
	} while (0)

#endif
