// SPDX-License-Identifier: GPL-2.0
/*
 * hostile — what one unprivileged user can do to the node through ktau,
 * and the bounds that hold (issue "Bounded under hostile load"):
 *
 *  1. memory: user nobody runs 100 threads that each register a user
 *     context word and make 4000 system calls with a new context value
 *     each (400 000 distinct callpaths wanted).  ktau's memory (the
 *     control file's `memory ... bytes=`) grows by at most 16 MiB and by
 *     at most the memory limit plus the threads' first tables; what found
 *     no room is counted in the process's `dropped`;
 *  2. reads: while nobody reads its own (largest possible) profile three
 *     times, root's 1 ms sleepers, one pinned on each CPU, never wake up
 *     more than 200 ms late (the read yields the CPU as it goes);
 *  3. clear frees: after root's `stop` and `clear`, with the 100 threads
 *     asleep, ktau's memory is back within 1 MiB of where it was before
 *     the attack, within a second;
 *  4. exit: the 100 threads exit at once (their profiles fold into the
 *     process's total) without an RCU stall or a hung task (the debug
 *     kernel's detectors report those in the log: kernel-log-clean);
 *  5. the attack with 4000 threads (200 new contexts each) while root
 *     holds 150 MiB of its own: root's process survives and the attacker
 *     completes (the pinned memory is bounded; nothing is OOM-killed).
 *
 * Runs as root; restores `start` and `enable all` at the end.
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef PR_KTAU_SET_CONTEXT
#define PR_KTAU_SET_CONTEXT 0x4b544155
#endif

#define NOBODY		65534
#define MIB		(1024UL * 1024)

struct attack {
	unsigned int threads;
	unsigned int calls;
};

static atomic_uint ready;
static atomic_int release_threads;
/* the parked threads sleep here (4000 threads polling would be the load) */
static pthread_mutex_t park_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t park_cond = PTHREAD_COND_INITIALIZER;

/* ---- the attacker (user nobody) ---------------------------------------- */

static void *attack_thread(void *arg)
{
	const struct attack *a = arg;
	static __thread volatile uint32_t word;
	unsigned int i;

	if (prctl(PR_KTAU_SET_CONTEXT, (unsigned long)&word, 0UL, 0UL, 0UL))
		return (void *)1;
	for (i = 0; i < a->calls; i++) {
		word = i + 1;
		syscall(SYS_getppid);
	}
	atomic_fetch_add(&ready, 1);
	pthread_mutex_lock(&park_lock);
	while (!atomic_load(&release_threads))
		pthread_cond_wait(&park_cond, &park_lock);
	pthread_mutex_unlock(&park_lock);
	return NULL;
}

/* Commands from root on fd `in`, answers on fd `out`, one byte each. */
static int attacker(const struct attack *a, int in, int out)
{
	pthread_t *tid = calloc(a->threads, sizeof(*tid));
	pthread_attr_t attr;
	unsigned int i, started = 0;
	char c;

	/* RLIMIT_NPROC starts at half of threads-max at boot */
	if (setrlimit(RLIMIT_NPROC, &(struct rlimit){ 2 * a->threads, 2 * a->threads }) ||
	    setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY) || !tid)
		return 2;
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (i = 0; i < a->threads; i++) {
		if (pthread_create(&tid[i], &attr, attack_thread, (void *)a))
			break;
		started++;
	}
	while (atomic_load(&ready) < started)
		usleep(20000);
	c = started == a->threads ? 'R' : 'E';
	if (write(out, &c, 1) != 1)
		return 3;
	while (read(in, &c, 1) == 1) {
		if (c == 'r') {
			/* read the whole profile of this process once */
			size_t len;
			char *text = ktr_slurp("/proc/self/ktau", &len);

			c = text ? 'D' : 'E';
			free(text);
		} else if (c == 'x') {
			pthread_mutex_lock(&park_lock);
			atomic_store(&release_threads, 1);
			pthread_cond_broadcast(&park_cond);
			pthread_mutex_unlock(&park_lock);
			for (i = 0; i < started; i++)
				pthread_join(tid[i], NULL);
			c = 'X';
		} else {
			c = 'E';
		}
		if (write(out, &c, 1) != 1)
			return 3;
		if (c == 'X')
			break;
	}
	return 0;
}

struct attacker_proc {
	pid_t pid;
	int cmd;	/* root writes commands here */
	int ans;	/* and reads answers here */
};

