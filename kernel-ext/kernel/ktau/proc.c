// SPDX-License-Identifier: GPL-2.0
/*
 * KTAU /proc interface: /proc/<pid>/ktau, /proc/<pid>/task/<tid>/ktau,
 * /proc/ktau/profile and /proc/ktau/functions, in the versioned text
 * format of docs/proc-format.md.
 *
 * A profile file is a seq_file iterator over the lines of a view (see
 * view.c): built when the file is read from its start, per process for
 * /proc/ktau/profile as the reader goes, and handed out at most 64 KiB
 * per read(), so no read keeps a CPU or a lock for long however large the
 * profile is, and nothing is built twice.
 */
#include <linux/pid_namespace.h>
#include <linux/proc_fs.h>
#include <linux/ptrace.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <asm/tsc.h>

#include "view.h"

#define KTAU_FORMAT_VERSION	2
/* The most one read() of a profile file returns. */
#define KTAU_READ_CHUNK		SZ_64K

enum ktau_scope {
	KTAU_SCOPE_THREAD,
	KTAU_SCOPE_PROCESS,
	KTAU_SCOPE_SYSTEM,
};

static const char *const ktau_scope_names[] = {
	[KTAU_SCOPE_THREAD]	= "thread",
	[KTAU_SCOPE_PROCESS]	= "process",
	[KTAU_SCOPE_SYSTEM]	= "system",
};

static const char *const ktau_block_kinds[] = {
	[KTAU_BLOCK_THREAD]	= "thread",
	[KTAU_BLOCK_PROCESS]	= "process",
	[KTAU_BLOCK_EXITED]	= "exited",
	[KTAU_BLOCK_CHILDREN]	= "children",
};

/* Where the iterator is: the lines of a block, in this order. */
enum ktau_section {
	KTAU_SEC_TASK,
	KTAU_SEC_FUNC,
	KTAU_SEC_PATH,
	KTAU_SEC_EVENT,
	KTAU_SEC_OPEN,
	KTAU_NR_SECTIONS,
};

enum ktau_stage {
	KTAU_STAGE_HEADER,
	KTAU_STAGE_BLOCKS,
	KTAU_STAGE_END,
	KTAU_STAGE_DONE,
};

struct ktau_reader {
	enum ktau_scope scope;
	struct pid_namespace *ns;
	struct pid *pid;		/* thread and process scopes */
	int next_tgid;			/* system scope: the walk goes on here */
	struct ktau_view view;
	loff_t pos;			/* the line the cursor is at */
	enum ktau_stage stage;
	unsigned int block;
	enum ktau_section section;
	unsigned int index;
	unsigned int ready;		/* the block readied, + 1; 0: none */
	bool built;
};

/* ---- building ---------------------------------------------------------- */

/*
 * The permission rule of /proc/<pid>/io, checked under the task's
 * exec_update_lock so that a concurrent exec cannot change what is read.
 * /proc/ktau/profile skips what it may not read without auditing it.
 */
static int ktau_build_task(struct ktau_reader *r, struct task_struct *task,
			   unsigned int mode)
{
	int ret;

	ret = down_read_killable(&task->signal->exec_update_lock);
	if (ret)
		return ret;
	if (!ptrace_may_access(task, mode)) {
		ret = -EACCES;
	} else if (r->scope == KTAU_SCOPE_THREAD) {
		ret = ktau_view_thread(&r->view, task, r->ns);
	} else {
		ret = ktau_view_process(&r->view, task, r->ns,
					r->scope == KTAU_SCOPE_SYSTEM);
	}
	up_read(&task->signal->exec_update_lock);
	return ret;
}

static int ktau_build_pid(struct ktau_reader *r)
{
	struct task_struct *task;
	int ret;

	rcu_read_lock();
	task = pid_task(r->pid, PIDTYPE_PID);
	if (task)
		get_task_struct(task);
	rcu_read_unlock();
	if (!task)
		return -ESRCH;
	ret = ktau_build_task(r, task, PTRACE_MODE_READ_FSCREDS);
	put_task_struct(task);
	return ret;
}

/*
 * The next process of the system scope the reader may read, as
 * /proc's own readdir finds them; 0 when there are no more.
 */
static int ktau_build_next_process(struct ktau_reader *r, bool *more)
{
	struct task_struct *task;
	struct pid *pid;
	int ret;

	for (;;) {
		rcu_read_lock();
		for (task = NULL; !task; r->next_tgid++) {
			pid = find_ge_pid(r->next_tgid, r->ns);
			if (!pid)
				break;
			r->next_tgid = pid_nr_ns(pid, r->ns);
			task = pid_task(pid, PIDTYPE_TGID);
			if (task)
				get_task_struct(task);
		}
		rcu_read_unlock();
		*more = task;
		if (!task)
			return 0;
		ret = ktau_build_task(r, task, PTRACE_MODE_READ_FSCREDS |
					       PTRACE_MODE_NOAUDIT);
		put_task_struct(task);
		if (ret != -EACCES)
			return ret;
		ktau_view_reset(&r->view);
		cond_resched();
	}
}

