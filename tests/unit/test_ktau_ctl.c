// SPDX-License-Identifier: GPL-2.0-or-later
/* The built ktau-ctl binary against fake /proc trees. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "testutil.h"

#define CTL(r, env, ...) run_tool("KTAU_CTL", env, r, __VA_ARGS__, (char *)NULL)

static const char status_text[] =
	"ktau-control 1\n"
	"state stopped\n"
	"groups syscall irq\n"
	"available syscall softirq irq sched exception kernel event\n"
	"fids 551/1024\n"
	"lost_tasks 2\n"
	"usage: start | stop | clear | startclr | enable GROUP... | disable GROUP...\n"
	"end\n";

/* A fake /proc root with ktau/control; env[0] is KTAU_PROCFS=root. */
struct fake {
	char *root;
	char env_entry[4200];
	char *env[2];
	char control[4200];
};

static int fake_init(struct fake *f, const char *control_text)
{
	f->root = make_tmpdir();
	if (!f->root)
		return -1;
	snprintf(f->env_entry, sizeof(f->env_entry), "KTAU_PROCFS=%s", f->root);
	f->env[0] = f->env_entry;
	f->env[1] = NULL;
	snprintf(f->control, sizeof(f->control), "%s/ktau/control", f->root);
	if (control_text && write_tree_file(f->root, "ktau/control", control_text))
		return -1;
	return 0;
}

static void fake_free(struct fake *f)
{
	if (f->root)
		remove_tree(f->root);
	free(f->root);
}

TEST(ctl_status_lines)
{
	struct fake f;
	struct run_result r;

	ASSERT_EQ(0, fake_init(&f, status_text));
	ASSERT_EQ(0, CTL(&r, f.env, "status"));
	fake_free(&f);
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("", r.err);
	ASSERT_STREQ("recording:       stopped\n"
		     "enabled groups:  syscall irq\n"
		     "disabled groups: softirq sched exception kernel event\n"
		     "function ids:    551 registered, at most 1024\n"
		     "lost tasks:      2\n", r.out);
	run_result_free(&r);
}

TEST(ctl_status_memory_lines)
{
	struct fake f;
	struct run_result r;

	ASSERT_EQ(0, fake_init(&f, "ktau-control 1\nstate running\ngroups irq\n"
			       "available irq\nmemory tasks=41 bytes=41328 limit=134217728\n"
			       "user_memory limit=33554432 users=2\n"
			       "user uid=1000 bytes=65536 limit=33554432\n"
			       "user uid=0 bytes=9744 limit=67108864\nend\n"));
	ASSERT_EQ(0, CTL(&r, f.env, "status"));
	fake_free(&f);
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("recording:       running\n"
		     "enabled groups:  irq\n"
		     "disabled groups: none\n"
		     "memory:          41328 bytes; grown tables at most 134217728 bytes in all, "
		     "33554432 per user\n"
		     "  uid 1000         65536 bytes of at most 33554432\n"
		     "  uid 0            9744 bytes of at most 67108864\n", r.out);
	run_result_free(&r);
}

TEST(ctl_status_is_the_default)
{
	struct fake f;
	struct run_result r;

	ASSERT_EQ(0, fake_init(&f, status_text));
	ASSERT_EQ(0, run_tool("KTAU_CTL", f.env, &r, (char *)NULL));
	fake_free(&f);
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.out, "recording:       stopped\n");
	run_result_free(&r);
}

