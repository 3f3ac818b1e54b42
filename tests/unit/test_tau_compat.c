// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ktau's TAU compatibility layer (compat/ktau-tau): read_size/read_data's
 * packing, unpack_bindata, ktau_diff_profiles and aggr_many_profiles
 * against hand-worked buffers and fake /proc trees (KTAU_PROCFS); the
 * shared-counter calls; the names and the System.map TAU reads; the
 * counter rate (ktau_get_tsc).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ktau_proc_interface.h>
#include <linux/ktau/ktau_cont_data.h>

#include "fake_counters.h"
#include "harness.h"
#include "names.h"
#include "proc/proc.h"
#include "testutil.h"

#define ADDR(fid) (0xc1000000UL + 16UL * (fid))

/* Two threads (413 listed first), an exited and a children block: only the
 * threads are tasks.  Thread 412: getpid under two contexts, read, a page
 * fault, the read_bytes event. */
static const char system_text[] =
	"ktau-profile 2\ntsc_khz 1000000\nscope system\n"
	"task kind=thread pid=412 tid=413 comm=t dropped=0\n"
	"func 0 1 write syscall 2 40 30\n"
	"path 0 1 write syscall 2 40 30\n"
	"task kind=thread pid=412 tid=412 comm=t dropped=0\n"
	"func 0 39 getpid syscall 1000 231000 231000\n"
	"func 7 39 getpid syscall 10 100 100\n"
	"func 0 0 read syscall 501 2680500 172000\n"
	"func 0 470 page_fault exception 3 9800 9300\n"
	"path 0 39 getpid syscall 1000 231000 231000\n"
	"path 7 39 getpid syscall 10 100 100\n"
	"path 0 0 read syscall 501 2680500 172000\n"
	"path 0 0,470 page_fault exception 3 9800 9300\n"
	"event 0 480 read_bytes 500 16 16 8000 128000\n"
	"task kind=exited pid=412 tid=0 comm=t exited_threads=1 dropped=0\n"
	"func 0 2 open syscall 9 9 9\n"
	"path 0 2 open syscall 9 9 9\n"
	"task kind=children pid=412 tid=0 comm=- processes=0 private=0 dropped=0\n"
	"end\n";

static const char functions_text[] =
	"ktau-functions 1\ncolumns fid group name\n"
	"0 syscall read\n1 syscall write\n39 syscall getpid\n"
	"463 syscall ia32_waitpid\n"
	"464 softirq TIMER\n465 softirq IRQ_POLL\n466 softirq TASKLET\n"
	"469 irq irq\n470 exception page_fault\n"
	"471 sched schedule_vol\n472 sched schedule_invol\n"
	"480 event read_bytes\n"
	"600 kernel my_driver_op\nend\n";

/* A fake /proc root: ktau/profile, ktau/functions, and KTAU_PROCFS set. */
static char *fake_root(void)
{
	char *root = make_tmpdir();

	if (!root)
		return NULL;
	if (write_tree_file(root, "ktau/profile", system_text) ||
	    write_tree_file(root, "ktau/functions", functions_text) ||
	    setenv("KTAU_PROCFS", root, 1)) {
		remove_tree(root);
		free(root);
		return NULL;
	}
	return root;
}

static void drop_root(char *root)
{
	unsetenv("KTAU_PROCFS");
	if (root)
		remove_tree(root);
	free(root);
}

static uint32_t u32_at(const char *buf, size_t off)
{
	uint32_t v;

	memcpy(&v, buf + off, 4);
	return v;
}

static o_ent ent_at(const char *buf, size_t off)
{
	o_ent e;

	memcpy(&e, buf + off, sizeof(e));
	return e;
}

static bool timer_is(const o_ent *e, unsigned int index, unsigned long addr,
		     unsigned long long count, unsigned long long incl,
		     unsigned long long excl)
{
	return e->index == index && e->entry.addr == addr && e->entry.type == KTAU_TIMER &&
	       e->entry.data.timer.count == count && e->entry.data.timer.incl == incl &&
	       e->entry.data.timer.excl == excl;
}

