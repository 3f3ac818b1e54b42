// SPDX-License-Identifier: GPL-2.0
/*
 * cpu — "kernel noise" charged to CPU-bound processes.
 *
 * 3 processes per online CPU spin for ~2 s (a loop on the kernel's clock,
 * ktr_cycles(): no system call), then each reads its own profile and sends
 * its counts to the parent.
 * Summed over the busy processes:
 *   schedule_invol calls > 0 (they preempt each other at ticks),
 *   irq calls > 0 (the local timer interrupts them),
 *   TIMER (softirq) calls > 0 (run at irq exit, charged to them);
 *   >= 90% of irq calls have no caller (they interrupted user mode);
 *   syscall calls are only the few setup ones (the loop makes none).
 * And the names have the groups the spec gives them (sched, irq, softirq),
 * in the function map and in the profiles; none is a syscall.
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define PER_CPU 3
#define SPIN_MS 2000
#define MAX_SETUP_SYSCALLS 16

struct res {
	int ok;
	char why[400];
	uint64_t invol, irq, irq_top, timer, timer_top, sys, vol;
	char g_invol[16], g_irq[16], g_timer[16];
};

static void group_of(const struct ktr_block *b, const char *name, char *out)
{
	const char *g = ktr_func_group(b, name);

	snprintf(out, 16, "%s", g ? g : "-");
}

static void child(int wfd, uint64_t khz)
{
	static char pbuf[1 << 18];
	struct ktr_profile p;
	struct ktr_block *b;
	struct res r;
	uint64_t end, spins = 0;
	char err[256];
	ssize_t n;
	int fd;

	memset(&r, 0, sizeof(r));
	memset(pbuf, ' ', sizeof(pbuf));	/* pre-fault */
	end = ktr_cycles() + ktr_ms_cycles(khz, SPIN_MS);
	while (ktr_cycles() < end)
		spins++;
	/* no ktr_fail here: the parent reports */
	fd = open("/proc/self/ktau", O_RDONLY);
	n = fd >= 0 ? read(fd, pbuf, sizeof(pbuf) - 1) : -1;
	if (n < 0) {
		snprintf(r.why, sizeof(r.why), "/proc/self/ktau: %s", strerror(errno));
		goto out;
	}
	if (ktr_parse(pbuf, (size_t)n, &p, err, sizeof(err))) {
		snprintf(r.why, sizeof(r.why), "/proc/self/ktau: %s", err);
		goto out;
	}
	b = ktr_block_kind(&p, "process", 0);
	if (!b) {
		snprintf(r.why, sizeof(r.why), "/proc/self/ktau: no process block");
		goto out;
	}
	ktr_func(b, "schedule_invol", &r.invol, NULL, NULL);
	ktr_func(b, "schedule_vol", &r.vol, NULL, NULL);
	ktr_func(b, "irq", &r.irq, NULL, NULL);
	ktr_func(b, "TIMER", &r.timer, NULL, NULL);
	r.irq_top = ktr_toplevel(b, "irq");
	r.timer_top = ktr_toplevel(b, "TIMER");
	r.sys = ktr_group_calls(b, "syscall");
	group_of(b, "schedule_invol", r.g_invol);
	group_of(b, "irq", r.g_irq);
	group_of(b, "TIMER", r.g_timer);
	r.ok = 1;
	ktr_free(&p);
out:
	(void)spins;
	_exit(write(wfd, &r, sizeof(r)) == (ssize_t)sizeof(r) ? 0 : 1);
}

static void check_map(void)
{
	static const struct { const char *name, *group; } want[] = {
		{ "schedule_invol", "sched" }, { "schedule_vol", "sched" }, { "irq", "irq" },
		{ "TIMER", "softirq" }, { "page_fault", "exception" },
	};
	struct ktr_fmap m;
	char err[256], check[64];
	size_t len;
	char *text = ktr_slurp("/proc/ktau/functions", &len);

	if (!text || ktr_parse_functions(text, len, &m, err, sizeof(err))) {
		ktr_fail("map", "/proc/ktau/functions: %s", text ? err : strerror(errno));
		free(text);
		return;
	}
	free(text);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct ktr_fmap_ent *e = ktr_fmap_name(&m, want[i].name);

		snprintf(check, sizeof(check), "map-%s", want[i].name);
		ktr_check(e && !strcmp(e->group, want[i].group), check,
			  "/proc/ktau/functions: %s has group %s, expected %s", want[i].name,
			  e ? e->group : "(not listed)", want[i].group);
	}
	ktr_fmap_free(&m);
}

