// SPDX-License-Identifier: GPL-2.0
/*
 * KTAU /proc interface: /proc/<pid>/ktau, /proc/<pid>/task/<tid>/ktau,
 * /proc/ktau/profile and /proc/ktau/functions, in the versioned text
 * format of docs/proc-format.md.
 *
 * A profile file is a seq_file iterator over the lines of a view (see
 * view.c), up to KTAU_RECORD_LINES lines of a block to a record: built
 * when the file is read from its start, per process for
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
#include <linux/unaligned.h>

#include "view.h"

#define KTAU_FORMAT_VERSION	2
/* The most one read() of a profile file returns. */
#define KTAU_READ_CHUNK		SZ_64K
/*
 * The lines of a block one seq_file record holds at most: a thread's
 * few lines are one record, not a step of the iterator per line, and a
 * record stays far smaller than the buffer (lines are shorter than 256
 * bytes: names are at most KTAU_NAME_MAX bytes).
 */
#define KTAU_RECORD_LINES	64

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

/* The start of a block's first line, and its length (ktau_proc_init()) */
static const char *const ktau_block_kinds[] = {
	[KTAU_BLOCK_THREAD]	= "task kind=thread",
	[KTAU_BLOCK_PROCESS]	= "task kind=process",
	[KTAU_BLOCK_EXITED]	= "task kind=exited",
	[KTAU_BLOCK_CHILDREN]	= "task kind=children",
};

static unsigned int ktau_block_kind_len[ARRAY_SIZE(ktau_block_kinds)]
	__ro_after_init;

/* Where the iterator is: the lines of a block, in this order. */
enum ktau_section {
	KTAU_SEC_TASK,
	KTAU_SEC_FUNC,
	KTAU_SEC_PATH,
	KTAU_SEC_EVENT,
	KTAU_SEC_OPEN,
	KTAU_NR_SECTIONS,
};

/* A function id's name and group (registered ids never change). */
struct ktau_fid_seen {
	const char *name;		/* NULL: not looked up yet */
	u16 name_len;
	u8 group;			/* KTAU_NR_GROUPS: none */
};

