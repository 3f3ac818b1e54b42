// SPDX-License-Identifier: GPL-2.0-or-later
/* The kernel's shared counter area, played on the host (fake_counters.h). */
#include <errno.h>

#include "../../kernel-ext/include/uapi/linux/ktau.h"

#include "fake_counters.h"
#include "ktau.h"

__thread unsigned long fake_registered;
__thread uint64_t fake_faults;

static int refuse(int error)
{
	errno = error;
	return -1;
}

static int fake_set(unsigned long addr, unsigned long len)
{
	struct ktau_counters *k = (struct ktau_counters *)addr;
	unsigned int i;

	if (!addr) {
		if (!fake_registered)
			return refuse(ENOENT);
		fake_registered = 0;
		return 0;
	}
	if (addr % 8 || len < KTAU_COUNTERS_SIZE(1) || k->version != KTAU_COUNTERS_VERSION ||
	    k->nr < 1 || k->nr > KTAU_COUNTERS_MAX || len < KTAU_COUNTERS_SIZE(k->nr))
		return refuse(EINVAL);
	if (fake_registered)
		return refuse(EBUSY);
	for (i = 0; i < k->nr; i++)
		if (k->ids[i] == FAKE_UNKNOWN_FID)
			return refuse(ENOENT);
	for (i = 0; i < k->nr; i++) {
		k->val[i].calls = i + 1;
		k->val[i].incl = 100 * (i + 1);
		k->val[i].excl = 10 * (i + 1);
	}
	k->seq++;
	fake_registered = addr;
	return 0;
}

int fake_counters_prctl(int option, unsigned long arg2, unsigned long arg3)
{
	if (option == PR_KTAU_SET_COUNTERS)
		return fake_set(arg2, arg3);
	if (option == PR_KTAU_GET_COUNTERS) {
		*(uint64_t *)arg2 = fake_registered;
		if (arg3)
			*(uint64_t *)arg3 = fake_faults;
		return 0;
	}
	return refuse(EINVAL);
}
