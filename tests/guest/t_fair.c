// SPDX-License-Identifier: GPL-2.0
/*
 * fair — ktau's memory is fair between users (issue 32): the tables
 * beyond a task's first size are charged to the task's real user, within
 * that user's limit (`limit user-memory`, `limit user UID`), and all
 * users together within `limit memory`.
 *
 *  1. fairness: with `limit memory 8M` and `limit user-memory 3M`, user
 *     nobody runs 100 threads x 2000 new user contexts each (it would
 *     want more than the whole 8 MiB); meanwhile processes of uids 1000
 *     and 1001 record 500 contexts each: both keep every call (dropped=0,
 *     500 getppid() in 500 contexts), nobody stays within its 3 MiB, and
 *     each of its threads' recorded getppid() calls plus its dropped count
 *     is exactly what the thread made; the control file lists the three
 *     users with their bytes; `stop` + `clear` give every byte back;
 *  2. bad limits: out of range, invalid or unmapped uids are EINVAL and
 *     change nothing; `limit user UID BYTES` shows, `default` undoes it;
 *  3. setuid: a task that grew its table as uid 2000 and then became uid
 *     3000 leaves the bytes charged to 2000 while it lives and gives them
 *     back to 2000 when it exits;
 *  4. user namespaces: a process in a new user namespace (uid 0 there,
 *     1000 outside) is charged to global uid 1000 (SKIP without
 *     CONFIG_USER_NS);
 *  5. the defaults fit a real job: 1000 threads x 200 contexts of one user
 *     record with dropped=0 and exact counts, every group enabled.
 *
 * Parts 1 to 4 record the syscall group alone, so that a thread's only
 * records are its system calls and the arithmetic of part 1 is exact.
 * Runs as root; restores the limits, `enable all` and `start` at the end.
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <linux/futex.h>
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

/* ---- a job: one process of one user, threads x new contexts ---------- */

struct job {
	uid_t uid;
	unsigned int threads;	/* 0: the main thread makes the calls */
	unsigned int contexts;	/* getppid() calls, each in a new context */
	int userns;		/* run in a new user namespace (uid 0 there) */
	pid_t pid;
	int cmd, ans;		/* root writes commands, reads answers */
};

static atomic_uint ready;
static atomic_int release_threads;
static pthread_mutex_t park_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t park_cond = PTHREAD_COND_INITIALIZER;
static int futex_word;

/*
 * getppid() in @n new contexts; everything else under context 0, with a
 * record made before the table can fill (the futex of the park).
 */
