/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the KTAU timers need from x86: their clock, current as the
 * system call entry wants it, and a read of a registered user word that
 * cannot fault.
 */
#ifndef _ASM_X86_KTAU_H
#define _ASM_X86_KTAU_H

#include <linux/compiler.h>
#include <linux/types.h>
#include <asm/current.h>
#include <asm/msr.h>
#include <asm/uaccess.h>

/*
 * The clock of every timer: the TSC, whose rate the profile header gives
 * (tsc_khz).  rdtsc() is always inlined, get_cycles() not at -Os.
 */
static __always_inline u64 ktau_arch_now(void)
{
	return rdtsc();
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
 * A registered user context word, read inline into the upper half of a
 * record key whose upper half is 0; a word that is not mapped leaves it
 * 0 through the exception table.  The caller has page faults disabled
 * (interrupts may be off).  The address passed access_ok() when it was
 * registered and is the kernel's copy, not an index a user can steer
 * speculatively.  asm goto without outputs: GCC versions whose asm goto
 * outputs the kernel does not trust still get one load and one store.
 */
static __always_inline void ktau_arch_read_ctx(u64 *key, const u32 __user *word)
{
	__uaccess_begin();
	asm goto("1:	movl (%[word]), %%eax\n"
		 "	movl %%eax, %[ctx]\n"
		 _ASM_EXTABLE_UA(1b, %l[fault])
		 : : [word] "r" (word), [ctx] "m" (((u32 *)key)[1])
		 : "eax", "memory" : fault);
	__uaccess_end();
	return;
fault:
	__uaccess_end();
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

struct pt_regs;

/*
 * The 64-bit system call path without the KTAU timers, which
 * entry_SYSCALL_64 calls while the system call group is off, and the
 * switch between it and do_syscall_64() (arch/x86/entry/common.c).
 */
bool do_syscall_64_untimed(struct pt_regs *regs, int nr);
void ktau_arch_time_syscalls(bool on);

#endif /* _ASM_X86_KTAU_H */
