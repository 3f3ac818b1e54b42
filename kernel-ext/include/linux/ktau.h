/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTAU: per-task kernel profiles (calls, inclusive and exclusive TSC
 * cycles per instrumented kernel routine), exported through /proc.
 *
 * Instrumentation points call the inline hooks below.  Each hook sits
 * behind the static key of its group, so a group that is switched off
 * costs one no-op, and with CONFIG_KTAU=n the hooks compile away.
 */
#ifndef _LINUX_KTAU_H
#define _LINUX_KTAU_H

#include <linux/types.h>
#include <linux/errno.h>
#include <linux/jump_label.h>

struct task_struct;
struct signal_struct;
struct seq_file;
struct pid_namespace;
struct pid;
struct pt_regs;

/* The groups a function id belongs to; each can be switched at run time. */
enum ktau_group {
	KTAU_GROUP_SYSCALL,
	KTAU_GROUP_SOFTIRQ,
	KTAU_GROUP_IRQ,
	KTAU_GROUP_SCHED,
	KTAU_GROUP_EXCEPTION,
	KTAU_GROUP_KERNEL,
	KTAU_GROUP_EVENT,
	KTAU_NR_GROUPS,
};

/* Longest name a run-time registered function id may have. */
#define KTAU_NAME_MAX		47

/* What a profiling handler is called for (ktau_register_handler()). */
enum ktau_handler_type {
	KTAU_HANDLER_START,	/* @data: u64 *, the TSC at the start */
	KTAU_HANDLER_STOP,	/* @data: u64 *, the TSC at the stop */
	KTAU_HANDLER_EVENT,	/* @data: u64 *, the event's value */
};

/*
 * The seed's BG/L handler: called at every instrumentation point of the
 * groups it was registered for, in the context of the task the point is
 * charged to, with interrupts disabled.  It must not sleep.
 */
typedef void (*ktau_handler_fn)(unsigned int fid, unsigned int type,
				const char *name, void *data);

#ifdef CONFIG_KTAU

#include <linux/ktau_types.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <asm/barrier.h>
#include <asm/msr.h>
#include <asm/unistd.h>

extern struct static_key_false ktau_group_keys[KTAU_NR_GROUPS];
extern struct static_key_false ktau_sysentry_key;
extern struct static_key_false ktau_sysfast_key;

/* The generations a task is current with: one compare checks both. */
extern union ktau_gens ktau_gens;

#define ktau_group_on(group) \
	static_branch_unlikely(&ktau_group_keys[(group)])

void ktau_task_init(struct task_struct *tsk, u64 clone_flags);
void ktau_task_free(struct task_struct *tsk);
void ktau_task_exit(struct task_struct *tsk);
void ktau_thread_release(struct task_struct *tsk);
void ktau_child_reaped(struct signal_struct *psig, struct task_struct *p);
void ktau_signal_free(struct signal_struct *sig);

long __ktau_syscall_enter(const struct pt_regs *regs, long nr);
long __ktau_syscall_renumber(long nr);
void __ktau_syscall_exit(struct pt_regs *regs, u64 now);
void __ktau_ia32_syscall_enter(long nr);
void __ktau_softirq_enter(unsigned int vec);
void __ktau_softirq_exit(unsigned int vec);
void __ktau_irq_enter(void);
void __ktau_irq_exit(void);
void __ktau_fault_enter(bool user_mode);
void __ktau_fault_exit(void);
void __ktau_schedule_enter(bool voluntary);
void __ktau_schedule_exit(void);
void __ktau_enter_from_user(void);

/*
 * Run-time registered function ids, for any kernel code and modules.
 * ktau_get_fid() returns the id of @name in @group, registering it if it
 * is new: a non-negative id, or -EINVAL (bad name or group), -EEXIST
 * (@name is registered in another group), -ENOSPC (all
 * CONFIG_KTAU_MAX_FIDS ids are taken), -ENOMEM.  Any context.
 */
int ktau_get_fid(const char *name, unsigned int group);
void ktau_start_fid(int fid);
void ktau_stop_fid(int fid);
void __ktau_event(int fid, u64 value);
int __ktau_site_fid(int *site, const char *name, unsigned int group);

int ktau_register_handler(unsigned int group_mask, ktau_handler_fn handler);
int ktau_unregister_handler(unsigned int group_mask);

int ktau_set_context(unsigned long addr, unsigned long arg3,
		     unsigned long arg4, unsigned long arg5);
void ktau_execve(struct task_struct *tsk);

extern struct static_key_false ktau_context_key;

