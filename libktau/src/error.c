// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

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
