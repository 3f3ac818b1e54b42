// SPDX-License-Identifier: GPL-2.0
/*
 * skew — a system call that starts on one CPU and ends on another whose
 * TSC lags records an inclusive time of 0, never a wrapped 2^64, and the
 * profile stays readable and consistent (excl <= incl everywhere).
 *
 * A child pinned to CPU 0 blocks in read() on a pipe; root moves it to
 * CPU 1, sets CPU 1's TSC about 0.25 s behind CPU 0's (the test module's
 * `skew`), and writes to the pipe: the read() and the schedule_vol under
 * it end on CPU 1, before they started by its clock.  The child then
 * reads its own profile.  CPU 1's TSC is set back right after.
 * Needs 2 CPUs; says so (INFO) and passes trivially on one.
 */
#define _GNU_SOURCE
#include "kmodctl.h"
#include "ktr.h"

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define SKEW	500000000LL

static int pin(pid_t pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(pid, sizeof(set), &set);
}

/* The child: blocked read, then its own profile, reported on fd out. */
static int child(int in, int out)
{
	struct ktr_profile p;
	struct ktr_block *b;
	uint64_t calls = 0, incl = 0, excl = 0, bad = 0;
	char c, path[64], line[256];
	int n;

	if (pin(0, 0) || read(in, &c, 1) != 1)
		return 1;
	snprintf(path, sizeof(path), "/proc/self/task/%ld/ktau", (long)syscall(SYS_gettid));
	if (ktr_load(path, 0, &p, "load"))
		return 2;
	b = ktr_block_kind(&p, "thread", 0);
	if (b) {
		ktr_func(b, "read", &calls, &incl, &excl);
		for (size_t i = 0; i < b->nfuncs; i++)
			if (b->funcs[i].excl > b->funcs[i].incl)
				bad++;
	}
	n = snprintf(line, sizeof(line), "%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %"
		     PRIu64 "\n", calls, incl, excl, bad, p.tsc_khz);
	ktr_free(&p);
	return write(out, line, n) == n ? 0 : 3;
}

/*
 * The test module opens ktau_test_skewed with its start moved SKEW cycles
 * ahead of the clock, and closes it: the stop reads a clock that went
 * back.  The routine records 0 cycles, its caller (the write()) stays
 * consistent.
 */
static void skew_frame(void)
{
	struct ktr_profile p;
	struct ktr_block *b;
	uint64_t c = 0, in = 0, ex = 0, wc = 0, wi = 0, we = 0;

	if (kmod_cmd("skewframe %lld", SKEW) || kmod_field("depth", 0) < 2) {
		ktr_fail("skewframe", "skewframe: %s", kmod_result);
		return;
	}
	if (ktr_load("/proc/self/ktau", 0, &p, "skewframe-load"))
		return;
	b = ktr_block_kind(&p, "process", 0);
	ktr_edge(b, "write", "ktau_test_skewed", &c, &in, &ex);
	ktr_func(b, "write", &wc, &wi, &we);
	ktr_check(c == 1 && in == 0 && ex == 0, "incl-clamped",
		  "write => ktau_test_skewed, stopped %lld cycles before its start: %" PRIu64
		  " calls, incl %" PRIu64 ", excl %" PRIu64 "; expected 1, 0, 0",
		  SKEW, c, in, ex);
	ktr_check(wc >= 1 && we <= wi && wi < (uint64_t)SKEW, "excl-le-incl",
		  "the write() around it: %" PRIu64 " calls, incl %" PRIu64 ", excl %" PRIu64,
		  wc, wi, we);
	ktr_free(&p);
}

int main(void)
{
	uint64_t calls = 0, incl = 0, excl = 0, bad = 0, khz = 0;
	int to[2], from[2], loaded, st;
	long long behind;
	char buf[256] = "";
	pid_t c;

	ktr_init("skew");
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		ktr_skip("cpus", "one CPU online, nothing to migrate to: needs 2 or more "
			 "(QEMU_SMP=2)");
		return ktr_exit();
	}
	loaded = kmod_load("kmod");
	if (loaded < 0)
		return ktr_exit();
	if (pipe(to) || pipe(from) || pin(0, 0)) {
		ktr_fail("setup", "%s", strerror(errno));
		return ktr_exit();
	}
	c = fork();
	if (c == 0)
		_exit(child(to[0], from[1]));
	if (ktr_wait_sleeping(c)) {
		ktr_fail("blocked", "the child never blocked in read()");
		kill(c, SIGKILL);
		waitpid(c, &st, 0);
		return ktr_exit();
	}
	pin(c, 1);
	kmod_cmd("skew 1 %lld", SKEW);
	behind = kmod_field("behind", 0);
	if (write(to[1], "x", 1) != 1)
		ktr_fail("wake", "write: %s", strerror(errno));
	if (read(from[0], buf, sizeof(buf) - 1) <= 0 ||
	    sscanf(buf, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64,
		   &calls, &incl, &excl, &bad, &khz) != 5)
		ktr_fail("report", "the child could not read or parse its profile");
	kmod_cmd("skew 1 %lld", -SKEW);
	waitpid(c, &st, 0);
	ktr_info("skew", "CPU 1 was %lld cycles behind CPU 0; the migrated read(): %" PRIu64
		 " calls, incl %" PRIu64 ", excl %" PRIu64, behind, calls, incl, excl);
	if (behind < SKEW / 2) {
		ktr_info("skew-applied", "CPU 1's TSC is only %lld cycles behind after moving it "
			 "%lld back: this CPU model ignores wrmsr to the TSC (QEMU's TCG does); "
			 "the clock goes back for one routine instead", behind, SKEW);
		skew_frame();
	} else {
		ktr_check(calls >= 1 && incl <= khz * 1000, "incl-clamped",
			  "the read() that ended on a lagging CPU: %" PRIu64 " calls, incl %" PRIu64
			  " cycles, expected >= 1 call and at most a second (%" PRIu64 ")",
			  calls, incl, khz * 1000);
		ktr_check(excl <= incl && !bad, "excl-le-incl",
			  "read excl %" PRIu64 " > incl %" PRIu64 ", or %" PRIu64 " lines with "
			  "excl > incl", excl, incl, bad);
	}
	kmod_unload(loaded);
	return ktr_exit();
}
