// SPDX-License-Identifier: LGPL-2.1-or-later
/* /proc/ktau/control: the state it reports, the commands it takes. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/proc.h"

/* The state /proc/ktau/control reports (docs/proc-format.md). */

struct ktau_control_status {
	bool running;
	const char **groups;	/* available, kernel order */
	bool *enabled;		/* parallel to groups */
	size_t nr_groups, cap_groups, cap_enabled;
	bool have_fids, have_lost, have_trace, trace_on;
	uint64_t fids, max_fids, lost_tasks, trace_lost;
	bool have_memory, have_user_memory;
	uint64_t mem_bytes, mem_limit, user_limit, users_charged;
	struct ktau_control_user *users;	/* `user` lines, in file order */
	size_t nr_users, cap_users;
	struct ktau_strpool strings;
};

struct ktau_control_user {
	uint64_t uid, bytes, limit;
};

void ktau_control_status_free(struct ktau_control_status *s)
{
	int saved = errno;

	if (!s)
		return;
	free(s->groups);
	free(s->enabled);
	free(s->users);
	ktau__strpool_free(&s->strings);
	free(s);
	errno = saved;
}

/* What the parser has seen, to tell a complete file from a cut-off one. */
struct seen {
	bool state, groups, available, end;
	const struct ktau_words *enabled_line;	/* checked once `available` is known */
	unsigned int enabled_lineno;
};

static int parse_first_line(const struct ktau_words *w, struct ktau_parse_error *err)
{
	uint64_t version;

	if (!w->count || !ktau__word_is(w->word[0], w->len[0], "ktau-control"))
		return ktau__fail(err, EPROTO, 1, "not a ktau control file (the first "
				  "line is not 'ktau-control <version>')");
	if (w->count < 2 || ktau__parse_u64(w->word[1], w->len[1], &version))
		return ktau__fail(err, EPROTO, 1, "ktau-control: missing or bad format version");
	if (version != KTAU_CONTROL_FORMAT_VERSION)
		return ktau__fail(err, EPROTONOSUPPORT, 1,
				  "format version %llu is not supported (this library reads %d)",
				  (unsigned long long)version, KTAU_CONTROL_FORMAT_VERSION);
	return 0;
}

static int parse_state(struct ktau_control_status *s, const struct ktau_words *w,
		       unsigned int line, struct ktau_parse_error *err)
{
	if (w->count == 2 && ktau__word_is(w->word[1], w->len[1], "running"))
		s->running = true;
	else if (w->count == 2 && ktau__word_is(w->word[1], w->len[1], "stopped"))
		s->running = false;
	else
		return ktau__fail(err, EPROTO, line, "state: expected 'running' or 'stopped'");
	return 0;
}

static ssize_t group_index(const struct ktau_control_status *s, const char *name,
			   size_t len)
{
	size_t i;

	for (i = 0; i < s->nr_groups; i++)
		if (strlen(s->groups[i]) == len && !memcmp(s->groups[i], name, len))
			return (ssize_t)i;
	return -1;
}

static int parse_available(struct ktau_control_status *s, const struct ktau_words *w,
			   unsigned int line, struct ktau_parse_error *err)
{
	size_t i;

	if (w->count < 2)
		return ktau__fail(err, EPROTO, line, "available: no groups listed");
	for (i = 1; i < w->count; i++) {
		if (group_index(s, w->word[i], w->len[i]) >= 0)
			return ktau__fail(err, EPROTO, line, "available: group '%.*s' listed "
					  "twice", (int)w->len[i], w->word[i]);
		if (ktau__grow((void **)&s->groups, &s->cap_groups, s->nr_groups,
			       sizeof(*s->groups)) ||
		    ktau__grow((void **)&s->enabled, &s->cap_enabled, s->nr_groups,
			       sizeof(*s->enabled)))
			return ktau__fail(err, ENOMEM, line, "out of memory");
		s->groups[s->nr_groups] = ktau__strpool_add(&s->strings, w->word[i], w->len[i]);
		if (!s->groups[s->nr_groups])
			return ktau__fail(err, ENOMEM, line, "out of memory");
		s->enabled[s->nr_groups++] = false;
	}
	return 0;
}

