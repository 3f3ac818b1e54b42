/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel's clock (its asm/ktau.h) as user mode reads it, so that user
 * and kernel times share one time base: the TSC on x86, the virtual
 * counter CNTVCT_EL0 on arm64 (CNTVCT for an AArch32 program), read
 * after an isb, not ahead of the code it times, as the kernel reads it;
 * Linux lets user mode read it (the vDSO does).  Header-only, with no
 * dependency: the guest tests' reader (tests/guest/ktr.h) includes it too.
 */
#ifndef KTAU_UTIL_CLOCK_H
#define KTAU_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t ktau__cycles(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
	uint64_t cnt;

	__asm__ volatile ("isb\n\tmrs %0, cntvct_el0" : "=r" (cnt) : : "memory");
	return cnt;
#elif defined(__arm__)
	uint64_t cnt;

	__asm__ volatile ("isb\n\tmrrc p15, 1, %Q0, %R0, c14" : "=r" (cnt) : : "memory");
	return cnt;
#else
#error "the kernel's clock is read on x86 and arm only"
#endif
}

/*
 * The cycle counter at the moment @ts's clock was read: the middle of
 * the closest of three pairs of reads around clock_gettime(), so that a
 * preemption between the two reads (a loaded node) does not put a gap of
 * its length into a rate measured from them.
 */
static inline uint64_t ktau__cycles_at(clockid_t clock, struct timespec *ts)
{
	uint64_t best = UINT64_MAX, at = 0;

	for (int i = 0; i < 3; i++) {
		struct timespec now;
		uint64_t before = ktau__cycles(), after;

		clock_gettime(clock, &now);
		after = ktau__cycles();
		if (after - before < best) {
			best = after - before;
			at = before + (after - before) / 2;
			*ts = now;
		}
	}
	return at;
}

#endif
