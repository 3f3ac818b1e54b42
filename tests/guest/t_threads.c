// SPDX-License-Identifier: GPL-2.0
/*
 * threads — a process's profile is the sum of its threads'.
 *
 * 4 pthreads make 1000, 1100, 1200, 1300 getpid() calls, the main thread 77;
 * with all threads parked (alive) at a barrier, the process block's getpid
 * calls, the sum over /proc/self/task/<tid>/ktau and each thread's own count
 * must be exact.  After the threads exit and are joined, the process block
 * (live + exited threads) must still show the same total.
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NT 4
#define NMAIN 77

static pthread_barrier_t done, release;
static long tids[NT];

static int nfor(int i)
{
	return 1000 + i * 100;
}

static void *worker(void *arg)
{
	int i = (int)(long)arg;

	tids[i] = syscall(SYS_gettid);
	for (int k = 0; k < nfor(i); k++)
		syscall(SYS_getpid);
	pthread_barrier_wait(&done);
	pthread_barrier_wait(&release);
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

/* getpid calls in the thread file of tid, or -1 (failure already printed) */
static long long thread_getpid(long tid, const char *check)
{
	char path[64];
	struct ktr_profile p;
	struct ktr_block *b;
	uint64_t g;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/ktau", tid);
	if (ktr_load(path, 0, &p, check))
		return -1;
	b = ktr_block_kind(&p, "thread", 0);
	if (!b || b->tid != tid) {
		ktr_fail(check, "%s: no thread block for tid %ld", path, tid);
		ktr_free(&p);
		return -1;
	}
	ktr_func(b, "getpid", &g, NULL, NULL);
	ktr_free(&p);
	return (long long)g;
}

int main(void)
{
	pthread_t th[NT];
	struct ktr_profile p;
	struct ktr_block *b;
	uint64_t g, expect = NMAIN;
	long long sum = 0, v;
	long self = syscall(SYS_gettid);
	char check[64];
	DIR *d;
	struct dirent *de;
	int ok = 1;
	long pid = 0;

	ktr_init("threads");
	for (int i = 0; i < NMAIN; i++)
		pid = syscall(SYS_getpid);
	pthread_barrier_init(&done, NULL, NT + 1);
	pthread_barrier_init(&release, NULL, NT + 1);
	for (int i = 0; i < NT; i++) {
		expect += (uint64_t)nfor(i);
		if (pthread_create(&th[i], NULL, worker, (void *)(long)i)) {
			ktr_fail("create", "pthread_create failed");
			return ktr_exit();
		}
	}
	pthread_barrier_wait(&done);	/* all workers have made their calls */

	/* the process block */
	if (ktr_load("/proc/self/ktau", 0, &p, "process-sum") == 0) {
		b = ktr_block_kind(&p, "process", 0);
		ktr_func(b, "getpid", &g, NULL, NULL);
		ktr_check(b && g == expect, "process-sum",
			  "process block getpid calls %" PRIu64 ", expected %" PRIu64
			  " (main %d + threads 1000+1100+1200+1300)", g, expect, NMAIN);
		ktr_check(b && b->threads == NT + 1 && b->exited_threads == 0, "process-threads",
			  "process block threads=%ld exited_threads=%ld, expected %d and 0",
			  b ? b->threads : -1, b ? b->exited_threads : -1, NT + 1);
		ktr_free(&p);
	}

	/* each thread, and the sum over all of /proc/self/task */
	v = thread_getpid(self, "thread-main");
	if (v >= 0)
		ktr_check(v == NMAIN, "thread-main", "main thread getpid calls %lld, expected %d",
			  v, NMAIN);
	for (int i = 0; i < NT; i++) {
		snprintf(check, sizeof(check), "thread-%d", i);
		v = thread_getpid(tids[i], check);
		if (v >= 0)
			ktr_check(v == nfor(i), check, "tid %ld getpid calls %lld, expected %d",
				  tids[i], v, nfor(i));
	}
	d = opendir("/proc/self/task");
	while (d && (de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		v = thread_getpid(atol(de->d_name), "threads-sum");
		if (v < 0) {
			ok = 0;
			break;
		}
		sum += v;
	}
	if (d)
		closedir(d);
	if (ok)
		ktr_check(sum == (long long)expect, "threads-sum",
			  "sum of getpid over /proc/self/task/*/ktau %lld, expected %" PRIu64, sum,
			  expect);

	/* the system-wide file: thread blocks + exited block of our pid */
	if (ktr_load("/proc/ktau/profile", 0, &p, "system-sum") == 0) {
		uint64_t s = 0;
		int nthr = 0;

		for (size_t i = 0; i < p.nblocks; i++)
			if (p.blocks[i].pid == pid && (!strcmp(p.blocks[i].kind, "thread") ||
						      !strcmp(p.blocks[i].kind, "exited"))) {
				ktr_func(&p.blocks[i], "getpid", &g, NULL, NULL);
				s += g;
				nthr += !strcmp(p.blocks[i].kind, "thread");
			}
		ktr_check(s == expect && nthr == NT + 1, "system-sum",
			  "/proc/ktau/profile: pid %ld has %d thread blocks, getpid calls of its "
			  "thread+exited blocks sum to %" PRIu64 ", expected %d and %" PRIu64,
			  pid, nthr, s, NT + 1, expect);
		ktr_free(&p);
	}

	/* let the workers exit; wait until they are gone from /proc/self/task */
	pthread_barrier_wait(&release);
	for (int i = 0; i < NT; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < 2000 && count_tasks() > 1; i++) {
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
	}
	if (ktr_load("/proc/self/ktau", 0, &p, "after-exit") == 0) {
		b = ktr_block_kind(&p, "process", 0);
		ktr_func(b, "getpid", &g, NULL, NULL);
		ktr_check(b && g == expect, "after-exit",
			  "after the threads exited, process block getpid calls %" PRIu64
			  ", expected %" PRIu64 " (exited threads fold into the process)", g, expect);
		ktr_check(b && b->threads == 1 && b->exited_threads == NT, "after-exit-threads",
			  "process block threads=%ld exited_threads=%ld, expected 1 and %d",
			  b ? b->threads : -1, b ? b->exited_threads : -1, NT);
		ktr_free(&p);
	}
	return ktr_exit();
}
