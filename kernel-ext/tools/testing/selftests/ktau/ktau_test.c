// SPDX-License-Identifier: GPL-2.0
/*
 * KTAU selftests: what a user of /proc/<pid>/ktau, /proc/ktau/control and
 * prctl(PR_KTAU_SET_CONTEXT) relies on (Documentation/ABI/testing/
 * procfs-ktau, Documentation/admin-guide/ktau.rst).
 *
 *   counts   N getpid() calls are exactly N more calls of getpid in the
 *            caller's process and thread profiles, read back by the
 *            parser below;
 *   perm     a process dropped to uid 65534 may not read root's profile
 *            (EACCES), may read its own, and sees only its own processes
 *            in /proc/ktau/profile;
 *   control  the control file refuses an unprivileged writer (EACCES at
 *            open) and a root writer without CAP_SYS_ADMIN (EPERM), and
 *            a malformed command fails with EINVAL and changes nothing;
 *   context  the user context word registers and unregisters with the
 *            documented errors, and keys the calls made under it;
 *   counters the shared counter area registers and unregisters with the
 *            documented errors, and holds the calls the profile has.
 *
 * The perm and control tests need root (they drop privileges in a child
 * process); every test skips on a kernel without CONFIG_KTAU.  Run as
 * root, the counts and context tests start recording of the syscall
 * group if it is off, and restore it afterwards.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/ktau.h>

#include "../kselftest_harness.h"

#ifndef PR_KTAU_SET_CONTEXT
#define PR_KTAU_SET_CONTEXT	0x4b544155
#define PR_KTAU_GET_CONTEXT	0x4b544156
#endif
#ifndef PR_KTAU_SET_COUNTERS
#define PR_KTAU_SET_COUNTERS	0x4b544157
#define PR_KTAU_GET_COUNTERS	0x4b544158
#endif

#define KTAU_CONTROL		"/proc/ktau/control"
#define KTAU_FUNCTIONS		"/proc/ktau/functions"
#define KTAU_PROFILE		"/proc/ktau/profile"
#define NOBODY			65534
#define NR_CALLS		1000
#define MAX_WORDS		32
#define WHY_LEN			512
#define KERNEL_ADDRESS		0xffffffff81000000UL

/* Why a test skips */
#define NO_KTAU		"no /proc/ktau/functions: the kernel has no CONFIG_KTAU"
#define NOT_ROOT	"needs root, to drop privileges in a child"
#define NOT_RECORDED	\
	"no call recorded: recording or the syscall group is off (run as root to switch it on)"

/* ---- reading files ------------------------------------------------------ */

/* The whole file, NUL-terminated (free() it), or NULL with errno set. */
static char *read_file(const char *path)
{
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap + 1), *bigger;
	int fd, err;
	ssize_t n;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	for (;;) {
		if (len == cap) {
			bigger = realloc(buf, 2 * cap + 1);
			if (!bigger)
				goto fail_close;
			buf = bigger;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0)
			goto fail_close;
		if (!n)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	return buf;

fail_close:
	err = errno;
	close(fd);
	errno = err;
fail:
	err = errno;
	free(buf);
	errno = err;
	return NULL;
}

/* ---- the profile parser --------------------------------------------------- */

/*
 * A profile's lines, split into words, are handed to a callback once the
 * whole text is known to be a complete profile of format version 2: the
 * header line first, "end" last, no empty or overlong line.
 */
typedef int (*line_fn)(char **word, int nr, void *arg, char *why, size_t len);

