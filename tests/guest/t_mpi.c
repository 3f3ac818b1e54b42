// SPDX-License-Identifier: GPL-2.0
/*
 * mpi — an MPI job under ktau, with Debian's Open MPI in the guest
 * (scripts/guest-openmpi.sh copies it into the initramfs). The MPI test
 * program tests/mpi/mpi-ring (exact behaviour in tests/mpi/mpi-ring.h)
 * runs as 4 ranks on the guest's 2 CPUs, twice, as users type it:
 *   preload  mpirun --oversubscribe -np 4 env LD_PRELOAD=libktau-mpi.so
 *                   KTAU_PROFILE_DIR=DIR mpi-ring ROUNDS BYTES
 *   ktau-run mpirun --oversubscribe -np 4 ktau-run --tau --node-profile
 *                   -o DIR mpi-ring ROUNDS BYTES
 * and each job's TAU directories are read whole with tests/unit/tau_reader.c
 * (an independent reader of the TAU format): one profile.<rank>.0.0 per
 * rank 0..3, and nothing else. Under libktau-mpi, per rank:
 *   - each MPI routine's exact call count, in group MPI;
 *   - the message-size events' exact counts and sums, also per callpath
 *     (MPI_Send(), MPI_Recv(), MPI_Bcast(), MPI_Allreduce());
 *   - kernel routines under MPI routines (MPI_Init() => sys_...(), and in
 *     the job under a communication routine), each with calls > 0 and
 *     inclusive time <= its MPI parent's;
 *   - the MPI metadata (rank, size, processor name, library version).
 * Under ktau-run: each rank's kernel profile (DIR/tau), its user profile
 * (DIR/tau-user: the kernel under ".TAU application"), its saved profiles
 * (DIR/rank.<R>), the node's archives at start and end. Then `ktau-report
 * --job` on each job, whose per-rank figures must be those of the files.
 * What Open MPI needs in this busybox guest, as root on 2 CPUs, is set
 * here and in the guest's /etc/openmpi/openmpi-mca-params.conf (plm
 * isolated: no ssh/rsh; btl self,vader), never in the commands: loopback
 * up (PMIx's listener fails without an interface), a hostname Open MPI
 * accepts (the kernel's default "(none)" is refused), and
 * OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM). Each check is a SKIP when its part is
 * not in the initramfs (no Open MPI on the host, libktau-mpi or mpi-ring
 * not built).
 */
#define _GNU_SOURCE
#include "ktr.h"
#include "tau_reader.h"
#include "toolrun.h"
#include "../mpi/mpi-ring.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MPIRUN "/usr/bin/mpirun"
#define MPI_RING TOOL_DIR "/mpi-ring"
#define KTAU_MPI_LIB "/usr/local/lib/libktau-mpi.so"
#define TIMEOUT "/usr/bin/timeout"
/*
 * mpirun's limit: a hang is a FAIL, not a stuck boot. Far above a job's
 * length: on the KASAN kernel under one TCG thread of a slow 2-core host,
 * MPI_Init() and MPI_Finalize() of 4 ranks alone take 75 s (mpi-ring 0),
 * a whole job 90 to 110 s, and the guest's busybox timeout ends mpirun
 * with SIGTERM, whose exit status is mpirun's own (1), not 124.
 */
#define JOB_SECONDS 400
#define NRANKS 4
#define ROUNDS 10
#define BYTES 4096
#define STRING(x) #x
#define ARG(x) STRING(x)
#define ROUNDS_ARG ARG(ROUNDS)
#define BYTES_ARG ARG(BYTES)
#define JOB_SECONDS_ARG ARG(JOB_SECONDS)

static const char *const sent_event = "Message size sent to all nodes";
static const char *const received_event = "Message size received from all nodes";
static const char *const bcast_event = "Message size for broadcast";
static const char *const allreduce_event = "Message size for all-reduce";

