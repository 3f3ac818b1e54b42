// SPDX-License-Identifier: GPL-2.0
/*
 * userprof — libktau's user-level profiler merged with the kernel profile.
 *
 * The test runs itself again as a workload (libktau linked statically):
 * in the main thread and in two more threads, a timer ("main" / "thread")
 * around `compute` (pure CPU) and `io` (1000 read()s of 64 bytes from
 * /dev/zero). The workload writes its TAU profiles at exit into a fresh
 * KTAU_PROFILE_DIR; this test reads them with tests/unit/tau_reader.c (an
 * independent reader of the TAU format) and checks:
 *   - one profile.0.0.<n> per thread, n = 0, 1, 2;
 *   - `<root> => io => sys_read()` with exactly 1000 calls in each;
 *     nothing of read under compute;
 *   - every user routine's inclusive time is its exclusive time plus its
 *     children's (kernel children included), to the writer's rounding.
 * Whether the kernel supports user contexts is asked directly (prctl
 * PR_KTAU_SET_CONTEXT, not through libktau). Without it the merge checks
 * fail, and the test checks the fallback: one warning, user-only profiles.
 */
#define _GNU_SOURCE
#include "ktr.h"
#include "tau_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <ktau-prof.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define NREADS 1000
#define NTHREADS 3	/* the main thread and two more */
#define PR_SET_CONTEXT 0x4b544155	/* the kernel's ABI, spelt out here */

static volatile double sink;

static void compute(void)
{
	KTAU_SCOPE("compute");
	for (int i = 0; i < 300000; i++)
		sink += i * 0.5;
}

static int io(void)
{
	KTAU_SCOPE("io");
	char buf[64];
	int fd = open("/dev/zero", O_RDONLY), n = 0;

	for (int i = 0; fd >= 0 && i < NREADS; i++)
		n += read(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf);
	if (fd >= 0)
		close(fd);
	return n == NREADS ? 0 : -1;
}

static void *thread_body(void *arg)
{
	KTAU_SCOPE("thread");
	(void)arg;
	compute();
	return (void *)(long)io();
}

static int workload(void)
{
	struct ktau_timer *main_timer = ktau_timer_get("main", NULL);
	pthread_t th[NTHREADS - 1];
	void *ret;
	int bad = 0;

	ktau_timer_start(main_timer);
	compute();
	bad |= io();
	for (int i = 0; i < NTHREADS - 1; i++)
		bad |= pthread_create(&th[i], NULL, thread_body, NULL);
	for (int i = 0; i < NTHREADS - 1; i++) {
		bad |= pthread_join(th[i], &ret);
		bad |= ret != NULL;
	}
	ktau_timer_stop(main_timer);
	return bad ? 1 : 0;	/* the profiles are written at exit */
}

/* Whether this kernel takes a context word (asked without libktau). */
static int kernel_has_contexts(void)
{
	static uint32_t word;

	if (prctl(PR_SET_CONTEXT, (unsigned long)&word, 0UL, 0UL, 0UL))
		return 0;
	prctl(PR_SET_CONTEXT, 0UL, 0UL, 0UL, 0UL);
	return 1;
}

/* Runs the workload with the profiles going to dir; its exit status,
 * stderr in errfile. */
