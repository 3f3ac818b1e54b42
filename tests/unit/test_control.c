// SPDX-License-Identifier: GPL-2.0-or-later
/* libktau's /proc/ktau/control API: the status parser and the writer. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "testutil.h"

/* What kernel-ext/kernel/ktau/control.c prints. */
static const char running_all[] =
	"ktau-control 1\n"
	"state running\n"
	"groups syscall softirq irq sched exception kernel event\n"
	"available syscall softirq irq sched exception kernel event\n"
	"fids 551/1024\n"
	"lost_tasks 3\n"
	"usage: start | stop | clear | startclr | enable GROUP... | disable GROUP...  "
	"(GROUP: a name above or all)\n"
	"end\n";

static struct ktau_control_status *parse_status(const char *text,
						struct ktau_error **err)
{
	return ktau_control_status_parse(text, strlen(text), err);
}

TEST(control_status_running_all)
{
	struct ktau_control_status *s = parse_status(running_all, test_err());
	uint64_t reg = 0, max = 0, lost = 0;

	ASSERT_NOT_NULL(s);
	ASSERT_EQ(0, ERR_CODE);
	ASSERT_TRUE(ktau_control_status_running(s));
	ASSERT_EQ(7, ktau_control_status_group_count(s));
	ASSERT_STREQ("syscall", ktau_control_status_group(s, 0));
	ASSERT_STREQ("event", ktau_control_status_group(s, 6));
	errno = 0;
	ASSERT_NULL(ktau_control_status_group(s, 7));
	ASSERT_EQ(ERANGE, errno);
	ASSERT_EQ(1, ktau_control_status_group_enabled(s, "sched"));
	ASSERT_EQ(-ENOENT, ktau_control_status_group_enabled(s, "bogus"));
	ASSERT_EQ(-ENOENT, ktau_control_status_group_enabled(s, "all"));
	ASSERT_EQ(0, ktau_control_status_fids(s, &reg, &max));
	ASSERT_EQ_U64(551, reg);
	ASSERT_EQ_U64(1024, max);
	ASSERT_EQ(0, ktau_control_status_lost_tasks(s, &lost));
	ASSERT_EQ_U64(3, lost);
	ktau_control_status_free(s);
}

TEST(control_status_stopped_some_groups)
{
	struct ktau_control_status *s = parse_status(
		"ktau-control 1\nstate stopped\ngroups softirq event\n"
		"available syscall softirq irq sched exception kernel event\nend\n", NULL);

	ASSERT_NOT_NULL(s);
	ASSERT_FALSE(ktau_control_status_running(s));
	ASSERT_EQ(0, ktau_control_status_group_enabled(s, "syscall"));
	ASSERT_EQ(1, ktau_control_status_group_enabled(s, "softirq"));
	ASSERT_EQ(0, ktau_control_status_group_enabled(s, "irq"));
	ASSERT_EQ(1, ktau_control_status_group_enabled(s, "event"));
	/* a kernel that does not say */
	ASSERT_EQ(-ENOENT, ktau_control_status_fids(s, NULL, NULL));
	ASSERT_EQ(-ENOENT, ktau_control_status_lost_tasks(s, NULL));
	ktau_control_status_free(s);
}

TEST(control_status_groups_none_and_later_keys)
{
	/* groups before available, CRLF, a key from a later version */
	struct ktau_control_status *s = parse_status(
		"ktau-control 1\r\nstate running\r\ngroups none\r\nnew_key 1 2 3\r\n"
		"available syscall irq\r\nend\r\n", NULL);
	size_t i;

	ASSERT_NOT_NULL(s);
	ASSERT_EQ(2, ktau_control_status_group_count(s));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, ktau_control_status_group_enabled(s,
							       ktau_control_status_group(s, i)));
	ktau_control_status_free(s);
}