int proc_tid_ktau(struct seq_file *m, struct pid_namespace *ns,
		  struct pid *pid, struct task_struct *task);
int proc_tgid_ktau(struct seq_file *m, struct pid_namespace *ns,
		   struct pid *pid, struct task_struct *task);

/* Only its task writes @kt->gens: no READ_ONCE() on that side. */
static __always_inline bool ktau_task_current(const struct ktau_task *kt)
{
	return kt->gens.both == READ_ONCE(ktau_gens.both);
}

/*
 * current's profile, for the system call entry hook: a plain current may
 * be loaded above the hook's static branch and kept in a callee-saved
 * register across the call (it is needed after the hook), which would
 * cost the disabled hook a push and a pop.  this_cpu_read() is loaded
 * where it is used.
 */
static __always_inline struct ktau_task *ktau_syscall_task(void)
{
	return &this_cpu_read(pcpu_hot.current_task)->ktau;
}

/*
 * The clock of every timer: the TSC, whose rate the profile header gives
 * (tsc_khz).  rdtsc() is always inlined, get_cycles() not at -Os.
 */
static __always_inline u64 ktau_now(void)
{
	return rdtsc();
}

/*
 * Add to the counters of a profile entry.  Only the table's writer
 * updates them (its task with interrupts off, or a fold under a lock)
 * while readers on other CPUs load them with READ_ONCE(): an add to
 * memory each, which they never see torn, and no lock prefix, as
 * local64_add() does (WRITE_ONCE(c, c + v) would take a load, an add and
 * a store).  The inclusive time is stored before the exclusive time so
 * that a reader that loads them in the other order never sees exclusive
 * > inclusive: one asm statement, whose stores x86 makes visible in
 * program order (smp_wmb() is only a compiler barrier there); the three
 * counters are then addressed from one base register.
 */
static __always_inline void ktau_entry_add(struct ktau_entry *e, u64 calls,
					   u64 incl, u64 excl)
{
	/* Pairs with smp_rmb() in ktau_block_add_table(). */
	asm volatile("addq %[calls], %c[oc](%[e])\n\t"
		     "addq %[incl], %c[oi](%[e])\n\t"
		     "addq %[excl], %c[ox](%[e])"
		     : "+m" (*e)
		     : [e] "r" (e), [calls] "er" (calls), [incl] "er" (incl),
		       [excl] "er" (excl),
		       [oc] "i" (offsetof(struct ktau_entry, calls)),
		       [oi] "i" (offsetof(struct ktau_entry, incl)),
		       [ox] "i" (offsetof(struct ktau_entry, excl)));
}

/* Children timed on another CPU whose TSC lags may exceed @incl. */
static __always_inline u64 ktau_excl(u64 incl, u64 child)
{
	u64 excl = incl - child;

	return unlikely((s64)excl < 0) ? 0 : excl;
}

/* The fid + 1 of read() or write(), whatever the caller slot. */
static __always_inline bool ktau_key_moves_bytes(u64 key)
{
	BUILD_BUG_ON(__NR_read != 0 || __NR_write != 1);
	return (u16)key <= __NR_write + 1;
}

/*
 * A 64-bit system call's entry, from syscall_enter_from_user_mode() with
 * interrupts still off, before the entry work (seccomp, ptrace), with
 * the number the task asked for.  It starts the call's timer and reads
 * the user context word (ktau_enter_from_user()), behind one static key.
 * Returns @nr: the caller's copy of the number then need not be saved
 * across a call that the key skips.
 *
 * The common case, inline: the syscall group records, no user context
 * word and no handler is registered (ktau_sysfast_key), and the number
 * is a 64-bit call's.  The stack starts empty, which also drops frames
 * whose stop was missed while a group was switched off; the call's frame
 * is the bottom one and its function id is the number.
 */
static __always_inline long ktau_syscall_enter(const struct pt_regs *regs,
					       long nr)
{
	struct ktau_task *kt;
	struct ktau_frame *f;

	if (!static_branch_unlikely(&ktau_sysentry_key))
		return nr;
	kt = ktau_syscall_task();
	f = &kt->stack[0];
	if (unlikely(!static_branch_likely(&ktau_sysfast_key) ||
		     (unsigned long)nr >= NR_syscalls))
		return __ktau_syscall_enter(regs, nr);
	f->start = ktau_now();
	f->child = 0;
	f->key = kt->ctx_key + KTAU_KEY(0, KTAU_NO_PARENT, nr);
	kt->gens.stack = READ_ONCE(ktau_gens.stack);
	kt->depth = 1;
	kt->overflow = 0;
	return nr;
}

