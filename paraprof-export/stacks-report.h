/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ktau-stacks' text report: the top routines of a sample model thread. */
#ifndef KTAU_STACKS_REPORT_H
#define KTAU_STACKS_REPORT_H

#include <stdio.h>

#include <ktau.h>

/*
 * The header (source, samples, distinct stacks, samples without a stack,
 * from the thread's metadata) and the top `top` routines by exclusive
 * samples, then by inclusive samples. 0 or -errno.
 */
int stacks_report(const struct ktau_model_thread *t, size_t top, FILE *out);

#endif
