// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Archives (docs/archive-format.md): the writer and the reader against each
 * other, against GNU tar (an independent reader of the container), and every
 * truncation and corruption against its exact error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "testutil.h"

static const char profile_text[] =
	"ktau-profile 1\ntsc_khz 1000\nscope process\n"
	"task kind=process pid=42 tid=42 comm=app threads=2 exited_threads=0 dropped=0\n"
	"func 0 39 getpid syscall 1000 5000 5000\n"
	"task kind=children pid=42 tid=0 comm=- processes=0 dropped=0\nend\n";
static const char thread_text[] =
	"ktau-profile 1\ntsc_khz 1000\nscope thread\n"
	"task kind=thread pid=42 tid=43 comm=app dropped=0\n"
	"func 0 39 getpid syscall 400 2000 2000\nend\n";
static const char functions_text[] = "ktau-functions 1\n39 syscall getpid\nend\n";
static const char binary[] = { 0x1f, (char)0x8b, 0, 0, 'x', '\n', 0 };

/* An archive with a manifest, two profiles, the map, a binary and an
 * empty member. */
static struct ktau_archive *sample(void)
{
	struct ktau_archive *a = ktau_archive_new();

	if (!a || ktau_archive_set_info(a, "host", "build box") ||
	    ktau_archive_set_info(a, "tsc_khz", "1000") ||
	    ktau_archive_add(a, "proc/ktau/functions", functions_text,
			     strlen(functions_text)) ||
	    ktau_archive_add(a, "proc/42/ktau", profile_text, strlen(profile_text)) ||
	    ktau_archive_add(a, "proc/42/task/43/ktau", thread_text, strlen(thread_text)) ||
	    ktau_archive_add(a, "proc/config.gz", binary, sizeof(binary)) ||
	    ktau_archive_add(a, "empty", "", 0)) {
		ktau_archive_free(a);
		return NULL;
	}
	return a;
}

/* The sample as written to a file, read back into memory. */
static char *sample_bytes(size_t *len)
{
	struct ktau_archive *a = sample();
	char *dir = make_tmpdir(), path[4200], *buf = NULL;

	if (a && dir) {
		snprintf(path, sizeof(path), "%s/a.ktar", dir);
		if (!ktau_archive_write(a, path))
			buf = slurp(path, len);
		remove_tree(dir);
	}
	free(dir);
	ktau_archive_free(a);
	return buf;
}

TEST(archive_round_trip)
{
	struct ktau_archive *a = sample(), *b;
	char *dir = make_tmpdir(), path[4200];
	const struct ktau_archive_member *m;
	struct stat st;
	size_t i;

	ASSERT_NOT_NULL(a);
	ASSERT_NOT_NULL(dir);
	snprintf(path, sizeof(path), "%s/a.ktar", dir);
	ASSERT_EQ(0, ktau_archive_write(a, path));
	ASSERT_EQ(0, stat(path, &st));
	ASSERT_EQ(0644, st.st_mode & 0777);
	/* header + data blocks per member (manifest first), end marker */
	ASSERT_EQ(512 * (2 + 2 + 2 + 2 + 2 + 1 + 2), st.st_size);
	b = load_archive(path, test_err());
	ASSERT_NOT_NULL(b);
	ASSERT_EQ(0, ERR_CODE);
	ASSERT_EQ(ktau_archive_member_count(a), ktau_archive_member_count(b));
	for (i = 0; i < ktau_archive_member_count(a); i++) {
		const struct ktau_archive_member *x = ktau_archive_member(a, i);
		const struct ktau_archive_member *y = ktau_archive_member(b, i);

		ASSERT_STREQ(x->name, y->name);
		ASSERT_EQ(x->size, y->size);
		ASSERT_EQ(0, memcmp(x->data, y->data, x->size));
		ASSERT_EQ(0, y->data[y->size]);
	}
	ASSERT_EQ(2, ktau_archive_info_count(b));
	ASSERT_STREQ("host", ktau_archive_info_get(b, 0)->key);
	ASSERT_STREQ("build box", ktau_archive_info(b, "host"));
	ASSERT_STREQ("1000", ktau_archive_info_get(b, 1)->value);
	ASSERT_NULL(ktau_archive_info_get(b, 2));
	ASSERT_EQ(ERANGE, errno);
	ASSERT_NULL(ktau_archive_info(b, "nope"));
	ASSERT_EQ(ENOENT, errno);
	m = ktau_archive_find(b, "proc/config.gz");
	ASSERT_NOT_NULL(m);
	ASSERT_EQ(sizeof(binary), m->size);
	ASSERT_NULL(ktau_archive_find(b, "ktau-archive"));	/* the manifest is info */
	ASSERT_EQ(ENOENT, errno);
	ASSERT_NULL(ktau_archive_member(b, 5));
	ASSERT_EQ(ERANGE, errno);
	ktau_archive_free(a);
	ktau_archive_free(b);
	remove_tree(dir);
	free(dir);
}

