// SPDX-License-Identifier: GPL-2.0
/*
 * threads8 — exited threads fold into the process, exactly, at scale.
 *
 * 8 threads make 10 000 getpid() each, all at once, then exit and are
 * joined.  Against a baseline read before the threads start (exec keeps the
 * process's totals), the process block must have grown by exactly
 * 80 000 + the main thread's own calls, exited_threads by 8, and the
 * `exited` block of /proc/ktau/profile by exactly 80 000 getpid.
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <ctype.h>
#include <dirent.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NT 8
#define NPER 10000
#define NMAIN 123

static pthread_barrier_t go;

static void *worker(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&go);
	for (int k = 0; k < NPER; k++)
		syscall(SYS_getpid);
	return NULL;
}

static int count_tasks(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		n += isdigit((unsigned char)de->d_name[0]) != 0;
	if (d)
		closedir(d);
	return n;
}

/* getpid calls and exited_threads of our exited block in /proc/ktau/profile */
static int sys_exited(long pid, uint64_t *g, long *nexited, const char *check)
{
	struct ktr_profile p;
	struct ktr_block *b = NULL;

	if (ktr_load("/proc/ktau/profile", 0, &p, check))
		return -1;
	for (size_t i = 0; i < p.nblocks; i++)
		if (p.blocks[i].pid == pid && !strcmp(p.blocks[i].kind, "exited"))
			b = &p.blocks[i];
	if (!b) {
		ktr_fail(check, "/proc/ktau/profile has no exited block for pid %ld", pid);
		ktr_free(&p);
		return -1;
	}
	ktr_func(b, "getpid", g, NULL, NULL);
	*nexited = b->exited_threads;
	ktr_free(&p);
	return 0;
}

static int proc_block(uint64_t *g, long *nexited, long *nthreads, const char *check)
{
	struct ktr_profile p;
	struct ktr_block *b;

	if (ktr_load("/proc/self/ktau", 0, &p, check))
		return -1;
	b = ktr_block_kind(&p, "process", 0);
	if (!b) {
		ktr_fail(check, "/proc/self/ktau has no process block");
		ktr_free(&p);
		return -1;
	}
	ktr_func(b, "getpid", g, NULL, NULL);
	*nexited = b->exited_threads;
	*nthreads = b->threads;
	ktr_free(&p);
	return 0;
}

int main(void)
{
	pthread_t th[NT];
	uint64_t g0, g1, sg0, sg1;
	long x0, x1, n0, n1, sx0, sx1, pid = getpid();
	int have_sys;

	ktr_init("threads8");
	if (proc_block(&g0, &x0, &n0, "baseline"))
		return ktr_exit();
	have_sys = sys_exited(pid, &sg0, &sx0, "baseline-system") == 0;

	pthread_barrier_init(&go, NULL, NT + 1);
	for (int i = 0; i < NT; i++)
		if (pthread_create(&th[i], NULL, worker, NULL)) {
			ktr_fail("create", "pthread_create failed");
			return ktr_exit();
		}
	pthread_barrier_wait(&go);
	for (int i = 0; i < NMAIN; i++)
		syscall(SYS_getpid);
	for (int i = 0; i < NT; i++)
		pthread_join(th[i], NULL);
	/* joined threads may still be on their way out of the kernel */
	for (int i = 0; i < 2000 && count_tasks() > 1; i++) {
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
	}

	if (proc_block(&g1, &x1, &n1, "process-sum"))
		return ktr_exit();
	ktr_check(g1 - g0 == (uint64_t)NT * NPER + NMAIN, "process-sum",
		  "process block getpid grew by %" PRIu64 " (baseline %" PRIu64 "), expected "
		  "exactly %d (%d threads x %d + main %d)", g1 - g0, g0, NT * NPER + NMAIN, NT,
		  NPER, NMAIN);
	ktr_check(x1 - x0 == NT && n1 == 1, "exited-threads",
		  "process block exited_threads grew by %ld (baseline %ld), threads=%ld; "
		  "expected %d and 1", x1 - x0, x0, n1, NT);
	if (have_sys && sys_exited(pid, &sg1, &sx1, "system-exited") == 0)
		ktr_check(sg1 - sg0 == (uint64_t)NT * NPER && sx1 - sx0 == NT, "system-exited",
			  "/proc/ktau/profile exited block of pid %ld grew by getpid %" PRIu64
			  " exited_threads %ld, expected %d and %d", pid, sg1 - sg0, sx1 - sx0,
			  NT * NPER, NT);
	return ktr_exit();
}