TEST(tau_compat_read_all_packs_threads_by_tid)
{
	char *root = fake_root();
	long size, got;
	char *buf;
	size_t t2;
	o_ent e;

	ASSERT_NOT_NULL(root);
	size = read_size(KTAU_TYPE_PROFILE, 0, NULL, 0, 0, NULL, -1);
	/* packed: 4 + (8 + 4 entries) + (8 + 1 entry); scaled by 1.5, +64 entries */
	ASSERT_EQ((long)((4 + 16 + 5 * sizeof(o_ent)) * 1.5 + 64 * sizeof(o_ent)), size);
	buf = malloc((size_t)size);
	ASSERT_NOT_NULL(buf);
	got = read_data(KTAU_TYPE_PROFILE, 0, NULL, 0, buf, (unsigned long)size, 0, NULL);
	ASSERT_EQ((long)(4 + 16 + 5 * sizeof(o_ent)), got);
	ASSERT_EQ(2, u32_at(buf, 0));
	/* thread 412 first: its entries by index, getpid's contexts summed */
	ASSERT_EQ(412, u32_at(buf, 4));
	ASSERT_EQ(4, u32_at(buf, 8));
	e = ent_at(buf, 12);
	ASSERT_TRUE(timer_is(&e, 0, ADDR(0), 501, 2680500, 172000));
	e = ent_at(buf, 12 + sizeof(o_ent));
	ASSERT_TRUE(timer_is(&e, 39, ADDR(39), 1010, 231100, 231100));
	/* the event: 300 + 480 % 100; count and sum */
	e = ent_at(buf, 12 + 2 * sizeof(o_ent));
	ASSERT_TRUE(timer_is(&e, 380, ADDR(480), 500, 8000, 8000));
	/* routines past 299 skip TAU's event range: 470 + 100 */
	e = ent_at(buf, 12 + 3 * sizeof(o_ent));
	ASSERT_TRUE(timer_is(&e, 570, ADDR(470), 3, 9800, 9300));
	t2 = 12 + 4 * sizeof(o_ent);
	ASSERT_EQ(413, u32_at(buf, t2));
	ASSERT_EQ(1, u32_at(buf, t2 + 4));
	e = ent_at(buf, t2 + 8);
	ASSERT_TRUE(timer_is(&e, 1, ADDR(1), 2, 40, 30));
	/* one byte short: ENOSPC, as KTAU's "profile grew" */
	errno = 0;
	ASSERT_EQ(-1, read_data(KTAU_TYPE_PROFILE, 0, NULL, 0, buf, (unsigned long)got - 1, 0,
				NULL));
	ASSERT_EQ(ENOSPC, errno);
	ASSERT_EQ(-1, read_size(KTAU_TYPE_TRACE, 0, NULL, 0, 0, NULL, -1));
	ASSERT_EQ(ENOTSUP, errno);
	free(buf);
	drop_root(root);
}

static char *thread_text(pid_t pid, pid_t tid, unsigned long long reads,
			 unsigned long long incl)
{
	char *s;

	if (asprintf(&s, "ktau-profile 2\ntsc_khz 1000000\nscope thread\n"
		     "task kind=thread pid=%d tid=%d comm=t dropped=0\n"
		     "func 0 0 read syscall %llu %llu %llu\n"
		     "func 3 0 read syscall 1 10 5\n"
		     "func 0 39 getpid syscall 4 40 40\n"
		     "path 0 0 read syscall %llu %llu %llu\n"
		     "path 3 0 read syscall 1 10 5\n"
		     "path 0 39 getpid syscall 4 40 40\nend\n",
		     (int)pid, (int)tid, reads, incl, incl / 2, reads, incl, incl / 2) < 0)
		return NULL;
	return s;
}

/* <root>/P/task/T/ktau for the calling thread */
static int write_self(const char *root, unsigned long long reads, unsigned long long incl)
{
	pid_t pid = getpid(), tid = (pid_t)syscall(SYS_gettid);
	char rel[64], *text = thread_text(pid, tid, reads, incl);
	int ret;

	if (!text)
		return -ENOMEM;
	snprintf(rel, sizeof(rel), "%d/task/%d/ktau", (int)pid, (int)tid);
	ret = write_tree_file(root, rel, text);
	free(text);
	return ret;
}

