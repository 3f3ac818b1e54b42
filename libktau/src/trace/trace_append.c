// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The chunks ktau-trace appends to what it drained: the names, and the
 * user traces of the processes it ran. Only the reader (trace_read.c)
 * decodes; this file encodes a chunk header and hands user traces to it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace.h"

static void put_le16(unsigned char *p, unsigned int v)
{
	p[0] = (unsigned char)(v & 0xff);
	p[1] = (unsigned char)((v >> 8) & 0xff);
}

static void put_le32(unsigned char *p, uint32_t v)
{
	put_le16(p, v & 0xffff);
	put_le16(p + 2, v >> 16);
}

int ktau__trace_write_chunk_header(FILE *out, unsigned int kind, unsigned int cpu,
				   unsigned int source, uint64_t count, uint32_t lost)
{
	unsigned char h[KTAU_TRACE_UNIT] = { 0 };

	if (count > UINT32_MAX || cpu > 0xffff || source > 0xffff || kind > 0xff)
		return -EINVAL;
	put_le16(h, KTAU_TRACE_CHUNK_MAGIC);
	h[2] = (unsigned char)kind;
	put_le16(h + 4, cpu);
	put_le16(h + 6, source);
	put_le32(h + 8, (uint32_t)count);
	put_le32(h + 12, lost);
	return fwrite(h, sizeof(h), 1, out) == 1 ? 0 : -EIO;
}

int ktau_trace_append_names(FILE *out, unsigned int cpu, unsigned int source,
			    const char *text, size_t len)
{
	static const unsigned char zeros[KTAU_TRACE_UNIT];
	size_t units = (len + KTAU_TRACE_UNIT - 1) / KTAU_TRACE_UNIT;
	size_t pad = units * KTAU_TRACE_UNIT - len;
	int ret;

	if (!out || (!text && len) || (cpu != KTAU_NAMES_KERNEL && cpu != KTAU_NAMES_USER) ||
	    (cpu == KTAU_NAMES_KERNEL && source))
		return -EINVAL;
	/* a text with a NUL inside would be cut there by every reader */
	if (len && memchr(text, '\0', len))
		return -EINVAL;
	ret = ktau__trace_write_chunk_header(out, KTAU_CHUNK_NAMES, cpu, source, units, 0);
	if (ret)
		return ret;
	if ((len && fwrite(text, len, 1, out) != 1) || (pad && fwrite(zeros, pad, 1, out) != 1))
		return -EIO;
	return 0;
}

int ktau_trace_append_user(FILE *out, const struct ktau_load_opts *from,
			   unsigned int source, struct ktau_error **err)
{
	struct ktau_parse_error pe;
	struct ktau_trace *t;
	int ret;

	ktau__clear_error(&pe);
	if (!out || source > 0xffff)
		return ktau__ret_int(ktau__fail(&pe, EINVAL, 0, "%s", !out ? "NULL stream" :
						"source out of range (0 to 65535)"), &pe, err);
	t = ktau__trace_open(from, &pe);
	if (!t)
		return ktau__ret_int(-errno, &pe, err);
	ret = ktau__trace_copy_user(t, out, source, &pe);
	ktau_trace_close(t);
	return ktau__ret_int(ret, &pe, err);
}
