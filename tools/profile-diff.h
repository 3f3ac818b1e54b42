/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Two runs' profiles side by side: ktau-report --diff. */
#ifndef KTAU_TOOLS_PROFILE_DIFF_H
#define KTAU_TOOLS_PROFILE_DIFF_H

#include <stdio.h>

#include <ktau.h>

/*
 * Per routine (name and group, all user contexts summed) of block a of
 * profile pa and block b of pb: calls, exclusive and inclusive
 * microseconds of A and B and B - A, sorted by the exclusive time's change,
 * largest first; top > 0 keeps that many rows. Two runs need signed
 * differences, which is why this is not ktau_block_subtract() (that one is
 * for snapshots of the same tasks and refuses counters that went down).
 * 0 or -ENOMEM.
 */
int print_diff(FILE *out, const struct ktau_profile *pa, const struct ktau_block *a,
	       const struct ktau_profile *pb, const struct ktau_block *b, size_t top);

#endif