/* The `groups` line names enabled groups, or is `groups none`. */
static int apply_enabled(struct ktau_control_status *s, const struct ktau_words *w,
			 unsigned int line, struct ktau_parse_error *err)
{
	size_t i;

	if (w->count == 2 && ktau__word_is(w->word[1], w->len[1], "none"))
		return 0;
	if (w->count < 2)
		return ktau__fail(err, EPROTO, line, "groups: expected group names or 'none'");
	for (i = 1; i < w->count; i++) {
		ssize_t g = group_index(s, w->word[i], w->len[i]);

		if (g < 0)
			return ktau__fail(err, EPROTO, line, "groups: '%.*s' is not an "
					  "available group", (int)w->len[i], w->word[i]);
		s->enabled[g] = true;
	}
	return 0;
}

/* "fids N/M" */
static int parse_fids(struct ktau_control_status *s, const struct ktau_words *w,
		      unsigned int line, struct ktau_parse_error *err)
{
	const char *slash;

	if (w->count != 2)
		return ktau__fail(err, EPROTO, line, "fids: expected REGISTERED/MAX");
	slash = memchr(w->word[1], '/', w->len[1]);
	if (!slash ||
	    ktau__parse_u64(w->word[1], (size_t)(slash - w->word[1]), &s->fids) ||
	    ktau__parse_u64(slash + 1, w->len[1] - (size_t)(slash - w->word[1]) - 1,
			    &s->max_fids))
		return ktau__fail(err, EPROTO, line, "fids: expected REGISTERED/MAX");
	s->have_fids = true;
	return 0;
}

static int parse_lost(struct ktau_control_status *s, const struct ktau_words *w,
		      unsigned int line, struct ktau_parse_error *err)
{
	if (w->count != 2 || ktau__parse_u64(w->word[1], w->len[1], &s->lost_tasks))
		return ktau__fail(err, EPROTO, line, "lost_tasks: expected a number");
	s->have_lost = true;
	return 0;
}

/*
 * The value of KEY=VALUE word @key among words 1.. of @w into *@v: 0, 1
 * if absent, -1 if not a number.
 */
static int key_u64(const struct ktau_words *w, const char *key, uint64_t *v)
{
	size_t i, kl = strlen(key);

	for (i = 1; i < w->count; i++) {
		if (w->len[i] <= kl || memcmp(w->word[i], key, kl) || w->word[i][kl] != '=')
			continue;
		return ktau__parse_u64(w->word[i] + kl + 1, w->len[i] - kl - 1, v) ? -1 : 0;
	}
	return 1;
}

/* "memory tasks=N bytes=M limit=L": bytes= and limit= are needed */
static int parse_memory(struct ktau_control_status *s, const struct ktau_words *w,
			unsigned int line, struct ktau_parse_error *err)
{
	if (key_u64(w, "bytes", &s->mem_bytes) || key_u64(w, "limit", &s->mem_limit))
		return ktau__fail(err, EPROTO, line, "memory: expected bytes=N limit=N");
	s->have_memory = true;
	return 0;
}

/* "user_memory limit=L users=N" */
static int parse_user_memory(struct ktau_control_status *s, const struct ktau_words *w,
			     unsigned int line, struct ktau_parse_error *err)
{
	if (key_u64(w, "limit", &s->user_limit) || key_u64(w, "users", &s->users_charged))
		return ktau__fail(err, EPROTO, line, "user_memory: expected limit=N users=N");
	s->have_user_memory = true;
	return 0;
}

/* "user uid=U bytes=B limit=L" */
static int parse_user(struct ktau_control_status *s, const struct ktau_words *w,
		      unsigned int line, struct ktau_parse_error *err)
{
	struct ktau_control_user u;

	if (key_u64(w, "uid", &u.uid) || key_u64(w, "bytes", &u.bytes) ||
	    key_u64(w, "limit", &u.limit) || u.uid > UINT32_MAX)
		return ktau__fail(err, EPROTO, line, "user: expected uid=N bytes=N limit=N");
	if (ktau__grow((void **)&s->users, &s->cap_users, s->nr_users, sizeof(*s->users)))
		return ktau__fail(err, ENOMEM, line, "out of memory");
	s->users[s->nr_users++] = u;
	return 0;
}

