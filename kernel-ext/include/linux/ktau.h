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
#include <linux/jump_label.h>

struct task_struct;
struct signal_struct;
struct seq_file;
struct pid_namespace;
struct pid;

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

#ifdef CONFIG_KTAU

extern struct static_key_false ktau_group_keys[KTAU_NR_GROUPS];

#define ktau_group_on(group) \
	static_branch_unlikely(&ktau_group_keys[(group)])

void ktau_task_init(struct task_struct *tsk);
void ktau_task_free(struct task_struct *tsk);
void ktau_task_exit(struct task_struct *tsk);
void ktau_thread_release(struct task_struct *tsk);
void ktau_child_reaped(struct signal_struct *psig, struct task_struct *p);
void ktau_signal_free(struct signal_struct *sig);

void __ktau_syscall_enter(long nr);
void __ktau_syscall_exit(void);
void __ktau_ia32_syscall_enter(long nr);
void __ktau_softirq_enter(unsigned int vec);
void __ktau_softirq_exit(unsigned int vec);
void __ktau_irq_enter(void);
void __ktau_irq_exit(void);
void __ktau_fault_enter(bool user_mode);
void __ktau_fault_exit(void);
void __ktau_schedule_enter(bool voluntary);
void __ktau_schedule_exit(void);

int proc_tid_ktau(struct seq_file *m, struct pid_namespace *ns,
		  struct pid *pid, struct task_struct *task);
int proc_tgid_ktau(struct seq_file *m, struct pid_namespace *ns,
		   struct pid *pid, struct task_struct *task);

/* Called from the x86-64 syscall dispatcher with interrupts enabled. */
static __always_inline void ktau_syscall_enter(long nr)
{
	if (ktau_group_on(KTAU_GROUP_SYSCALL))
		__ktau_syscall_enter(nr);
}

static __always_inline void ktau_ia32_syscall_enter(long nr)
{
	if (ktau_group_on(KTAU_GROUP_SYSCALL))
		__ktau_ia32_syscall_enter(nr);
}

static __always_inline void ktau_syscall_exit(void)
{
	if (ktau_group_on(KTAU_GROUP_SYSCALL))
		__ktau_syscall_exit();
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

#else /* !CONFIG_KTAU */

static inline void ktau_task_init(struct task_struct *tsk) { }
static inline void ktau_task_free(struct task_struct *tsk) { }
static inline void ktau_task_exit(struct task_struct *tsk) { }
static inline void ktau_thread_release(struct task_struct *tsk) { }
static inline void ktau_child_reaped(struct signal_struct *psig,
				     struct task_struct *p) { }
static inline void ktau_signal_free(struct signal_struct *sig) { }
static inline void ktau_syscall_enter(long nr) { }
static inline void ktau_ia32_syscall_enter(long nr) { }
static inline void ktau_syscall_exit(void) { }
static inline void ktau_softirq_enter(unsigned int vec) { }
static inline void ktau_softirq_exit(unsigned int vec) { }
static inline void ktau_irq_enter(void) { }
static inline void ktau_irq_exit(void) { }
static inline void ktau_fault_enter(bool user_mode) { }
static inline void ktau_fault_exit(void) { }
static inline void ktau_schedule_enter(bool voluntary) { }
static inline void ktau_schedule_exit(void) { }

#endif /* CONFIG_KTAU */

#endif /* _LINUX_KTAU_H */
