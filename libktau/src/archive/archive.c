// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * An archive in memory: its members and its manifest (docs/archive-format.md).
 * The tar encoding is archive_tar.c's, filling it from /proc archive_collect.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "archive/archive.h"
#include "export/export.h"

#define INFO_KEY_MAX 32

struct ktau_archive *ktau_archive_new(void)
{
	struct ktau_archive *a = calloc(1, sizeof(*a));

	if (a)
		a->mtime = time(NULL);
	return a;
}

void ktau_archive_free(struct ktau_archive *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->nr_members; i++) {
		free((char *)a->members[i].name);
		free((char *)a->members[i].data);
	}
	for (i = 0; i < a->nr_info; i++) {
		free((char *)a->info[i].key);
		free((char *)a->info[i].value);
	}
	free(a->members);
	free(a->info);
	free(a);
}

static int name_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || strchr("._/+-", c);
}

/* Relative, no empty, "." or ".." component: extracting it stays inside. */
static int name_ok(const char *name, size_t len)
{
	size_t i, start = 0;

	if (!len || len > KTAU_ARCHIVE_NAME_MAX)
		return 0;
	for (i = 0; i <= len; i++) {
		if (i < len && !name_char_ok(name[i]))
			return 0;
		if (i < len && name[i] != '/')
			continue;
		if (i == start || (i - start == 1 && name[start] == '.') ||
		    (i - start == 2 && name[start] == '.' && name[start + 1] == '.'))
			return 0;
		start = i + 1;
	}
	return 1;
}

static ssize_t find_member(const struct ktau_archive *a, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < a->nr_members; i++)
		if (strlen(a->members[i].name) == len && !memcmp(a->members[i].name, name, len))
			return (ssize_t)i;
	return -1;
}

int ktau__archive_append(struct ktau_archive *a, const char *name, size_t name_len,
			 const void *data, size_t size)
{
	struct ktau_archive_member *m;
	char *n, *d;

	if (size == SIZE_MAX)
		return -ENOMEM;
	if (ktau__grow((void **)&a->members, &a->cap_members, a->nr_members,
		       sizeof(*a->members)))
		return -ENOMEM;
	n = malloc(name_len + 1);
	d = malloc(size + 1);
	if (!n || !d) {
		free(n);
		free(d);
		return -ENOMEM;
	}
	memcpy(n, name, name_len);
	n[name_len] = '\0';
	if (size)
		memcpy(d, data, size);
	d[size] = '\0';
	m = &a->members[a->nr_members++];
	m->name = n;
	m->data = d;
	m->size = size;
	return 0;
}

int ktau_archive_add(struct ktau_archive *a, const char *name, const void *data,
		     size_t size)
{
	size_t len;

	if (!a || !name || (!data && size))
		return -EINVAL;
	len = strlen(name);
	if (!name_ok(name, len) || !strcmp(name, KTAU_ARCHIVE_MANIFEST))
		return -EINVAL;
	if (find_member(a, name, len) >= 0)
		return -EEXIST;
	return ktau__archive_append(a, name, len, data, size);
}

static int key_ok(const char *key)
{
	size_t i;

	for (i = 0; key[i]; i++)
		if (!((key[i] >= 'a' && key[i] <= 'z') || (key[i] >= '0' && key[i] <= '9') ||
		      key[i] == '_'))
			return 0;
	return i > 0 && i <= INFO_KEY_MAX;
}

static int value_ok(const char *value)
{
	for (; *value; value++)
		if (*value < ' ' || *value > '~')
			return 0;
	return 1;
}

static ssize_t find_info(const struct ktau_archive *a, const char *key)
{
	size_t i;

	for (i = 0; i < a->nr_info; i++)
		if (!strcmp(a->info[i].key, key))
			return (ssize_t)i;
	return -1;
}

int ktau_archive_set_info(struct ktau_archive *a, const char *key, const char *value)
{
	ssize_t at;
	char *v;

	if (!a || !key || !value || !key_ok(key) || !value_ok(value))
		return -EINVAL;
	v = strdup(value);
	if (!v)
		return -ENOMEM;
	at = find_info(a, key);
	if (at >= 0) {
		free((char *)a->info[at].value);
		a->info[at].value = v;
		return 0;
	}
	if (ktau__grow((void **)&a->info, &a->cap_info, a->nr_info, sizeof(*a->info)))
		goto nomem;
	a->info[a->nr_info].key = strdup(key);
	if (!a->info[a->nr_info].key)
		goto nomem;
	a->info[a->nr_info++].value = v;
	return 0;
nomem:
	free(v);
	return -ENOMEM;
}

