// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The /proc entry points against fake /proc trees (a struct ktau_proc on
 * a temporary directory): which errno each missing piece gives.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "proc/proc.h"
#include "testutil.h"

static const char profile_text[] =
	"ktau-profile 1\ntsc_khz 1000\nscope process\n"
	"task kind=process pid=412 tid=412 comm=t threads=1 exited_threads=0 dropped=0\n"
	"func 0 39 getpid syscall 7 70 70\n"
	"task kind=children pid=412 tid=0 comm=- processes=0 dropped=0\nend\n";
static const char thread_text[] =
	"ktau-profile 1\ntsc_khz 1000\nscope thread\n"
	"task kind=thread pid=412 tid=413 comm=t dropped=0\nfunc 0 1 write syscall 2 2 2\nend\n";
static const char system_text[] =
	"ktau-profile 1\ntsc_khz 1000\nscope system\n"
	"task kind=thread pid=412 tid=413 comm=t dropped=0\nend\n";

/* A fake /proc with ktau, process 412 and its thread 413. */
static char *fake_proc(void)
{
	char *root = make_tmpdir();

	if (!root)
		return NULL;
	if (write_tree_file(root, "412/ktau", profile_text) ||
	    write_tree_file(root, "412/task/413/ktau", thread_text) ||
	    make_tree_dir(root, "412/task/414") ||
	    write_tree_file(root, "ktau/profile", system_text) ||
	    write_tree_file(root, "ktau/functions", "ktau-functions 1\n39 syscall getpid\n")) {
		remove_tree(root);
		free(root);
		return NULL;
	}
	return root;
}

TEST(proc_read_pid_tid_system)
{
	char *root = fake_proc();
	struct ktau_proc *proc = open_root(root);
	struct ktau_profile *p;
	struct ktau_functions *m;

	ASSERT_NOT_NULL(root);
	ASSERT_NOT_NULL(proc);
	ASSERT_STREQ(root, ktau_proc_root(proc));
	p = read_task(proc, 412, 0, NULL);
	ASSERT_NOT_NULL(p);
	ASSERT_EQ_U64(7, ktau_block_find_func(ktau_profile_block(p, 0), 0, 39)->calls);
	ktau_profile_free(p);
	p = read_task(proc, 412, 413, NULL);
	ASSERT_NOT_NULL(p);
	ASSERT_EQ(KTAU_SCOPE_THREAD, ktau_profile_scope(p));
	ASSERT_EQ(413, ktau_block_tid(ktau_profile_block(p, 0)));
	ktau_profile_free(p);
	p = read_task(proc, 0, 0, test_err());
	ASSERT_NOT_NULL(p);
	ASSERT_NULL(last_err());	/* success leaves no error */
	ASSERT_EQ(KTAU_SCOPE_SYSTEM, ktau_profile_scope(p));
	ktau_profile_free(p);
	/* NULL opts: the system profile */
	p = ktau_proc_read_profile(proc, NULL, NULL);
	ASSERT_NOT_NULL(p);
	ASSERT_EQ(KTAU_SCOPE_SYSTEM, ktau_profile_scope(p));
	ktau_profile_free(p);
	m = ktau_proc_read_functions(proc, NULL);
	ASSERT_NOT_NULL(m);
	ASSERT_STREQ("getpid", ktau_functions_find_fid(m, 39)->name);
	ktau_functions_free(m);
	ktau_proc_close(proc);
	remove_tree(root);
	free(root);
}

TEST(proc_raw_is_unchanged)
{
	char *root = fake_proc(), *text;
	struct ktau_proc *proc = open_root(root);
	size_t len = 0;

	ASSERT_NOT_NULL(proc);
	text = read_task_raw(proc, 412, 0, &len, NULL);
	ASSERT_NOT_NULL(text);
	ASSERT_EQ(strlen(profile_text), len);
	ASSERT_STREQ(profile_text, text);
	free(text);
	text = read_task_raw(proc, 412, 413, NULL, NULL);
	ASSERT_STREQ(thread_text, text);
	free(text);
	text = ktau_proc_read_raw(proc, NULL, &len, NULL);
	ASSERT_STREQ(system_text, text);
	free(text);
	ktau_proc_close(proc);
	remove_tree(root);
	free(root);
}

TEST(proc_no_such_process_is_esrch)
{
	char *root = fake_proc();
	struct ktau_proc *proc = open_root(root);

	ASSERT_NOT_NULL(proc);
	errno = 0;
	ASSERT_NULL(read_task(proc, 999, 0, test_err()));
	ASSERT_EQ(ESRCH, errno);
	ASSERT_EQ(-ESRCH, ERR_CODE);
	ASSERT_CONTAINS(ERR_MSG, "/999/ktau");	/* names the file */
	errno = 0;
	ASSERT_NULL(read_task(proc, 999, 999, NULL));
	ASSERT_EQ(ESRCH, errno);
	errno = 0;
	ASSERT_NULL(read_task(proc, 412, 999, NULL));	/* no such thread */
	ASSERT_EQ(ESRCH, errno);
	errno = 0;
	ASSERT_NULL(read_task_raw(proc, 999, 0, NULL, test_err()));
	ASSERT_EQ(ESRCH, errno);
	ASSERT_EQ(-ESRCH, ERR_CODE);
	/* the thread exists but has no ktau file: not ESRCH */
	errno = 0;
	ASSERT_NULL(read_task(proc, 412, 414, NULL));
	ASSERT_EQ(ENOENT, errno);
	ktau_proc_close(proc);
	remove_tree(root);
	free(root);
}

