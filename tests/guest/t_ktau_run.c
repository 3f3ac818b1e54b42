// SPDX-License-Identifier: GPL-2.0
/*
 * ktau_run — ktau-run against the real kernel, with this program as the
 * workload (`t_ktau_run --workload MODE ...`; all counts are raw getpid
 * system calls, which nothing else in the workload makes):
 *   fork 1000 500     a child makes 1000, the parent 500: the report says
 *                     exactly 1500 and 2 processes; the saved before/after
 *                     profiles, read by ktr (not libktau), differ by 1500
 *   threads 4 250     four threads: 1000
 *   exec 300          the workload execs itself: 300
 *   exit 3 10         exit status 3 passed through, 10
 *   kill 9 20         killed by SIGKILL: exit status 137, 20
 *   forward 77        sends SIGTERM to ktau-run, which forwards it: the
 *                     handler makes 77 and exits 9
 *   orphan 400        a grandchild orphaned before it makes 400: counted
 *                     with --follow; left out (a note) without
 * and: as user nobody (its own profile: allowed), --tau's TAU file, no
 * ktau kernel, a bad option, a missing command; and a job: three ranks
 * under a fake launcher (OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_LOCAL_RANK,
 * then PMI_RANK alone) writing one directory with --tau --node-profile,
 * read back by ktau-report --job.
 */
#define _GNU_SOURCE
#include "ktr.h"
#include "toolrun.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <dirent.h>
#include <stdbool.h>
#include <sys/wait.h>
#include <unistd.h>

#define KTAU_RUN TOOL_DIR "/ktau-run"

/* ---- the workloads ---- */

static void getpids(long n)
{
	for (long i = 0; i < n; i++)
		syscall(SYS_getpid);
}

static void *thread_getpids(void *arg)
{
	getpids((long)arg);
	return NULL;
}

/* The own pid without a getpid call. */
static pid_t own_pid(void)
{
	char buf[32];
	ssize_t n = readlink("/proc/self", buf, sizeof(buf) - 1);

	buf[n > 0 ? n : 0] = '\0';
	return (pid_t)atoi(buf);
}

static void on_term(int sig)
{
	(void)sig;
}

static int workload(int argc, char **argv)
{
	const char *mode = argv[2];
	long a = argc > 3 ? atol(argv[3]) : 0, b = argc > 4 ? atol(argv[4]) : 0;

	if (!strcmp(mode, "getpid")) {
		getpids(a);
	} else if (!strcmp(mode, "fork")) {
		pid_t pid = fork();

		if (pid == 0) {
			getpids(a);
			_exit(0);
		}
		getpids(b);
		waitpid(pid, NULL, 0);
	} else if (!strcmp(mode, "threads")) {
		pthread_t th[16];

		for (long i = 0; i < a && i < 16; i++)
			pthread_create(&th[i], NULL, thread_getpids, (void *)b);
		for (long i = 0; i < a && i < 16; i++)
			pthread_join(th[i], NULL);
	} else if (!strcmp(mode, "exec")) {
		char self[4096];

		execl(tool_self_path(self, sizeof(self)), "t_ktau_run", "--workload", "getpid",
		      argv[3], (char *)NULL);
		return 100;
	} else if (!strcmp(mode, "exit")) {
		getpids(b);
		return (int)a;
	} else if (!strcmp(mode, "kill")) {
		getpids(b);
		syscall(SYS_kill, own_pid(), (int)a);
		return 100;
	} else if (!strcmp(mode, "forward")) {
		sigset_t term, none;

		sigemptyset(&term);
		sigaddset(&term, SIGTERM);
		sigemptyset(&none);
		sigprocmask(SIG_BLOCK, &term, NULL);
		signal(SIGTERM, on_term);
		kill(getppid(), SIGTERM);
		sigsuspend(&none);
		getpids(a);
		return 9;
	} else if (!strcmp(mode, "orphan")) {
		pid_t pid = fork();

		if (pid == 0) {
			if (fork() == 0) {
				usleep((useconds_t)b * 1000);	/* until orphaned */
				getpids(a);
			}
			_exit(0);
		}
		waitpid(pid, NULL, 0);
	} else {
		return 100;
	}
	return 0;
}

