/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Two runs' profiles side by side: ktau-report --diff. */
#ifndef KTAU_TOOLS_PROFILE_DIFF_H
#define KTAU_TOOLS_PROFILE_DIFF_H

#include <stdio.h>

#include <ktau.h>

/*
 * The table of ktau_profile_diff_routines(pa, pb): per routine the calls,
 * exclusive and inclusive microseconds of A and B and B - A, in the
 * library's order (largest change of exclusive time first); top > 0 keeps
 * that many rows. The arithmetic is all the library's: this only prints.
 * 0, or -errno of the comparison (ENOMEM, EOVERFLOW).
 */
int print_diff(FILE *out, const struct ktau_profile *pa, const struct ktau_profile *pb,
	       size_t top);

#endif