/* ---- the guest's environment for Open MPI ---- */

static int loopback_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd = socket(AF_INET, SOCK_DGRAM, 0), rc = -1;

	if (fd < 0)
		return -1;
	if (!ioctl(fd, SIOCGIFFLAGS, &ifr)) {
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
		rc = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	close(fd);
	return rc;
}

/* Open MPI takes letters, digits, '.' and '-' in node names. */
static int hostname_ok(const char *name)
{
	if (!*name)
		return 0;
	for (const char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '.' || *c == '-'))
			return 0;
	return 1;
}

static int prepare_guest(void)
{
	char host[256] = "";
	static const char guest_name[] = "ktau-guest";

	if (loopback_up()) {
		ktr_fail("environment", "cannot bring loopback up: %s", strerror(errno));
		return -1;
	}
	gethostname(host, sizeof(host) - 1);
	if (!hostname_ok(host) && sethostname(guest_name, strlen(guest_name))) {
		ktr_fail("environment", "cannot set a hostname: %s", strerror(errno));
		return -1;
	}
	setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
	setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
	return 0;
}

/* ---- one job's directory ---- */

/* Appends to the string in buf (size bytes), cut at its end: reasons for
 * a FAIL line gather the ranks that differ. */
static void appendf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void appendf(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

struct job {
	const char *label;		/* names its checks: preload, ktau_run_user, ... */
	char dir[96];			/* the TAU profiles */
	const char *report_dir;		/* what ktau-report --job is given */
	struct tau_profile ranks[NRANKS];
	int loaded[NRANKS];
};

static void check_name(const struct job *j, const char *what, char *check, size_t size)
{
	snprintf(check, size, "%s_%s", j->label, what);
}

/* Every file of the directory is profile.<rank>.0.0 of a rank < NRANKS,
 * each rank's is there: "0 1 2 3" listed in *found. */
static int check_files(const struct job *j)
{
	char check[64], found[256] = "", extra[256] = "";
	int have[NRANKS] = { 0 }, bad = 0;
	struct dirent *d;
	DIR *dir = opendir(j->dir);

	check_name(j, "one_file_per_rank", check, sizeof(check));
	if (!dir) {
		ktr_fail(check, "%s: %s", j->dir, strerror(errno));
		return -1;
	}
	while ((d = readdir(dir))) {
		unsigned int rank, ctx, thread;
		char tail;

		if (d->d_name[0] == '.')
			continue;
		if (sscanf(d->d_name, "profile.%u.%u.%u%c", &rank, &ctx, &thread, &tail) == 3 &&
		    rank < NRANKS && ctx == 0 && thread == 0) {
			have[rank]++;
			continue;
		}
		bad++;
		appendf(extra, sizeof(extra), " %s", d->d_name);
	}
	closedir(dir);
	for (int r = 0; r < NRANKS; r++)
		if (have[r])
			appendf(found, sizeof(found), "%s%d",
				 *found ? " " : "", r);
	return ktr_check(!bad && !strcmp(found, "0 1 2 3"), check,
			 "%s: ranks with a file: '%s', want '0 1 2 3'; other files:%s", j->dir,
			 found, bad ? extra : " none") ? 0 : -1;
}

static int load_ranks(struct job *j)
{
	char check[64], name[64], err[256];
	int ok = 1;

	check_name(j, "read_whole", check, sizeof(check));
	for (int r = 0; r < NRANKS; r++) {
		snprintf(name, sizeof(name), "profile.%d.0.0", r);
		j->loaded[r] = !tau_parse_file(j->dir, name, &j->ranks[r], err, sizeof(err));
		if (!j->loaded[r]) {
			ktr_fail(check, "%s/%s: %s", j->dir, name, err);
			ok = 0;
		}
	}
	if (ok)
		ktr_pass(check);
	return ok ? 0 : -1;
}

static void unload_ranks(struct job *j)
{
	for (int r = 0; r < NRANKS; r++)
		if (j->loaded[r])
			tau_free(&j->ranks[r]);
}

struct expected_calls {
	const char *routine;
	uint64_t calls;
};

static const struct expected_calls mpi_calls[] = {
	{ "MPI_Init()", 1 },
	{ "MPI_Comm_rank()", 1 },
	{ "MPI_Comm_size()", 1 },
	{ "MPI_Send()", ROUNDS },
	{ "MPI_Recv()", ROUNDS },
	{ "MPI_Isend()", 1 },
	{ "MPI_Irecv()", 1 },
	{ "MPI_Waitall()", 1 },
	{ "MPI_Sendrecv()", 1 },
	{ "MPI_Bcast()", 1 },
	{ "MPI_Allreduce()", 1 },
	{ "MPI_Barrier()", 1 },
	{ "MPI_Finalize()", 1 },
};

static void check_call_counts(const struct job *j)
{
	char check[64], why[512] = "";

	check_name(j, "mpi_call_counts", check, sizeof(check));
	for (int r = 0; r < NRANKS; r++) {
		for (size_t i = 0; i < sizeof(mpi_calls) / sizeof(mpi_calls[0]); i++) {
			const struct tau_entry *e = tau_find(&j->ranks[r], mpi_calls[i].routine);

			if (e && e->calls == mpi_calls[i].calls && strstr(e->group, "MPI"))
				continue;
			appendf(why, sizeof(why),
				 " rank %d %s: %llu calls (want %llu), group '%s';", r,
				 mpi_calls[i].routine, e ? (unsigned long long)e->calls : 0ULL,
				 (unsigned long long)mpi_calls[i].calls, e ? e->group : "(none)");
		}
	}
	ktr_check(!*why, check, "%s", why);
}

/* An event's count and sum (TAU writes the mean: sum = mean * count,
 * exact for these sizes) equal what the ring did. */
static int event_is(const struct tau_event *ev, uint64_t count, double bytes_each)
{
	return ev && ev->count == count && fabs(ev->mean * (double)ev->count -
						bytes_each * (double)count) < 0.5 &&
	       ev->min == bytes_each && ev->max == bytes_each;
}

/* The context event "<event> : <callpath ending in routine>", or NULL. */
static const struct tau_event *context_event(const struct tau_profile *p, const char *event,
					     const char *routine)
{
	size_t elen = strlen(event), rlen = strlen(routine);

	for (size_t i = 0; i < p->nr_events; i++) {
		const char *n = p->events[i].name;
		size_t len = strlen(n);

		if (!strncmp(n, event, elen) && !strncmp(n + elen, " : ", 3) && len >= rlen &&
		    !strcmp(n + len - rlen, routine))
			return &p->events[i];
	}
	return NULL;
}

static void check_message_sizes(const struct job *j)
{
	char check[64], why[512] = "";
	const uint64_t messages = MPI_RING_MESSAGES(ROUNDS);

	check_name(j, "message_size_events", check, sizeof(check));
	for (int r = 0; r < NRANKS; r++) {
		const struct tau_profile *p = &j->ranks[r];

		if (!event_is(tau_find_event(p, sent_event), messages, BYTES) ||
		    !event_is(tau_find_event(p, received_event), messages, BYTES) ||
		    !event_is(context_event(p, sent_event, "MPI_Send()"), ROUNDS, BYTES) ||
		    !event_is(context_event(p, received_event, "MPI_Recv()"), ROUNDS, BYTES))
			appendf(why, sizeof(why),
				 " rank %d: want %llu messages of %d bytes each way, %d of them"
				 " under MPI_Send()/MPI_Recv();", r,
				 (unsigned long long)messages, BYTES, ROUNDS);
		if (!event_is(tau_find_event(p, bcast_event), 1, MPI_RING_BCAST_BYTES) ||
		    !event_is(context_event(p, bcast_event, "MPI_Bcast()"), 1,
			      MPI_RING_BCAST_BYTES) ||
		    !event_is(tau_find_event(p, allreduce_event), 1, MPI_RING_ALLREDUCE_BYTES) ||
		    !event_is(context_event(p, allreduce_event, "MPI_Allreduce()"), 1,
			      MPI_RING_ALLREDUCE_BYTES))
			appendf(why, sizeof(why), " rank %d: want one broadcast of %d bytes and"
				" one all-reduce of %d;", r, MPI_RING_BCAST_BYTES,
				MPI_RING_ALLREDUCE_BYTES);
	}
	ktr_check(!*why, check, "%s", why);
}

/* The flat name's last element: "a => b => c" gives "c". */
static const char *leaf(const char *name)
{
	const char *arrow, *last = name;

	while ((arrow = strstr(last, " => ")))
		last = arrow + 4;
	return last;
}

/* Kernel routines under MPI routines: callpaths "... => MPI_X() => k()"
 * with k in TAU_KERNEL_MERGE, calls > 0 and incl <= the MPI parent's. In
 * each rank one under MPI_Init() at least (it opens, maps and reads
 * files); in the job one under a communication routine at least (4 ranks
 * on 2 CPUs wait: Open MPI, oversubscribed, yields the CPU in
 * sched_yield(); the timer interrupt lands in long calls). */
static void check_kernel_under_mpi(const struct job *j)
{
	char check[64], why[512] = "", parent[512];
	const char *example = NULL;
	double example_incl = -1;
	int communication = 0;

	check_name(j, "kernel_under_mpi", check, sizeof(check));
	for (int r = 0; r < NRANKS; r++) {
		const struct tau_profile *p = &j->ranks[r];
		int under = 0, under_init = 0, bad = 0;

		for (size_t i = 0; i < p->nr_entries; i++) {
			const struct tau_entry *e = &p->entries[i], *up;
			const char *l = leaf(e->name);
			size_t plen;

			if (l == e->name || !strstr(e->group, "TAU_KERNEL_MERGE"))
				continue;
			plen = (size_t)(l - e->name) - 4;
			if (plen >= sizeof(parent))
				continue;
			memcpy(parent, e->name, plen);
			parent[plen] = '\0';
			if (strncmp(leaf(parent), "MPI_", 4))
				continue;
			up = tau_find(p, parent);
			under++;
			under_init += !strcmp(leaf(parent), "MPI_Init()");
			if (!up || !e->calls || e->incl > up->incl + 1e-6) {
				bad++;
				continue;
			}
			if (!strcmp(leaf(parent), "MPI_Init()") ||
			    !strcmp(leaf(parent), "MPI_Finalize()"))
				continue;
			communication++;
			if (e->incl > example_incl) {
				example = e->name;
				example_incl = e->incl;
			}
		}
		if (!under_init || bad)
			appendf(why, sizeof(why),
				 " rank %d: %d kernel callpaths under MPI routines, %d under"
				 " MPI_Init(), %d with no calls or more time than their parent;",
				 r, under, under_init, bad);
	}
	if (!communication)
		appendf(why, sizeof(why), " no kernel routine under a communication routine"
			" in any rank;");
	ktr_check(!*why, check, "%s", why);
	if (example)
		ktr_info(check, "heaviest under communication: '%s', %.1f usec", example,
			 example_incl);
}

/* Rank and size as MPI says them, the guest's name, Open MPI's version. */
static void check_metadata(const struct job *j)
{
	char check[64], why[512] = "", buf[256], host[256] = "";

	check_name(j, "mpi_metadata", check, sizeof(check));
	gethostname(host, sizeof(host) - 1);
	for (int r = 0; r < NRANKS; r++) {
		const struct tau_profile *p = &j->ranks[r];
		long rank = -1, size = -1;

		if (tau_metadata(p, "MPI Rank", buf, sizeof(buf)))
			rank = strtol(buf, NULL, 10);
		if (tau_metadata(p, "MPI Size", buf, sizeof(buf)))
			size = strtol(buf, NULL, 10);
		if (rank != r || size != NRANKS)
			appendf(why, sizeof(why), " rank %d: MPI Rank %ld, MPI Size %ld;", r, rank,
				size);
		if (!tau_metadata(p, "MPI Processor Name", buf, sizeof(buf)) || strcmp(buf, host))
			appendf(why, sizeof(why), " rank %d: MPI Processor Name not '%s';", r, host);
		if (!tau_metadata(p, "MPI Library Version", buf, sizeof(buf)) ||
		    strncmp(buf, "Open MPI v", 10))
			appendf(why, sizeof(why), " rank %d: MPI Library Version not Open MPI's;", r);
	}
	ktr_check(!*why, check, "%s", why);
}

/* A rank's total (every flat routine's exclusive time) and kernel time
 * (those of group TAU_KERNEL_MERGE), from the reader's view of its file. */
static void rank_times(const struct tau_profile *p, double *total, double *kernel)
{
	*total = *kernel = 0;
	for (size_t i = 0; i < p->nr_entries; i++) {
		const struct tau_entry *e = &p->entries[i];

		if (strstr(e->name, " => "))
			continue;
		*total += e->excl;
		if (strstr(e->group, "TAU_KERNEL_MERGE"))
			*kernel += e->excl;
	}
}

static int close_enough(double report, double files)
{
	return fabs(report - files) <= 0.01 + 1e-9 * fabs(files);	/* %.3f in the report */
}

/* `ktau-report --job DIR`: its rows under "per rank:" (rank node threads
 * total user kernel ...) are the files' figures. */
static void check_job_report(const struct job *j)
{
	char check[64], why[512] = "", host[256] = "";
	char *argv[] = { TOOL_DIR "/ktau-report", "--job", (char *)j->report_dir, NULL };
	int seen[NRANKS] = { 0 };
	struct tool_result r;
	const char *line;

	check_name(j, "job_report", check, sizeof(check));
	if (tool_run(check, argv, NULL, 0, &r))
		return;
	gethostname(host, sizeof(host) - 1);
	line = strstr(r.out, "\nper rank:\n");
	if (r.status || !line) {
		ktr_fail(check, "exit status %d, no 'per rank:' table; stderr: %.300s", r.status,
			 r.err);
		tool_result_free(&r);
		return;
	}
	line = strchr(line + 1, '\n') + 1;	/* the column header */
	while ((line = strchr(line, '\n')) && line[1] != '\n' && line[1]) {
		double total, user, kernel, files_total, files_kernel;
		char node[256];
		int rank, threads;

		line++;
		if (sscanf(line, "%d %255s %d %lf %lf %lf", &rank, node, &threads, &total, &user,
			   &kernel) != 6 || rank < 0 || rank >= NRANKS) {
			appendf(why, sizeof(why), " a row that is no rank's: '%.60s';", line);
			break;
		}
		seen[rank]++;
		rank_times(&j->ranks[rank], &files_total, &files_kernel);
		if (strcmp(node, host) || threads != 1 || !close_enough(total, files_total) ||
		    !close_enough(kernel, files_kernel) ||
		    !close_enough(user, files_total - files_kernel))
			appendf(why, sizeof(why), " rank %d: report %s %d thread(s) total %.3f"
				" kernel %.3f, files %s 1 total %.3f kernel %.3f;", rank, node,
				threads, total, kernel, host, files_total, files_kernel);
	}
	for (int k = 0; k < NRANKS; k++)
		if (seen[k] != 1)
			appendf(why, sizeof(why), " rank %d in %d rows;", k, seen[k]);
	ktr_check(!*why, check, "%s", why);
	tool_result_free(&r);
}

static void check_job_dir(struct job *j)
{
	if (check_files(j) || load_ranks(j)) {
		unload_ranks(j);
		return;
	}
	check_call_counts(j);
	check_message_sizes(j);
	check_kernel_under_mpi(j);
	check_metadata(j);
	check_job_report(j);
	unload_ranks(j);
}

/* ---- the jobs ---- */

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* A job's output, gone before it runs (a test run twice in one boot) and
 * after (the guest's memory). */
static void remove_tree(const char *path)
{
	if (nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS) && errno != ENOENT)
		ktr_info("cleanup", "cannot remove %s: %s", path, strerror(errno));
}

static int run_job(const struct job *j, char *const argv[])
{
	struct tool_result r;
	struct timespec start, end;
	char check[64];
	long seconds;
	int ok;

	check_name(j, "job", check, sizeof(check));
	clock_gettime(CLOCK_MONOTONIC, &start);
	if (tool_run(check, argv, NULL, 0, &r))
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &end);
	seconds = (long)(end.tv_sec - start.tv_sec);
	ok = ktr_check(r.status == 0, check, "exit status %d after %ld s (limit %d s%s); stderr: %.400s",
		       r.status, seconds, JOB_SECONDS,
		       seconds >= JOB_SECONDS ? ": timed out" : "", r.err);
	ktr_info(check, "%ld s", seconds);
	if (!ok)
		ktr_info(check, "stdout: %.400s", r.out);
	tool_result_free(&r);
	return ok ? 0 : -1;
}