TEST(tau_compat_read_self_and_pid_list)
{
	char *root = fake_root(), *t413, buf[4096];
	pid_t pids[3] = { 413, 999, 412 }, missing = 999;
	ktau_output *out;
	long got;

	ASSERT_NOT_NULL(root);
	ASSERT_EQ(0, write_self(root, 20, 2000));
	got = read_data(KTAU_TYPE_PROFILE, 1, NULL, 0, buf, sizeof(buf), 0, NULL);
	ASSERT_EQ((long)(4 + 8 + 2 * sizeof(o_ent)), got);
	ASSERT_EQ(1, unpack_bindata(KTAU_TYPE_PROFILE, buf, (unsigned long)got, &out));
	ASSERT_EQ(syscall(SYS_gettid), out[0].pid);
	ASSERT_EQ(2, out[0].size);
	ASSERT_TRUE(timer_is(&out[0].ent_lst[0], 0, ADDR(0), 21, 2010, 1005));
	ASSERT_TRUE(timer_is(&out[0].ent_lst[1], 39, ADDR(39), 4, 40, 40));
	ktau_free_profiles(out, 1);
	/* a list of thread ids, read as /proc/T/task/T: 999 is gone */
	t413 = thread_text(412, 413, 5, 50);
	ASSERT_NOT_NULL(t413);
	ASSERT_EQ(0, write_tree_file(root, "413/task/413/ktau", t413));
	free(t413);
	t413 = thread_text(412, 412, 7, 70);
	ASSERT_EQ(0, write_tree_file(root, "412/task/412/ktau", t413));
	free(t413);
	got = read_data(KTAU_TYPE_PROFILE, 0, pids, 3, buf, sizeof(buf), 0, NULL);
	ASSERT_EQ(2, unpack_bindata(KTAU_TYPE_PROFILE, buf, (unsigned long)got, &out));
	ASSERT_EQ(412, out[0].pid);
	ASSERT_EQ(413, out[1].pid);
	ASSERT_TRUE(timer_is(&out[0].ent_lst[0], 0, ADDR(0), 8, 80, 40));
	ktau_free_profiles(out, 2);
	/* nothing readable: the error of the last (999 is gone) */
	errno = 0;
	ASSERT_EQ(-1, read_size(KTAU_TYPE_PROFILE, 0, &missing, 1, 0, NULL, -1));
	ASSERT_EQ(ESRCH, errno);
	drop_root(root);
}

/* A packed buffer of hand-made profiles. */
static size_t pack(char *buf, const ktau_output *p, uint32_t n)
{
	size_t off = 4;
	uint32_t i;

	memcpy(buf, &n, 4);
	for (i = 0; i < n; i++) {
		uint32_t pid = (uint32_t)p[i].pid;

		memcpy(buf + off, &pid, 4);
		memcpy(buf + off + 4, &p[i].size, 4);
		off += 8;
		if (p[i].size)
			memcpy(buf + off, p[i].ent_lst, p[i].size * sizeof(o_ent));
		off += p[i].size * sizeof(o_ent);
	}
	return off;
}

static o_ent mk(unsigned int index, unsigned long long count, unsigned long long incl,
		unsigned long long excl)
{
	o_ent e;

	memset(&e, 0, sizeof(e));
	e.index = index;
	e.entry.addr = 0xc1000000UL + 16UL * (index < 300 ? index : index - 100);
	e.entry.type = KTAU_TIMER;
	e.entry.data.timer.count = count;
	e.entry.data.timer.incl = incl;
	e.entry.data.timer.excl = excl;
	return e;
}

TEST(tau_compat_unpack_hand_worked)
{
	o_ent a[2] = { mk(0, 10, 100, 50), mk(39, 5, 50, 50) };
	ktau_output in[2] = { { 412, 2, a, NULL }, { 500, 0, NULL, NULL } };
	char buf[512];
	size_t len = pack(buf, in, 2);
	ktau_output *out;

	ASSERT_EQ(4 + 8 + 2 * sizeof(o_ent) + 8, len);
	/* trailing bytes (TAU passes its whole allocation) are ignored */
	memset(buf + len, 0xa5, 64);
	ASSERT_EQ(2, unpack_bindata(KTAU_TYPE_PROFILE, buf, len + 64, &out));
	ASSERT_EQ(412, out[0].pid);
	ASSERT_EQ(2, out[0].size);
	ASSERT_TRUE(timer_is(&out[0].ent_lst[1], 39, ADDR(39), 5, 50, 50));
	ASSERT_EQ(500, out[1].pid);
	ASSERT_EQ(0, out[1].size);
	ASSERT_NOT_NULL(out[1].ent_lst);
	ktau_free_profiles(out, 2);
	/* no profiles: 0 and a pointer to free */
	memset(buf, 0, 4);
	ASSERT_EQ(0, unpack_bindata(KTAU_TYPE_PROFILE, buf, 4, &out));
	ASSERT_NOT_NULL(out);
	ktau_free_profiles(out, 0);
}