static int make_calls(unsigned int n)
{
	static __thread volatile uint32_t word;
	unsigned int i;

	syscall(SYS_futex, &futex_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	if (prctl(PR_KTAU_SET_CONTEXT, (unsigned long)&word, 0UL, 0UL, 0UL))
		return -1;
	for (i = 0; i < n; i++) {
		word = i + 1;
		syscall(SYS_getppid);
	}
	word = 0;
	return 0;
}

static void *job_thread(void *arg)
{
	const struct job *j = arg;

	if (make_calls(j->contexts))
		return (void *)1;
	atomic_fetch_add(&ready, 1);
	pthread_mutex_lock(&park_lock);
	while (!atomic_load(&release_threads))
		pthread_cond_wait(&park_cond, &park_lock);
	pthread_mutex_unlock(&park_lock);
	return NULL;
}

static int become(const struct job *j)
{
	char map[64];

	if (setgroups(0, NULL) || setgid(j->uid) || setuid(j->uid))
		return -1;
	/* the setuid() made it undumpable: /proc/self/uid_map root's */
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	if (!j->userns)
		return 0;
	/* uid 0 inside, j->uid outside */
	if (unshare(CLONE_NEWUSER))
		return -2;
	snprintf(map, sizeof(map), "0 %u 1\n", (unsigned int)j->uid);
	if (ktr_write_file("/proc/self/setgroups", "deny") ||
	    ktr_write_file("/proc/self/uid_map", map))
		return -1;
	snprintf(map, sizeof(map), "0 %u 1\n", (unsigned int)j->uid);
	return ktr_write_file("/proc/self/gid_map", map);
}

static int job_main(struct job *j, int in, int out)
{
	pthread_t *tid = calloc(j->threads + 1, sizeof(*tid));
	pthread_attr_t attr;
	unsigned int i, started = 0;
	char c;
	int r;

	if (setrlimit(RLIMIT_NPROC, &(struct rlimit){ 2 * j->threads + 16,
						      2 * j->threads + 16 }) || !tid)
		return 2;
	r = become(j);
	if (r) {
		c = r == -2 ? 'N' : 'E';
		return write(out, &c, 1) == 1 ? 0 : 3;
	}
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (i = 0; i < j->threads; i++) {
		if (pthread_create(&tid[i], &attr, job_thread, j))
			break;
		started++;
	}
	if (!j->threads && make_calls(j->contexts))
		started = 1;
	while (atomic_load(&ready) < started)
		usleep(20000);
	c = started == j->threads ? 'R' : 'E';
	if (write(out, &c, 1) != 1)
		return 3;
	while (read(in, &c, 1) == 1 && c != 'x')
		;
	pthread_mutex_lock(&park_lock);
	atomic_store(&release_threads, 1);
	pthread_cond_broadcast(&park_cond);
	pthread_mutex_unlock(&park_lock);
	for (i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	return 0;
}

/* Start @j; returns its first answer: R ready, E error, N no user namespaces. */
static char job_start(struct job *j)
{
	int to[2], from[2];
	char c = 0;

	if (pipe(to) || pipe(from))
		return 0;
	j->pid = fork();
	if (j->pid < 0)
		return 0;
	if (!j->pid) {
		close(to[1]);
		close(from[0]);
		_exit(job_main(j, to[0], from[1]));
	}
	close(to[0]);
	close(from[1]);
	j->cmd = to[1];
	j->ans = from[0];
	if (read(j->ans, &c, 1) != 1)
		c = 0;
	return c;
}

/* Let @j's threads go, and reap it: its exit status. */
static int job_end(struct job *j)
{
	int st = -1;

	if (j->pid <= 0)
		return -1;
	if (write(j->cmd, "x", 1) != 1)
		kill(j->pid, SIGKILL);
	close(j->cmd);
	close(j->ans);
	waitpid(j->pid, &st, 0);
	j->pid = 0;
	return st;
}

/* ---- what the profiles and the control file say ---------------------- */

struct calls {
	uint64_t getppid;	/* calls */
	uint64_t contexts;	/* distinct contexts of getppid() */
	long dropped;
};

static void count_block(const struct ktr_block *b, struct calls *c)
{
	for (size_t i = 0; i < b->npaths; i++) {
		const struct ktr_path *p = &b->paths[i];

		if (p->depth != 1 || strcmp(p->name, "getppid"))
			continue;
		c->getppid += p->calls;
		/* one path per context and callpath */
		c->contexts += p->ctx != 0;
	}
	c->dropped += b->dropped > 0 ? b->dropped : 0;
}

/* The process block of @pid (threads live and exited); 0, or -1 after a
 * FAIL line. */
static int process_calls(pid_t pid, struct calls *c, const char *check)
{
	struct ktr_profile p;
	struct ktr_block *b;
	char path[64];

	memset(c, 0, sizeof(*c));
	snprintf(path, sizeof(path), "/proc/%d/ktau", (int)pid);
	if (ktr_load(path, 0, &p, check))
		return -1;
	b = ktr_block_kind(&p, "process", 0);
	if (b)
		count_block(b, c);
	else
		ktr_fail(check, "%s has no kind=process block", path);
	ktr_free(&p);
	return b ? 0 : -1;
}

/*
 * Every thread of @pid but its main one: the threads whose getppid()
 * calls plus dropped count are not @calls (in *@wrong), and the sums.
 */
static int threads_calls(pid_t pid, unsigned int calls, struct calls *sum,
			 unsigned int *threads, unsigned int *wrong)
{
	char path[300];
	struct dirent *d;
	DIR *dir;

	memset(sum, 0, sizeof(*sum));
	*threads = *wrong = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		struct calls c = { 0 };
		struct ktr_profile p;
		struct ktr_block *b;

		if (d->d_name[0] == '.' || atoi(d->d_name) == pid)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/ktau", (int)pid, d->d_name);
		if (ktr_load(path, 0, &p, "thread-profile"))
			continue;
		b = ktr_block_kind(&p, "thread", 0);
		if (b)
			count_block(b, &c);
		ktr_free(&p);
		(*threads)++;
		*wrong += c.getppid + (uint64_t)c.dropped != calls;
		sum->getppid += c.getppid;
		sum->contexts += c.contexts;
		sum->dropped += c.dropped;
	}
	closedir(dir);
	return 0;
}

/* The bytes and limit of user @uid's line in the control file; -1 if absent. */
static long user_bytes(const char *text, uid_t uid, unsigned long *limit)
{
	char key[48];
	const char *l;

	snprintf(key, sizeof(key), "user uid=%u bytes=", (unsigned int)uid);
	for (l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (strncmp(l, key, strlen(key)))
			continue;
		if (limit) {
			const char *p = strstr(l, "limit=");

			*limit = p ? strtoul(p + 6, NULL, 10) : 0;
		}
		return strtol(l + strlen(key), NULL, 10);
	}
	return -1;
}

static long ctl_user_bytes(uid_t uid, unsigned long *limit)
{
	char *text = ktr_ctl_read();
	long v = text ? user_bytes(text, uid, limit) : -1;

	free(text);
	return v;
}

static unsigned long default_total, default_user;

static void restore_limits(void)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "limit memory %lu", default_total);
	ktr_ctl(cmd);
	snprintf(cmd, sizeof(cmd), "limit user-memory %lu", default_user);
	ktr_ctl(cmd);
}

