// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/ktau/control: start and stop recording, clear every profile, and
 * switch groups of instrumentation points on and off.  A group records
 * when recording is started and the group is enabled; its static key is
 * on exactly then, so anything else costs the hooks a no-op.
 */
#include <linux/capability.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "control_parse.h"
#include "internal.h"

static DEFINE_MUTEX(ktau_control_lock);
static bool ktau_running;
static unsigned long ktau_enabled_groups;

/* Make every group's static key match the state.  Holds the lock. */
static void ktau_apply_state(void)
{
	unsigned int g;
	bool bumped = false;

	for (g = 0; g < KTAU_NR_GROUPS; g++) {
		bool want = ktau_running && (ktau_enabled_groups & BIT(g));

		if (want == static_key_enabled(&ktau_group_keys[g]))
			continue;
		if (want) {
			/* Frames opened before now may have missed stops. */
			if (!bumped)
				WRITE_ONCE(ktau_gens.stack, ktau_gens.stack + 1);
			bumped = true;
			static_branch_enable(&ktau_group_keys[g]);
		} else {
			static_branch_disable(&ktau_group_keys[g]);
		}
	}
	ktau_sysentry_update();
}

/*
 * Each task empties its own table when it next records (or is treated as
 * empty by readers until then); the process totals are emptied here,
 * under the lock their folds take.
 */
static void ktau_clear_all(void)
{
	struct task_struct *p;

	WRITE_ONCE(ktau_gens.table, ktau_gens.table + 1);
	rcu_read_lock();
	for_each_process(p) {
		struct signal_struct *sig = p->signal;

		write_seqlock_irq(&sig->stats_lock);
		ktau_signal_reset(sig);
		write_sequnlock_irq(&sig->stats_lock);
	}
	rcu_read_unlock();
}

static ssize_t ktau_control_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	char buf[KTAU_CONTROL_MAX_LEN];
	struct ktau_control_cmd cmd;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EACCES;
	if (!count || count > sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	ret = ktau_control_parse(buf, count, ktau_group_names,
				 KTAU_NR_GROUPS, &cmd);
	if (ret)
		return ret;

	mutex_lock(&ktau_control_lock);
	switch (cmd.op) {
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
		ktau_enabled_groups |= cmd.groups;
		break;
	case KTAU_CONTROL_DISABLE:
		ktau_enabled_groups &= ~cmd.groups;
		break;
	}
	ktau_apply_state();
	mutex_unlock(&ktau_control_lock);
	return count;
}

static int ktau_control_show(struct seq_file *m, void *v)
{
	unsigned long tasks, bytes;
	unsigned int g;
	bool any = false;

	mutex_lock(&ktau_control_lock);
	seq_puts(m, "ktau-control 1\n");
	seq_printf(m, "state %s\n", ktau_running ? "running" : "stopped");
	seq_puts(m, "groups");
	for (g = 0; g < KTAU_NR_GROUPS; g++) {
		if (ktau_enabled_groups & BIT(g)) {
			seq_printf(m, " %s", ktau_group_name(g));
			any = true;
		}
	}
	seq_puts(m, any ? "\n" : " none\n");
	mutex_unlock(&ktau_control_lock);

	seq_puts(m, "available");
	for (g = 0; g < KTAU_NR_GROUPS; g++)
		seq_printf(m, " %s", ktau_group_name(g));
	seq_printf(m, "\nfids %u/%u\n", ktau_nr_fids(), KTAU_MAX_FIDS);
	seq_printf(m, "fids_refused %u\n", ktau_fids_refused());
	ktau_memory_usage(&tasks, &bytes);
	seq_printf(m, "memory tasks=%lu bytes=%lu\n", tasks, bytes);
	seq_printf(m, "lost_tasks %lld\n", atomic64_read(&ktau_lost_tasks));
	seq_puts(m, "usage: start | stop | clear | startclr | enable GROUP... | disable GROUP...  (GROUP: a name above or all)\n");
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

/* Recording starts at boot with every group enabled. */
int __init ktau_control_init(struct proc_dir_entry *dir)
{
	if (!proc_create("control", 0600, dir, &ktau_control_ops))
		return -ENOMEM;
	mutex_lock(&ktau_control_lock);
	ktau_running = true;
	ktau_enabled_groups = BIT(KTAU_NR_GROUPS) - 1;
	ktau_apply_state();
	mutex_unlock(&ktau_control_lock);
	return 0;
}
