// SPDX-License-Identifier: LGPL-2.1-or-later
/* The frame every public parse and read entry point shares. */
#include <errno.h>
#include <stdlib.h>

#include "util/util.h"

void *ktau__parse_text(const struct ktau_parser_ops *ops, const char *buf, size_t len,
		       struct ktau_parse_error *err)
{
	void *obj;
	int ret;

	ktau__clear_error(err);
	if (!buf) {
		if (len) {
			errno = -ktau__fail(err, EINVAL, 0, "NULL buffer");
			return NULL;
		}
		buf = "";
	}
	obj = ops->create();
	if (!obj) {
		errno = -ktau__fail(err, ENOMEM, 0, "out of memory");
		return NULL;
	}
	ret = ops->parse(obj, buf, len, err);
	if (ret) {
		ops->destroy(obj);
		errno = -ret;
		return NULL;
	}
	return obj;
}

void *ktau__parse_read_text(const struct ktau_parser_ops *ops, char *text, size_t len,
			    struct ktau_parse_error *err)
{
	void *obj;
	int saved;

	if (!text)	/* the reader failed: errno and err say why */
		return NULL;
	obj = ktau__parse_text(ops, text, len, err);
	saved = errno;
	free(text);
	errno = saved;
	return obj;
}