/* GNU tar, a reader written without us, lists and extracts what we wrote. */
TEST(archive_is_a_tar_file)
{
	struct ktau_archive *a = sample();
	char *dir = make_tmpdir(), path[4400], xdir[4200], *text;
	char *list[] = { "/bin/tar", "-tf", path, NULL };
	char *extract[] = { "/bin/tar", "-xf", path, "-C", xdir, NULL };
	struct run_result r;

	ASSERT_NOT_NULL(a);
	ASSERT_NOT_NULL(dir);
	if (access("/bin/tar", X_OK))
		FAIL("tar is needed to check the container");
	snprintf(path, sizeof(path), "%s/a.ktar", dir);
	snprintf(xdir, sizeof(xdir), "%s/x", dir);
	ASSERT_EQ(0, mkdir(xdir, 0755));
	ASSERT_EQ(0, ktau_archive_write(a, path));
	ASSERT_EQ(0, run_program(list, NULL, &r));
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("", r.err);
	ASSERT_STREQ("ktau-archive\nproc/ktau/functions\nproc/42/ktau\n"
		     "proc/42/task/43/ktau\nproc/config.gz\nempty\n", r.out);
	run_result_free(&r);
	ASSERT_EQ(0, run_program(extract, NULL, &r));
	ASSERT_EQ(0, r.status);
	run_result_free(&r);
	snprintf(path, sizeof(path), "%s/proc/42/task/43/ktau", xdir);
	text = slurp(path, NULL);
	ASSERT_STREQ(thread_text, text);
	free(text);
	snprintf(path, sizeof(path), "%s/ktau-archive", xdir);
	text = slurp(path, NULL);
	ASSERT_STREQ("ktau-archive 1\nhost build box\ntsc_khz 1000\nend\n", text);
	free(text);
	/* the extracted proc/ is a /proc root for the library */
	snprintf(path, sizeof(path), "%s/proc", xdir);
	{
		struct ktau_proc *proc = open_root(path);
		struct ktau_profile *p = proc ? read_task(proc, 42, 0, NULL) : NULL;

		ktau_proc_close(proc);
		ASSERT_NOT_NULL(p);
		ASSERT_EQ_U64(1000, ktau_block_func(ktau_profile_block(p, 0), 0)->calls);
		ktau_profile_free(p);
	}
	ktau_archive_free(a);
	remove_tree(dir);
	free(dir);
}

/* Every proper prefix of an archive is refused: nothing is silently lost. */
TEST(archive_every_truncation_fails)
{
	size_t len = 0, cut;
	char *buf = sample_bytes(&len);

	ASSERT_NOT_NULL(buf);
	for (cut = 0; cut < len; cut++) {
		struct ktau_archive *a = ktau_archive_parse(buf, cut, test_err());

		if (a) {
			ktau_archive_free(a);
			FAIL("a prefix of %zu of %zu bytes was accepted", cut, len);
		}
		if (errno != EPROTO || ERR_CODE != -EPROTO)
			FAIL("cut at %zu: errno %d, ERR_CODE %d", cut, errno, ERR_CODE);
	}
	free(buf);
}

