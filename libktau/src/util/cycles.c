// SPDX-License-Identifier: LGPL-2.1-or-later
/* TSC cycles to time: the one conversion every part uses. */
#include <errno.h>
#include <math.h>

#include "util/util.h"

double ktau_cycles_to_usec(uint64_t cycles, uint64_t tsc_khz)
{
	uint64_t whole, rest;

	if (!tsc_khz)
		return NAN;
	/* cycles * 1000 overflows past ~1.8e16 cycles (two months at 3 GHz)
	 * and a double loses cycles past 2^53, so split off whole ms first */
	whole = cycles / tsc_khz;
	rest = cycles % tsc_khz;
	return (double)whole * 1000.0 + (double)rest * 1000.0 / (double)tsc_khz;
}

int ktau__cycles_to_ns(uint64_t cycles, uint64_t tsc_khz, uint64_t *ns)
{
	uint64_t whole;

	if (!tsc_khz)
		return -EINVAL;
	/* cycles / khz is milliseconds: split it so that nothing overflows
	 * while the result fits (khz below 2^44, any real TSC) */
	if (tsc_khz >= (UINT64_C(1) << 44))
		return -EOVERFLOW;
	if (__builtin_mul_overflow(cycles / tsc_khz, UINT64_C(1000000), &whole) ||
	    __builtin_add_overflow(whole, (cycles % tsc_khz) * 1000000 / tsc_khz, ns))
		return -EOVERFLOW;
	return 0;
}
