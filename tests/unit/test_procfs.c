// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The /proc entry points against fake /proc trees (KTAU_PROCFS): which
 * errno each missing piece gives.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "internal.h"
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
	setenv("KTAU_PROCFS", root, 1);
	return root;
}

TEST(proc_read_pid_tid_system)
{
	char *root = fake_proc();
	struct ktau_profile *p;
	struct ktau_functions *m;

	ASSERT_NOT_NULL(root);
	p = ktau_profile_read_pid(412, NULL);
	ASSERT_NOT_NULL(p);
	ASSERT_EQ_U64(7, ktau_block_find_func(ktau_profile_block(p, 0), 0, 39)->calls);
	ktau_profile_free(p);
	p = ktau_profile_read_tid(412, 413, NULL);
	ASSERT_NOT_NULL(p);
	ASSERT_EQ(KTAU_SCOPE_THREAD, ktau_profile_scope(p));
	ASSERT_EQ(413, ktau_block_tid(ktau_profile_block(p, 0)));
	ktau_profile_free(p);
	p = ktau_profile_read_system(NULL);
	ASSERT_NOT_NULL(p);
	ASSERT_EQ(KTAU_SCOPE_SYSTEM, ktau_profile_scope(p));
	ktau_profile_free(p);
	m = ktau_functions_read(NULL);
	ASSERT_NOT_NULL(m);
	ASSERT_STREQ("getpid", ktau_functions_find_fid(m, 39)->name);
	ktau_functions_free(m);
	remove_tree(root);
	free(root);
}

TEST(proc_raw_is_unchanged)
{
	char *root = fake_proc(), *text;
	size_t len = 0;

	ASSERT_NOT_NULL(root);
	text = ktau_raw_read_pid(412, &len);
	ASSERT_NOT_NULL(text);
	ASSERT_EQ(strlen(profile_text), len);
	ASSERT_STREQ(profile_text, text);
	free(text);
	text = ktau_raw_read_tid(412, 413, NULL);
	ASSERT_STREQ(thread_text, text);
	free(text);
	text = ktau_raw_read_system(&len);
	ASSERT_STREQ(system_text, text);
	free(text);
	remove_tree(root);
	free(root);
}

TEST(proc_no_such_process_is_esrch)
{
	char *root = fake_proc();
	struct ktau_parse_error err;

	ASSERT_NOT_NULL(root);
	errno = 0;
	ASSERT_NULL(ktau_profile_read_pid(999, &err));
	ASSERT_EQ(ESRCH, errno);
	ASSERT_EQ(-ESRCH, err.error);
	errno = 0;
	ASSERT_NULL(ktau_profile_read_tid(999, 999, NULL));
	ASSERT_EQ(ESRCH, errno);
	errno = 0;
	ASSERT_NULL(ktau_profile_read_tid(412, 999, NULL));	/* no such thread */
	ASSERT_EQ(ESRCH, errno);
	errno = 0;
	ASSERT_NULL(ktau_raw_read_pid(999, NULL));
	ASSERT_EQ(ESRCH, errno);
	/* the thread exists but has no ktau file: not ESRCH */
	errno = 0;
	ASSERT_NULL(ktau_profile_read_tid(412, 414, NULL));
	ASSERT_EQ(ENOENT, errno);
	remove_tree(root);
	free(root);
}

