// SPDX-License-Identifier: LGPL-2.1-or-later
#include <math.h>

#include "internal.h"

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
