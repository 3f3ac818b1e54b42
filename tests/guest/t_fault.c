// SPDX-License-Identifier: GPL-2.0
/*
 * fault — page faults are counted, top level from user mode, as children of
 * the system call that faulted in kernel mode.
 *
 *  1. touch 256 fresh anonymous pages: page_fault calls with no caller grow
 *     by >= 256 in the thread's profile;
 *  2. one read() of 64 KiB from /dev/zero into a fresh mmap'd buffer (16
 *     pages, faulted in by the kernel's copy): the edge read => page_fault
 *     grows by >= 1 (16 expected; the count is reported).
 * Profiles are read into a pre-faulted buffer, so that reading them causes
 * no faults of its own inside read().
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NPAGES 256
#define READ_BYTES (64 * 1024)

static char pbuf[1 << 20];
static char path[64];

static int load(struct ktr_profile *p, struct ktr_block **b, const char *check)
{
	if (ktr_load_buf(path, pbuf, sizeof(pbuf), p, check))
		return -1;
	*b = ktr_block_kind(p, "thread", 0);
	if (!*b) {
		ktr_fail(check, "%s has no kind=thread block", path);
		ktr_free(p);
		return -1;
	}
	return 0;
}

int main(void)
{
	struct ktr_profile p0, p1, p2;
	struct ktr_block *b0, *b1, *b2;
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t t0, t1, f0, f1, e1, e2, c1, c2;
	volatile char *mem;
	char *buf;
	ssize_t n;
	int fd;

	ktr_init("fault");
	memset(pbuf, ' ', sizeof(pbuf));	/* pre-fault */
	snprintf(path, sizeof(path), "/proc/self/task/%ld/ktau", (long)syscall(SYS_gettid));
	mem = mmap(NULL, (size_t)(NPAGES * pg), PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	buf = mmap(NULL, READ_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED || buf == MAP_FAILED) {
		ktr_fail("mmap", "%s", strerror(errno));
		return ktr_exit();
	}
	madvise((void *)mem, (size_t)(NPAGES * pg), MADV_NOHUGEPAGE);	/* may fail: no THP */
	madvise(buf, READ_BYTES, MADV_NOHUGEPAGE);
	fd = open("/dev/zero", O_RDONLY);
	if (fd < 0) {
		ktr_fail("open", "/dev/zero: %s", strerror(errno));
		return ktr_exit();
	}

	/* 1. user-mode faults */
	if (load(&p0, &b0, "baseline"))
		return ktr_exit();
	for (int i = 0; i < NPAGES; i++)
		mem[(long)i * pg] = 1;
	if (load(&p1, &b1, "after-touch"))
		return ktr_exit();
	t0 = ktr_toplevel(b0, "page_fault");
	t1 = ktr_toplevel(b1, "page_fault");
	ktr_func(b0, "page_fault", &f0, NULL, NULL);
	ktr_func(b1, "page_fault", &f1, NULL, NULL);
	ktr_info("touch", "page_fault calls grew by %" PRIu64 ", with no caller by %" PRIu64
		 " (%d pages touched)", f1 - f0, t1 - t0, NPAGES);
	ktr_check(t1 - t0 >= NPAGES, "user-faults",
		  "page_fault calls with no caller (func minus edges) grew by %" PRIu64
		  " (all page_fault calls by %" PRIu64 "), expected >= %d after touching %d fresh "
		  "anonymous pages", t1 - t0, f1 - f0, NPAGES, NPAGES);
	{
		const char *g = ktr_func_group(b1, "page_fault");

		ktr_check(g && !strcmp(g, "exception"), "page_fault-group",
			  "func page_fault has group %s, expected exception", g ? g : "(no func line)");
	}

	/* 2. kernel-mode faults inside read() */
	n = read(fd, buf, READ_BYTES);
	if (!ktr_check(n == READ_BYTES, "read-dev-zero", "read(/dev/zero, %d) returned %zd (%s)",
		       READ_BYTES, n, n < 0 ? strerror(errno) : "-"))
		return ktr_exit();
	if (load(&p2, &b2, "after-read"))
		return ktr_exit();
	ktr_edge(b1, "read", "page_fault", &e1, NULL, NULL);
	ktr_edge(b2, "read", "page_fault", &e2, NULL, NULL);
	ktr_func(b1, "read", &c1, NULL, NULL);
	ktr_func(b2, "read", &c2, NULL, NULL);
	ktr_info("read", "edge read => page_fault grew by %" PRIu64 " calls over %" PRIu64
		 " read() calls (one of them the 64 KiB read into %d fresh pages)", e2 - e1,
		 c2 - c1, (int)(READ_BYTES / pg));
	ktr_check(e2 - e1 >= 1, "read-faults",
		  "edge read => page_fault grew by %" PRIu64 " calls, expected >= 1 (read() of "
		  "64 KiB into a fresh mmap'd buffer faults it in from kernel mode)", e2 - e1);
	close(fd);
	ktr_free(&p0);
	ktr_free(&p1);
	ktr_free(&p2);
	return ktr_exit();
}
