// SPDX-License-Identifier: GPL-2.0
/*
 * task_memory — bytes of ktau profile per task, for `make bench` (issue 7),
 * from the `memory tasks=N bytes=M` line of /proc/ktau/control (the
 * per-task part and its table, as allocated):
 *
 *   BENCH mem.avg_task B        M / N over every task alive now
 *   BENCH mem.typical_task B    what one more task adds: a busybox
 *                               `sleep` (exec'd, asleep in nanosleep)
 *   BENCH mem.fid300_task B     what a task adds that made 300 distinct
 *                               system calls (300 function ids)
 *   BENCH mem.fid300_funcs N    func lines in that task's /proc profile
 *
 * Each delta is read with the extra task alive and then without, each
 * once the figure stopped changing (tables are freed after an RCU grace
 * period), the median of five tries whose task count differs by exactly
 * one; a first untimed try lets this process's own profile reach its
 * final size.
 * Exit status: 0 done, 1 the measurement failed.
 */
#define _GNU_SOURCE
#include <ktau.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktau_control.h"

#define TARGET_FIDS	300
#define TRIES		6

/*
 * Calls that could end, stop, block, signal or replace the task, or
 * touch the system, even with every argument -1.  Every other number is
 * called with -1 arguments and fails with EBADF, EFAULT, EINVAL, ...
 */
static const int risky[] = {
	SYS_rt_sigreturn, SYS_pause, SYS_clone, SYS_fork, SYS_vfork,
	SYS_execve, SYS_exit, SYS_wait4, SYS_kill, SYS_ptrace, SYS_vhangup,
	SYS_reboot, SYS_init_module, SYS_finit_module, SYS_delete_module,
	SYS_kexec_load, SYS_kexec_file_load, SYS_exit_group, SYS_execveat,
	SYS_clone3, SYS_tkill, SYS_tgkill, SYS_rt_sigqueueinfo,
	SYS_rt_tgsigqueueinfo, SYS_pidfd_send_signal, SYS_alarm,
	SYS_rt_sigsuspend, SYS_rt_sigtimedwait, SYS_nanosleep,
	SYS_clock_nanosleep, SYS_poll, SYS_select, SYS_pselect6, SYS_ppoll,
	SYS_epoll_wait, SYS_epoll_pwait, SYS_epoll_pwait2, SYS_futex,
	SYS_futex_waitv, SYS_waitid, SYS_mount, SYS_umount2, SYS_pivot_root,
	SYS_swapon, SYS_swapoff, SYS_acct, SYS_set_tid_address,
	SYS_restart_syscall, SYS_sync, SYS_syncfs, SYS_setsid, SYS_umask,
	SYS_iopl, SYS_ioperm, SYS_personality, SYS_seccomp, SYS_unshare,
	SYS_sched_yield,
	455 /* futex_wait */, 454 /* futex_wake */, 456 /* futex_requeue */,
};

static int is_risky(long nr)
{
	for (size_t i = 0; i < sizeof(risky) / sizeof(risky[0]); i++)
		if (risky[i] == nr)
			return 1;
	/* 335..423: numbers x86-64 never assigned (ni_syscall) */
	return nr >= 335 && nr <= 423;
}

/* Make TARGET_FIDS distinct system calls, then report and wait. */
static void touch_fids(int ready, int hold)
{
	int done = 0;
	char c = 0;

	for (long nr = 0; nr < 463 && done < TARGET_FIDS; nr++) {
		if (is_risky(nr))
			continue;
		syscall(nr, -1L, -1L, -1L, -1L, -1L, -1L);
		done++;
	}
	if (write(ready, &c, 1) != 1 || read(hold, &c, 1) < 0)
		_exit(1);
	_exit(0);
}

/* @pid's state letter and comm, from /proc/PID/stat; 0 if gone. */
static char task_state(pid_t pid, char *comm, size_t len)
{
	char path[64], buf[512], *l, *r;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return 0;
	}
	fclose(f);
	l = strchr(buf, '(');
	r = strrchr(buf, ')');
	if (!l || !r || r[1] != ' ')
		return 0;
	snprintf(comm, len, "%.*s", (int)(r - l - 1), l + 1);
	return r[2];
}

/* Wait until @pid sleeps as @comm: its profile holds all it will. */
static int wait_asleep(pid_t pid, const char *comm)
{
	char now[32];

	for (int i = 0; i < 100000; i++) {
		if (task_state(pid, now, sizeof(now)) == 'S' && !strcmp(now, comm))
			return 0;
		usleep(1000);
	}
	return -1;
}