/* ---- the cursor ---------------------------------------------------------- */

static unsigned int ktau_section_size(const struct ktau_reader *r,
				      const struct ktau_block *blk)
{
	switch (r->section) {
	case KTAU_SEC_TASK:
		return 1;
	case KTAU_SEC_FUNC:
		return r->view.nr_flat;
	case KTAU_SEC_PATH:
	case KTAU_SEC_EVENT:
		return blk->nrec;
	case KTAU_SEC_OPEN:
		return blk->nr_open;
	default:
		return 0;
	}
}

static void ktau_cursor_reset(struct ktau_reader *r)
{
	ktau_view_reset(&r->view);
	r->pos = 0;
	r->stage = KTAU_STAGE_HEADER;
	r->block = 0;
	r->section = KTAU_SEC_TASK;
	r->index = 0;
	r->ready = 0;
	r->next_tgid = 1;
	r->built = false;
}

/*
 * Move the cursor past sections and blocks that are used up, building
 * the next process's blocks in the system scope.  Returns 0 or an error.
 */
static int ktau_cursor_settle(struct ktau_reader *r)
{
	bool more;
	int ret;

	while (r->stage == KTAU_STAGE_BLOCKS) {
		if (r->block < r->view.nr_blocks) {
			const struct ktau_block *blk = &r->view.block[r->block];

			if (r->ready != r->block + 1) {
				ret = ktau_view_ready(&r->view, r->block);
				if (ret)
					return ret;
				r->ready = r->block + 1;
			}
			if (r->index < ktau_section_size(r, blk))
				return 0;
			r->index = 0;
			if (++r->section < KTAU_NR_SECTIONS)
				continue;
			r->section = KTAU_SEC_TASK;
			r->block++;
			continue;
		}
		if (r->scope != KTAU_SCOPE_SYSTEM) {
			r->stage = KTAU_STAGE_END;
			break;
		}
		ktau_view_reset(&r->view);
		r->block = 0;
		r->ready = 0;
		ret = ktau_build_next_process(r, &more);
		if (ret)
			return ret;
		if (!more)
			r->stage = KTAU_STAGE_END;
	}
	return 0;
}

static int ktau_cursor_next(struct ktau_reader *r)
{
	int ret;

	switch (r->stage) {
	case KTAU_STAGE_HEADER:
		r->stage = KTAU_STAGE_BLOCKS;
		break;
	case KTAU_STAGE_BLOCKS:
		r->index++;
		break;
	case KTAU_STAGE_END:
		r->stage = KTAU_STAGE_DONE;
		break;
	case KTAU_STAGE_DONE:
		return 0;
	}
	r->pos++;
	ret = ktau_cursor_settle(r);
	/* the next read builds again from the start */
	if (ret)
		r->built = false;
	return ret;
}

static void *ktau_seq_start(struct seq_file *m, loff_t *pos)
{
	struct ktau_reader *r = m->private;
	int ret;

	if (*pos < r->pos || !r->built) {
		ktau_cursor_reset(r);
		r->built = true;
		if (r->scope != KTAU_SCOPE_SYSTEM) {
			ret = ktau_build_pid(r);
			if (ret) {
				r->built = false;
				return ERR_PTR(ret);
			}
		}
	}
	while (r->pos < *pos && r->stage != KTAU_STAGE_DONE) {
		ret = ktau_cursor_next(r);
		if (ret)
			return ERR_PTR(ret);
	}
	return r->stage == KTAU_STAGE_DONE ? NULL : r;
}

static void *ktau_seq_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct ktau_reader *r = m->private;
	int ret = ktau_cursor_next(r);

	*pos = r->pos;
	if (ret)
		return ERR_PTR(ret);
	return r->stage == KTAU_STAGE_DONE ? NULL : r;
}

static void ktau_seq_stop(struct seq_file *m, void *v)
{
}

/* ---- printing ------------------------------------------------------------ */

static void ktau_print_header(struct seq_file *m, enum ktau_scope scope)
{
	seq_printf(m, "ktau-profile %d\n", KTAU_FORMAT_VERSION);
	seq_printf(m, "tsc_khz %u\n", tsc_khz);
	seq_printf(m, "scope %s\n", ktau_scope_names[scope]);
	seq_puts(m, "columns func ctx fid name group calls incl_cycles excl_cycles\n");
	seq_puts(m, "columns path ctx fids name group calls incl_cycles excl_cycles\n");
	seq_puts(m, "columns event ctx fid name count min max sum sumsq\n");
	seq_puts(m, "columns open tid ctx fids name group incl_cycles excl_cycles\n");
}

