// SPDX-License-Identifier: GPL-2.0-or-later
/* cycles -> microseconds, and the error messages. */
#include <errno.h>
#include <math.h>

#include "harness.h"
#include "testutil.h"

TEST(usec_exact_values)
{
	ASSERT_NEAR(1000.0, ktau_cycles_to_usec(2899999, 2899999), 0.0);
	ASSERT_NEAR(1.0, ktau_cycles_to_usec(3000, 3000000), 0.0);
	ASSERT_NEAR(0.0, ktau_cycles_to_usec(0, 3000000), 0.0);
	ASSERT_NEAR(231000.0 * 1000.0 / 2899999.0, ktau_cycles_to_usec(231000, 2899999), 1e-12);
	ASSERT_NEAR(0.5, ktau_cycles_to_usec(1, 2000), 0.0);
}

TEST(usec_no_overflow_for_huge_counts)
{
	/* cycles * 1000 would overflow 64 bits here */
	double got = ktau_cycles_to_usec(UINT64_MAX, 1000000);
	double want = 18446744073709551615.0 / 1000.0;

	ASSERT_NEAR(want, got, want * 1e-15);
	got = ktau_cycles_to_usec(UINT64_MAX, 1);
	ASSERT_NEAR(18446744073709551615.0 * 1000.0, got, 1e7);
}

TEST(usec_precise_for_huge_counts)
{
	/* a plain double conversion of the cycle count would lose the low bits */
	uint64_t cycles = UINT64_MAX - 12345;
	long double want = (long double)cycles * 1000.0L / 2899999.0L;
	double got = ktau_cycles_to_usec(cycles, 2899999);

	ASSERT_TRUE(fabsl((long double)got - want) / want < 1e-15L);
}

TEST(usec_zero_khz_is_nan)
{
	ASSERT_TRUE(isnan(ktau_cycles_to_usec(100, 0)));
}

TEST(profile_usec_uses_header)
{
	struct ktau_profile *p = load_profile(test_fixture("doc-example.ktau"), NULL);

	ASSERT_NOT_NULL(p);
	ASSERT_NEAR(79.65519988110341, ktau_profile_usec(p, 231000), 1e-9);
	ktau_profile_free(p);
}

TEST(strerror_messages)
{
	ASSERT_CONTAINS(ktau_strerror(-ENODEV), "no /proc/ktau");
	ASSERT_CONTAINS(ktau_strerror(ENODEV), "no ktau support");
	ASSERT_CONTAINS(ktau_strerror(-EPROTO), "malformed");
	ASSERT_CONTAINS(ktau_strerror(-EPROTONOSUPPORT), "version");
	ASSERT_CONTAINS(ktau_strerror(-ESRCH), "no such process");
	ASSERT_CONTAINS(ktau_strerror(-EACCES), "permission denied");
	ASSERT_CONTAINS(ktau_strerror(-ERANGE), "backwards");
	ASSERT_CONTAINS(ktau_strerror(-EOVERFLOW), "64 bits");
	ASSERT_STREQ("success", ktau_strerror(0));
	ASSERT_CONTAINS(ktau_strerror(-ENOENT), "No such file");
	ASSERT_NOT_NULL(ktau_strerror(-100000));
}

/* the string is the three numbers, which scripts/version.sh reads */
TEST(version_string)
{
	char want[64];

	snprintf(want, sizeof(want), "%d.%d.%d", KTAU_VERSION_MAJOR, KTAU_VERSION_MINOR,
		 KTAU_VERSION_PATCH);
	ASSERT_STREQ(want, KTAU_VERSION_STRING);
	ASSERT_STREQ(KTAU_VERSION_STRING, ktau_version());
}
