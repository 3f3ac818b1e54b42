/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private to libktau: the kernel's files, under a /proc root, and their text formats. */
#ifndef KTAU_PROC_PROC_H
#define KTAU_PROC_PROC_H

#include "profile/profile.h"

/* ---- the text formats ---- */

/* The ktau-profile format's (profile_parse.c). */
KTAU_HIDDEN extern const struct ktau_parser_ops ktau__profile_parser;
/* The function map's (functions.c). */
KTAU_HIDDEN extern const struct ktau_parser_ops ktau__functions_parser;

/* A /proc tree: what ktau_proc_open() returns. */
struct ktau_proc {
	char *root;
};

/* The default root: $KTAU_PROCFS (secure_getenv) when set and not empty,
 * else "/proc". */
KTAU_PRIVATE const char *ktau__procfs_root(void);
/* <root>/ktau/profile (pid 0), <root>/PID/ktau (tid 0) or
 * <root>/PID/task/TID/ktau; NULL with errno mapped by ktau__proc_errno()
 * and err filled (naming the file). */
KTAU_HIDDEN char *ktau__proc_read_task(const char *root, pid_t pid, pid_t tid,
				       size_t *len, struct ktau_parse_error *err);
/* ktau__proc_read_task() parsed. */
KTAU_HIDDEN struct ktau_profile *ktau__proc_profile(const char *root, pid_t pid, pid_t tid,
						    struct ktau_parse_error *err);
/* <root>/<rel>, errors mapped like the profile files' */
KTAU_HIDDEN char *ktau__proc_read_file(const char *root, const char *rel, size_t *len,
				       struct ktau_parse_error *err);
/* <root>/<rel> parsed by ops (proc may be NULL: EINVAL). */
KTAU_HIDDEN void *ktau__proc_parse_file(struct ktau_proc *proc, const char *rel,
					const struct ktau_parser_ops *ops,
					struct ktau_parse_error *err);
/* The live thread ids of a process, sorted; *tids malloc()ed. 0 or -errno
 * (ESRCH, ENODEV, EACCES, ENOMEM). */
KTAU_HIDDEN int ktau__list_tids(const char *root, pid_t pid, pid_t **tids,
				size_t *count);
/* <root>/<rel> into path: 0 or -ENAMETOOLONG. */
KTAU_HIDDEN int ktau__proc_path(const char *root, char *path, size_t size,
				const char *rel);
/* Turns an errno from opening/reading a <root>/... ktau file into ours. */
KTAU_HIDDEN int ktau__proc_errno(const char *root, int error, pid_t pid, pid_t tid);
/* Each live thread of pid as one system-scope profile (threads.c). */
KTAU_HIDDEN struct ktau_profile *ktau__read_threads(const char *root, pid_t pid,
						    struct ktau_parse_error *err);

/* ---- the shared counter area (counters.c) ---- */

/*
 * The layout of the kernel's struct ktau_counters (<linux/ktau.h>, which
 * need not be installed where libktau builds); the unit tests compare it
 * with kernel-ext/include/uapi/linux/ktau.h.
 */
#define KTAU__COUNTERS_VERSION 1
struct ktau__counter_value {
	uint64_t calls;
	uint64_t incl;
	uint64_t excl;
};
struct ktau__counter_area {
	uint32_t version;
	uint32_t nr;
	uint32_t ids[KTAU_COUNTERS_MAX];
	uint64_t seq;
	struct ktau__counter_value val[KTAU_COUNTERS_MAX];
};
#define KTAU__COUNTER_AREA_SIZE(nr) \
	(offsetof(struct ktau__counter_area, val) + (nr) * sizeof(struct ktau__counter_value))
/* The allocation's alignment: the kernel needs 8, a cache line keeps it
 * from sharing one with other threads' data. */
#define KTAU__COUNTER_AREA_ALIGN 64

/* How the area reaches the kernel, replaceable by tests:
 * prctl(option, arg2, arg3, 0, 0), -1 with errno on failure. NULL restores
 * the real prctl. */
typedef int (*ktau_counters_prctl_fn)(int option, unsigned long arg2, unsigned long arg3);
KTAU_HIDDEN void ktau__counters_prctl_hook(ktau_counters_prctl_fn fn);

#endif /* KTAU_PROC_PROC_H */