TEST(archive_truncation_messages)
{
	size_t len = 0;
	char *buf = sample_bytes(&len);

	ASSERT_NOT_NULL(buf);
	ASSERT_NULL(ktau_archive_parse(buf, 300, test_err()));
	ASSERT_STREQ("truncated archive: 300 bytes at byte 0 where a header or the end "
		     "marker should be", ERR_MSG);
	ASSERT_EQ(0, ERR_LINE);
	/* manifest 2 blocks, functions 2: proc/42/ktau's header is at 2048 */
	ASSERT_EQ(225, strlen(profile_text));
	ASSERT_NULL(ktau_archive_parse(buf, 2048 + 512 + 100, test_err()));
	ASSERT_STREQ("truncated archive: member 'proc/42/ktau' has 225 bytes, only 100 "
		     "left", ERR_MSG);
	ASSERT_NULL(ktau_archive_parse(buf, len - 1024, test_err()));
	ASSERT_STREQ("truncated archive: 0 bytes at byte 5632 where a header or the end "
		     "marker should be", ERR_MSG);
	ASSERT_NULL(ktau_archive_parse(buf, len - 512, test_err()));
	ASSERT_STREQ("truncated archive: incomplete end marker at byte 5632", ERR_MSG);
	ASSERT_NULL(ktau_archive_parse(buf, 0, test_err()));
	ASSERT_STREQ("not a ktau archive: it does not start with the 'ktau-archive' member",
		     ERR_MSG);
	free(buf);
}

TEST(archive_corruption_messages)
{
	size_t len = 0;
	char *buf = sample_bytes(&len);

	ASSERT_NOT_NULL(buf);
	buf[1024 + 3] ^= 1;	/* the functions member's name */
	ASSERT_NULL(ktau_archive_parse(buf, len, test_err()));
	ASSERT_EQ(EPROTO, errno);
	ASSERT_STREQ("corrupt archive: header checksum mismatch at byte 1024", ERR_MSG);
	buf[1024 + 3] ^= 1;
	memcpy(buf + 2048 + 257, "xxxxx", 5);	/* proc/42/ktau's magic */
	ASSERT_NULL(ktau_archive_parse(buf, len, test_err()));
	ASSERT_STREQ("corrupt archive: not a tar header (no ustar magic) at byte 2048",
		     ERR_MSG);
	free(buf);

	buf = sample_bytes(&len);
	ASSERT_NOT_NULL(buf);
	memcpy(buf + 512, "ktau-archive 2", 14);	/* data has no checksum */
	ASSERT_NULL(ktau_archive_parse(buf, len, test_err()));
	ASSERT_EQ(EPROTONOSUPPORT, errno);
	ASSERT_STREQ("archive format version 2; this libktau reads version 1", ERR_MSG);
	ASSERT_EQ(1, ERR_LINE);
	memcpy(buf + 512, "ktau-profile 1", 14);
	ASSERT_NULL(ktau_archive_parse(buf, len, test_err()));
	ASSERT_EQ(EPROTO, errno);
	ASSERT_STREQ("manifest: first line is not 'ktau-archive VERSION'", ERR_MSG);
	memcpy(buf + 512, "ktau-archive 1\nhost build box\ntsc_khz 1000\nend\n",
	       strlen("ktau-archive 1\nhost build box\ntsc_khz 1000\nend\n"));
	buf[512 + strlen("ktau-archive 1\nhost build box\ntsc_khz 1000\n")] = 'E';
	ASSERT_NULL(ktau_archive_parse(buf, len, test_err()));
	ASSERT_STREQ("manifest: malformed entry", ERR_MSG);
	ASSERT_EQ(4, ERR_LINE);
	buf[512 + strlen("ktau-archive 1\nhost build box\ntsc_khz 1000\n") + 1] = '_';
	buf[512 + strlen("ktau-archive 1\nhost build box\ntsc_khz 1000\n")] = 'e';
	ASSERT_NULL(ktau_archive_parse(buf, len, test_err()));
	ASSERT_STREQ("manifest: no 'end' line (truncated?)", ERR_MSG);
	free(buf);

	/* a profile text is not an archive */
	ASSERT_NULL(ktau_archive_parse(profile_text, strlen(profile_text), test_err()));
	ASSERT_STREQ("not a ktau archive: it does not start with the 'ktau-archive' member",
		     ERR_MSG);
	ASSERT_FALSE(ktau_archive_detect(profile_text, strlen(profile_text)));
}