static int profile_scan(const char *text, line_fn fn, void *arg,
			char *why, size_t len)
{
	char *copy, *line, *next, *word[MAX_WORDS], *save;
	int lineno = 0, nr, ret = -1;
	bool end = false;

	copy = strdup(text);
	if (!copy) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	for (line = copy; *line; line = next) {
		next = strchr(line, '\n');
		if (!next) {
			snprintf(why, len, "line %d does not end with a newline",
				 lineno + 1);
			goto out;
		}
		*next++ = '\0';
		lineno++;
		if (end) {
			snprintf(why, len, "line %d follows \"end\"", lineno);
			goto out;
		}
		if (lineno == 1 && strcmp(line, "ktau-profile 2")) {
			snprintf(why, len, "first line \"%.64s\", expected \"ktau-profile 2\"",
				 line);
			goto out;
		}
		if (strlen(line) >= 4096) {
			snprintf(why, len, "line %d is %zu bytes long", lineno,
				 strlen(line));
			goto out;
		}
		nr = 0;
		for (word[0] = strtok_r(line, " ", &save); word[nr] && nr < MAX_WORDS - 1;
		     word[nr] = strtok_r(NULL, " ", &save))
			nr++;
		if (!nr) {
			snprintf(why, len, "line %d is empty", lineno);
			goto out;
		}
		if (nr == 1 && !strcmp(word[0], "end"))
			end = true;
		else if (fn(word, nr, arg, why, len))
			goto out;
	}
	if (!end) {
		snprintf(why, len, "no \"end\" line after %d lines: the file is truncated",
			 lineno);
		goto out;
	}
	ret = 0;
out:
	free(copy);
	return ret;
}

