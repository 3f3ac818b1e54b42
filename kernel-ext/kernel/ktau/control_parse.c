// SPDX-License-Identifier: GPL-2.0
/*
 * Parser of /proc/ktau/control commands:
 *
 *   start | stop | clear | startclr | enable GROUP... | disable GROUP...
 *   limit memory BYTES | limit records N | limit user-memory BYTES
 *   limit user UID BYTES | limit user UID default
 *   trace on | trace off | trace all | trace size KIB | trace wakeup PERCENT |
 *   trace pid PID...
 *
 * GROUP is a group name or "all"; BYTES a decimal number with an optional
 * K, M or G suffix (powers of 1024); UID a decimal uid (not 4294967295,
 * which names no one; the kernel then refuses a uid that its writer's
 * user namespace does not map).  Words are separated by blanks; one
 * trailing newline is allowed.  Anything else is -EINVAL, and the caller
 * changes nothing then: the whole command is checked before it acts.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/errno.h>
#include <linux/string.h>
#else
#include <errno.h>
#include <string.h>
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#include "control_parse.h"

struct ktau_word {
	const char *s;
	size_t len;
};

static bool ktau_word_is(const struct ktau_word *w, const char *s)
{
	return w->len == strlen(s) && !memcmp(w->s, s, w->len);
}

static bool ktau_is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The next word at or after *pos; false at the end of the buffer. */
static bool ktau_next_word(const char *buf, size_t len, size_t *pos,
			   struct ktau_word *w)
{
	size_t i = *pos;

	while (i < len && ktau_is_blank(buf[i]))
		i++;
	if (i == len)
		return false;
	w->s = buf + i;
	while (i < len && !ktau_is_blank(buf[i]))
		i++;
	w->len = buf + i - w->s;
	*pos = i;
	return true;
}

static int ktau_parse_groups(const char *buf, size_t len, size_t pos,
			     const char *const *group_names,
			     unsigned int nr_groups, unsigned long *groups)
{
	struct ktau_word w;
	unsigned int g;

	*groups = 0;
	while (ktau_next_word(buf, len, &pos, &w)) {
		if (ktau_word_is(&w, "all")) {
			*groups |= (1UL << nr_groups) - 1;
			continue;
		}
		for (g = 0; g < nr_groups; g++) {
			if (ktau_word_is(&w, group_names[g]))
				break;
		}
		if (g == nr_groups)
			return -EINVAL;
		*groups |= 1UL << g;
	}
	return *groups ? 0 : -EINVAL;
}

/* A decimal number, with a K/M/G suffix if @suffix; no overflow. */
static int ktau_parse_number(const struct ktau_word *w, bool suffix,
			     unsigned long long *v)
{
	unsigned int shift = 0;
	size_t i, len = w->len;
	unsigned long long n = 0;

	if (suffix && len > 1) {
		switch (w->s[len - 1]) {
		case 'K':
			shift = 10;
			break;
		case 'M':
			shift = 20;
			break;
		case 'G':
			shift = 30;
			break;
		}
		if (shift)
			len--;
	}
	if (!len || len > 19)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		if (w->s[i] < '0' || w->s[i] > '9')
			return -EINVAL;
		n = 10 * n + (w->s[i] - '0');
	}
	if (n > (~0ULL >> shift))
		return -EINVAL;
	*v = n << shift;
	return 0;
}

/* BYTES of a memory limit, within its range. */
static int ktau_parse_bytes(const struct ktau_word *w, unsigned long long *v)
{
	if (ktau_parse_number(w, true, v) || *v < KTAU_LIMIT_MEMORY_MIN ||
	    *v > KTAU_LIMIT_MEMORY_MAX)
		return -EINVAL;
	return 0;
}

/* limit user UID BYTES | limit user UID default */
static int ktau_parse_limit_user(const char *buf, size_t len, size_t pos,
				 struct ktau_control_cmd *cmd)
{
	struct ktau_word uid, num, extra;
	unsigned long long v;

	if (!ktau_next_word(buf, len, &pos, &uid) ||
	    !ktau_next_word(buf, len, &pos, &num) ||
	    ktau_next_word(buf, len, &pos, &extra) ||
	    ktau_parse_number(&uid, false, &v) || v > KTAU_LIMIT_UID_MAX)
		return -EINVAL;
	cmd->uid = v;
	cmd->value = 0;
	if (!ktau_word_is(&num, "default") && ktau_parse_bytes(&num, &cmd->value))
		return -EINVAL;
	cmd->op = KTAU_CONTROL_LIMIT_USER;
	return 0;
}

/*
 * limit memory BYTES | limit records N | limit user-memory BYTES |
 * limit user UID BYTES | limit user UID default
 */
static int ktau_parse_limit(const char *buf, size_t len, size_t pos,
			    struct ktau_control_cmd *cmd)
{
	struct ktau_word what, num, extra;

