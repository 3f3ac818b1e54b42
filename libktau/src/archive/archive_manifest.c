// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The manifest member: "ktau-archive 1", then one "key value" line per
 * info entry, then "end" (docs/archive-format.md).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "archive/archive.h"

char *ktau__archive_manifest(const struct ktau_archive *a, size_t *len)
{
	size_t i, size = sizeof("ktau-archive 4294967295\nend\n");
	char *text;
	int n;

	for (i = 0; i < a->nr_info; i++)
		size += strlen(a->info[i].key) + strlen(a->info[i].value) + 2;
	text = malloc(size);
	if (!text)
		return NULL;
	n = snprintf(text, size, "%s %d\n", KTAU_ARCHIVE_MANIFEST, KTAU_ARCHIVE_VERSION);
	for (i = 0; i < a->nr_info; i++)
		n += snprintf(text + n, size - (size_t)n, "%s %s\n", a->info[i].key,
			      a->info[i].value);
	n += snprintf(text + n, size - (size_t)n, "end\n");
	*len = (size_t)n;
	return text;
}

/* "ktau-archive N": 0, or the error of a wrong kind or version. */
static int check_first_line(const char *line, size_t len, struct ktau_parse_error *err)
{
	size_t prefix = strlen(KTAU_ARCHIVE_MANIFEST " ");
	uint64_t version;

	if (len <= prefix || memcmp(line, KTAU_ARCHIVE_MANIFEST " ", prefix) ||
	    ktau__parse_u64(line + prefix, len - prefix, &version))
		return ktau__fail(err, EPROTO, 1, "manifest: first line is not "
				  "'ktau-archive VERSION'");
	if (version != KTAU_ARCHIVE_VERSION)
		return ktau__fail(err, EPROTONOSUPPORT, 1, "archive format version %llu; "
				  "this libktau reads version %d", (unsigned long long)version,
				  KTAU_ARCHIVE_VERSION);
	return 0;
}

/* "key value": keys this version does not know are kept as they are */
static int parse_entry(struct ktau_archive *a, const char *line, size_t len,
		       unsigned int lineno, struct ktau_parse_error *err)
{
	const char *space = memchr(line, ' ', len);
	size_t klen = space ? (size_t)(space - line) : len;
	char *key = strndup(line, klen);
	char *value = strndup(space ? space + 1 : "", space ? len - klen - 1 : 0);
	int ret = key && value ? ktau_archive_set_info(a, key, value) : -ENOMEM;

	free(key);
	free(value);
	if (ret == -EINVAL)
		return ktau__fail(err, EPROTO, lineno, "manifest: malformed entry");
	if (ret)
		return ktau__fail(err, -ret, lineno, "manifest: %s", ktau_strerror(ret));
	return 0;
}

int ktau__archive_parse_manifest(struct ktau_archive *a, const char *text, size_t len,
				 struct ktau_parse_error *err)
{
	struct ktau_line_reader r;
	const char *line;
	size_t n;
	int ret;

	ktau__lines_init(&r, text, len);
	ret = ktau__lines_next(&r, &line, &n, err);
	if (ret < 0)
		return ret;
	if (ret == 0)
		return ktau__fail(err, EPROTO, 0, "manifest: empty");
	ret = check_first_line(line, n, err);
	while (!ret && (ret = ktau__lines_next(&r, &line, &n, err)) > 0) {
		if (n == 3 && !memcmp(line, "end", 3))
			return 0;
		ret = parse_entry(a, line, n, r.line, err);
	}
	if (ret == 0)
		return ktau__fail(err, EPROTO, r.line, "manifest: no 'end' line (truncated?)");
	return ret;
}