/* A decimal number that is the whole word. */
static int parse_u64(const char *s, unsigned long long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

/* The value of "key=value" among a task line's words, or NULL. */
static const char *task_field(char **word, int nr, const char *key)
{
	size_t klen = strlen(key);
	int i;

	for (i = 1; i < nr; i++) {
		if (!strncmp(word[i], key, klen) && word[i][klen] == '=')
			return word[i] + klen + 1;
	}
	return NULL;
}

/* The calls of one routine in one block: see profile_calls(). */
struct calls_query {
	const char *kind;
	unsigned long long pid;
	const char *name;
	long long ctx;			/* -1: every context */
	int ctx_col, name_col, calls_col, nr_cols;
	bool in_block, found;
	unsigned long long calls;
};

static int calls_line(char **word, int nr, void *arg, char *why, size_t len)
{
	struct calls_query *q = arg;
	unsigned long long pid, ctx, calls;
	const char *kind, *p;
	int i;

	if (!strcmp(word[0], "columns") && nr > 1 && !strcmp(word[1], "func")) {
		for (i = 2; i < nr; i++) {
			if (!strcmp(word[i], "ctx"))
				q->ctx_col = i - 1;
			else if (!strcmp(word[i], "name"))
				q->name_col = i - 1;
			else if (!strcmp(word[i], "calls"))
				q->calls_col = i - 1;
		}
		q->nr_cols = nr - 1;
		return 0;
	}
	if (!strcmp(word[0], "task")) {
		kind = task_field(word, nr, "kind");
		p = task_field(word, nr, "pid");
		if (!kind || !p || parse_u64(p, &pid)) {
			snprintf(why, len, "a task line without kind= or pid=");
			return -1;
		}
		q->in_block = !q->found && !strcmp(kind, q->kind) &&
			      pid == q->pid;
		q->found |= q->in_block;
		return 0;
	}
	if (strcmp(word[0], "func") || !q->in_block)
		return 0;
	if (q->ctx_col < 0 || q->name_col < 0 || q->calls_col < 0) {
		snprintf(why, len,
			 "a func line before a \"columns func\" line naming ctx, name and calls");
		return -1;
	}
	if (nr < q->nr_cols || parse_u64(word[q->ctx_col], &ctx) ||
	    parse_u64(word[q->calls_col], &calls)) {
		snprintf(why, len, "a malformed func line of %d words", nr);
		return -1;
	}
	if (!strcmp(word[q->name_col], q->name) &&
	    (q->ctx < 0 || ctx == (unsigned long long)q->ctx))
		q->calls += calls;
	return 0;
}

/*
 * The calls of routine @name (under context @ctx, or every context if
 * @ctx is -1) in the first block of kind @kind and process @pid of the
 * profile in @path.  0, or -1 with @why set.
 */
static int profile_calls(const char *path, const char *kind, pid_t pid,
			 const char *name, long long ctx,
			 unsigned long long *calls, char *why, size_t len)
{
	struct calls_query q = {
		.kind = kind, .pid = pid, .name = name, .ctx = ctx,
		.ctx_col = -1, .name_col = -1, .calls_col = -1,
	};
	char *text = read_file(path);
	int ret;

	if (!text) {
		snprintf(why, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	ret = profile_scan(text, calls_line, &q, why, len);
	free(text);
	if (!ret && !q.found) {
		snprintf(why, len, "%s: no block kind=%s pid=%d", path, kind,
			 (int)pid);
		ret = -1;
	}
	*calls = q.calls;
	return ret;
}

/*
 * The blocks of a system profile: of the reader's own process, and of
 * processes of other users (their /proc/<pid> not the reader's).
 */
struct pids_query {
	unsigned long long own;
	int own_threads, foreign;
	unsigned long long foreign_pid;
	uid_t foreign_uid;
};

static int own_blocks_line(char **word, int nr, void *arg, char *why,
			   size_t len)
{
	struct pids_query *q = arg;
	unsigned long long pid;
	const char *kind, *p;
	char dir[32];
	struct stat st;

	if (strcmp(word[0], "task"))
		return 0;
	kind = task_field(word, nr, "kind");
	p = task_field(word, nr, "pid");
	if (!kind || !p || parse_u64(p, &pid)) {
		snprintf(why, len, "a task line without kind= or pid=");
		return -1;
	}
	if (pid == q->own) {
		q->own_threads += !strcmp(kind, "thread");
		return 0;
	}
	/* a process that is gone since cannot say whose it was */
	snprintf(dir, sizeof(dir), "/proc/%llu", pid);
	if (!stat(dir, &st) && st.st_uid != getuid()) {
		q->foreign++;
		q->foreign_pid = pid;
		q->foreign_uid = st.st_uid;
	}
	return 0;
}

/* ---- the control file ------------------------------------------------------ */

/* One command in one write(): 0, or the errno (EIO for a short write). */
static int control_write(const char *cmd)
{
	size_t len = strlen(cmd);
	int fd, err = 0;
	ssize_t n;

	fd = open(KTAU_CONTROL, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	n = write(fd, cmd, len);
	if (n < 0)
		err = errno;
	else if ((size_t)n != len)
		err = EIO;
	close(fd);
	return err;
}

/* The control lines that show a state a command sets. */
static bool state_key(const char *key)
{
	return !strcmp(key, "state") || !strcmp(key, "groups") ||
	       !strcmp(key, "records_limit") || !strcmp(key, "memory") ||
	       !strcmp(key, "user_memory") || !strcmp(key, "trace");
}

/* Whether a word of control line @key is part of that state. */
static bool state_word(const char *key, const char *w)
{
	if (!strcmp(key, "memory") || !strcmp(key, "user_memory"))
		return !strncmp(w, "limit=", 6);
	if (!strcmp(key, "trace"))
		return strncmp(w, "lost=", 5);
	return true;
}

/*
 * What the control file says of the state a command may set (recording,
 * groups, limits, trace mode), as one string, or NULL with errno set.
 */
static char *control_state(void)
{
	char *text = read_file(KTAU_CONTROL), *state, *line, *w, *s1, *s2;
	size_t len = 0;

	if (!text)
		return NULL;
	state = calloc(1, strlen(text) + 1);
	if (!state) {
		free(text);
		return NULL;
	}
	for (line = strtok_r(text, "\n", &s1); line;
	     line = strtok_r(NULL, "\n", &s1)) {
		const char *key = strtok_r(line, " ", &s2);

		if (!key || !state_key(key))
			continue;
		len += sprintf(state + len, "%s", key);
		while ((w = strtok_r(NULL, " ", &s2)))
			if (state_word(key, w))
				len += sprintf(state + len, " %s", w);
		len += sprintf(state + len, ";");
	}
	free(text);
	return state;
}

/* Whether line @key of the control file has the word @word. */
static bool control_has(const char *key, const char *word)
{
	char *text = read_file(KTAU_CONTROL), *line, *s1, *s2, *w;
	bool found = false;

	if (!text)
		return false;
	for (line = strtok_r(text, "\n", &s1); line && !found;
	     line = strtok_r(NULL, "\n", &s1)) {
		w = strtok_r(line, " ", &s2);
		if (!w || strcmp(w, key))
			continue;
		while (!found && (w = strtok_r(NULL, " ", &s2)))
			found = !strcmp(w, word);
	}
	free(text);
	return found;
}

/* What a test's setup switched on, to switch off after it. */
struct recording {
	bool started, enabled;
};

/*
 * As root, make the syscall group record for a test, noting in @rec what
 * was changed.  0, or the errno of the write.
 */
static int syscalls_recording(struct recording *rec)
{
	int err;

	rec->started = false;
	rec->enabled = false;
	if (geteuid())
		return 0;
	if (!control_has("groups", "syscall")) {
		err = control_write("enable syscall");
		if (err)
			return err;
		rec->enabled = true;
	}
	if (!control_has("state", "running")) {
		err = control_write("start");
		if (err)
			return err;
		rec->started = true;
	}
	return 0;
}

static void restore_recording(const struct recording *rec)
{
	if (rec->started)
		control_write("stop");
	if (rec->enabled)
		control_write("disable syscall");
}

/* ---- unprivileged children ------------------------------------------------- */

enum drop {
	AS_NOBODY,		/* uid and gid 65534, no groups */
	AS_ROOT_WITHOUT_SYS_ADMIN,	/* uid 0 without CAP_SYS_ADMIN */
};

static int drop_privileges(enum drop how, char *why, size_t len)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct cap[_LINUX_CAPABILITY_U32S_3];
	const unsigned int i = CAP_TO_INDEX(CAP_SYS_ADMIN);
	const __u32 bit = CAP_TO_MASK(CAP_SYS_ADMIN);

	if (how == AS_NOBODY) {
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY)) {
			snprintf(why, len, "dropping to uid %d: %s", NOBODY,
				 strerror(errno));
			return -1;
		}
		/* as a program exec'ed by that user is: its files are its own */
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
		return 0;
	}
	if (syscall(SYS_capget, &hdr, cap)) {
		snprintf(why, len, "capget: %s", strerror(errno));
		return -1;
	}
	cap[i].effective &= ~bit;
	cap[i].permitted &= ~bit;
	cap[i].inheritable &= ~bit;
	if (syscall(SYS_capset, &hdr, cap) || syscall(SYS_capget, &hdr, cap) ||
	    (cap[i].effective & bit)) {
		snprintf(why, len, "dropping CAP_SYS_ADMIN: %s", strerror(errno));
		return -1;
	}
	return 0;
}

typedef int (*child_fn)(const void *arg, char *why, size_t len);

/*
 * Run @fn in a child that dropped privileges as @how says.  0 when @fn
 * returned 0, else -1 with @why set (by @fn, or saying how it ended).
 */
static int run_dropped(enum drop how, child_fn fn, const void *arg,
		       char *why, size_t len)
{
	size_t got = 0;
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe(fds)) {
		snprintf(why, len, "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		snprintf(why, len, "fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (!pid) {
		char msg[WHY_LEN] = "";
		int ret;

		close(fds[0]);
		ret = drop_privileges(how, msg, sizeof(msg));
		if (!ret)
			ret = fn(arg, msg, sizeof(msg));
		if (ret && write(fds[1], msg, strlen(msg)) < 0)
			_exit(2);
		_exit(ret ? 1 : 0);
	}
	close(fds[1]);
	while (got < len - 1 &&
	       (n = read(fds[0], why + got, len - 1 - got)) > 0)
		got += n;
	why[got] = '\0';
	close(fds[0]);
	if (waitpid(pid, &status, 0) != pid) {
		snprintf(why, len, "waitpid: %s", strerror(errno));
		return -1;
	}
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	if (!got && WIFSIGNALED(status))
		snprintf(why, len, "the child was killed by signal %d",
			 WTERMSIG(status));
	else if (!got)
		snprintf(why, len, "the child exited with status %d",
			 WEXITSTATUS(status));
	return -1;
}

/* Opening @path and reading it fails with @err, at either step. */
static int refused(const char *path, int err, char *why, size_t len)
{
	char buf[256];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == err)
			return 0;
		snprintf(why, len, "open(%s) as uid %d: %s, expected %s", path,
			 (int)getuid(), strerror(errno), strerror(err));
		return -1;
	}
	n = read(fd, buf, sizeof(buf));
	if (n < 0 && errno == err) {
		close(fd);
		return 0;
	}
	if (n < 0)
		snprintf(why, len, "read(%s) as uid %d: %s, expected %s", path,
			 (int)getuid(), strerror(errno), strerror(err));
	else
		snprintf(why, len, "uid %d read %zd bytes of %s, expected %s",
			 (int)getuid(), n, path, strerror(err));
	close(fd);
	return -1;
}

