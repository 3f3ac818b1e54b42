// SPDX-License-Identifier: GPL-2.0
/*
 * stress — nothing lost, nothing torn, under concurrency.
 *
 * Phase 1 (exact counts): a worker process runs WORKERS threads x CALLS
 * getpid() each while, in this process, READERS threads read every ktau
 * file in a loop (the worker's process and thread files, /proc/ktau/
 * profile, /proc/ktau/functions), checking each read is complete and
 * consistent and that the worker's getpid count never goes down, and a
 * forker thread forks children that make CHILD_CALLS getpid() each, half
 * of them after an exec.  Afterwards: the worker's process total is
 * exactly WORKERS x CALLS with every thread gone, and this process's
 * children total grew by exactly that plus CHILD_CALLS per fork.
 *
 * Phase 2 (other groups switched): the same load, exact again, while a
 * switcher thread turns every group but syscall off and on; the worker
 * threads call getpid() until OTHER_SWITCHES switches are done and count
 * their calls: a change of one group never costs another's routines a call.
 *
 * Phase 3 (control races): the same load while a controller thread cycles
 * through clear, stop, start, startclr and disable/enable of every group
 * (every 4th stop with a clear: tables freed and given again as tasks fork
 * and exit; every 4th cycle traced: its buffers made and freed, and the
 * children's faults and calls closed by the traced stops while the
 * inline timers' keys flip).
 * Every read must still parse, with excl <= incl; counts may only drop
 * across a clear.  Recording is restored at the end.
 *
 * Phase 4 (memory pressure, kernels with CONFIG_FAILSLAB): a thread whose
 * every slab allocation fails (failslab, task filter) makes 1000 getpid()
 * calls under 1000 distinct user contexts: its table cannot grow, so what
 * finds no room is counted as dropped, never lost silently; when the
 * failures stop, its table grows again and 500 more contexts are recorded.
 *
 * It prints what it did (threads, calls, reads, forks, control writes).
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WORKERS		6
#define CALLS		100000
#define READERS		2
#define CHILD_CALLS	100

static const char *self_exe;
static pid_t worker_pid;
static atomic_int stop_load;
static atomic_long reads_done, forks_done, read_errors, decreases, ctl_writes;
static atomic_long other_switches;

/*
 * Shared with the worker process: under LOAD_OTHER_GROUPS its threads
 * call getpid() until `stop`, for as long as the switcher needs, and
 * add up their calls in `calls`.
 */
struct worker_shared {
	atomic_int until_stopped;
	atomic_int stop;
	atomic_long calls;
};
static struct worker_shared *shared;

/*
 * Group switches during the other-groups load: KTAU_STRESS_SWITCHES (from
 * the kernel command line; scripts/check-long.sh asks for more), else
 * OTHER_SWITCHES, 5 to 15 s of switching under QEMU.
 */
#define OTHER_SWITCHES	60
static long other_switches_wanted = OTHER_SWITCHES;
static atomic_int clear_epoch;	/* odd while a clear may be in progress */
static char first_error[256];
static pthread_mutex_t error_lock = PTHREAD_MUTEX_INITIALIZER;

