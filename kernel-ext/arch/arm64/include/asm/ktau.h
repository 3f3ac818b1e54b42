/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What KTAU needs from arm64 (the contract is in include/linux/ktau.h):
 * its clock, current, a read of a registered user word that cannot
 * fault, the record update with the barrier arm64's store order needs,
 * and which system calls are the compat (AArch32) ABI's.
 */
#ifndef _ASM_ARM64_KTAU_H
#define _ASM_ARM64_KTAU_H

#include <linux/compiler.h>
#include <linux/cpumask.h>
#include <linux/ktau_types.h>
#include <linux/types.h>
#include <asm/alternative-macros.h>
#include <asm/arch_timer.h>
#include <asm/barrier.h>
#include <asm/cpucaps.h>
#include <asm/current.h>
#include <asm/sysreg.h>
#include <asm/thread_info.h>
#include <asm/uaccess.h>
#include <clocksource/arm_arch_timer.h>

/*
 * The clock of every timer: the virtual counter CNTVCT_EL0, read after
 * an isb (or as CNTVCTSS_EL0 where the CPU has one) so that it is not
 * read ahead of the code it times, as arch_timer_read_cntvct_el0()
 * reads it; that is inline, not always inlined (at -Os it is not).
 */
static __always_inline u64 ktau_arch_now(void)
{
	u64 cnt;

	asm volatile(ALTERNATIVE("isb\n mrs %0, cntvct_el0",
				 "nop\n" __mrs_s("%0", SYS_CNTVCTSS_EL0),
				 ARM64_HAS_ECV)
		     : "=r" (cnt));
	return cnt;
}

/*
 * The counter's rate (CNTFRQ_EL0, or the firmware's override of it), in
 * the profiles' tsc_khz field.
 */
static __always_inline unsigned int ktau_arch_clock_khz(void)
{
	return arch_timer_get_rate() / 1000;
}

/*
 * Why the clock cannot time anything, or NULL (asked once, at boot, with
 * the secondary CPUs up): a counter without a rate, or one that an
 * erratum makes unreliable to read with a plain mrs (the kernel then
 * reads it through a workaround, and the vDSO does not read it at all).
 */
static inline const char *ktau_arch_clock_unusable(void)
{
	unsigned int cpu __maybe_unused;

	if (!arch_timer_get_rate())
		return "the virtual counter has no frequency (CNTFRQ_EL0 is 0)";
#ifdef CONFIG_ARM_ARCH_TIMER_OOL_WORKAROUND
	for_each_online_cpu(cpu) {
		const struct arch_timer_erratum_workaround *wa;

		wa = per_cpu(timer_unstable_counter_workaround, cpu);
		if (wa && wa->read_cntvct_el0)
			return wa->desc;
	}
#endif
	return NULL;
}

/* current is sp_el0, read where it is used. */
static __always_inline struct task_struct *ktau_arch_current(void)
{
	return current;
}

/*
 * The value of a registered user context word; a word that is not
 * mapped reads as 0 through the exception table.  The caller has page
 * faults disabled (interrupts may be off).
 */
static __always_inline u32 ktau_arch_ctx_value(const u32 __user *word)
{
	u32 value;

	if (__get_user(value, word))
		return 0;
	return value;
}

/*
 * Store in *@key the key @low of a new outermost frame (caller field 0)
 * with the caller field of user context @value: @cache holds two (value,
 * caller field) pairs, the first tried first; neither: the value goes to
 * *@pending and the field is @mark.
 */
static __always_inline void ktau_arch_ctx_key(u32 *key, u32 low, u32 value,
					      const u32 *cache, u32 *pending,
					      u32 mark)
{
	if (value == cache[0]) {
		low |= cache[1];
	} else if (value == cache[2]) {
		low |= cache[3];
	} else {
		*pending = value;
		low |= mark;
	}
	*key = low;
}

/* A store of the zero register. */
static __always_inline void ktau_arch_zero64(u64 *p)
{
	*p = 0;
}

static __always_inline void ktau_arch_zero32(u32 *p)
{
	*p = 0;
}

/*
 * Add a call to record @e: each counter is written with one aligned
 * 64-bit store, which readers on other CPUs never see torn.  arm64 may
 * make stores visible out of program order: the exclusive time is a
 * store-release, so that a reader that loads it before the inclusive
 * time (smp_rmb() between) never sees exclusive > inclusive.
 */
static __always_inline void ktau_arch_entry_add(struct ktau_entry *e,
						u64 incl, u64 excl)
{
	/* both loaded first: one ldp */
	u64 old_incl = e->incl, old_excl = e->excl;

	WRITE_ONCE(e->incl, old_incl + incl);
	/* Pairs with smp_rmb() in the readers (kernel/ktau/view.c). */
	smp_store_release(&e->excl, old_excl + excl);
	WRITE_ONCE(e->calls_key, e->calls_key + KTAU_CALLS_ONE);
}

/* Add @v to the counter at @p, as ktau_arch_entry_add() does. */
static __always_inline void ktau_arch_counter_add(u64 *p, u64 v)
{
	WRITE_ONCE(*p, *p + v);
}

/* One more call in a record's count and key word (KTAU_CALLS_ONE). */
static __always_inline void ktau_arch_calls_inc(u64 *calls_key)
{
	WRITE_ONCE(*calls_key, *calls_key + KTAU_CALLS_ONE);
}

/* arm64's compat ABI is AArch32 (is_compat_task()). */
static __always_inline bool ktau_arch_in_compat_syscall(void)
{
	return IS_ENABLED(CONFIG_COMPAT) && test_thread_flag(TIF_32BIT);
}

/* arm64 has one system call path, timed or not by its static key. */
static inline void ktau_arch_time_syscalls(bool on)
{
}

#endif /* _ASM_ARM64_KTAU_H */
