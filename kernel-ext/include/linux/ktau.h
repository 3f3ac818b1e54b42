/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTAU: per-task kernel profiles (calls, inclusive and exclusive TSC
 * cycles per instrumented kernel callpath), exported through /proc.
 *
 * Instrumentation points call the inline hooks below.  Each hook sits
 * behind the static key of its group, so a group that is switched off
 * costs one no-op, and with CONFIG_KTAU=n the hooks compile away.
 *
 * This header is the same on every architecture.  An architecture that
 * selects HAVE_ARCH_KTAU provides, in asm/ktau.h, what the inline paths
 * need to be cheap and exact there:
 *
 *  - ktau_arch_now(), the cycle counter every timer reads,
 *    ktau_arch_clock_khz(), its rate as the profiles report it, and
 *    ktau_arch_clock_unusable(), why it cannot time anything, or NULL
 *    (then nothing is recorded: kernel/ktau/control.c);
 *  - ktau_arch_current(), current as the system call entry wants it;
 *  - ktau_arch_ctx_value(), a read of a registered user word that reads
 *    an unmapped word as 0 (page faults are disabled, interrupts may be
 *    off), and ktau_arch_ctx_key(), the choice of a new outermost
 *    frame's caller field from the task's two cached context values;
 *  - ktau_arch_zero64() and ktau_arch_zero32(), a store of zero;
 *  - the record update: ktau_arch_entry_add() (inclusive time, exclusive
 *    time, one call), ktau_arch_counter_add() and ktau_arch_calls_inc(),
 *    each an add that readers on other CPUs never see torn, and
 *    ktau_arch_entry_add() making the inclusive time visible before the
 *    exclusive time to a reader that loads them in the other order with
 *    smp_rmb() between (its owner updates a record with interrupts off,
 *    so no atomic operation is needed);
 *  - ktau_arch_in_compat_syscall(), true in a system call of the
 *    architecture's compat ABI, whose entry calls
 *    ktau_compat_syscall_enter() once the number is settled;
 *  - ktau_arch_time_syscalls(), called as the system call group is
 *    switched on or off, for an entry that runs an untimed copy of its
 *    system call path while it is off (x86-64); a no-op elsewhere.
 *
 * The system call number map comes from the architecture's syscall
 * tables, generated with its other syscall headers: asm/ktau_syscall_nr.h
 * (KTAU_NR_SYSCALL64, KTAU_NR_COMPAT, KTAU_NR_COMPAT_ONLY) and
 * asm/ktau_syscall_names.h (kernel/ktau/gen-syscall-names.sh).  A 64-bit
 * call's function id is its number; read() and write() must be
 * consecutive numbers (their bytes events are found by the number).
 *
 * Its entry code calls the hooks as each says; ktau_fault_enter() and
 * ktau_fault_exit() go around its page fault handler with interrupts off
 * at both (on x86, irqentry_enter() and the end of handle_page_fault()
 * leave them off), which the exit relies on, as it does not save them.
 */
#ifndef _LINUX_KTAU_H
#define _LINUX_KTAU_H

#include <linux/types.h>
#include <linux/errno.h>
#include <linux/jump_label.h>
#include <linux/jump_label_ratelimit.h>

struct task_struct;
struct signal_struct;
struct linux_binprm;
struct file;
struct inode;
struct pid_namespace;
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
 * charged to, with interrupts disabled.  It must not sleep.  The
 * scheduler group's points come from the context switch, with the
 * runqueue locked: there it must not wake a task either.  A schedule
 * frame's start is delivered when its task is switched in again, just
 * before its stop, each with its own TSC.
 */
typedef void (*ktau_handler_fn)(unsigned int fid, unsigned int type,
				const char *name, void *data);

#ifdef CONFIG_KTAU

#include <linux/ktau_types.h>
#include <linux/limits.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/static_call.h>
#include <asm/ktau.h>
#include <asm/unistd.h>

extern struct static_key_false ktau_group_keys[KTAU_NR_GROUPS];
extern struct static_key_false ktau_sysfast_key;
extern struct static_key_false_deferred ktau_context_key;
extern struct static_key_false_deferred ktau_counters_key;
extern struct static_key_false ktau_trace_key;

/*
 * The control generation: bumped by every control change.  The system
 * call exit compares a task's (depth, gen) word with ktau_gen_state,
 * which is (ktau_gen << 32 | 1): one open frame, nothing changed.
 */
