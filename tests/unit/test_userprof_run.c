// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The user-level profiler as a program uses it: real timers and threads,
 * profiles written at exit and on demand, launcher ranks, the kernel
 * registration (through a stand-in for the prctl, with KTAU_PROCFS pointing
 * at a made-up /proc), no kernel support, fork. Every file written is read
 * back with tau_reader.c.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "tau_reader.h"
#include "testutil.h"
#include "prof/prof.h"

/* ---- set-up shared by the tests ---- */

static char *scratch;

static void remove_scratch(void)
{
	if (scratch)
		remove_tree(scratch);
	free(scratch);
}

/*
 * A temporary directory for this test process, with KTAU_PROFILE_DIR in
 * it (what the profiler writes at exit), KTAU_PROCFS an empty "/proc"
 * (no ktau) and kernel merging off (tests that want it turn it on).
 * Removed at exit, after the profiler's own exit handler: the handler is
 * registered later, so it runs first. Forked children must not remove it
 * (forget_scratch).
 */
static const char *scratch_dir(void)
{
	char *env;

	scratch = make_tmpdir();
	if (!scratch || asprintf(&env, "%s/atexit", scratch) < 0)
		return NULL;
	setenv("KTAU_PROFILE_DIR", env, 1);
	free(env);
	if (make_tree_dir(scratch, "proc") || asprintf(&env, "%s/proc", scratch) < 0)
		return NULL;
	setenv("KTAU_PROCFS", env, 1);
	free(env);
	setenv("KTAU_KERNEL_MERGE", "0", 1);
	atexit(remove_scratch);
	return scratch;
}

static void forget_scratch(void)
{
	free(scratch);
	scratch = NULL;
}

static volatile uint32_t *registered_word;
static int set_context_calls;

static int kernel_accepts(volatile uint32_t *word)
{
	registered_word = word;
	set_context_calls++;
	return 0;
}

static int kernel_refuses(volatile uint32_t *word)
{
	(void)word;
	set_context_calls++;
	errno = EINVAL;
	return -1;
}

/* dir/rel parsed; NULL (reason in err) when missing or malformed. */
static struct tau_profile *read_profile(const char *dir, const char *rel, char *err,
					size_t len)
{
	struct tau_profile *p = calloc(1, sizeof(*p));
	char path[4200], *text;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	text = slurp(path, NULL);
	if (!text) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		free(p);
		return NULL;
	}
	if (tau_parse(text, p, err, len)) {
		free(p);
		p = NULL;
	}
	free(text);
	return p;
}

static void profile_free(struct tau_profile *p)
{
	if (p)
		tau_free(p);
	free(p);
}

/* Whether inclusive = exclusive + children's inclusive for entry `path`,
 * to the writer's rounding: each time is truncated to a nanosecond. */
static bool adds_up(const struct tau_profile *p, const char *path)
{
	const struct tau_entry *e = tau_find(p, path);
	size_t n;
	double children = e ? tau_children_incl(p, path, &n) : 0;

	return e && fabs(e->incl - e->excl - children) <= 0.001 * (double)(n + 1) + 1e-9;
}

/* Runs fn(arg) in a child process that then exit()s (the profiler writes
 * at exit); its exit status, its stderr in *err_text (malloc()ed). */
static int in_child(void (*fn)(void *), void *arg, char **err_text)
{
	char path[4200];
	int status, fd;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/stderr.%d", scratch, (int)getpid());
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		forget_scratch();
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 2);
		fn(arg);
		exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	*err_text = slurp(path, NULL);
	unlink(path);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static volatile double sink;

static void spin(int n)
{
	for (int i = 0; i < n; i++)
		sink += i * 0.5;
}

