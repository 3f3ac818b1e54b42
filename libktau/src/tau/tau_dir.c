// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A TAU profile directory: each profile.<node>.<context>.<thread> file
 * parsed, sorted by the three numbers, all of one metric. TAU's
 * several-metric layout (MULTI__<metric>/ subdirectories) reads one of
 * them. Names that are not exactly profile.N.N.N (a writer's temporary
 * profile.N.N.N.tmp-..., a crashed rank's leftovers) are not profiles.
 */
#define _GNU_SOURCE	/* O_CLOEXEC */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tau/tau.h"

#define PROFILE_PREFIX "profile."
#define MULTI_PREFIX "MULTI__"

struct ktau_tau_dir {
	struct ktau_tau_thread **threads;
	size_t nr_threads, cap_threads;
	const char *metric;	/* the first thread's */
};

void ktau_tau_dir_free(struct ktau_tau_dir *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->nr_threads; i++)
		ktau_tau_thread_free(d->threads[i]);
	free(d->threads);
	free(d);
}

/* One decimal component that fits an unsigned int, ended by stop. */
static const char *parse_id(const char *s, char stop, unsigned int *id)
{
	unsigned long v = 0;
	const char *start = s;

	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (unsigned long)(*s - '0');
		if (v > UINT_MAX)
			return NULL;
	}
	if (s == start || *s != stop)
		return NULL;
	*id = (unsigned int)v;
	return s + 1;
}

/* Whether name is profile.N.C.T, with the numbers. */
static bool profile_name(const char *name, unsigned int id[3])
{
	const char *s = name;

	if (strncmp(s, PROFILE_PREFIX, strlen(PROFILE_PREFIX)))
		return false;
	s += strlen(PROFILE_PREFIX);
	return (s = parse_id(s, '.', &id[0])) && (s = parse_id(s, '.', &id[1])) &&
	       parse_id(s, '\0', &id[2]);
}

static int read_one(struct ktau_tau_dir *d, const char *dir, const char *name,
		    const unsigned int id[3], struct ktau_parse_error *err)
{
	struct ktau_parse_error pe;
	struct ktau_tau_thread *t;
	size_t len, plen = strlen(dir) + strlen(name) + 2;
	char *path = malloc(plen), *text;
	int ret;

	if (!path)
		return ktau__fail(err, ENOMEM, 0, "out of memory");
	snprintf(path, plen, "%s/%s", dir, name);
	text = ktau__read_path_all(path, &len);
	if (!text) {
		ret = ktau__fail(err, errno, 0, "%s: %s", path, ktau_strerror(errno));
		free(path);
		return ret;
	}
	t = ktau__tau_thread_new();
	ktau__clear_error(&pe);
	ret = t ? ktau__tau_thread_fill(t, text, len, &pe)
		: ktau__fail(&pe, ENOMEM, 0, "out of memory");
	free(text);
	if (!ret && d->nr_threads && strcmp(t->metric, d->metric))
		ret = ktau__fail(&pe, EPROTO, 0, "metric %s, but the other profiles have %s",
				 t->metric, d->metric);
	if (!ret && ktau__grow((void **)&d->threads, &d->cap_threads, d->nr_threads,
			       sizeof(*d->threads)))
		ret = ktau__fail(&pe, ENOMEM, 0, "out of memory");
	if (ret) {
		if (pe.line)
			ktau__fail(err, -ret, pe.line, "%s:%u: %s", path, pe.line, pe.message);
		else
			ktau__fail(err, -ret, 0, "%s: %s", path, pe.message);
		ktau_tau_thread_free(t);
		free(path);
		return ret;
	}
	free(path);
	t->node = id[0];
	t->context = id[1];
	t->thread = id[2];
	if (!d->nr_threads)
		d->metric = t->metric;
	d->threads[d->nr_threads++] = t;
	return 0;
}

static int cmp_threads(const void *a, const void *b)
{
	const struct ktau_tau_thread *x = *(struct ktau_tau_thread *const *)a;
	const struct ktau_tau_thread *y = *(struct ktau_tau_thread *const *)b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->context != y->context)
		return x->context < y->context ? -1 : 1;
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

/* Every profile file in dir; ENOENT when there is none. */
static int read_profiles(struct ktau_tau_dir *d, const char *dir, struct ktau_parse_error *err)
{
	DIR *dh = opendir(dir);
	struct dirent *de;
	int ret = 0;

	if (!dh)
		return ktau__fail(err, errno, 0, "%s: %s", dir, ktau_strerror(errno));
	while (!ret && (errno = 0, de = readdir(dh)) != NULL) {
		unsigned int id[3];

		if (profile_name(de->d_name, id))
			ret = read_one(d, dir, de->d_name, id, err);
	}
	if (!ret && errno)
		ret = ktau__fail(err, errno, 0, "%s: %s", dir, ktau_strerror(errno));
	closedir(dh);
	if (!ret && !d->nr_threads)
		ret = ktau__fail(err, ENOENT, 0, "%s: no TAU profile (profile.N.N.N) in it", dir);
	if (!ret)
		qsort(d->threads, d->nr_threads, sizeof(*d->threads), cmp_threads);
	return ret;
}

