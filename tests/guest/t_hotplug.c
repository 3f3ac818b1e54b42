// SPDX-License-Identifier: GPL-2.0
/*
 * hotplug — CPUs going offline and online lose no count and leave
 * nothing stale behind (kernels with CONFIG_HOTPLUG_CPU, 2 CPUs or more).
 *
 *  1. hotplug-exact: a worker process's WORKERS threads call getpid()
 *     while this process takes every CPU but CPU 0 offline and online
 *     again, HOTPLUG_ROUNDS times, and a reader thread reads the worker's
 *     files; the threads count their calls, and once they are gone the
 *     worker's process total is exactly their sum, with excl <= incl in
 *     every record read meanwhile;
 *  2. hotplug-after: a thread pinned to each CPU that went offline and
 *     came back makes 1000 getpid() there, all counted, and spins 200 ms
 *     there, taking timer interrupts that are recorded (irq grows; not
 *     checked on a nohz_full CPU, whose tick stops for a lone task): the
 *     CPU records as it did before its first offline.
 *
 * The CPUs are left online.  The test is skipped, with a SKIP line, on
 * one CPU or where CPU 1 cannot go offline.
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WORKERS		4
#define HOTPLUG_ROUNDS	8
#define PINNED_CALLS	1000

struct worker_shared {
	atomic_int stop;
	atomic_long calls;
};
static struct worker_shared *shared;
static pid_t worker_pid;
static atomic_int stop_reader;
static atomic_long reads_done, bad_reads;
static char first_bad[512];

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int set_online(int cpu, int on)
{
	char path[64];
	int fd, ok;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ok = write(fd, on ? "1" : "0", 1) == 1;
	close(fd);
	return ok ? 0 : -1;
}

static void *worker_thread(void *arg)
{
	long n = 0;

	(void)arg;
	while (!atomic_load(&shared->stop)) {
		for (int i = 0; i < 100; i++)
			syscall(SYS_getpid);
		n += 100;
	}
	atomic_fetch_add(&shared->calls, n);
	return NULL;
}

static void check_records(const struct ktr_profile *p, const char *path)
{
	for (size_t b = 0; b < p->nblocks; b++) {
		const struct ktr_block *blk = &p->blocks[b];

		for (size_t i = 0; i < blk->npaths; i++) {
			if (blk->paths[i].excl <= blk->paths[i].incl)
				continue;
			if (atomic_fetch_add(&bad_reads, 1) == 0)
				snprintf(first_bad, sizeof(first_bad), "%s line %d: excl > incl",
					 path, blk->paths[i].lineno);
		}
	}
}

static void *reader(void *arg)
{
	char path[64], err[256];

	(void)arg;
	snprintf(path, sizeof(path), "/proc/%d/ktau", (int)worker_pid);
	while (!atomic_load(&stop_reader)) {
		struct ktr_profile p;
		size_t len;
		char *text = ktr_slurp(path, &len);

		if (!text)
			break;
		if (ktr_parse(text, len, &p, err, sizeof(err))) {
			if (atomic_fetch_add(&bad_reads, 1) == 0)
				snprintf(first_bad, sizeof(first_bad), "%s: %s", path, err);
		} else {
			check_records(&p, path);
			ktr_free(&p);
		}
		free(text);
		atomic_fetch_add(&reads_done, 1);
	}
	return NULL;
}

/* Returns the number of CPUs cycled, or -1. */
static int hotplug_exact(int ncpus)
{
	int ready, go, st, cycles = 0, refused = 0;
	uint64_t calls = 0;
	struct ktr_profile p;
	struct ktr_block *b = NULL;
	pthread_t r;
	char c, path[64];
	double t0 = now_ms();

	atomic_store(&shared->stop, 0);
	atomic_store(&shared->calls, 0);
	worker_pid = ktr_worker_fork(WORKERS, worker_thread, &ready, &go);
	if (worker_pid < 0) {
		ktr_fail("hotplug-exact", "the worker process: %s", strerror(errno));
		return -1;
	}
	pthread_create(&r, NULL, reader, NULL);
	for (int round = 0; round < HOTPLUG_ROUNDS; round++) {
		for (int cpu = 1; cpu < ncpus; cpu++) {
			if (set_online(cpu, 0)) {
				refused++;
				continue;
			}
			usleep(20000);
			if (set_online(cpu, 1))
				ktr_fail("hotplug-exact", "cpu%d does not come back online: %s", cpu,
					 strerror(errno));
			cycles++;
			usleep(20000);
		}
	}
	atomic_store(&shared->stop, 1);
	if (read(ready, &c, 1) != 1)
		ktr_fail("hotplug-exact", "the worker process died");
	atomic_store(&stop_reader, 1);
	pthread_join(r, NULL);
	snprintf(path, sizeof(path), "/proc/%d/ktau", (int)worker_pid);
	if (!ktr_load(path, 0, &p, "hotplug-exact")) {
		b = ktr_block_kind(&p, "process", 0);
		if (b)
			ktr_func(b, "getpid", &calls, NULL, NULL);
		check_records(&p, path);
	}
	ktr_check(b && calls == (uint64_t)atomic_load(&shared->calls) &&
		  b->exited_threads == WORKERS, "hotplug-exact",
		  "%d offline/online cycles under %d threads: getpid %" PRIu64 " recorded, "
		  "%ld made; %ld threads folded, expected %d", cycles, WORKERS, calls,
		  atomic_load(&shared->calls), b ? b->exited_threads : -1L, WORKERS);
	if (b)
		ktr_free(&p);
	ktr_check(atomic_load(&bad_reads) == 0, "hotplug-reads-consistent",
		  "%ld bad reads of %ld; first: %s", atomic_load(&bad_reads),
		  atomic_load(&reads_done), first_bad);
	ktr_check(refused == 0, "hotplug-offline-allowed",
		  "%d offline requests refused", refused);
	close(go);
	waitpid(worker_pid, &st, 0);
	close(ready);
	ktr_info("exact", "%d offline/online cycles of cpu1..cpu%d, %ld getpid by %d "
		 "threads, %ld reads, %.0f ms", cycles, ncpus - 1, atomic_load(&shared->calls),
		 WORKERS, atomic_load(&reads_done), now_ms() - t0);
	return cycles;
}