TEST(tau_compat_unpack_hostile_fails)
{
	o_ent a[2] = { mk(0, 10, 100, 50), mk(39, 5, 50, 50) };
	ktau_output in[2] = { { 412, 2, a, NULL }, { 413, 1, a, NULL } };
	char buf[512], *copy;
	size_t len = pack(buf, in, 2), cut;
	ktau_output *out = (ktau_output *)buf;
	uint32_t big = 0xffffffffU;

	/* every truncation: EPROTO, *output NULL; each in its own copy for ASan */
	for (cut = 0; cut < len; cut++) {
		copy = malloc(cut ? cut : 1);
		ASSERT_NOT_NULL(copy);
		memcpy(copy, buf, cut);
		errno = 0;
		if (unpack_bindata(KTAU_TYPE_PROFILE, copy, cut, &out) != -1 || out ||
		    errno != EPROTO) {
			free(copy);
			FAIL("a buffer cut to %zu of %zu bytes unpacked", cut, len);
		}
		free(copy);
	}
	/* counts far beyond the buffer */
	memcpy(buf, &big, 4);
	ASSERT_EQ(-1, unpack_bindata(KTAU_TYPE_PROFILE, buf, len, &out));
	ASSERT_EQ(EPROTO, errno);
	pack(buf, in, 2);
	memcpy(buf + 8, &big, 4);
	ASSERT_EQ(-1, unpack_bindata(KTAU_TYPE_PROFILE, buf, len, &out));
	ASSERT_EQ(EPROTO, errno);
	/* one entry more than the rest of the buffer holds */
	big = 4;
	memcpy(buf + 8, &big, 4);
	ASSERT_EQ(-1, unpack_bindata(KTAU_TYPE_PROFILE, buf, len, &out));
	ASSERT_EQ(EPROTO, errno);
	/* arguments */
	ASSERT_EQ(-1, unpack_bindata(KTAU_TYPE_PROFILE, NULL, len, &out));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, unpack_bindata(KTAU_TYPE_PROFILE, buf, len, NULL));
	ASSERT_EQ(-1, unpack_bindata(KTAU_TYPE_TRACE, buf, len, &out));
	ASSERT_EQ(ENOTSUP, errno);
}

TEST(tau_compat_diff_hand_worked)
{
	/* start: 412 {read 10/100/50, getpid 5/50/50}, 500 (exits), 413 {read 9} */
	o_ent s412[2] = { mk(39, 5, 50, 50), mk(0, 10, 100, 50) };	/* unsorted */
	o_ent s413[1] = { mk(0, 9, 90, 90) };
	o_ent s500[1] = { mk(0, 1, 1, 1) };
	ktau_output start[3] = { { 500, 1, s500, NULL }, { 412, 2, s412, NULL },
				 { 413, 1, s413, NULL } };
	/* stop: 412 {read 15/160/70, getpid unchanged, page_fault new},
	 * 413 cleared in between (read 3), 600 new */
	o_ent t412[3] = { mk(0, 15, 160, 70), mk(39, 5, 50, 50), mk(570, 2, 20, 20) };
	o_ent t413[1] = { mk(0, 3, 30, 30) };
	o_ent t600[1] = { mk(1, 1, 7, 7) };
	ktau_output stop[3] = { { 600, 1, t600, NULL }, { 413, 1, t413, NULL },
				{ 412, 3, t412, NULL } };
	ktau_output *d;

	ASSERT_EQ(3, ktau_diff_profiles(start, 3, stop, 3, &d));
	ASSERT_EQ(412, d[0].pid);
	ASSERT_EQ(3, d[0].size);
	ASSERT_TRUE(timer_is(&d[0].ent_lst[0], 0, ADDR(0), 5, 60, 20));
	ASSERT_TRUE(timer_is(&d[0].ent_lst[1], 39, ADDR(39), 0, 0, 0));
	ASSERT_TRUE(timer_is(&d[0].ent_lst[2], 570, ADDR(470), 2, 20, 20));
	ASSERT_EQ(413, d[1].pid);
	ASSERT_TRUE(timer_is(&d[1].ent_lst[0], 0, ADDR(0), 3, 30, 30));
	ASSERT_EQ(600, d[2].pid);
	ASSERT_TRUE(timer_is(&d[2].ent_lst[0], 1, ADDR(1), 1, 7, 7));
	/* the inputs are as they were, and own nothing of the result */
	ASSERT_EQ(500, start[0].pid);
	ASSERT_EQ(39, s412[0].index);
	ASSERT_TRUE(d[2].ent_lst != t600);
	ktau_free_profiles(d, 3);
	ASSERT_EQ(0, ktau_diff_profiles(start, 3, NULL, 0, &d));
	ktau_free_profiles(d, 0);
	ASSERT_EQ(-1, ktau_diff_profiles(start, -1, stop, 3, &d));
	ASSERT_EQ(EINVAL, errno);
}