/*
 * TAU's several-metric layout: the MULTI__<metric> subdirectory wanted
 * (metric NULL: TIME, else the only one) into *sub (to free). 0, -ENOENT
 * when dir has none, -EINVAL when the choice is unknown or ambiguous.
 */
static int multi_dir(const char *dir, const char *metric, char **sub,
		     struct ktau_parse_error *err)
{
	DIR *dh = opendir(dir);
	struct dirent *de;
	char *only = NULL;
	size_t found = 0;
	bool chosen = false, is_time = false;
	int ret = 0;

	*sub = NULL;
	if (!dh)
		return ktau__fail(err, errno, 0, "%s: %s", dir, ktau_strerror(errno));
	while ((de = readdir(dh)) != NULL) {
		const char *m = de->d_name + strlen(MULTI_PREFIX);

		if (strncmp(de->d_name, MULTI_PREFIX, strlen(MULTI_PREFIX)) || !*m)
			continue;
		found++;
		if (metric ? !strcmp(m, metric) : !strcmp(m, "TIME") || !only) {
			free(only);
			only = strdup(de->d_name);
			if (!only) {
				ret = ktau__fail(err, ENOMEM, 0, "out of memory");
				break;
			}
			chosen = metric != NULL && !strcmp(m, metric);
			is_time = !strcmp(m, "TIME");
		}
	}
	closedir(dh);
	if (!ret && !found)
		ret = -ENOENT;
	else if (!ret && metric && !chosen)
		ret = ktau__fail(err, EINVAL, 0, "%s: no " MULTI_PREFIX "%s subdirectory",
				 dir, metric);
	else if (!ret && !metric && found > 1 && !is_time)
		ret = ktau__fail(err, EINVAL, 0,
				 "%s: %zu metrics (" MULTI_PREFIX "* subdirectories), none TIME: "
				 "choose one", dir, found);
	if (!ret) {
		size_t len = strlen(dir) + strlen(only) + 2;

		*sub = malloc(len);
		if (*sub)
			snprintf(*sub, len, "%s/%s", dir, only);
		else
			ret = ktau__fail(err, ENOMEM, 0, "out of memory");
	}
	free(only);
	return ret;
}

static struct ktau_tau_dir *dir_read(const char *path, const struct ktau_tau_dir_opts *opts,
				     struct ktau_parse_error *err)
{
	const char *metric;
	struct ktau_tau_dir *d;
	struct stat st;
	char *sub = NULL;
	int ret;

	ktau__clear_error(err);
	ret = KTAU__OPTS_CHECK(opts, ktau_tau_dir_opts, metric, err);
	if (!ret && !path)
		ret = ktau__fail(err, EINVAL, 0, "no directory named");
	if (!ret && stat(path, &st))
		ret = ktau__fail(err, errno, 0, "%s: %s", path, ktau_strerror(errno));
	if (!ret && !S_ISDIR(st.st_mode))
		ret = ktau__fail(err, ENOTDIR, 0, "%s: not a directory", path);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	metric = KTAU__OPTS_GET(opts, metric, NULL);
	d = calloc(1, sizeof(*d));
	if (!d) {
		errno = -ktau__fail(err, ENOMEM, 0, "out of memory");
		return NULL;
	}
	ret = read_profiles(d, path, err);
	if (ret == -ENOENT && !d->nr_threads) {
		struct ktau_parse_error why = *err;

		ret = multi_dir(path, metric, &sub, err);
		if (ret == -ENOENT)
			*err = why, ret = -ENOENT;
		else if (!ret)
			ret = read_profiles(d, sub, err);
	} else if (!ret && metric && strcmp(metric, d->metric)) {
		ret = ktau__fail(err, EINVAL, 0, "%s: the profiles' metric is %s, not %s",
				 path, d->metric, metric);
	}
	free(sub);
	if (ret) {
		ktau_tau_dir_free(d);
		errno = -ret;
		return NULL;
	}
	return d;
}

struct ktau_tau_dir *ktau_tau_dir_read(const char *path, const struct ktau_tau_dir_opts *opts,
				       struct ktau_error **err)
{
	struct ktau_parse_error pe;

	return ktau__ret_ptr(dir_read(path, opts, &pe), &pe, err);
}

const char *ktau_tau_dir_metric(const struct ktau_tau_dir *d)
{
	return d->metric;
}

size_t ktau_tau_dir_thread_count(const struct ktau_tau_dir *d)
{
	return d->nr_threads;
}

const struct ktau_tau_thread *ktau_tau_dir_thread(const struct ktau_tau_dir *d, size_t index)
{
	if (index >= d->nr_threads) {
		errno = ERANGE;
		return NULL;
	}
	return d->threads[index];
}

const struct ktau_tau_thread *ktau_tau_dir_find_thread(const struct ktau_tau_dir *d,
						       unsigned int node, unsigned int context,
						       unsigned int thread)
{
	struct ktau_tau_thread key = { .node = node, .context = context, .thread = thread };
	const struct ktau_tau_thread *kp = &key;
	struct ktau_tau_thread *const *hit;

	hit = bsearch(&kp, d->threads, d->nr_threads, sizeof(*d->threads), cmp_threads);
	if (!hit) {
		errno = ENOENT;
		return NULL;
	}
	return *hit;
}