/* getpid and irq counts of this thread. */
static int thread_counts(const char *check, uint64_t *getpids, uint64_t *irqs)
{
	struct ktr_profile p;
	struct ktr_block *b;
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%ld/ktau", (long)syscall(SYS_gettid));
	if (ktr_load(path, 0, &p, check))
		return -1;
	b = ktr_block_kind(&p, "thread", 0);
	*getpids = *irqs = 0;
	if (b) {
		ktr_func(b, "getpid", getpids, NULL, NULL);
		ktr_func(b, "irq", irqs, NULL, NULL);
	} else {
		ktr_fail(check, "%s has no kind=thread block", path);
	}
	ktr_free(&p);
	return b ? 0 : -1;
}

/* Whether @cpu is in the nohz_full list (e.g. "1" or "1-3,5"). */
static int nohz_full_cpu(int cpu)
{
	char buf[256], *p, *end;

	if (ktr_read_small("/sys/devices/system/cpu/nohz_full", buf, sizeof(buf)) <= 0)
		return 0;
	for (p = buf; *p >= '0' && *p <= '9'; p = end + (*end == ',')) {
		long lo = strtol(p, &end, 10), hi = lo;

		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		if (cpu >= lo && cpu <= hi)
			return 1;
	}
	return 0;
}

static void hotplug_after(int ncpus)
{
	for (int cpu = 1; cpu < ncpus; cpu++) {
		uint64_t g0, g1, i0, i1;
		cpu_set_t set;
		char check[48];
		double t0;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		snprintf(check, sizeof(check), "hotplug-after-cpu%d", cpu);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			ktr_fail(check, "cannot run on cpu%d: %s", cpu, strerror(errno));
			continue;
		}
		if (thread_counts(check, &g0, &i0))
			continue;
		for (int i = 0; i < PINNED_CALLS; i++)
			syscall(SYS_getpid);
		t0 = now_ms();
		while (now_ms() - t0 < 200)
			;
		if (thread_counts(check, &g1, &i1))
			continue;
		ktr_check(g1 - g0 == PINNED_CALLS && (i1 > i0 || nohz_full_cpu(cpu)) &&
			  sched_getcpu() == cpu, check,
			  "on cpu%d (now on %d) after its offline/online cycles: %" PRIu64
			  " of %d getpid counted, %" PRIu64 " irq in 200 ms of spinning", cpu,
			  sched_getcpu(), g1 - g0, PINNED_CALLS, i1 - i0);
	}
}

int main(void)
{
	int ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);

	ktr_init("hotplug");
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		      -1, 0);
	if (shared == MAP_FAILED) {
		ktr_fail("setup", "mmap: %s", strerror(errno));
		return ktr_exit();
	}
	if (ncpus < 2) {
		ktr_skip("cpus", "%d CPU online, hotplug needs 2 or more (QEMU_SMP=2)", ncpus);
		return ktr_exit();
	}
	if (access("/sys/devices/system/cpu/cpu1/online", W_OK)) {
		ktr_skip("cpu1-offline", "/sys/devices/system/cpu/cpu1/online %s: this kernel "
			 "cannot take a CPU offline (CONFIG_HOTPLUG_CPU)",
			 access("/sys/devices/system/cpu/cpu1/online", F_OK) ? "absent" :
			 "not writable");
		return ktr_exit();
	}
	ktr_ctl("start");
	ktr_ctl("enable all");
	if (hotplug_exact(ncpus) > 0)
		hotplug_after(ncpus);
	for (int cpu = 1; cpu < ncpus; cpu++)
		set_online(cpu, 1);
	return ktr_exit();
}
