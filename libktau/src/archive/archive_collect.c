// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Filling an archive from the running system (docs/archive-format.md):
 * each /proc file goes in as it was read, under proc/<its /proc path>.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "archive/archive.h"

struct collector {
	struct ktau_archive *a;
	const char *root;
	struct ktau_parse_error *err;
	uint64_t tsc_khz;
};

/* Parses a profile's text: what cannot be parsed fails now, not at analysis. */
static int check_profile(struct collector *c, const char *rel, const char *text,
			 size_t len)
{
	struct ktau_profile *p = ktau__parse_text(&ktau__profile_parser, text, len, c->err);
	char msg[sizeof(c->err->message)];
	int ret;

	if (!p) {
		ret = errno;
		memcpy(msg, c->err->message, sizeof(msg));
		return ktau__fail(c->err, ret, c->err->line, "%s/%s: %.100s",
				  c->root, rel, msg);
	}
	if (!c->tsc_khz)
		c->tsc_khz = ktau_profile_tsc_khz(p);
	ktau_profile_free(p);
	return 0;
}

/* proc/<rel> from text (freed here). */
static int add_text(struct collector *c, const char *rel, char *text, size_t len,
		    bool is_profile)
{
	char name[KTAU_ARCHIVE_NAME_MAX + 1];
	int ret = is_profile ? check_profile(c, rel, text, len) : 0;

	snprintf(name, sizeof(name), "proc/%s", rel);
	if (!ret) {
		ret = ktau_archive_add(c->a, name, text, len);
		if (ret == -EEXIST)	/* a pid given twice */
			ret = 0;
		else if (ret)
			ktau__fail(c->err, -ret, 0, "%s: %s", name, ktau_strerror(ret));
	}
	free(text);
	return ret;
}

static int add_process(struct collector *c, pid_t pid)
{
	char rel[64];
	pid_t *tids = NULL;
	size_t n = 0, i, len;
	char *text;
	int ret;

	snprintf(rel, sizeof(rel), "%d/ktau", (int)pid);
	if (pid <= 0)
		return ktau__fail(c->err, EINVAL, 0, "invalid process id %d", (int)pid);
	text = ktau__proc_read_task(c->root, pid, 0, &len, c->err);
	if (!text)
		return -errno;
	ret = add_text(c, rel, text, len, true);
	if (!ret)
		ret = ktau__list_tids(c->root, pid, &tids, &n);
	if (ret == -ESRCH) {
		/* it exited after its profile was read: that profile has it all */
		ret = 0;
	}
	for (i = 0; i < n && !ret; i++) {
		snprintf(rel, sizeof(rel), "%d/task/%d/ktau", (int)pid, (int)tids[i]);
		text = ktau__proc_read_task(c->root, pid, tids[i], &len, c->err);
		if (text)
			ret = add_text(c, rel, text, len, true);
		else if (errno != ESRCH)	/* ESRCH: the thread has exited */
			ret = -errno;
		else
			ktau__clear_error(c->err);
	}
	if (ret && !c->err->error)
		ktau__fail(c->err, -ret, 0, "threads of process %d: %s", (int)pid,
			   ktau_strerror(ret));
	free(tids);
	return ret;
}

/* A /proc file that may be missing or unreadable: the manifest says which. */
static int add_optional(struct collector *c, const char *rel, const char *key)
{
	char path[4200], why[160];
	size_t len;
	char *text;

	snprintf(path, sizeof(path), "%s/%s", c->root, rel);
	text = ktau__read_path_all(path, &len);
	if (!text) {
		snprintf(why, sizeof(why), "none (/proc/%s: %s)", rel, strerror(errno));
		return key ? ktau_archive_set_info(c->a, key, why) : 0;
	}
	snprintf(path, sizeof(path), "proc/%s", rel);
	if (key && ktau_archive_set_info(c->a, key, path)) {
		free(text);
		return -ENOMEM;
	}
	return add_text(c, rel, text, len, false);
}

