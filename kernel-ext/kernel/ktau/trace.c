// SPDX-License-Identifier: GPL-2.0
/*
 * KTAU trace mode: every instrumentation point appends a timestamped
 * event to its CPU's buffer, and /proc/ktau/trace drains them (each
 * event is read once), in the format of docs/trace-format.md.
 *
 * A buffer is a ring of 16-byte units with one writer, its CPU with
 * interrupts off (the points run so, never in NMI), and one reader at a
 * time (ktau_trace_lock), so head and tail need no atomics: the writer
 * publishes head with a release after the event's units, the reader
 * tail after copying them out.  A full ring drops the new event and
 * counts it; nothing is overwritten, nothing waits.
 *
 * While tracing, ktau_trace_key is on.  The system call timers leave the
 * entry code for their copies in core.c; those and the user mode faults'
 * timers write the common event (a traced task's, into a ring with room)
 * themselves through
 * ktau_trace_put_fast() (trace.h): at wp, below wlimit, which this file's
 * general writer sets each time it runs.  Every other point calls
 * ktau_trace_point().  A disabled trace costs the inline system call
 * timers nothing and the other points a patched-out jump.
 */
#include <linux/irq_work.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/poll.h>
#include <linux/proc_fs.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>

#include "control_parse.h"
#include "internal.h"
#include "trace.h"

#define KTAU_TRACE_MAGIC	"KTAUTRC1"
#define KTAU_TRACE_VERSION	2
#define KTAU_TRACE_CHUNK_MAGIC	0x544b
#define KTAU_TRACE_KIND_KERNEL	1
#define KTAU_TRACE_TSC_MASK	(BIT_ULL(56) - 1)

struct ktau_trace_header {
	char magic[8];
	u32 version;
	u32 header_size;
	u32 unit_size;
	u32 nr_cpus;
	u64 tsc_khz;
	u64 tsc;
	u64 realtime_ns;
	u64 monotonic_ns;
	u32 flags;
	u32 reserved;
};

struct ktau_trace_chunk {
	u16 magic;
	u8 kind;
	u8 flags;
	u16 cpu;
	u16 source;
	u32 count;
	u32 lost;
};

DEFINE_PER_CPU(struct ktau_trace_cpu, ktau_trace_cpus);

/*
 * A task's trace_tag: the low half is the `trace pid` set it belongs to
 * (traced while that is the current set), the high half the `trace on`
 * it announced itself in (a TASK event).  Neither counter is ever 0, so
 * a new task's tag of 0 is in no set and announced in no trace; a tag
 * left from an older set or trace simply no longer matches.
 */
#define KTAU_TRACE_SET(tag)	((u16)(tag))
#define KTAU_TRACE_SEEN(tag)	((u16)((tag) >> 16))

bool ktau_tracing __read_mostly;
DEFINE_STATIC_KEY_FALSE(ktau_trace_key);
static bool ktau_trace_all __read_mostly = true;
static u16 ktau_trace_set = 1;		/* the current trace pid set */
static u16 ktau_trace_run = 1;		/* the current trace on */
static unsigned int ktau_trace_kib = KTAU_TRACE_KIB_DEFAULT;
static unsigned int ktau_trace_wakeup = KTAU_TRACE_WAKEUP_DEFAULT;

/* Set whenever tracing starts: nothing matches before. */
struct ktau_trace_match ktau_trace_match __read_mostly = {
	.mask = U32_MAX, .want = U32_MAX,
};

/* Serializes readers, control changes and the buffers' lifetime. */
static DEFINE_MUTEX(ktau_trace_lock);
static DECLARE_WAIT_QUEUE_HEAD(ktau_trace_wait);
static bool ktau_trace_waiting;

static void ktau_trace_wake(struct irq_work *work)
{
	wake_up_interruptible(&ktau_trace_wait);
}

/* Wakes pollers from the writer, which may hold the runqueue lock. */
static DEFINE_IRQ_WORK(ktau_trace_wake_work, ktau_trace_wake);