/* "trace on|off KEY=VALUE...": keys other than lost= are for people */
static int parse_trace(struct ktau_control_status *s, const struct ktau_words *w,
		       unsigned int line, struct ktau_parse_error *err)
{
	size_t i;

	if (w->count < 2 || !(ktau__word_is(w->word[1], w->len[1], "on") ||
			      ktau__word_is(w->word[1], w->len[1], "off")))
		return ktau__fail(err, EPROTO, line, "trace: expected 'on' or 'off'");
	s->trace_on = ktau__word_is(w->word[1], w->len[1], "on");
	s->trace_lost = 0;
	for (i = 2; i < w->count; i++) {
		if (w->len[i] < 5 || memcmp(w->word[i], "lost=", 5))
			continue;
		if (ktau__parse_u64(w->word[i] + 5, w->len[i] - 5, &s->trace_lost))
			return ktau__fail(err, EPROTO, line, "trace: lost= is not a number");
	}
	s->have_trace = true;
	return 0;
}

static int parse_line(struct ktau_control_status *s, struct seen *seen,
		      const struct ktau_words *w, unsigned int line,
		      struct ktau_words *enabled, struct ktau_parse_error *err)
{
	const char *k = w->word[0];
	size_t n = w->len[0];

	if (seen->end)
		return ktau__fail(err, EPROTO, line, "text after 'end'");
	if (ktau__word_is(k, n, "state")) {
		seen->state = true;
		return parse_state(s, w, line, err);
	}
	if (ktau__word_is(k, n, "groups")) {
		/* may come before `available`: applied at the end */
		seen->groups = true;
		*enabled = *w;
		seen->enabled_line = enabled;
		seen->enabled_lineno = line;
		return 0;
	}
	if (ktau__word_is(k, n, "available")) {
		if (seen->available)
			return ktau__fail(err, EPROTO, line, "'available' listed twice");
		seen->available = true;
		return parse_available(s, w, line, err);
	}
	if (ktau__word_is(k, n, "fids"))
		return parse_fids(s, w, line, err);
	if (ktau__word_is(k, n, "lost_tasks"))
		return parse_lost(s, w, line, err);
	if (ktau__word_is(k, n, "trace"))
		return parse_trace(s, w, line, err);
	if (ktau__word_is(k, n, "memory"))
		return parse_memory(s, w, line, err);
	if (ktau__word_is(k, n, "user_memory"))
		return parse_user_memory(s, w, line, err);
	if (ktau__word_is(k, n, "user"))
		return parse_user(s, w, line, err);
	if (ktau__word_is(k, n, "end"))
		seen->end = true;
	/* else: usage text, or a key from a later version */
	return 0;
}

static int parse_status(struct ktau_control_status *s, const char *buf, size_t len,
			struct ktau_parse_error *err)
{
	struct ktau_line_reader lines;
	struct ktau_words w, enabled;
	struct seen seen = { 0 };
	const char *line;
	size_t line_len;
	int ret;

	ktau__lines_init(&lines, buf, len);
	while ((ret = ktau__lines_next(&lines, &line, &line_len, err)) > 0) {
		ret = ktau__split_words(line, line_len, &w, lines.line, err);
		if (ret)
			return ret;
		if (lines.line == 1)
			ret = parse_first_line(&w, err);
		else if (w.count)
			ret = parse_line(s, &seen, &w, lines.line, &enabled, err);
		if (ret)
			return ret;
	}
	if (ret < 0)
		return ret;
	if (!lines.line)
		return ktau__fail(err, EPROTO, 0, "empty input");
	if (!seen.end)
		return ktau__fail(err, EPROTO, lines.line, "truncated: no 'end' line");
	if (!seen.state || !seen.groups || !seen.available)
		return ktau__fail(err, EPROTO, lines.line, "missing the '%s' line",
				  !seen.state ? "state" : !seen.groups ? "groups" : "available");
	return apply_enabled(s, seen.enabled_line, seen.enabled_lineno, err);
}

static void *status_create(void)
{
	return calloc(1, sizeof(struct ktau_control_status));
}

static int status_parse(void *obj, const char *buf, size_t len,
			struct ktau_parse_error *err)
{
	return parse_status(obj, buf, len, err);
}

static void status_destroy(void *obj)
{
	ktau_control_status_free(obj);
}

static const struct ktau_parser_ops status_ops = {
	status_create, status_parse, status_destroy,
};

struct ktau_control_status *ktau_control_status_parse(const char *buf, size_t len,
						      struct ktau_error **err)
{
	struct ktau_parse_error pe;

	return ktau__ret_ptr(ktau__parse_text(&status_ops, buf, len, &pe), &pe, err);
}

struct ktau_control_status *ktau_proc_read_control(struct ktau_proc *proc,
						   struct ktau_error **err)
{
	struct ktau_parse_error pe;