TEST(proc_without_ktau_is_enodev)
{
	char *root = make_tmpdir();
	struct ktau_proc *proc = open_root(root);

	ASSERT_NOT_NULL(proc);
	ASSERT_EQ(0, make_tree_dir(root, "412"));
	errno = 0;
	ASSERT_NULL(read_task(proc, 412, 0, test_err()));
	ASSERT_EQ(ENODEV, errno);
	ASSERT_EQ(-ENODEV, ERR_CODE);
	ASSERT_CONTAINS(ERR_MSG, "no /proc/ktau");
	errno = 0;
	ASSERT_NULL(read_task(proc, 999, 0, NULL));	/* ENODEV wins over ESRCH */
	ASSERT_EQ(ENODEV, errno);
	errno = 0;
	ASSERT_NULL(read_task(proc, 0, 0, NULL));
	ASSERT_EQ(ENODEV, errno);
	errno = 0;
	ASSERT_NULL(ktau_proc_read_functions(proc, test_err()));
	ASSERT_EQ(ENODEV, errno);
	ASSERT_EQ(-ENODEV, ERR_CODE);
	errno = 0;
	ASSERT_NULL(read_task_raw(proc, 412, 412, NULL, NULL));
	ASSERT_EQ(ENODEV, errno);
	ktau_proc_close(proc);
	remove_tree(root);
	free(root);
}

static char *eacces_root;

/* Reads process 412's profile; the errno it got (254: err disagreed). */
static int read_412_errno(void)
{
	struct ktau_proc *proc = open_root(eacces_root);
	int ret;

	errno = 0;
	if (!proc || read_task(proc, 412, 0, test_err()) || ERR_CODE != -errno)
		ret = 254;
	else
		ret = errno;
	ktau_proc_close(proc);
	return ret;
}

TEST(proc_permission_denied_is_eacces)
{
	char *root = fake_proc(), path[4200];
	int got;

	ASSERT_NOT_NULL(root);
	snprintf(path, sizeof(path), "%s/412/ktau", root);
	ASSERT_EQ(0, chmod(path, 0));
	eacces_root = root;
	got = run_as_nobody(read_412_errno);
	remove_tree(root);
	free(root);
	ASSERT_EQ(EACCES, got);
}

TEST(proc_errno_mapping)
{
	ASSERT_EQ(EACCES, ktau__proc_errno("/proc", EPERM, 1, 0));
	ASSERT_EQ(ESRCH, ktau__proc_errno("/proc", ESRCH, 1, 0));
	ASSERT_EQ(EIO, ktau__proc_errno("/proc", EIO, 1, 0));
}

TEST(proc_bad_ids_are_einval)
{
	struct ktau_proc *proc = open_root("/nonexistent");
	KTAU_OPTS(ktau_read_opts, threads_tid, .pid = 4, .tid = 5,
		  .flags = KTAU_READ_THREADS);
	KTAU_OPTS(ktau_read_opts, threads_nopid, .flags = KTAU_READ_THREADS);
	KTAU_OPTS(ktau_read_opts, threads_raw, .pid = 4, .flags = KTAU_READ_THREADS);
	KTAU_OPTS(ktau_read_opts, unknown_flag, .pid = 4, .flags = 1U << 31);

	ASSERT_NOT_NULL(proc);
	errno = 0;
	ASSERT_NULL(read_task(proc, -4, 0, test_err()));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-EINVAL, ERR_CODE);
	errno = 0;
	ASSERT_NULL(read_task(proc, 0, 5, NULL));	/* a tid without its pid */
	ASSERT_EQ(EINVAL, errno);
	errno = 0;
	ASSERT_NULL(read_task_raw(proc, 1, -1, NULL, NULL));
	ASSERT_EQ(EINVAL, errno);
	errno = 0;
	ASSERT_NULL(ktau_proc_read_profile(proc, &threads_tid, NULL));
	ASSERT_EQ(EINVAL, errno);
	errno = 0;
	ASSERT_NULL(ktau_proc_read_profile(proc, &threads_nopid, NULL));
	ASSERT_EQ(EINVAL, errno);
	errno = 0;
	ASSERT_NULL(ktau_proc_read_raw(proc, &threads_raw, NULL, test_err()));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_CONTAINS(ERR_MSG, "KTAU_READ_THREADS");
	/* a flag from a later libktau: refused, not ignored */
	errno = 0;
	ASSERT_NULL(ktau_proc_read_profile(proc, &unknown_flag, test_err()));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_CONTAINS(ERR_MSG, "unknown read flags");
	ktau_proc_close(proc);
}