/* ---- the checks ---- */

struct run {
	char dir[64];
	struct tool_result r;
};

/* ktau-run -o DIR [opts...] t_ktau_run --workload ARGS... */
static int run_workload(const char *check, struct run *run, const char *const *opts,
			const char *const *args, int as_nobody)
{
	static int seq;
	char self[4096];
	char *argv[32];
	int n = 0;

	snprintf(run->dir, sizeof(run->dir), "/tmp/ktau-run-test.%d", ++seq);
	argv[n++] = KTAU_RUN;
	argv[n++] = "-o";
	argv[n++] = run->dir;
	for (; opts && *opts; opts++)
		argv[n++] = (char *)*opts;
	argv[n++] = (char *)tool_self_path(self, sizeof(self));
	argv[n++] = "--workload";
	for (; *args && n < 31; args++)
		argv[n++] = (char *)*args;
	argv[n] = NULL;
	if (as_nobody)
		mkdir(run->dir, 0777), chmod(run->dir, 0777);
	return tool_run(check, argv, NULL, as_nobody, &run->r);
}

/* getpid calls of the children block in after - before, as ktr reads the
 * files ktau-run saved; -1 (FAIL printed) when unreadable. */
static long long saved_children_getpid(const char *check, const char *dir)
{
	struct ktr_profile before, after;
	struct ktr_block *b0, *b1;
	uint64_t g0 = 0, g1 = 0;
	char path[128];
	long long ret = -1;

	snprintf(path, sizeof(path), "%s/before.ktau", dir);
	if (ktr_load(path, 0, &before, check))
		return -1;
	snprintf(path, sizeof(path), "%s/after.ktau", dir);
	if (ktr_load(path, 0, &after, check)) {
		ktr_free(&before);
		return -1;
	}
	b0 = ktr_block_kind(&before, "children", 0);
	b1 = ktr_block_kind(&after, "children", 0);
	if (b0 && b1) {
		ktr_func(b0, "getpid", &g0, NULL, NULL);
		ktr_func(b1, "getpid", &g1, NULL, NULL);
		ret = (long long)(g1 - g0);
	} else {
		ktr_fail(check, "%s: no children block", dir);
	}
	ktr_free(&before);
	ktr_free(&after);
	return ret;
}

/* Status, getpid calls in the report and a header fragment. */
static void expect(const char *check, const struct run *run, int status, long long getpid,
		   const char *header)
{
	long long got = tool_table_calls(run->r.err, "getpid");

	if (getpid == 0 && got < 0)
		got = 0;
	ktr_check(run->r.status == status && got == getpid && strstr(run->r.err, header),
		  check, "exit status %d (expected %d), getpid %lld in the report (expected "
		  "%lld), header '%s' %s; stderr: %.600s", run->r.status, status, got, getpid,
		  header, strstr(run->r.err, header) ? "found" : "MISSING", run->r.err);
}

static void check_fork(void)
{
	static const char *const args[] = { "fork", "1000", "500", NULL };
	struct run run;
	long long saved;

	if (run_workload("fork", &run, NULL, args, 0))
		return;
	expect("fork", &run, 0, 1500, "# exit status 0; 2 processes;");
	saved = saved_children_getpid("fork-saved", run.dir);
	if (saved >= 0)
		ktr_check(saved == 1500, "fork-saved", "the saved before/after profiles, read by "
			  "ktr, differ by %lld getpid in the children block, expected 1500",
			  saved);
	tool_result_free(&run.r);
}

static void check_simple(const char *check, const char *const *args, const char *const *opts,
			 int status, long long getpid, const char *header)
{
	struct run run;

	if (run_workload(check, &run, opts, args, 0))
		return;
	expect(check, &run, status, getpid, header);
	tool_result_free(&run.r);
}

