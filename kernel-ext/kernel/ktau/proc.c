// SPDX-License-Identifier: GPL-2.0
/*
 * KTAU /proc interface: /proc/<pid>/ktau, /proc/<pid>/task/<tid>/ktau,
 * /proc/ktau/profile and /proc/ktau/functions, in the versioned text
 * format of docs/proc-format.md.
 */
#include <linux/pid_namespace.h>
#include <linux/proc_fs.h>
#include <linux/ptrace.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <asm/tsc.h>

#include "snapshot.h"

#define KTAU_FORMAT_VERSION	1

static const char *const ktau_block_kinds[] = {
	[KTAU_BLOCK_THREAD]	= "thread",
	[KTAU_BLOCK_PROCESS]	= "process",
	[KTAU_BLOCK_EXITED]	= "exited",
	[KTAU_BLOCK_CHILDREN]	= "children",
};

/* comm may hold any byte; the format's tokens may not. */
static void ktau_block_set_comm(struct ktau_block *blk,
				struct task_struct *task)
{
	char *c;

	get_task_comm(blk->comm, task);
	for (c = blk->comm; *c; c++) {
		if (*c <= ' ' || *c == '=' || *c >= 0x7f)
			*c = '_';
	}
	if (!blk->comm[0])
		strscpy(blk->comm, "-", sizeof(blk->comm));
}

static void ktau_print_header(struct seq_file *m, const char *scope)
{
	seq_printf(m, "ktau-profile %d\n", KTAU_FORMAT_VERSION);
	seq_printf(m, "tsc_khz %u\n", tsc_khz);
	seq_printf(m, "scope %s\n", scope);
	seq_puts(m, "columns func ctx fid name group calls incl_cycles excl_cycles\n");
	seq_puts(m, "columns edge ctx parent_fid parent fid name calls incl_cycles excl_cycles\n");
	seq_puts(m, "columns event ctx fid name count min max sum sumsq\n");
}

static void ktau_print_block_header(struct seq_file *m,
				    const struct ktau_block *blk)
{
	seq_printf(m, "task kind=%s pid=%d tid=%d comm=%s",
		   ktau_block_kinds[blk->kind], blk->pid, blk->tid, blk->comm);
	switch (blk->kind) {
	case KTAU_BLOCK_PROCESS:
		seq_printf(m, " threads=%u exited_threads=%u",
			   blk->threads, blk->exited_threads);
		break;
	case KTAU_BLOCK_EXITED:
		seq_printf(m, " exited_threads=%u", blk->exited_threads);
		break;
	case KTAU_BLOCK_CHILDREN:
		seq_printf(m, " processes=%u", blk->processes);
		break;
	default:
		break;
	}
	seq_printf(m, " dropped=%llu\n", blk->dropped);
}

static void ktau_print_func(struct seq_file *m, u32 ctx, unsigned int fid,
			    u64 calls, u64 incl, u64 excl)
{
	int group = ktau_fid_group(fid);

	seq_printf(m, "func %u %u %s %s %llu %llu %llu\n", ctx, fid,
		   ktau_fid_name(fid), ktau_group_name(group), calls, incl, excl);
}

/*
 * An event's range entry sorts right before its sum entry (their caller
 * slots are the two highest); a sum whose range was not copied (the
 * reader raced the insertion of both) is left for the next read.
 */
static void ktau_print_events(struct seq_file *m, const struct ktau_entry *e,
			      unsigned int count)
{
	unsigned int i;

	for (i = 1; i < count; i++) {
		const struct ktau_entry *range = &e[i - 1], *sum = &e[i];
		unsigned int fid = KTAU_KEY_FID(sum->key);

		if (KTAU_KEY_PARENT(sum->key) != KTAU_EVENT_SUM || !sum->calls ||
		    range->key != KTAU_KEY(KTAU_KEY_CTX(sum->key),
					   KTAU_EVENT_RANGE, fid))
			continue;
		seq_printf(m, "event %u %u %s %llu %llu %llu %llu %llu\n",
			   KTAU_KEY_CTX(sum->key), fid, ktau_fid_name(fid),
			   sum->calls, range->incl, range->excl, sum->incl,
			   sum->excl);
	}
}