extern u64 ktau_gen_state;

#define ktau_group_on(group) \
	static_branch_unlikely(&ktau_group_keys[(group)])

void ktau_task_init(struct task_struct *tsk, u64 clone_flags);
void ktau_task_fork_failed(struct task_struct *tsk);
void ktau_task_free(struct task_struct *tsk);
void ktau_task_exit(struct task_struct *tsk);
void ktau_process_autoreap(struct task_struct *p);
void ktau_process_release(struct task_struct *p);
void ktau_signal_init(struct signal_struct *sig);
void ktau_signal_free(struct signal_struct *sig);
void ktau_execve(struct task_struct *tsk);
void ktau_execve_privilege(struct task_struct *tsk,
			   const struct linux_binprm *bprm);

long __ktau_syscall_enter(const struct pt_regs *regs, long nr);
long __ktau_syscall_renumber(long nr);
void __ktau_syscall_exit(struct task_struct *tsk, struct pt_regs *regs,
			 u64 now);
void __ktau_syscall_bytes(u32 key, long ret);
void __ktau_compat_syscall_enter(long nr);
void __ktau_softirq_enter(unsigned int vec);
void __ktau_softirq_exit(unsigned int vec);
void __ktau_irq_enter(void);
void __ktau_irq_exit(void);
void __ktau_fault_enter_user(void);
void __ktau_fault_enter_kernel(void);
void __ktau_fault_exit(void);
void __ktau_switch_out(void);
void __ktau_switch_in(void);

DECLARE_STATIC_CALL(ktau_switch_out_call, __ktau_switch_out);
DECLARE_STATIC_CALL(ktau_switch_in_call, __ktau_switch_in);

/**
 * ktau_get_fid() - the function id of a kernel routine, registered if new
 * @name: a name of at most KTAU_NAME_MAX printable bytes, no blanks
 * @group: its group (enum ktau_group)
 *
 * Idempotent and safe to call concurrently from any context but NMI:
 * every caller gets the same id for the same name.
 *
 * Return: a non-negative id, -EINVAL (bad name or group), -EEXIST (@name
 * is registered in another group), -ENOSPC (all CONFIG_KTAU_MAX_FIDS ids
 * are taken) or -ENOMEM.
 */
int ktau_get_fid(const char *name, unsigned int group);
void ktau_start_fid(int fid);
void ktau_stop_fid(int fid);
void __ktau_event(int fid, u64 value);
int __ktau_site_fid(int *site, const char *name, unsigned int group);

int ktau_register_handler(unsigned int group_mask, ktau_handler_fn handler);
int ktau_unregister_handler(unsigned int group_mask);

int ktau_context_prctl(int option, unsigned long arg2, unsigned long arg3,
		       unsigned long arg4, unsigned long arg5);
int ktau_counters_prctl(int option, unsigned long arg2, unsigned long arg3,
			unsigned long arg4, unsigned long arg5);
void __ktau_syscall_exit_counted(struct pt_regs *regs);
void __ktau_counters_resume(void);

int ktau_proc_open(struct file *file, struct pid_namespace *ns,
		   struct task_struct *task, bool whole_process);
int ktau_proc_release(struct inode *inode, struct file *file);

/*
 * The value of the user context word @tsk registered, in *@value; a word
 * that is not mapped reads as 0.  Called with @tsk current and @word its
 * word, on system call, interrupt, fault and scheduler paths, never from
 * a machine check, debug exception or NMI.
 */
static __always_inline u32 ktau_read_ctx(struct task_struct *tsk,
					 const u32 __user *word)
{
	u32 value;

	tsk->pagefault_disabled++;
	barrier();
	value = ktau_arch_ctx_value(word);
	barrier();
	tsk->pagefault_disabled--;
	return value;
}

/*
 * Set the key of @tsk's new outermost frame to @low (caller field 0)
 * with its user context's record as caller, through the two @tsk used
 * last, else KTAU_REC_CTX_PENDING, for the first slow path that needs
 * the record to find or add it (the value is kept).  Interrupts are off.
 */
static __always_inline void ktau_root_ctx(struct task_struct *tsk,
					  struct ktau_task *kt, u32 low)
{
	BUILD_BUG_ON(KTAU_CTX_CACHED != 2 ||
		     sizeof(kt->ctx_cache) != 4 * sizeof(u32));
	ktau_arch_ctx_key(&kt->stack[0].key, low,
			  ktau_read_ctx(tsk, kt->ctx_word),
			  (const u32 *)kt->ctx_cache, &kt->ctx_pending,
			  KTAU_REC_CTX_PENDING << 16);
}

