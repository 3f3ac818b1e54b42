// SPDX-License-Identifier: GPL-2.0
/*
 * ktau_test: a module that uses KTAU's run-time API the way other kernel
 * code would, for the guest tests (tests/guest/t_kmod.c).
 *
 * Commands written to /proc/ktau_test run in the writer's context, so
 * what they record lands in the writer's profile; reading the file gives
 * the result line of the last command:
 *
 *   run N              N times: KTAU_START/STOP of ktau_test_outer around
 *                      ktau_test_inner, and KTAU_EVENT ktau_test_value i
 *                      for i = 1..N
 *   register T C K     T kernel threads, started together, make C
 *                      ktau_get_fid() calls each over K names
 *                      (ktau_reg_0..K-1); checks one id per name
 *   handler MASK       ktau_register_handler(MASK, counter of the
 *                      writer's process's points)
 *   unhandler MASK     ktau_unregister_handler(MASK)
 *   errors             the API's answers to bad arguments
 *   touch N [FIRST]    start and stop N distinct run-time ids once each
 *                      (ktau_touch_FIRST...); a task's table grows on its
 *                      way back to user mode, so a test that wants
 *                      them all recorded touches a few per write()
 *   fill               4 kernel threads register ids until refused; then
 *                      a KTAU_START whose name cannot be registered
 *   nest D N           N times: D nested run-time routines ktau_nest_0
 *                      (outermost) .. ktau_nest_{D-1}, started in order
 *                      and stopped in reverse (deeper than the stack
 *                      holds: counted as dropped)
 *   skew CPU CYCLES    move CPU's TSC CYCLES back (forward when
 *                      negative); behind= gives how far behind the
 *                      writer's CPU it then is (a kernel that checks
 *                      TSC_ADJUST restores it within a second or so);
 *                      x86 only: elsewhere ret=-EOPNOTSUPP
 *   kthread open|step|close|end
 *                      a kernel thread "ktau_kt": open starts
 *                      ktau_kt_outer and waits; step times ktau_kt_inner
 *                      inside it and waits; close stops the outer and
 *                      waits; end makes it exit.  The result line gives
 *                      its pid.
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/minmax.h>
#include <linux/ktau.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>
#ifdef CONFIG_X86
#include <asm/msr.h>
#endif
#include <asm/unistd.h>

#define RESULT_LEN	512
#define MAX_NAMES	256
#define MAX_THREADS	16

static DEFINE_MUTEX(test_lock);
static char result[RESULT_LEN] = "none\n";

/* ---- run ------------------------------------------------------------ */

static void test_run(unsigned long n)
{
	unsigned long i;

	for (i = 1; i <= n; i++) {
		KTAU_START("ktau_test_outer");
		KTAU_START("ktau_test_inner");
		KTAU_STOP("ktau_test_inner");
		KTAU_STOP("ktau_test_outer");
		KTAU_EVENT("ktau_test_value", i);
	}
	snprintf(result, sizeof(result), "run ok n=%lu\n", n);
}

/* ---- register ------------------------------------------------------- */

struct reg_run {
	struct completion go;
	atomic_t running;
	struct completion done;
	unsigned int per_thread;
	unsigned int names;
	atomic_t errors;
	atomic_t mismatches;
	int id[MAX_NAMES];		/* first id seen per name, -1 none */
	spinlock_t id_lock;		/* protects id[] */
};

struct reg_thread {
	struct reg_run *run;
	unsigned int first;
};

static int reg_thread_fn(void *arg)
{
	struct reg_thread *t = arg;
	struct reg_run *run = t->run;
	char name[32];
	unsigned int i;

	wait_for_completion(&run->go);
	for (i = 0; i < run->per_thread; i++) {
		unsigned int k = (t->first + i) % run->names;
		int fid;

		snprintf(name, sizeof(name), "ktau_reg_%u", k);
		fid = ktau_get_fid(name, KTAU_GROUP_KERNEL);
		if (fid < 0) {
			atomic_inc(&run->errors);
			continue;
		}
		spin_lock(&run->id_lock);
		if (run->id[k] < 0)
			run->id[k] = fid;
		else if (run->id[k] != fid)
			atomic_inc(&run->mismatches);
		spin_unlock(&run->id_lock);
	}
	if (atomic_dec_and_test(&run->running))
		complete(&run->done);
	return 0;
}