/* ---- counts ------------------------------------------------------------ */

/* The setup of the tests that count calls: KTAU, recording system calls. */
static void recording_setup(struct __test_metadata *_metadata,
			    struct recording *rec)
{
	int err;

	if (access(KTAU_FUNCTIONS, R_OK))
		SKIP(return, NO_KTAU);
	err = syscalls_recording(rec);
	ASSERT_EQ(0, err)
		TH_LOG("switching the syscall group on: %s", strerror(err));
}

FIXTURE(counts) {
	struct recording rec;
};

FIXTURE_SETUP(counts)
{
	recording_setup(_metadata, &self->rec);
}

FIXTURE_TEARDOWN(counts)
{
	restore_recording(&self->rec);
}

/* N getpid() calls show as N more calls in @kind's block of @path. */
static void count_getpids(struct __test_metadata *_metadata,
			  const char *path, const char *kind)
{
	unsigned long long before, after;
	pid_t pid = getpid();
	char why[WHY_LEN];
	int i;

	ASSERT_EQ(0, profile_calls(path, kind, pid, "getpid", -1, &before,
				   why, sizeof(why)))
		TH_LOG("%s", why);
	for (i = 0; i < NR_CALLS; i++)
		syscall(SYS_getpid);
	ASSERT_EQ(0, profile_calls(path, kind, pid, "getpid", -1, &after,
				   why, sizeof(why)))
		TH_LOG("%s", why);
	if (after == before && geteuid())
		SKIP(return, NOT_RECORDED);
	EXPECT_EQ(before + NR_CALLS, after)
		TH_LOG("%s: getpid calls %llu before and %llu after %d calls",
		       path, before, after, NR_CALLS);
}

