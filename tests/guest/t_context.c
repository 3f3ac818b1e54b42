// SPDX-License-Identifier: GPL-2.0
/*
 * context — the user context word (prctl PR_KTAU_SET_CONTEXT), which keys
 * kernel time by the user routine a thread is in (the ctx column):
 *   - bad arguments: EINVAL (misaligned, extra arguments), EFAULT (a
 *     kernel address);
 *   - a thread that sets its word to 7, 9, then 0 between getpid() calls
 *     gets exactly 100, 50 and 25 getpid calls under ctx 7, 9 and 0;
 *   - page faults from user mode take the word's value too;
 *   - a word that cannot be read (its page unmapped) counts as ctx 0;
 *   - a new thread does not inherit the registration; a forked child
 *     does (its calls show under the parent's value, in the children
 *     block), and exec drops it (the exec'ed program's calls are ctx 0
 *     even though the same address holds a non-zero value there).
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
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

static volatile uint32_t process_word;	/* same address after exec */
static __thread volatile uint32_t thread_word;

static int set_context(const volatile void *addr)
{
	return prctl(PR_KTAU_SET_CONTEXT, (unsigned long)addr, 0, 0, 0);
}

static void getpids(int n)
{
	for (int i = 0; i < n; i++)
		syscall(SYS_getpid);
}

/* Calls of `name` under context `ctx` in block b. */
static uint64_t calls_in(const struct ktr_block *b, const char *name, uint64_t ctx)
{
	uint64_t c = 0;

	for (size_t i = 0; i < b->nfuncs; i++)
		if (b->funcs[i].ctx == ctx && !strcmp(b->funcs[i].name, name))
			c += b->funcs[i].calls;
	return c;
}

static int load_thread(long tid, struct ktr_profile *p, struct ktr_block **b,
		       const char *check)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%ld/ktau", tid);
	if (ktr_load(path, 0, p, check))
		return -1;
	*b = ktr_block_kind(p, "thread", 0);
	if (!*b) {
		ktr_fail(check, "%s: no thread block", path);
		ktr_free(p);
		return -1;
	}
	return 0;
}

static void check_bad_args(void)
{
	static uint32_t words[2];
	int r1, e1, r2, e2, r3, e3;

	r1 = prctl(PR_KTAU_SET_CONTEXT, (unsigned long)words + 1, 0, 0, 0);
	e1 = errno;
	r2 = prctl(PR_KTAU_SET_CONTEXT, (unsigned long)words, 1, 0, 0);
	e2 = errno;
	r3 = prctl(PR_KTAU_SET_CONTEXT, 0xffffffff81000000UL, 0, 0, 0);
	e3 = errno;
	ktr_check(r1 == -1 && e1 == EINVAL, "einval-misaligned", "misaligned address: %d (%s)",
		  r1, strerror(e1));
	ktr_check(r2 == -1 && e2 == EINVAL, "einval-extra-argument", "arg3 = 1: %d (%s)", r2,
		  strerror(e2));
	ktr_check(r3 == -1 && e3 == EFAULT, "efault-kernel-address", "kernel address: %d (%s)",
		  r3, strerror(e3));
}

/* ---- one thread switching contexts ---- */

static pthread_barrier_t done, release;
static long worker_tid, child_tid;
static int worker_error;
static uint32_t *lost_page;

static void *unregistered_child(void *arg)
{
	(void)arg;
	child_tid = syscall(SYS_gettid);
	getpids(60);
	return NULL;
}

static void *worker(void *arg)
{
	pthread_t t;
	char *pages;

	(void)arg;
	worker_tid = syscall(SYS_gettid);
	if (set_context(&thread_word)) {
		worker_error = errno;
		goto park;
	}
	thread_word = 7;
	getpids(100);
	thread_word = 9;
	getpids(50);
	thread_word = 0;
	getpids(25);

	/* faults: 10 fresh pages touched under ctx 11 */
	pages = mmap(NULL, 10 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pages == MAP_FAILED) {
		worker_error = errno;
		goto park;
	}
	thread_word = 11;
	for (int i = 0; i < 10; i++)
		pages[i * 4096] = 1;
	thread_word = 0;

	/* a thread made now has no registration of its own */
	thread_word = 21;
	if (pthread_create(&t, NULL, unregistered_child, NULL) == 0)
		pthread_join(t, NULL);
	else
		worker_error = EAGAIN;
	thread_word = 0;

	/* a word whose page goes away reads as 0 (one word at a time: the
	 * first is unregistered before the second is) */
	lost_page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (lost_page == MAP_FAILED || set_context(NULL) || set_context(lost_page)) {
		worker_error = errno;
		goto park;
	}
	*lost_page = 5;
	munmap(lost_page, 4096);
	getpids(30);
	set_context(NULL);
park:
	pthread_barrier_wait(&done);
	pthread_barrier_wait(&release);
	return NULL;
}

