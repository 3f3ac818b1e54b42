// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/ktau/control: start and stop recording, clear every profile,
 * switch groups of instrumentation points on and off, and set the
 * memory limits.  A group records when recording is started and the
 * group is enabled; its static key is on exactly then, so anything else
 * costs the hooks a no-op.
 *
 * Every change bumps the control generation, and the generation of each
 * group it affects: a routine that was running across the change of its
 * group records nothing (its start and its stop were under other rules),
 * while the other groups' routines are not disturbed.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/init.h>
#include <linux/mutex.h>
#include <linux/pid_namespace.h>
#include <linux/proc_fs.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "control_parse.h"
#include "internal.h"

#define KTAU_ALL_GROUPS		(BIT(KTAU_NR_GROUPS) - 1)

static DEFINE_MUTEX(ktau_control_lock);
static bool ktau_running;
static unsigned long ktau_enabled_groups;
unsigned long ktau_profiled_groups __read_mostly;
bool ktau_trace_events __read_mostly;
bool ktau_events_on __read_mostly;

/*
 * Start a new control generation for @groups.  The static keys have
 * their new state already, and static_branch_*() returns only once no
 * CPU runs a hook of the old state (interrupts off throughout a hook),
 * so every frame opened under the old state carries an older generation.
 */
static void ktau_gen_bump(unsigned long groups)
{
	u32 gen = ktau_gen + 1;
	unsigned int g;

	lockdep_assert_held(&ktau_control_lock);
	for_each_set_bit(g, &groups, KTAU_NR_GROUPS)
		WRITE_ONCE(ktau_group_gen[g], gen);
	WRITE_ONCE(ktau_gen_state, (u64)gen << 32 | 1);
	WRITE_ONCE(ktau_gen, gen);
}

static unsigned long ktau_keyed_groups(void)
{
	unsigned long keyed = 0;
	unsigned int g;

	for (g = 0; g < KTAU_NR_GROUPS; g++) {
		if (static_key_enabled(&ktau_group_keys[g]))
			keyed |= BIT(g);
	}
	return keyed;
}

/*
 * The fast paths record every point they take: on only while no group
 * they serve has its key on without being profiled (ktau_sysfast_key).
 */
static void ktau_fast_set(unsigned long profiled, unsigned long keyed)
{
	bool fast = !static_key_enabled(&ktau_handler_key) &&
		    !(keyed & ~profiled & KTAU_FAST_GROUPS);

	lockdep_assert_held(&ktau_control_lock);
	ktau_fast_keys_set(fast, fast && !READ_ONCE(ktau_tracing));
}

/* After a handler registration. */
void ktau_fast_sync(void)
{
	mutex_lock(&ktau_control_lock);
	ktau_fast_set(ktau_profiled_groups, ktau_keyed_groups());
	mutex_unlock(&ktau_control_lock);
}

/*
 * Make every group's static key match the state: on while the group is
 * profiled or the trace is on.  While the keys and the profiled groups
 * change, the fast paths are on only if both the old and the new state
 * allow them.  Returns the groups whose key or whose profiling changed:
 * frames opened before must not be closed after.
 */