/*
 * Add one call to a record of the current task's table: its inclusive
 * time before its exclusive time, and a call.  Only the table's writer
 * updates it (its task with interrupts off) while readers on other CPUs
 * load it with READ_ONCE() and smp_rmb() (kernel/ktau/view.c).  The call
 * is added to the word of the count and the key: a count that wraps sets
 * the key's KTAU_REC_CARRIED bit, and every update of a record first
 * compares its key, so the next one takes a slow path, which moves the
 * carry.
 */
static __always_inline void ktau_entry_add(struct ktau_entry *e, u64 incl,
					   u64 excl)
{
	ktau_arch_entry_add(e, incl, excl);
}

/*
 * Cycles from @start to @now: a task that migrated to a CPU whose TSC
 * lags may read a @now before its @start; that counts as 0, never as a
 * wrapped 2^64.
 */
static __always_inline u64 ktau_elapsed(u64 start, u64 now)
{
	u64 d = now - start;

	return unlikely((s64)d < 0) ? 0 : d;
}

/* Children timed on another CPU whose TSC lags may exceed @incl. */
static __always_inline u64 ktau_excl(u64 incl, u64 child)
{
	return ktau_elapsed(child, incl);
}

/*
 * The hint slot of a record key, as the byte offset of its hint: its
 * caller's record id (a user context's, for an outermost record) is
 * mixed into its function id, so that a program alternating between two
 * user routines around the same system call keeps both records hinted,
 * and so does a routine called from two callpaths.  The function id + 1
 * is in bits 1 to 5 as the key has it; the caller comes in two bits up
 * (key >> 14): record ids are small numbers, and read() and write()
 * under the contexts of records 1 and 2 would take two slots, not four,
 * if they came in at bit 0 (1 ^ 1 == 2 ^ 2).
 */
static __always_inline unsigned int ktau_hint_off(u32 key)
{
	BUILD_BUG_ON(KTAU_SLOT_HINTS != 32 || sizeof(u16) != 2);
	return (key ^ (key >> 14)) & (2 * KTAU_SLOT_HINTS - 2);
}

/* The hint of byte offset @off in @t's hints. */
#define ktau_hint_at(t, off)	(*(u16 *)((u8 *)(t)->hint + (off)))

static __always_inline unsigned int ktau_hint_slot(u32 key)
{
	return ktau_hint_off(key) / 2;
}

/* The function id field of read() or write(), whatever the context. */
static __always_inline bool ktau_key_moves_bytes(u32 key)
{
	BUILD_BUG_ON(__NR_write != __NR_read + 1);
	/* one compare where they are the first two (x86-64) */
	if (__NR_read == 0)
		return (u16)key <= KTAU_REC_LOW(__NR_write);
	return (u16)((u16)key - KTAU_REC_LOW(__NR_read)) <=
	       KTAU_REC_LOW(__NR_write) - KTAU_REC_LOW(__NR_read);
}

/*
 * Open the bottom frame of a kernel entry from user mode, where nothing
 * of the task can be open: function id @fid, its record key carrying the
 * value of the task's user context word, when it has one, as the record
 * of that value (looked for while ktau_context_key is on: some thread
 * has a word, or had one less than a second ago).  Its stop finds the
 * record through the key's hint (ktau_close_root_fast()).  Interrupts
 * are off.
 */
static __always_inline void ktau_open_root(struct task_struct *tsk,
					   struct ktau_task *kt,
					   unsigned int fid)
{
	u32 low = KTAU_REC_LOW(fid);

	/* one lea: not split between the two stores */
	OPTIMIZER_HIDE_VAR(low);
	kt->stack[0].start = ktau_arch_now();
	ktau_arch_zero64(&kt->stack[0].child);
	kt->stack[0].key = low;
	if (static_branch_unlikely(&ktau_context_key.key) && kt->ctx_word)
		ktau_root_ctx(tsk, kt, low);
	/*
	 * The frame before the depth that covers it: pairs with the smp_rmb()
	 * after ktau_read_stack()'s load of the state (kernel/ktau/view.c),
	 * which reads another CPU's frames up to that depth.  A compiler
	 * barrier on x86; arm64 could otherwise make the depth visible first.
	 */
	smp_wmb();
	WRITE_ONCE(kt->state, READ_ONCE(ktau_gen_state));
}

