/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What KTAU needs from x86 (the contract is in include/linux/ktau.h):
 * its clock, current as the system call entry wants it, a read of a
 * registered user word that cannot fault, the record update with x86's
 * store order, and which system calls are the compat ABI's.
 */
#ifndef _ASM_X86_KTAU_H
#define _ASM_X86_KTAU_H

#include <linux/compiler.h>
#include <linux/ktau_types.h>
#include <linux/stddef.h>
#include <linux/types.h>
#include <asm/cpufeature.h>
#include <asm/current.h>
#include <asm/msr.h>
#include <asm/thread_info.h>
#include <asm/tsc.h>
#include <asm/uaccess.h>
#include <asm/unistd.h>

/*
 * The clock of every timer: the TSC, whose rate the profile header gives
 * (tsc_khz).  rdtsc() is always inlined, get_cycles() not at -Os.
 */
static __always_inline u64 ktau_arch_now(void)
{
	return rdtsc();
}

/* The clock's rate, which the profiles and the trace report. */
static __always_inline unsigned int ktau_arch_clock_khz(void)
{
	return tsc_khz;
}

/* Why the clock cannot time anything, or NULL (asked once, at boot). */
static inline const char *ktau_arch_clock_unusable(void)
{
	if (!boot_cpu_has(X86_FEATURE_TSC))
		return "the CPU has no TSC";
	if (!tsc_khz)
		return "the TSC's rate is unknown";
	return NULL;
}

/*
 * current for the system call entry hook: a plain current may be loaded
 * above the hook's static branch and kept in a callee-saved register
 * across the call (it is needed after the hook), which would cost the
 * disabled hook a push and a pop.  this_cpu_read() is loaded where it
 * is used.
 */
static __always_inline struct task_struct *ktau_arch_current(void)
{
	return this_cpu_read(pcpu_hot.current_task);
}

/*
 * The value of a registered user context word; a word that is not
 * mapped reads as 0 through the exception table.  The caller has page
 * faults disabled (interrupts may be off).  The address passed
 * access_ok() when it was registered and is the kernel's copy, not an
 * index a user can steer speculatively.  An output register, not asm
 * goto: GCC versions whose asm goto outputs the kernel does not trust
 * still get one load, into the register the caller compares.
 */
static __always_inline u32 ktau_arch_ctx_value(const u32 __user *word)
{
	u32 value;

	__uaccess_begin();
	asm volatile("1:	movl (%[word]), %[value]\n"
		     "2:\n"
		     _ASM_EXTABLE_TYPE_REG(1b, 2b, EX_TYPE_ZERO_REG, %[value])
		     : [value] "=r" (value) : [word] "r" (word));
	__uaccess_end();
	return value;
}

/*
 * Store in *@key, which holds @low, the key @low of a new outermost frame
 * (caller field 0) with the caller field of user context @value: @cache
 * holds two (value, caller field) pairs, the first tried first; neither:
 * the value goes to *@pending and the field is @mark.  Four instructions
 * for the first pair, seven for the second: with its own jumps, not the
 * moves and jumps the compiler lays out around a choice of three.  *@key
 * is an input too, so that the caller's store of @low, which every
 * path needs, stays before the choice and this ends where the paths
 * meet.
 */
static __always_inline void ktau_arch_ctx_key(u32 *key, u32 low, u32 value,
					      const u32 *cache, u32 *pending,
					      u32 mark)
{
	asm("cmpl %[v0], %[value]\n\t"
	    "je 1f\n\t"
	    "cmpl %[v1], %[value]\n\t"
	    "je 2f\n\t"
	    "movl %[value], %[pending]\n\t"
	    "orl %[mark], %[low]\n\t"
	    "jmp 3f\n"
	    "2:	orl %[p1], %[low]\n\t"
	    "jmp 3f\n"
	    "1:	orl %[p0], %[low]\n"
	    "3:	movl %[low], %[key]"
	    : [key] "+m" (*key), [pending] "+m" (*pending), [low] "+r" (low)
	    : [value] "r" (value), [mark] "i" (mark),
	      [v0] "m" (cache[0]), [p0] "m" (cache[1]),
	      [v1] "m" (cache[2]), [p1] "m" (cache[3])
	    : "cc");
}

/*
 * Zero a u64 or a u32 with one store of an immediate: at -Os the
 * compiler clears a register and stores it, an instruction more on the
 * path of every system call.
 */
static __always_inline void ktau_arch_zero64(u64 *p)
{
	asm("movq $0, %0" : "=m" (*p));
}

static __always_inline void ktau_arch_zero32(u32 *p)
{
	asm("movl $0, %0" : "=m" (*p));
}

/*
 * Add a call to record @e: one add to memory for each counter, which
 * readers on other CPUs never see torn, and no lock prefix, as
 * local64_add() does (WRITE_ONCE(c, c + v) would take a load, an add
 * and a store).  One asm statement, whose stores x86 makes visible in
 * program order (smp_wmb() is only a compiler barrier here): the
 * inclusive time before the exclusive time, so that a reader that loads
 * them in the other order never sees exclusive > inclusive; the three
 * counters addressed from one base register.
 */
static __always_inline void ktau_arch_entry_add(struct ktau_entry *e,
						u64 incl, u64 excl)
{
	/* Pairs with smp_rmb() in the readers (kernel/ktau/view.c). */
	asm volatile("addq %[incl], %c[oi](%[e])\n\t"
		     "addq %[excl], %c[ox](%[e])\n\t"
		     "addq %[one], %c[oc](%[e])"
		     : "+m" (*e)
		     : [e] "r" (e), [incl] "er" (incl), [excl] "er" (excl),
		       [one] "i" (KTAU_CALLS_ONE),
		       [oc] "i" (offsetof(struct ktau_entry, calls_key)),
		       [oi] "i" (offsetof(struct ktau_entry, incl)),
		       [ox] "i" (offsetof(struct ktau_entry, excl)));
}

/* Add @v to the counter at @p, as ktau_arch_entry_add() does. */
static __always_inline void ktau_arch_counter_add(u64 *p, u64 v)
{
	asm volatile("addq %[v], %[c]" : [c] "+m" (*p) : [v] "er" (v));
}

/* One more call in a record's count and key word (KTAU_CALLS_ONE). */
static __always_inline void ktau_arch_calls_inc(u64 *calls_key)
{
	asm volatile("addq %[one], %[c]"
		     : [c] "+m" (*calls_key) : [one] "i" (KTAU_CALLS_ONE));
}

/* x86's compat ABI is ia32; x32 calls take the 64-bit path. */
static __always_inline bool ktau_arch_in_compat_syscall(void)
{
	return in_ia32_syscall();
}

#ifdef CONFIG_X86_X32_ABI
/* An x32 call's number has this bit (asm/ktau_syscall_names.h maps it). */
#define KTAU_ARCH_X32_BIT	__X32_SYSCALL_BIT
#endif

struct pt_regs;

/*
 * The 64-bit system call path without the KTAU timers, which
 * entry_SYSCALL_64 calls while the system call group is off, and the
 * switch between it and do_syscall_64() (arch/x86/entry/common.c).
 */
bool do_syscall_64_untimed(struct pt_regs *regs, int nr);
void ktau_arch_time_syscalls(bool on);

#endif /* _ASM_X86_KTAU_H */