/* Entries are sorted by (ctx, fid, caller) and unique per key. */
static void ktau_print_block(struct seq_file *m,
			     const struct ktau_snapshot *snap,
			     const struct ktau_block *blk)
{
	const struct ktau_entry *e = snap->entry + blk->first;
	unsigned int i, j;

	ktau_print_block_header(m, blk);
	for (i = 0; i < blk->count; i = j) {
		u64 calls = 0, incl = 0, excl = 0;

		for (j = i; j < blk->count; j++) {
			if (KTAU_KEY_CTX(e[j].key) != KTAU_KEY_CTX(e[i].key) ||
			    KTAU_KEY_FID(e[j].key) != KTAU_KEY_FID(e[i].key))
				break;
			if (ktau_key_is_event(e[j].key))
				continue;
			calls += e[j].calls;
			incl += e[j].incl;
			excl += e[j].excl;
		}
		if (calls)
			ktau_print_func(m, KTAU_KEY_CTX(e[i].key),
					KTAU_KEY_FID(e[i].key), calls, incl, excl);
	}
	for (i = 0; i < blk->count; i++) {
		u32 parent = KTAU_KEY_PARENT(e[i].key);
		unsigned int fid = KTAU_KEY_FID(e[i].key);

		if (parent == KTAU_NO_PARENT || ktau_key_is_event(e[i].key) ||
		    !e[i].calls)
			continue;
		seq_printf(m, "edge %u %u %s %u %s %llu %llu %llu\n",
			   KTAU_KEY_CTX(e[i].key), parent - 1,
			   ktau_fid_name(parent - 1), fid, ktau_fid_name(fid),
			   e[i].calls, e[i].incl, e[i].excl);
	}
	ktau_print_events(m, e, blk->count);
}

static int ktau_print_snapshot(struct seq_file *m, const char *scope,
			       ktau_fill_fn fill, void *arg)
{
	struct ktau_snapshot snap = { };
	unsigned int b;
	int ret;

	ret = ktau_snapshot_take(&snap, fill, arg);
	if (ret)
		goto out;
	ktau_print_header(m, scope);
	for (b = 0; b < snap.nr_blocks; b++)
		ktau_print_block(m, &snap, &snap.block[b]);
	seq_puts(m, "end\n");
out:
	ktau_snapshot_free(&snap);
	return ret;
}

struct ktau_fill_task {
	struct task_struct *task;
	struct pid_namespace *ns;
};

static void ktau_fill_thread(struct ktau_snapshot *snap, void *arg)
{
	struct ktau_fill_task *ft = arg;
	struct ktau_block *blk = ktau_block_open(snap, KTAU_BLOCK_THREAD);

	blk->pid = task_tgid_nr_ns(ft->task, ft->ns);
	blk->tid = task_pid_nr_ns(ft->task, ft->ns);
	ktau_block_set_comm(blk, ft->task);
	ktau_block_add_task(snap, blk, ft->task);
	ktau_block_close(snap, blk);
}

static void ktau_fill_sig_block(struct ktau_snapshot *snap,
				enum ktau_block_kind kind,
				struct task_struct *leader,
				struct pid_namespace *ns)
{
	struct ktau_signal *ks = READ_ONCE(leader->signal->ktau);
	struct ktau_block *blk = ktau_block_open(snap, kind);

	blk->pid = task_tgid_nr_ns(leader, ns);
	strscpy(blk->comm, "-", sizeof(blk->comm));
	if (ks && kind == KTAU_BLOCK_EXITED) {
		blk->exited_threads = ks->exited_threads;
		blk->dropped = ks->exited_dropped;
		ktau_block_add_table(snap, blk, rcu_dereference(ks->exited));
	} else if (ks && kind == KTAU_BLOCK_CHILDREN) {
		blk->processes = ks->processes;
		blk->dropped = ks->children_dropped;
		ktau_block_add_table(snap, blk, rcu_dereference(ks->children));
	}
	ktau_block_close(snap, blk);
}

static void ktau_fill_group_blocks(struct ktau_snapshot *snap,
				   struct task_struct *leader,
				   struct pid_namespace *ns, bool per_thread)
{
	struct signal_struct *sig = leader->signal;
	struct ktau_signal *ks = READ_ONCE(sig->ktau);
	struct ktau_block *blk;
	struct task_struct *t;

	if (per_thread) {
		__for_each_thread(sig, t) {
			struct ktau_fill_task ft = { .task = t, .ns = ns };

			ktau_fill_thread(snap, &ft);
		}
		ktau_fill_sig_block(snap, KTAU_BLOCK_EXITED, leader, ns);
	} else {
		blk = ktau_block_open(snap, KTAU_BLOCK_PROCESS);
		blk->pid = task_tgid_nr_ns(leader, ns);
		blk->tid = blk->pid;
		ktau_block_set_comm(blk, leader);
		__for_each_thread(sig, t) {
			blk->threads++;
			ktau_block_add_task(snap, blk, t);
		}
		if (ks) {
			blk->exited_threads = ks->exited_threads;
			blk->dropped += ks->exited_dropped;
			ktau_block_add_table(snap, blk, rcu_dereference(ks->exited));
		}
		ktau_block_close(snap, blk);
	}
	ktau_fill_sig_block(snap, KTAU_BLOCK_CHILDREN, leader, ns);
}

