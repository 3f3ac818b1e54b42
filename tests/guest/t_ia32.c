// SPDX-License-Identifier: GPL-2.0
/*
 * ia32 — the 32-bit system call path (int $0x80 from this 64-bit program
 * enters do_int80_emulation(), then do_syscall_32_irqs_on()) is timed too:
 * an i386 getpid (20) counts under the same `getpid` as the 64-bit one, an
 * i386-only call (waitpid, 7) under `ia32_waitpid`, exactly.
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <inttypes.h>
#include <sys/syscall.h>
#include <unistd.h>

#define IA32_GETPID	20
#define IA32_WAITPID	7
#define NGETPID		100
#define NWAITPID	9

static long int80(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile ("int $0x80"
			  : "=a" (ret)
			  : "a" (nr), "b" (a), "c" (b), "d" (c)
			  : "memory", "r8", "r9", "r10", "r11");
	return ret;
}

static uint64_t calls_of(struct ktr_profile *p, const char *name)
{
	uint64_t n = 0;

	ktr_func(ktr_block_kind(p, "process", 0), name, &n, NULL, NULL);
	return n;
}

int main(void)
{
	struct ktr_profile base, after;
	long pid = syscall(SYS_getpid), got = 0;
	int bad = 0;

	ktr_init("ia32");
	if (ktr_load("/proc/self/ktau", 1, &base, "baseline") != 0)
		return ktr_exit();
	for (int i = 0; i < NGETPID; i++) {
		got = int80(IA32_GETPID, 0, 0, 0);
		bad += got != pid;
	}
	ktr_check(!bad, "int80-getpid", "%d of %d int $0x80 getpid calls returned %ld, "
		  "expected %ld (is CONFIG_IA32_EMULATION on?)", bad, NGETPID, got, pid);
	/* waitpid(-1, NULL, WNOHANG) with no children: -ECHILD, no harm */
	bad = 0;
	for (int i = 0; i < NWAITPID; i++) {
		got = int80(IA32_WAITPID, -1, 0, 1);
		bad += got != -ECHILD;
	}
	ktr_check(!bad, "int80-waitpid", "%d of %d ia32 waitpid calls returned %ld, "
		  "expected %d", bad, NWAITPID, got, -ECHILD);
	if (ktr_load("/proc/self/ktau", 1, &after, "after") != 0)
		return ktr_exit();
	ktr_check(calls_of(&after, "getpid") - calls_of(&base, "getpid") == NGETPID,
		  "getpid-counted", "getpid grew by %" PRIu64 ", expected exactly %d",
		  calls_of(&after, "getpid") - calls_of(&base, "getpid"), NGETPID);
	ktr_check(calls_of(&after, "ia32_waitpid") - calls_of(&base, "ia32_waitpid") == NWAITPID,
		  "ia32-only-counted", "ia32_waitpid grew by %" PRIu64 ", expected exactly %d",
		  calls_of(&after, "ia32_waitpid") - calls_of(&base, "ia32_waitpid"), NWAITPID);
	ktr_free(&base);
	ktr_free(&after);
	return ktr_exit();
}