/* The next value of a set or trace counter, never 0. */
static u16 ktau_trace_next(u16 v)
{
	return v == U16_MAX ? 1 : v + 1;
}

/*
 * Whether events of current go to the trace; its first event of this
 * trace also sets *announce (the caller writes a TASK event first).
 */
static bool ktau_trace_wanted(struct ktau_task *kt, bool *announce)
{
	u16 run = READ_ONCE(ktau_trace_run);
	u32 tag = READ_ONCE(kt->trace_tag);

	if (test_bit(KTAU_TASK_TRACE_READER, &kt->flags))
		return false;
	if (!READ_ONCE(ktau_trace_all) &&
	    KTAU_TRACE_SET(tag) != READ_ONCE(ktau_trace_set))
		return false;
	*announce = KTAU_TRACE_SEEN(tag) != run;
	/* A concurrent mark wins: the next event announces the task then. */
	if (*announce)
		cmpxchg(&kt->trace_tag, tag, (u32)run << 16 | KTAU_TRACE_SET(tag));
	return true;
}

/*
 * After a change of the run, the set or trace_all; ktau_trace_lock held.
 * A writer loads mask and want apart: a mix of the old and the new (the
 * set and trace_all change only) matches no task that neither wants.
 */
static void ktau_trace_match_update(void)
{
	u32 mask = READ_ONCE(ktau_trace_all) ? 0xffff0000U : 0xffffffffU;

	lockdep_assert_held(&ktau_trace_lock);
	WRITE_ONCE(ktau_trace_match.mask, mask);
	WRITE_ONCE(ktau_trace_match.want,
		   ((u32)ktau_trace_run << 16 | ktau_trace_set) & mask);
}

/*
 * Where the fast writer of @c goes on: unit @head, up to the ring's end
 * or the end of the room left by the reader at @tail, whichever is first;
 * while a reader waits (@waiting), no further than where the ring holds
 * enough to wake it, so that the general writer wakes it then.
 */
static void ktau_trace_fast_room(struct ktau_trace_cpu *c, u64 head, u64 tail,
				 bool waiting)
{
	u64 pos = head & c->mask;
	u64 end = tail + (waiting ? READ_ONCE(c->wake) : c->mask + 1);
	u64 room = end > head ? min(end - head, c->mask + 1 - pos) : 0;

	c->wp = c->ring + pos;
	WRITE_ONCE(c->wlimit, c->wp + room);
}

/*
 * A reader waits in poll() and @c holds @fill units: wake it once they
 * are enough.  Returns whether it still waits.
 */
static bool ktau_trace_wake_at(struct ktau_trace_cpu *c, u64 fill)
{
	/* Pairs with smp_mb() in ktau_trace_poll(): see it, or be seen. */
	smp_mb();
	if (likely(!READ_ONCE(ktau_trace_waiting)))
		return false;
	if (fill < READ_ONCE(c->wake))
		return true;
	WRITE_ONCE(ktau_trace_waiting, false);
	irq_work_queue(&ktau_trace_wake_work);
	return false;
}

/*
 * Append an event of @units units (a second one: the 16 bytes at
 * @second, a TASK's or EXEC's comm, an ATOMIC's value) to this CPU's
 * ring.  Interrupts are off.
 */
static void ktau_trace_put(u64 tsc, unsigned int type, u32 data,
			   const void *second)
{
	struct ktau_trace_cpu *c = this_cpu_ptr(&ktau_trace_cpus);
	struct ktau_trace_unit *ring = READ_ONCE(c->ring), *u;
	unsigned int units = second ? 2 : 1;
	u64 head = c->head, tail;

	lockdep_assert_irqs_disabled();
	/* NULL once tracing stops; freed a grace period after that. */
	if (!ring)
		return;
	/* Pairs with smp_store_release() of tail by the reader. */
	tail = smp_load_acquire(&c->tail);
	if (head + units - tail > c->mask + 1) {
		c->lost++;
		ktau_trace_fast_room(c, head, tail,
				     ktau_trace_wake_at(c, head - tail));
		return;
	}
	u = &ring[head & c->mask];
	u->stamp = (tsc & KTAU_TRACE_TSC_MASK) | (u64)type << 56;
	u->tid = current->pid;
	u->data = data;
	if (second)
		memcpy(&ring[(head + 1) & c->mask], second, sizeof(*u));
	/* Pairs with smp_load_acquire() of head by the reader. */
	smp_store_release(&c->head, head + units);
	/* a reader waits in poll() (the fast writer leaves this to us) */
	ktau_trace_fast_room(c, head + units, tail,
			     ktau_trace_wake_at(c, head + units - tail));
}