/* Each command is written as the kernel's grammar has it, in one write. */
TEST(ctl_commands_write_the_grammar)
{
	static const char *const cases[][4] = {
		{ "start", NULL, NULL, "start" },
		{ "stop", NULL, NULL, "stop" },
		{ "clear", NULL, NULL, "clear" },
		{ "startclr", NULL, NULL, "startclr" },
		{ "enable", "irq", "sched", "enable irq sched" },
		{ "disable", "all", NULL, "disable all" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fake f;
		struct run_result r;
		char *written;

		ASSERT_EQ(0, fake_init(&f, status_text));
		ASSERT_EQ(0, CTL(&r, f.env, cases[i][0], cases[i][1], cases[i][2]));
		/* the status was read, then the command written over its start */
		written = slurp(f.control, NULL);
		fake_free(&f);
		ASSERT_NOT_NULL(written);
		if (r.status || r.out[0] || r.err[0] ||
		    strncmp(written, cases[i][3], strlen(cases[i][3])))
			FAIL("'%s': status %d out '%s' err '%s', file starts '%.20s', expected "
			     "'%s'", cases[i][3], r.status, r.out, r.err, written, cases[i][3]);
		free(written);
		run_result_free(&r);
	}
}

TEST(ctl_unknown_group_lists_groups)
{
	struct fake f;
	struct run_result r;
	char *after;

	ASSERT_EQ(0, fake_init(&f, status_text));
	ASSERT_EQ(0, CTL(&r, f.env, "enable", "irq", "syscal"));
	after = slurp(f.control, NULL);
	fake_free(&f);
	ASSERT_EQ(2, r.status);
	ASSERT_STREQ("ktau-ctl: unknown group 'syscal'; this kernel has: syscall softirq "
		     "irq sched exception kernel event (or all)\n", r.err);
	/* nothing was written */
	ASSERT_STREQ(status_text, after);
	free(after);
	run_result_free(&r);
}

TEST(ctl_usage_errors)
{
	static const char *const cases[][3] = {
		{ "enable", NULL, "'enable' needs at least one group" },
		{ "disable", NULL, "'disable' needs at least one group" },
		{ "bogus", NULL, "unknown command 'bogus' (status, start, stop, clear, "
				 "startclr, enable, disable, counters)" },
		{ "start", "now", "unexpected argument 'now'" },
		{ "status", "x", "unexpected argument 'x'" },
		{ "--bogus", NULL, "unknown option '--bogus'" },
		{ "-x", NULL, "unknown option '-x'" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fake f;
		struct run_result r;

		ASSERT_EQ(0, fake_init(&f, status_text));
		ASSERT_EQ(0, CTL(&r, f.env, cases[i][0], cases[i][1]));
		fake_free(&f);
		if (r.status != 2 || !strstr(r.err, cases[i][2]) || !strstr(r.err, "--help"))
			FAIL("'%s %s': status %d err '%s', expected 2 and '%s'", cases[i][0],
			     cases[i][1] ? cases[i][1] : "", r.status, r.err, cases[i][2]);
		run_result_free(&r);
	}
}

TEST(ctl_without_ktau_kernel)
{
	static const char *const cmds[][2] = { { "status" }, { "start" }, { "enable", "irq" } };
	struct fake f;
	size_t i;

	ASSERT_EQ(0, fake_init(&f, NULL));
	for (i = 0; i < 3; i++) {
		struct run_result r;

		ASSERT_EQ(0, CTL(&r, f.env, cmds[i][0], cmds[i][1]));
		if (r.status != 1 || strcmp(r.err, "ktau-ctl: this kernel has no ktau support "
					    "(no /proc/ktau): boot a kernel built with "
					    "CONFIG_KTAU\n"))
			FAIL("%s: status %d err '%s'", cmds[i][0], r.status, r.err);
		run_result_free(&r);
	}
	fake_free(&f);
}

TEST(ctl_malformed_control_file)
{
	struct fake f;
	struct run_result r;

	ASSERT_EQ(0, fake_init(&f, "ktau-control 1\nstate maybe\nend\n"));
	ASSERT_EQ(0, CTL(&r, f.env, "status"));
	fake_free(&f);
	ASSERT_EQ(1, r.status);
	ASSERT_STREQ("ktau-ctl: /proc/ktau/control:2: state: expected 'running' or "
		     "'stopped'\n", r.err);
	run_result_free(&r);
}

static char *nobody_env[2];

/* ktau-ctl as nobody: 0 when each command failed with the permission
 * message, else 100 + the failing case. */
static int ctl_as_nobody(void)
{
	static const char *const cmds[][2] = { { "status" }, { "stop" }, { "enable", "irq" } };
	size_t i;

	for (i = 0; i < 3; i++) {
		struct run_result r;
		int bad;

		if (CTL(&r, nobody_env, cmds[i][0], cmds[i][1]))
			return 99;
		bad = r.status != 1 || strcmp(r.err, "ktau-ctl: permission denied: "
					      "/proc/ktau/control is root-only (run as root)\n");
		if (bad)
			fprintf(stderr, "%s: status %d err '%s'\n", cmds[i][0], r.status, r.err);
		run_result_free(&r);
		if (bad)
			return 100 + (int)i;
	}
	return 0;
}

TEST(ctl_not_root_is_permission_denied)
{
	struct fake f;
	int got;

	ASSERT_EQ(0, fake_init(&f, status_text));
	ASSERT_EQ(0, chmod(f.control, 0600));	/* as the kernel has it */
	nobody_env[0] = f.env_entry;
	got = run_as_nobody(ctl_as_nobody);
	fake_free(&f);
	ASSERT_EQ(0, got);
}

TEST(ctl_help_and_version)
{
	struct run_result r;

	ASSERT_EQ(0, CTL(&r, NULL, "--help"));
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.out, "Usage: ktau-ctl [status]");
	ASSERT_CONTAINS(r.out, "Exit status:");
	run_result_free(&r);
	ASSERT_EQ(0, CTL(&r, NULL, "-V"));
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.out, "ktau-ctl (ktau) ");
	run_result_free(&r);
}