TEST(tau_compat_aggregate_hand_worked)
{
	o_ent a[2] = { mk(0, 10, 100, 50), mk(39, 5, 50, 50) };
	o_ent b[2] = { mk(570, 2, 20, 20), mk(0, 1, 10, 10) };
	ktau_output in[2] = { { 412, 2, a, NULL }, { 413, 2, b, NULL } };
	o_ent room[3];
	ktau_output sum = { 7, 0, room, NULL };

	ASSERT_EQ(0, aggr_many_profiles(in, 2, 3, &sum));
	ASSERT_EQ(0, sum.pid);
	ASSERT_EQ(3, sum.size);
	ASSERT_TRUE(timer_is(&room[0], 0, ADDR(0), 11, 110, 60));
	ASSERT_TRUE(timer_is(&room[1], 39, ADDR(39), 5, 50, 50));
	ASSERT_TRUE(timer_is(&room[2], 570, ADDR(470), 2, 20, 20));
	/* room for 2: the lowest two, ENOSPC */
	errno = 0;
	ASSERT_EQ(-1, aggr_many_profiles(in, 2, 2, &sum));
	ASSERT_EQ(ENOSPC, errno);
	ASSERT_EQ(2, sum.size);
	ASSERT_TRUE(timer_is(&room[1], 39, ADDR(39), 5, 50, 50));
	/* saturating sums say so */
	a[0].entry.data.timer.incl = ~0ULL;
	ASSERT_EQ(-1, aggr_many_profiles(in, 2, 3, &sum));
	ASSERT_EQ(EOVERFLOW, errno);
	ASSERT_EQ_U64(~0ULL, room[0].entry.data.timer.incl);
}

TEST(tau_compat_print)
{
	o_ent a[1] = { mk(39, 5, 50, 40) };
	ktau_output in[1] = { { 412, 1, a, NULL } };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ASSERT_NOT_NULL(f);
	print_many_profiles(KTAU_TYPE_PROFILE, f, in, 1);
	fclose(f);
	ASSERT_STREQ("PID: 412\t No Entries: 1\n"
		     "Entry   39: addr c1000270, count    5, incl   50, excl   40\n", text);
	free(text);
}

/*
 * ktau_get_tsc(): the thread's own profile's rate (an arm64-like 62.5
 * MHz), else the system profile's, else 0 with errno set (and a line on
 * stderr, which TAU does not check).
 */
TEST(tau_compat_get_tsc)
{
	char *root = fake_root(), *empty, rel[64];
	pid_t pid = getpid(), tid = (pid_t)syscall(SYS_gettid);

	ASSERT_NOT_NULL(root);
	ASSERT_TRUE(ktau_get_tsc() == 1000000.0 * 1000.0);
	snprintf(rel, sizeof(rel), "%d/task/%d/ktau", (int)pid, (int)tid);
	ASSERT_EQ(0, write_tree_file(root, rel,
				     "ktau-profile 2\ntsc_khz 62500\nscope thread\n"
				     "task kind=thread pid=1 tid=1 comm=t dropped=0\nend\n"));
	ASSERT_TRUE(ktau_get_tsc() == 62500.0 * 1000.0);
	drop_root(root);
	empty = make_tmpdir();
	ASSERT_NOT_NULL(empty);
	ASSERT_EQ(0, setenv("KTAU_PROCFS", empty, 1));
	errno = 0;
	ASSERT_TRUE(ktau_get_tsc() == 0.0);
	ASSERT_EQ(ENODEV, errno);
	drop_root(empty);
}

static int purge_as_nobody(void)
{
	errno = 0;
	return purge_data(NULL, 0, 0, NULL) == -1 && errno == EPERM ? 0 : 1;
}

TEST(tau_compat_purge)
{
	char *root = fake_root(), *text;

	ASSERT_NOT_NULL(root);
	ASSERT_EQ(0, write_tree_file(root, "ktau/control", ""));
	if (geteuid() == 0) {
		/* root: `clear` on the control file */
		ASSERT_EQ(0, purge_data(NULL, 0, 0, NULL));
		text = read_rel(root, "ktau/control");
		ASSERT_STREQ("clear", text);
		free(text);
		ASSERT_EQ(0, run_as_nobody(purge_as_nobody));
	} else {
		ASSERT_EQ(0, purge_as_nobody());
	}
	ASSERT_EQ(-1, write_data(NULL, 0, NULL, 0, 0, NULL));
	ASSERT_EQ(ENOSYS, errno);
	drop_root(root);
}