/*
 * An event whose second unit is current's name.  The name is copied
 * without task_lock(): an interrupt may come while its task holds it.
 * A racing rename can give a mixed name, never an unterminated one.
 */
static void ktau_trace_put_comm(u64 tsc, unsigned int type)
{
	char comm[sizeof(struct ktau_trace_unit)];

	BUILD_BUG_ON(sizeof(comm) != TASK_COMM_LEN);
	memcpy(comm, current->comm, sizeof(comm));
	comm[sizeof(comm) - 1] = '\0';
	ktau_trace_put(tsc, type, current->tgid, comm);
}

/*
 * What ktau_trace_put_fast() left: a task to announce or not traced, a
 * ring whose room must be looked at again, a reader to wake.  Interrupts
 * are off.
 */
void ktau_trace_put_slow(struct ktau_task *kt, u64 tsc, unsigned int type,
			 u32 data)
{
	bool announce;

	if (!ktau_trace_wanted(kt, &announce))
		return;
	if (announce)
		ktau_trace_put_comm(tsc, KTAU_TRACE_TASK);
	ktau_trace_put(tsc, type, data, NULL);
}

/*
 * A value of atomic event @fid on current at @tsc (a system call's bytes:
 * its exit's, before the EXIT).  Interrupts are off.
 */
void ktau_trace_atomic(unsigned int fid, u64 value, u64 tsc)
{
	struct ktau_task *kt = ktau_current();
	u64 second[2] = { value, 0 };
	bool announce;

	if (!ktau_trace_wanted(kt, &announce))
		return;
	if (announce)
		ktau_trace_put_comm(tsc, KTAU_TRACE_TASK);
	ktau_trace_put(tsc, KTAU_TRACE_ATOMIC, fid, second);
}

/* ktau_trace_syscall_open()'s general case.  Interrupts are off. */
long ktau_trace_syscall_open_slow(const struct pt_regs *regs, long nr)
{
	struct ktau_task *kt = ktau_current();
	u64 tsc = kt->stack[0].start;
	u32 value;

	if (kt->ctx_word) {
		/* the value the entry found, through its record */
		value = ktau_root_ctx_value(rcu_dereference_raw(kt->table),
					    kt->stack[0].key);
		if (KTAU_REC_PARENT(kt->stack[0].key) == KTAU_REC_CTX_PENDING)
			value = kt->ctx_pending;
		/* none: the value 0, or no room for its record */
		else if (!value)
			value = ktau_read_ctx(current, kt->ctx_word);
		ktau_trace_put_slow(kt, tsc, KTAU_TRACE_CONTEXT, value);
	}
	ktau_trace_put_slow(kt, tsc, KTAU_TRACE_ENTRY, nr);
	return nr;
}

/* A start or stop of @fid at @tsc on current.  Interrupts are off. */
void ktau_trace_point(unsigned int fid, unsigned int type, u64 tsc)
{
	if (type != KTAU_HANDLER_EVENT)
		ktau_trace_event(current, type == KTAU_HANDLER_START ?
				 KTAU_TRACE_ENTRY : KTAU_TRACE_EXIT, fid, tsc);
}

/* The user context word's value as a system call entry read it. */
void ktau_trace_context(u32 value)
{
	struct ktau_task *kt = ktau_current();
	unsigned long flags;
	bool announce;

	local_irq_save(flags);
	if (ktau_trace_wanted(kt, &announce)) {
		u64 tsc = ktau_arch_now();

		if (announce)
			ktau_trace_put_comm(tsc, KTAU_TRACE_TASK);
		ktau_trace_put(tsc, KTAU_TRACE_CONTEXT, value, NULL);
	}
	local_irq_restore(flags);
}

