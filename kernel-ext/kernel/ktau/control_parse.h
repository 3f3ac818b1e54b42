/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parser of /proc/ktau/control commands.  It depends on nothing but the
 * C library's subset the kernel also has, so the same file is compiled
 * into host unit tests and a fuzzer.
 */
#ifndef _KERNEL_KTAU_CONTROL_PARSE_H
#define _KERNEL_KTAU_CONTROL_PARSE_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#endif

/* Longest command accepted, trailing newline included. */
#define KTAU_CONTROL_MAX_LEN	256

enum ktau_control_op {
	KTAU_CONTROL_START,
	KTAU_CONTROL_STOP,
	KTAU_CONTROL_CLEAR,
	KTAU_CONTROL_STARTCLR,
	KTAU_CONTROL_ENABLE,
	KTAU_CONTROL_DISABLE,
	KTAU_CONTROL_LIMIT_MEMORY,
	KTAU_CONTROL_LIMIT_RECORDS,
	KTAU_CONTROL_LIMIT_USER_MEMORY,	/* every user's limit */
	KTAU_CONTROL_LIMIT_USER,	/* one user's: value, 0 for the default */
	KTAU_CONTROL_TRACE_ON,
	KTAU_CONTROL_TRACE_OFF,
	KTAU_CONTROL_TRACE_SIZE,
	KTAU_CONTROL_TRACE_ALL,
	KTAU_CONTROL_TRACE_PIDS,
	KTAU_CONTROL_TRACE_WAKEUP,
};

/* What the limit commands accept. */
#define KTAU_LIMIT_MEMORY_MIN	(1024ULL * 1024)
#define KTAU_LIMIT_MEMORY_MAX	(1024ULL * 1024 * 1024 * 1024 * 1024)
#define KTAU_LIMIT_RECORDS_MIN	24
#define KTAU_LIMIT_RECORDS_MAX	65000
/* limit user UID ...: a uid_t, but (uid_t)-1, which names no user */
#define KTAU_LIMIT_UID_MAX	4294967294ULL

/* trace size KIB: per CPU, a power of two */
#define KTAU_TRACE_KIB_MIN	16
#define KTAU_TRACE_KIB_MAX	262144
#define KTAU_TRACE_KIB_DEFAULT	1024

/*
 * trace wakeup PERCENT: how full a CPU's buffer is when a reader waiting
 * in poll() is woken (0: at its first event)
 */
#define KTAU_TRACE_WAKEUP_MAX		100
#define KTAU_TRACE_WAKEUP_DEFAULT	50

/* trace pid PID...: at most this many at once */
#define KTAU_CONTROL_MAX_PIDS	16

struct ktau_control_cmd {
	enum ktau_control_op op;
	unsigned long groups;	/* enable/disable: a bit per group */
	unsigned long long value;	/* limit: bytes or records; trace size, wakeup */
	unsigned int uid;		/* limit user UID */
	unsigned int nr_pids;	/* trace pid */
	int pids[KTAU_CONTROL_MAX_PIDS];
};

int ktau_control_parse(const char *buf, size_t len,
		       const char *const *group_names, unsigned int nr_groups,
		       struct ktau_control_cmd *cmd);

#endif /* _KERNEL_KTAU_CONTROL_PARSE_H */