/* Without root, kallsyms lists every address as 0. */
static int note_kallsyms(struct collector *c)
{
	const struct ktau_archive_member *m = ktau_archive_find(c->a, "proc/kallsyms");

	if (!m || !m->size)
		return 0;
	return ktau_archive_set_info(c->a, "kallsyms_addresses",
				     strspn(m->data, "0") == strcspn(m->data, " ")
				     ? "hidden (read as a user without CAP_SYSLOG)"
				     : "present");
}

static int set_identity(struct collector *c, const pid_t *pids, size_t nr_pids)
{
	struct ktau_archive *a = c->a;
	char buf[256], *list;
	struct utsname u;
	struct tm tm;
	size_t i, off = 0;
	int ret = 0;

	if (uname(&u))
		return -errno;
	gmtime_r(&a->mtime, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	ret = ktau_archive_set_info(a, "created", buf);
	snprintf(buf, sizeof(buf), "%lld", (long long)a->mtime);
	ret = ret ? ret : ktau_archive_set_info(a, "created_unix", buf);
	ret = ret ? ret : ktau_archive_set_info(a, "host", u.nodename);
	ret = ret ? ret : ktau_archive_set_info(a, "kernel_release", u.release);
	ret = ret ? ret : ktau_archive_set_info(a, "kernel_version", u.version);
	ret = ret ? ret : ktau_archive_set_info(a, "machine", u.machine);
	snprintf(buf, sizeof(buf), "%" PRIu64, c->tsc_khz);
	ret = ret ? ret : ktau_archive_set_info(a, "tsc_khz", buf);
	list = malloc(nr_pids * 12 + sizeof("all"));
	if (!list)
		return -ENOMEM;
	strcpy(list, "all");
	for (i = 0; i < nr_pids; i++)
		off += (size_t)sprintf(list + off, "%s%d", i ? " " : "", (int)pids[i]);
	ret = ret ? ret : ktau_archive_set_info(a, "pids", list);
	free(list);
	return ret;
}

/* The collection; 0 or a negative errno with c->err filled. */
static int collect(struct collector *c, const pid_t *pids, size_t nr_pids)
{
	struct ktau_archive *a = c->a;
	size_t len, i;
	char *text;
	int ret;

	/* first: without a ktau kernel, nothing else matters */
	text = ktau__proc_read_file(c->root, "ktau/functions", &len, c->err);
	ret = text ? add_text(c, "ktau/functions", text, len, false) : -errno;
	if (!ret && !nr_pids) {
		text = ktau__proc_read_task(c->root, 0, 0, &len, c->err);
		ret = text ? add_text(c, "ktau/profile", text, len, true) : -errno;
	}
	for (i = 0; i < nr_pids && !ret; i++)
		ret = add_process(c, pids[i]);
	if (!ret)
		ret = set_identity(c, pids, nr_pids);
	if (!ret)
		ret = add_optional(c, "ktau/control", NULL);
	if (!ret)
		ret = add_optional(c, "config.gz", "config");
	if (!ret)
		ret = add_optional(c, "kallsyms", "kallsyms");
	if (!ret)
		ret = note_kallsyms(c);
	if (!ret)
		ret = ktau_archive_set_info(a, "writer", "libktau " KTAU_VERSION_STRING);
	if (ret && !c->err->error)
		ktau__fail(c->err, -ret, 0, "%s", ktau_strerror(ret));
	return ret;
}

int ktau_archive_collect(struct ktau_archive *a, struct ktau_proc *proc,
			 const struct ktau_collect_opts *opts, struct ktau_error **err)
{
	struct ktau_parse_error pe;
	struct collector c = { a, proc ? proc->root : NULL, &pe, 0 };
	const pid_t *pids;
	size_t nr_pids;
	int ret;

	ktau__clear_error(&pe);
	ret = KTAU__OPTS_CHECK(opts, ktau_collect_opts, nr_pids, &pe);
	pids = KTAU__OPTS_GET(opts, pids, NULL);
	nr_pids = KTAU__OPTS_GET(opts, nr_pids, 0);
	if (!ret && (!a || !proc || (!pids && nr_pids)))
		ret = ktau__fail(&pe, EINVAL, 0, "invalid arguments");
	if (!ret)
		ret = collect(&c, pids, nr_pids);
	return ktau__ret_int(ret, &pe, err);
}