static int id_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static void test_register(unsigned int threads, unsigned int per_thread,
			  unsigned int names)
{
	struct reg_thread *t;
	struct reg_run *run;
	unsigned int i, distinct = 0;
	int *sorted;

	if (!threads || threads > MAX_THREADS || !names || names > MAX_NAMES) {
		snprintf(result, sizeof(result), "register bad arguments\n");
		return;
	}
	run = kzalloc(sizeof(*run), GFP_KERNEL);
	t = kcalloc(threads, sizeof(*t), GFP_KERNEL);
	sorted = kcalloc(names, sizeof(*sorted), GFP_KERNEL);
	if (!run || !t || !sorted) {
		snprintf(result, sizeof(result), "register no memory\n");
		goto out;
	}
	init_completion(&run->go);
	init_completion(&run->done);
	spin_lock_init(&run->id_lock);
	atomic_set(&run->running, threads);
	run->per_thread = per_thread;
	run->names = names;
	for (i = 0; i < names; i++)
		run->id[i] = -1;
	for (i = 0; i < threads; i++) {
		struct task_struct *k;

		t[i].run = run;
		t[i].first = i * 7;
		k = kthread_run(reg_thread_fn, &t[i], "ktau_reg/%u", i);
		if (IS_ERR(k)) {
			/* the threads started so far still finish */
			atomic_sub(threads - i, &run->running);
			atomic_add(threads - i, &run->errors);
			break;
		}
	}
	complete_all(&run->go);
	if (atomic_read(&run->running))
		wait_for_completion(&run->done);

	for (i = 0; i < names; i++)
		sorted[i] = run->id[i];
	sort(sorted, names, sizeof(*sorted), id_cmp, NULL);
	for (i = 0; i < names; i++) {
		if (sorted[i] >= 0 && (!i || sorted[i] != sorted[i - 1]))
			distinct++;
	}
	snprintf(result, sizeof(result),
		 "register calls=%u names=%u ids=%u errors=%d mismatches=%d first=%d\n",
		 threads * per_thread, names, distinct,
		 atomic_read(&run->errors), atomic_read(&run->mismatches),
		 run->id[0]);
out:
	kfree(sorted);
	kfree(t);
	kfree(run);
}

/* ---- handler -------------------------------------------------------- */

static pid_t handler_tgid;
static atomic_long_t handler_count[3];
static atomic_long_t handler_getpid[2];
static atomic_long_t handler_bad_name;

static void test_handler(unsigned int fid, unsigned int type,
			 const char *name, void *data)
{
	if (current->tgid != READ_ONCE(handler_tgid) || type > 2)
		return;
	atomic_long_inc(&handler_count[type]);
	if (!name || !data)
		atomic_long_inc(&handler_bad_name);
	if (fid == __NR_getpid && type < 2) {
		if (strcmp(name, "getpid"))
			atomic_long_inc(&handler_bad_name);
		atomic_long_inc(&handler_getpid[type]);
	}
}

static void test_handler_on(unsigned int mask)
{
	int i, ret;

	for (i = 0; i < 3; i++)
		atomic_long_set(&handler_count[i], 0);
	atomic_long_set(&handler_getpid[0], 0);
	atomic_long_set(&handler_getpid[1], 0);
	atomic_long_set(&handler_bad_name, 0);
	WRITE_ONCE(handler_tgid, current->tgid);
	ret = ktau_register_handler(mask, test_handler);
	snprintf(result, sizeof(result), "handler ret=%d\n", ret);
}

/* The counts stay readable after unregistering: they are what it saw. */
static void test_handler_off(unsigned int mask)
{
	int ret = ktau_unregister_handler(mask);

	snprintf(result, sizeof(result),
		 "unhandler ret=%d starts=%ld stops=%ld events=%ld getpid_starts=%ld getpid_stops=%ld bad=%ld\n",
		 ret, atomic_long_read(&handler_count[KTAU_HANDLER_START]),
		 atomic_long_read(&handler_count[KTAU_HANDLER_STOP]),
		 atomic_long_read(&handler_count[KTAU_HANDLER_EVENT]),
		 atomic_long_read(&handler_getpid[0]),
		 atomic_long_read(&handler_getpid[1]),
		 atomic_long_read(&handler_bad_name));
}

/* ---- errors --------------------------------------------------------- */

static void dummy_handler(unsigned int fid, unsigned int type,
			  const char *name, void *data)
{
}