/* current ran execve(), or is exiting: say so if it is traced. */
static void ktau_trace_task_event(unsigned int type)
{
	struct ktau_task *kt = ktau_current();
	unsigned long flags;
	bool announce;

	if (!ktau_trace_on())
		return;
	local_irq_save(flags);
	if (ktau_trace_wanted(kt, &announce)) {
		u64 tsc = ktau_arch_now();

		if (type == KTAU_TRACE_EXEC)
			ktau_trace_put_comm(tsc, KTAU_TRACE_EXEC);
		else
			ktau_trace_put(tsc, type, current->tgid, NULL);
	}
	local_irq_restore(flags);
}

void ktau_trace_exec(void)
{
	ktau_trace_task_event(KTAU_TRACE_EXEC);
}

void ktau_trace_exit(void)
{
	ktau_trace_task_event(KTAU_TRACE_TASK_EXIT);
}

/* A new task inherits its parent's set, not its announcement. */
void ktau_trace_fork(struct ktau_task *child, const struct ktau_task *parent)
{
	child->trace_tag = KTAU_TRACE_SET(READ_ONCE(parent->trace_tag));
}

/* ---- buffers and control ------------------------------------------------ */

/*
 * Writers load a CPU's ring once, with interrupts off: after the grace
 * period none holds one of the rings unpublished here.  An expedited
 * one: a tool that stops the trace when its command exits (ktau-trace)
 * waits for it, and a normal grace period is several ticks of an idle
 * wait, which made a traced run of busybox true 12 M instructions' worth
 * of time instead of 4 M.  Stopping a trace is root's and rare.
 */
static void ktau_trace_free_rings(void)
{
	struct ktau_trace_unit **rings;
	unsigned int cpu;

	rings = kcalloc(nr_cpu_ids, sizeof(*rings), GFP_KERNEL | __GFP_NOFAIL);
	for_each_possible_cpu(cpu) {
		struct ktau_trace_cpu *c = per_cpu_ptr(&ktau_trace_cpus, cpu);

		rings[cpu] = c->ring;
		WRITE_ONCE(c->ring, NULL);
	}
	synchronize_rcu_expedited();
	for_each_possible_cpu(cpu) {
		vfree(rings[cpu]);
		memset(per_cpu_ptr(&ktau_trace_cpus, cpu), 0,
		       sizeof(struct ktau_trace_cpu));
	}
	kfree(rings);
}

/* The units of @c that wake a waiting reader at @percent full. */
static u64 ktau_trace_wake_units(const struct ktau_trace_cpu *c,
				 unsigned int percent)
{
	return max_t(u64, (c->mask + 1) * percent / 100, 1);
}

static int ktau_trace_alloc_rings(void)
{
	size_t bytes = (size_t)ktau_trace_kib << 10;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct ktau_trace_cpu *c = per_cpu_ptr(&ktau_trace_cpus, cpu);
		struct ktau_trace_unit *ring;

		ring = vmalloc_node(bytes, cpu_to_node(cpu));
		if (!ring) {
			ktau_trace_free_rings();
			return -ENOMEM;
		}
		memset(c, 0, sizeof(*c));
		c->mask = bytes / sizeof(*ring) - 1;
		c->wake = ktau_trace_wake_units(c, ktau_trace_wakeup);
		WRITE_ONCE(c->ring, ring);
		ktau_trace_fast_room(c, 0, 0, false);
	}
	return 0;
}

static void ktau_trace_mark(struct task_struct *p, u16 set)
{
	struct task_struct *t;

	rcu_read_lock();
	for_each_thread(p, t) {
		u32 *tag = &t->ktau.trace_tag, old;

		do {
			old = READ_ONCE(*tag);
		} while (cmpxchg(tag, old, (old & ~0xffffU) | set) != old);
	}
	rcu_read_unlock();
}