TEST_F(counts, process)
{
	count_getpids(_metadata, "/proc/self/ktau", "process");
}

TEST_F(counts, thread)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%ld/ktau",
		 (long)syscall(SYS_gettid));
	count_getpids(_metadata, path, "thread");
}

/* ---- perm ---------------------------------------------------------------- */

FIXTURE(perm) {
	pid_t root_pid;
};

FIXTURE_SETUP(perm)
{
	if (access(KTAU_FUNCTIONS, R_OK))
		SKIP(return, NO_KTAU);
	if (geteuid())
		SKIP(return, NOT_ROOT);
	self->root_pid = getpid();
}

FIXTURE_TEARDOWN(perm)
{
}

static int others_refused(const void *arg, char *why, size_t len)
{
	pid_t root_pid = *(const pid_t *)arg;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/ktau", (int)root_pid);
	if (refused(path, EACCES, why, len))
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/ktau", (int)root_pid,
		 (int)root_pid);
	if (refused(path, EACCES, why, len))
		return -1;
	return refused("/proc/1/ktau", EACCES, why, len);
}

TEST_F(perm, other_user_refused)
{
	char why[WHY_LEN];

	EXPECT_EQ(0, run_dropped(AS_NOBODY, others_refused, &self->root_pid,
				 why, sizeof(why)))
		TH_LOG("%s", why);
}

static int own_readable(const void *arg, char *why, size_t len)
{
	unsigned long long calls;
	char path[64];

	if (profile_calls("/proc/self/ktau", "process", getpid(), "getpid",
			  -1, &calls, why, len))
		return -1;
	snprintf(path, sizeof(path), "/proc/self/task/%ld/ktau",
		 (long)syscall(SYS_gettid));
	return profile_calls(path, "thread", getpid(), "getpid", -1, &calls,
			     why, len);
}

TEST_F(perm, own_profile_readable)
{
	char why[WHY_LEN];

	EXPECT_EQ(0, run_dropped(AS_NOBODY, own_readable, NULL, why,
				 sizeof(why)))
		TH_LOG("%s", why);
}

static int system_own_only(const void *arg, char *why, size_t len)
{
	struct pids_query q = { .own = getpid() };
	char *text = read_file(KTAU_PROFILE);
	int ret;

	if (!text) {
		snprintf(why, len, "%s: %s", KTAU_PROFILE, strerror(errno));
		return -1;
	}
	ret = profile_scan(text, own_blocks_line, &q, why, len);
	free(text);
	if (ret)
		return -1;
	if (q.foreign || q.own_threads != 1) {
		snprintf(why, len,
			 "%s as uid %d: %d thread blocks of its own pid %llu (expected 1), %d blocks of other users' processes (expected 0; e.g. pid %llu of uid %d)",
			 KTAU_PROFILE, (int)getuid(), q.own_threads, q.own,
			 q.foreign, q.foreign_pid, (int)q.foreign_uid);
		return -1;
	}
	return 0;
}

