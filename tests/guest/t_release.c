// SPDX-License-Identifier: GPL-2.0
/*
 * release — no wait in release_task() that another task's scheduling
 * decides.  A process P whose SIGCHLD is ignored has a child C reaped
 * automatically; C pins P for its fold as it dies.  P's own release (in
 * its parent's wait()) used to sleep until C had folded, so the reaper
 * sat in D state for as long as C took to be scheduled.  Now the last of
 * C's and P's releases folds P on up, and the reaper never waits.
 *
 * Each round: C records NCTX user contexts (a table of a few thousand
 * records, slow to fold), becomes SCHED_IDLE on CPU 0 next to a busy
 * loop, and exits at a point of a tick that the round chooses
 * (align_exit()); P sees C's exit through a pidfd and exits at once; this
 * process (G) reaps P.  Checks:
 *   - in at least one round, right after the reap, G's children block
 *     says a fold is pending (C's fold was still to come: the round really
 *     tested a slow child; EEVDF sometimes gives C the slice it needs);
 *     while none has, rounds go on past ROUNDS, up to MAX_ROUNDS
 *     (CPU_MAX_ROUNDS with cpu.max): on a kernel without KASAN, C's fold
 *     is shorter than a tick, preempted only in rounds whose tick falls
 *     in it;
 *   - in every such round, G's waitpid(P) returned within 100 ms of P
 *     seeing C's exit, or else at least 4 times sooner than C's fold
 *     arrived.  The second bound is for the KASAN kernel under TCG on a
 *     loaded host, where P's exit alone takes 30-160 ms of the guest's
 *     clock (which follows the host's) while C's fold takes 1.5-30 s
 *     (1.5 s at the least seen with cpu.max: 1/20 of it was below P's
 *     exit on a host building a kernel beside the guest): a reap that
 *     waited for C, as it used to, or for a lock C holds while folding,
 *     takes the whole fold and fails both;
 *   - once nothing is pending, G's children total is exact: every getppid()
 *     of P and C, 2 processes a round (over what the block held before:
 *     the test runs in a process that reaped others before its exec).
 * Then the same rounds with C slowed down by a cgroup instead, whose
 * cpu.max gives it 1 ms of CPU every 250 ms (checks cpu-max-*), C's quota
 * spent as it exits and P on its CPU (spend_quota()), where the kernel
 * has the cgroup v2 cpu controller (tests/configs/debug.config, make
 * check's kernel, has it).
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PR_KTAU_SET_CONTEXT 0x4b544155
#define NCTX 500		/* C's user contexts: 2 records each */
#define P_CALLS 7
#define ROUNDS 4
#define MAX_ROUNDS 32		/* while no round had a slow child */
/*
 * cpu.max's rounds: up to a second each (C waits for its quota); on a
 * kernel without KASAN, where a fold is far shorter than the quota, only
 * those whose throttle falls in C's exit have a slow child (spend_quota())
 */
#define CPU_MAX_ROUNDS 64
#define REAP_LIMIT_NS 100000000LL
#define CGROUP_ROOT "/sys/fs/cgroup"
#define SLOW_CGROUP CGROUP_ROOT "/ktau-release-slow"
#define SLOW_CPU_MAX "1000 250000"	/* 1 ms every 250 ms */
#define SLOW_QUOTA_NS 1000000LL
#define SLOW_GAP_NS 50000000LL	/* throttled: far longer than a tick */

static volatile uint32_t ctx_word;

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/*
 * Before C exits as SCHED_IDLE: wait until it is scheduled back in (a gap
 * in the clock), which on CPU 0, shared with the busy loop, is at a tick;
 * its slice ends at the next one, where it goes off the CPU for long.
 * Then spin for a part of a tick that round @r chooses, so that over the
 * rounds that tick falls all along C's exit, in steps of 1/MAX_ROUNDS of
 * a tick.  Only a tick between C's exit_notify() and the end of its fold
 * makes the round's fold pending, and on a kernel without KASAN that is
 * a small part of a tick: left to chance, none in 16 rounds at times on
 * arm64's make check-arm64 kernel.  (With cpu.max, spend_quota() makes
 * the throttle fall in C's exit instead.)
 */
