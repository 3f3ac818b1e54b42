/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counting instructions in a guest run under `qemu -icount shift=0`: the
 * virtual clock, and with it the TSC, advances one tick per executed
 * instruction, so rdtsc differences are instruction counts and repeat
 * exactly.  What a run measures is everything the (single) CPU executed:
 * the program, the kernel on its behalf, and any other task or interrupt
 * that ran meanwhile; the minimum of several short runs, started at
 * spread phases, drops the runs a timer tick fell into.
 */
#ifndef KTAU_BENCH_ICOUNT_H
#define KTAU_BENCH_ICOUNT_H

#include <stdint.h>

#if defined(__x86_64__)
static inline uint64_t icount_now(void)
{
	return __builtin_ia32_rdtsc();
}

/* A loop of exactly two instructions per iteration, @k (> 0) iterations. */
static inline void icount_loop2(long k)
{
	__asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(k));
}

/* The raw system call, without libc's wrapper around it. */
static inline long sys3(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return ret;
}
#elif defined(__aarch64__)
/*
 * arm64 (make bench ARCH=arm64): the virtual counter CNTVCT_EL0, which
 * QEMU derives from the same virtual clock, so under -icount shift=0 it
 * too counts instructions, in ticks of 10^9 / CNTFRQ_EL0 of them (QEMU
 * 7.2: 62.5 MHz, 16 instructions a tick).  Scaled to nanoseconds, that
 * is instructions; a run of thousands of calls loses at most one tick at
 * each end.  The isb keeps the read from being taken early on hardware
 * (the count is then time, not instructions, but still consistent).
 */
static inline uint64_t icount_now(void)
{
	uint64_t cnt, frq;

	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(cnt) : : "memory");
	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(frq));
	return (uint64_t)((unsigned __int128)cnt * 1000000000u / frq);
}

/* A loop of exactly two instructions per iteration, @k (> 0) iterations. */
static inline void icount_loop2(long k)
{
	__asm__ volatile("1: subs %0, %0, #1\n\tb.ne 1b" : "+r"(k) : : "cc");
}

/* The raw system call, without libc's wrapper around it. */
static inline long sys3(long nr, long a, long b, long c)
{
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;

	__asm__ volatile("svc #0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2)
			 : "memory");
	return x0;
}
#else
#error "bench/icount.h: x86_64 or arm64 (aarch64) only"
#endif

/*
 * Shorter than a tick (4 M instructions at HZ=250): most runs see none.
 * Run r starts after a spin of r / ICOUNT_RUNS of ICOUNT_PHASE_SPAN
 * instructions, so that the runs meet the kernel's work that recurs with
 * the virtual clock at different phases.  Without the spin, the runs of
 * one boot could all meet it alike: the pipe round trip of ktau switched
 * off read 7616.4 in some boots and 7624.4 in others (every run of those
 * carried 2048 instructions more), and the same 7616.8 in every boot
 * with it.
 */
#define ICOUNT_RUN_BUDGET	400000
#define ICOUNT_RUNS		15
#define ICOUNT_PHASE_SPAN	(1L << 20)

/*
 * One measured loop: @run executes the operation @n times.  The bench
 * calls @setup before and @teardown after each run, outside the count.
 * @iterations: the n of every run, or 0 for as many as fit in
 * ICOUNT_RUN_BUDGET by a first trial.  A fixed n keeps a cost that
 * comes once per run (a page-table page, a refill of the page
 * allocator's per-CPU list, a wakeup that preempts) spread over the same
 * count on every kernel and in every boot, where a count sized by the
 * trial would differ with the kernel's cost and the boot's state.
 */
struct icount_op {
	const char *name;
	void (*setup)(void *arg, long n);
	void (*run)(void *arg, long n);
	void (*teardown)(void *arg, long n);
	void *arg;
	long iterations;
};

/* Instructions per iteration of @op: the minimum over ICOUNT_RUNS runs. */
double icount_per_call(const struct icount_op *op);

#endif