static void restore(void)
{
	ktr_ctl("start");
	ktr_ctl("enable all");
	restore_limits();
}

/* Only the syscall group records, from empty profiles. */
static void syscalls_only(void)
{
	ktr_ctl("disable all");
	ktr_ctl("enable syscall");
	ktr_ctl("clear");
}

/* ---- 1. fairness --------------------------------------------------------- */

static void fairness(void)
{
	struct job nobody = { .uid = NOBODY, .threads = 100, .contexts = 2000 };
	struct job v[2] = {
		{ .uid = 1000, .contexts = 500 },
		{ .uid = 1001, .contexts = 500 },
	};
	unsigned int threads, wrong, i;
	unsigned long limit = 0;
	struct calls sum, c;
	long b[3];
	char *text;

	syscalls_only();
	if (ktr_ctl("limit memory 8M") || ktr_ctl("limit user-memory 3M")) {
		ktr_fail("limits", "limit memory 8M, limit user-memory 3M: %s", strerror(errno));
		return;
	}
	if (job_start(&nobody) != 'R') {
		ktr_fail("nobody-start", "nobody's 100 threads did not all make their calls");
		job_end(&nobody);
		return;
	}
	for (i = 0; i < 2; i++)
		if (job_start(&v[i]) != 'R')
			ktr_fail("user-start", "uid %u's process did not make its calls",
				 (unsigned int)v[i].uid);

	for (i = 0; i < 2; i++) {
		if (process_calls(v[i].pid, &c, "user-profile"))
			continue;
		ktr_info("user", "uid %u: %" PRIu64 " getppid in %" PRIu64 " contexts, dropped %ld",
			 (unsigned int)v[i].uid, c.getppid, c.contexts, c.dropped);
		ktr_check(c.dropped == 0 && c.getppid == 500 && c.contexts == 500,
			  i ? "uid1001-complete" : "uid1000-complete",
			  "uid %u recorded %" PRIu64 " getppid() in %" PRIu64 " contexts, dropped=%ld, "
			  "while nobody pinned its share; expected 500 in 500, dropped=0",
			  (unsigned int)v[i].uid, c.getppid, c.contexts, c.dropped);
	}
	if (!threads_calls(nobody.pid, nobody.contexts, &sum, &threads, &wrong)) {
		ktr_info("nobody", "%u threads: %" PRIu64 " getppid recorded, %ld dropped, of %u made",
			 threads, sum.getppid, sum.dropped, nobody.threads * nobody.contexts);
		ktr_check(threads == nobody.threads && !wrong &&
			  sum.getppid + (uint64_t)sum.dropped ==
			  (uint64_t)nobody.threads * nobody.contexts,
			  "nobody-dropped-exact",
			  "nobody's %u threads: %u with recorded + dropped != %u; sums %" PRIu64
			  " + %ld, expected %u", threads, wrong, nobody.contexts, sum.getppid,
			  sum.dropped, nobody.threads * nobody.contexts);
		ktr_check(sum.dropped > 0, "nobody-drops-its-own",
			  "nobody dropped nothing: it did not reach its limit");
	}

	text = ktr_ctl_read();
	b[0] = text ? user_bytes(text, NOBODY, &limit) : -1;
	b[1] = text ? user_bytes(text, 1000, NULL) : -1;
	b[2] = text ? user_bytes(text, 1001, NULL) : -1;
	ktr_info("control", "bytes: nobody %ld (limit %lu), uid 1000 %ld, uid 1001 %ld; total %lu",
		 b[0], limit, b[1], b[2], ktr_ctl_number("memory", "bytes="));
	ktr_check(b[0] > 0 && b[1] > 0 && b[2] > 0, "control-lists-users",
		  "the control file lists nobody %ld, uid 1000 %ld, uid 1001 %ld bytes; expected "
		  "all three with bytes", b[0], b[1], b[2]);
	ktr_check(b[0] <= (long)(3 * MIB) && limit == 3 * MIB, "nobody-within-share",
		  "nobody has %ld bytes, limit %lu; expected at most 3 MiB", b[0], limit);
	ktr_check(b[0] >= (long)(2 * MIB), "nobody-pinned-share",
		  "nobody has %ld bytes: it should have filled most of its 3 MiB", b[0]);
	free(text);

	ktr_ctl("stop");
	ktr_ctl("clear");
	b[0] = ctl_user_bytes(NOBODY, NULL);
	b[1] = ctl_user_bytes(1000, NULL);
	b[2] = ctl_user_bytes(1001, NULL);
	ktr_check(b[0] <= 0 && b[1] <= 0 && b[2] <= 0, "clear-frees-users",
		  "after stop + clear: nobody %ld, uid 1000 %ld, uid 1001 %ld bytes; expected "
		  "none", b[0], b[1], b[2]);
	ktr_ctl("start");
	job_end(&nobody);
	for (i = 0; i < 2; i++)
		job_end(&v[i]);
	restore_limits();
}