static void test_errors(void)
{
	char long_name[KTAU_NAME_MAX + 2];
	int r[10];

	memset(long_name, 'x', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	r[0] = ktau_get_fid("", KTAU_GROUP_KERNEL);
	r[1] = ktau_get_fid("has space", KTAU_GROUP_KERNEL);
	r[2] = ktau_get_fid(long_name, KTAU_GROUP_KERNEL);
	r[3] = ktau_get_fid("ktau_test_group", KTAU_NR_GROUPS);
	r[4] = ktau_get_fid("getpid", KTAU_GROUP_KERNEL);
	r[5] = ktau_get_fid("getpid", KTAU_GROUP_SYSCALL);
	r[6] = ktau_register_handler(0, dummy_handler);
	r[7] = ktau_register_handler(1U << KTAU_NR_GROUPS, dummy_handler);
	r[8] = ktau_register_handler(1U << KTAU_GROUP_IRQ, NULL);
	r[9] = ktau_unregister_handler(1U << KTAU_GROUP_IRQ);
	snprintf(result, sizeof(result),
		 "errors empty=%d space=%d long=%d group=%d other_group=%d same=%d mask0=%d badmask=%d nohandler=%d unreg=%d\n",
		 r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9]);
}

/* ---- touch --------------------------------------------------------- */

/* Start and stop n distinct run-time ids once each, in the caller. */
static void test_touch(unsigned int n, unsigned int first)
{
	unsigned int i, timed = 0;
	char name[32];

	for (i = first; i < first + n; i++) {
		int fid;

		snprintf(name, sizeof(name), "ktau_touch_%u", i);
		fid = ktau_get_fid(name, KTAU_GROUP_KERNEL);
		if (fid < 0)
			break;
		ktau_start_fid(fid);
		ktau_stop_fid(fid);
		timed++;
	}
	snprintf(result, sizeof(result), "touch timed=%u\n", timed);
}

/* ---- nest ----------------------------------------------------------- */

#define NEST_MAX	12

static void test_nest(unsigned int depth, unsigned int n)
{
	int fid[NEST_MAX];
	unsigned int i, j;
	char name[32];

	if (!depth || depth > NEST_MAX) {
		snprintf(result, sizeof(result), "nest bad arguments\n");
		return;
	}
	for (i = 0; i < depth; i++) {
		snprintf(name, sizeof(name), "ktau_nest_%u", i);
		fid[i] = ktau_get_fid(name, KTAU_GROUP_KERNEL);
	}
	for (j = 0; j < n; j++) {
		for (i = 0; i < depth; i++)
			ktau_start_fid(fid[i]);
		for (i = depth; i-- > 0;)
			ktau_stop_fid(fid[i]);
	}
	snprintf(result, sizeof(result), "nest ok depth=%u n=%u\n", depth, n);
}

/* ---- skew ----------------------------------------------------------- */

#ifdef CONFIG_X86
static void skew_tsc(void *arg)
{
	s64 cycles = *(s64 *)arg;

	wrmsrl(MSR_IA32_TSC, rdtsc() - cycles);
}

static void read_tsc(void *arg)
{
	*(u64 *)arg = rdtsc();
}

/*
 * Move @cpu's TSC @cycles back (forward if negative), and measure how
 * far behind the current CPU's it then is.
 */
static void test_skew(unsigned int cpu, s64 cycles)
{
	u64 there = 0, here;
	int ret = -EINVAL;

	if (cpu < nr_cpu_ids && cpu_online(cpu) && cpu != raw_smp_processor_id()) {
		ret = smp_call_function_single(cpu, skew_tsc, &cycles, 1);
		if (!ret) {
			here = rdtsc();
			ret = smp_call_function_single(cpu, read_tsc, &there, 1);
			/* here was read before there: a lag is here - there */
			snprintf(result, sizeof(result),
				 "skew cpu=%u cycles=%lld ret=%d behind=%lld\n", cpu,
				 cycles, ret, (long long)(here - there));
			return;
		}
	}
	snprintf(result, sizeof(result), "skew cpu=%u cycles=%lld ret=%d\n",
		 cpu, cycles, ret);
}
#else
/*
 * Elsewhere no CPU's clock can be moved from here (arm64's virtual
 * counter offset is EL2's): t_skew moves one routine's start instead.
 */