/* Mark the processes of @pids (a new set: the old marks lapse). */
static int ktau_trace_mark_pids(const struct ktau_control_cmd *cmd)
{
	struct task_struct *tasks[KTAU_CONTROL_MAX_PIDS];
	unsigned int i, n = 0;
	u16 set;
	int ret = 0;

	rcu_read_lock();
	for (i = 0; i < cmd->nr_pids; i++) {
		struct task_struct *p = find_task_by_pid_ns(cmd->pids[i],
							    &init_pid_ns);

		if (!p || p->flags & PF_EXITING) {
			ret = -ESRCH;
			break;
		}
		tasks[n++] = get_task_struct(p);
	}
	rcu_read_unlock();
	if (!ret) {
		set = ktau_trace_next(ktau_trace_set);
		for (i = 0; i < n; i++)
			ktau_trace_mark(tasks[i], set);
		WRITE_ONCE(ktau_trace_set, set);
		WRITE_ONCE(ktau_trace_all, false);
	}
	for (i = 0; i < n; i++)
		put_task_struct(tasks[i]);
	return ret;
}

/*
 * A new wake-up level, taken at once: a reader woken at the old one
 * misses nothing, as it drains every ring.  ktau_trace_lock held.
 */
static void ktau_trace_set_wakeup(unsigned int percent)
{
	unsigned int cpu;

	lockdep_assert_held(&ktau_trace_lock);
	ktau_trace_wakeup = percent;
	if (!ktau_tracing)
		return;
	for_each_possible_cpu(cpu) {
		struct ktau_trace_cpu *c = per_cpu_ptr(&ktau_trace_cpus, cpu);

		WRITE_ONCE(c->wake, ktau_trace_wake_units(c, percent));
	}
}

/*
 * Start or stop: ktau_trace_key routes every point to ktau_trace_point(),
 * and the group keys and the fast paths follow (ktau_apply_state()).  The
 * rings go only after a grace period: writers run with interrupts off.
 */
int ktau_trace_control(const struct ktau_control_cmd *cmd)
{
	int ret = 0;

	mutex_lock(&ktau_trace_lock);
	switch (cmd->op) {
	case KTAU_CONTROL_TRACE_ON:
		if (ktau_tracing)
			break;
		ret = ktau_trace_alloc_rings();
		if (ret)
			break;
		/* every task announces itself again */
		WRITE_ONCE(ktau_trace_run, ktau_trace_next(ktau_trace_run));
		ktau_trace_match_update();
		/* Pairs with smp_load_acquire() in ktau_trace_on(). */
		smp_store_release(&ktau_tracing, true);
		static_branch_enable(&ktau_trace_key);
		break;
	case KTAU_CONTROL_TRACE_OFF:
		if (!ktau_tracing)
			break;
		static_branch_disable(&ktau_trace_key);
		WRITE_ONCE(ktau_tracing, false);
		ktau_trace_free_rings();
		break;
	case KTAU_CONTROL_TRACE_SIZE:
		if (ktau_tracing)
			ret = -EBUSY;
		else
			ktau_trace_kib = cmd->value;
		break;
	case KTAU_CONTROL_TRACE_WAKEUP:
		ktau_trace_set_wakeup(cmd->value);
		break;
	case KTAU_CONTROL_TRACE_ALL:
		WRITE_ONCE(ktau_trace_all, true);
		ktau_trace_match_update();
		break;
	case KTAU_CONTROL_TRACE_PIDS:
		ret = ktau_trace_mark_pids(cmd);
		ktau_trace_match_update();
		break;
	default:
		ret = -EINVAL;
	}
	mutex_unlock(&ktau_trace_lock);
	return ret;
}

void ktau_trace_show(struct seq_file *m)
{
	u64 lost = 0;
	unsigned int cpu;

	mutex_lock(&ktau_trace_lock);
	if (ktau_tracing) {
		for_each_possible_cpu(cpu)
			lost += READ_ONCE(per_cpu_ptr(&ktau_trace_cpus,
						      cpu)->lost);
	}
	seq_printf(m, "trace %s size=%u tasks=%s lost=%llu wakeup=%u\n",
		   ktau_tracing ? "on" : "off", ktau_trace_kib,
		   READ_ONCE(ktau_trace_all) ? "all" : "pids", lost,
		   ktau_trace_wakeup);
	mutex_unlock(&ktau_trace_lock);
}

