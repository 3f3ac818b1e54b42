// SPDX-License-Identifier: GPL-2.0-or-later
#define _GNU_SOURCE	/* fmemopen */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace_gen.h"

void tg_bytes(struct tgen *g, const void *p, size_t n)
{
	if (g->failed)
		return;
	if (g->len + n > g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 4096;
		unsigned char *b;

		while (cap < g->len + n)
			cap *= 2;
		b = realloc(g->buf, cap);
		if (!b) {
			g->failed = 1;
			return;
		}
		g->buf = b;
		g->cap = cap;
	}
	memcpy(g->buf + g->len, p, n);
	g->len += n;
}

static void le(struct tgen *g, uint64_t v, size_t bytes)
{
	unsigned char b[8];
	size_t i;

	for (i = 0; i < bytes; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	tg_bytes(g, b, bytes);
}

void tg_header(struct tgen *g, uint32_t version, uint32_t unit_size, uint32_t nr_cpus,
	       uint64_t tsc_khz)
{
	tg_bytes(g, "KTAUTRC1", 8);
	le(g, version, 4);
	le(g, 64, 4);
	le(g, unit_size, 4);
	le(g, nr_cpus, 4);
	le(g, tsc_khz, 8);
	le(g, 1000, 8);
	le(g, 2000, 8);
	le(g, 3000, 8);
	le(g, 0, 4);
	le(g, 0, 4);
}

void tg_chunk(struct tgen *g, unsigned int kind, unsigned int cpu, unsigned int source,
	      uint32_t count, uint32_t lost)
{
	le(g, 0x544b, 2);
	le(g, kind, 1);
	le(g, 0, 1);
	le(g, cpu, 2);
	le(g, source, 2);
	le(g, count, 4);
	le(g, lost, 4);
}

void tg_event(struct tgen *g, unsigned int type, uint64_t tsc, uint32_t tid, uint32_t data)
{
	le(g, (uint64_t)type << 56 | (tsc & ((UINT64_C(1) << 56) - 1)), 8);
	le(g, tid, 4);
	le(g, data, 4);
}

void tg_comm(struct tgen *g, const char *comm)
{
	char unit[16] = { 0 };

	strncpy(unit, comm, sizeof(unit));
	tg_bytes(g, unit, sizeof(unit));
}

void tg_value(struct tgen *g, uint64_t value, uint64_t reserved)
{
	le(g, value, 8);
	le(g, reserved, 8);
}

void tg_atomic(struct tgen *g, uint64_t tsc, uint32_t tid, uint32_t id, uint64_t value)
{
	tg_event(g, TG_ATOMIC, tsc, tid, id);
	tg_value(g, value, 0);
}

void tg_names(struct tgen *g, unsigned int cpu, unsigned int source, const char *text)
{
	size_t len = strlen(text), units = (len + 15) / 16;
	static const char zeros[16];

	tg_chunk(g, TG_NAMES, cpu, source, (uint32_t)units, 0);
	tg_bytes(g, text, len);
	tg_bytes(g, zeros, units * 16 - len);
}

int tg_write(const struct tgen *g, const char *path)
{
	FILE *f = fopen(path, "wb");
	int ret = 0;

	if (!f)
		return -errno;
	if (g->failed || (g->len && fwrite(g->buf, g->len, 1, f) != 1))
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

FILE *tg_stream(const struct tgen *g)
{
	return fmemopen(g->buf, g->len ? g->len : 1, "r");
}

void tg_free(struct tgen *g)
{
	free(g->buf);
	*g = (struct tgen){ 0 };
}

void tg_sample(struct tgen *g)
{
	static const unsigned char junk[32] = { 1, 2, 3 };

	tg_header(g, 1, 16, 2, 1000);
	/* CPU 1 drained first: tid 100 after it migrated */
	tg_chunk(g, TG_KERNEL, 1, 0, 8, 2);
	tg_event(g, TG_EXIT, 40, 100, 471);
	tg_event(g, TG_EXIT, 50, 100, 0);
	tg_event(g, TG_ENTRY, 60, 100, 300);
	tg_event(g, TG_EXIT, 65, 100, 300);
	tg_event(g, TG_ENTRY, 66, 100, 472);
	tg_event(g, TG_ENTRY, 67, 100, 300);
	tg_event(g, TG_EXIT, 67, 100, 300);
	tg_event(g, TG_EXIT, 68, 100, 472);
	/* CPU 0 */
	tg_chunk(g, TG_KERNEL, 0, 0, 4, 3);
	tg_event(g, TG_TASK, 5, 100, 100);
	tg_comm(g, "app");
	tg_event(g, TG_ENTRY, 20, 100, 0);
	tg_event(g, TG_ENTRY, 30, 100, 471);
	/* a later version's chunk kind */
	tg_chunk(g, 9, 0, 0, 2, 0);
	tg_bytes(g, junk, sizeof(junk));
	tg_chunk(g, TG_KERNEL, 0, 0, 10, 0);
	tg_event(g, TG_TASK, 90, 200, 100);
	tg_comm(g, "worker");
	tg_event(g, TG_ENTRY, 92, 200, 470);
	tg_event(g, TG_EXIT, 100, 200, 0);
	tg_event(g, TG_ENTRY, 110, 200, 0);
	tg_event(g, TG_ENTRY, 115, 200, 472);
	tg_event(g, TG_ENTRY, 116, 200, 300);
	tg_event(g, TG_EXIT, 120, 200, 0);
	tg_event(g, TG_ENTRY, 130, 200, 301);
	tg_event(g, TG_CONTEXT, 140, 200, 7);
	tg_chunk(g, TG_KERNEL, 1, 0, 0, 5);
	tg_names(g, 0, 0, TG_SAMPLE_FUNCTIONS);
	/* the user trace of the process, source 1 */
	tg_chunk(g, TG_USER, 0xffff, 1, 4, 4);
	tg_event(g, TG_ENTRY, 10, 100, 1);
	tg_event(g, TG_ENTRY, 15, 100, 2);
	tg_event(g, TG_EXIT, 55, 100, 2);
	tg_event(g, TG_EXIT, 70, 100, 1);
	tg_names(g, 1, 1, "1 main\n2 io\n");
}

void tg_sample_atomic(struct tgen *g)
{
	tg_header(g, 2, 16, 2, 1000);
	/* CPU 1: the later part of tid 100, then tid 200 */
	tg_chunk(g, TG_KERNEL, 1, 0, 10, 0);
	tg_event(g, TG_ENTRY, 40, 100, 1);
	tg_atomic(g, 40, 100, 481, 512);
	tg_event(g, TG_EXIT, 50, 100, 1);
	tg_atomic(g, 60, 100, 480, 0);
	tg_atomic(g, 60, 100, 480, UINT64_MAX);
	tg_atomic(g, 80, 200, 999, 7);
	/* CPU 0 */
	tg_chunk(g, TG_KERNEL, 0, 0, 8, 1);
	tg_event(g, TG_TASK, 5, 100, 100);
	tg_comm(g, "app");
	tg_event(g, TG_ENTRY, 20, 100, 0);
	tg_atomic(g, 25, 100, 480, 4096);
	tg_atomic(g, 30, 100, 480, 100);
	tg_event(g, TG_EXIT, 30, 100, 0);
	tg_names(g, 0, 0, TG_ATOMIC_FUNCTIONS);
}
