// SPDX-License-Identifier: GPL-2.0
/*
 * ctxreg — the user context word's registration (prctl), as an
 * unprivileged user:
 *   - PR_KTAU_GET_CONTEXT gives the registered address (0 for none);
 *     registering twice is EBUSY, unregistering with none ENOENT, a
 *     misaligned word or nonzero flags EINVAL, a kernel address EFAULT;
 *   - registrations are counted (the control file's `contexts` line) and
 *     every way a word goes drops its count: unregister, exec, exit, the
 *     exit of a thread, of a forked child that inherited the word; after
 *     the last one the count is back where it was (and the system call
 *     entry no longer reads a word: `make bench` measures that cost);
 *   - a registered word whose page is unmapped reads as context 0: the
 *     calls are still counted, nothing crashes.
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define PR_KTAU_SET_CONTEXT 0x4b544155
#define PR_KTAU_GET_CONTEXT 0x4b544156
#define NOBODY 65534

static volatile uint32_t word __attribute__((aligned(8)));

static long set_ctx(unsigned long addr, unsigned long flags)
{
	return prctl(PR_KTAU_SET_CONTEXT, addr, flags, 0UL, 0UL) ? -errno : 0;
}

static unsigned long get_ctx(void)
{
	uint64_t addr = 12345;

	if (prctl(PR_KTAU_GET_CONTEXT, (unsigned long)&addr, 0UL, 0UL, 0UL))
		return (unsigned long)-errno;
	return addr;
}

/* The `contexts` line of the control file (root reads it). */
static long contexts(void)
{
	char *text = ktr_ctl_read(), v[64];
	long n = -1;

	if (text && !ktr_ctl_field(text, "contexts", v, sizeof(v)))
		n = strtol(v, NULL, 10);
	free(text);
	return n;
}

/* ---- as nobody: the interface ---- */

static int interface(void)
{
	int bad = 0;
	long r;

#define EXPECT(expr, want, what) do {					\
		long got = (expr);					\
		if (got != (long)(want)) {				\
			printf("FAIL: ctxreg/prctl: %s returned %ld, expected %ld\n", \
			       what, got, (long)(want));		\
			bad++;						\
		}							\
	} while (0)

	EXPECT(get_ctx(), 0, "GET with none registered");
	EXPECT(set_ctx(0, 0), -ENOENT, "unregister with none registered");
	EXPECT(set_ctx((unsigned long)&word + 1, 0), -EINVAL, "a misaligned word");
	EXPECT(set_ctx((unsigned long)&word, 1), -EINVAL, "flags 1");
	EXPECT(set_ctx(0xffffffff81000000UL, 0), -EFAULT, "a kernel address");
	r = prctl(PR_KTAU_SET_CONTEXT, (unsigned long)&word, 0UL, 1UL, 0UL) ? -errno : 0;
	EXPECT(r, -EINVAL, "arg4 1");
	EXPECT(set_ctx((unsigned long)&word, 0), 0, "register");
	EXPECT(get_ctx(), (unsigned long)&word, "GET after register");
	EXPECT(set_ctx((unsigned long)&word, 0), -EBUSY, "register again");
	EXPECT(set_ctx(0, 0), 0, "unregister");
	EXPECT(get_ctx(), 0, "GET after unregister");
#undef EXPECT
	return bad;
}

/* ---- the count: steps driven by root through a pipe ---- */

static void *thread_fn(void *arg)
{
	static __thread volatile uint32_t tword;
	int *fds = arg;
	char c;

	set_ctx((unsigned long)&tword, 0);
	if (write(fds[1], "t", 1) != 1 || read(fds[0], &c, 1) != 1)
		return NULL;
	return NULL;	/* the thread's exit drops its word */
}

static void wait_for(int fd, char want)
{
	char c = 0;

	while (read(fd, &c, 1) == 1 && c != want)
		;
}