/*
 * After entry work that may have changed the number (-1: skipped).
 * Returns @nr, as ktau_syscall_enter() does.
 */
static __always_inline long ktau_syscall_renumber(long nr)
{
	if (ktau_group_on(KTAU_GROUP_SYSCALL))
		return __ktau_syscall_renumber(nr);
	return nr;
}

/* The ia32 paths, once the entry work has settled the number. */
static __always_inline void ktau_ia32_syscall_enter(long nr)
{
	if (ktau_group_on(KTAU_GROUP_SYSCALL))
		__ktau_ia32_syscall_enter(nr);
}

/*
 * The common case of a system call's exit, inline: the fast entry's
 * conditions still hold, the call's frame is the only one open, its
 * entry is in the slot its hint names, and no read_bytes or write_bytes
 * event is due.  This is ktau_pop() of the bottom frame.
 */
static __always_inline bool ktau_syscall_exit_fast(struct ktau_task *kt,
						   u64 now)
{
	struct ktau_table *t = rcu_dereference_raw(kt->table);
	struct ktau_frame *f = &kt->stack[0];
	u64 key = f->key;
	struct ktau_entry *e;
	u64 incl;

	if (unlikely(!static_branch_likely(&ktau_sysfast_key) ||
		     kt->depth != 1 || !ktau_task_current(kt) || !t))
		return false;
	if (ktau_group_on(KTAU_GROUP_EVENT) && ktau_key_moves_bytes(key))
		return false;
	e = &t->slot[(unsigned long)kt->slot_hint[key % KTAU_SLOT_HINTS]];
	if (unlikely(e->key != key))
		return false;
	kt->depth = 0;
	kt->overflow = 0;
	incl = now - f->start;
	ktau_entry_add(e, 1, incl, ktau_excl(incl, f->child));
	return true;
}

/*
 * Every system call's exit, from __syscall_exit_to_user_mode_work()
 * with interrupts off, after the exit work and before the return to
 * user mode (signals, rescheduling) is prepared.  @regs: the call's
 * registers, whose return value gives the bytes of reads and writes.
 */
static __always_inline void ktau_syscall_exit(struct pt_regs *regs)
{
	u64 now;

	if (!ktau_group_on(KTAU_GROUP_SYSCALL))
		return;
	now = ktau_now();
	if (!ktau_syscall_exit_fast(&current->ktau, now))
		__ktau_syscall_exit(regs, now);
}

/* Around each softirq vector's handler, in every path that runs them. */
static __always_inline void ktau_softirq_enter(unsigned int vec)
{
	if (ktau_group_on(KTAU_GROUP_SOFTIRQ))
		__ktau_softirq_enter(vec);
}

static __always_inline void ktau_softirq_exit(unsigned int vec)
{
	if (ktau_group_on(KTAU_GROUP_SOFTIRQ))
		__ktau_softirq_exit(vec);
}

/* Hard interrupts, from irq_enter_rcu() to before the softirqs run. */
static __always_inline void ktau_irq_enter(void)
{
	if (ktau_group_on(KTAU_GROUP_IRQ))
		__ktau_irq_enter();
}

static __always_inline void ktau_irq_exit(void)
{
	if (ktau_group_on(KTAU_GROUP_IRQ))
		__ktau_irq_exit();
}

static __always_inline void ktau_fault_enter(bool user_mode)
{
	if (ktau_group_on(KTAU_GROUP_EXCEPTION))
		__ktau_fault_enter(user_mode);
}

static __always_inline void ktau_fault_exit(void)
{
	if (ktau_group_on(KTAU_GROUP_EXCEPTION))
		__ktau_fault_exit();
}

/* @voluntary: the task blocks (it is not runnable), else it is preempted. */
static __always_inline void ktau_schedule_enter(bool voluntary)
{
	if (ktau_group_on(KTAU_GROUP_SCHED))
		__ktau_schedule_enter(voluntary);
}

static __always_inline void ktau_schedule_exit(void)
{
	if (ktau_group_on(KTAU_GROUP_SCHED))
		__ktau_schedule_exit();
}

/*
 * On every entry from user mode but a 64-bit system call's (whose hook
 * does it), with interrupts off: read the user context word the task
 * registered, which keys what it records until it returns.  Costs a
 * no-op until some task registers one.
 */
static __always_inline void ktau_enter_from_user(void)
{
	if (static_branch_unlikely(&ktau_context_key))
		__ktau_enter_from_user();
}