static void note_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note_error(const char *fmt, ...)
{
	va_list ap;

	atomic_fetch_add(&read_errors, 1);
	pthread_mutex_lock(&error_lock);
	if (!first_error[0]) {
		va_start(ap, fmt);
		vsnprintf(first_error, sizeof(first_error), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&error_lock);
}

static void getpids(long n)
{
	for (long i = 0; i < n; i++)
		syscall(SYS_getpid);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- the worker process ---- */

static void *worker_thread(void *arg)
{
	long n = 0;

	(void)arg;
	if (!atomic_load(&shared->until_stopped)) {
		getpids(CALLS);
		n = CALLS;
	} else {
		while (!atomic_load(&shared->stop)) {
			getpids(100);
			n += 100;
		}
	}
	atomic_fetch_add(&shared->calls, n);
	return NULL;
}

/* ---- readers ---- */

static int check_profile(const char *path, uint64_t *getpid_calls)
{
	struct ktr_profile p;
	char err[256];
	size_t len;
	char *text = ktr_slurp(path, &len);

	if (!text) {
		/* a thread or process that is gone is not an error */
		if (errno != ENOENT && errno != ESRCH)
			note_error("%s: %s", path, strerror(errno));
		return -1;
	}
	if (ktr_parse(text, len, &p, err, sizeof(err))) {
		note_error("%s: %s", path, err);
		free(text);
		return -1;
	}
	for (size_t b = 0; b < p.nblocks; b++) {
		const struct ktr_block *blk = &p.blocks[b];

		for (size_t i = 0; i < blk->nfuncs; i++)
			if (blk->funcs[i].excl > blk->funcs[i].incl)
				note_error("%s line %d: excl > incl", path, blk->funcs[i].lineno);
		for (size_t i = 0; i < blk->npaths; i++)
			if (blk->paths[i].excl > blk->paths[i].incl)
				note_error("%s line %d: path excl > incl", path, blk->paths[i].lineno);
	}
	if (getpid_calls) {
		struct ktr_block *b = ktr_block_kind(&p, "process", 0);

		*getpid_calls = 0;
		if (b)
			ktr_func(b, "getpid", getpid_calls, NULL, NULL);
	}
	ktr_free(&p);
	free(text);
	atomic_fetch_add(&reads_done, 1);
	return 0;
}

static void *reader(void *arg)
{
	char path[96];
	uint64_t last = 0;
	int last_epoch = -1;

	(void)arg;
	while (!atomic_load(&stop_load)) {
		int epoch = atomic_load(&clear_epoch);
		uint64_t calls;
		DIR *d;
		struct dirent *de;

		snprintf(path, sizeof(path), "/proc/%d/ktau", worker_pid);
		if (!check_profile(path, &calls)) {
			/* only two reads with no clear around or between them compare */
			int same = !(epoch & 1) && epoch == atomic_load(&clear_epoch);

			if (same && epoch == last_epoch && calls < last)
				atomic_fetch_add(&decreases, 1);
			last = calls;
			last_epoch = same ? epoch : -1;
		}
		snprintf(path, sizeof(path), "/proc/%d/task", worker_pid);
		d = opendir(path);
		while (d && (de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/proc/%d/task/%.16s/ktau", worker_pid,
				 de->d_name);
			check_profile(path, NULL);
		}
		if (d)
			closedir(d);
		check_profile("/proc/ktau/profile", NULL);
		{
			size_t len;
			char err[256];
			struct ktr_fmap m;
			char *t = ktr_slurp("/proc/ktau/functions", &len);

			if (!t || ktr_parse_functions(t, len, &m, err, sizeof(err)))
				note_error("/proc/ktau/functions: %s", t ? err : strerror(errno));
			else
				ktr_fmap_free(&m);
			free(t);
		}
	}
	return NULL;
}

/* ---- forker ---- */

static void *forker(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop_load)) {
		long n = atomic_load(&forks_done);
		pid_t pid = fork();
		int status;

		if (pid == 0) {
			if (n & 1) {
				execl(self_exe, "t_stress", "--child", NULL);
				_exit(127);
			}
			getpids(CHILD_CALLS);
			_exit(0);
		}
		if (pid < 0) {
			note_error("fork: %s", strerror(errno));
			continue;
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			note_error("a forked child failed (status 0x%x)", status);
			continue;
		}
		atomic_fetch_add(&forks_done, 1);
	}
	return NULL;
}

/* ---- controller ---- */

static void ctl(const char *cmd)
{
	if (ktr_ctl(cmd))
		note_error("control '%s': %s", cmd, strerror(errno));
	else
		atomic_fetch_add(&ctl_writes, 1);
}