/*
 * Lines are printed field by field (seq_put_decimal_ull() and friends),
 * not through seq_printf()'s format parsing: a system profile has a few
 * lines per task.
 */
static void ktau_print_task(struct seq_file *m, const struct ktau_block *blk)
{
	seq_puts(m, "task kind=");
	seq_puts(m, ktau_block_kinds[blk->kind]);
	seq_put_decimal_ll(m, " pid=", blk->pid);
	seq_put_decimal_ll(m, " tid=", blk->tid);
	seq_puts(m, " comm=");
	seq_puts(m, blk->comm);
	switch (blk->kind) {
	case KTAU_BLOCK_PROCESS:
		seq_put_decimal_ull(m, " threads=", blk->threads);
		seq_put_decimal_ull(m, " exited_threads=", blk->exited_threads);
		break;
	case KTAU_BLOCK_EXITED:
		seq_put_decimal_ull(m, " exited_threads=", blk->exited_threads);
		break;
	case KTAU_BLOCK_CHILDREN:
		seq_put_decimal_ull(m, " processes=", blk->processes);
		seq_put_decimal_ull(m, " private=", blk->private_processes);
		break;
	default:
		break;
	}
	seq_put_decimal_ull(m, " dropped=", blk->dropped);
	seq_putc(m, '\n');
}

/* " name group" of function @fid. */
static void ktau_print_name(struct seq_file *m, unsigned int fid)
{
	seq_putc(m, ' ');
	seq_puts(m, ktau_fid_name(fid));
	seq_putc(m, ' ');
	seq_puts(m, ktau_group_name(ktau_fid_group(fid)));
}

/* " ctx f1,f2,...,fn name group" of a callpath. */
static void ktau_print_path(struct seq_file *m, u32 ctx, const u16 *fid,
			    unsigned int depth)
{
	unsigned int i;

	seq_put_decimal_ull(m, " ", ctx);
	for (i = 0; i < depth; i++)
		seq_put_decimal_ull(m, i ? "," : " ", fid[i]);
	ktau_print_name(m, fid[depth - 1]);
}

/* " calls incl excl" of a record, and the end of its line. */
static void ktau_print_counts(struct seq_file *m, const struct ktau_entry *e)
{
	seq_put_decimal_ull(m, " ", e->calls);
	seq_put_decimal_ull(m, " ", e->incl);
	seq_put_decimal_ull(m, " ", e->excl);
	seq_putc(m, '\n');
}

static int ktau_show_func(struct seq_file *m, const struct ktau_entry *e)
{
	unsigned int fid = KTAU_KEY_FID(e->key);

	if (!e->calls)
		return SEQ_SKIP;
	seq_puts(m, "func");
	seq_put_decimal_ull(m, " ", KTAU_KEY_CTX(e->key));
	seq_put_decimal_ull(m, " ", fid);
	ktau_print_name(m, fid);
	ktau_print_counts(m, e);
	return 0;
}

static int ktau_show_path(struct seq_file *m, const struct ktau_entry *rec,
			  unsigned int nrec, unsigned int i)
{
	u16 fid[KTAU_MAX_DEPTH];
	unsigned int depth;
	u32 ctx;

	if (!rec[i].key || ktau_key_is_event(rec[i].key))
		return SEQ_SKIP;
	depth = ktau_view_path(rec, nrec, i + 1, fid, &ctx);
	seq_puts(m, "path");
	ktau_print_path(m, ctx, fid, depth);
	ktau_print_counts(m, &rec[i]);
	return 0;
}

/* An event's sum record, printed with its range record. */
static int ktau_show_event(struct seq_file *m, const struct ktau_view *v,
			   const struct ktau_block *blk, unsigned int i)
{
	const struct ktau_entry *sum = &ktau_block_recs(v, blk)[i], *range;
	unsigned int fid = KTAU_KEY_FID(sum->key);
	u32 ctx = KTAU_KEY_CTX(sum->key);

	if (!sum->key || KTAU_KEY_PARENT(sum->key) != KTAU_EVENT_SUM ||
	    !sum->calls)
		return SEQ_SKIP;
	range = ktau_view_lookup(v, blk, KTAU_KEY(ctx, KTAU_EVENT_RANGE, fid));
	if (!range || !range->calls)
		return SEQ_SKIP;
	seq_puts(m, "event");
	seq_put_decimal_ull(m, " ", ctx);
	seq_put_decimal_ull(m, " ", fid);
	seq_putc(m, ' ');
	seq_puts(m, ktau_fid_name(fid));
	seq_put_decimal_ull(m, " ", sum->calls);
	seq_put_decimal_ull(m, " ", range->incl);
	seq_put_decimal_ull(m, " ", range->excl);
	seq_put_decimal_ull(m, " ", sum->incl);
	seq_put_decimal_ull(m, " ", sum->excl);
	seq_putc(m, '\n');
	return 0;
}