/* ---- /proc/ktau/trace ------------------------------------------------- */

static int ktau_trace_copy_header(char __user *ubuf)
{
	struct ktau_trace_header h = {
		.magic = KTAU_TRACE_MAGIC,
		.version = KTAU_TRACE_VERSION,
		.header_size = sizeof(h),
		.unit_size = sizeof(struct ktau_trace_unit),
		.nr_cpus = nr_cpu_ids,
		.tsc_khz = ktau_arch_clock_khz(),
	};
	struct timespec64 real;
	unsigned long flags;

	BUILD_BUG_ON(sizeof(h) != 64);
	local_irq_save(flags);
	h.tsc = ktau_arch_now() & KTAU_TRACE_TSC_MASK;
	h.monotonic_ns = ktime_get_ns();
	ktime_get_real_ts64(&real);
	local_irq_restore(flags);
	h.realtime_ns = timespec64_to_ns(&real);
	return copy_to_user(ubuf, &h, sizeof(h)) ? -EFAULT : 0;
}

/* How many of the @n units from @tail hold whole events. */
static u64 ktau_trace_whole_events(const struct ktau_trace_cpu *c, u64 tail,
				   u64 n)
{
	u64 k = 0;

	while (k < n) {
		u8 type = c->ring[(tail + k) & c->mask].stamp >> 56;

		k += type == KTAU_TRACE_TASK || type == KTAU_TRACE_EXEC ||
		     type == KTAU_TRACE_ATOMIC ? 2 : 1;
	}
	return k > n ? n - 1 : n;
}

/*
 * Copy up to @room units of @c's events out as one chunk (with its
 * header): the bytes written, 0 if there is nothing to say, or -EFAULT.
 * A two-unit event is never split.  The caller holds ktau_trace_lock.
 */
static ssize_t ktau_trace_drain_cpu(struct ktau_trace_cpu *c, unsigned int cpu,
				    char __user *ubuf, u64 room)
{
	struct ktau_trace_chunk ch = {
		.magic = KTAU_TRACE_CHUNK_MAGIC,
		.kind = KTAU_TRACE_KIND_KERNEL,
		.cpu = cpu,
	};
	u64 head, tail = c->tail, n, i, lost;
	char __user *dst = ubuf + sizeof(ch);

	/* Pairs with smp_store_release() of head by the writer. */
	head = smp_load_acquire(&c->head);
	n = min(head - tail, room);
	if (n < head - tail)
		n = ktau_trace_whole_events(c, tail, n);
	lost = READ_ONCE(c->lost);
	if (!n && lost == c->lost_reported)
		return 0;
	for (i = 0; i < n; ) {
		u64 start = (tail + i) & c->mask;
		u64 len = min(n - i, c->mask + 1 - start);

		if (copy_to_user(dst, &c->ring[start], len * sizeof(*c->ring)))
			return -EFAULT;
		dst += len * sizeof(*c->ring);
		i += len;
	}
	ch.count = n;
	ch.lost = min_t(u64, lost - c->lost_reported, U32_MAX);
	if (copy_to_user(ubuf, &ch, sizeof(ch)))
		return -EFAULT;
	c->lost_reported = lost;
	/* Pairs with smp_load_acquire() of tail by the writer. */
	smp_store_release(&c->tail, tail + n);
	return sizeof(ch) + n * sizeof(*c->ring);
}

/*
 * Whether some CPU holds enough events to wake a reader (its wake level,
 * `trace wakeup`) or a loss to report.  Without the lock: only the
 * counters are read, never a ring, which trace off may free.
 */
