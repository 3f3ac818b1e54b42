// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's /proc/ktau/control parser, compiled for the host from
 * kernel-ext/kernel/ktau/control_parse.c (see the Makefile).
 */
#include <errno.h>
#include <string.h>

#include "harness.h"
#include "control_parse.h"

static const char *const groups[] = {
	"syscall", "softirq", "irq", "sched", "exception", "kernel", "event",
};
#define NR_GROUPS (sizeof(groups) / sizeof(groups[0]))

static int parse(const char *s, struct ktau_control_cmd *cmd)
{
	return ktau_control_parse(s, strlen(s), groups, NR_GROUPS, cmd);
}

TEST(control_parse_commands)
{
	struct ktau_control_cmd cmd;

	ASSERT_EQ(0, parse("start", &cmd));
	ASSERT_EQ(KTAU_CONTROL_START, cmd.op);
	ASSERT_EQ(0, parse("stop\n", &cmd));
	ASSERT_EQ(KTAU_CONTROL_STOP, cmd.op);
	ASSERT_EQ(0, parse("  clear\t", &cmd));
	ASSERT_EQ(KTAU_CONTROL_CLEAR, cmd.op);
	ASSERT_EQ(0, parse("startclr", &cmd));
	ASSERT_EQ(KTAU_CONTROL_STARTCLR, cmd.op);
	ASSERT_EQ(0, parse("enable syscall irq\n", &cmd));
	ASSERT_EQ(KTAU_CONTROL_ENABLE, cmd.op);
	ASSERT_EQ((1UL << 0) | (1UL << 2), cmd.groups);
	ASSERT_EQ(0, parse("disable  all", &cmd));
	ASSERT_EQ(KTAU_CONTROL_DISABLE, cmd.op);
	ASSERT_EQ((1UL << NR_GROUPS) - 1, cmd.groups);
	ASSERT_EQ(0, parse("enable event event", &cmd));
	ASSERT_EQ(1UL << 6, cmd.groups);
}

TEST(control_parse_rejects)
{
	static const char *const bad[] = {
		"", "\n", " ", "bogus", "START", "start now", "stop stop",
		"clear 1", "enable", "enable\n", "disable ", "enable sys",
		"enable syscall bogus", "enable all,irq", "start\n\n",
		"st art", "enable syscall\nirq", "start\r", "\x80start",
		"enable syscal", "enabled syscall", "startclr x",
	};
	struct ktau_control_cmd cmd;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ASSERT_EQ(-EINVAL, parse(bad[i], &cmd));
	/* an embedded NUL is not the end of the command */
	ASSERT_EQ(-EINVAL, ktau_control_parse("start\0x", 7, groups, NR_GROUPS, &cmd));
}

TEST(control_parse_length_limit)
{
	char buf[KTAU_CONTROL_MAX_LEN + 2];
	struct ktau_control_cmd cmd;

	memset(buf, ' ', sizeof(buf));
	memcpy(buf, "start", 5);
	ASSERT_EQ(0, ktau_control_parse(buf, KTAU_CONTROL_MAX_LEN, groups, NR_GROUPS, &cmd));
	ASSERT_EQ(-EINVAL, ktau_control_parse(buf, KTAU_CONTROL_MAX_LEN + 1, groups,
					      NR_GROUPS, &cmd));
}

TEST(control_parse_limits)
{
	static const char *const bad[] = {
		"limit", "limit memory", "limit records", "limit memory 1023K",
		"limit memory 1048575", "limit records 23", "limit records 65001",
		"limit records 40 x", "limit foo 3", "limit memory 2X", "limit memory -2M",
		"limit memory 18446744073709551616", "limit memory 17179869184G",
		"limit records 4O", "limit memory M",
	};
	struct ktau_control_cmd cmd;
	size_t i;

	ASSERT_EQ(0, parse("limit memory 2M\n", &cmd));
	ASSERT_EQ(KTAU_CONTROL_LIMIT_MEMORY, cmd.op);
	ASSERT_EQ(2ULL << 20, cmd.value);
	ASSERT_EQ(0, parse(" limit  memory\t1048576", &cmd));
	ASSERT_EQ(1ULL << 20, cmd.value);
	ASSERT_EQ(0, parse("limit memory 3G", &cmd));
	ASSERT_EQ(3ULL << 30, cmd.value);
	ASSERT_EQ(0, parse("limit memory 4096K", &cmd));
	ASSERT_EQ(4ULL << 20, cmd.value);
	ASSERT_EQ(0, parse("limit records 24", &cmd));
	ASSERT_EQ(KTAU_CONTROL_LIMIT_RECORDS, cmd.op);
	ASSERT_EQ(24ULL, cmd.value);
	ASSERT_EQ(0, parse("limit records 65000", &cmd));
	ASSERT_EQ(65000ULL, cmd.value);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ASSERT_EQ(-EINVAL, parse(bad[i], &cmd));
}