TEST_F(perm, system_profile_own_only)
{
	char why[WHY_LEN];

	EXPECT_EQ(0, run_dropped(AS_NOBODY, system_own_only, NULL, why,
				 sizeof(why)))
		TH_LOG("%s", why);
}

/* ---- control ------------------------------------------------------------- */

FIXTURE(control) {
	char *state;
};

FIXTURE_SETUP(control)
{
	if (access(KTAU_FUNCTIONS, R_OK))
		SKIP(return, NO_KTAU);
	if (geteuid())
		SKIP(return, NOT_ROOT);
	self->state = control_state();
	ASSERT_NE(NULL, self->state)
		TH_LOG("reading %s: %s", KTAU_CONTROL, strerror(errno));
}

FIXTURE_TEARDOWN(control)
{
	free(self->state);
}

static int control_refused(const void *arg, char *why, size_t len)
{
	int fd = open(KTAU_CONTROL, O_WRONLY | O_CLOEXEC);

	if (fd >= 0) {
		/* harmless if it were taken: not a command */
		ssize_t n = write(fd, "frobnicate", 10);

		snprintf(why, len, "uid %d opened %s for writing (write: %zd)",
			 (int)getuid(), KTAU_CONTROL, n);
		close(fd);
		return -1;
	}
	if (errno != EACCES) {
		snprintf(why, len, "open(%s, O_WRONLY) as uid %d: %s, expected EACCES",
			 KTAU_CONTROL, (int)getuid(), strerror(errno));
		return -1;
	}
	return refused(KTAU_CONTROL, EACCES, why, len);
}

TEST_F(control, nonroot_refused)
{
	char why[WHY_LEN];

	EXPECT_EQ(0, run_dropped(AS_NOBODY, control_refused, NULL, why,
				 sizeof(why)))
		TH_LOG("%s", why);
}

static int sys_admin_needed(const void *arg, char *why, size_t len)
{
	int err = control_write("frobnicate");

	if (err == EPERM)
		return 0;
	snprintf(why, len, "a write to %s without CAP_SYS_ADMIN: %s, expected EPERM",
		 KTAU_CONTROL, err ? strerror(err) : "taken");
	return -1;
}

TEST_F(control, no_cap_sys_admin_refused)
{
	char why[WHY_LEN];

	EXPECT_EQ(0, run_dropped(AS_ROOT_WITHOUT_SYS_ADMIN, sys_admin_needed,
				 NULL, why, sizeof(why)))
		TH_LOG("%s", why);
}

/* @cmd fails with EINVAL, and the state is what it was. */
static void refused_einval(struct __test_metadata *_metadata,
			   const char *before, const char *cmd)
{
	char *after;
	int err;

	err = control_write(cmd);
	EXPECT_EQ(EINVAL, err)
		TH_LOG("\"%s\": %s, expected EINVAL", cmd,
		       err ? strerror(err) : "taken");
	after = control_state();
	ASSERT_NE(NULL, after)
		TH_LOG("reading %s: %s", KTAU_CONTROL, strerror(errno));
	EXPECT_STREQ(before, after)
		TH_LOG("\"%s\" changed the state", cmd);
	free(after);
}

TEST_F(control, unknown_command)
{
	refused_einval(_metadata, self->state, "frobnicate\n");
}