static int ktau_show_open(struct seq_file *m, const struct ktau_open_frame *o)
{
	seq_put_decimal_ll(m, "open ", o->tid);
	ktau_print_path(m, o->ctx, o->fid, o->depth);
	seq_put_decimal_ull(m, " ", o->incl);
	seq_put_decimal_ull(m, " ", o->excl);
	seq_putc(m, '\n');
	return 0;
}

static int ktau_seq_show(struct seq_file *m, void *v)
{
	struct ktau_reader *r = v;
	const struct ktau_block *blk;

	switch (r->stage) {
	case KTAU_STAGE_HEADER:
		ktau_print_header(m, r->scope);
		return 0;
	case KTAU_STAGE_END:
		seq_puts(m, "end\n");
		return 0;
	case KTAU_STAGE_BLOCKS:
		break;
	default:
		return SEQ_SKIP;
	}
	blk = &r->view.block[r->block];
	switch (r->section) {
	case KTAU_SEC_TASK:
		ktau_print_task(m, blk);
		return 0;
	case KTAU_SEC_FUNC:
		return ktau_show_func(m, &r->view.flat[r->index]);
	case KTAU_SEC_PATH:
		return ktau_show_path(m, ktau_block_recs(&r->view, blk),
				      blk->nrec, r->index);
	case KTAU_SEC_EVENT:
		return ktau_show_event(m, &r->view, blk, r->index);
	case KTAU_SEC_OPEN:
		return ktau_show_open(m, &r->view.open[blk->open + r->index]);
	default:
		return SEQ_SKIP;
	}
}

static const struct seq_operations ktau_seq_ops = {
	.start	= ktau_seq_start,
	.next	= ktau_seq_next,
	.stop	= ktau_seq_stop,
	.show	= ktau_seq_show,
};

static int ktau_reader_open(struct file *file, enum ktau_scope scope,
			    struct pid_namespace *ns, struct pid *pid)
{
	struct ktau_reader *r;

	struct seq_file *m;

	r = __seq_open_private(file, &ktau_seq_ops, sizeof(*r));
	if (!r)
		return -ENOMEM;
	/*
	 * A reader of its own profile counts its own read() calls: let one
	 * read() return a typical profile whole (seq_release() frees it).
	 */
	m = file->private_data;
	m->buf = kvmalloc(KTAU_READ_CHUNK, GFP_KERNEL_ACCOUNT);
	if (m->buf)
		m->size = KTAU_READ_CHUNK;
	r->scope = scope;
	r->ns = get_pid_ns(ns);
	r->pid = get_pid(pid);
	return 0;
}

/**
 * ktau_proc_open() - open /proc/<pid>/ktau or /proc/<pid>/task/<tid>/ktau
 * @file: the file being opened
 * @ns: the pid namespace of the /proc instance
 * @task: the task of the /proc directory
 * @whole_process: the process's file (else the thread's)
 *
 * The profile is built when the file is read from its start, with the
 * reader's permissions then.
 *
 * Return: 0 or -ENOMEM.
 */
int ktau_proc_open(struct file *file, struct pid_namespace *ns,
		   struct task_struct *task, bool whole_process)
{
	return ktau_reader_open(file, whole_process ? KTAU_SCOPE_PROCESS :
				KTAU_SCOPE_THREAD, ns, task_pid(task));
}

int ktau_proc_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;
	struct ktau_reader *r = m->private;

	ktau_view_free(&r->view);
	put_pid(r->pid);
	put_pid_ns(r->ns);
	return seq_release_private(inode, file);
}

static int ktau_profile_open(struct inode *inode, struct file *file)
{
	return ktau_reader_open(file, KTAU_SCOPE_SYSTEM,
				proc_pid_ns(inode->i_sb), NULL);
}

static const struct proc_ops ktau_profile_ops = {
	.proc_open	= ktau_profile_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= ktau_proc_release,
};

static int ktau_functions_show(struct seq_file *m, void *v)
{
	unsigned int fid, nr = ktau_nr_fids();

	seq_puts(m, "ktau-functions 1\n");
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
	    !proc_create("profile", 0444, dir, &ktau_profile_ops))
		return -ENOMEM;
	return ktau_control_init(dir);
}
