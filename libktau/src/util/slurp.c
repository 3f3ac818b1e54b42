// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Whole-file reads. /proc files report size 0, so the size is learnt by
 * reading to EOF; a seq_file hands out its text in page-sized pieces.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/util.h"

/* Ensures room for at least one more byte plus the NUL; errno on failure. */
static int reserve(char **buf, size_t *cap, size_t used)
{
	size_t new_cap;
	char *p;

	if (used + 1 < *cap)
		return 0;
	if (used >= KTAU_MAX_FILE) {
		errno = EFBIG;
		return -1;
	}
	new_cap = *cap ? *cap * 2 : 16384;
	p = realloc(*buf, new_cap);
	if (!p)
		return -1;
	*buf = p;
	*cap = new_cap;
	return 0;
}

static char *finish(char *buf, size_t used, size_t *len)
{
	buf[used] = '\0';
	if (len)
		*len = used;
	return buf;
}

static char *fail_free(char *buf)
{
	int saved = errno;

	free(buf);
	errno = saved;
	return NULL;
}

char *ktau__read_fd_all(int fd, size_t *len)
{
	char *buf = NULL;
	size_t cap = 0, used = 0;

	for (;;) {
		ssize_t n;

		if (reserve(&buf, &cap, used))
			return fail_free(buf);
		n = read(fd, buf + used, cap - used - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return fail_free(buf);
		}
		if (n == 0)
			return finish(buf, used, len);
		used += (size_t)n;
	}
}

char *ktau__read_stream_all(FILE *stream, size_t *len)
{
	char *buf = NULL;
	size_t cap = 0, used = 0;

	for (;;) {
		size_t n;

		if (reserve(&buf, &cap, used))
			return fail_free(buf);
		n = fread(buf + used, 1, cap - used - 1, stream);
		used += n;
		if (n)
			continue;
		if (ferror(stream)) {
			if (!errno)
				errno = EIO;
			return fail_free(buf);
		}
		return finish(buf, used, len);
	}
}

char *ktau__read_path_all(const char *path, size_t *len)
{
	char *buf;
	int fd, saved;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = ktau__read_fd_all(fd, len);
	saved = errno;
	close(fd);
	errno = saved;
	return buf;
}