/* ---- 2. bad limits ------------------------------------------------------- */

static void bad_limits(void)
{
	static const char *const bad[] = {
		"limit user 4294967295 4M", "limit user 4294967296 4M", "limit user -1 4M",
		"limit user nobody 4M", "limit user 1000 1023K", "limit user 1000 0",
		"limit user 1000", "limit user 1000 4M 5M", "limit user-memory 1K",
		"limit user-memory 2048T", "limit user-memory", "limit users 4M",
	};
	unsigned long limit = 0, before = ktr_ctl_number("user_memory", "limit=");
	char *t0 = ktr_ctl_read(), *t1;
	int refused = 0;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int e = ktr_ctl(bad[i]);

		refused += e == EINVAL;
		if (e != EINVAL)
			ktr_fail("bad-limit-einval", "'%s': %s, expected EINVAL", bad[i],
				 e ? strerror(e) : "accepted");
	}
	t1 = ktr_ctl_read();
	ktr_check(refused == (int)(sizeof(bad) / sizeof(bad[0])) &&
		  ktr_ctl_number("user_memory", "limit=") == before &&
		  user_bytes(t1 ? t1 : "", 1000, NULL) == user_bytes(t0 ? t0 : "", 1000, NULL),
		  "bad-limit-unchanged", "a refused limit changed the control file");
	free(t0);
	free(t1);

	ktr_check(!ktr_ctl("limit user 1000 5M") && ctl_user_bytes(1000, &limit) >= 0 &&
		  limit == 5 * MIB, "limit-user-shows",
		  "after 'limit user 1000 5M' the control file shows uid 1000 with limit %lu", limit);
	ktr_check(!ktr_ctl("limit user 1000 default") && ctl_user_bytes(1000, NULL) < 0,
		  "limit-user-default", "after 'limit user 1000 default' uid 1000 is still listed");
}

/* ---- 3. setuid ----------------------------------------------------------- */

static int setuid_child(int in, int out)
{
	char c;

	if (setresgid(2000, 2000, 0) || setresuid(2000, 2000, 0))
		return 2;
	if (make_calls(400))
		return 2;
	/* a grow asked for meanwhile has run at these returns */
	for (int i = 0; i < 4; i++)
		syscall(SYS_getppid);
	c = 'G';
	if (write(out, &c, 1) != 1 || read(in, &c, 1) != 1)
		return 3;
	/* back to root (the saved uid), then someone else for good */
	if (setresuid(0, 0, 0) || setresuid(3000, 3000, 3000))
		return 4;
	c = 'S';
	if (write(out, &c, 1) != 1 || read(in, &c, 1) != 1)
		return 3;
	return 0;
}