static bool ktau_trace_ready(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct ktau_trace_cpu *c = per_cpu_ptr(&ktau_trace_cpus, cpu);
		u64 head;

		if (!READ_ONCE(c->ring))
			continue;
		/* Pairs with smp_store_release() of head by the writer. */
		head = smp_load_acquire(&c->head);
		if (head - READ_ONCE(c->tail) >= READ_ONCE(c->wake) ||
		    READ_ONCE(c->lost) != READ_ONCE(c->lost_reported))
			return true;
	}
	return false;
}

static ssize_t ktau_trace_read(struct file *file, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	const size_t unit = sizeof(struct ktau_trace_unit);
	const size_t chunk = sizeof(struct ktau_trace_chunk);
	size_t done = 0;
	unsigned int cpu;
	ssize_t n;

	/* room for a chunk of the longest event, two units */
	if (count < chunk + 2 * unit ||
	    (!*ppos && count < sizeof(struct ktau_trace_header) + chunk + 2 * unit))
		return -EINVAL;
	mutex_lock(&ktau_trace_lock);
	if (!*ppos) {
		n = ktau_trace_copy_header(ubuf);
		if (n)
			goto out;
		done = sizeof(struct ktau_trace_header);
	}
	for_each_possible_cpu(cpu) {
		struct ktau_trace_cpu *c = per_cpu_ptr(&ktau_trace_cpus, cpu);

		if (count - done < chunk + 2 * unit)
			break;
		if (!c->ring)
			continue;
		n = ktau_trace_drain_cpu(c, cpu, ubuf + done,
					 (count - done - chunk) / unit);
		if (n < 0)
			goto out;
		done += n;
	}
	n = 0;
out:
	mutex_unlock(&ktau_trace_lock);
	if (n < 0 && !done)
		return n;
	*ppos += done;
	return done;
}

/* Every CPU's next event goes to the general writer, which wakes us. */
static void ktau_trace_stop_fast_writers(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu_ptr(&ktau_trace_cpus, cpu)->wlimit, NULL);
}

static __poll_t ktau_trace_poll(struct file *file, poll_table *wait)
{
	poll_wait(file, &ktau_trace_wait, wait);
	if (ktau_trace_ready())
		return EPOLLIN | EPOLLRDNORM;
	WRITE_ONCE(ktau_trace_waiting, true);
	/*
	 * Pairs with the general writer's smp_mb(): either it sees the flag
	 * and wakes us once its ring holds enough, or we see its events
	 * below.  The fast writers are sent to it by a limit of 0, and it
	 * gives them one at the wake level: an event a fast writer published
	 * after the check below counts at that CPU's next general event.
	 */
	smp_mb();
	ktau_trace_stop_fast_writers();
	return ktau_trace_ready() ? EPOLLIN | EPOLLRDNORM : 0;
}

/*
 * The task that opens the trace is not traced until it closes it: else
 * its own reads would always leave new events behind, and a reader of
 * everything (`cat`, ktau-trace --all) would never find the end.
 */
static int ktau_trace_open(struct inode *inode, struct file *file)
{
	u32 *tag = &current->ktau.trace_tag, old;

	if (!file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN))
		return -EPERM;
	set_bit(KTAU_TASK_TRACE_READER, &current->ktau.flags);
	/* no longer announced: the writers' fast test fails for it */
	do {
		old = READ_ONCE(*tag);
	} while (cmpxchg(tag, old, old & 0xffffU) != old);
	file->private_data = current;
	return 0;
}

static int ktau_trace_release(struct inode *inode, struct file *file)
{
	if (file->private_data == current)
		clear_bit(KTAU_TASK_TRACE_READER, &current->ktau.flags);
	return 0;
}

static const struct proc_ops ktau_trace_ops = {
	.proc_open	= ktau_trace_open,
	.proc_release	= ktau_trace_release,
	.proc_read	= ktau_trace_read,
	.proc_poll	= ktau_trace_poll,
	.proc_lseek	= noop_llseek,
};

int __init ktau_trace_init(struct proc_dir_entry *dir)
{
	return proc_create("trace", 0400, dir, &ktau_trace_ops) ? 0 : -ENOMEM;
}