int main(void)
{
	struct ktr_profile p;
	struct res r[64], sum;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int n, nok = 0, bad_groups = 0, fds[2];
	pid_t pids[64];
	uint64_t khz, maxsys = 0;
	char groups[256] = "";

	ktr_init("cpu");
	check_map();
	if (ncpu < 1)
		ncpu = 1;
	n = (int)(ncpu * PER_CPU);
	if (n > 64)
		n = 64;
	if (ktr_load("/proc/self/ktau", 1, &p, "tsc_khz"))
		return ktr_exit();
	khz = p.tsc_khz;
	ktr_free(&p);
	if (pipe(fds)) {
		ktr_fail("pipe", "%s", strerror(errno));
		return ktr_exit();
	}
	fflush(stdout);
	for (int i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			ktr_fail("fork", "fork %d: %s", i, strerror(errno));
			n = i;
			break;
		}
		if (pids[i] == 0) {
			close(fds[0]);
			child(fds[1], khz);
		}
	}
	close(fds[1]);
	memset(&sum, 0, sizeof(sum));
	for (int i = 0; i < n; i++) {
		ssize_t got = read(fds[0], &r[i], sizeof(r[i]));

		if (got != (ssize_t)sizeof(r[i])) {
			ktr_fail("child-result", "only %d of %d children reported", i, n);
			n = i;
			break;
		}
	}
	for (int i = 0; i < n; i++) {
		if (!r[i].ok) {
			ktr_fail("child-read", "a child could not read its profile: %s", r[i].why);
			continue;
		}
		nok++;
		sum.invol += r[i].invol;
		sum.vol += r[i].vol;
		sum.irq += r[i].irq;
		sum.irq_top += r[i].irq_top;
		sum.timer += r[i].timer;
		sum.timer_top += r[i].timer_top;
		sum.sys += r[i].sys;
		if (r[i].sys > maxsys)
			maxsys = r[i].sys;
		ktr_info("child", "%d: schedule_invol %" PRIu64 " schedule_vol %" PRIu64
			 " irq %" PRIu64 " (top %" PRIu64 ") TIMER %" PRIu64 " (top %" PRIu64
			 ") syscalls %" PRIu64 "; groups %s/%s/%s", i, r[i].invol, r[i].vol,
			 r[i].irq, r[i].irq_top, r[i].timer, r[i].timer_top, r[i].sys,
			 r[i].g_invol, r[i].g_irq, r[i].g_timer);
		if ((strcmp(r[i].g_invol, "-") && strcmp(r[i].g_invol, "sched")) ||
		    (strcmp(r[i].g_irq, "-") && strcmp(r[i].g_irq, "irq")) ||
		    (strcmp(r[i].g_timer, "-") && strcmp(r[i].g_timer, "softirq"))) {
			bad_groups++;
			snprintf(groups, sizeof(groups), "child %d: schedule_invol/irq/TIMER in groups "
				 "%s/%s/%s", i, r[i].g_invol, r[i].g_irq, r[i].g_timer);
		}
	}
	for (int i = 0; i < n; i++)
		waitpid(pids[i], NULL, 0);
	if (!nok)
		return ktr_exit();
	ktr_info("sum", "%d busy processes on %ld CPUs, %d ms each: schedule_invol %" PRIu64
		 " irq %" PRIu64 " (no caller %" PRIu64 ") TIMER %" PRIu64 " syscalls %" PRIu64,
		 nok, ncpu, SPIN_MS, sum.invol, sum.irq, sum.irq_top, sum.timer, sum.sys);
	ktr_check(sum.invol > 0, "schedule_invol",
		  "schedule_invol calls summed over %d CPU-bound processes: %" PRIu64
		  ", expected > 0 (%d processes per CPU must preempt each other)", nok, sum.invol,
		  PER_CPU);
	ktr_check(sum.irq > 0, "irq",
		  "irq calls summed over %d CPU-bound processes: %" PRIu64 ", expected > 0 "
		  "(the timer interrupt hits them)", nok, sum.irq);
	ktr_check(sum.timer > 0, "TIMER",
		  "TIMER softirq calls summed over %d CPU-bound processes: %" PRIu64
		  ", expected > 0 (run at irq exit, charged to the interrupted task)", nok, sum.timer);
	/* the rest arrive while the preempted task is in the scheduler or on
	 * its way back to user mode: more of them on a slow (debug) kernel */
	ktr_check(sum.irq > 0 && sum.irq_top * 3 >= sum.irq * 2, "irq-toplevel",
		  "of %" PRIu64 " irq calls %" PRIu64 " have no caller, expected >= 2/3 "
		  "(the busy loop is user mode)", sum.irq, sum.irq_top);
	ktr_check(maxsys <= MAX_SETUP_SYSCALLS, "few-syscalls",
		  "a busy child has %" PRIu64 " syscall calls, expected <= %d (its loop makes none)",
		  maxsys, MAX_SETUP_SYSCALLS);
	ktr_check(!bad_groups, "groups", "%s (expected sched/irq/softirq)", groups);
	return ktr_exit();
}