static void test_skew(unsigned int cpu, s64 cycles)
{
	snprintf(result, sizeof(result), "skew cpu=%u cycles=%lld ret=%d\n",
		 cpu, cycles, -EOPNOTSUPP);
}
#endif

/*
 * Where wrmsr cannot move a TSC (QEMU's TCG), the same clock going
 * backwards for one routine: its start moved @cycles into the future.
 */
static void test_skew_frame(s64 cycles)
{
#ifdef CONFIG_KTAU
	int fid = ktau_get_fid("ktau_test_skewed", KTAU_GROUP_KERNEL);
	struct ktau_task *kt = &current->ktau;
	unsigned long flags;
	unsigned int depth;

	if (fid < 0) {
		snprintf(result, sizeof(result), "skewframe fid=%d\n", fid);
		return;
	}
	ktau_start_fid(fid);
	local_irq_save(flags);
	depth = kt->depth;
	if (depth && depth <= KTAU_MAX_DEPTH)
		kt->stack[depth - 1].start += cycles;
	local_irq_restore(flags);
	ktau_stop_fid(fid);
	snprintf(result, sizeof(result), "skewframe ok depth=%u\n", depth);
#else
	snprintf(result, sizeof(result), "skewframe no ktau\n");
#endif
}

/* ---- kthread -------------------------------------------------------- */

enum kt_step { KT_NONE, KT_OPEN, KT_STEP, KT_CLOSE, KT_END };

static struct {
	struct task_struct *task;
	wait_queue_head_t wait;
	enum kt_step asked, done;
} kt;

static void kt_wait(enum kt_step step)
{
	kt.done = step;
	wake_up(&kt.wait);
	wait_event(kt.wait, kt.asked > step);
}

static int kt_fn(void *arg)
{
	kt_wait(KT_NONE);
	KTAU_START("ktau_kt_outer");
	kt_wait(KT_OPEN);
	KTAU_START("ktau_kt_inner");
	KTAU_STOP("ktau_kt_inner");
	kt_wait(KT_STEP);
	KTAU_STOP("ktau_kt_outer");
	kt_wait(KT_CLOSE);
	return 0;
}

static void test_kthread(const char *what)
{
	static const char *const steps[] = {
		[KT_OPEN] = "open", [KT_STEP] = "step", [KT_CLOSE] = "close",
		[KT_END] = "end",
	};
	enum kt_step step;
	bool opening;

	for (step = KT_OPEN; step <= KT_END; step++) {
		if (sysfs_streq(what, steps[step]))
			break;
	}
	opening = step == KT_OPEN;
	if (step > KT_END || opening == !!kt.task ||
	    (kt.task && step != kt.done + 1)) {
		snprintf(result, sizeof(result), "kthread bad step\n");
		return;
	}
	if (step == KT_OPEN) {
		init_waitqueue_head(&kt.wait);
		kt.asked = KT_NONE;
		kt.done = KT_NONE;
		kt.task = kthread_run(kt_fn, NULL, "ktau_kt");
		if (IS_ERR(kt.task)) {
			kt.task = NULL;
			snprintf(result, sizeof(result), "kthread failed\n");
			return;
		}
		get_task_struct(kt.task);
		wait_event(kt.wait, kt.done == KT_NONE);
	}
	kt.asked = step;
	wake_up(&kt.wait);
	if (step == KT_END) {
		kthread_stop(kt.task);
		put_task_struct(kt.task);
		kt.task = NULL;
		snprintf(result, sizeof(result), "kthread end\n");
		return;
	}
	wait_event(kt.wait, kt.done == step);
	snprintf(result, sizeof(result), "kthread %s pid=%d\n", what,
		 task_pid_nr(kt.task));
}

/* ---- fill ----------------------------------------------------------- */

struct fill_thread {
	struct completion *go;
	struct completion done;
	unsigned int index;
	unsigned int registered;
	int last;
	int error;
};

/* Registers distinct names until refused. */
static int fill_thread_fn(void *arg)
{
	struct fill_thread *t = arg;
	char name[32];
	int fid;

	wait_for_completion(t->go);
	for (;;) {
		snprintf(name, sizeof(name), "ktau_fill_%u_%u", t->index, t->registered);
		fid = ktau_get_fid(name, KTAU_GROUP_KERNEL);
		if (fid < 0)
			break;
		t->last = max(t->last, fid);
		t->registered++;
	}
	t->error = fid;
	complete(&t->done);
	return 0;
}