/* A manifest with no entries is still the manifest. */
TEST(archive_without_info_round_trip)
{
	struct ktau_archive *a = ktau_archive_new(), *b;
	char *dir = make_tmpdir(), path[4200];

	ASSERT_NOT_NULL(a);
	ASSERT_NOT_NULL(dir);
	ASSERT_EQ(0, ktau_archive_add(a, "proc/9/ktau", "x", 1));
	snprintf(path, sizeof(path), "%s/a.ktar", dir);
	ASSERT_EQ(0, ktau_archive_write(a, path));
	b = load_archive(path, test_err());
	if (!b)
		FAIL("%s", ERR_MSG);
	ASSERT_EQ(0, ktau_archive_info_count(b));
	ASSERT_EQ(1, ktau_archive_member_count(b));
	ktau_archive_free(a);
	ktau_archive_free(b);
	remove_tree(dir);
	free(dir);
}

TEST(archive_read_file_errors)
{
	ASSERT_NULL(load_archive("/nonexistent/a.ktar", test_err()));
	ASSERT_EQ(ENOENT, errno);
	ASSERT_STREQ("/nonexistent/a.ktar: No such file or directory", ERR_MSG);
}

TEST(archive_names_and_keys_checked)
{
	struct ktau_archive *a = ktau_archive_new();
	char name[101];

	ASSERT_NOT_NULL(a);
	ASSERT_EQ(-EINVAL, ktau_archive_add(a, "../etc/passwd", "x", 1));
	ASSERT_EQ(-EINVAL, ktau_archive_add(a, "/etc/passwd", "x", 1));
	ASSERT_EQ(-EINVAL, ktau_archive_add(a, "a//b", "x", 1));
	ASSERT_EQ(-EINVAL, ktau_archive_add(a, "a/./b", "x", 1));
	ASSERT_EQ(-EINVAL, ktau_archive_add(a, "a/", "x", 1));
	ASSERT_EQ(-EINVAL, ktau_archive_add(a, "a b", "x", 1));
	ASSERT_EQ(-EINVAL, ktau_archive_add(a, "", "x", 1));
	ASSERT_EQ(-EINVAL, ktau_archive_add(a, "ktau-archive", "x", 1));
	ASSERT_EQ(-EINVAL, ktau_archive_add(a, "x", NULL, 1));
	memset(name, 'n', 100);
	name[100] = '\0';
	ASSERT_EQ(-EINVAL, ktau_archive_add(a, name, "x", 1));
	name[99] = '\0';
	ASSERT_EQ(0, ktau_archive_add(a, name, "x", 1));
	ASSERT_EQ(0, ktau_archive_add(a, "..x/.y", "x", 1));
	ASSERT_EQ(-EEXIST, ktau_archive_add(a, "..x/.y", "z", 1));
	ASSERT_EQ(-EINVAL, ktau_archive_set_info(a, "Host", "x"));
	ASSERT_EQ(-EINVAL, ktau_archive_set_info(a, "", "x"));
	ASSERT_EQ(-EINVAL, ktau_archive_set_info(a, "host", "a\nb"));
	ASSERT_EQ(0, ktau_archive_set_info(a, "host", "a"));
	ASSERT_EQ(0, ktau_archive_set_info(a, "time", ""));
	ASSERT_EQ(0, ktau_archive_set_info(a, "host", "b"));
	ASSERT_EQ(2, ktau_archive_info_count(a));
	ASSERT_STREQ("b", ktau_archive_info_get(a, 0)->value);
	ktau_archive_free(a);
}