static unsigned long ktau_apply_state(void)
{
	unsigned long profiled = ktau_running ? ktau_enabled_groups : 0;
	unsigned long changed = profiled ^ ktau_profiled_groups;
	unsigned long keyed = READ_ONCE(ktau_tracing) ? KTAU_ALL_GROUPS : profiled;
	unsigned int g;

	lockdep_assert_held(&ktau_control_lock);
	/*
	 * Tasks forked while nothing recorded have no table: every task gets
	 * one before the first key goes on, and every fork from now on (one
	 * that read the flag before and that the walk misses takes its CPU's
	 * reserve at its first record: ktau_task_outgrow()).
	 */
	if (keyed && !ktau_tables_wanted) {
		WRITE_ONCE(ktau_tables_wanted, true);
		ktau_walk_tasks(ktau_task_table_give, NULL);
	}
	ktau_fast_set(profiled & ktau_profiled_groups,
		      keyed | ktau_keyed_groups());
	WRITE_ONCE(ktau_profiled_groups, profiled);
	WRITE_ONCE(ktau_trace_events, READ_ONCE(ktau_tracing) &&
		   (ktau_enabled_groups & BIT(KTAU_GROUP_EVENT)));
	WRITE_ONCE(ktau_events_on, ktau_trace_events ||
		   (profiled & BIT(KTAU_GROUP_EVENT)));
	for (g = 0; g < KTAU_NR_GROUPS; g++) {
		bool want = keyed & BIT(g);

		if (want == static_key_enabled(&ktau_group_keys[g]))
			continue;
		if (want) {
			static_branch_enable(&ktau_group_keys[g]);
			ktau_group_calls_set(g, true);
		} else {
			ktau_group_calls_set(g, false);
			static_branch_disable(&ktau_group_keys[g]);
		}
		changed |= BIT(g);
	}
	ktau_fast_set(profiled, keyed);
	/* every key is off: new tasks get no table */
	if (!keyed)
		WRITE_ONCE(ktau_tables_wanted, false);
	return changed;
}

/*
 * Walk every task (not the idle tasks), a batch at a time outside RCU,
 * so that @fn may sleep.  Tasks are visited in pid order.
 */
void ktau_walk_tasks(ktau_task_fn_t fn, void *arg)
{
	struct task_struct *batch[32];
	unsigned int n, i;
	int nr = 1;

	do {
		n = 0;
		rcu_read_lock();
		while (n < ARRAY_SIZE(batch)) {
			struct pid *pid = find_ge_pid(nr, &init_pid_ns);
			struct task_struct *p;

			if (!pid)
				break;
			nr = pid_nr(pid) + 1;
			p = pid_task(pid, PIDTYPE_PID);
			if (p)
				batch[n++] = get_task_struct(p);
		}
		rcu_read_unlock();
		for (i = 0; i < n; i++) {
			fn(batch[i], arg);
			put_task_struct(batch[i]);
		}
		cond_resched();
	} while (n);
}

static void ktau_clear_task(struct task_struct *p, void *arg)
{
	ktau_task_clear(p);
}

static void ktau_clear_process(struct task_struct *p, void *arg)
{
	ktau_process_clear(p);
}

static void ktau_ctx_forget_task(struct task_struct *p, void *arg)
{
	ktau_ctx_forget(p);
}

/*
 * Empty every profile: a new generation for every group, a grace period
 * so that every hook that checked the old one is done, then fresh tables
 * for every task, then empty totals for every process (after the tables:
 * see ktau_process_clear()) and for the released ones whose fold waits.
 * The old tables are freed, sleeping tasks' included.  A start that ran
 * as its task's table was swapped may have cached a user context record
 * of the old table: after a second grace period those starts are done,
 * the caches are reset, and a new generation discards the frames they
 * opened.
 */
static void ktau_clear_all(void)
{
	lockdep_assert_held(&ktau_control_lock);
	ktau_clear_begin();
	ktau_gen_bump(KTAU_ALL_GROUPS);
	synchronize_rcu();
	ktau_walk_tasks(ktau_clear_task, NULL);
	ktau_walk_tasks(ktau_clear_process, NULL);
	ktau_clear_deferred();
	atomic64_set(&ktau_dropped_untabled, 0);
	synchronize_rcu();
	ktau_walk_tasks(ktau_ctx_forget_task, NULL);
	ktau_gen_bump(KTAU_ALL_GROUPS);
}

/*
 * Why nothing may record (the clock cannot time: asm/ktau.h), or NULL.
 * Starting, or starting the trace, then fails with -ENODEV.
 */
static const char *ktau_clock_refused __ro_after_init;