TEST(tau_compat_shared_counters)
{
	char *root = fake_root();
	unsigned long syms[2] = { ADDR(0), ADDR(39) }, bad = 0;
	int types[2] = { KTAU_SHCTR_TYPE_INCL, KTAU_SHCTR_TYPE_NUM };
	unsigned long long vals[2] = { 0, 0 };
	ktau_ush_ctr *ctr, *none;
	ktau_ushcont *cont;

	ASSERT_NOT_NULL(root);
	ASSERT_EQ(0, write_self(root, 20, 2000));
	cont = ktau_add_container(KTAU_TYPE_PROFILE, 1, NULL, 0, NULL, 2000);
	ASSERT_NOT_NULL(cont);
	ASSERT_EQ(0, ktau_get_counter(cont, "KTAU_MULTICTR", 2, syms, &ctr));
	/* read's contexts summed: 20 + 1 calls, 2000 + 10 incl */
	ASSERT_EQ(0, ktau_copy_counter_type(ctr, vals, 2, types));
	ASSERT_EQ_U64(2010, vals[0]);
	ASSERT_EQ_U64(4, vals[1]);
	ASSERT_EQ(0, ktau_copy_counter_excl(ctr, vals, 1));
	ASSERT_EQ_U64(1005, vals[0]);
	/* every copy reads the profile again */
	ASSERT_EQ(0, write_self(root, 30, 3000));
	ASSERT_EQ(0, ktau_copy_counter_count(ctr, vals, 2));
	ASSERT_EQ_U64(31, vals[0]);
	/* an address that names no routine, or none registered: refused */
	ASSERT_EQ(-1, ktau_get_counter(cont, "KTAU_MULTICTR", 1, &bad, &none));
	ASSERT_EQ(ENOENT, errno);
	ASSERT_NULL(none);
	bad = ADDR(2);
	ASSERT_EQ(-1, ktau_get_counter(cont, "KTAU_MULTICTR", 1, &bad, &none));
	ASSERT_EQ(ENOENT, errno);
	ASSERT_EQ(-1, ktau_get_counter(cont, "x", KTAU_SHCTR_MAX + 1, syms, &none));
	ASSERT_EQ(EINVAL, errno);
	/* a container with a counter set in it stays until the set is put */
	ASSERT_EQ(-1, ktau_del_container(KTAU_TYPE_PROFILE, 1, NULL, 0, NULL, cont));
	ASSERT_EQ(EBUSY, errno);
	ASSERT_EQ(0, ktau_put_counter(ctr));
	ASSERT_EQ(0, ktau_del_container(KTAU_TYPE_PROFILE, 1, NULL, 0, NULL, cont));
	drop_root(root);
}

struct copy_elsewhere_args {
	const char *root;
	ktau_ush_ctr *ctr;
};

/* Counter 0's calls as another thread reads it, its profile 20 + 1 reads;
 * NULL when the copy fails. */
static void *copy_elsewhere(void *arg)
{
	struct copy_elsewhere_args *a = arg;
	unsigned long long vals[1] = { 0 };

	if (write_self(a->root, 20, 2000) || ktau_copy_counter_count(a->ctr, vals, 1))
		return NULL;
	return (void *)(uintptr_t)vals[0];
}

/* Where the kernel takes the area (the fake one of fake_counters.c), a
 * set reads it with loads on the thread that made it, and /proc on any
 * other; put unregisters it, and the thread may make a new one. */
TEST(tau_compat_shared_counters_area)
{
	char *root = fake_root();
	unsigned long syms[2] = { ADDR(0), ADDR(39) };
	int types[2] = { KTAU_SHCTR_TYPE_INCL, KTAU_SHCTR_TYPE_NUM };
	unsigned long long vals[2] = { 0, 0 };
	struct copy_elsewhere_args elsewhere;
	ktau_ush_ctr *ctr, *second;
	ktau_ushcont *cont;
	pthread_t thread;
	void *other;

	ASSERT_NOT_NULL(root);
	ASSERT_EQ(0, write_self(root, 20, 2000));
	ktau__counters_prctl_hook(fake_counters_prctl);
	cont = ktau_add_container(KTAU_TYPE_PROFILE, 1, NULL, 0, NULL, 2000);
	ASSERT_NOT_NULL(cont);
	ASSERT_EQ(0, ktau_get_counter(cont, "KTAU_MULTICTR", 2, syms, &ctr));
	ASSERT_TRUE(fake_registered != 0);
	/* the fake kernel's values, not the profile's: read counter 0 incl
	 * 100, counter 1 (getpid) calls 2 */
	ASSERT_EQ(0, ktau_copy_counter_type(ctr, vals, 2, types));
	ASSERT_EQ_U64(100, vals[0]);
	ASSERT_EQ_U64(2, vals[1]);
	ASSERT_EQ(0, ktau_copy_counter_excl(ctr, vals, 2));
	ASSERT_EQ_U64(10, vals[0]);
	ASSERT_EQ_U64(20, vals[1]);
	/* another thread has no area: it reads its profile (the fake tree's
	 * self is the same file), 21 read calls */
	elsewhere = (struct copy_elsewhere_args){ root, ctr };
	ASSERT_EQ(0, pthread_create(&thread, NULL, copy_elsewhere, &elsewhere));
	ASSERT_EQ(0, pthread_join(thread, &other));
	ASSERT_EQ_U64(21, (uintptr_t)other);
	/* a second set on this thread reads /proc: one area a thread */
	ASSERT_EQ(0, ktau_get_counter(cont, "KTAU_MULTICTR", 1, syms, &second));
	ASSERT_EQ(0, ktau_copy_counter_count(second, vals, 1));
	ASSERT_EQ_U64(21, vals[0]);
	ASSERT_EQ(0, ktau_put_counter(second));
	ASSERT_TRUE(fake_registered != 0);
	/* put unregisters; the next set registers again */
	ASSERT_EQ(0, ktau_put_counter(ctr));
	ASSERT_EQ(0, fake_registered);
	ASSERT_EQ(0, ktau_get_counter(cont, "KTAU_MULTICTR", 1, syms + 1, &ctr));
	ASSERT_EQ(0, ktau_copy_counter_count(ctr, vals, 1));
	ASSERT_EQ_U64(1, vals[0]);
	ASSERT_EQ(0, ktau_put_counter(ctr));
	ASSERT_EQ(0, ktau_del_container(KTAU_TYPE_PROFILE, 1, NULL, 0, NULL, cont));
	ktau__counters_prctl_hook(NULL);
	drop_root(root);
}