TEST(archive_profiles_and_functions)
{
	struct ktau_archive *a = sample();
	struct ktau_profile *p;
	struct ktau_functions *map;

	ASSERT_NOT_NULL(a);
	ASSERT_EQ(0, ktau_archive_add(a, "proc/ktau/profile", "ktau-profile 1\nbad\n", 19));
	ASSERT_EQ(0, ktau_archive_add(a, "proc/x/ktau", "", 0));
	ASSERT_EQ(0, ktau_archive_add(a, "proc/42/task/ktau", "", 0));
	ASSERT_EQ(0, ktau_archive_add(a, "proc/042/ktau", "", 0));
	ASSERT_EQ(3, ktau_archive_profile_count(a));
	ASSERT_STREQ("proc/42/ktau", ktau_archive_profile_member(a, 0)->name);
	ASSERT_STREQ("proc/42/task/43/ktau", ktau_archive_profile_member(a, 1)->name);
	ASSERT_STREQ("proc/ktau/profile", ktau_archive_profile_member(a, 2)->name);
	p = ktau_archive_profile(a, 1, test_err());
	ASSERT_NOT_NULL(p);
	ASSERT_EQ(43, ktau_block_tid(ktau_profile_block(p, 0)));
	ktau_profile_free(p);
	ASSERT_NULL(ktau_archive_profile(a, 2, test_err()));
	ASSERT_EQ(EPROTO, errno);
	ASSERT_EQ(2, ERR_LINE);
	ASSERT_TRUE(!strncmp(ERR_MSG, "proc/ktau/profile: ", 19));
	ASSERT_NULL(ktau_archive_profile(a, 3, test_err()));
	ASSERT_EQ(ERANGE, errno);
	map = ktau_archive_functions(a, test_err());
	ASSERT_NOT_NULL(map);
	ASSERT_STREQ("getpid", ktau_functions_find_fid(map, 39)->name);
	ktau_functions_free(map);
	ktau_archive_free(a);
	a = ktau_archive_new();
	ASSERT_NULL(ktau_archive_functions(a, test_err()));
	ASSERT_EQ(ENOENT, errno);
	ASSERT_STREQ("the archive has no proc/ktau/functions", ERR_MSG);
	ktau_archive_free(a);
}

/* A fake /proc: process 42 with threads 42 and 43, kallsyms as a user
 * sees it, no config.gz. */
static char *fake_proc(void)
{
	char *root = make_tmpdir();

	if (!root)
		return NULL;
	if (write_tree_file(root, "42/ktau", profile_text) ||
	    write_tree_file(root, "42/task/42/ktau", thread_text) ||
	    write_tree_file(root, "42/task/43/ktau", thread_text) ||
	    write_tree_file(root, "ktau/profile", "ktau-profile 1\ntsc_khz 777\n"
			    "scope system\nend\n") ||
	    write_tree_file(root, "ktau/functions", functions_text) ||
	    write_tree_file(root, "kallsyms", "0000000000000000 T _text\n")) {
		remove_tree(root);
		free(root);
		return NULL;
	}
	return root;
}

/* ktau_archive_collect() of root with the pids. */
static int collect(struct ktau_archive *a, const char *root, const pid_t *pids,
		   size_t nr_pids, struct ktau_error **err)
{
	KTAU_OPTS(ktau_collect_opts, opts, .pids = pids, .nr_pids = nr_pids);
	struct ktau_proc *proc = open_root(root);
	int ret = ktau_archive_collect(a, proc, &opts, err);

	ktau_proc_close(proc);
	return ret;
}