TEST_F(control, malformed_commands)
{
	static const char * const cmds[] = {
		"start now",			/* a word too many */
		"start\n\n",			/* a second newline */
		"enable",			/* no group */
		"enable nosuchgroup",
		"limit records 1",		/* below 24 */
		"limit memory 1K",		/* below 1 MiB */
		"limit user 4294967295 64M",	/* names no user */
		"trace size 1000",		/* not a power of two */
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		refused_einval(_metadata, self->state, cmds[i]);
}

/* ---- context ------------------------------------------------------------- */

/* the kernel reads it: its address is passed to prctl() */
static uint32_t context_word[2];

/* prctl(), returning 0 or the errno. */
static int ktau_prctl(int option, unsigned long arg2, unsigned long arg3,
		      unsigned long arg4, unsigned long arg5)
{
	return prctl(option, arg2, arg3, arg4, arg5) ? errno : 0;
}

static int set_context(unsigned long addr, unsigned long flags)
{
	return ktau_prctl(PR_KTAU_SET_CONTEXT, addr, flags, 0, 0);
}

/* The registered word's address, or -1 with errno set. */
static long long get_context(void)
{
	uint64_t addr = ~0ULL;

	if (prctl(PR_KTAU_GET_CONTEXT, (unsigned long)&addr, 0UL, 0UL, 0UL))
		return -1;
	return addr;
}

FIXTURE(context) {
	struct recording rec;
};

FIXTURE_SETUP(context)
{
	recording_setup(_metadata, &self->rec);
}

FIXTURE_TEARDOWN(context)
{
	restore_recording(&self->rec);
}

TEST_F(context, register_unregister)
{
	unsigned long word = (unsigned long)&context_word[0];

	ASSERT_EQ(0, get_context()) TH_LOG("a word registered at the start");
	ASSERT_EQ(0, set_context(word, 0));
	EXPECT_EQ((long long)word, get_context());
	EXPECT_EQ(EBUSY, set_context((unsigned long)&context_word[1], 0));
	EXPECT_EQ((long long)word, get_context());
	EXPECT_EQ(0, set_context(0, 0));
	EXPECT_EQ(0, get_context());
	EXPECT_EQ(ENOENT, set_context(0, 0));
}

TEST_F(context, bad_arguments)
{
	unsigned long word = (unsigned long)&context_word[0];

	EXPECT_EQ(EINVAL, set_context(word + 1, 0));	/* misaligned */
	EXPECT_EQ(EINVAL, set_context(word, 1));	/* a flag */
	EXPECT_EQ(EINVAL, ktau_prctl(PR_KTAU_SET_CONTEXT, word, 0, 1, 0));
	EXPECT_EQ(EINVAL, ktau_prctl(PR_KTAU_SET_CONTEXT, word, 0, 0, 1));
	EXPECT_EQ(EINVAL, ktau_prctl(PR_KTAU_GET_CONTEXT, word, 1, 0, 0));
	/* not user addresses */
	EXPECT_EQ(EFAULT, set_context(KERNEL_ADDRESS, 0));
	EXPECT_EQ(EFAULT, ktau_prctl(PR_KTAU_GET_CONTEXT, KERNEL_ADDRESS, 0,
				     0, 0));
	EXPECT_EQ(0, get_context()) TH_LOG("a refused call registered a word");
}

TEST_F(context, keys_calls)
{
	const uint32_t ctx = 0x4b54;
	unsigned long long before, after, before0, after0;
	char path[64], why[WHY_LEN];
	pid_t pid = getpid();
	int i;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/ktau",
		 (long)syscall(SYS_gettid));
	context_word[0] = ctx;
	ASSERT_EQ(0, set_context((unsigned long)&context_word[0], 0));
	ASSERT_EQ(0, profile_calls(path, "thread", pid, "getpid", 0, &before0,
				   why, sizeof(why)))
		TH_LOG("%s", why);
	ASSERT_EQ(0, profile_calls(path, "thread", pid, "getpid", ctx,
				   &before, why, sizeof(why)))
		TH_LOG("%s", why);
	for (i = 0; i < NR_CALLS; i++)
		syscall(SYS_getpid);
	ASSERT_EQ(0, profile_calls(path, "thread", pid, "getpid", ctx, &after,
				   why, sizeof(why)))
		TH_LOG("%s", why);
	ASSERT_EQ(0, profile_calls(path, "thread", pid, "getpid", 0, &after0,
				   why, sizeof(why)))
		TH_LOG("%s", why);
	EXPECT_EQ(0, set_context(0, 0));
	if (after == before && after0 == before0 && geteuid())
		SKIP(return, NOT_RECORDED);
	EXPECT_EQ(before + NR_CALLS, after)
		TH_LOG("getpid calls under ctx %u: %llu before, %llu after %d calls",
		       ctx, before, after, NR_CALLS);
	EXPECT_EQ(before0, after0)
		TH_LOG("getpid calls under ctx 0 went from %llu to %llu",
		       before0, after0);
}

static struct ktau_counters counter_area;	/* u64 members: 8-byte aligned */