TEST(proc_null_handle_is_einval)
{
	struct ktau_archive *a = ktau_archive_new();

	ASSERT_NOT_NULL(a);
	errno = 0;
	ASSERT_NULL(ktau_proc_read_profile(NULL, NULL, test_err()));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-EINVAL, ERR_CODE);
	errno = 0;
	ASSERT_NULL(ktau_proc_read_raw(NULL, NULL, NULL, NULL));
	ASSERT_EQ(EINVAL, errno);
	errno = 0;
	ASSERT_NULL(ktau_proc_read_functions(NULL, test_err()));
	ASSERT_EQ(EINVAL, errno);
	errno = 0;
	ASSERT_NULL(ktau_proc_read_control(NULL, NULL));
	ASSERT_EQ(EINVAL, errno);
	errno = 0;
	ASSERT_EQ(-EINVAL, ktau_proc_write_control(NULL, "start", test_err()));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-EINVAL, ERR_CODE);
	ASSERT_EQ(-EINVAL, ktau_archive_collect(a, NULL, NULL, NULL));
	ktau_archive_free(a);
}

TEST(proc_malformed_file_keeps_line)
{
	char *root = make_tmpdir();
	struct ktau_proc *proc = open_root(root);

	ASSERT_NOT_NULL(proc);
	ASSERT_EQ(0, make_tree_dir(root, "ktau"));
	ASSERT_EQ(0, write_tree_file(root, "5/ktau", "ktau-profile 1\ntsc_khz 1\n"));
	errno = 0;
	ASSERT_NULL(read_task(proc, 5, 0, test_err()));
	ASSERT_EQ(EPROTO, errno);
	ASSERT_EQ(2, ERR_LINE);
	ASSERT_CONTAINS(ERR_MSG, "truncated");
	ktau_proc_close(proc);
	remove_tree(root);
	free(root);
}

TEST(proc_open_root)
{
	KTAU_OPTS(ktau_proc_opts, empty, .root = "");
	struct ktau_proc *proc = open_root("/some/dir//");

	ASSERT_NOT_NULL(proc);
	ASSERT_STREQ("/some/dir", ktau_proc_root(proc));	/* trailing '/' go */
	ktau_proc_close(proc);
	proc = open_root("/");
	ASSERT_NOT_NULL(proc);
	ASSERT_STREQ("/", ktau_proc_root(proc));
	ktau_proc_close(proc);
	errno = 0;
	ASSERT_NULL(ktau_proc_open(&empty, test_err()));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-EINVAL, ERR_CODE);
	ktau_proc_close(NULL);	/* accepted */
	errno = 0;
	ASSERT_NULL(ktau_proc_root(NULL));
	ASSERT_EQ(EINVAL, errno);
}

/* The environment is only the default: an explicit root wins over it. */
TEST(proc_default_root_from_environment)
{
	char *root = fake_proc();
	struct ktau_proc *proc;
	struct ktau_profile *p;

	ASSERT_NOT_NULL(root);
	unsetenv("KTAU_PROCFS");
	ASSERT_STREQ("/proc", ktau__procfs_root());
	setenv("KTAU_PROCFS", "", 1);
	ASSERT_STREQ("/proc", ktau__procfs_root());
	proc = ktau_proc_open(NULL, NULL);
	ASSERT_NOT_NULL(proc);
	ASSERT_STREQ("/proc", ktau_proc_root(proc));
	ktau_proc_close(proc);
	setenv("KTAU_PROCFS", root, 1);
	proc = ktau_proc_open(NULL, NULL);	/* NULL opts: the environment */
	ASSERT_NOT_NULL(proc);
	ASSERT_STREQ(root, ktau_proc_root(proc));
	p = read_task(proc, 412, 413, NULL);
	ASSERT_NOT_NULL(p);
	ktau_profile_free(p);
	ktau_proc_close(proc);
	proc = open_root("/nonexistent");	/* opts.root wins */
	ASSERT_NOT_NULL(proc);
	ASSERT_STREQ("/nonexistent", ktau_proc_root(proc));
	ktau_proc_close(proc);
	unsetenv("KTAU_PROCFS");
	remove_tree(root);
	free(root);
}

/* On this host (no ktau kernel) the real /proc says ENODEV. */
TEST(proc_real_host_without_ktau)
{
	struct ktau_proc *proc;
	struct stat st;

	if (stat("/proc/ktau", &st) == 0)
		return;	/* a ktau kernel: nothing to check here */
	proc = open_root("/proc");
	ASSERT_NOT_NULL(proc);
	errno = 0;
	ASSERT_NULL(read_task(proc, getpid(), 0, NULL));
	ASSERT_EQ(ENODEV, errno);
	ktau_proc_close(proc);
}