TEST(control_status_memory_and_users)
{
	struct ktau_control_status *s = parse_status(
		"ktau-control 1\nstate running\ngroups none\navailable irq\n"
		"memory tasks=41 bytes=41328 limit=134217728\n"
		"user_memory limit=33554432 users=3\n"
		"user uid=65534 bytes=3145728 limit=3145728\n"
		"user uid=1000 bytes=65536 limit=33554432\n"
		"user uid=4294967294 bytes=0 limit=1048576\nend\n", test_err());
	uint64_t bytes = 0, limit = 0, user_limit = 0, b = 0, l = 0;
	uint32_t uid = 0;

	ASSERT_NOT_NULL(s);
	ASSERT_EQ(0, ktau_control_status_memory(s, &bytes, &limit, &user_limit));
	ASSERT_EQ_U64(41328, bytes);
	ASSERT_EQ_U64(134217728, limit);
	ASSERT_EQ_U64(33554432, user_limit);
	ASSERT_EQ(3, ktau_control_status_user_count(s));
	ASSERT_EQ(0, ktau_control_status_user(s, 0, &uid, &b, &l));
	ASSERT_EQ(65534, uid);
	ASSERT_EQ_U64(3145728, b);
	ASSERT_EQ_U64(3145728, l);
	ASSERT_EQ(0, ktau_control_status_user(s, 2, &uid, NULL, NULL));
	ASSERT_EQ(4294967294U, uid);
	ASSERT_EQ(-ERANGE, ktau_control_status_user(s, 3, &uid, &b, &l));
	ktau_control_status_free(s);

	/* an older kernel: one pool, no user lines */
	s = parse_status("ktau-control 1\nstate running\ngroups none\navailable irq\n"
			 "memory tasks=41 bytes=41328 limit=16777216\nend\n", NULL);
	ASSERT_NOT_NULL(s);
	ASSERT_EQ(0, ktau_control_status_memory(s, NULL, &limit, &user_limit));
	ASSERT_EQ_U64(16777216, limit);
	ASSERT_EQ_U64(0, user_limit);
	ASSERT_EQ(0, ktau_control_status_user_count(s));
	ktau_control_status_free(s);
	s = parse_status(running_all, NULL);
	ASSERT_NOT_NULL(s);
	ASSERT_EQ(-ENOENT, ktau_control_status_memory(s, NULL, NULL, NULL));
	ktau_control_status_free(s);
}

struct bad_status {
	const char *text;
	int error;
	unsigned int line;
	const char *message;
};