static int count(const char *haystack, const char *needle)
{
	int n = 0;

	for (const char *p = haystack; p && (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* ---- the API ---- */

TEST(userprof_timer_get_errors_and_identity)
{
	struct ktau_timer *a, *b;

	ASSERT_NOT_NULL(scratch_dir());
	errno = 0;
	ASSERT_NULL(ktau_timer_get("", NULL));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_NULL(ktau_timer_get(NULL, NULL));
	ASSERT_NULL(ktau_timer_get("a => b", NULL));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_NULL(ktau_timer_get("a", ""));
	a = ktau_timer_get("solve", "PHYSICS");
	b = ktau_timer_get("solve", "OTHER");
	ASSERT_NOT_NULL(a);
	ASSERT_TRUE(a == b);
	ASSERT_STREQ("PHYSICS", ktau_timer_group(b));
	ASSERT_STREQ("TAU_USER", ktau_timer_group(ktau_timer_get("plain", NULL)));
	ASSERT_EQ(-EINVAL, ktau_timer_start(NULL));
	ASSERT_EQ(-EINVAL, ktau_timer_stop(a));	/* not running */
	ASSERT_EQ(0, ktau_user_context());
}

static void scoped(int depth)
{
	KTAU_SCOPE("scoped");
	if (depth)
		scoped(depth - 1);
}

TEST(userprof_scope_macro_and_on_demand_model)
{
	struct ktau_timer *outer;
	struct ktau_model *m;
	const struct ktau_model_thread *t;
	const struct ktau_model_routine *r;

	ASSERT_NOT_NULL(scratch_dir());
	outer = ktau_timer_get("outer", NULL);
	ASSERT_EQ(0, ktau_timer_start(outer));
	scoped(2);
	{
		KTAU_SCOPE_GROUP("block", "MINE");
		ASSERT_TRUE(ktau_user_context() != 0);
	}
	m = ktau_profiler_model();	/* outer still runs: counted up to now */
	ASSERT_NOT_NULL(m);
	ASSERT_EQ(1, ktau_model_thread_count(m));
	t = ktau_model_thread(m, 0);
	r = ktau_model_find_routine(t, "scoped");
	ASSERT_NOT_NULL(r);
	ASSERT_EQ_U64(3, r->calls);
	ASSERT_STREQ("MINE", ktau_model_find_routine(t, "block")->group);
	ASSERT_EQ_U64(1, ktau_model_find_routine(t, "outer")->calls);
	ASSERT_NOT_NULL(ktau_model_find_routine(t, "outer"));
	ASSERT_EQ(4, ktau_model_callpath_count(t));	/* outer => scoped x3, => block */
	ASSERT_STREQ("outer => scoped => scoped => scoped", ktau_model_callpath(t, 2)->name);
	ktau_model_free(m);
	ASSERT_EQ(0, ktau_timer_stop(outer));
	ASSERT_EQ(0, ktau_user_context());
}

/* ---- merging with a kernel profile ---- */

static int write_kernel_profile(const char *dir, uint32_t ctx_io)
{
	char rel[128], *text;
	int ret;

	snprintf(rel, sizeof(rel), "proc/%d/task/%ld/ktau", (int)getpid(),
		 (long)syscall(SYS_gettid));
	if (asprintf(&text,
		     "ktau-profile 1\ntsc_khz 1000000\nscope thread\n"
		     "task kind=thread pid=%d tid=%ld comm=unit dropped=0\n"
		     "func 0 59 execve syscall 1 70 70\n"
		     "func %u 0 read syscall 1000 900 800\n"
		     "func %u 471 schedule_vol sched 2 100 100\n"
		     "edge %u 0 read 471 schedule_vol 2 100 100\n"
		     "event %u 480 read_bytes 1000 64 64 64000 4096000\nend\n",
		     (int)getpid(), (long)syscall(SYS_gettid), ctx_io, ctx_io, ctx_io,
		     ctx_io) < 0)
		return -ENOMEM;
	ret = write_tree_file(dir, rel, text);
	free(text);
	return ret;
}

TEST(userprof_run_merges_kernel_records_by_context)
{
	const char *dir = scratch_dir();
	struct ktau_timer *main_timer, *compute;
	uint32_t ctx_main, ctx_io;
	struct tau_profile *p;
	const struct tau_entry *e;
	char out[4200], err[512] = "", buf[128];

	ASSERT_NOT_NULL(dir);
	ASSERT_EQ(0, make_tree_dir(dir, "proc/ktau"));	/* a ktau kernel */
	unsetenv("KTAU_KERNEL_MERGE");
	ktau__set_context_hook(kernel_accepts);
	main_timer = ktau_timer_get("main", NULL);
	compute = ktau_timer_get("compute", NULL);
	ASSERT_EQ(0, ktau_timer_start(main_timer));
	ctx_main = ktau_user_context();
	ASSERT_EQ(1, set_context_calls);
	ASSERT_NOT_NULL(registered_word);
	ASSERT_EQ(ctx_main, *registered_word);	/* the word the kernel reads */
	{
		KTAU_SCOPE("io");
		ctx_io = ktau_user_context();
		ASSERT_EQ(ctx_io, *registered_word);
		spin(200000);
	}
	ASSERT_EQ(ctx_main, *registered_word);
	ASSERT_EQ(0, ktau_timer_start(compute));
	spin(100000);
	ASSERT_EQ(0, ktau_timer_stop(compute));
	ASSERT_EQ(0, ktau_timer_stop(main_timer));
	ASSERT_EQ(0, *registered_word);
	ASSERT_TRUE(ctx_main && ctx_io && ctx_main != ctx_io);

	ASSERT_EQ(0, write_kernel_profile(dir, ctx_io));
	snprintf(out, sizeof(out), "%s/out", dir);
	ASSERT_EQ(0, ktau_profiler_write(out));
	p = read_profile(out, "profile.0.0.0", err, sizeof(err));
	if (!p)
		FAIL("%s", err);
	e = tau_find(p, "main => io => sys_read()");
	ASSERT_NOT_NULL(e);
	ASSERT_EQ_U64(1000, e->calls);
	ASSERT_NEAR(0.9, e->incl, 1e-9);	/* 900 cycles at 1 GHz */
	ASSERT_NOT_NULL(tau_find(p, "main => io => sys_read() => schedule_vol()"));
	ASSERT_NOT_NULL(tau_find(p, "[no user context] => sys_execve()"));
	ASSERT_NULL(tau_find(p, "main => compute => sys_read()"));
	ASSERT_NULL(tau_find(p, "main => sys_read()"));
	ASSERT_EQ_U64(1000, tau_find(p, "main => io")->subrs);
	ASSERT_TRUE(adds_up(p, "main"));
	ASSERT_TRUE(adds_up(p, "main => io"));
	ASSERT_TRUE(adds_up(p, "main => compute"));
	ASSERT_NOT_NULL(tau_find_event(p, "read_bytes : main => io"));
	ASSERT_STREQ("yes", tau_metadata(p, "KTAU kernel merged", buf, sizeof(buf)));
	ASSERT_STREQ("kernel", tau_metadata(p, "KTAU tsc_khz from", buf, sizeof(buf)));
	ASSERT_STREQ("1000000", tau_metadata(p, "KTAU tsc_khz", buf, sizeof(buf)));
	profile_free(p);
}

/* ---- without kernel support ---- */

static void *worker_timers(void *arg)
{
	struct ktau_timer *t = ktau_timer_get(arg, NULL);

	ktau_timer_start(t);
	spin(1000);
	ktau_timer_stop(t);
	return NULL;
}

static void threads_without_kernel(void *arg)
{
	pthread_t th[2];
	struct ktau_timer *t = ktau_timer_get("main", NULL);

	ktau__set_context_hook(arg);
	ktau_timer_start(t);
	pthread_create(&th[0], NULL, worker_timers, "worker one");
	pthread_join(th[0], NULL);
	pthread_create(&th[1], NULL, worker_timers, "worker two");
	pthread_join(th[1], NULL);
	ktau_timer_stop(t);
}

TEST(userprof_no_kernel_warns_once_and_writes_user_profiles)
{
	const char *dir = scratch_dir();
	char at[4200], *err_text = NULL, err[512] = "", buf[128], *files;
	struct tau_profile *p;
	int i;

	ASSERT_NOT_NULL(dir);
	unsetenv("KTAU_KERNEL_MERGE");
	ASSERT_EQ(0, in_child(threads_without_kernel, kernel_refuses, &err_text));
	ASSERT_NOT_NULL(err_text);
	ASSERT_EQ(1, count(err_text, "ktau: "));
	ASSERT_EQ(1, count(err_text, "\n"));
	ASSERT_CONTAINS(err_text, "prctl(PR_KTAU_SET_CONTEXT) failed (Invalid argument)");
	ASSERT_CONTAINS(err_text, "the running kernel has no ktau");
	ASSERT_CONTAINS(err_text, "writing user-level profiles only");
	snprintf(at, sizeof(at), "%s/atexit", dir);
	files = listing(at);
	ASSERT_STREQ("profile.0.0.0 profile.0.0.1 profile.0.0.2", files);
	free(files);
	for (i = 0; i < 3; i++) {
		static const char *const routine[] = { "main", "worker one", "worker two" };
		char rel[32];

		snprintf(rel, sizeof(rel), "profile.0.0.%d", i);
		p = read_profile(at, rel, err, sizeof(err));
		if (!p)
			FAIL("%s", err);
		ASSERT_EQ(1, p->nr_entries);
		ASSERT_EQ_U64(1, tau_find(p, routine[i])->calls);
		ASSERT_STREQ("no: Invalid argument",
			     tau_metadata(p, "KTAU kernel merged", buf, sizeof(buf)));
		ASSERT_STREQ("measured", tau_metadata(p, "KTAU tsc_khz from", buf, sizeof(buf)));
		profile_free(p);
	}
	free(err_text);
}

static void merge_switched_off(void *arg)
{
	setenv("KTAU_KERNEL_MERGE", "0", 1);
	threads_without_kernel(arg);
	if (set_context_calls)
		exit(9);
}

TEST(userprof_merge_switched_off_is_silent)
{
	const char *dir = scratch_dir();
	char at[4200], *err_text = NULL, *files;

	ASSERT_NOT_NULL(dir);
	unsetenv("KTAU_KERNEL_MERGE");
	ASSERT_EQ(0, in_child(merge_switched_off, kernel_refuses, &err_text));
	ASSERT_STREQ("", err_text);
	snprintf(at, sizeof(at), "%s/atexit", dir);
	files = listing(at);
	ASSERT_STREQ("profile.0.0.0 profile.0.0.1 profile.0.0.2", files);
	free(files);
	free(err_text);
}

/* ---- threads, ranks, fork ---- */

static void worker_first(void *arg)
{
	pthread_t th;
	struct ktau_timer *t;

	(void)arg;
	ktau__set_context_hook(kernel_refuses);
	pthread_create(&th, NULL, worker_timers, "worker");
	pthread_join(th, NULL);
	t = ktau_timer_get("main", NULL);
	ktau_timer_start(t);
	ktau_timer_stop(t);
}

TEST(userprof_main_thread_is_thread_0)
{
	const char *dir = scratch_dir();
	char at[4200], *err_text = NULL, err[512] = "", buf[64], pid[32];
	struct tau_profile *p0, *p1;

	ASSERT_NOT_NULL(dir);
	ASSERT_EQ(0, in_child(worker_first, NULL, &err_text));
	snprintf(at, sizeof(at), "%s/atexit", dir);
	p0 = read_profile(at, "profile.0.0.0", err, sizeof(err));
	p1 = read_profile(at, "profile.0.0.1", err, sizeof(err));
	if (!p0 || !p1)
		FAIL("%s", err);
	ASSERT_NOT_NULL(tau_find(p0, "main"));
	ASSERT_NULL(tau_find(p0, "worker"));
	ASSERT_NOT_NULL(tau_find(p1, "worker"));
	snprintf(pid, sizeof(pid), "%s", tau_metadata(p0, "KTAU pid", buf, sizeof(buf)));
	ASSERT_STREQ(pid, tau_metadata(p0, "KTAU tid", buf, sizeof(buf)));
	ASSERT_TRUE(strcmp(pid, tau_metadata(p1, "KTAU tid", buf, sizeof(buf))));
	profile_free(p0);
	profile_free(p1);
	free(err_text);
}

static const char *const launchers[] = {
	"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID",
};

static void as_rank(void *arg)
{
	int rank = (int)(intptr_t)arg;
	char value[16];
	size_t i;

	for (i = 0; i < 4; i++)
		unsetenv(launchers[i]);
	snprintf(value, sizeof(value), "%d", rank);
	setenv(launchers[rank], value, 1);
	ktau__set_context_hook(kernel_refuses);
	worker_timers("rank work");
}

TEST(userprof_four_ranks_give_four_nodes)
{
	const char *dir = scratch_dir();
	char at[4200], *err_text, err[512] = "", rel[32], buf[64], *files;
	struct tau_profile *p;
	intptr_t rank;

	ASSERT_NOT_NULL(dir);
	for (rank = 0; rank < 4; rank++) {
		ASSERT_EQ(0, in_child(as_rank, (void *)rank, &err_text));
		free(err_text);
	}
	snprintf(at, sizeof(at), "%s/atexit", dir);
	files = listing(at);
	ASSERT_STREQ("profile.0.0.0 profile.1.0.0 profile.2.0.0 profile.3.0.0", files);
	free(files);
	for (rank = 0; rank < 4; rank++) {
		snprintf(rel, sizeof(rel), "profile.%d.0.0", (int)rank);
		p = read_profile(at, rel, err, sizeof(err));
		if (!p)
			FAIL("%s", err);
		ASSERT_EQ_U64(1, tau_find(p, "rank work")->calls);
		ASSERT_STREQ(launchers[rank], tau_metadata(p, "KTAU node from", buf, sizeof(buf)));
		profile_free(p);
	}
}

TEST(userprof_forked_child_writes_nothing)
{
	const char *dir = scratch_dir();
	struct ktau_timer *t;
	char at[4200], other[4200];
	int status;
	pid_t pid;

	ASSERT_NOT_NULL(dir);
	ktau__set_context_hook(kernel_refuses);
	t = ktau_timer_get("parent", NULL);
	ASSERT_EQ(0, ktau_timer_start(t));
	snprintf(at, sizeof(at), "%s/atexit", dir);
	snprintf(other, sizeof(other), "%s/child", dir);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		forget_scratch();
		/* exit status: which check failed */
		if (ktau_profiler_write(other) != -ECHILD)
			_exit(2);
		if (ktau_timer_stop(t) || ktau_user_context())
			_exit(3);
		exit(0);	/* the exit handler must not write either */
	}
	ASSERT_TRUE(pid > 0);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(-1, access(at, F_OK));
	ASSERT_EQ(-1, access(other, F_OK));
	ASSERT_EQ(0, ktau_timer_stop(t));	/* the parent goes on */
}

/* ---- -finstrument-functions ---- */

static __attribute__((noinline)) int probe_static(int x)
{
	return x * 3 + (int)sink;
}

static __attribute__((noinline)) int probe_other(int x)
{
	return x + 1 + (int)sink;
}

TEST(userprof_symbols_from_the_elf_symbol_table)
{
	char name[256];

	ASSERT_EQ(0, ktau__symbol_name((void *)probe_static, name, sizeof(name)));
	ASSERT_STREQ("probe_static", name);
	ASSERT_EQ(0, ktau__symbol_name((char *)(void *)probe_other + 1, name, sizeof(name)));
	ASSERT_STREQ("probe_other", name);
	ASSERT_EQ(0, ktau__symbol_name((void *)ktau_timer_get, name, sizeof(name)));
	ASSERT_STREQ("ktau_timer_get", name);
	ASSERT_EQ(-ENOENT, ktau__symbol_name((void *)16, name, sizeof(name)));
	ASSERT_EQ(6, probe_static(2));
}

TEST(userprof_function_hooks)
{
	struct ktau_model *m;
	const struct ktau_model_thread *t;
	const struct ktau_model_routine *r;
	int i;

	ASSERT_NOT_NULL(scratch_dir());
	/* what gcc -finstrument-functions emits around each call */
	__cyg_profile_func_enter((void *)probe_static, NULL);
	for (i = 0; i < 5; i++) {
		__cyg_profile_func_enter((void *)probe_other, NULL);
		__cyg_profile_func_exit((void *)probe_other, NULL);
	}
	__cyg_profile_func_exit((void *)probe_static, NULL);
	m = ktau_profiler_model();
	ASSERT_NOT_NULL(m);
	t = ktau_model_thread(m, 0);
	r = ktau_model_find_routine(t, "probe_other");
	ASSERT_NOT_NULL(r);
	ASSERT_EQ_U64(5, r->calls);
	ASSERT_STREQ("TAU_DEFAULT", r->group);
	ASSERT_EQ_U64(5, ktau_model_find_routine(t, "probe_static")->subrs);
	ASSERT_EQ(1, ktau_model_callpath_count(t));
	ASSERT_STREQ("probe_static => probe_other", ktau_model_callpath(t, 0)->name);
	ktau_model_free(m);
}

/* ---- the built programs: -finstrument-functions and LD_PRELOAD ---- */

static int run_prog(const char *prog, const char *preload, const char *outdir,
		    struct run_result *r)
{
	char path[4200], dir_env[4300], preload_env[4300], libs_env[4300];
	char *argv[] = { path, NULL };
	char *env[] = { dir_env, "KTAU_KERNEL_MERGE=0", preload_env, libs_env, NULL };
	const char *progs = getenv("USERPROF_PROGS"), *libdir = getenv("LIBKTAU_LIBDIR");

	snprintf(path, sizeof(path), "%s/%s", progs ? progs : ".", prog);
	/* as for a PREFIX outside the loader's path: libktau-prof finds the
	 * libktau.so.1 it needs there */
	snprintf(libs_env, sizeof(libs_env), "LD_LIBRARY_PATH=%s", libdir ? libdir : "");
	snprintf(dir_env, sizeof(dir_env), "KTAU_PROFILE_DIR=%s", outdir);
	snprintf(preload_env, sizeof(preload_env), "LD_PRELOAD=%s", preload ? preload : "");
	return run_program(argv, env, r);
}

TEST(userprof_instrumented_program)
{
	const char *dir = scratch_dir();
	struct run_result r;
	struct tau_profile *p;
	char out[4200], err[512] = "";

	ASSERT_NOT_NULL(dir);
	snprintf(out, sizeof(out), "%s/instrumented", dir);
	ASSERT_EQ(0, run_prog("prog-instrumented", NULL, out, &r));
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("", r.err);
	p = read_profile(out, "profile.0.0.0", err, sizeof(err));
	if (!p)
		FAIL("%s", err);
	ASSERT_EQ_U64(1, tau_find(p, "main")->calls);
	ASSERT_EQ_U64(10, tau_find(p, "main => work => leaf")->calls);	/* static */
	ASSERT_EQ_U64(3, tau_find(p, "main => recurse => recurse => recurse")->calls);
	ASSERT_NULL(tau_find(p, ".TAU application"));	/* linked, not preloaded */
	ASSERT_TRUE(adds_up(p, "main"));
	profile_free(p);
	run_result_free(&r);
}

TEST(userprof_preloaded_into_an_unmodified_program)
{
	const char *dir = scratch_dir(), *libdir = getenv("LIBKTAU_LIBDIR");
	struct run_result r;
	struct tau_profile *p;
	char out[4200], lib[4200], err[512] = "";
	const struct tau_entry *e;

	ASSERT_NOT_NULL(dir);
	ASSERT_NOT_NULL(libdir);
	snprintf(out, sizeof(out), "%s/preload", dir);
	snprintf(lib, sizeof(lib), "%s/libktau-prof.so.1", libdir);
	ASSERT_EQ(0, run_prog("prog-plain", lib, out, &r));
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("plain done\n", r.out);
	p = read_profile(out, "profile.0.0.0", err, sizeof(err));
	if (!p)
		FAIL("%s", err);
	e = tau_find(p, ".TAU application");
	ASSERT_NOT_NULL(e);
	ASSERT_EQ_U64(1, e->calls);
	ASSERT_TRUE(e->incl >= 20000);	/* the program sleeps 20 ms */
	ASSERT_EQ(1, p->nr_entries);
	profile_free(p);
	run_result_free(&r);
	/* without LD_PRELOAD the program runs unprofiled */
	snprintf(out, sizeof(out), "%s/plain", dir);
	ASSERT_EQ(0, run_prog("prog-plain", NULL, out, &r));
	ASSERT_EQ(-1, access(out, F_OK));
	run_result_free(&r);
}

/* ---- atomic events, metadata, the node number (KTAU_PROF_1.1) ---- */

TEST(userprof_user_event_get_errors_and_identity)
{
	struct ktau_user_event *a;

	ASSERT_NOT_NULL(scratch_dir());
	errno = 0;
	ASSERT_NULL(ktau_user_event_get(NULL));
	ASSERT_EQ(EINVAL, errno);
	errno = 0;
	ASSERT_NULL(ktau_user_event_get(""));
	ASSERT_EQ(EINVAL, errno);
	errno = 0;
	ASSERT_NULL(ktau_user_event_get("size : main"));
	ASSERT_EQ(EINVAL, errno);
	errno = 0;
	ASSERT_NULL(ktau_user_event_get("a=>b"));
	ASSERT_EQ(EINVAL, errno);
	a = ktau_user_event_get("Message size sent to all nodes");
	ASSERT_NOT_NULL(a);
	ASSERT_TRUE(a == ktau_user_event_get("Message size sent to all nodes"));
	ASSERT_TRUE(a != ktau_user_event_get("Message size for broadcast"));
	ASSERT_STREQ("Message size sent to all nodes", ktau_user_event_name(a));
	ASSERT_NULL(ktau_user_event_name(NULL));
	ASSERT_EQ(-EINVAL, ktau_user_event_trigger(NULL, 1));
	ASSERT_EQ(-EINVAL, ktau_user_event_trigger(a, NAN));
	ASSERT_EQ(-EINVAL, ktau_user_event_trigger(a, INFINITY));
}

#define SENT "Message size sent to all nodes"

TEST(userprof_user_events_per_callpath)
{
	const char *dir = scratch_dir();
	struct ktau_user_event *sent = ktau_user_event_get(SENT);
	struct ktau_timer *main_t = ktau_timer_get("main", NULL);
	struct ktau_timer *send = ktau_timer_get("MPI_Send()", "MPI");
	char out[4200], err[512] = "";
	const struct tau_event *e;
	struct tau_profile p;

	ASSERT_NOT_NULL(dir);
	ASSERT_NOT_NULL(sent);
	ASSERT_EQ(0, ktau_user_event_trigger(sent, 5));		/* no timer: flat only */
	ktau_timer_start(main_t);
	ASSERT_EQ(0, ktau_user_event_trigger(sent, 10));
	ktau_timer_start(send);
	ASSERT_EQ(0, ktau_user_event_trigger(sent, 100));
	ASSERT_EQ(0, ktau_user_event_trigger(sent, 300));
	ASSERT_EQ(-EINVAL, ktau_user_event_trigger(sent, NAN));	/* not recorded */
	ktau_timer_stop(send);
	ktau_timer_start(send);
	ASSERT_EQ(0, ktau_user_event_trigger(sent, 200));
	ktau_timer_stop(send);
	ktau_timer_stop(main_t);
	snprintf(out, sizeof(out), "%s/out", dir);
	ASSERT_EQ(0, ktau_profiler_write(out));
	if (tau_parse_file(out, "profile.0.0.0", &p, err, sizeof(err)))
		FAIL("%s", err);
	ASSERT_EQ(3, p.nr_events);
	e = tau_find_event(&p, SENT);
	ASSERT_NOT_NULL(e);
	ASSERT_EQ_U64(5, e->count);
	ASSERT_NEAR(5, e->min, 0);
	ASSERT_NEAR(300, e->max, 0);
	ASSERT_NEAR(123, e->mean, 1e-9);
	ASSERT_NEAR(140125, e->sumsq, 0);
	e = tau_find_event(&p, SENT " : main");
	ASSERT_NOT_NULL(e);
	ASSERT_EQ_U64(1, e->count);
	ASSERT_NEAR(10, e->mean, 0);
	e = tau_find_event(&p, SENT " : main => MPI_Send()");
	ASSERT_NOT_NULL(e);
	ASSERT_EQ_U64(3, e->count);
	ASSERT_NEAR(100, e->min, 0);
	ASSERT_NEAR(300, e->max, 0);
	ASSERT_NEAR(200, e->mean, 1e-9);
	ASSERT_NEAR(140000, e->sumsq, 0);
	ASSERT_STREQ("MPI", tau_find(&p, "MPI_Send()")->group);
	ASSERT_EQ_U64(2, tau_find(&p, "main => MPI_Send()")->calls);
	tau_free(&p);
}

static void *event_worker(void *arg)
{
	struct ktau_timer *t = ktau_timer_get("worker", NULL);

	ktau_timer_start(t);
	ktau_user_event_trigger(arg, 42);
	ktau_user_event_trigger(arg, 8);
	ktau_timer_stop(t);
	return NULL;
}

TEST(userprof_user_events_of_an_exited_thread)
{
	const char *dir = scratch_dir();
	struct ktau_user_event *ev = ktau_user_event_get("bytes");
	char out[4200], err[512] = "";
	const struct tau_event *e;
	struct tau_profile p;
	pthread_t th;

	ASSERT_NOT_NULL(dir);
	ASSERT_EQ(0, ktau_user_event_trigger(ev, 1));	/* the main thread: thread 0 */
	ASSERT_EQ(0, pthread_create(&th, NULL, event_worker, ev));
	ASSERT_EQ(0, pthread_join(th, NULL));
	snprintf(out, sizeof(out), "%s/out", dir);
	ASSERT_EQ(0, ktau_profiler_write(out));
	if (tau_parse_file(out, "profile.0.0.1", &p, err, sizeof(err)))
		FAIL("%s", err);
	e = tau_find_event(&p, "bytes : worker");
	ASSERT_NOT_NULL(e);
	ASSERT_EQ_U64(2, e->count);
	ASSERT_NEAR(25, e->mean, 0);
	ASSERT_NEAR(8, e->min, 0);
	ASSERT_EQ_U64(2, tau_find_event(&p, "bytes")->count);
	tau_free(&p);
	if (tau_parse_file(out, "profile.0.0.0", &p, err, sizeof(err)))
		FAIL("%s", err);
	ASSERT_EQ(1, p.nr_events);
	ASSERT_EQ_U64(1, tau_find_event(&p, "bytes")->count);
	tau_free(&p);
}

TEST(userprof_metadata_and_node_set_by_the_program)
{
	const char *dir = scratch_dir();
	char out[4200], err[512] = "", buf[64], *files;
	struct tau_profile p;

	ASSERT_NOT_NULL(dir);
	ASSERT_EQ(-EINVAL, ktau_metadata_set(NULL, "x"));
	ASSERT_EQ(-EINVAL, ktau_metadata_set("", "x"));
	ASSERT_EQ(-EINVAL, ktau_metadata_set("MPI Rank", NULL));
	ASSERT_EQ(0, ktau_metadata_set("MPI Rank", "3"));
	ASSERT_EQ(0, ktau_metadata_set("MPI Library Version", "Open <MPI> & co"));
	ASSERT_EQ(0, ktau_metadata_set("MPI Rank", "7"));	/* the new value wins */
	ASSERT_EQ(-EINVAL, ktau_profiler_set_node((unsigned int)INT_MAX + 1));
	setenv("OMPI_COMM_WORLD_RANK", "2", 1);		/* the program's node wins */
	ASSERT_EQ(0, ktau_profiler_set_node(7));
	ktau_timer_start(ktau_timer_get("main", NULL));
	ktau_timer_stop(ktau_timer_get("main", NULL));
	snprintf(out, sizeof(out), "%s/out", dir);
	ASSERT_EQ(0, ktau_profiler_write(out));
	files = listing(out);
	ASSERT_STREQ("profile.7.0.0", files);
	free(files);
	if (tau_parse_file(out, "profile.7.0.0", &p, err, sizeof(err)))
		FAIL("%s", err);
	ASSERT_STREQ("7", tau_metadata(&p, "MPI Rank", buf, sizeof(buf)));
	ASSERT_STREQ("Open <MPI> & co", tau_metadata(&p, "MPI Library Version", buf,
						      sizeof(buf)));
	ASSERT_STREQ("ktau_profiler_set_node", tau_metadata(&p, "KTAU node from", buf,
							     sizeof(buf)));
	ASSERT_STREQ("7", tau_metadata(&p, "KTAU node", buf, sizeof(buf)));
	ASSERT_STREQ("0", tau_metadata(&p, "KTAU user events dropped", buf, sizeof(buf)));
	/* one attribute per name */
	ASSERT_EQ(1, count(p.metadata, "<name>MPI Rank</name>"));
	tau_free(&p);
}