static void check_tau(void)
{
	static const char *const opts[] = { "--tau", NULL };
	static const char *const args[] = { "getpid", "123", NULL };
	struct run run;
	char path[128], *text;

	if (run_workload("tau", &run, opts, args, 0))
		return;
	snprintf(path, sizeof(path), "%s/tau/profile.0.0.0", run.dir);
	text = ktr_slurp(path, NULL);
	/* Name Calls Subrs ...: an interrupt or a preemption inside a getpid
	 * gives it subroutines, so only the calls are exact */
	ktr_check(run.r.status == 0 && text && strstr(text, "\n\"sys_getpid()\" 123 "),
		  "tau", "%s: %s; expected a line '\"sys_getpid()\" 123 ...' (exit status %d)",
		  path, text ? "no such line" : strerror(errno), run.r.status);
	free(text);
	tool_result_free(&run.r);
}

static void check_nobody(void)
{
	static const char *const args[] = { "fork", "100", "50", NULL };
	struct run run;

	if (run_workload("nobody", &run, NULL, args, 1))
		return;
	expect("nobody", &run, 0, 150, "# exit status 0; 2 processes;");
	tool_result_free(&run.r);
}

static void check_errors(void)
{
	char *no_ktau[] = { "KTAU_PROCFS=" NO_KTAU_ROOT, NULL };
	char *argv_true[] = { KTAU_RUN, "/bin/true", NULL };
	char *argv_bad[] = { KTAU_RUN, "--bogus", "/bin/true", NULL };
	char *argv_missing[] = { KTAU_RUN, "/no/such/command", NULL };
	struct tool_result r;

	mkdir(NO_KTAU_ROOT, 0755);
	if (!tool_run("no-ktau", argv_true, no_ktau, 0, &r)) {
		ktr_check(r.status == 125 && !strcmp(r.err, "ktau-run: this kernel has no ktau "
						     "support (no /proc/ktau): boot a kernel "
						     "built with CONFIG_KTAU; the command was "
						     "not run\n"),
			  "no-ktau", "exit status %d (expected 125), stderr '%s'", r.status, r.err);
		tool_result_free(&r);
	}
	if (!tool_run("bad-option", argv_bad, NULL, 0, &r)) {
		ktr_check(r.status == 125 && strstr(r.err, "unknown option '--bogus'"),
			  "bad-option", "exit status %d (expected 125), stderr '%s'", r.status,
			  r.err);
		tool_result_free(&r);
	}
	if (!tool_run("not-found", argv_missing, NULL, 0, &r)) {
		ktr_check(r.status == 127 && strstr(r.err, "cannot run '/no/such/command': No "
						    "such file or directory"),
			  "not-found", "exit status %d (expected 127), stderr '%s'", r.status,
			  r.err);
		tool_result_free(&r);
	}
}

#define JOB_DIR "/tmp/ktau-run-job"
#define JOB_RANKS 3

/* The names in dir starting with prefix, counted. */
static int count_names(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)) != NULL)
		n += !strncmp(de->d_name, prefix, strlen(prefix));
	if (d)
		closedir(d);
	return d ? n : -1;
}

/* Rank r of a fake job: ktau-run --tau --node-profile -o dir, the
 * workload making 100 * (r + 1) getpid calls; local: also the
 * node-local rank variable. 0, or -1 after a FAIL line. */
static int job_rank(const char *check, const char *dir, int r, bool local,
		    struct tool_result *res)
{
	char self[4096], rank[48], local_rank[48], calls[16];
	char *env[] = { rank, local_rank, "KTAU_PRELOAD=/nonexistent", NULL };
	char *argv[] = { KTAU_RUN, "--tau", "--node-profile", "-o", (char *)dir,
			 (char *)tool_self_path(self, sizeof(self)), "--workload", "getpid",
			 calls, NULL };

	snprintf(rank, sizeof(rank), "%s=%d", local ? "OMPI_COMM_WORLD_RANK" : "PMI_RANK", r);
	snprintf(local_rank, sizeof(local_rank), "OMPI_COMM_WORLD_LOCAL_RANK=%d", r);
	snprintf(calls, sizeof(calls), "%d", 100 * (r + 1));
	if (!local)
		env[1] = env[2], env[2] = NULL;
	return tool_run(check, argv, env, 0, res);
}