/*
 * A 64-bit system call's entry, from syscall_enter_from_user_mode() with
 * interrupts still off, before the entry work (seccomp, ptrace), with
 * the number the task asked for.  Returns @nr: the caller's copy of the
 * number then need not be saved across a call that the key skips.
 *
 * The common case, inline: the syscall group records, no handler is
 * registered and nothing is traced (ktau_sysfast_key), and the number
 * is a 64-bit call's.  The
 * stack starts empty (nothing of the task can be open in user mode); the
 * call's frame is the bottom one, its function id is the number, and its
 * record key carries the user context word's value when the task has
 * one registered (looked for while ktau_context_key is on: some thread
 * has a word, or had one less than a second ago).
 */
static __always_inline long ktau_syscall_enter(const struct pt_regs *regs,
					       long nr)
{
	struct task_struct *tsk;
	struct ktau_task *kt;

	if (!ktau_group_on(KTAU_GROUP_SYSCALL))
		return nr;
	tsk = ktau_arch_current();
	kt = &tsk->ktau;
	if (unlikely(!static_branch_likely(&ktau_sysfast_key) ||
		     (unsigned long)nr >= NR_syscalls))
		return __ktau_syscall_enter(regs, nr);
	ktau_open_root(tsk, kt, nr);
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

/* The compat ABI's paths, once the entry work has settled the number. */
static __always_inline void ktau_compat_syscall_enter(long nr)
{
	if (ktau_group_on(KTAU_GROUP_SYSCALL))
		__ktau_compat_syscall_enter(nr);
}

/*
 * The common case of the stop of a frame ktau_open_root() opened (a
 * system call's, a user mode fault's): the frame is the only one open
 * and no control change happened since its start, its record is in the
 * slot the table's hint at byte offset @off names (one of @key's two:
 * ktau_hint_off()), and it did not end on a CPU whose TSC lags its
 * start's (nor its children's).  Interrupts are off.  @t: @kt's table,
 * never NULL for a task that enters from user mode; @key: the frame's.
 */
static __always_inline bool __ktau_close_root_at(struct ktau_task *kt,
						 struct ktau_table *t, u64 now,
						 u32 key, unsigned int off)
{
	struct ktau_entry *e;
	s64 incl, excl;

	if (unlikely(kt->state != READ_ONCE(ktau_gen_state)))
		return false;
	e = (void *)t->rec + ktau_hint_at(t, off);
	if (unlikely(e->key != key))
		return false;
	/*
	 * A migration to a CPU whose TSC lags: the slow path clamps.  A
	 * negative @incl makes @excl negative too (@child is never).
	 */
	incl = now - kt->stack[0].start;
	excl = incl - kt->stack[0].child;
	if (unlikely(excl < 0))
		return false;
	ktau_arch_zero32(&kt->depth);
	ktau_entry_add(e, incl, excl);
	return true;
}

/* The same, through @key's own hint slot. */
static __always_inline bool __ktau_close_root_key(struct ktau_task *kt,
						  struct ktau_table *t,
						  u64 now, u32 key)
{
	return __ktau_close_root_at(kt, t, now, key, ktau_hint_off(key));
}

/* The same, @key the frame's (a constant where the caller knows it). */
static __always_inline bool __ktau_close_root_hinted(struct ktau_task *kt,
						     struct ktau_table *t,
						     u64 now)
{
	return __ktau_close_root_key(kt, t, now, kt->stack[0].key);
}

/* Add @v to the counter at @p, which readers never see torn. */
static __always_inline void ktau_counter_add(u64 *p, u64 v)
{
	ktau_arch_counter_add(p, v);
}

/* One more call in @e's count, which carries as ktau_entry_add()'s does. */
static __always_inline void ktau_calls_inc(struct ktau_entry *e)
{
	ktau_arch_calls_inc(&e->calls_key);
}

/*
 * A value of a read()'s or write()'s bytes event: its range record
 * (minimum, maximum) at @range, its sum record (count, sum, saturating
 * sum of squares) next.  The event's count is the sum record's: the
 * range record's, which only the general paths advance, says that its
 * minimum and maximum are set (the profile skips a range record without
 * one).  A range record followed by its sum record has one: the general
 * path adds a value to both as soon as both exist, with interrupts off
 * (CONFIG_KTAU_DEBUG checks it).  @value is at most INT_MAX, so its
 * square does not overflow.
 */
static __always_inline void ktau_bytes_add(struct ktau_entry *range,
					   u64 value)
{
	struct ktau_entry *sum = range + 1;
	u64 sq;

	if (value < range->incl)
		WRITE_ONCE(range->incl, value);
	if (value > range->excl)
		WRITE_ONCE(range->excl, value);
	/* saturating: all ones from the carry, without a branch */
	sq = sum->excl + value * value;
	sq |= -(u64)(sq < value * value);
	ktau_counter_add(&sum->incl, value);
	WRITE_ONCE(sum->excl, sq);
	ktau_calls_inc(sum);
}

/*
 * The key of a read()'s or write()'s bytes event's range record minus
 * the call's record key: the same caller (user context), and the call's
 * own function id stands for its bytes event's (kernel/ktau/core.c).
 */
#define KTAU_BYTES_KEY_DELTA	KTAU_REC_RANGE

/*
 * The bytes of a read() or write() whose inline exit recorded it (its
 * record key @key, its return value @ret), while the event group is
 * profiled: the table's bytes hint of the call names the event's range
 * record, its sum record next, in the common case.  A hint names no
 * other records (records keep their place, a bigger table keeps the
 * hints, a new one has none), so no bound is checked.  An error, a miss
 * or a value above INT_MAX returns false, for __ktau_syscall_bytes().
 * Interrupts are off.
 */
static __always_inline bool ktau_syscall_bytes_try(struct ktau_table *t,
						   u32 key, long ret)
{
	u32 range_key = key + KTAU_BYTES_KEY_DELTA;
	struct ktau_entry *range;

	/* the close's t->rec + its offset stays one lea: no shared t->rec */
	OPTIMIZER_HIDE_VAR(t);
	/*
	 * at the byte offset (fid - __NR_read) * 2, which is the key's low
	 * half minus a constant: no arithmetic
	 */
	BUILD_BUG_ON(KTAU_REC_LOW(__NR_write) - KTAU_REC_LOW(__NR_read) !=
		     sizeof(t->bytes_hint[0]));
	range = (void *)t->rec +
		*(u16 *)((u8 *)t->bytes_hint - KTAU_REC_LOW(__NR_read) +
			 (u16)key);
	if (unlikely((unsigned long)ret > INT_MAX || range->key != range_key ||
		     range[1].key != range_key + (KTAU_REC_SUM - KTAU_REC_RANGE)))
		return false;
	ktau_bytes_add(range, ret);
	return true;
}

/* The same, the general path taking what the inline one does not. */
static __always_inline void ktau_syscall_bytes_hinted(struct ktau_table *t,
						      u32 key, long ret)
{
	if (!ktau_syscall_bytes_try(t, key, ret))
		__ktau_syscall_bytes(key, ret);
}

/* The same, the table read from @kt. */
static __always_inline bool ktau_close_root_hinted(struct ktau_task *kt,
						   u64 now)
{
	return __ktau_close_root_hinted(kt, rcu_dereference_raw(kt->table),
					now);
}

/*
 * The inline system call exit's: the inline timers are on as well.  @t:
 * @kt's table.
 */
static __always_inline bool ktau_close_root_fast(struct ktau_task *kt,
						 struct ktau_table *t, u64 now)
{
	return likely(static_branch_likely(&ktau_sysfast_key)) &&
	       __ktau_close_root_hinted(kt, t, now);
}

/*
 * A system call's exit: its record, and with the event group on the
 * bytes of a read or write (@regs' return value), which the inline path
 * adds to the event's records through their hint.  @inline_copy: called
 * from an architecture's inline copy (ktau_inline_syscall_exit()), which
 * knows the inline timers were on at the entry and leaves a control
 * change to the generation: the general exit then closes the record only
 * if the group is still on.
 */
static __always_inline void __ktau_syscall_exit_timers(struct pt_regs *regs,
						       bool inline_copy)
{
	struct ktau_table *t;
	struct ktau_task *kt;
	bool closed;
	u64 now;
	u32 key;

	now = ktau_arch_now();
	kt = &current->ktau;
	/* read once: the close's adds to memory would have them reloaded */
	t = rcu_dereference_raw(kt->table);
	key = kt->stack[0].key;
	if (inline_copy)
		closed = likely(__ktau_close_root_hinted(kt, t, now));
	else
		closed = ktau_close_root_fast(kt, t, now);
	if (!closed) {
		if (!inline_copy || ktau_group_on(KTAU_GROUP_SYSCALL))
			__ktau_syscall_exit(current, regs, now);
	} else if (ktau_group_on(KTAU_GROUP_EVENT) &&
		   ktau_key_moves_bytes(key)) {
		ktau_syscall_bytes_hinted(t, key, regs_return_value(regs));
	}
}

static __always_inline void ktau_syscall_exit_timers(struct pt_regs *regs)
{
	__ktau_syscall_exit_timers(regs, false);
}

/*
 * Every system call's exit, from __syscall_exit_to_user_mode_work()
 * with interrupts off, after the exit work and before the return to
 * user mode (signals, rescheduling) is prepared.  @regs: the call's
 * registers.  A thread with a shared counter area takes the same exit
 * out of line, its area's work after it (kernel/ktau/counters.c): the
 * others keep nothing of the exit live past their own.
 */
static __always_inline void ktau_syscall_exit(struct pt_regs *regs)
{
	if (!ktau_group_on(KTAU_GROUP_SYSCALL))
		return;
	if (static_branch_unlikely(&ktau_counters_key.key) &&
	    unlikely(current->ktau.counters)) {
		__ktau_syscall_exit_counted(regs);
		return;
	}
	ktau_syscall_exit_timers(regs);
}

/*
 * For an architecture whose 64-bit system call path has copies chosen by
 * these static keys (arm64's el0_svc()): whether system calls are timed,
 * and if so whether by the inline timers alone (no handler, no trace:
 * ktau_sysfast_key), which its inline copy then calls without testing
 * either key again.  Both are tested with interrupts off, and off until
 * the copy's timer has started: a static key change returns only once
 * every CPU has taken an interrupt, so no copy starts a timer on a state
 * older than the control change (and its generation bump) that follows.
 */
static __always_inline bool ktau_syscalls_timed(void)
{
	return ktau_group_on(KTAU_GROUP_SYSCALL);
}

/* a branch taken to the inline copy, not a no-op and a branch to it */
static __always_inline bool ktau_syscalls_inline(void)
{
	return static_branch_unlikely(&ktau_sysfast_key);
}

/*
 * The inline copy's entry: ktau_syscall_enter() with both keys on.  @nr:
 * the number as the system call table is indexed by it.
 */
static __always_inline void ktau_inline_syscall_enter(const struct pt_regs *regs,
						      int nr)
{
	struct task_struct *tsk = ktau_arch_current();

	if (likely((unsigned int)nr < NR_syscalls))
		ktau_open_root(tsk, &tsk->ktau, nr);
	else
		__ktau_syscall_enter(regs, nr);
}

/*
 * The inline copy's exit: ktau_syscall_exit(), the keys being as they
 * were at the entry but for a change during the call.  A change of the
 * control that matters bumps the generation, which sends the close to the
 * general exit (none if the group went off), after its static keys
 * change: a call that ends in between is recorded as if it had ended
 * just before.  A handler registered or the trace started during the
 * call may miss its stop, as it missed its start.
 */
static __always_inline void ktau_inline_syscall_exit(struct pt_regs *regs)
{
	if (static_branch_unlikely(&ktau_counters_key.key) &&
	    unlikely(current->ktau.counters)) {
		ktau_syscall_exit(regs);
		return;
	}
	__ktau_syscall_exit_timers(regs, true);
}

/*
 * From resume_user_mode_work(): the task's shared counter area, if it
 * has one, is written before it returns to user mode.
 */
static __always_inline void ktau_counters_resume(void)
{
	if (static_branch_unlikely(&ktau_counters_key.key) &&
	    unlikely(current->ktau.counters))
		__ktau_counters_resume();
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

/*
 * Around the page fault handler, interrupts off at both: the entry's
 * (irqentry_enter() leaves them off), and the exit's (the handler turns
 * them off again before it returns).
 */
static __always_inline void ktau_fault_enter(bool user_mode)
{
	if (!ktau_group_on(KTAU_GROUP_EXCEPTION))
		return;
	/* the test the caller made for its argument decides, no flag */
	if (user_mode)
		__ktau_fault_enter_user();
	else
		__ktau_fault_enter_kernel();
}

static __always_inline void ktau_fault_exit(void)
{
	if (ktau_group_on(KTAU_GROUP_EXCEPTION))
		__ktau_fault_exit();
}

/*
 * For an architecture whose page fault handler is entered with
 * interrupts as the faulting context had them (arm64's do_page_fault()):
 * whether faults are timed, so that it turns interrupts off around the
 * hooks only then.
 */
static __always_inline bool ktau_faults_timed(void)
{
	return ktau_group_on(KTAU_GROUP_EXCEPTION);
}

/*
 * A context switch, in __schedule(): the task switched out waits in a
 * schedule frame (schedule_vol when it blocked, schedule_invol when it
 * was still runnable) that closes when it is switched in again, so that
 * its wait is charged to it, and whatever runs meanwhile to the task that
 * ran.  Both hooks run with interrupts off and the runqueue locked: the
 * out hook as the task that leaves, before context_switch(); the in hook
 * as the task that comes back, in finish_task_switch() before the
 * runqueue is unlocked (a new task passes it too, from schedule_tail(),
 * with nothing to close).  A schedule() that switches to nobody else
 * passes neither.  Static calls that follow the scheduler group's key (NULL
 * while it is off): a 5-byte no-op each on the path of every switch.
 */
static __always_inline void ktau_switch_out(void)
{
	static_call_cond(ktau_switch_out_call)();
}

static __always_inline void ktau_switch_in(void)
{
	static_call_cond(ktau_switch_in_call)();
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

/**
 * ktau_event() - record a value of an atomic event
 * @fid: the event's id, from ktau_get_fid(name, KTAU_GROUP_EVENT)
 * @value: the value
 *
 * The current task's profile keeps count, minimum, maximum, sum and sum
 * of squares of the values, per user context, while the event group
 * records.  Any context but NMI.
 */
static __always_inline void ktau_event(int fid, u64 value)
{
	if (ktau_group_on(KTAU_GROUP_EVENT))
		__ktau_event(fid, value);
}

/*
 * Time a kernel routine by name, anywhere in the kernel or a module:
 *	KTAU_START("my_flush");  ...  KTAU_STOP("my_flush");
 * The name is registered (group "kernel") on first use.  Start and stop
 * nest like any instrumented routine: the routine's record is keyed by
 * the callpath it ran in.  A stop closes the innermost open start of
 * the same name.
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
static inline void ktau_task_fork_failed(struct task_struct *tsk) { }
static inline void ktau_task_free(struct task_struct *tsk) { }
static inline void ktau_task_exit(struct task_struct *tsk) { }
static inline void ktau_process_autoreap(struct task_struct *p) { }
static inline void ktau_process_release(struct task_struct *p) { }
static inline void ktau_signal_init(struct signal_struct *sig) { }
static inline void ktau_signal_free(struct signal_struct *sig) { }
static inline void ktau_execve(struct task_struct *tsk) { }
static inline void ktau_execve_privilege(struct task_struct *tsk,
					 const struct linux_binprm *bprm) { }
static inline long ktau_syscall_enter(const struct pt_regs *regs, long nr)
{
	return nr;
}

static inline long ktau_syscall_renumber(long nr)
{
	return nr;
}

static inline void ktau_compat_syscall_enter(long nr) { }
static inline void ktau_syscall_exit(struct pt_regs *regs) { }

static inline bool ktau_syscalls_timed(void)
{
	return false;
}

static inline bool ktau_syscalls_inline(void)
{
	return false;
}

static inline void ktau_inline_syscall_enter(const struct pt_regs *regs,
					     int nr) { }
static inline void ktau_inline_syscall_exit(struct pt_regs *regs) { }
static inline void ktau_counters_resume(void) { }
static inline void ktau_softirq_enter(unsigned int vec) { }
static inline void ktau_softirq_exit(unsigned int vec) { }
static inline void ktau_irq_enter(void) { }
static inline void ktau_irq_exit(void) { }
static inline void ktau_fault_enter(bool user_mode) { }
static inline void ktau_fault_exit(void) { }

static inline bool ktau_faults_timed(void)
{
	return false;
}

static inline void ktau_switch_out(void) { }
static inline void ktau_switch_in(void) { }
static inline int ktau_context_prctl(int option, unsigned long arg2,
				     unsigned long arg3, unsigned long arg4,
				     unsigned long arg5)
{
	return -EINVAL;
}

static inline int ktau_counters_prctl(int option, unsigned long arg2,
				      unsigned long arg3, unsigned long arg4,
				      unsigned long arg5)
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