	return ktau__ret_ptr(ktau__proc_parse_file(proc, "ktau/control", &status_ops, &pe),
			     &pe, err);
}

bool ktau_control_status_running(const struct ktau_control_status *s)
{
	return s->running;
}

size_t ktau_control_status_group_count(const struct ktau_control_status *s)
{
	return s->nr_groups;
}

const char *ktau_control_status_group(const struct ktau_control_status *s, size_t index)
{
	if (index >= s->nr_groups) {
		errno = ERANGE;
		return NULL;
	}
	return s->groups[index];
}

int ktau_control_status_group_enabled(const struct ktau_control_status *s,
				      const char *group)
{
	ssize_t g = group ? group_index(s, group, strlen(group)) : -1;

	return g < 0 ? -ENOENT : s->enabled[g];
}

int ktau_control_status_fids(const struct ktau_control_status *s,
			     uint64_t *registered, uint64_t *max)
{
	if (!s->have_fids)
		return -ENOENT;
	if (registered)
		*registered = s->fids;
	if (max)
		*max = s->max_fids;
	return 0;
}

int ktau_control_status_lost_tasks(const struct ktau_control_status *s, uint64_t *lost)
{
	if (!s->have_lost)
		return -ENOENT;
	if (lost)
		*lost = s->lost_tasks;
	return 0;
}

int ktau_control_status_trace(const struct ktau_control_status *s, bool *on,
			      uint64_t *lost)
{
	if (!s->have_trace)
		return -ENOENT;
	if (on)
		*on = s->trace_on;
	if (lost)
		*lost = s->trace_lost;
	return 0;
}

int ktau_control_status_memory(const struct ktau_control_status *s, uint64_t *bytes,
			       uint64_t *limit, uint64_t *user_limit)
{
	if (!s->have_memory)
		return -ENOENT;
	if (bytes)
		*bytes = s->mem_bytes;
	if (limit)
		*limit = s->mem_limit;
	if (user_limit)
		*user_limit = s->have_user_memory ? s->user_limit : 0;
	return 0;
}

size_t ktau_control_status_user_count(const struct ktau_control_status *s)
{
	return s->nr_users;
}

int ktau_control_status_user(const struct ktau_control_status *s, size_t index,
			     uint32_t *uid, uint64_t *bytes, uint64_t *limit)
{
	if (index >= s->nr_users)
		return -ERANGE;
	if (uid)
		*uid = (uint32_t)s->users[index].uid;
	if (bytes)
		*bytes = s->users[index].bytes;
	if (limit)
		*limit = s->users[index].limit;
	return 0;
}

/*
 * Commands to /proc/ktau/control.  The kernel parses each write() as one
 * whole command, so the command goes out in exactly one write().
 */

static int write_control(const char *root, const char *command,
			 struct ktau_parse_error *err)
{
	char path[4096];
	size_t len;
	ssize_t n;
	int fd, error;

	if (!command || !*command)
		return ktau__fail(err, EINVAL, 0, "empty control command");
	if (ktau__proc_path(root, path, sizeof(path), "ktau/control"))
		return ktau__fail(err, ENAMETOOLONG, 0, "%s/ktau/control: %s", root,
				  ktau_strerror(ENAMETOOLONG));
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		error = ktau__proc_errno(root, errno, 0, 0);
		return ktau__fail(err, error, 0, "%s: %s", path, ktau_strerror(error));
	}
	len = strlen(command);
	do
		n = write(fd, command, len);
	while (n < 0 && errno == EINTR);
	error = n < 0 ? ktau__proc_errno(root, errno, 0, 0) : (size_t)n != len ? EIO : 0;
	close(fd);
	if (error == EINVAL)	/* what the kernel says of a command it refused */
		return ktau__fail(err, EINVAL, 0, "%s: the kernel refused \"%.*s\"",
				  path, 64, command);
	if (error)
		return ktau__fail(err, error, 0, "%s: %s", path, ktau_strerror(error));
	return 0;
}

int ktau_proc_write_control(struct ktau_proc *proc, const char *command,
			    struct ktau_error **err)
{
	struct ktau_parse_error pe;

	ktau__clear_error(&pe);
	if (!proc)
		return ktau__ret_int(ktau__fail(&pe, EINVAL, 0, "NULL struct ktau_proc"),
				     &pe, err);
	return ktau__ret_int(write_control(proc->root, command, &pe), &pe, err);
}