static int set_counters(void *area, unsigned long len)
{
	return ktau_prctl(PR_KTAU_SET_COUNTERS, (unsigned long)area, len, 0, 0);
}

/* The registered area's address, or -1 with errno set. */
static long long get_counters(void)
{
	uint64_t addr = ~0ULL;

	if (prctl(PR_KTAU_GET_COUNTERS, (unsigned long)&addr, 0UL, 0UL, 0UL))
		return -1;
	return addr;
}

FIXTURE(counters) {
	struct recording rec;
};

FIXTURE_SETUP(counters)
{
	recording_setup(_metadata, &self->rec);
	memset(&counter_area, 0, sizeof(counter_area));
	counter_area.version = KTAU_COUNTERS_VERSION;
	counter_area.nr = 1;
	counter_area.ids[0] = SYS_getpid;	/* a 64-bit call's id */
}

FIXTURE_TEARDOWN(counters)
{
	restore_recording(&self->rec);
}

TEST_F(counters, register_unregister)
{
	ASSERT_EQ(0, get_counters()) TH_LOG("an area registered at the start");
	ASSERT_EQ(0, set_counters(&counter_area, sizeof(counter_area)));
	EXPECT_EQ((long long)(unsigned long)&counter_area, get_counters());
	EXPECT_LE(1ULL, counter_area.seq) TH_LOG("not written at registration");
	EXPECT_EQ(EBUSY, set_counters(&counter_area, sizeof(counter_area)));
	EXPECT_EQ(0, set_counters(NULL, 0));
	EXPECT_EQ(0, get_counters());
	EXPECT_EQ(ENOENT, set_counters(NULL, 0));
}

TEST_F(counters, bad_arguments)
{
	char *area = (char *)&counter_area;

	EXPECT_EQ(EINVAL, set_counters(area + 4, sizeof(counter_area) - 8));
	EXPECT_EQ(EINVAL, set_counters(area, KTAU_COUNTERS_SIZE(1) - 1));
	EXPECT_EQ(EINVAL, ktau_prctl(PR_KTAU_SET_COUNTERS, (unsigned long)area,
				     sizeof(counter_area), 1, 0));
	EXPECT_EQ(EINVAL, ktau_prctl(PR_KTAU_SET_COUNTERS, (unsigned long)area,
				     sizeof(counter_area), 0, 1));
	counter_area.nr = KTAU_COUNTERS_MAX + 1;
	EXPECT_EQ(EINVAL, set_counters(area, sizeof(counter_area)));
	counter_area.nr = 1;
	counter_area.version = KTAU_COUNTERS_VERSION + 1;
	EXPECT_EQ(EINVAL, set_counters(area, sizeof(counter_area)));
	counter_area.version = KTAU_COUNTERS_VERSION;
	counter_area.ids[0] = KTAU_COUNTER_GROUP | 0xffff;
	EXPECT_EQ(ENOENT, set_counters(area, sizeof(counter_area)));
	EXPECT_EQ(EFAULT, set_counters((void *)KERNEL_ADDRESS,
				       sizeof(counter_area)));
	EXPECT_EQ(0, get_counters()) TH_LOG("a refused call registered an area");
}

TEST_F(counters, holds_calls)
{
	unsigned long long calls;
	char path[64], why[WHY_LEN];
	pid_t pid = getpid();	/* not between the area's read and the profile's */
	uint64_t area_calls;
	int i;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/ktau",
		 (long)syscall(SYS_gettid));
	ASSERT_EQ(0, set_counters(&counter_area, sizeof(counter_area)));
	for (i = 0; i < NR_CALLS; i++)
		syscall(SYS_getpid);
	area_calls = counter_area.val[0].calls;
	ASSERT_EQ(0, profile_calls(path, "thread", pid, "getpid", 0,
				   &calls, why, sizeof(why)))
		TH_LOG("%s", why);
	EXPECT_EQ(0, set_counters(NULL, 0));
	if (!calls && geteuid())
		SKIP(return, NOT_RECORDED);
	EXPECT_EQ(calls, area_calls)
		TH_LOG("getpid: %llu calls in the profile, %llu in the area",
		       calls, (unsigned long long)area_calls);
	EXPECT_LE((uint64_t)NR_CALLS, area_calls);
}

TEST_HARNESS_MAIN