static void check_thread_contexts(void)
{
	struct ktr_profile p;
	struct ktr_block *b;
	pthread_t t;

	pthread_barrier_init(&done, NULL, 2);
	pthread_barrier_init(&release, NULL, 2);
	if (pthread_create(&t, NULL, worker, NULL)) {
		ktr_fail("thread", "pthread_create failed");
		return;
	}
	pthread_barrier_wait(&done);
	if (worker_error) {
		ktr_fail("register", "the worker failed: %s", strerror(worker_error));
	} else if (!load_thread(worker_tid, &p, &b, "worker-profile")) {
		uint64_t c7 = calls_in(b, "getpid", 7), c9 = calls_in(b, "getpid", 9);
		uint64_t c0 = calls_in(b, "getpid", 0), c5 = calls_in(b, "getpid", 5);
		uint64_t f11 = calls_in(b, "page_fault", 11);

		ktr_check(c7 == 100 && c9 == 50, "ctx-exact",
			  "getpid under ctx 7: %" PRIu64 ", ctx 9: %" PRIu64 "; expected 100 and 50",
			  c7, c9);
		ktr_check(c0 == 25 + 30 && c5 == 0, "ctx-zero-and-unreadable",
			  "getpid under ctx 0: %" PRIu64 " (expected 25 + 30 with the word unmapped), "
			  "under ctx 5: %" PRIu64 " (expected 0)", c0, c5);
		ktr_check(f11 >= 10 && f11 <= 12, "ctx-page-faults",
			  "page_fault under ctx 11: %" PRIu64 ", expected the 10 touched pages",
			  f11);
		ktr_free(&p);
	}
	pthread_barrier_wait(&release);
	pthread_join(t, NULL);
}

static void check_new_thread(void)
{
	/* the child thread has exited: its calls are in the exited total */
	struct ktr_profile p;
	struct ktr_block *b;
	char path[64];

	(void)path;
	if (ktr_load("/proc/self/ktau", 0, &p, "process-profile"))
		return;
	b = ktr_block_kind(&p, "process", 0);
	ktr_check(b && calls_in(b, "getpid", 21) == 0, "thread-not-inherited",
		  "getpid under ctx 21 (the creating thread's value): %" PRIu64 ", expected 0",
		  b ? calls_in(b, "getpid", 21) : 0);
	ktr_free(&p);
}

/* ---- fork and exec ---- */

static uint64_t children_calls(uint64_t ctx, const char *check)
{
	struct ktr_profile p;
	struct ktr_block *b;
	uint64_t c = UINT64_MAX;

	if (ktr_load("/proc/self/ktau", 0, &p, check))
		return c;
	b = ktr_block_kind(&p, "children", 0);
	if (b)
		c = calls_in(b, "getpid", ctx);
	ktr_free(&p);
	return c;
}

static int run_child(char *const argv[])
{
	int status = -1;
	pid_t pid = fork();

	if (pid == 0) {
		if (argv) {
			execv("/proc/self/exe", argv);
			_exit(127);
		}
		getpids(40);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void check_fork_exec(void)
{
	char *exec_argv[] = { "t_context", "--exec-child", NULL };
	uint64_t before13, before0, after13, after0, before77, after77;

	if (set_context(&process_word)) {
		ktr_fail("fork-register", "%s", strerror(errno));
		return;
	}
	process_word = 13;
	before13 = children_calls(13, "fork-before");
	if (run_child(NULL) != 0) {
		ktr_fail("fork", "the forked child failed");
		return;
	}
	after13 = children_calls(13, "fork-after");
	ktr_check(after13 - before13 == 40, "fork-inherits",
		  "children getpid under ctx 13 grew by %" PRIu64 ", expected 40",
		  after13 - before13);

	before0 = children_calls(0, "exec-before");
	before77 = children_calls(77, "exec-before");
	if (run_child(exec_argv) != 0) {
		ktr_fail("exec", "the exec'ed child failed");
		return;
	}
	after0 = children_calls(0, "exec-after");
	after77 = children_calls(77, "exec-after");
	ktr_check(after0 - before0 == 40 && after77 == before77, "exec-drops",
		  "after exec: getpid under ctx 0 grew by %" PRIu64 ", under ctx 77 by %" PRIu64
		  "; expected 40 and 0", after0 - before0, after77 - before77);
	process_word = 0;
	set_context(NULL);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--exec-child")) {
		/* the parent's registered address, holding a value: not read */
		process_word = 77;
		getpids(40);
		return 0;
	}
	ktr_init("context");
	check_bad_args();
	check_thread_contexts();
	check_new_thread();
	check_fork_exec();
	return ktr_exit();
}
