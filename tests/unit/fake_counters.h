/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A stand-in for the kernel's side of the shared counter area's prctls,
 * for libktau's prctl hook (ktau__counters_prctl_hook()): this host's
 * kernel has no counter area. It checks what the kernel checks and makes
 * its first write: counter i gets calls i+1, incl 100*(i+1), excl
 * 10*(i+1), seq 1.
 */
#ifndef KTAU_TEST_FAKE_COUNTERS_H
#define KTAU_TEST_FAKE_COUNTERS_H

#include <stdint.h>

/* An id the fake kernel has no routine for: ENOENT. */
#define FAKE_UNKNOWN_FID 4000

/* The calling thread's registered area, as the kernel keeps one per task:
 * thread-local, and copied by fork() as the kernel's is. */
extern __thread unsigned long fake_registered;
/* What PR_KTAU_GET_COUNTERS reports as write failures. */
extern __thread uint64_t fake_faults;

int fake_counters_prctl(int option, unsigned long arg2, unsigned long arg3);

#endif