static int ktau_control_do(const struct ktau_control_cmd *cmd)
{
	unsigned long changed;

	lockdep_assert_held(&ktau_control_lock);
	if (ktau_clock_refused && (cmd->op == KTAU_CONTROL_START ||
				   cmd->op == KTAU_CONTROL_STARTCLR ||
				   cmd->op == KTAU_CONTROL_TRACE_ON))
		return -ENODEV;
	switch (cmd->op) {
	case KTAU_CONTROL_START:
		ktau_running = true;
		break;
	case KTAU_CONTROL_STOP:
		ktau_running = false;
		break;
	case KTAU_CONTROL_CLEAR:
		ktau_clear_all();
		break;
	case KTAU_CONTROL_STARTCLR:
		ktau_clear_all();
		ktau_running = true;
		break;
	case KTAU_CONTROL_ENABLE:
		ktau_enabled_groups |= cmd->groups;
		break;
	case KTAU_CONTROL_DISABLE:
		ktau_enabled_groups &= ~cmd->groups;
		break;
	case KTAU_CONTROL_LIMIT_MEMORY:
		WRITE_ONCE(ktau_mem_limit, cmd->value);
		return 0;
	case KTAU_CONTROL_LIMIT_USER_MEMORY:
		WRITE_ONCE(ktau_user_limit, cmd->value);
		return 0;
	case KTAU_CONTROL_LIMIT_USER:
		/* the writer's uid, made global by ktau_control_write() */
		return ktau_user_set_limit(KUIDT_INIT(cmd->uid), cmd->value);
	case KTAU_CONTROL_LIMIT_RECORDS:
		/* no limit below a task's first table */
		BUILD_BUG_ON(KTAU_TABLE_MIN_RECORDS > KTAU_LIMIT_RECORDS_MIN);
		BUILD_BUG_ON(KTAU_RECORDS_LIMIT_MAX < KTAU_LIMIT_RECORDS_MAX);
		WRITE_ONCE(ktau_records_limit, cmd->value);
		return 0;
	case KTAU_CONTROL_TRACE_WAKEUP:
		return ktau_trace_control(cmd);
	case KTAU_CONTROL_TRACE_ON:
	case KTAU_CONTROL_TRACE_OFF:
	case KTAU_CONTROL_TRACE_SIZE:
	case KTAU_CONTROL_TRACE_ALL:
	case KTAU_CONTROL_TRACE_PIDS: {
		int ret = ktau_trace_control(cmd);

		if (ret)
			return ret;
		break;
	}
	}
	changed = ktau_apply_state();
	if (changed)
		ktau_gen_bump(changed);
	return 0;
}

static ssize_t ktau_control_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	char buf[KTAU_CONTROL_MAX_LEN];
	struct ktau_control_cmd cmd;
	int ret;

	if (!file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN))
		return -EPERM;
	if (!count || count > sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	ret = ktau_control_parse(buf, count, ktau_group_names,
				 KTAU_NR_GROUPS, &cmd);
	if (ret)
		return ret;
	if (cmd.op == KTAU_CONTROL_LIMIT_USER) {
		/* a uid as the writer names it: one its namespace maps */
		kuid_t uid = make_kuid(file->f_cred->user_ns, cmd.uid);

		if (!uid_valid(uid))
			return -EINVAL;
		cmd.uid = __kuid_val(uid);
	}

	mutex_lock(&ktau_control_lock);
	ret = ktau_control_do(&cmd);
	mutex_unlock(&ktau_control_lock);
	return ret ? ret : count;
}

static void ktau_show_groups(struct seq_file *m, unsigned long groups)
{
	unsigned int g;

	for (g = 0; g < KTAU_NR_GROUPS; g++) {
		if (groups & BIT(g))
			seq_printf(m, " %s", ktau_group_name(g));
	}
	if (!groups)
		seq_puts(m, " none");
	seq_putc(m, '\n');
}

