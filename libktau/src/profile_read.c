// SPDX-License-Identifier: LGPL-2.1-or-later
/* Profile sources: files, descriptors, streams and the /proc files. */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

/* Parses text that was read (or failed to be read, text == NULL). */
static struct ktau_profile *parse_read(char *text, size_t len, const char *what,
				       struct ktau_parse_error *err)
{
	return ktau__parse_read_text(&ktau__profile_parser, text, len, what, err);
}

struct ktau_profile *ktau_profile_read_file(const char *path,
					    struct ktau_parse_error *err)
{
	size_t len = 0;
	char *text;

	ktau__clear_error(err);
	text = ktau_raw_read_file(path, &len);
	return parse_read(text, len, path ? path : "(null)", err);
}

struct ktau_profile *ktau_profile_read_fd(int fd, struct ktau_parse_error *err)
{
	size_t len = 0;
	char *text;

	ktau__clear_error(err);
	text = ktau__read_fd_all(fd, &len);
	return parse_read(text, len, "read", err);
}

struct ktau_profile *ktau_profile_read_stream(FILE *stream, struct ktau_parse_error *err)
{
	size_t len = 0;
	char *text;

	ktau__clear_error(err);
	if (!stream) {
		errno = -ktau__fail(err, EINVAL, 0, "NULL stream");
		return NULL;
	}
	text = ktau__read_stream_all(stream, &len);
	return parse_read(text, len, "read", err);
}

struct ktau_profile *ktau_profile_read_pid(pid_t pid, struct ktau_parse_error *err)
{
	size_t len = 0;
	char *text;

	ktau__clear_error(err);
	text = ktau_raw_read_pid(pid, &len);
	return parse_read(text, len, "process profile", err);
}

struct ktau_profile *ktau_profile_read_tid(pid_t pid, pid_t tid,
					   struct ktau_parse_error *err)
{
	size_t len = 0;
	char *text;

	ktau__clear_error(err);
	text = ktau_raw_read_tid(pid, tid, &len);
	return parse_read(text, len, "thread profile", err);
}

struct ktau_profile *ktau_profile_read_system(struct ktau_parse_error *err)
{
	size_t len = 0;
	char *text;

	ktau__clear_error(err);
	text = ktau_raw_read_system(&len);
	return parse_read(text, len, "system profile", err);
}