static int run_workload(const char *dir, const char *errfile)
{
	int status, fd;
	pid_t pid = fork();

	if (pid == 0) {
		fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(126);
		setenv("KTAU_PROFILE_DIR", dir, 1);
		execl("/proc/self/exe", "t_userprof", "workload", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int count(const char *haystack, const char *needle)
{
	int n = 0;

	for (const char *p = haystack; p && (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* Every non-kernel flat routine and callpath with children adds up:
 * |incl - excl - children| within the writer's rounding (ns). Returns the
 * first entry that does not, or NULL. */
static const struct tau_entry *first_inconsistent(const struct tau_profile *p)
{
	for (size_t i = 0; i < p->nr_entries; i++) {
		const struct tau_entry *e = &p->entries[i];
		size_t kids;
		double children;

		if (strstr(e->group, "TAU_KERNEL_MERGE") || strstr(e->name, "()"))
			continue;
		if (!strstr(e->name, "=>") && strcmp(e->name, "main") && strcmp(e->name, "thread"))
			continue;	/* flat non-roots: their children are per callpath */
		children = tau_children_incl(p, e->name, &kids);
		if (fabs(e->incl - e->excl - children) > 0.001 * (double)(kids + 1) + 1e-9)
			return e;
	}
	return NULL;
}

/* The file a check failed on, line by line in the log: a failure that
 * shows once in many runs must be explainable from the log alone. */
static void dump_profile(const char *path, const char *text)
{
	const char *line = text;

	ktr_info("dump", "%s:", path);
	while (line && *line) {
		int len = (int)strcspn(line, "\n");

		ktr_info("dump", "%.*s", len, line);
		line += len + (line[len] == '\n');
	}
}

/* Checks one thread's file; `root` is "main" or "thread". */
static void check_thread(const char *dir, int n, int merged)
{
	char path[256], check[64], err[256] = "", buf[128], io_read[64], io_path[32];
	const char *root = n == 0 ? "main" : "thread";
	const struct tau_entry *e;
	struct tau_profile p;
	char *text;

	snprintf(path, sizeof(path), "%s/profile.0.0.%d", dir, n);
	snprintf(check, sizeof(check), "thread%d_file", n);
	text = ktr_slurp(path, NULL);
	if (!text) {
		ktr_fail(check, "%s: %s", path, strerror(errno));
		return;
	}
	if (tau_parse(text, &p, err, sizeof(err))) {
		ktr_fail(check, "%s: %s", path, err);
		free(text);
		return;
	}
	ktr_pass(check);
	snprintf(io_path, sizeof(io_path), "%s => io", root);
	snprintf(io_read, sizeof(io_read), "%s => io => sys_read()", root);
	e = tau_find(&p, io_path);
	snprintf(check, sizeof(check), "thread%d_user_routines", n);
	ktr_check(e && e->calls == 1 && tau_find(&p, "compute") &&
		  tau_find(&p, "compute")->calls == 1, check,
		  "%s: no '%s' with 1 call, or no compute", path, io_path);
	e = first_inconsistent(&p);
	snprintf(check, sizeof(check), "thread%d_incl_is_excl_plus_children", n);
	ktr_check(!e, check, "%s: '%s' incl %.3f excl %.3f", path, e ? e->name : "",
		  e ? e->incl : 0, e ? e->excl : 0);
	if (e)
		dump_profile(path, text);
	if (merged) {
		e = tau_find(&p, io_read);
		snprintf(check, sizeof(check), "thread%d_io_sys_read_calls", n);
		ktr_check(e && e->calls == NREADS, check, "%s: '%s' has %llu calls, want %d",
			  path, io_read, e ? (unsigned long long)e->calls : 0ULL, NREADS);
		snprintf(check, sizeof(check), "thread%d_no_read_under_compute", n);
		ktr_check(!count(text, "compute => sys_read()") &&
			  !count(text, "compute => sys_pread"), check,
			  "%s: read() under compute", path);
		snprintf(check, sizeof(check), "thread%d_metadata_merged", n);
		ktr_check(tau_metadata(&p, "KTAU kernel merged", buf, sizeof(buf)) &&
			  !strcmp(buf, "yes"), check, "%s: KTAU kernel merged is '%s'",
			  path, buf);
	} else {
		snprintf(check, sizeof(check), "thread%d_user_only", n);
		ktr_check(!count(text, "()\"") && tau_metadata(&p, "KTAU kernel merged", buf,
							      sizeof(buf)) &&
			  !strncmp(buf, "no: ", 4), check,
			  "%s: kernel routines in a user-only profile", path);
	}
	tau_free(&p);
	free(text);
}

static void remove_profiles(const char *dir, const char *errfile)
{
	char path[128];

	for (int n = 0; n < NTHREADS + 1; n++) {
		snprintf(path, sizeof(path), "%s/profile.0.0.%d", dir, n);
		unlink(path);
	}
	rmdir(dir);
	unlink(errfile);
}

int main(int argc, char **argv)
{
	char dir[64], errfile[96], *err_text, listing[256] = "";
	int merged, rc, n;
	struct stat st;

	if (argc == 2 && !strcmp(argv[1], "workload"))
		return workload();
	ktr_init("userprof");
	merged = kernel_has_contexts();
	ktr_info("kernel", "PR_KTAU_SET_CONTEXT %s", merged ? "supported" : "refused");
	snprintf(dir, sizeof(dir), "/tmp/userprof.%d", (int)getpid());
	snprintf(errfile, sizeof(errfile), "%s.stderr", dir);
	rc = run_workload(dir, errfile);
	ktr_check(rc == 0, "workload", "exit status %d", rc);
	err_text = ktr_slurp(errfile, NULL);
	if (err_text && *err_text)
		ktr_info("stderr", "%.*s", (int)strcspn(err_text, "\n"), err_text);
	if (merged)
		ktr_check(err_text && !*err_text, "no_warning", "stderr: %s",
			  err_text ? err_text : "(unreadable)");
	else
		ktr_check(err_text && count(err_text, "ktau: ") == 1 &&
			  count(err_text, "\n") == 1 && strstr(err_text, "PR_KTAU_SET_CONTEXT"),
			  "warns_once", "stderr: %s", err_text ? err_text : "(unreadable)");
	for (n = 0; n < NTHREADS + 1; n++) {
		char path[128];

		snprintf(path, sizeof(path), "%s/profile.0.0.%d", dir, n);
		if (!stat(path, &st))
			snprintf(listing + strlen(listing), sizeof(listing) - strlen(listing),
				 "%s%d", n ? " " : "", n);
	}
	ktr_check(!strcmp(listing, "0 1 2"), "one_file_per_thread",
		  "threads with files: '%s', want '0 1 2'", listing);
	for (n = 0; n < NTHREADS; n++)
		check_thread(dir, n, merged);
	if (!merged)
		ktr_fail("merge", "the kernel refused prctl(PR_KTAU_SET_CONTEXT): without "
			 "user contexts the kernel routines cannot be merged (user-only "
			 "profiles checked above)");
	free(err_text);
	remove_profiles(dir, errfile);
	return ktr_exit();
}