static int start_attacker(const struct attack *a, struct attacker_proc *ap)
{
	int to[2], from[2];

	if (pipe(to) || pipe(from))
		return -1;
	ap->pid = fork();
	if (ap->pid < 0)
		return -1;
	if (!ap->pid) {
		close(to[1]);
		close(from[0]);
		_exit(attacker(a, to[0], from[1]));
	}
	close(to[0]);
	close(from[1]);
	ap->cmd = to[1];
	ap->ans = from[0];
	return 0;
}

/* Send command c, return the answer byte (0 when the attacker died). */
static char ask(struct attacker_proc *ap, char c)
{
	char r = 0;

	if (c && write(ap->cmd, &c, 1) != 1)
		return 0;
	if (read(ap->ans, &r, 1) != 1)
		return 0;
	return r;
}

/* ---- measurements ------------------------------------------------------ */

static unsigned long memory_bytes(void)
{
	return ktr_ctl_number("memory", "bytes=");
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* A 1 ms sleeper pinned to one CPU, recording its worst lateness. */
struct sleeper {
	pthread_t tid;
	int cpu;
	atomic_int stop;
	double worst_ms;
};

static void *sleeper_fn(void *arg)
{
	struct sleeper *s = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(s->cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	while (!atomic_load(&s->stop)) {
		double t0 = now_ms(), late;

		usleep(1000);
		late = now_ms() - t0 - 1.0;
		if (late > s->worst_ms)
			s->worst_ms = late;
	}
	return NULL;
}

static void sleepers_start(struct sleeper *s, int n)
{
	for (int i = 0; i < n; i++) {
		s[i].cpu = i;
		s[i].worst_ms = 0;
		atomic_store(&s[i].stop, 0);
		pthread_create(&s[i].tid, NULL, sleeper_fn, &s[i]);
	}
}

static double sleepers_stop(struct sleeper *s, int n)
{
	double worst = 0;

	for (int i = 0; i < n; i++) {
		atomic_store(&s[i].stop, 1);
		pthread_join(s[i].tid, NULL);
		if (s[i].worst_ms > worst)
			worst = s[i].worst_ms;
	}
	return worst;
}

static uint64_t process_dropped(pid_t pid)
{
	struct ktr_profile p;
	struct ktr_block *b;
	char path[64], err[256];
	uint64_t dropped = 0;
	size_t len;
	char *text;

	snprintf(path, sizeof(path), "/proc/%d/ktau", (int)pid);
	text = ktr_slurp(path, &len);
	if (!text)
		return 0;
	if (!ktr_parse(text, len, &p, err, sizeof(err))) {
		b = ktr_block_kind(&p, "process", 0);
		if (b && b->dropped > 0)
			dropped = b->dropped;
		ktr_free(&p);
	} else {
		ktr_fail("parse", "%s: %s", path, err);
	}
	free(text);
	return dropped;
}

static unsigned long default_limit;

static void restore(void)
{
	char cmd[64];

	ktr_ctl("start");
	ktr_ctl("enable all");
	if (default_limit) {
		snprintf(cmd, sizeof(cmd), "limit memory %lu", default_limit);
		ktr_ctl(cmd);
	}
}

/* ---- the checks ---------------------------------------------------------- */

static void attack_100(void)
{
	static const struct attack a = { .threads = 100, .calls = 4000 };
	unsigned long idle, during, after_clear, limit;
	struct attacker_proc ap;
	struct sleeper s[2];
	double t0, worst, quiet, read_ms[3];
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 2 : 1, st;
	uint64_t dropped;

	idle = memory_bytes();
	limit = ktr_ctl_number("memory", "limit=");
	/* the sleepers' lateness with nothing going on, for the record */
	sleepers_start(s, ncpu);
	usleep(300000);
	quiet = sleepers_stop(s, ncpu);

	t0 = now_ms();
	if (start_attacker(&a, &ap) || ask(&ap, 0) != 'R') {
		ktr_fail("attack-start", "the attacker (100 threads, user nobody) did not start");
		return;
	}
	during = memory_bytes();
	dropped = process_dropped(ap.pid);
	ktr_info("memory", "idle %lu B, with 100 threads x 4000 contexts %lu B (+%lu), limit %lu B, "
		 "%" PRIu64 " calls dropped, attack took %.0f ms", idle, during, during - idle,
		 limit, dropped, now_ms() - t0);
	ktr_check(during - idle <= 16 * MIB, "memory-16MiB",
		  "ktau memory grew by %lu B (%.1f MiB) under the attack, expected <= 16 MiB",
		  during - idle, (double)(during - idle) / MIB);
	ktr_check(during - idle <= limit + a.threads * 2048UL, "memory-limit",
		  "ktau memory grew by %lu B, expected <= the limit %lu B plus 2 KiB per thread",
		  during - idle, limit);
	ktr_check(dropped > 0, "dropped-counted",
		  "the attacker's profile shows dropped=%" PRIu64 ", expected > 0 (400 000 "
		  "callpaths cannot all be kept)", dropped);

	/* reads never stall the other users */
	sleepers_start(s, ncpu);
	for (int i = 0; i < 3; i++) {
		double r0 = now_ms();

		if (ask(&ap, 'r') != 'D')
			ktr_fail("read", "the attacker could not read its own profile");
		read_ms[i] = now_ms() - r0;
	}
	worst = sleepers_stop(s, ncpu);
	ktr_info("reads", "3 reads of the attacker's own profile took %.0f, %.0f, %.0f ms; "
		 "1 ms sleepers at most %.1f ms late (%.1f ms with nothing going on)",
		 read_ms[0], read_ms[1], read_ms[2], worst, quiet);
	ktr_check(worst <= 200, "reads-never-stall",
		  "a 1 ms sleeper woke up %.1f ms late while the largest profile was read "
		  "(%.1f ms with nothing going on), expected <= 200 ms", worst, quiet);

	/* stop + clear frees, sleeping tasks included */
	ktr_ctl("stop");
	ktr_ctl("clear");
	usleep(1000000);
	after_clear = memory_bytes();
	ktr_info("clear", "ktau memory %lu B a second after stop + clear (idle %lu B)",
		 after_clear, idle);
	ktr_check(after_clear <= idle + MIB, "clear-frees",
		  "ktau memory %lu B a second after stop + clear, expected <= %lu B "
		  "(idle + 1 MiB)", after_clear, idle + MIB);
	restore();

	/* all 100 threads exit at once */
	t0 = now_ms();
	ktr_check(ask(&ap, 'x') == 'X', "mass-exit", "the attacker's threads did not all exit");
	close(ap.cmd);
	waitpid(ap.pid, &st, 0);
	ktr_info("exit", "100 threads exited and their process was reaped in %.0f ms",
		 now_ms() - t0);
	close(ap.ans);
}

static void set_threads_max(long n)
{
	FILE *f = fopen("/proc/sys/kernel/threads-max", "w");

	if (f) {
		fprintf(f, "%ld\n", n);
		fclose(f);
	}
}

static void attack_4000(void)
{
	static const struct attack a = { .threads = 4000, .calls = 200 };
	const size_t hold = 150 * MIB;
	unsigned long idle, during;
	struct attacker_proc ap;
	char *mem = malloc(hold), ans;
	double t0;
	int st;

	if (!mem) {
		ktr_fail("hold-150MiB", "malloc(150 MiB): %s", strerror(errno));
		return;
	}
	memset(mem, 1, hold);
	/* threads-max is scaled to RAM: 512 MiB allow about 4000 tasks */
	set_threads_max(10000);
	idle = memory_bytes();
	t0 = now_ms();
	if (start_attacker(&a, &ap)) {
		ktr_fail("attack4000-start", "fork: %s", strerror(errno));
		free(mem);
		return;
	}
	ans = ask(&ap, 0);
	during = memory_bytes();
	ktr_info("attack4000", "4000 threads x 200 contexts: answer %c after %.0f ms, ktau memory "
		 "+%lu B", ans ? ans : '-', now_ms() - t0, during - idle);
	ktr_check(ans == 'R', "attack4000-completes",
		  "the 4000-thread attacker answered '%c', expected R (all threads made their calls)",
		  ans ? ans : '-');
	if (ans)
		ask(&ap, 'x');
	close(ap.cmd);
	close(ap.ans);
	waitpid(ap.pid, &st, 0);
	/* still here, with the memory intact: not OOM-killed */
	ktr_check(mem[0] == 1 && mem[hold - 1] == 1, "root-survives",
		  "root's 150 MiB were changed");
	ktr_check(WIFEXITED(st) && !WEXITSTATUS(st), "attacker-not-killed",
		  "the attacker ended with status %#x (killed by the OOM killer?)", st);
	free(mem);
}

int main(void)
{
	ktr_init("hostile");
	if (geteuid()) {
		ktr_fail("root", "must run as root");
		return ktr_exit();
	}
	/* the bounds below are stated for an 8 MiB limit, whatever the RAM */
	default_limit = ktr_ctl_number("memory", "limit=");
	restore();
	if (ktr_ctl("limit memory 8M"))
		ktr_fail("limit", "limit memory 8M: %s", strerror(errno));
	attack_100();
	attack_4000();
	restore();
	return ktr_exit();
}