TEST(ctl_write_error_is_reported)
{
	struct fake f;
	struct run_result r;

	ASSERT_EQ(0, fake_init(&f, NULL));
	ASSERT_EQ(0, make_tree_dir(f.root, "ktau/control"));
	ASSERT_EQ(0, CTL(&r, f.env, "stop"));
	fake_free(&f);
	ASSERT_EQ(1, r.status);
	ASSERT_STREQ("ktau-ctl: cannot write 'stop' to /proc/ktau/control: Is a directory\n",
		     r.err);
	run_result_free(&r);
}

/* --system-map: TAU's names of the routines /proc/ktau/functions lists,
 * at the TAU compatibility layer's addresses, any user (docs/tau.md) */
TEST(ctl_system_map)
{
	struct fake f;
	struct run_result r;
	char line[256], path[4300], *text;

	ASSERT_EQ(0, fake_init(&f, NULL));
	ASSERT_EQ(0, write_tree_file(f.root, "ktau/functions",
				     "ktau-functions 1\ncolumns fid group name\n"
				     "0 syscall read\n39 syscall getpid\n469 irq irq\nend\n"));
	ASSERT_EQ(0, CTL(&r, f.env, "--system-map"));
	ASSERT_EQ(0, r.status);
	ASSERT_NOT_NULL(line_starting(r.out, "c1000000 T sys_read", line, sizeof(line)));
	ASSERT_NOT_NULL(line_starting(r.out, "c1000270 T sys_getpid", line, sizeof(line)));
	ASSERT_NOT_NULL(line_starting(r.out, "c1001d50 T do_IRQ", line, sizeof(line)));
	ASSERT_NOT_NULL(strstr(r.out, "\nc1020000 A _etext\n"));
	run_result_free(&r);
	/* to a file, replaced whole */
	snprintf(path, sizeof(path), "%s/System.map", f.root);
	ASSERT_EQ(0, CTL(&r, f.env, "--system-map", path));
	ASSERT_EQ(0, r.status);
	run_result_free(&r);
	text = read_rel(f.root, "System.map");
	ASSERT_NOT_NULL(text);
	ASSERT_NOT_NULL(line_starting(text, "c1000270 T sys_getpid", line, sizeof(line)));
	free(text);
	ASSERT_EQ(0, CTL(&r, f.env, "--system-map", path, "extra"));
	ASSERT_EQ(2, r.status);
	run_result_free(&r);
	/* no ktau kernel */
	fake_free(&f);
	ASSERT_EQ(0, fake_init(&f, NULL));
	ASSERT_EQ(0, CTL(&r, f.env, "--system-map"));
	ASSERT_EQ(1, r.status);
	ASSERT_CONTAINS(r.err, "ktau support");
	run_result_free(&r);
	fake_free(&f);
}

/* ktau-ctl counters on this host: the names resolve against a fake /proc,
 * and the kernel has no counter area to register. */
static const char counters_functions_text[] =
	"ktau-functions 1\ncolumns fid group name\n"
	"39 syscall getpid\n480 event read_bytes\nend\n";

TEST(ctl_counters_errors)
{
	struct fake f;
	struct run_result r;

	ASSERT_EQ(0, fake_init(&f, NULL));
	ASSERT_EQ(0, write_tree_file(f.root, "ktau/functions", counters_functions_text));

	/* the names resolve; this host's kernel has no area to register */
	ASSERT_EQ(0, CTL(&r, f.env, "counters", "getpid"));
	ASSERT_EQ(1, r.status);
	ASSERT_CONTAINS(r.err, "ktau-ctl: this kernel has no shared counter area");
	ASSERT_STREQ("", r.out);
	run_result_free(&r);

	ASSERT_EQ(0, CTL(&r, f.env, "counters", "sys_getpid"));
	ASSERT_EQ(2, r.status);
	ASSERT_CONTAINS(r.err, "counter sys_getpid:");
	run_result_free(&r);

	ASSERT_EQ(0, CTL(&r, f.env, "counters", "read_bytes"));
	ASSERT_EQ(2, r.status);
	ASSERT_CONTAINS(r.err, "an atomic event");
	run_result_free(&r);

	ASSERT_EQ(0, CTL(&r, f.env, "counters"));
	ASSERT_EQ(2, r.status);
	ASSERT_CONTAINS(r.err, "counters takes 1 to 16 names");
	run_result_free(&r);

	ASSERT_EQ(0, CTL(&r, f.env, "counters", "--calls", "x", "all"));
	ASSERT_EQ(2, r.status);
	ASSERT_CONTAINS(r.err, "--calls takes a number");
	run_result_free(&r);
	fake_free(&f);

	/* without a ktau /proc a routine name cannot be resolved */
	ASSERT_EQ(0, fake_init(&f, NULL));
	ASSERT_EQ(0, CTL(&r, f.env, "counters", "getpid"));
	fake_free(&f);
	ASSERT_EQ(1, r.status);
	ASSERT_CONTAINS(r.err, "no ktau support");
	run_result_free(&r);
}