int main(int argc, char **argv)
{
	int up[2], down[2], tup[2], tdown[2];
	long base, n[8];
	pthread_t t;
	pid_t child, gc;
	int st;

	(void)argc;
	(void)argv;
	ktr_init("ctxreg");
	base = contexts();
	if (!ktr_check(base >= 0, "contexts-line", "no `contexts` line in %s", KTR_CONTROL))
		return ktr_exit();
	if (pipe(up) || pipe(down) || pipe(tup) || pipe(tdown)) {
		ktr_fail("pipe", "%s", strerror(errno));
		return ktr_exit();
	}
	child = fork();
	if (child == 0) {
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(2);
		if (interface())
			_exit(3);
		set_ctx((unsigned long)&word, 0);			/* +1 */
		if (write(up[1], "1", 1) != 1)
			_exit(4);
		wait_for(down[0], 'g');
		pthread_create(&t, NULL, thread_fn, (int[]){ tdown[0], tup[1] });
		wait_for(tup[0], 't');					/* +2 */
		if (write(up[1], "2", 1) != 1)
			_exit(4);
		wait_for(down[0], 'g');
		gc = fork();						/* +3 */
		if (gc == 0) {
			wait_for(down[0], 'e');
			execl("/bin/true", "true", NULL);		/* exec drops */
			_exit(5);
		}
		if (write(up[1], "3", 1) != 1)
			_exit(4);
		waitpid(gc, &st, 0);					/* +2 */
		if (write(up[1], "4", 1) != 1)
			_exit(4);
		wait_for(down[0], 'g');
		if (write(tdown[1], "x", 1) != 1)
			_exit(4);
		pthread_join(t, NULL);					/* +1 */
		if (write(up[1], "5", 1) != 1)
			_exit(4);
		wait_for(down[0], 'g');
		/* the word's page goes: it reads as context 0 */
		{
			long pg = sysconf(_SC_PAGESIZE);
			uint32_t *w;

			set_ctx(0, 0);					/* +0 */
			w = mmap(NULL, pg, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (w == MAP_FAILED)
				_exit(6);
			*w = 7;
			set_ctx((unsigned long)w, 0);			/* +1 */
			munmap(w, pg);
			for (int i = 0; i < 1000; i++)
				syscall(SYS_getppid);
		}
		if (write(up[1], "6", 1) != 1)
			_exit(4);
		wait_for(down[0], 'g');
		_exit(0);						/* +0 */
	}
	for (int step = 1; step <= 6; step++) {
		char c = 0;

		if (read(up[0], &c, 1) != 1) {
			ktr_fail("steps", "the child stopped before step %d", step);
			break;
		}
		n[step - 1] = contexts();
		if (step == 3) {
			/* the grandchild, not the child, reads this one */
			if (write(down[1], "e", 1) != 1)
				break;
			continue;
		}
		if (step == 6) {
			struct ktr_profile p;
			struct ktr_block *b;
			char path[64];
			uint64_t calls = 0;

			snprintf(path, sizeof(path), "/proc/%d/ktau", (int)child);
			if (!ktr_load(path, 0, &p, "unmapped-word")) {
				b = ktr_block_kind(&p, "process", 0);
				for (size_t i = 0; b && i < b->nfuncs; i++)
					if (!strcmp(b->funcs[i].name, "getppid") && !b->funcs[i].ctx)
						calls += b->funcs[i].calls;
				ktr_check(calls == 1000, "unmapped-word",
					  "getppid with an unmapped context word: %" PRIu64
					  " calls under context 0, expected 1000", calls);
				ktr_free(&p);
			}
		}
		if (write(down[1], "g", 1) != 1)
			break;
	}
	waitpid(child, &st, 0);
	ktr_check(WIFEXITED(st) && !WEXITSTATUS(st), "prctl",
		  "the unprivileged child ended with status %#x (3: a prctl answer was wrong)", st);
	ktr_info("counts", "contexts: base %ld, then %ld %ld %ld %ld %ld %ld, after exit %ld",
		 base, n[0], n[1], n[2], n[3], n[4], n[5], contexts());
	ktr_check(n[0] == base + 1 && n[1] == base + 2 && n[2] == base + 3, "count-up",
		  "contexts %ld, %ld, %ld after a register, a thread's, a fork; expected %ld, %ld, %ld",
		  n[0], n[1], n[2], base + 1, base + 2, base + 3);
	ktr_check(n[3] == base + 2 && n[4] == base + 1, "count-down",
		  "contexts %ld after the forked child's exec, %ld after the thread's exit; "
		  "expected %ld, %ld", n[3], n[4], base + 2, base + 1);
	ktr_check(n[5] == base + 1 && contexts() == base, "count-exit",
		  "contexts %ld with the unmapped word, %ld after the exit; expected %ld, %ld",
		  n[5], contexts(), base + 1, base);
	return ktr_exit();
}