/*
 * Fill @leader's process under its stats_lock seqlock, so that a thread
 * exiting meanwhile is counted once: live or folded into the exited
 * total.  If the lockless pass raced, fill again under the lock, as
 * /proc/<pid>/io does.
 */
static void ktau_fill_group(struct ktau_snapshot *snap,
			    struct task_struct *leader,
			    struct pid_namespace *ns, bool per_thread)
{
	struct signal_struct *sig = leader->signal;
	struct ktau_snapshot mark = *snap;
	unsigned long flags;
	unsigned int seq;

	seq = read_seqbegin(&sig->stats_lock);
	ktau_fill_group_blocks(snap, leader, ns, per_thread);
	if (!read_seqretry(&sig->stats_lock, seq))
		return;
	ktau_snapshot_rewind(snap, &mark);
	read_seqlock_excl_irqsave(&sig->stats_lock, flags);
	ktau_fill_group_blocks(snap, leader, ns, per_thread);
	read_sequnlock_excl_irqrestore(&sig->stats_lock, flags);
}

static void ktau_fill_process(struct ktau_snapshot *snap, void *arg)
{
	struct ktau_fill_task *ft = arg;

	ktau_fill_group(snap, ft->task, ft->ns, false);
}

/* The permission rule of /proc/<pid>/io, for the same reasons. */
static int ktau_show_task(struct seq_file *m, struct pid_namespace *ns,
			  struct task_struct *task, bool whole)
{
	struct ktau_fill_task ft = { .task = task, .ns = ns };
	int ret;

	ret = down_read_killable(&task->signal->exec_update_lock);
	if (ret)
		return ret;
	if (!ptrace_may_access(task, PTRACE_MODE_READ_FSCREDS)) {
		ret = -EACCES;
		goto out;
	}
	if (whole)
		ret = ktau_print_snapshot(m, "process", ktau_fill_process, &ft);
	else
		ret = ktau_print_snapshot(m, "thread", ktau_fill_thread, &ft);
out:
	up_read(&task->signal->exec_update_lock);
	return ret;
}

int proc_tid_ktau(struct seq_file *m, struct pid_namespace *ns,
		  struct pid *pid, struct task_struct *task)
{
	return ktau_show_task(m, ns, task, false);
}

int proc_tgid_ktau(struct seq_file *m, struct pid_namespace *ns,
		   struct pid *pid, struct task_struct *task)
{
	return ktau_show_task(m, ns, task, true);
}

static void ktau_fill_system(struct ktau_snapshot *snap, void *arg)
{
	struct pid_namespace *ns = arg;
	struct task_struct *p;

	for_each_process(p) {
		if (!task_tgid_nr_ns(p, ns))
			continue;
		if (!ptrace_may_access(p, PTRACE_MODE_READ_FSCREDS))
			continue;
		ktau_fill_group(snap, p, ns, true);
	}
}

static int ktau_profile_show(struct seq_file *m, void *v)
{
	struct pid_namespace *ns = proc_pid_ns(file_inode(m->file)->i_sb);

	return ktau_print_snapshot(m, "system", ktau_fill_system, ns);
}

static int ktau_functions_show(struct seq_file *m, void *v)
{
	unsigned int fid, nr = ktau_nr_fids();

	seq_printf(m, "ktau-functions %d\n", KTAU_FORMAT_VERSION);
	seq_puts(m, "columns fid group name\n");
	for (fid = 0; fid < nr; fid++) {
		const char *name = ktau_fid_name(fid);

		/* Unused syscall numbers are not functions of their own. */
		if (fid != KTAU_FID_NI_SYSCALL && !strcmp(name, "ni_syscall"))
			continue;
		seq_printf(m, "%u %s %s\n", fid,
			   ktau_group_name(ktau_fid_group(fid)), name);
	}
	seq_puts(m, "end\n");
	return 0;
}

int __init ktau_proc_init(void)
{
	struct proc_dir_entry *dir;

	dir = proc_mkdir("ktau", NULL);
	if (!dir)
		return -ENOMEM;
	if (!proc_create_single("functions", 0444, dir, ktau_functions_show) ||
	    !proc_create_single("profile", 0444, dir, ktau_profile_show))
		return -ENOMEM;
	return ktau_control_init(dir);
}