/*
 * The id a start/stop/event site uses, registered on the site's first
 * use and kept in @site: 0 not yet, id + 1, or a negative errno when
 * registration failed (not retried; each use then counts as dropped).
 */
static __always_inline int ktau_site_fid(int *site, const char *name,
					 unsigned int group)
{
	int v = READ_ONCE(*site);

	if (likely(v > 0))
		return v - 1;
	if (v < 0)
		return v;
	return __ktau_site_fid(site, name, group);
}

/* Record @value for the atomic event @fid (count, min, max, sum, sum^2). */
static __always_inline void ktau_event(int fid, u64 value)
{
	if (ktau_group_on(KTAU_GROUP_EVENT))
		__ktau_event(fid, value);
}

/*
 * Time a kernel routine by name, anywhere in the kernel or a module:
 *	KTAU_START("my_flush");  ...  KTAU_STOP("my_flush");
 * The name is registered (group "kernel") on first use.  Start and stop
 * nest like any instrumented routine; a stop closes the innermost open
 * start of the same name.
 */
#define KTAU_START(name)						\
	do {								\
		static int __ktau_site;					\
		if (ktau_group_on(KTAU_GROUP_KERNEL))			\
			ktau_start_fid(ktau_site_fid(&__ktau_site, (name), \
						     KTAU_GROUP_KERNEL)); \
	} while (0)

#define KTAU_STOP(name)							\
	do {								\
		static int __ktau_site;					\
		if (ktau_group_on(KTAU_GROUP_KERNEL))			\
			ktau_stop_fid(ktau_site_fid(&__ktau_site, (name), \
						    KTAU_GROUP_KERNEL)); \
	} while (0)

/* Record @value for the atomic event @name (group "event"). */
#define KTAU_EVENT(name, value)						\
	do {								\
		static int __ktau_site;					\
		if (ktau_group_on(KTAU_GROUP_EVENT))			\
			__ktau_event(ktau_site_fid(&__ktau_site, (name),	\
						   KTAU_GROUP_EVENT),	\
				     (value));				\
	} while (0)

#else /* !CONFIG_KTAU */

static inline void ktau_task_init(struct task_struct *tsk,
				  u64 clone_flags) { }
static inline void ktau_task_free(struct task_struct *tsk) { }
static inline void ktau_task_exit(struct task_struct *tsk) { }
static inline void ktau_thread_release(struct task_struct *tsk) { }
static inline void ktau_child_reaped(struct signal_struct *psig,
				     struct task_struct *p) { }
static inline void ktau_signal_free(struct signal_struct *sig) { }
static inline long ktau_syscall_enter(const struct pt_regs *regs, long nr)
{
	return nr;
}

static inline long ktau_syscall_renumber(long nr)
{
	return nr;
}

static inline void ktau_ia32_syscall_enter(long nr) { }
static inline void ktau_syscall_exit(struct pt_regs *regs) { }
static inline void ktau_softirq_enter(unsigned int vec) { }
static inline void ktau_softirq_exit(unsigned int vec) { }
static inline void ktau_irq_enter(void) { }
static inline void ktau_irq_exit(void) { }
static inline void ktau_fault_enter(bool user_mode) { }
static inline void ktau_fault_exit(void) { }
static inline void ktau_schedule_enter(bool voluntary) { }
static inline void ktau_schedule_exit(void) { }
static inline void ktau_enter_from_user(void) { }
static inline void ktau_execve(struct task_struct *tsk) { }
static inline int ktau_set_context(unsigned long addr, unsigned long arg3,
				   unsigned long arg4, unsigned long arg5)
{
	return -EINVAL;
}

static inline int ktau_get_fid(const char *name, unsigned int group)
{
	return -EOPNOTSUPP;
}

static inline void ktau_start_fid(int fid) { }
static inline void ktau_stop_fid(int fid) { }
static inline void ktau_event(int fid, u64 value) { }
static inline int ktau_register_handler(unsigned int group_mask,
					ktau_handler_fn handler)
{
	return -EOPNOTSUPP;
}

static inline int ktau_unregister_handler(unsigned int group_mask)
{
	return -EOPNOTSUPP;
}

/* Arguments are still type-checked, as with ktau compiled in. */
static inline void ktau_named_point(const char *name, u64 value) { }

#define KTAU_START(name)	ktau_named_point((name), 0)
#define KTAU_STOP(name)		ktau_named_point((name), 0)
#define KTAU_EVENT(name, value)	ktau_named_point((name), (value))

#endif /* CONFIG_KTAU */

#endif /* _LINUX_KTAU_H */