static void *controller(void *arg)
{
	static const char *const groups[] = { "syscall", "softirq", "irq", "sched",
					      "exception", "kernel", "event" };
	char cmd[64];

	(void)arg;
	for (unsigned int i = 0; !atomic_load(&stop_load); i++) {
		const char *g = groups[i % 7];

		atomic_fetch_add(&clear_epoch, 1);
		ctl(i & 1 ? "clear" : "startclr");
		atomic_fetch_add(&clear_epoch, 1);
		ctl("stop");
		if (i % 4 == 2) {
			/* nothing records: every table freed, forks get none,
			 * and the start gives every task one again */
			atomic_fetch_add(&clear_epoch, 1);
			ctl("clear");
			atomic_fetch_add(&clear_epoch, 1);
		}
		ctl("start");
		if (i % 4 == 1)
			ctl("trace on");
		snprintf(cmd, sizeof(cmd), "disable %s", g);
		ctl(cmd);
		snprintf(cmd, sizeof(cmd), "enable %s", g);
		ctl(cmd);
		usleep(2000);
		if (i % 4 == 1)
			ctl("trace off");
	}
	return NULL;
}

/* Every group but syscall, off and on, as fast as the control file takes it. */
static void *switcher(void *arg)
{
	static const char *const groups[] = { "softirq", "irq", "sched", "exception",
					      "kernel", "event" };
	char cmd[64];

	(void)arg;
	for (unsigned int i = 0; !atomic_load(&stop_load); i++) {
		const char *g = groups[i % 6];

		snprintf(cmd, sizeof(cmd), "disable %s", g);
		ctl(cmd);
		snprintf(cmd, sizeof(cmd), "enable %s", g);
		ctl(cmd);
		atomic_fetch_add(&other_switches, 1);
	}
	return NULL;
}

/* ---- phases ---- */

enum load_control {
	LOAD_PLAIN,		/* no control change */
	LOAD_OTHER_GROUPS,	/* switcher(): counts stay exact */
	LOAD_CONTROL,		/* controller(): clears, stops, every group */
};

static uint64_t children_getpid(void)
{
	struct ktr_profile p;
	struct ktr_block *b;
	uint64_t c = 0;

	if (ktr_load("/proc/self/ktau", 0, &p, "children-read"))
		return UINT64_MAX;
	b = ktr_block_kind(&p, "children", 0);
	if (b)
		ktr_func(b, "getpid", &c, NULL, NULL);
	ktr_free(&p);
	return c;
}

/* Runs the load, racing the control file against it as @control says. */
static int run_load(enum load_control control, double *secs)
{
	pthread_t r[READERS], f, c;
	int ready, go, status;
	char ch;
	double t0 = now();

	atomic_store(&shared->until_stopped, control == LOAD_OTHER_GROUPS);
	atomic_store(&shared->stop, 0);
	atomic_store(&shared->calls, 0);
	worker_pid = ktr_worker_fork(WORKERS, worker_thread, &ready, &go);
	if (worker_pid < 0) {
		note_error("the worker process: %s", strerror(errno));
		return -1;
	}
	atomic_store(&stop_load, 0);
	for (int i = 0; i < READERS; i++)
		pthread_create(&r[i], NULL, reader, NULL);
	pthread_create(&f, NULL, forker, NULL);
	if (control != LOAD_PLAIN)
		pthread_create(&c, NULL, control == LOAD_CONTROL ? controller : switcher,
			       NULL);
	if (control == LOAD_OTHER_GROUPS) {
		while (atomic_load(&other_switches) < other_switches_wanted)
			usleep(10000);
		atomic_store(&shared->stop, 1);
	}

	if (read(ready, &ch, 1) != 1)
		note_error("the worker process died");
	if (control != LOAD_CONTROL) {
		uint64_t calls = 0;
		char path[64];
		struct ktr_profile p;

		snprintf(path, sizeof(path), "/proc/%d/ktau", worker_pid);
		if (!ktr_load(path, 0, &p, "worker-total")) {
			struct ktr_block *b = ktr_block_kind(&p, "process", 0);

			if (b)
				ktr_func(b, "getpid", &calls, NULL, NULL);
			uint64_t want = (uint64_t)atomic_load(&shared->calls);

			ktr_check(b && calls == want && b->threads == 1 &&
				  b->exited_threads == WORKERS,
				  control == LOAD_PLAIN ? "exited-threads-exact" :
				  "other-groups-exited-threads-exact",
				  "worker process: getpid %" PRIu64 " with %ld live and %ld exited "
				  "threads; expected %" PRIu64 " with 1 live and %d exited", calls,
				  b ? b->threads : -1, b ? b->exited_threads : -1, want, WORKERS);
			ktr_free(&p);
		}
	} else {
		sleep(3);
	}
	atomic_store(&stop_load, 1);
	for (int i = 0; i < READERS; i++)
		pthread_join(r[i], NULL);
	pthread_join(f, NULL);
	if (control != LOAD_PLAIN)
		pthread_join(c, NULL);
	close(go);
	waitpid(worker_pid, &status, 0);
	close(ready);
	*secs = now() - t0;
	return 0;
}