TEST(proc_without_ktau_is_enodev)
{
	char *root = make_tmpdir();
	struct ktau_parse_error err;

	ASSERT_NOT_NULL(root);
	ASSERT_EQ(0, make_tree_dir(root, "412"));
	setenv("KTAU_PROCFS", root, 1);
	errno = 0;
	ASSERT_NULL(ktau_profile_read_pid(412, &err));
	ASSERT_EQ(ENODEV, errno);
	ASSERT_EQ(-ENODEV, err.error);
	ASSERT_CONTAINS(err.message, "no /proc/ktau");
	errno = 0;
	ASSERT_NULL(ktau_profile_read_pid(999, NULL));	/* ENODEV wins over ESRCH */
	ASSERT_EQ(ENODEV, errno);
	errno = 0;
	ASSERT_NULL(ktau_profile_read_system(NULL));
	ASSERT_EQ(ENODEV, errno);
	errno = 0;
	ASSERT_NULL(ktau_functions_read(NULL));
	ASSERT_EQ(ENODEV, errno);
	errno = 0;
	ASSERT_NULL(ktau_raw_read_tid(412, 412, NULL));
	ASSERT_EQ(ENODEV, errno);
	remove_tree(root);
	free(root);
}

/* Reads process 412's profile; the errno it got (254: err disagreed). */
static int read_412_errno(void)
{
	struct ktau_parse_error err;

	errno = 0;
	if (ktau_profile_read_pid(412, &err) || err.error != -errno)
		return 254;
	return errno;
}

TEST(proc_permission_denied_is_eacces)
{
	char *root = fake_proc(), path[4200];
	int got;

	ASSERT_NOT_NULL(root);
	snprintf(path, sizeof(path), "%s/412/ktau", root);
	ASSERT_EQ(0, chmod(path, 0));
	got = run_as_nobody(read_412_errno);
	remove_tree(root);
	free(root);
	ASSERT_EQ(EACCES, got);
}

TEST(proc_errno_mapping)
{
	ASSERT_EQ(EACCES, ktau__proc_errno(EPERM, 1, 0));
	ASSERT_EQ(ESRCH, ktau__proc_errno(ESRCH, 1, 0));
	ASSERT_EQ(EIO, ktau__proc_errno(EIO, 1, 0));
}

TEST(proc_bad_ids_are_einval)
{
	errno = 0;
	ASSERT_NULL(ktau_profile_read_pid(0, NULL));
	ASSERT_EQ(EINVAL, errno);
	errno = 0;
	ASSERT_NULL(ktau_profile_read_pid(-4, NULL));
	ASSERT_EQ(EINVAL, errno);
	errno = 0;
	ASSERT_NULL(ktau_profile_read_tid(1, 0, NULL));
	ASSERT_EQ(EINVAL, errno);
	errno = 0;
	ASSERT_NULL(ktau_raw_read_file(NULL, NULL));
	ASSERT_EQ(EINVAL, errno);
}

TEST(proc_malformed_file_keeps_line)
{
	char *root = make_tmpdir();
	struct ktau_parse_error err;

	ASSERT_NOT_NULL(root);
	ASSERT_EQ(0, make_tree_dir(root, "ktau"));
	ASSERT_EQ(0, write_tree_file(root, "5/ktau", "ktau-profile 1\ntsc_khz 1\n"));
	setenv("KTAU_PROCFS", root, 1);
	errno = 0;
	ASSERT_NULL(ktau_profile_read_pid(5, &err));
	ASSERT_EQ(EPROTO, errno);
	ASSERT_EQ(2, err.line);
	ASSERT_CONTAINS(err.message, "truncated");
	remove_tree(root);
	free(root);
}

TEST(proc_default_root)
{
	unsetenv("KTAU_PROCFS");
	ASSERT_STREQ("/proc", ktau__procfs_root());
	setenv("KTAU_PROCFS", "", 1);
	ASSERT_STREQ("/proc", ktau__procfs_root());
	setenv("KTAU_PROCFS", "/x", 1);
	ASSERT_STREQ("/x", ktau__procfs_root());
}

/* On this host (no ktau kernel) the real /proc says ENODEV. */
TEST(proc_real_host_without_ktau)
{
	struct stat st;

	unsetenv("KTAU_PROCFS");
	if (stat("/proc/ktau", &st) == 0)
		return;	/* a ktau kernel: nothing to check here */
	errno = 0;
	ASSERT_NULL(ktau_profile_read_pid(getpid(), NULL));
	ASSERT_EQ(ENODEV, errno);
}