TEST(control_parse_user_limits)
{
	static const char *const bad[] = {
		"limit user-memory", "limit user-memory 1023K", "limit user-memory 2M x",
		"limit user-memory default", "limit user-memory 17179869184G",
		"limit user", "limit user 1000", "limit user 1000 1023K",
		"limit user 1000 2M x", "limit user 1000 default x", "limit user 4294967295 2M",
		"limit user 4294967296 2M", "limit user 18446744073709551616 2M",
		"limit user -1 2M", "limit user nobody 2M", "limit user 10O0 2M",
		"limit user 1000K 2M", "limit user 1000 Default", "limit user 1000 defaults",
		"limit user 1000 0", "limit user 2M 1000", "limit user default 2M",
		"limit users 2M", "limit user-memory 1000 2M", "limit user_memory 2M",
		"limit user 1000 -2M", "limit user 1000 2X", "limit user  ",
	};
	struct ktau_control_cmd cmd;
	size_t i;

	ASSERT_EQ(0, parse("limit user-memory 8M\n", &cmd));
	ASSERT_EQ(KTAU_CONTROL_LIMIT_USER_MEMORY, cmd.op);
	ASSERT_EQ(8ULL << 20, cmd.value);
	ASSERT_EQ(0, parse("limit user 1000 64M", &cmd));
	ASSERT_EQ(KTAU_CONTROL_LIMIT_USER, cmd.op);
	ASSERT_EQ(1000U, cmd.uid);
	ASSERT_EQ(64ULL << 20, cmd.value);
	ASSERT_EQ(0, parse(" limit\tuser 0  1048576\n", &cmd));
	ASSERT_EQ(0U, cmd.uid);
	ASSERT_EQ(1ULL << 20, cmd.value);
	/* the highest uid that names someone; "default" is value 0 */
	ASSERT_EQ(0, parse("limit user 4294967294 default", &cmd));
	ASSERT_EQ(KTAU_CONTROL_LIMIT_USER, cmd.op);
	ASSERT_EQ(4294967294U, cmd.uid);
	ASSERT_EQ(0ULL, cmd.value);
	ASSERT_EQ(0, parse("limit user 65534 1024G", &cmd));
	ASSERT_EQ(65534U, cmd.uid);
	ASSERT_EQ(1ULL << 40, cmd.value);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cmd.op = KTAU_CONTROL_START;
		ASSERT_EQ(-EINVAL, parse(bad[i], &cmd));
	}
}

TEST(control_parse_trace)
{
	static const char *const bad[] = {
		"trace", "trace\n", "trace size", "trace size 17", "trace size 8",
		"trace size 524288", "trace size 64K", "trace size 0", "trace pid",
		"trace pid 0", "trace pid abc", "trace pid -3", "trace pid 1073741824",
		"trace on now", "trace off 1", "trace foo", "trace all pids", "trace ON",
		"trace pid 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17",
		"trace wakeup", "trace wakeup 101", "trace wakeup -1", "trace wakeup 50%",
		"trace wakeup 5 6", "trace wakeup 1K", "trace wakeup abc",
	};
	struct ktau_control_cmd cmd;
	size_t i;

	ASSERT_EQ(0, parse("trace on\n", &cmd));
	ASSERT_EQ(KTAU_CONTROL_TRACE_ON, cmd.op);
	ASSERT_EQ(0, parse("trace  off", &cmd));
	ASSERT_EQ(KTAU_CONTROL_TRACE_OFF, cmd.op);
	ASSERT_EQ(0, parse("trace all", &cmd));
	ASSERT_EQ(KTAU_CONTROL_TRACE_ALL, cmd.op);
	ASSERT_EQ(0, parse("trace size 16", &cmd));
	ASSERT_EQ(KTAU_CONTROL_TRACE_SIZE, cmd.op);
	ASSERT_EQ(16, cmd.value);
	ASSERT_EQ(0, parse("trace size 262144", &cmd));
	ASSERT_EQ(262144, cmd.value);
	ASSERT_EQ(0, parse("trace wakeup 0", &cmd));
	ASSERT_EQ(KTAU_CONTROL_TRACE_WAKEUP, cmd.op);
	ASSERT_EQ(0, cmd.value);
	ASSERT_EQ(0, parse("trace wakeup 100\n", &cmd));
	ASSERT_EQ(100, cmd.value);
	ASSERT_EQ(0, parse("trace pid 42 7\n", &cmd));
	ASSERT_EQ(KTAU_CONTROL_TRACE_PIDS, cmd.op);
	ASSERT_EQ(2, cmd.nr_pids);
	ASSERT_EQ(42, cmd.pids[0]);
	ASSERT_EQ(7, cmd.pids[1]);
	ASSERT_EQ(0, parse("trace pid 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16", &cmd));
	ASSERT_EQ(KTAU_CONTROL_MAX_PIDS, cmd.nr_pids);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ASSERT_EQ(-EINVAL, parse(bad[i], &cmd));
}