static void align_exit(int r)
{
	struct timespec res = { 0 };
	int64_t tick = 4000000, start, last, now, spin;

	if (!clock_getres(CLOCK_MONOTONIC_COARSE, &res) && res.tv_nsec > 0 &&
	    !res.tv_sec)
		tick = res.tv_nsec;
	start = last = now_ns();
	/* a bound: a C that never is preempted exits all the same */
	while ((now = now_ns()) - last < tick / 2 && now - start < 10000000000LL)
		last = now;
	spin = tick * ((r * 13) % MAX_ROUNDS) / MAX_ROUNDS +
	       tick / (2 * MAX_ROUNDS);
	while (now_ns() - now < spin)
		;
}

static int64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * In the cgroup: run until C has used more than a whole quota since the
 * cgroup last let it run again (a gap in the clock far longer than a
 * tick: the rest of cpu.max's period), so that its quota is spent and
 * its next accounting throttles it.  That accounting is a tick, or P's
 * wake-up on C's CPU as C exits (P waits there for it): then C is
 * throttled at the fold's first cond_resched() and its fold is still to
 * come when P is reaped.  Left to a tick alone, on a kernel without
 * KASAN (a fold far shorter than the 1 ms quota), no fold was slow in 64
 * rounds on arm64's make check-arm64 kernel.
 */
static void spend_quota(void)
{
	int64_t start, last, now, used0;

	start = last = now_ns();
	used0 = cpu_ns();
	while ((now = now_ns()) - start < 10000000000LL) {
		if (now - last >= SLOW_GAP_NS)
			used0 = cpu_ns();
		last = now;
		if (cpu_ns() - used0 >= SLOW_QUOTA_NS + SLOW_QUOTA_NS / 20)
			break;
	}
}

/*
 * C: NCTX contexts with one getppid() each, then a slow exit on CPU 0:
 * SCHED_IDLE, its exit placed by round @r (align_exit()), or in the
 * cgroup whose cgroup.procs is @cgroup_procs.
 */
static void slow_child(const char *cgroup_procs, int r)
{
	struct sched_param sp = { 0 };

	if (prctl(PR_KTAU_SET_CONTEXT, (unsigned long)&ctx_word, 0UL, 0UL, 0UL))
		_exit(2);
	for (uint32_t v = 1; v <= NCTX; v++) {
		ctx_word = v;
		syscall(SYS_getppid);
	}
	ctx_word = 0;
	if (pin_to(0))
		_exit(3);
	if (cgroup_procs ? ktr_write_file(cgroup_procs, "0\n") :
			   sched_setscheduler(0, SCHED_IDLE, &sp))
		_exit(3);
	if (cgroup_procs)
		spend_quota();
	else
		align_exit(r);
	_exit(0);
}

/* P: fork C, let the kernel reap it, exit as soon as it is dead. */
static void parent(int out, const char *cgroup_procs, int r)
{
	struct pollfd pfd = { .events = POLLIN };
	int64_t t;
	pid_t c;

	signal(SIGCHLD, SIG_IGN);
	/* with cpu.max: its wake-up at C's exit accounts C's quota */
	if (cgroup_procs && pin_to(0))
		_exit(3);
	for (int i = 0; i < P_CALLS; i++)
		syscall(SYS_getppid);
	c = fork();
	if (c == 0)
		slow_child(cgroup_procs, r);
	if (c < 0)
		_exit(4);
	pfd.fd = (int)syscall(SYS_pidfd_open, c, 0);
	if (pfd.fd < 0 || poll(&pfd, 1, 60000) != 1)
		_exit(5);
	t = now_ns();
	_exit(write(out, &t, sizeof(t)) == sizeof(t) ? 0 : 6);
}

/* This process's children block: processes and getppid() calls; 0, or
 * -1 after a FAIL line. */
static int children_now(long *processes, uint64_t *calls)
{
	struct ktr_profile p;
	struct ktr_block *b;

	*calls = 0;
	if (ktr_load_settled("/proc/self/ktau", &p, "settle"))
		return -1;
	b = ktr_block_kind(&p, "children", 0);
	*processes = b ? b->processes : -1;
	if (b)
		ktr_func(b, "getppid", calls, NULL, NULL);
	else
		ktr_fail("settle", "/proc/self/ktau has no kind=children block");
	ktr_free(&p);
	return b ? 0 : -1;
}

static long pending_now(void)
{
	struct ktr_profile p;
	struct ktr_block *b;
	long n = -1;

	if (ktr_load("/proc/self/ktau", 0, &p, "pending-read"))
		return -1;
	b = ktr_block_kind(&p, "children", 0);
	if (b)
		n = b->pending;
	ktr_free(&p);
	return n;
}

/*
 * One scenario: fork P (and so C), reap P.  *delay: from P seeing C's
 * exit to P reaped; *pending: this process's pending folds right after.
 * 0, or -1 after a FAIL line.
 */
static int one_round(int r, const char *cgroup_procs, int64_t *delay,
		     long *pending)
{
	int64_t seen = 0;
	int fds[2], status = -1;
	pid_t p;

	if (pipe(fds)) {
		ktr_fail("setup", "pipe: %s", strerror(errno));
		return -1;
	}
	p = fork();
	if (p == 0) {
		close(fds[0]);
		parent(fds[1], cgroup_procs, r);
	}
	close(fds[1]);
	if (p < 0 || read(fds[0], &seen, sizeof(seen)) != sizeof(seen)) {
		ktr_fail("round", "round %d: P reported no exit of C", r);
		close(fds[0]);
		if (p > 0)
			waitpid(p, NULL, 0);
		return -1;
	}
	close(fds[0]);
	waitpid(p, &status, 0);
	*delay = now_ns() - seen;
	*pending = pending_now();
	if (status) {
		ktr_fail("round", "round %d: P's exit status %d", r, status);
		return -1;
	}
	return 0;
}

/*
 * ROUNDS rounds (more, up to @max_rounds, until one had a slow child)
 * with C slowed down as @cgroup_procs says (NULL:
 * SCHED_IDLE), their checks named @prefix + what they check.
 */
static void slow_rounds(const char *prefix, const char *cgroup_procs,
			int max_rounds)
{
	int64_t worst = 0, settle_ns = 0, delay, t0;
	int deferred = 0, late = 0, rounds = 0, stopped = 0;
	long processes0, processes, pending;
	uint64_t calls0, calls;
	char name[64];

	if (children_now(&processes0, &calls0))
		return;
	for (int r = 0; r < ROUNDS || (!deferred && r < max_rounds); r++) {
		int64_t settle;

		stopped = 1;
		if (one_round(r, cgroup_procs, &delay, &pending))
			break;
		t0 = now_ns();
		if (children_now(&processes, &calls))
			break;
		settle = now_ns() - t0;
		snprintf(name, sizeof(name), "%sround", prefix);
		ktr_info(name, "%d: reaped %" PRId64 " us after C's exit, pending %ld, "
			 "C's fold arrived %" PRId64 " ms later", r, delay / 1000, pending,
			 settle / 1000000);
		if (pending > 0) {
			deferred++;
			settle_ns += settle;
			if (delay > worst)
				worst = delay;
			late += delay > REAP_LIMIT_NS && delay * 4 > settle;
		}
		processes -= processes0;
		calls -= calls0;
		if (processes != 2 * (r + 1) ||
		    calls != (uint64_t)(r + 1) * (NCTX + P_CALLS)) {
			snprintf(name, sizeof(name), "%sexact", prefix);
			ktr_fail(name, "round %d: the children block gained processes=%ld "
				 "getppid=%" PRIu64 ", expected %d and %d", r, processes,
				 calls, 2 * (r + 1), (r + 1) * (NCTX + P_CALLS));
			break;
		}
		rounds++;
		stopped = 0;
	}
	snprintf(name, sizeof(name), "%srounds", prefix);
	ktr_check(!stopped, name, "round %d did not complete", rounds);
	snprintf(name, sizeof(name), "%sexact", prefix);
	if (!stopped)
		ktr_pass(name);
	snprintf(name, sizeof(name), "%stimes", prefix);
	if (deferred)
		ktr_info(name, "%d rounds with a slow child: worst reap %" PRId64 " us "
			 "after P saw C's exit; C's fold arrived %" PRId64 " ms after the "
			 "reap on average (what the reaper used to wait)", deferred,
			 worst / 1000, settle_ns / deferred / 1000000);
	snprintf(name, sizeof(name), "%sreap-not-delayed", prefix);
	ktr_check(!late, name, "%d of %d reaps of P with a slow child took "
		  "more than 100 ms after C's exit and more than 1/4 of C's fold "
		  "(worst %" PRId64 " us)", late, deferred, worst / 1000);
	snprintf(name, sizeof(name), "%sslow-child-tested", prefix);
	ktr_check(deferred > 0, name, "in no round was C's fold still "
		  "to come when P was reaped: the test did not exercise a slow child");
}

/*
 * A cgroup whose cpu.max gives its tasks 1 ms of CPU every 250 ms: the
 * path of its cgroup.procs, or NULL after an INFO line (a kernel without
 * the cgroup v2 cpu controller) or a FAIL line.
 */
static const char *slow_cgroup(void)
{
	char controllers[256] = "", padded[260];
	FILE *f;

	mkdir(CGROUP_ROOT, 0755);
	if (mount("cgroup2", CGROUP_ROOT, "cgroup2", 0, NULL) && errno != EBUSY) {
		ktr_info("cpu-max", "no cgroup v2 here (mount: %s): the cpu.max "
			 "rounds need a kernel with CONFIG_CFS_BANDWIDTH, as "
			 "tests/configs/debug.config's", strerror(errno));
		return NULL;
	}
	f = fopen(CGROUP_ROOT "/cgroup.controllers", "r");
	if (f) {
		if (!fgets(controllers, sizeof(controllers), f))
			controllers[0] = 0;
		fclose(f);
	}
	controllers[strcspn(controllers, "\n")] = 0;
	/* a word of the list: not cpuset */
	snprintf(padded, sizeof(padded), " %s ", controllers);
	if (!strstr(padded, " cpu ")) {
		ktr_info("cpu-max", "no cgroup cpu controller here (controllers: "
			 "\"%s\"): the cpu.max rounds need CONFIG_CFS_BANDWIDTH, "
			 "as tests/configs/debug.config's", controllers);
		return NULL;
	}
	if (ktr_write_file(CGROUP_ROOT "/cgroup.subtree_control", "+cpu\n") ||
	    (mkdir(SLOW_CGROUP, 0755) && errno != EEXIST) ||
	    ktr_write_file(SLOW_CGROUP "/cpu.max", SLOW_CPU_MAX "\n")) {
		ktr_fail("cpu-max-setup", "a cgroup with cpu.max \"%s\": %s",
			 SLOW_CPU_MAX, strerror(errno));
		return NULL;
	}
	return SLOW_CGROUP "/cgroup.procs";
}

int main(void)
{
	const char *cgroup_procs;
	long processes, pending;
	int64_t delay;
	uint64_t calls;
	pid_t busy;

	ktr_init("release");
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		ktr_fail("cpus", "needs 2 CPUs: the busy loop takes CPU 0");
		return ktr_exit();
	}
	busy = fork();
	if (busy == 0) {
		if (pin_to(0))
			_exit(2);
		for (;;)
			;
	}
	if (busy < 0 || pin_to(1)) {
		ktr_fail("setup", "busy loop or CPU 1: %s", strerror(errno));
		return ktr_exit();
	}
	slow_rounds("", NULL, MAX_ROUNDS);

	/*
	 * A clear while P's fold waits for C's: P has no pid any more, and
	 * the clear must empty it all the same.  Nothing from before the
	 * clear may reach this process's children block.
	 */
	pending = 0;
	for (int r = ROUNDS; r < ROUNDS + MAX_ROUNDS && pending <= 0; r++) {
		if (one_round(r, NULL, &delay, &pending))
			break;
		/* C was quick this time: let it end before the next round */
		if (pending <= 0 && children_now(&processes, &calls))
			break;
	}
	if (pending > 0) {
		if (ktr_ctl("clear")) {
			ktr_fail("clear-while-pending", "clear: %s", strerror(errno));
		} else if (children_now(&processes, &calls) == 0) {
			ktr_check(processes == 0 && calls == 0, "clear-while-pending",
				  "after a clear while P's fold was pending, the children "
				  "block shows processes=%ld getppid=%" PRIu64 ", expected 0 "
				  "and 0", processes, calls);
		}
	} else {
		ktr_fail("clear-while-pending", "in %d rounds C's fold never was still "
			 "to come when P was reaped (pending %ld)", MAX_ROUNDS, pending);
	}

	cgroup_procs = slow_cgroup();
	if (cgroup_procs) {
		slow_rounds("cpu-max-", cgroup_procs, CPU_MAX_ROUNDS);
		/* empty once every C is gone: the last round's fold settled */
		if (rmdir(SLOW_CGROUP))
			ktr_info("cpu-max", "rmdir %s: %s", SLOW_CGROUP, strerror(errno));
	}
	kill(busy, SIGKILL);
	waitpid(busy, NULL, 0);
	return ktr_exit();
}