static void preload_job(void)
{
	struct job j = { .label = "preload", .dir = "/tmp/mpi-preload",
			 .report_dir = "/tmp/mpi-preload" };
	char dir_env[128];

	if (access(KTAU_MPI_LIB, R_OK)) {
		ktr_skip("preload", "%s is not in this initramfs (make mpi, make initramfs)",
			 KTAU_MPI_LIB);
		return;
	}
	snprintf(dir_env, sizeof(dir_env), "KTAU_PROFILE_DIR=%s", j.dir);
	char *argv[] = { TIMEOUT, JOB_SECONDS_ARG, MPIRUN, "--oversubscribe", "-np", "4", "env",
			 "LD_PRELOAD=libktau-mpi.so", dir_env, MPI_RING, ROUNDS_ARG, BYTES_ARG,
			 NULL };
	remove_tree(j.dir);
	if (!run_job(&j, argv))
		check_job_dir(&j);
	remove_tree(j.dir);
}

/* ktau-run's profile of each rank's command and its children, in tau/:
 * kernel routines only, sys_openat() among them (MPI_Init() opens files). */
static void check_kernel_profiles(const struct job *j)
{
	char check[64], why[512] = "";

	check_name(j, "kernel_routines", check, sizeof(check));
	for (int r = 0; r < NRANKS; r++) {
		const struct tau_profile *p = &j->ranks[r];
		const struct tau_entry *openat = tau_find(p, "sys_openat()");
		size_t user = 0;

		for (size_t i = 0; i < p->nr_entries; i++)
			user += !strstr(p->entries[i].group, "TAU_KERNEL_MERGE") &&
				!strstr(p->entries[i].group, "TAU_CALLPATH");
		if (!openat || !openat->calls || user)
			appendf(why, sizeof(why), " rank %d: sys_openat() %llu calls, %zu user"
				" routines;", r, openat ? (unsigned long long)openat->calls : 0ULL,
				user);
	}
	ktr_check(!*why, check, "%s", why);
}