static void phase_exact(enum load_control control)
{
	uint64_t before = children_getpid(), after, want;
	const char *pfx = control == LOAD_PLAIN ? "" : "other-groups-";
	char name[64];
	double secs;

	atomic_store(&forks_done, 0);
	atomic_store(&other_switches, 0);
	run_load(control, &secs);
	after = children_getpid();
	want = (uint64_t)atomic_load(&shared->calls) +
	       (uint64_t)atomic_load(&forks_done) * CHILD_CALLS;
	snprintf(name, sizeof(name), "%schildren-exact", pfx);
	ktr_check(after - before == want, name,
		  "children getpid grew by %" PRIu64 ", expected %" PRIu64 " (%ld worker "
		  "calls + %ld forks x %d)", after - before, want, atomic_load(&shared->calls),
		  atomic_load(&forks_done), CHILD_CALLS);
	snprintf(name, sizeof(name), "%sreads-consistent", pfx);
	ktr_check(atomic_load(&read_errors) == 0, name, "%ld bad reads; first: %s",
		  atomic_load(&read_errors), first_error);
	snprintf(name, sizeof(name), "%scounts-monotonic", pfx);
	ktr_check(atomic_load(&decreases) == 0, name,
		  "the worker's getpid count went down %ld times", atomic_load(&decreases));
	ktr_info(control == LOAD_PLAIN ? "exact" : "other-groups",
		 "%d threads, %ld getpid, %d readers: %ld complete reads, %ld forks "
		 "(half exec), %ld switches of other groups, %.1f s", WORKERS,
		 atomic_load(&shared->calls), READERS,
		 atomic_load(&reads_done), atomic_load(&forks_done),
		 atomic_load(&other_switches), secs);
}

