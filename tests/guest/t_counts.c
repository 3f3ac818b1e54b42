// SPDX-License-Identifier: GPL-2.0
/*
 * counts — exact syscall counts in the caller's own profile.
 *
 * Makes exactly 1000 getpid() (raw syscall, no libc caching) and 500 read()s
 * of 16 bytes from /dev/zero, then reads /proc/self/ktau and
 * /proc/self/task/<tid>/ktau, each with ONE read() call (the read() in
 * progress is not yet counted; every earlier completed one is).
 *
 * A baseline read of /proc/self/ktau at the start tells what the process had
 * before the workload (expected: nothing: no getpid or read between the
 * shell's fork and this point), so the workload checks are exact deltas and
 * the start state is a check of its own.
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NGETPID 1000
#define NREAD 500

int main(void)
{
	struct ktr_profile base, self, task;
	uint64_t g0 = 0, r0 = 0, g, r, incl, excl;
	struct ktr_block *b;
	char path[64], buf[16];
	long pid = 0, tid;
	int fd, bad = 0, have_base, have_self, have_task;

	ktr_init("counts");
	tid = syscall(SYS_gettid);

	/* baseline: one read() of our own profile */
	have_base = ktr_load("/proc/self/ktau", 1, &base, "baseline") == 0;
	if (have_base) {
		b = ktr_block_kind(&base, "process", 0);
		ktr_func(b, "getpid", &g0, NULL, NULL);
		ktr_func(b, "read", &r0, NULL, NULL);
		ktr_check(b && g0 == 0 && r0 == 0, "start-clean",
			  "at program start getpid=%" PRIu64 " read=%" PRIu64
			  " (expected 0 and 0; process block %s)", g0, r0, b ? "found" : "MISSING");
	}

	/* the workload */
	for (int i = 0; i < NGETPID; i++)
		pid = syscall(SYS_getpid);
	fd = open("/dev/zero", O_RDONLY);
	if (fd < 0) {
		ktr_fail("open-dev-zero", "open(/dev/zero): %s", strerror(errno));
		return ktr_exit();
	}
	for (int i = 0; i < NREAD; i++)
		if (read(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			bad++;
	close(fd);
	ktr_check(bad == 0, "read-dev-zero", "%d of %d reads of /dev/zero did not return 16 bytes",
		  bad, NREAD);

	/* /proc/self/ktau: one read(); counted so far: base read + NREAD */
	have_self = ktr_load("/proc/self/ktau", 1, &self, "self-read-profile") == 0;
	if (have_self) {
		b = ktr_block_kind(&self, "process", 0);
		if (!b) {
			ktr_fail("self-block", "/proc/self/ktau has no kind=process block");
		} else {
			ktr_check(b->pid == pid, "self-pid", "process block pid=%ld, getpid() says %ld",
				  b->pid, pid);
			ktr_func(b, "getpid", &g, &incl, &excl);
			ktr_check(g - g0 == NGETPID, "self-getpid",
				  "getpid calls %" PRIu64 " (baseline %" PRIu64 "), expected %d more",
				  g, g0, NGETPID);
			ktr_func(b, "read", &r, NULL, NULL);
			ktr_check(r - r0 == NREAD + (uint64_t)have_base, "self-read",
				  "read calls %" PRIu64 " (baseline %" PRIu64 "), expected %d more "
				  "(%d from /dev/zero + %d baseline read of /proc/self/ktau)",
				  r, r0, NREAD + have_base, NREAD, have_base);
			ktr_check(incl > 0 && excl > 0 && excl <= incl, "self-getpid-cycles",
				  "getpid incl=%" PRIu64 " excl=%" PRIu64 ", expected 0 < excl <= incl",
				  incl, excl);
		}
	}

	/* /proc/self/task/<tid>/ktau: same counts, one more read */
	snprintf(path, sizeof(path), "/proc/self/task/%ld/ktau", tid);
	have_task = ktr_load(path, 1, &task, "task-read-profile") == 0;
	if (have_task) {
		b = ktr_block_kind(&task, "thread", 0);
		if (!b) {
			ktr_fail("task-block", "%s has no kind=thread block", path);
		} else {
			ktr_check(b->pid == pid && b->tid == tid, "task-ids",
				  "thread block pid=%ld tid=%ld, expected pid=%ld tid=%ld",
				  b->pid, b->tid, pid, tid);
			ktr_func(b, "getpid", &g, NULL, NULL);
			ktr_check(g - g0 == NGETPID, "task-getpid",
				  "getpid calls %" PRIu64 " (baseline %" PRIu64 "), expected %d more",
				  g, g0, NGETPID);
			ktr_func(b, "read", &r, NULL, NULL);
			ktr_check(r - r0 == NREAD + (uint64_t)have_base + (uint64_t)have_self,
				  "task-read",
				  "read calls %" PRIu64 " (baseline %" PRIu64 "), expected %d more",
				  r, r0, NREAD + have_base + have_self);
		}
	}
	return ktr_exit();
}