const char *ktau_archive_info(const struct ktau_archive *a, const char *key)
{
	ssize_t at = a && key ? find_info(a, key) : -1;

	if (at < 0) {
		errno = ENOENT;
		return NULL;
	}
	return a->info[at].value;
}

size_t ktau_archive_info_count(const struct ktau_archive *a)
{
	return a ? a->nr_info : 0;
}

const struct ktau_archive_info *ktau_archive_info_get(const struct ktau_archive *a,
						      size_t index)
{
	if (!a || index >= a->nr_info) {
		errno = ERANGE;
		return NULL;
	}
	return &a->info[index];
}

size_t ktau_archive_member_count(const struct ktau_archive *a)
{
	return a ? a->nr_members : 0;
}

const struct ktau_archive_member *ktau_archive_member(const struct ktau_archive *a,
						      size_t index)
{
	if (!a || index >= a->nr_members) {
		errno = ERANGE;
		return NULL;
	}
	return &a->members[index];
}

const struct ktau_archive_member *ktau_archive_find(const struct ktau_archive *a,
						    const char *name)
{
	ssize_t at = a && name ? find_member(a, name, strlen(name)) : -1;

	if (at < 0) {
		errno = ENOENT;
		return NULL;
	}
	return &a->members[at];
}

/* ---- writing and reading whole archives ---- */

static int emit_archive(const void *arg, FILE *out)
{
	return ktau__archive_emit_tar(arg, out);
}

int ktau_archive_write(const struct ktau_archive *a, const char *path)
{
	if (!a || !path || !*path)
		return -EINVAL;
	return ktau__write_file_atomic(path, emit_archive, a);
}

int ktau_archive_write_stream(const struct ktau_archive *a, FILE *out)
{
	int ret;

	if (!a || !out)
		return -EINVAL;
	errno = 0;
	ret = ktau__archive_emit_tar(a, out);
	if (!ret && fflush(out))
		ret = -errno;
	if (!ret && ferror(out))
		ret = errno ? -errno : -EIO;
	return ret;
}

bool ktau_archive_detect(const void *buf, size_t len)
{
	/* the manifest's tar header comes first, and with it its name */
	size_t n = sizeof(KTAU_ARCHIVE_MANIFEST);	/* with the NUL */

	return buf && len >= n && !memcmp(buf, KTAU_ARCHIVE_MANIFEST, n);
}

/* The parser behind ktau_archive_parse() and ktau_archive_load(). */
static struct ktau_archive *archive_parse(const void *buf, size_t len,
					  struct ktau_parse_error *err)
{
	struct ktau_archive *a;
	int ret;

	if (!buf && len) {
		errno = -ktau__fail(err, EINVAL, 0, "NULL buffer");
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if (!a) {
		errno = -ktau__fail(err, ENOMEM, 0, "out of memory");
		return NULL;
	}
	ret = ktau__archive_parse_tar(a, buf, len, err);
	if (ret) {
		ktau_archive_free(a);
		errno = -ret;
		return NULL;
	}
	return a;
}

struct ktau_archive *ktau_archive_parse(const void *buf, size_t len,
					struct ktau_error **err)
{
	struct ktau_parse_error pe;

	ktau__clear_error(&pe);
	return ktau__ret_ptr(archive_parse(buf, len, &pe), &pe, err);
}

struct ktau_archive *ktau_archive_load(const struct ktau_load_opts *opts,
				       struct ktau_error **err)
{
	struct ktau_parse_error pe;
	struct ktau_archive *a = NULL;
	size_t len = 0;
	char *buf;
	int saved;

	ktau__clear_error(&pe);
	buf = ktau__load_text(opts, &len, &pe);
	if (buf) {
		a = archive_parse(buf, len, &pe);
		saved = errno;
		free(buf);
		errno = saved;
	}
	return ktau__ret_ptr(a, &pe, err);
}
