// SPDX-License-Identifier: LGPL-2.1-or-later
/* The parsed contents of an archive: its profiles and its function map. */
#include <errno.h>
#include <string.h>

#include "archive/archive.h"

#define FUNCTIONS_MEMBER "proc/ktau/functions"

/* "digits/" at *s: advances past it. */
static int skip_id(const char **s)
{
	const char *p = *s;

	if (*p < '1' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p != '/')
		return 0;
	*s = p + 1;
	return 1;
}

/* proc/ktau/profile, proc/PID/ktau or proc/PID/task/TID/ktau */
static int is_profile_name(const char *name)
{
	if (strncmp(name, "proc/", 5))
		return 0;
	name += 5;
	if (!strcmp(name, "ktau/profile"))
		return 1;
	if (!skip_id(&name))
		return 0;
	if (!strncmp(name, "task/", 5)) {
		name += 5;
		if (!skip_id(&name))
			return 0;
	}
	return !strcmp(name, "ktau");
}

size_t ktau_archive_profile_count(const struct ktau_archive *a)
{
	size_t i, n = 0;

	for (i = 0; a && i < a->nr_members; i++)
		n += (size_t)is_profile_name(a->members[i].name);
	return n;
}

const struct ktau_archive_member *ktau_archive_profile_member(const struct ktau_archive *a,
							      size_t index)
{
	size_t i;

	for (i = 0; a && i < a->nr_members; i++)
		if (is_profile_name(a->members[i].name) && index-- == 0)
			return &a->members[i];
	errno = ERANGE;
	return NULL;
}

/* Puts the member's name in front of a parse error's message. */
static void name_error(struct ktau_parse_error *err, const char *name)
{
	char msg[KTAU_ARCHIVE_NAME_MAX + 2 + sizeof(err->message)];

	if (!err)
		return;
	snprintf(msg, sizeof(msg), "%s: %s", name, err->message);
	/* cut to fit, as every message is */
	memcpy(err->message, msg, sizeof(err->message) - 1);
	err->message[sizeof(err->message) - 1] = '\0';
}

/* Member m (NULL: errno ERANGE/ENOENT, said in err by `missing`) parsed
 * by ops, its name in front of a parse error. */
static void *parse_member(const struct ktau_archive_member *m, const char *missing,
			  const struct ktau_parser_ops *ops, struct ktau_parse_error *err)
{
	void *obj;
	int saved = errno;

	if (!m) {
		errno = -ktau__fail(err, saved, 0, "%s", missing);
		return NULL;
	}
	obj = ktau__parse_text(ops, m->data, m->size, err);
	if (!obj) {
		saved = errno;
		name_error(err, m->name);
		errno = saved;
	}
	return obj;
}

struct ktau_profile *ktau_archive_profile(const struct ktau_archive *a, size_t index,
					  struct ktau_error **err)
{
	const struct ktau_archive_member *m = ktau_archive_profile_member(a, index);
	struct ktau_parse_error pe;
	char missing[64];

	snprintf(missing, sizeof(missing), "no profile %zu in the archive", index);
	return ktau__ret_ptr(parse_member(m, missing, &ktau__profile_parser, &pe), &pe, err);
}

struct ktau_functions *ktau_archive_functions(const struct ktau_archive *a,
					      struct ktau_error **err)
{
	const struct ktau_archive_member *m = ktau_archive_find(a, FUNCTIONS_MEMBER);
	struct ktau_parse_error pe;

	return ktau__ret_ptr(parse_member(m, "the archive has no " FUNCTIONS_MEMBER,
					  &ktau__functions_parser, &pe), &pe, err);
}