/* FILL_THREADS kernel threads at once, up to and past the limit. */
#define FILL_THREADS	4

static void test_fill(void)
{
	struct fill_thread t[FILL_THREADS] = { };
	DECLARE_COMPLETION_ONSTACK(go);
	unsigned int i, started = 0, registered = 0, some = 0;
	char name[KTAU_NAME_MAX + 1] = "ktau_fill_none";
	int last = -1, error = 0;

	for (i = 0; i < FILL_THREADS; i++) {
		struct task_struct *k;

		t[i].go = &go;
		t[i].index = i;
		t[i].last = -1;
		init_completion(&t[i].done);
		k = kthread_run(fill_thread_fn, &t[i], "ktau_fill/%u", i);
		if (IS_ERR(k))
			break;
		started++;
	}
	complete_all(&go);
	for (i = 0; i < started; i++) {
		wait_for_completion(&t[i].done);
		registered += t[i].registered;
		last = max(last, t[i].last);
		/* a name some thread registered (one may have got none) */
		if (t[i].registered && !some++)
			snprintf(name, sizeof(name), "ktau_fill_%u_0", i);
		/* every thread must have met the same refusal */
		if (!i)
			error = t[i].error;
		else if (t[i].error != error)
			error = 1;
	}
	/* A site whose name cannot be registered counts a drop per use. */
	KTAU_START("ktau_test_after_full");
	KTAU_STOP("ktau_test_after_full");
	snprintf(result, sizeof(result),
		 "fill threads=%u registered=%u last=%d error=%d again=%d\n", started,
		 registered, last, error, ktau_get_fid(name, KTAU_GROUP_KERNEL));
}

/* ---- /proc/ktau_test ------------------------------------------------ */

static ssize_t test_write(struct file *file, const char __user *ubuf,
			  size_t count, loff_t *ppos)
{
	unsigned int a, b, c;
	char word[16];
	s64 cycles;
	unsigned long n;
	char buf[64];

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';

	mutex_lock(&test_lock);
	if (sscanf(buf, "run %lu", &n) == 1)
		test_run(n);
	else if (sscanf(buf, "register %u %u %u", &a, &b, &c) == 3)
		test_register(a, b, c);
	else if (sscanf(buf, "handler %u", &a) == 1)
		test_handler_on(a);
	else if (sscanf(buf, "unhandler %u", &a) == 1)
		test_handler_off(a);
	else if (!strncmp(buf, "errors", 6))
		test_errors();
	else if (sscanf(buf, "touch %u %u", &a, &b) == 2)
		test_touch(a, b);
	else if (sscanf(buf, "touch %u", &a) == 1)
		test_touch(a, 0);
	else if (sscanf(buf, "nest %u %u", &a, &b) == 2)
		test_nest(a, b);
	else if (sscanf(buf, "skewframe %lld", &cycles) == 1)
		test_skew_frame(cycles);
	else if (sscanf(buf, "skew %u %lld", &a, &cycles) == 2)
		test_skew(a, cycles);
	else if (sscanf(buf, "kthread %15s", word) == 1)
		test_kthread(word);
	else if (!strncmp(buf, "fill", 4))
		test_fill();
	else
		count = -EINVAL;
	mutex_unlock(&test_lock);
	return count;
}

static int test_show(struct seq_file *m, void *v)
{
	mutex_lock(&test_lock);
	seq_puts(m, result);
	mutex_unlock(&test_lock);
	return 0;
}

static int test_open(struct inode *inode, struct file *file)
{
	return single_open(file, test_show, NULL);
}

static const struct proc_ops test_ops = {
	.proc_open	= test_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
	.proc_write	= test_write,
};

static int __init ktau_test_init(void)
{
	if (!proc_create("ktau_test", 0600, NULL, &test_ops))
		return -ENOMEM;
	return 0;
}

static void __exit ktau_test_exit(void)
{
	remove_proc_entry("ktau_test", NULL);
	/* the module's handler must be gone before its code is */
	ktau_unregister_handler((1U << KTAU_NR_GROUPS) - 1);
}

module_init(ktau_test_init);
module_exit(ktau_test_exit);
MODULE_DESCRIPTION("Exercises the KTAU run-time API for the ktau guest tests");
MODULE_LICENSE("GPL");