TEST(control_status_rejects)
{
	static const struct bad_status bad[] = {
		{ "", EPROTO, 0, "empty input" },
		{ "ktau-profile 1\n", EPROTO, 1, "not a ktau control file" },
		{ "ktau-control\n", EPROTO, 1, "missing or bad format version" },
		{ "ktau-control 2\nend\n", EPROTONOSUPPORT, 1, "version 2 is not supported" },
		{ "ktau-control 1\nstate running\ngroups none\navailable irq\n", EPROTO, 4,
		  "truncated: no 'end' line" },
		{ "ktau-control 1\nstate paused\n", EPROTO, 2,
		  "state: expected 'running' or 'stopped'" },
		{ "ktau-control 1\nstate running\ngroups irq\navailable syscall\nend\n",
		  EPROTO, 3, "groups: 'irq' is not an available group" },
		{ "ktau-control 1\nstate running\ngroups\navailable irq\nend\n", EPROTO, 3,
		  "groups: expected group names or 'none'" },
		{ "ktau-control 1\nstate running\ngroups none\nend\n", EPROTO, 4,
		  "missing the 'available' line" },
		{ "ktau-control 1\ngroups none\navailable irq\nend\n", EPROTO, 4,
		  "missing the 'state' line" },
		{ "ktau-control 1\nstate running\navailable irq\nend\n", EPROTO, 4,
		  "missing the 'groups' line" },
		{ "ktau-control 1\nmemory tasks=1 bytes=x limit=1\nend\n", EPROTO, 2,
		  "memory: expected bytes=N limit=N" },
		{ "ktau-control 1\nmemory tasks=1 bytes=1\nend\n", EPROTO, 2,
		  "memory: expected bytes=N limit=N" },
		{ "ktau-control 1\nuser_memory limit=1\nend\n", EPROTO, 2,
		  "user_memory: expected limit=N users=N" },
		{ "ktau-control 1\nuser uid=4294967296 bytes=1 limit=1\nend\n", EPROTO, 2,
		  "user: expected uid=N bytes=N limit=N" },
		{ "ktau-control 1\nuser uid=1 bytes=-1 limit=1\nend\n", EPROTO, 2,
		  "user: expected uid=N bytes=N limit=N" },
		{ "ktau-control 1\nuser uid=1 limit=1\nend\n", EPROTO, 2,
		  "user: expected uid=N bytes=N limit=N" },
		{ "ktau-control 1\nstate running\ngroups none\navailable irq irq\nend\n",
		  EPROTO, 4, "group 'irq' listed twice" },
		{ "ktau-control 1\nstate running\ngroups none\navailable irq\navailable sched\n"
		  "end\n", EPROTO, 5, "'available' listed twice" },
		{ "ktau-control 1\nstate running\ngroups none\navailable irq\nfids 3\nend\n",
		  EPROTO, 5, "fids: expected REGISTERED/MAX" },
		{ "ktau-control 1\nstate running\ngroups none\navailable irq\nfids 3/x\nend\n",
		  EPROTO, 5, "fids: expected REGISTERED/MAX" },
		{ "ktau-control 1\nstate running\ngroups none\navailable irq\nlost_tasks -1\n"
		  "end\n", EPROTO, 5, "lost_tasks: expected a number" },
		{ "ktau-control 1\nstate running\ngroups none\navailable irq\nend\nstate x\n",
		  EPROTO, 6, "text after 'end'" },
		{ "ktau-control 1\nstate running\x01\n", EPROTO, 2, "not printable ASCII" },
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {

		errno = 0;
		if (parse_status(bad[i].text, test_err()))
			FAIL("case %zu parsed: %s", i, bad[i].text);
		if (errno != bad[i].error || ERR_CODE != -bad[i].error ||
		    ERR_LINE != bad[i].line || !strstr(ERR_MSG, bad[i].message))
			FAIL("case %zu: errno %d line %u '%s', expected errno %d line %u '%s'",
			     i, errno, ERR_LINE, ERR_MSG, bad[i].error, bad[i].line,
			     bad[i].message);
	}
	errno = 0;
	ASSERT_NULL(ktau_control_status_parse(NULL, 3, NULL));
	ASSERT_EQ(EINVAL, errno);
}

/* A fake /proc root with ktau/control holding text. */
static char *fake_control(const char *text)
{
	char *root = make_tmpdir();

	if (!root)
		return NULL;
	if (write_tree_file(root, "ktau/control", text)) {
		remove_tree(root);
		free(root);
		return NULL;
	}
	return root;
}

static char *control_path(const char *root, char *buf, size_t size)
{
	snprintf(buf, size, "%s/ktau/control", root);
	return buf;
}

/* The status / a command through a handle on root. */
static struct ktau_control_status *read_control(const char *root, struct ktau_error **err)
{
	struct ktau_proc *proc = open_root(root);
	struct ktau_control_status *s = ktau_proc_read_control(proc, err);

	ktau_proc_close(proc);
	return s;
}

static int write_control(const char *root, const char *command, struct ktau_error **err)
{
	struct ktau_proc *proc = open_root(root);
	int ret = ktau_proc_write_control(proc, command, err);

	ktau_proc_close(proc);
	return ret;
}

TEST(control_status_read_fake_proc)
{
	char *root = fake_control(running_all);
	struct ktau_control_status *s;

	ASSERT_NOT_NULL(root);
	s = read_control(root, NULL);
	remove_tree(root);
	free(root);
	ASSERT_NOT_NULL(s);
	ASSERT_EQ(1, ktau_control_status_group_enabled(s, "kernel"));
	ktau_control_status_free(s);
}

TEST(control_without_ktau_is_enodev)
{
	char *root = make_tmpdir();

	ASSERT_NOT_NULL(root);
	errno = 0;
	ASSERT_NULL(read_control(root, test_err()));
	ASSERT_EQ(ENODEV, errno);
	ASSERT_EQ(-ENODEV, ERR_CODE);
	errno = 0;
	ASSERT_EQ(-ENODEV, write_control(root, "start", test_err()));
	ASSERT_EQ(ENODEV, errno);
	ASSERT_EQ(-ENODEV, ERR_CODE);
	ASSERT_CONTAINS(ERR_MSG, "/ktau/control: this kernel has no ktau support");
	remove_tree(root);
	free(root);
}

TEST(control_write_is_one_exact_write)
{
	char *root = fake_control(""), path[4200], *text;

	ASSERT_NOT_NULL(root);
	ASSERT_EQ(0, write_control(root, "enable syscall irq", test_err()));
	ASSERT_NULL(last_err());
	text = slurp(control_path(root, path, sizeof(path)), NULL);
	ASSERT_NOT_NULL(text);
	ASSERT_STREQ("enable syscall irq", text);
	free(text);
	ASSERT_EQ(-EINVAL, write_control(root, "", test_err()));
	ASSERT_EQ(-EINVAL, ERR_CODE);
	ASSERT_EQ(-EINVAL, write_control(root, NULL, NULL));
	remove_tree(root);
	free(root);
}

static const char *eacces_root;

static int read_errno(void)
{
	errno = 0;
	return read_control(eacces_root, NULL) ? 0 : errno;
}

static int write_errno(void)
{
	return -write_control(eacces_root, "stop", NULL);
}

TEST(control_not_root_is_eacces)
{
	char *root = fake_control(running_all), path[4200];
	int got_read, got_write;

	ASSERT_NOT_NULL(root);
	/* the kernel's mode */
	ASSERT_EQ(0, chmod(control_path(root, path, sizeof(path)), 0600));
	eacces_root = root;
	got_read = run_as_nobody(read_errno);
	got_write = run_as_nobody(write_errno);
	remove_tree(root);
	free(root);
	ASSERT_EQ(EACCES, got_read);
	ASSERT_EQ(EACCES, got_write);
}

TEST(process_totals_sum_threads_and_exited)
{
	struct ktau_profile *sys = load_profile(test_fixture("system.ktau"), NULL);
	struct ktau_profile *tot;
	const struct ktau_block *b;
	const struct ktau_func *f;

	ASSERT_NOT_NULL(sys);
	tot = ktau_profile_process_totals(sys);
	ASSERT_NOT_NULL(tot);
	ASSERT_EQ(KTAU_SCOPE_SYSTEM, ktau_profile_scope(tot));
	ASSERT_EQ_U64(1000000, ktau_profile_tsc_khz(tot));
	ASSERT_EQ(2, ktau_profile_block_count(tot));
	b = ktau_profile_block(tot, 0);
	ASSERT_EQ(KTAU_BLOCK_PROCESS, ktau_block_kind(b));
	ASSERT_EQ(500, ktau_block_pid(b));
	ASSERT_EQ(500, ktau_block_tid(b));
	ASSERT_STREQ("server", ktau_block_comm(b));
	ASSERT_EQ_U64(2, ktau_block_threads(b));
	ASSERT_EQ_U64(1, ktau_block_exited_threads(b));
	ASSERT_EQ_U64(1, ktau_block_dropped(b));
	f = ktau_block_find_func_by_name(b, 0, "read");
	ASSERT_NOT_NULL(f);
	ASSERT_EQ_U64(6, f->calls);
	ASSERT_EQ_U64(46000, f->incl_cycles);
	ASSERT_EQ_U64(36000, f->excl_cycles);
	f = ktau_block_find_func_by_name(b, 0, "getpid");
	ASSERT_NOT_NULL(f);
	ASSERT_EQ_U64(7, f->calls);
	/* the reaped children are not the process's own time */
	ASSERT_NULL(ktau_block_find_func_by_name(b, 0, "fork"));
	ASSERT_EQ(2, ktau_block_edge_count(b));
	ASSERT_EQ(1, ktau_block_event_count(b));
	ASSERT_EQ_U64(6, ktau_block_event(b, 0)->count);
	b = ktau_profile_block(tot, 1);
	ASSERT_EQ(600, ktau_block_pid(b));
	ASSERT_STREQ("idle_loop", ktau_block_comm(b));
	ASSERT_EQ(2, ktau_block_func_count(b));
	ktau_profile_free(tot);
	ktau_profile_free(sys);
}

TEST(process_totals_needs_system_scope)
{
	struct ktau_profile *p = ktau_profile_new(KTAU_SCOPE_PROCESS, 1000);

	ASSERT_NOT_NULL(p);
	errno = 0;
	ASSERT_NULL(ktau_profile_process_totals(p));
	ASSERT_EQ(EINVAL, errno);
	errno = 0;
	ASSERT_NULL(ktau_profile_process_totals(NULL));
	ASSERT_EQ(EINVAL, errno);
	ktau_profile_free(p);
}

TEST(process_totals_of_exited_only_process)
{
	struct ktau_profile *sys = parse_str(
		"ktau-profile 1\ntsc_khz 1000\nscope system\n"
		"task kind=exited pid=7 tid=0 comm=gone exited_threads=2 dropped=0\n"
		"func 0 39 getpid syscall 3 30 30\nend\n", NULL);
	struct ktau_profile *tot;
	const struct ktau_block *b;

	ASSERT_NOT_NULL(sys);
	tot = ktau_profile_process_totals(sys);
	ASSERT_NOT_NULL(tot);
	b = ktau_profile_find_block(tot, KTAU_BLOCK_PROCESS, 7, 7);
	ASSERT_NOT_NULL(b);
	ASSERT_STREQ("gone", ktau_block_comm(b));
	ASSERT_EQ_U64(0, ktau_block_threads(b));
	ASSERT_EQ_U64(2, ktau_block_exited_threads(b));
	ASSERT_EQ_U64(3, ktau_block_find_func_by_name(b, 0, "getpid")->calls);
	ktau_profile_free(tot);
	ktau_profile_free(sys);
}
