/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ktau-report --noise: what took the CPU from each thread of a trace. */
#ifndef KTAU_TOOLS_TRACE_NOISE_H
#define KTAU_TOOLS_TRACE_NOISE_H

#include <stdio.h>

/* The noise report of the trace at path, on out; the exit code. */
int print_noise(FILE *out, const char *path);

#endif