	if (!ktau_next_word(buf, len, &pos, &what))
		return -EINVAL;
	if (ktau_word_is(&what, "user"))
		return ktau_parse_limit_user(buf, len, pos, cmd);
	if (!ktau_next_word(buf, len, &pos, &num) ||
	    ktau_next_word(buf, len, &pos, &extra))
		return -EINVAL;
	if (ktau_word_is(&what, "memory")) {
		cmd->op = KTAU_CONTROL_LIMIT_MEMORY;
		return ktau_parse_bytes(&num, &cmd->value);
	}
	if (ktau_word_is(&what, "user-memory")) {
		cmd->op = KTAU_CONTROL_LIMIT_USER_MEMORY;
		return ktau_parse_bytes(&num, &cmd->value);
	}
	if (!ktau_word_is(&what, "records") ||
	    ktau_parse_number(&num, false, &cmd->value) ||
	    cmd->value < KTAU_LIMIT_RECORDS_MIN ||
	    cmd->value > KTAU_LIMIT_RECORDS_MAX)
		return -EINVAL;
	cmd->op = KTAU_CONTROL_LIMIT_RECORDS;
	return 0;
}

/*
 * trace on | trace off | trace all | trace size KIB | trace wakeup PERCENT |
 * trace pid PID...
 */
static int ktau_parse_trace(const char *buf, size_t len, size_t pos,
			    struct ktau_control_cmd *cmd)
{
	struct ktau_word what, w;
	unsigned long long v;

	if (!ktau_next_word(buf, len, &pos, &what))
		return -EINVAL;
	if (ktau_word_is(&what, "pid")) {
		cmd->op = KTAU_CONTROL_TRACE_PIDS;
		while (ktau_next_word(buf, len, &pos, &w)) {
			if (cmd->nr_pids == KTAU_CONTROL_MAX_PIDS ||
			    ktau_parse_number(&w, false, &v) || !v ||
			    v > 0x3fffffff)
				return -EINVAL;
			cmd->pids[cmd->nr_pids++] = v;
		}
		return cmd->nr_pids ? 0 : -EINVAL;
	}
	if (ktau_word_is(&what, "size")) {
		cmd->op = KTAU_CONTROL_TRACE_SIZE;
		if (!ktau_next_word(buf, len, &pos, &w) ||
		    ktau_parse_number(&w, false, &cmd->value) ||
		    cmd->value < KTAU_TRACE_KIB_MIN ||
		    cmd->value > KTAU_TRACE_KIB_MAX ||
		    (cmd->value & (cmd->value - 1)))
			return -EINVAL;
	} else if (ktau_word_is(&what, "wakeup")) {
		cmd->op = KTAU_CONTROL_TRACE_WAKEUP;
		if (!ktau_next_word(buf, len, &pos, &w) ||
		    ktau_parse_number(&w, false, &cmd->value) ||
		    cmd->value > KTAU_TRACE_WAKEUP_MAX)
			return -EINVAL;
	} else if (ktau_word_is(&what, "on")) {
		cmd->op = KTAU_CONTROL_TRACE_ON;
	} else if (ktau_word_is(&what, "off")) {
		cmd->op = KTAU_CONTROL_TRACE_OFF;
	} else if (ktau_word_is(&what, "all")) {
		cmd->op = KTAU_CONTROL_TRACE_ALL;
	} else {
		return -EINVAL;
	}
	return ktau_next_word(buf, len, &pos, &w) ? -EINVAL : 0;
}

int ktau_control_parse(const char *buf, size_t len,
		       const char *const *group_names, unsigned int nr_groups,
		       struct ktau_control_cmd *cmd)
{
	static const struct {
		const char *name;
		enum ktau_control_op op;
	} ops[] = {
		{ "start", KTAU_CONTROL_START },
		{ "stop", KTAU_CONTROL_STOP },
		{ "clear", KTAU_CONTROL_CLEAR },
		{ "startclr", KTAU_CONTROL_STARTCLR },
		{ "enable", KTAU_CONTROL_ENABLE },
		{ "disable", KTAU_CONTROL_DISABLE },
		{ "limit", KTAU_CONTROL_LIMIT_MEMORY },
		{ "trace", KTAU_CONTROL_TRACE_ON },
	};
	struct ktau_word w, extra;
	size_t i, pos = 0;

	if (!len || len > KTAU_CONTROL_MAX_LEN ||
	    nr_groups >= 8 * sizeof(unsigned long))
		return -EINVAL;
	if (buf[len - 1] == '\n')
		len--;
	for (i = 0; i < len; i++) {
		unsigned char c = buf[i];

		if (c >= 0x7f || (c < ' ' && c != '\t'))
			return -EINVAL;
	}
	if (!ktau_next_word(buf, len, &pos, &w))
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		if (ktau_word_is(&w, ops[i].name))
			break;
	}
	if (i == ARRAY_SIZE(ops))
		return -EINVAL;
	cmd->op = ops[i].op;
	cmd->groups = 0;
	cmd->value = 0;
	cmd->uid = 0;
	cmd->nr_pids = 0;
	if (cmd->op == KTAU_CONTROL_LIMIT_MEMORY)
		return ktau_parse_limit(buf, len, pos, cmd);
	if (cmd->op == KTAU_CONTROL_TRACE_ON)
		return ktau_parse_trace(buf, len, pos, cmd);
	if (cmd->op == KTAU_CONTROL_ENABLE || cmd->op == KTAU_CONTROL_DISABLE)
		return ktau_parse_groups(buf, len, pos, group_names, nr_groups,
					 &cmd->groups);
	return ktau_next_word(buf, len, &pos, &extra) ? -EINVAL : 0;
}