/* A line's function: its name and group, with their lengths. */
struct ktau_fid_names {
	const char *name;
	const char *group;
	unsigned int name_len;
	unsigned int group_len;
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
	loff_t pos;			/* the record the cursor is at */
	enum ktau_stage stage;
	unsigned int block;
	enum ktau_section section;
	unsigned int index;
	unsigned int ready;		/* the block readied, + 1; 0: none */
	bool built;
	/* what the lines need of each fid and group, looked up once */
	struct ktau_fid_seen *fid_seen;
	unsigned int nr_fid_seen;
	const char *group_name[KTAU_NR_GROUPS + 1];
	u8 group_len[KTAU_NR_GROUPS + 1];
	/* the line being printed (not on the stack, which is cleared) */
	struct ktau_fid_names names;
	u16 path[KTAU_MAX_DEPTH];
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

static inline unsigned int ktau_section_size(const struct ktau_reader *r,
					     const struct ktau_block *blk,
					     enum ktau_section sec)
{
	switch (sec) {
	case KTAU_SEC_TASK:
		return 1;
	case KTAU_SEC_FUNC:
		return r->view.nr_flat;
	case KTAU_SEC_PATH:
		return blk->nrec;
	case KTAU_SEC_EVENT:
		return r->view.nr_event ? blk->nrec : 0;
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
			if (r->section < KTAU_NR_SECTIONS) {
				if (r->index < ktau_section_size(r, blk,
								 r->section))
					return 0;
				r->index = 0;
				r->section++;
				continue;
			}
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

static void ktau_print_line(struct seq_file *m, struct ktau_reader *r,
			    const struct ktau_block *blk,
			    enum ktau_section sec, unsigned int i);

/*
 * Step over the lines of the cursor's block from (*@sec, *@index), at
 * most KTAU_RECORD_LINES of them, printing them to @m if not NULL: one
 * seq_file record.  Stops at the next line to print, or with *@sec at
 * KTAU_NR_SECTIONS at the end of the block.
 */
static void ktau_cursor_walk(struct ktau_reader *r, enum ktau_section *sec,
			     unsigned int *index, struct seq_file *m)
{
	const struct ktau_block *blk = &r->view.block[r->block];
	unsigned int lines = KTAU_RECORD_LINES, size, n, i;

	for (; *sec < KTAU_NR_SECTIONS; (*sec)++, *index = 0) {
		size = ktau_section_size(r, blk, *sec);
		n = min(size > *index ? size - *index : 0, lines);
		for (i = 0; m && i < n; i++)
			ktau_print_line(m, r, blk, *sec, *index + i);
		*index += n;
		lines -= n;
		if (*index < size)
			return;
	}
}

static int ktau_cursor_next(struct ktau_reader *r)
{
	int ret;

	switch (r->stage) {
	case KTAU_STAGE_HEADER:
		r->stage = KTAU_STAGE_BLOCKS;
		break;
	case KTAU_STAGE_BLOCKS:
		ktau_cursor_walk(r, &r->section, &r->index, NULL);
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
	seq_printf(m, "tsc_khz %u\n", ktau_arch_clock_khz());
	seq_printf(m, "scope %s\n", ktau_scope_names[scope]);
	seq_puts(m, "columns func ctx fid name group calls incl_cycles excl_cycles\n");
	seq_puts(m, "columns path ctx fids name group calls incl_cycles excl_cycles\n");
	seq_puts(m, "columns event ctx fid name count min max sum sumsq\n");
	seq_puts(m, "columns open tid ctx fids name group incl_cycles excl_cycles\n");
}

/*
 * Lines are written straight into the seq_file buffer, field by field:
 * neither seq_printf()'s format parsing nor a call and a bounds check
 * per field, for a system profile has a few lines per task.  A line
 * starts only with room for its longest form; else it marks the buffer
 * overflowed, as seq_printf() does, and seq_read() prints its record
 * again into a bigger buffer or the next read's.
 */
#define KTAU_LINE_ROOM		384	/* keywords, 16 numbers, a comm */

static char *ktau_line_start(struct seq_file *m, size_t room)
{
	if (m->size - m->count < room) {
		m->count = m->size;	/* what seq_has_overflowed() tests */
		return NULL;
	}
	return m->buf + m->count;
}

static void ktau_line_end(struct seq_file *m, char *p)
{
	*p++ = '\n';
	m->count = p - m->buf;
}

static char *ktau_put_mem(char *p, const char *s, size_t len)
{
	memcpy(p, s, len);
	return p + len;
}

/* A string literal, whose length is known at build time. */
#define ktau_put_lit(p, s)	ktau_put_mem(p, s, sizeof(s) - 1)

/* "00", "01", ... "99": two digits at a time (ktau_proc_init() writes them) */
static u16 ktau_digit_pairs[100] __ro_after_init;

static const u64 ktau_pow10[20] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
	10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
	100000000000ULL, 1000000000000ULL, 10000000000000ULL,
	100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
	100000000000000000ULL, 1000000000000000000ULL,
	10000000000000000000ULL,
};

/* @n >= 10 in decimal, as "%llu" prints it: at most 20 bytes. */
static char *ktau_put_dec(char *p, u64 n)
{
	unsigned int t, d;
	char *end, *q;

	/* the digits: floor(log10(n)) + 1, from the bit length */
	t = (fls64(n) * 1233) >> 12;
	end = p + t + 1 - (n < ktau_pow10[t]);
	for (q = end; n >= 10000; n /= 10000) {
		d = n % 10000;
		q -= 4;
		put_unaligned(ktau_digit_pairs[d / 100], (u16 *)q);
		put_unaligned(ktau_digit_pairs[d % 100], (u16 *)(q + 2));
	}
	if (n >= 100) {
		q -= 2;
		put_unaligned(ktau_digit_pairs[n % 100], (u16 *)q);
		n /= 100;
	}
	if (n >= 10)
		put_unaligned(ktau_digit_pairs[n], (u16 *)(q - 2));
	else
		q[-1] = '0' + n;
	return end;
}

/* @sep, then @n: at most 21 bytes; one digit (most counts) inline. */
static __always_inline char *ktau_put_u64(char *p, char sep, u64 n)
{
	*p++ = sep;
	if (n >= 10)
		return ktau_put_dec(p, n);
	*p = '0' + n;
	return p + 1;
}

/* pids are never negative: "%d" prints them as "%u" does. */
static char *ktau_put_pid(char *p, char sep, pid_t pid)
{
	return ktau_put_u64(p, sep, (u32)pid);
}

/* The names of function @fid and its group, with their lengths. */
static void ktau_names(struct ktau_reader *r, unsigned int fid,
		       struct ktau_fid_names *n)
{
	struct ktau_fid_seen *seen = fid < r->nr_fid_seen ?
				     &r->fid_seen[fid] : NULL;
	int group;

	if (seen && seen->name) {
		n->name = seen->name;
		n->name_len = seen->name_len;
		group = seen->group;
	} else {
		n->name = ktau_fid_name(fid);
		n->name_len = strlen(n->name);
		group = ktau_fid_group(fid);
		if (group < 0 || group >= KTAU_NR_GROUPS)
			group = KTAU_NR_GROUPS;
		if (seen) {
			seen->name = n->name;
			seen->name_len = n->name_len;
			seen->group = group;
		}
	}
	n->group = r->group_name[group];
	n->group_len = r->group_len[group];
}

/* " name group" */
static char *ktau_put_names(char *p, const struct ktau_fid_names *n)
{
	*p++ = ' ';
	p = ktau_put_mem(p, n->name, n->name_len);
	*p++ = ' ';
	return ktau_put_mem(p, n->group, n->group_len);
}

static void ktau_print_task(struct seq_file *m, const struct ktau_block *blk)
{
	char *p = ktau_line_start(m, KTAU_LINE_ROOM);

	if (!p)
		return;
	p = ktau_put_mem(p, ktau_block_kinds[blk->kind],
			 ktau_block_kind_len[blk->kind]);
	p = ktau_put_lit(p, " pid");
	p = ktau_put_pid(p, '=', blk->pid);
	p = ktau_put_lit(p, " tid");
	p = ktau_put_pid(p, '=', blk->tid);
	p = ktau_put_lit(p, " comm=");
	p = ktau_put_mem(p, blk->comm, blk->comm_len);
	switch (blk->kind) {
	case KTAU_BLOCK_PROCESS:
		p = ktau_put_lit(p, " threads");
		p = ktau_put_u64(p, '=', blk->threads);
		p = ktau_put_lit(p, " exited_threads");
		p = ktau_put_u64(p, '=', blk->exited_threads);
		break;
	case KTAU_BLOCK_EXITED:
		p = ktau_put_lit(p, " exited_threads");
		p = ktau_put_u64(p, '=', blk->exited_threads);
		break;
	case KTAU_BLOCK_CHILDREN:
		p = ktau_put_lit(p, " processes");
		p = ktau_put_u64(p, '=', blk->processes);
		p = ktau_put_lit(p, " private");
		p = ktau_put_u64(p, '=', blk->private_processes);
		p = ktau_put_lit(p, " pending");
		p = ktau_put_u64(p, '=', blk->pending);
		break;
	default:
		break;
	}
	p = ktau_put_lit(p, " dropped");
	p = ktau_put_u64(p, '=', blk->dropped);
	ktau_line_end(m, p);
}

/* " calls incl excl" of a record. */
static char *ktau_put_counts(char *p, const struct ktau_view_entry *e)
{
	p = ktau_put_u64(p, ' ', e->calls);
	p = ktau_put_u64(p, ' ', e->incl);
	return ktau_put_u64(p, ' ', e->excl);
}

/* " ctx f1,f2,...,fn name group" of a callpath, at most 8 fids. */
static char *ktau_put_path(char *p, u32 ctx, const u16 *fid,
			   unsigned int depth,
			   const struct ktau_fid_names *n)
{
	unsigned int i;

	p = ktau_put_u64(p, ' ', ctx);
	for (i = 0; i < depth; i++)
		p = ktau_put_u64(p, i ? ',' : ' ', fid[i]);
	return ktau_put_names(p, n);
}

static void ktau_print_func(struct seq_file *m, struct ktau_reader *r,
			    const struct ktau_view_entry *e)
{
	unsigned int fid = KTAU_KEY_FID(e->key);
	struct ktau_fid_names *n = &r->names;
	char *p;

	if (!e->calls)
		return;
	ktau_names(r, fid, n);
	p = ktau_line_start(m, KTAU_LINE_ROOM + n->name_len + n->group_len);
	if (!p)
		return;
	p = ktau_put_lit(p, "func");
	p = ktau_put_u64(p, ' ', KTAU_KEY_CTX(e->key));
	p = ktau_put_u64(p, ' ', fid);
	p = ktau_put_names(p, n);
	p = ktau_put_counts(p, e);
	ktau_line_end(m, p);
}

static void ktau_print_callpath(struct seq_file *m, struct ktau_reader *r,
				const struct ktau_view_entry *rec,
				unsigned int nrec, unsigned int i)
{
	struct ktau_fid_names *n = &r->names;
	u16 *fid = r->path;
	unsigned int depth;
	char *p;
	u32 ctx;

	if (!rec[i].key || ktau_view_key_is_event(rec[i].key))
		return;
	depth = ktau_view_path(rec, nrec, i + 1, fid, &ctx);
	ktau_names(r, fid[depth - 1], n);
	p = ktau_line_start(m, KTAU_LINE_ROOM + n->name_len + n->group_len);
	if (!p)
		return;
	p = ktau_put_lit(p, "path");
	p = ktau_put_path(p, ctx, fid, depth, n);
	p = ktau_put_counts(p, &rec[i]);
	ktau_line_end(m, p);
}

/* An event's sum record, printed with its range record. */
static void ktau_print_event(struct seq_file *m, struct ktau_reader *r,
			     const struct ktau_block *blk, unsigned int i)
{
	const struct ktau_view_entry *sum = &ktau_block_recs(&r->view, blk)[i];
	unsigned int fid = KTAU_KEY_FID(sum->key);
	u32 ctx = KTAU_KEY_CTX(sum->key);
	struct ktau_fid_names *n = &r->names;
	const struct ktau_view_entry *range;
	char *p;

	if (!sum->key || KTAU_KEY_PARENT(sum->key) != KTAU_EVENT_SUM ||
	    !sum->calls)
		return;
	range = ktau_view_lookup(&r->view, blk,
				 KTAU_KEY(ctx, KTAU_EVENT_RANGE, fid));
	if (!range || !range->calls)
		return;
	ktau_names(r, fid, n);
	p = ktau_line_start(m, KTAU_LINE_ROOM + n->name_len);
	if (!p)
		return;
	p = ktau_put_lit(p, "event");
	p = ktau_put_u64(p, ' ', ctx);
	p = ktau_put_u64(p, ' ', fid);
	*p++ = ' ';
	p = ktau_put_mem(p, n->name, n->name_len);
	p = ktau_put_u64(p, ' ', sum->calls);
	p = ktau_put_u64(p, ' ', range->incl);
	p = ktau_put_u64(p, ' ', range->excl);
	p = ktau_put_u64(p, ' ', sum->incl);
	p = ktau_put_u64(p, ' ', sum->excl);
	ktau_line_end(m, p);
}

static void ktau_print_open(struct seq_file *m, struct ktau_reader *r,
			    const struct ktau_open_frame *o)
{
	struct ktau_fid_names *n = &r->names;
	char *p;

	ktau_names(r, o->fid[o->depth - 1], n);
	p = ktau_line_start(m, KTAU_LINE_ROOM + n->name_len + n->group_len);
	if (!p)
		return;
	p = ktau_put_lit(p, "open");
	p = ktau_put_pid(p, ' ', o->tid);
	p = ktau_put_path(p, o->ctx, o->fid, o->depth, n);
	p = ktau_put_u64(p, ' ', o->incl);
	p = ktau_put_u64(p, ' ', o->excl);
	ktau_line_end(m, p);
}

/* Line @i of section @sec of block @blk. */
static void ktau_print_line(struct seq_file *m, struct ktau_reader *r,
			    const struct ktau_block *blk,
			    enum ktau_section sec, unsigned int i)
{
	const struct ktau_view *v = &r->view;

	switch (sec) {
	case KTAU_SEC_TASK:
		ktau_print_task(m, blk);
		break;
	case KTAU_SEC_FUNC:
		ktau_print_func(m, r, &v->flat[i]);
		break;
	case KTAU_SEC_PATH:
		ktau_print_callpath(m, r, ktau_block_recs(v, blk), blk->nrec, i);
		break;
	case KTAU_SEC_EVENT:
		ktau_print_event(m, r, blk, i);
		break;
	case KTAU_SEC_OPEN:
		ktau_print_open(m, r, &v->open[blk->open + i]);
		break;
	default:
		break;
	}
}

static int ktau_seq_show(struct seq_file *m, void *v)
{
	struct ktau_reader *r = v;
	enum ktau_section sec;
	unsigned int index;

	switch (r->stage) {
	case KTAU_STAGE_HEADER:
		ktau_print_header(m, r->scope);
		return 0;
	case KTAU_STAGE_END:
		seq_puts(m, "end\n");
		return 0;
	case KTAU_STAGE_BLOCKS:
		sec = r->section;
		index = r->index;
		ktau_cursor_walk(r, &sec, &index, m);
		return 0;
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
	unsigned int g;

	r = __seq_open_private(file, &ktau_seq_ops, sizeof(*r));
	if (!r)
		return -ENOMEM;
	for (g = 0; g <= KTAU_NR_GROUPS; g++) {
		r->group_name[g] = ktau_group_name(g);
		r->group_len[g] = strlen(r->group_name[g]);
	}
	/* the system's lines name few fids many times; without, each looks */
	if (scope == KTAU_SCOPE_SYSTEM) {
		r->nr_fid_seen = ktau_nr_fids();
		r->fid_seen = kvcalloc(r->nr_fid_seen, sizeof(*r->fid_seen),
				       GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
		if (!r->fid_seen)
			r->nr_fid_seen = 0;
	}
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
	kvfree(r->fid_seen);
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
		/* every tool reads this file: no format string to parse */
		seq_put_decimal_ull(m, "", fid);
		seq_putc(m, ' ');
		seq_puts(m, ktau_group_name(ktau_fid_group(fid)));
		seq_putc(m, ' ');
		seq_puts(m, name);
		seq_putc(m, '\n');
	}
	seq_puts(m, "end\n");
	return 0;
}

/*
 * The bytes a line of the functions file takes at most, but for a long
 * run-time name: seq_read() starts with a page and, each time the file
 * does not fit, formats all of it again into twice the room (three times
 * for the system call table alone), so the buffer is sized from the
 * start.
 */
#define KTAU_FUNCTIONS_LINE_BYTES	40

static int ktau_functions_open(struct inode *inode, struct file *file)
{
	return single_open_size(file, ktau_functions_show, NULL,
				(ktau_nr_fids() + 3) *
				KTAU_FUNCTIONS_LINE_BYTES);
}

static const struct proc_ops ktau_functions_ops = {
	.proc_open	= ktau_functions_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
};

int __init ktau_proc_init(void)
{
	struct proc_dir_entry *dir;
	unsigned int i;

	for (i = 0; i < 100; i++) {
		char *pair = (char *)&ktau_digit_pairs[i];

		pair[0] = '0' + i / 10;
		pair[1] = '0' + i % 10;
	}
	for (i = 0; i < ARRAY_SIZE(ktau_block_kinds); i++)
		ktau_block_kind_len[i] = strlen(ktau_block_kinds[i]);

	dir = proc_mkdir("ktau", NULL);
	if (!dir)
		return -ENOMEM;
	if (!proc_create("functions", 0444, dir, &ktau_functions_ops) ||
	    !proc_create("profile", 0444, dir, &ktau_profile_ops))
		return -ENOMEM;
	return ktau_control_init(dir);
}