/* libktau-prof preloaded by ktau-run --tau, in tau-user/, and libktau-mpi
 * with it under the launcher: one ".TAU application" and one MPI_Init()
 * per rank, the kernel routines of the run under the MPI routines. */
static void check_application_timer(const struct job *j)
{
	char check[64], why[512] = "";

	check_name(j, "application_and_mpi_timers", check, sizeof(check));
	for (int r = 0; r < NRANKS; r++) {
		const struct tau_profile *p = &j->ranks[r];
		const struct tau_entry *app = tau_find(p, ".TAU application");
		const struct tau_entry *init = tau_find(p, "MPI_Init()");

		if (!app || app->calls != 1 || !init || init->calls != 1)
			appendf(why, sizeof(why), " rank %d: .TAU application %llu calls,"
				" MPI_Init() %llu calls;", r,
				app ? (unsigned long long)app->calls : 0ULL,
				init ? (unsigned long long)init->calls : 0ULL);
	}
	ktr_check(!*why, check, "%s", why);
	check_kernel_under_mpi(j);
}

/* A non-empty file at dir/name, or a reason appended to why. */
static void expect_file(const char *dir, const char *name, char *why, size_t size)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (stat(path, &st) || !S_ISREG(st.st_mode) || !st.st_size)
		appendf(why, size, " no %s;", path);
}