static void phase_control(void)
{
	double secs;
	long reads0 = atomic_load(&reads_done);

	atomic_store(&forks_done, 0);
	run_load(LOAD_CONTROL, &secs);
	ktr_ctl("enable all");
	ktr_ctl("start");
	ktr_check(atomic_load(&read_errors) == 0, "control-race-reads-consistent",
		  "%ld bad reads or control writes; first: %s", atomic_load(&read_errors),
		  first_error);
	ktr_check(atomic_load(&decreases) == 0, "control-race-monotonic-between-clears",
		  "the worker's getpid count went down %ld times with no clear in between",
		  atomic_load(&decreases));
	{
		struct ktr_profile p;
		struct ktr_block *b;
		uint64_t before = 0, after = 0;

		/* recording works again after the storm */
		if (!ktr_load("/proc/self/ktau", 0, &p, "after-control")) {
			b = ktr_block_kind(&p, "process", 0);
			if (b)
				ktr_func(b, "getpid", &before, NULL, NULL);
			ktr_free(&p);
		}
		getpids(1000);
		if (!ktr_load("/proc/self/ktau", 0, &p, "after-control")) {
			b = ktr_block_kind(&p, "process", 0);
			if (b)
				ktr_func(b, "getpid", &after, NULL, NULL);
			ktr_free(&p);
		}
		ktr_check(after - before == 1000, "recording-restored",
			  "1000 getpid after the control race recorded as %" PRIu64,
			  after - before);
	}
	ktr_info("control", "%ld control writes raced %ld reads, %ld forks and %d x %d "
		 "syscalls in %.1f s", atomic_load(&ctl_writes),
		 atomic_load(&reads_done) - reads0, atomic_load(&forks_done), WORKERS, CALLS,
		 secs);
}

/* ---- memory pressure ---- */

#define FAILSLAB "/sys/kernel/debug/failslab"
#ifndef PR_KTAU_SET_CONTEXT
#define PR_KTAU_SET_CONTEXT 0x4b544155
#endif

/* The getpid calls and drops of thread tid, and whether it has any record. */
static int thread_state(long tid, uint64_t *calls, long *dropped, int *records)
{
	char path[64];
	struct ktr_profile p;
	struct ktr_block *b;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/ktau", tid);
	if (ktr_load(path, 0, &p, "pressure-read"))
		return -1;
	b = ktr_block_kind(&p, "thread", 0);
	*calls = 0;
	*dropped = b ? b->dropped : -1;
	*records = b ? (int)b->npaths : -1;
	if (b)
		ktr_func(b, "getpid", calls, NULL, NULL);
	ktr_free(&p);
	return 0;
}

static pthread_barrier_t pressure_bar;
static atomic_long pressure_tid;
static atomic_int pressure_registered;

#define PRESSURE_CALLS	1000
#define RECOVER_CALLS	500

/* Every call under a new user context: a new record each. */
static void getpids_in_contexts(volatile uint32_t *word, uint32_t first, int n)
{
	for (int i = 0; i < n; i++) {
		*word = first + (uint32_t)i;
		syscall(SYS_getpid);
	}
	*word = 0;
}

/*
 * The thread marks itself for failslab and registers a context word; main
 * then makes every slab allocation of marked tasks fail, so that its table
 * cannot grow past its first size.
 */
static void *pressure_thread(void *arg)
{
	static __thread volatile uint32_t word;
	char path[96];

	(void)arg;
	atomic_store(&pressure_tid, syscall(SYS_gettid));
	snprintf(path, sizeof(path), "/proc/self/task/%ld/make-it-fail",
		 (long)syscall(SYS_gettid));
	ktr_write_file(path, "1");
	atomic_store(&pressure_registered,
		     !prctl(PR_KTAU_SET_CONTEXT, (unsigned long)&word, 0UL, 0UL, 0UL));
	pthread_barrier_wait(&pressure_bar);	/* main: failures on */
	pthread_barrier_wait(&pressure_bar);
	getpids_in_contexts(&word, 1, PRESSURE_CALLS);
	pthread_barrier_wait(&pressure_bar);	/* main looks, failures off */
	pthread_barrier_wait(&pressure_bar);
	getpids_in_contexts(&word, 1 + PRESSURE_CALLS, RECOVER_CALLS);
	pthread_barrier_wait(&pressure_bar);	/* main looks again */
	pthread_barrier_wait(&pressure_bar);
	prctl(PR_KTAU_SET_CONTEXT, 0UL, 0UL, 0UL, 0UL);
	return NULL;
}