static void check_job(const char *check, const char *dir, bool local)
{
	char host[256], path[512], want[64], *text;
	char *report[] = { TOOL_DIR "/ktau-report", "--job", (char *)dir, NULL };
	struct tool_result r;
	int rank;

	gethostname(host, sizeof(host));
	for (rank = 0; rank < JOB_RANKS; rank++) {
		if (job_rank(check, dir, rank, local, &r))
			return;
		ktr_check(r.status == 0 && tool_table_calls(r.err, "getpid") == 100 * (rank + 1),
			  check, "rank %d: exit status %d, getpid %lld (expected %d); stderr: %.400s",
			  rank, r.status, tool_table_calls(r.err, "getpid"), 100 * (rank + 1), r.err);
		tool_result_free(&r);
		snprintf(path, sizeof(path), "%s/tau/profile.%d.0.0", dir, rank);
		snprintf(want, sizeof(want), "\n\"sys_getpid()\" %d ", 100 * (rank + 1));
		text = ktr_slurp(path, NULL);
		ktr_check(text && strstr(text, want), check, "%s: %s; expected a line '%s...'",
			  path, text ? "no such line" : strerror(errno), want + 1);
		free(text);
		snprintf(path, sizeof(path), "%s/rank.%d", dir, rank);
		ktr_check(count_names(path, "") == 5, check, "%s holds %d names, expected . .. "
			  "before.ktau after.ktau report.txt", path, count_names(path, ""));
	}
	snprintf(path, sizeof(path), "node.%s.", host);
	ktr_check(count_names(dir, path) == (local ? 2 : 3) &&
		  count_names(dir, "node.") == (local ? 2 : 3), check,
		  "%s: %d node.%s.* files, %d node.*; expected start.ktar, end.ktar%s", dir,
		  count_names(dir, path), host, count_names(dir, "node."),
		  local ? "" : " and lock");
	if (tool_run(check, report, NULL, 0, &r))
		return;
	snprintf(path, sizeof(path), "node %s between the job's start and end", host);
	ktr_check(r.status == 0 && strstr(r.out, ": 3 ranks, 3 threads, 1 node;") &&
		  strstr(r.out, path), check, "ktau-report --job %s: exit status %d, stdout "
		  "%.1500s, stderr %.300s", dir, r.status, r.out, r.err);
	tool_result_free(&r);
}

int main(int argc, char **argv)
{
	static const char *const follow[] = { "--follow", NULL };

	if (argc > 2 && !strcmp(argv[1], "--workload"))
		return workload(argc, argv);
	ktr_init("ktau_run");
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	if (access(KTAU_RUN, X_OK)) {
		ktr_fail("present", "%s: %s", KTAU_RUN, strerror(errno));
		return ktr_exit();
	}
	check_fork();
	check_simple("threads", (const char *const[]){ "threads", "4", "250", NULL }, NULL, 0,
		     1000, "# exit status 0; 1 process;");
	check_simple("exec", (const char *const[]){ "exec", "300", NULL }, NULL, 0, 300,
		     "# exit status 0; 1 process;");
	check_simple("exit-status", (const char *const[]){ "exit", "3", "10", NULL }, NULL, 3,
		     10, "# exit status 3; 1 process;");
	check_simple("killed", (const char *const[]){ "kill", "9", "20", NULL }, NULL, 137, 20,
		     "# killed by signal 9 (Killed), exit status 137; 1 process;");
	check_simple("forward", (const char *const[]){ "forward", "77", NULL }, NULL, 9, 77,
		     "# exit status 9; 1 process;");
	check_simple("follow", (const char *const[]){ "orphan", "400", "300", NULL }, follow, 0,
		     400, "# exit status 0; 3 processes;");
	check_simple("no-follow", (const char *const[]){ "orphan", "400", "3000", NULL }, NULL,
		     0, 0, "# note: descendants still running are not included (--follow "
		     "waits for them)");
	check_tau();
	check_nobody();
	check_errors();
	check_job("job-local-rank", JOB_DIR ".1", true);
	check_job("job-lock-file", JOB_DIR ".2", false);
	/* the no-follow orphan, reparented here: it must not end later, in
	 * another test's measurement of pid 1's children */
	while (wait(NULL) > 0 || errno == EINTR)
		;
	return ktr_exit();
}