/* mpirun ... ktau-run --tau --node-profile -o DIR: each rank's saved
 * profiles in DIR/rank.<R>, the one node's archives at start and end. */
static void check_ktau_run_dir(const char *out)
{
	char why[512] = "", name[300], host[256] = "";

	gethostname(host, sizeof(host) - 1);
	for (int r = 0; r < NRANKS; r++) {
		static const char *const saved[] = { "before.ktau", "after.ktau", "report.txt" };

		for (size_t k = 0; k < sizeof(saved) / sizeof(saved[0]); k++) {
			snprintf(name, sizeof(name), "rank.%d/%s", r, saved[k]);
			expect_file(out, name, why, sizeof(why));
		}
	}
	ktr_check(!*why, "ktau_run_rank_dirs", "%s", why);
	*why = '\0';
	snprintf(name, sizeof(name), "node.%s.start.ktar", host);
	expect_file(out, name, why, sizeof(why));
	snprintf(name, sizeof(name), "node.%s.end.ktar", host);
	expect_file(out, name, why, sizeof(why));
	ktr_check(!*why, "ktau_run_node_profile", "%s", why);
}

static void ktau_run_job(void)
{
	static const char out[] = "/tmp/mpi-ktau-run";
	struct job run = { .label = "ktau_run" };
	struct job kernel = { .label = "ktau_run_kernel", .dir = "/tmp/mpi-ktau-run/tau" };
	struct job user = { .label = "ktau_run_user", .dir = "/tmp/mpi-ktau-run/tau-user",
			    .report_dir = out };
	char *argv[] = { TIMEOUT, JOB_SECONDS_ARG, MPIRUN, "--oversubscribe", "-np", "4",
			 TOOL_DIR "/ktau-run", "--tau", "--node-profile", "-o", (char *)out,
			 MPI_RING, ROUNDS_ARG, BYTES_ARG, NULL };

	remove_tree(out);
	if (run_job(&run, argv)) {
		remove_tree(out);
		return;
	}
	check_ktau_run_dir(out);
	if (!check_files(&kernel) && !load_ranks(&kernel))
		check_kernel_profiles(&kernel);
	unload_ranks(&kernel);
	if (!check_files(&user) && !load_ranks(&user)) {
		check_application_timer(&user);
		check_job_report(&user);
	}
	unload_ranks(&user);
	remove_tree(out);
}

int main(void)
{
	ktr_init("mpi");
	if (access(MPIRUN, X_OK)) {
		ktr_skip("openmpi", "Open MPI is not in this initramfs (on the host: "
			 "apt-get install openmpi-bin libopenmpi-dev; make initramfs)");
		return ktr_exit();
	}
	if (access(MPI_RING, X_OK)) {
		ktr_skip("mpi_ring", "%s is not in this initramfs (make mpi; make initramfs)",
			 MPI_RING);
		return ktr_exit();
	}
	if (prepare_guest())
		return ktr_exit();
	preload_job();
	ktau_run_job();
	return ktr_exit();
}