TEST(archive_collect_processes)
{
	char *root = fake_proc();
	struct ktau_archive *a = ktau_archive_new();
	pid_t pids[] = { 42, 42 };
	size_t i;
	static const char *const want[] = {
		"proc/ktau/functions", "proc/42/ktau", "proc/42/task/42/ktau",
		"proc/42/task/43/ktau", "proc/kallsyms",
	};

	ASSERT_NOT_NULL(root);
	ASSERT_NOT_NULL(a);
	ASSERT_EQ(0, collect(a, root, pids, 2, test_err()));
	ASSERT_EQ(5, ktau_archive_member_count(a));
	for (i = 0; i < 5; i++)
		ASSERT_STREQ(want[i], ktau_archive_member(a, i)->name);
	ASSERT_STREQ(profile_text, ktau_archive_find(a, "proc/42/ktau")->data);
	ASSERT_STREQ("1000", ktau_archive_info(a, "tsc_khz"));
	ASSERT_STREQ("42 42", ktau_archive_info(a, "pids"));
	ASSERT_STREQ("none (/proc/config.gz: No such file or directory)",
		     ktau_archive_info(a, "config"));
	ASSERT_STREQ("proc/kallsyms", ktau_archive_info(a, "kallsyms"));
	ASSERT_STREQ("hidden (read as a user without CAP_SYSLOG)",
		     ktau_archive_info(a, "kallsyms_addresses"));
	ASSERT_NOT_NULL(ktau_archive_info(a, "host"));
	ASSERT_NOT_NULL(ktau_archive_info(a, "kernel_release"));
	ASSERT_EQ(20, strlen(ktau_archive_info(a, "created")));
	ktau_archive_free(a);

	a = ktau_archive_new();
	ASSERT_EQ(0, collect(a, root, NULL, 0, test_err()));
	ASSERT_STREQ("proc/ktau/profile", ktau_archive_member(a, 1)->name);
	ASSERT_STREQ("777", ktau_archive_info(a, "tsc_khz"));
	ASSERT_STREQ("all", ktau_archive_info(a, "pids"));
	ktau_archive_free(a);
	remove_tree(root);
	free(root);
}

TEST(archive_collect_errors)
{
	char *root = fake_proc(), want[4300];
	struct ktau_archive *a = ktau_archive_new();
	pid_t pid = 99;

	ASSERT_NOT_NULL(root);
	ASSERT_EQ(-ESRCH, collect(a, root, &pid, 1, test_err()));
	snprintf(want, sizeof(want), "%s/99/ktau: no such process", root);
	ASSERT_STREQ(want, ERR_MSG);
	ktau_archive_free(a);

	ASSERT_EQ(0, write_tree_file(root, "42/ktau", "ktau-profile 1\ntsc_khz 1\nscope process\n"
				     "func 0 1 x syscall 1 1 1\nend\n"));
	pid = 42;
	a = ktau_archive_new();
	ASSERT_EQ(-EPROTO, collect(a, root, &pid, 1, test_err()));
	snprintf(want, sizeof(want), "%s/42/ktau: ", root);
	ASSERT_TRUE(!strncmp(ERR_MSG, want, strlen(want)));
	ASSERT_EQ(4, ERR_LINE);
	ktau_archive_free(a);

	remove_tree(root);
	ASSERT_EQ(0, make_tree_dir(root, "42"));
	a = ktau_archive_new();
	ASSERT_EQ(-ENODEV, collect(a, root, &pid, 1, test_err()));
	snprintf(want, sizeof(want), "%s/ktau/functions: this kernel has no ktau support "
		 "(no /proc/ktau)", root);
	ASSERT_STREQ(want, ERR_MSG);
	ktau_archive_free(a);
	remove_tree(root);
	free(root);
}

TEST(read_threads_one_block_per_thread)
{
	char *root = fake_proc();
	struct ktau_proc *proc = open_root(root);
	KTAU_OPTS(ktau_read_opts, threads, .pid = 42, .flags = KTAU_READ_THREADS);
	KTAU_OPTS(ktau_read_opts, gone, .pid = 99, .flags = KTAU_READ_THREADS);
	struct ktau_profile *p;

	ASSERT_NOT_NULL(root);
	p = ktau_proc_read_profile(proc, &threads, test_err());
	ASSERT_NOT_NULL(p);
	ASSERT_EQ(KTAU_SCOPE_SYSTEM, ktau_profile_scope(p));
	ASSERT_EQ(2, ktau_profile_block_count(p));
	ASSERT_EQ(KTAU_BLOCK_THREAD, ktau_block_kind(ktau_profile_block(p, 1)));
	ASSERT_EQ_U64(1000, ktau_profile_tsc_khz(p));
	ASSERT_EQ(0, ktau_profile_validate(p, test_err()));
	ktau_profile_free(p);
	ASSERT_NULL(ktau_proc_read_profile(proc, &gone, test_err()));
	ASSERT_EQ(ESRCH, errno);
	ASSERT_EQ(-ESRCH, ERR_CODE);
	ktau_proc_close(proc);
	remove_tree(root);
	free(root);
}