/* TAU's grouping of a kernel routine by its name (TauKtau.cpp), first match */
static const char *tau_group(const char *n)
{
	if (strstr(n, "schedule"))
		return "KTAU_SCHEDULE";
	if (strstr(n, "page_fault"))
		return "KTAU_EXCEPTION";
	if (strstr(n, "IRQ"))
		return "KTAU_IRQ";
	if (strstr(n, "run_timers") || strstr(n, "workqueue") || strstr(n, "tasklet") ||
	    strstr(n, "softirq"))
		return "KTAU_BH";
	if (strstr(n, "sys_")) {
		if (strstr(n, "sock"))
			return "KTAU_SYSCALL | KTAU_SOCK";
		if (strstr(n, "read") || strstr(n, "write") || strstr(n, "send") ||
		    strstr(n, "recv"))
			return "KTAU_SYSCALL | KTAU_IO";
		return "KTAU_SYSCALL";
	}
	return "KTAU_DEFAULT";
}

TEST(tau_compat_names_group_as_tau_groups)
{
	static const struct {
		const char *group, *name, *symbol, *tau;
	} cases[] = {
		{ "syscall", "read", "sys_read", "KTAU_SYSCALL | KTAU_IO" },
		{ "syscall", "getpid", "sys_getpid", "KTAU_SYSCALL" },
		{ "syscall", "ia32_waitpid", "sys_ia32_waitpid", "KTAU_SYSCALL" },
		{ "syscall", "ni_syscall", "sys_ni_syscall", "KTAU_SYSCALL" },
		{ "softirq", "TIMER", "softirq_timer", "KTAU_BH" },
		{ "softirq", "IRQ_POLL", "softirq_irq_poll", "KTAU_BH" },
		{ "softirq", "SCHED", "softirq_sched", "KTAU_BH" },
		{ "irq", "irq", "do_IRQ", "KTAU_IRQ" },
		{ "exception", "page_fault", "page_fault", "KTAU_EXCEPTION" },
		{ "sched", "schedule_vol", "schedule_vol", "KTAU_SCHEDULE" },
		{ "sched", "schedule_invol", "schedule_invol", "KTAU_SCHEDULE" },
		{ "kernel", "my_driver_op", "my_driver_op", "KTAU_DEFAULT" },
		{ "event", "read_bytes", "read_bytes", NULL },
	};
	char buf[KTAU_TAU_NAME_MAX];
	uint32_t fid;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ASSERT_EQ(0, ktau_tau_symbol_name(cases[i].group, cases[i].name, buf,
						  sizeof(buf)));
		ASSERT_STREQ(cases[i].symbol, buf);
		if (cases[i].tau)
			ASSERT_STREQ(cases[i].tau, tau_group(buf));
	}
	ASSERT_EQ(0, ktau_tau_addr_fid(ADDR(470), &fid));
	ASSERT_EQ(470, fid);
	ASSERT_EQ(-EINVAL, ktau_tau_addr_fid(ADDR(470) + 1, &fid));
	ASSERT_EQ(-EINVAL, ktau_tau_addr_fid(0, &fid));
	ASSERT_EQ(-EINVAL, ktau_tau_addr_fid(KTAU_TAU_ADDR_ETEXT, &fid));
	ASSERT_EQ(299, ktau_tau_fid_index(299, false));
	ASSERT_EQ(400, ktau_tau_fid_index(300, false));
	ASSERT_EQ(399, ktau_tau_fid_index(499, true));
}

