// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

const char *ktau_strerror(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case 0:
		return "success";
	case EPROTO:
		return "malformed ktau data";
	case EPROTONOSUPPORT:
		return "unsupported ktau format version";
	case ENODEV:
		return "this kernel has no ktau support (no /proc/ktau)";
	case ESRCH:
		return "no such process";
	case EACCES:
		return "permission denied";
	case ERANGE:
		return "counters went backwards (cleared, or not the same task)";
	case EOVERFLOW:
		return "sum does not fit in 64 bits";
	default:
		/* glibc's strerror() returns static, immutable strings for
		 * known values and only formats into a buffer for unknown ones */
		return strerror(err);
	}
}

const char *ktau_version(void)
{
	return KTAU_VERSION_STRING;
}

void ktau__clear_error(struct ktau_parse_error *err)
{
	if (!err)
		return;
	err->error = 0;
	err->line = 0;
	err->message[0] = '\0';
}

int ktau__fail(struct ktau_parse_error *err, int error, unsigned int line,
	       const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->error = -error;
		err->line = line;
		va_start(ap, fmt);
		vsnprintf(err->message, sizeof(err->message), fmt, ap);
		va_end(ap);
	}
	return -error;
}

/* ---- the public error object ---- */

struct ktau_error {
	int code;
	unsigned int line;
	const char *message;
	char text[];
};

/*
 * Handed out when the code is ENOMEM or the error itself cannot be
 * allocated: allocating to report that memory ran out would likely fail
 * too, and the caller must still get an error to look at. Never written.
 */
static struct ktau_error enomem_error = { -ENOMEM, 0, "out of memory" };

void *(*ktau__error_alloc)(size_t size) = malloc;

static struct ktau_error *error_new(int error, const struct ktau_parse_error *pe)
{
	/* pe describes this failure only if it failed with the same code */
	bool own = pe && pe->error == -error;
	const char *msg = own && pe->message[0] ? pe->message : ktau_strerror(error);
	size_t len = strlen(msg);
	struct ktau_error *e;

	if (error == ENOMEM)
		return &enomem_error;
	e = ktau__error_alloc(sizeof(*e) + len + 1);
	if (!e)
		return &enomem_error;
	e->code = -error;
	e->line = own ? pe->line : 0;
	memcpy(e->text, msg, len + 1);
	e->message = e->text;
	return e;
}

void *ktau__ret_ptr(void *obj, const struct ktau_parse_error *pe, struct ktau_error **err)
{
	int error = errno;

	if (obj) {
		if (err)
			*err = NULL;
		return obj;
	}
	if (!error)	/* a bug, but never report success with NULL */
		error = EIO;
	if (err)
		*err = error_new(error, pe);
	errno = error;
	return NULL;
}

int ktau__ret_int(int ret, const struct ktau_parse_error *pe, struct ktau_error **err)
{
	if (err)
		*err = ret ? error_new(-ret, pe) : NULL;
	if (ret)
		errno = -ret;
	return ret;
}

int ktau_error_code(const struct ktau_error *e)
{
	return e ? e->code : 0;
}

unsigned int ktau_error_line(const struct ktau_error *e)
{
	return e ? e->line : 0;
}

const char *ktau_error_message(const struct ktau_error *e)
{
	return e ? e->message : "";
}

void ktau_error_free(struct ktau_error *e)
{
	/* kept: callers free the error and then report errno */
	int saved = errno;

	if (e != &enomem_error)
		free(e);
	errno = saved;
}

/* ---- options structs ---- */

int ktau__opts_check(const void *opts, size_t known, const char *type,
		     struct ktau_parse_error *err)
{
	const unsigned char *p = opts;
	size_t sz, i;

	if (!opts)
		return 0;
	sz = *(const size_t *)opts;
	if (sz < sizeof(size_t))
		return ktau__fail(err, EINVAL, 0, "struct %s: sz %zu is too small "
				  "(declare it with KTAU_OPTS)", type, sz);
	/* bytes this library does not know: a newer caller's members, which
	 * it may leave zero (the default) but not set */
	for (i = known; i < sz; i++)
		if (p[i])
			return ktau__fail(err, EINVAL, 0, "struct %s: byte %zu is set, but "
					  "this libktau knows only %zu bytes",
					  type, i, known);
	return 0;
}