static void phase_pressure(void)
{
	struct stat st;
	uint64_t c1 = 0, c2 = 0;
	long d1 = 0, d2 = 0, tid;
	int records;
	pthread_t t;

	mkdir("/sys/kernel/debug", 0755);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	if (stat(FAILSLAB, &st)) {
		ktr_skip("pressure", "no %s in this kernel (CONFIG_FAILSLAB, "
			 "CONFIG_FAULT_INJECTION_DEBUG_FS: the debug kernel has them)", FAILSLAB);
		return;
	}
	/* ktau's tables grow in sleepable context: sleeping allocations fail too */
	if (ktr_write_file(FAILSLAB "/task-filter", "Y") || ktr_write_file(FAILSLAB "/times", "-1") ||
	    ktr_write_file(FAILSLAB "/probability", "0") || ktr_write_file(FAILSLAB "/verbose", "0") ||
	    ktr_write_file(FAILSLAB "/ignore-gfp-wait", "N")) {
		ktr_fail("pressure-setup", "cannot configure %s: %s", FAILSLAB, strerror(errno));
		return;
	}
	pthread_barrier_init(&pressure_bar, NULL, 2);
	if (pthread_create(&t, NULL, pressure_thread, NULL)) {
		ktr_fail("pressure-setup", "pthread_create: %s", strerror(errno));
		return;
	}
	pthread_barrier_wait(&pressure_bar);
	tid = atomic_load(&pressure_tid);
	if (!atomic_load(&pressure_registered) || ktr_ctl("clear") ||
	    ktr_write_file(FAILSLAB "/probability", "100"))
		ktr_fail("pressure-setup", "context word, clear, failslab on: %s", strerror(errno));
	pthread_barrier_wait(&pressure_bar);
	pthread_barrier_wait(&pressure_bar);
	ktr_write_file(FAILSLAB "/probability", "0");
	thread_state(tid, &c1, &d1, &records);
	pthread_barrier_wait(&pressure_bar);
	pthread_barrier_wait(&pressure_bar);
	thread_state(tid, &c2, &d2, &records);
	pthread_barrier_wait(&pressure_bar);
	pthread_join(t, NULL);
	ktr_write_file(FAILSLAB "/ignore-gfp-wait", "Y");

	ktr_check(c1 < 64 && c1 + (uint64_t)d1 >= PRESSURE_CALLS, "pressure-drops-counted",
		  "%d calls in new contexts with every allocation of the thread failing: "
		  "getpid %" PRIu64 " recorded, dropped %ld; expected what its first table "
		  "holds recorded and the rest dropped", PRESSURE_CALLS, c1, d1);
	ktr_check(c2 - c1 >= RECOVER_CALLS - 4 && c2 - c1 + (uint64_t)(d2 - d1) >= RECOVER_CALLS,
		  "pressure-recovers",
		  "after the failures stop, %d calls in new contexts: %" PRIu64 " recorded, %ld "
		  "dropped; expected all but a few (while the table grows) recorded",
		  RECOVER_CALLS, c2 - c1, d2 - d1);
	ktr_info("pressure", "%d getpid in new contexts with the thread's allocations failing: "
		 "%" PRIu64 " recorded, %ld drops counted; then %" PRIu64 " of %d recorded",
		 PRESSURE_CALLS, c1, d1, c2 - c1, RECOVER_CALLS);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--child")) {
		getpids(CHILD_CALLS);
		return 0;
	}
	self_exe = "/proc/self/exe";
	{
		static char exe[256];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		if (n > 0) {
			exe[n] = '\0';
			self_exe = exe;
		}
	}
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		      -1, 0);
	if (shared == MAP_FAILED) {
		perror("t_stress: mmap");
		return 2;
	}
	if (getenv("KTAU_STRESS_SWITCHES"))
		other_switches_wanted = strtol(getenv("KTAU_STRESS_SWITCHES"), NULL, 10);
	ktr_init("stress");
	phase_exact(LOAD_PLAIN);
	phase_exact(LOAD_OTHER_GROUPS);
	phase_control();
	phase_pressure();
	return ktr_exit();
}