static int ktau_control_show(struct seq_file *m, void *v)
{
	unsigned long tasks, bytes;

	mutex_lock(&ktau_control_lock);
	seq_puts(m, "ktau-control 1\n");
	seq_printf(m, "state %s\n", ktau_running ? "running" : "stopped");
	seq_puts(m, "groups");
	ktau_show_groups(m, ktau_enabled_groups);
	ktau_trace_show(m);
	mutex_unlock(&ktau_control_lock);

	seq_puts(m, "available");
	ktau_show_groups(m, KTAU_ALL_GROUPS);
	seq_printf(m, "fids %u/%u\n", ktau_nr_fids(), KTAU_MAX_FIDS);
	seq_printf(m, "fids_refused %u\n", ktau_fids_refused());
	ktau_memory_usage(&tasks, &bytes);
	seq_printf(m, "memory tasks=%lu bytes=%lu limit=%lu\n", tasks, bytes,
		   READ_ONCE(ktau_mem_limit));
	ktau_users_show(m);
	seq_printf(m, "records_limit %u\n", READ_ONCE(ktau_records_limit));
	seq_printf(m, "contexts %u\n", ktau_contexts());
	seq_printf(m, "dropped %lld\n", atomic64_read(&ktau_dropped_untabled));
	seq_puts(m, "lost_tasks 0\n");
	seq_puts(m, "usage: start | stop | clear | startclr | enable GROUP... | disable GROUP... | limit memory BYTES | limit user-memory BYTES | limit user UID BYTES|default | limit records N | trace on|off|all | trace size KIB | trace wakeup PERCENT | trace pid PID...  (GROUP: a name above or all)\n");
	seq_puts(m, "end\n");
	return 0;
}

static int ktau_control_open(struct inode *inode, struct file *file)
{
	return single_open(file, ktau_control_show, NULL);
}

static const struct proc_ops ktau_control_ops = {
	.proc_open	= ktau_control_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
	.proc_write	= ktau_control_write,
};

/*
 * ktau= on the command line: "off" (stopped, every group enabled for a
 * later start), "on" (every group records), or a comma-separated list of
 * groups that record.  Without it, CONFIG_KTAU_DEFAULT_ON decides.
 */
static bool ktau_boot_running = IS_ENABLED(CONFIG_KTAU_DEFAULT_ON);
static unsigned long ktau_boot_groups = KTAU_ALL_GROUPS;

static int __init ktau_setup(char *str)
{
	unsigned long groups = 0;
	unsigned int g;
	char *word;

	if (!strcmp(str, "off")) {
		ktau_boot_running = false;
		return 1;
	}
	if (!strcmp(str, "on")) {
		ktau_boot_running = true;
		ktau_boot_groups = KTAU_ALL_GROUPS;
		return 1;
	}
	while ((word = strsep(&str, ",")) != NULL) {
		for (g = 0; g < KTAU_NR_GROUPS; g++) {
			if (!strcmp(word, ktau_group_names[g]))
				break;
		}
		if (g == KTAU_NR_GROUPS) {
			pr_warn("ktau: unknown group '%s' in ktau=; recording is stopped\n",
				word);
			ktau_boot_running = false;
			return 1;
		}
		groups |= BIT(g);
	}
	ktau_boot_running = true;
	ktau_boot_groups = groups;
	return 1;
}
__setup("ktau=", ktau_setup);

int __init ktau_control_init(struct proc_dir_entry *dir)
{
	struct ktau_control_cmd boot = {
		.op = ktau_boot_running ? KTAU_CONTROL_START : KTAU_CONTROL_STOP,
	};

	if (!proc_create("control", 0600, dir, &ktau_control_ops) ||
	    ktau_trace_init(dir))
		return -ENOMEM;
	ktau_clock_refused = ktau_arch_clock_unusable();
	if (ktau_clock_refused) {
		pr_err("ktau: %s: the clock cannot time anything, so nothing is recorded (start and trace on fail with ENODEV)\n",
		       ktau_clock_refused);
		boot.op = KTAU_CONTROL_STOP;
	}
	mutex_lock(&ktau_control_lock);
	ktau_enabled_groups = ktau_boot_groups;
	ktau_control_do(&boot);
	mutex_unlock(&ktau_control_lock);
	return 0;
}