static void setuid_change(void)
{
	long before, after, gone;
	int to[2], from[2], st = -1;
	char c = 0;
	pid_t pid;

	if (pipe(to) || pipe(from)) {
		ktr_fail("setuid-start", "pipe: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (!pid) {
		close(to[1]);
		close(from[0]);
		_exit(setuid_child(to[0], from[1]));
	}
	close(to[0]);
	close(from[1]);
	if (pid < 0 || read(from[0], &c, 1) != 1 || c != 'G') {
		ktr_fail("setuid-start", "the child did not grow its table as uid 2000");
		goto out;
	}
	before = ctl_user_bytes(2000, NULL);
	if (write(to[1], "g", 1) != 1 || read(from[0], &c, 1) != 1 || c != 'S') {
		ktr_fail("setuid-start", "the child could not become uid 3000");
		goto out;
	}
	after = ctl_user_bytes(2000, NULL);
	ktr_info("setuid", "uid 2000: %ld bytes as the task's uid, %ld once it is uid 3000 "
		 "(uid 3000: %ld)", before, after, ctl_user_bytes(3000, NULL));
	ktr_check(before > 0 && after == before, "setuid-keeps-owner",
		  "uid 2000 had %ld bytes, %ld after its task became uid 3000; expected the "
		  "same, more than 0", before, after);
	if (write(to[1], "x", 1) != 1)
		kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	pid = 0;
	gone = ctl_user_bytes(2000, NULL);
	ktr_check(gone <= 0, "setuid-bytes-back",
		  "uid 2000 still has %ld bytes after the task it charged exited", gone);
out:
	close(to[1]);
	close(from[0]);
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
}

/* ---- 4. user namespaces -------------------------------------------------- */

static void user_namespace(void)
{
	struct job j = { .uid = 1000, .contexts = 500, .userns = 1 };
	char c = job_start(&j);
	long b0, bns;

	if (c == 'N') {
		ktr_skip("userns-global-uid", "no user namespaces in this kernel (CONFIG_USER_NS)");
		job_end(&j);
		return;
	}
	b0 = ctl_user_bytes(0, NULL);
	bns = ctl_user_bytes(1000, NULL);
	ktr_info("userns", "uid 0 in a user namespace, 1000 outside: uid 1000 has %ld bytes", bns);
	ktr_check(c == 'R' && bns > 0, "userns-global-uid",
		  "a process of uid 1000 in a user namespace: answer %c, uid 1000 has %ld bytes "
		  "(root %ld); expected its table charged to uid 1000", c ? c : '-', bns, b0);
	job_end(&j);
}

/* ---- 5. the defaults fit a real job -------------------------------------- */

static void set_threads_max(long n)
{
	FILE *f = fopen("/proc/sys/kernel/threads-max", "w");

	if (f) {
		fprintf(f, "%ld\n", n);
		fclose(f);
	}
}

static void real_job(void)
{
	struct job j = { .uid = 1000, .threads = 1000, .contexts = 200 };
	unsigned long limit = 0;
	struct timespec t0, t1;
	struct calls c;
	long bytes;
	char a;

	restore();
	ktr_ctl("clear");
	set_threads_max(10000);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	a = job_start(&j);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (a != 'R') {
		ktr_fail("job-start", "1000 threads of uid 1000 did not all make their calls");
		job_end(&j);
		return;
	}
	bytes = ctl_user_bytes(1000, &limit);
	if (!process_calls(j.pid, &c, "job-profile")) {
		ktr_info("job", "1000 threads x 200 contexts (every group, default limits) in "
			 "%.1f s: %" PRIu64 " getppid in %" PRIu64 " contexts, dropped %ld; uid 1000 "
			 "has %ld bytes (%.1f MiB, %ld per thread), its limit %lu (%.1f MiB), total "
			 "limit %lu", (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
			 c.getppid, c.contexts, c.dropped, bytes, bytes / (double)MIB, bytes / 1000,
			 limit, limit / (double)MIB, ktr_ctl_number("memory", "limit="));
		ktr_check(c.dropped == 0 && c.getppid == 200000 && c.contexts == 200,
			  "defaults-fit-job",
			  "1000 threads x 200 contexts of one user with the default limits: %" PRIu64
			  " getppid in %" PRIu64 " contexts, dropped=%ld; expected 200000 in 200, "
			  "dropped=0", c.getppid, c.contexts, c.dropped);
	}
	job_end(&j);
}

int main(void)
{
	ktr_init("fair");
	/* a job that ends early closes its end of the command pipe */
	signal(SIGPIPE, SIG_IGN);
	if (geteuid()) {
		ktr_fail("root", "must run as root");
		return ktr_exit();
	}
	default_total = ktr_ctl_number("memory", "limit=");
	default_user = ktr_ctl_number("user_memory", "limit=");
	if (!default_user) {
		ktr_fail("user-memory-line", "the control file has no 'user_memory limit=' line");
		return ktr_exit();
	}
	fairness();
	syscalls_only();
	bad_limits();
	setuid_change();
	user_namespace();
	real_job();
	restore();
	return ktr_exit();
}