static pid_t spawn(int fid300, int *hold_w)
{
	int ready[2], hold[2];
	pid_t pid;
	char c;

	if (pipe(ready) || pipe(hold))
		return -1;
	pid = fork();
	if (pid == 0) {
		if (fid300)
			touch_fids(ready[1], hold[0]);
		execl("/bin/sleep", "sleep", "100000", (char *)NULL);
		_exit(127);
	}
	close(ready[1]);
	close(hold[0]);
	*hold_w = hold[1];
	if (pid > 0 && fid300 && read(ready[0], &c, 1) != 1)
		pid = -1;
	close(ready[0]);
	return pid;
}

static int funcs_of(pid_t pid)
{
	KTAU_OPTS(ktau_read_opts, opts, .pid = pid);
	struct ktau_proc *proc = ktau_proc_open(NULL, NULL);
	struct ktau_profile *p = proc ? ktau_proc_read_profile(proc, &opts, NULL) : NULL;
	const struct ktau_block *b;
	int n = -1;

	ktau_proc_close(proc);
	if (!p)
		return -1;
	b = ktau_profile_block(p, 0);
	if (b)
		n = (int)ktau_block_func_count(b);
	ktau_profile_free(p);
	return n;
}

/*
 * ktau_memory() once it stopped changing: an exited task's table (and a
 * table an exec replaced) is freed after an RCU grace period, so a read
 * right after waitpid() may still count the reaped task's table (a
 * busybox sleep then read as its per-task part alone, 272 B).  Two reads
 * 5 ms apart that agree, within about 2 s.
 */
static int ktau_memory_settled(unsigned long *tasks, unsigned long *bytes)
{
	unsigned long n, b;

	if (ktau_memory(tasks, bytes))
		return -1;
	for (int i = 0; i < 400; i++) {
		usleep(5000);
		if (ktau_memory(&n, &b))
			return -1;
		if (n == *tasks && b == *bytes)
			return 0;
		*tasks = n;
		*bytes = b;
	}
	return 0;
}

static int long_cmp(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/*
 * The bytes one extra task added, the median over the tries: a read
 * that agreed with the one 5 ms before it may still hold a reaped task's
 * table whose grace period had not ended (a busybox sleep then read as
 * its per-task part alone, 272 B, in one try of a run); -1 on failure.
 */
static long task_bytes(int fid300)
{
	long got[TRIES];
	int ngot = 0;

	for (int t = 0; t < TRIES; t++) {
		unsigned long n0, b0, n1, b1;
		int hold, status;
		pid_t pid = spawn(fid300, &hold);

		if (pid < 0)
			return -1;
		if (wait_asleep(pid, fid300 ? "task_memory" : "sleep") ||
		    ktau_memory_settled(&n1, &b1)) {
			kill(pid, SIGKILL);
			return -1;
		}
		kill(pid, SIGKILL);
		close(hold);
		if (waitpid(pid, &status, 0) != pid ||
		    ktau_memory_settled(&n0, &b0))
			return -1;
		if (t == 0)
			continue;	/* the warm-up */
		if (n1 == n0 + 1 && b1 >= b0)
			got[ngot++] = (long)(b1 - b0);
	}
	if (!ngot)
		return -1;
	qsort(got, ngot, sizeof(got[0]), long_cmp);
	return got[ngot / 2];
}

/* The func lines of a fid300 child, from a separate run. */
static int fid300_funcs(void)
{
	int hold, status, n;
	pid_t pid = spawn(1, &hold);

	if (pid < 0)
		return -1;
	n = wait_asleep(pid, "task_memory") ? -1 : funcs_of(pid);
	kill(pid, SIGKILL);
	close(hold);
	waitpid(pid, &status, 0);
	return n;
}

int main(void)
{
	unsigned long tasks, bytes;
	long typical, fid300;

	if (ktau_memory(&tasks, &bytes) || !tasks) {
		fprintf(stderr, "task_memory: no memory line in /proc/ktau/control\n");
		return 1;
	}
	printf("BENCH mem.avg_task %lu\n", bytes / tasks);
	printf("BENCH mem.tasks %lu\n", tasks);
	typical = task_bytes(0);
	fid300 = task_bytes(1);
	if (typical < 0 || fid300 < 0) {
		fprintf(stderr, "task_memory: no try saw exactly one extra task\n");
		return 1;
	}
	printf("BENCH mem.typical_task %ld\n", typical);
	printf("BENCH mem.fid300_task %ld\n", fid300);
	printf("BENCH mem.fid300_funcs %d\n", fid300_funcs());
	return 0;
}