TEST(tau_compat_system_map)
{
	char *root = fake_root(), line[256];
	struct ktau_functions *map;
	char *text = NULL, *prev = NULL;
	unsigned long addr, last = 0;
	size_t len = 0, lines = 0;
	FILE *f;

	ASSERT_NOT_NULL(root);
	map = parse_functions_str(functions_text, NULL);
	ASSERT_NOT_NULL(map);
	f = open_memstream(&text, &len);
	ASSERT_NOT_NULL(f);
	ASSERT_EQ(0, ktau_tau_write_system_map(f, map));
	fclose(f);
	ktau_functions_free(map);
	ASSERT_NOT_NULL(line_starting(text, "c1000270 T sys_getpid", line, sizeof(line)));
	ASSERT_NOT_NULL(line_starting(text, "c1001d50 T do_IRQ", line, sizeof(line)));
	ASSERT_NOT_NULL(line_starting(text, "c1001d60 T page_fault", line, sizeof(line)));
	ASSERT_NOT_NULL(line_starting(text, "c1001e00 T read_bytes", line, sizeof(line)));
	ASSERT_NOT_NULL(line_starting(text, "c1002580 T my_driver_op", line, sizeof(line)));
	/* an id registered later: a name that says which id */
	ASSERT_NOT_NULL(line_starting(text, "c1002590 T ktau_fid_601", line, sizeof(line)));
	/* sorted, 32-bit, one per id, then _etext (not T: TAU's reader stops there) */
	for (prev = text; *prev; lines++) {
		char *nl = strchr(prev, '\n');

		ASSERT_NOT_NULL(nl);
		ASSERT_EQ(1, sscanf(prev, "%lx", &addr));
		ASSERT_TRUE(nl - prev > 11 && prev[8] == ' ' && prev[10] == ' ');
		ASSERT_TRUE(!lines || addr > last);
		last = addr;
		if (!nl[1])
			ASSERT_EQ(0, strncmp(prev, "c1020000 A _etext\n", 18));
		prev = nl + 1;
	}
	ASSERT_EQ(KTAU_TAU_MAX_FIDS + 1, lines);
	free(text);
	drop_root(root);
}

/* Two events whose preferred index is the same (480 and 580: 380): the
 * first seen keeps it, the other gets the next free one, and each keeps
 * its index in later reads, as TAU's own diff needs. */
TEST(tau_compat_event_index_stays)
{
	static const char both[] =
		"ktau-profile 2\ntsc_khz 1000\nscope system\n"
		"task kind=thread pid=5 tid=5 comm=t dropped=0\n"
		"event 0 580 my_event 2 1 1 2 2\n"
		"event 0 480 read_bytes 3 8 8 24 192\nend\n";
	static const char one[] =
		"ktau-profile 2\ntsc_khz 1000\nscope system\n"
		"task kind=thread pid=5 tid=5 comm=t dropped=0\n"
		"event 0 480 read_bytes 4 8 8 32 256\nend\n";
	char *root = fake_root(), buf[1024];
	ktau_output *out;
	long got;

	ASSERT_NOT_NULL(root);
	ASSERT_EQ(0, write_tree_file(root, "ktau/profile", both));
	got = read_data(KTAU_TYPE_PROFILE, 0, NULL, 0, buf, sizeof(buf), 0, NULL);
	ASSERT_EQ(1, unpack_bindata(KTAU_TYPE_PROFILE, buf, (unsigned long)got, &out));
	ASSERT_EQ(2, out[0].size);
	ASSERT_TRUE(timer_is(&out[0].ent_lst[0], 380, ADDR(580), 2, 2, 2));
	ASSERT_TRUE(timer_is(&out[0].ent_lst[1], 381, ADDR(480), 3, 24, 24));
	ktau_free_profiles(out, 1);
	ASSERT_EQ(0, write_tree_file(root, "ktau/profile", one));
	got = read_data(KTAU_TYPE_PROFILE, 0, NULL, 0, buf, sizeof(buf), 0, NULL);
	ASSERT_EQ(1, unpack_bindata(KTAU_TYPE_PROFILE, buf, (unsigned long)got, &out));
	ASSERT_EQ(1, out[0].size);
	ASSERT_TRUE(timer_is(&out[0].ent_lst[0], 381, ADDR(480), 4, 32, 32));
	ktau_free_profiles(out, 1);
	drop_root(root);
}
