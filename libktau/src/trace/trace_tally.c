// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The tally of a trace stream as it is written: the reader's checks
 * (trace_read.c's decoders, shared through trace.h) on bytes fed in
 * pieces of any size, counting instead of decoding, so that a writer
 * (ktau-trace) can report its events without reading its file back, which
 * cost it as much as the tracing itself (docs/benchmark.md).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace.h"

enum tally_state {
	TALLY_HEADER,	/* gathering the stream header's first 64 bytes */
	TALLY_SKIP,	/* skipping: a longer header's rest, a names or unknown chunk */
	TALLY_CHUNK,	/* gathering a chunk header */
	TALLY_EVENTS,	/* units of an events chunk */
};

struct ktau_trace_tally {
	uint64_t off;			/* bytes fed */
	enum tally_state state;
	unsigned char part[KTAU_TRACE_HEADER_SIZE];	/* a header or unit split by feeds */
	size_t have;			/* bytes of it gathered */
	uint64_t skip;			/* TALLY_SKIP: bytes left */
	struct ktau_trace_header h;
	struct ktau_trace_chunk cur;
	uint32_t left;			/* units of cur not fed yet */
	unsigned int second_type;	/* 0, or the event whose second unit is next */
	uint64_t second_offset;		/* that event's offset */
	uint64_t events[2], lost[2];	/* by origin - 1 */
	struct ktau_parse_error failed;	/* error 0 until the first problem */
};

struct ktau_trace_tally *ktau_trace_tally_new(struct ktau_error **err)
{
	struct ktau_parse_error pe;
	struct ktau_trace_tally *t;

	ktau__clear_error(&pe);
	t = calloc(1, sizeof(*t));
	if (!t)
		ktau__fail(&pe, ENOMEM, 0, "out of memory");
	else
		ktau__clear_error(&t->failed);
	return ktau__ret_ptr(t, &pe, err);
}

void ktau_trace_tally_free(struct ktau_trace_tally *t)
{
	int saved = errno;

	free(t);
	errno = saved;
}

/* Gathers up to size bytes into t->part: whether it is whole. */
static bool gather(struct ktau_trace_tally *t, size_t size, const unsigned char **p, size_t *len)
{
	size_t take = size - t->have < *len ? size - t->have : *len;

	memcpy(t->part + t->have, *p, take);
	t->have += take;
	*p += take;
	*len -= take;
	t->off += take;
	return t->have == size;
}

static int take_header(struct ktau_trace_tally *t)
{
	int ret = ktau__trace_header_decode(t->part, &t->h, &t->failed);

	if (ret)
		return ret;
	t->skip = t->h.header_size - KTAU_TRACE_HEADER_SIZE;
	t->state = t->skip ? TALLY_SKIP : TALLY_CHUNK;
	return 0;
}

static int take_chunk_header(struct ktau_trace_tally *t)
{
	int ret = ktau__trace_chunk_decode(t->part, t->off - KTAU_TRACE_UNIT, &t->cur,
					   &t->failed);

	if (!ret)
		ret = ktau__trace_check_chunk(&t->cur, t->h.nr_cpus, &t->failed);
	if (ret)
		return ret;
	t->left = t->cur.count;
	if (t->cur.kind == KTAU_CHUNK_KERNEL || t->cur.kind == KTAU_CHUNK_USER) {
		t->lost[t->cur.kind - 1] += t->cur.lost;
		t->state = t->left ? TALLY_EVENTS : TALLY_CHUNK;
		return 0;
	}
	/* names are not checked here; a later version's kinds are skipped */
	t->skip = (uint64_t)t->left * KTAU_TRACE_UNIT;
	t->state = t->skip ? TALLY_SKIP : TALLY_CHUNK;
	return 0;
}

/* The unit u of the events chunk t->cur, at offset. */
static int take_unit(struct ktau_trace_tally *t, const unsigned char *u, uint64_t offset)
{
	unsigned int type = u[7];
	int ret;

	t->left--;
	if (!t->left)
		t->state = TALLY_CHUNK;
	if (t->second_type) {
		type = t->second_type;
		t->second_type = 0;
		return ktau__trace_check_second(type, u, t->second_offset, &t->failed);
	}
	ret = ktau__trace_check_type(type, t->h.version, offset, &t->failed);
	if (ret)
		return ret;
	t->events[t->cur.kind - 1]++;
	if (!ktau__trace_two_units(type))
		return 0;
	if (!t->left)
		return ktau__trace_no_second(type, offset, &t->failed);
	t->second_type = type;
	t->second_offset = offset;
	return 0;
}

/* Whether type is an ENTRY's or an EXIT's, in one compare. */
static inline bool entry_or_exit(unsigned int type)
{
	_Static_assert(KTAU_TRACE_ENTRY == 1 && KTAU_TRACE_EXIT == 2,
		       "ENTRY and EXIT are types 1 and 2");
	return type - 1u <= 1u;
}

/*
 * The run of common events at p counted at a few instructions a unit: how
 * many units it took (0: take_unit() has the next one).  ENTRY and EXIT
 * (valid in every version), and in version 2 an ATOMIC whose second unit
 * is in this piece and of this chunk with its reserved word 0: a read()'s
 * or write()'s bytes, which a file tree's trace has after every other
 * call, so that leaving them to take_unit() cost a restart each.  Two
 * units a step, one test for both when both are ENTRY or EXIT (types 1
 * and 2: their types less one, or'ed, are at most 1), and the events
 * counted once at the end (units less the ATOMICs' second units): the
 * loop runs once per unit ktau-trace writes, and took about a tenth of
 * the user time of a traced fork-and-exec workload (docs/benchmark.md).
 */
static size_t count_common(struct ktau_trace_tally *t, const unsigned char *p, size_t len)
{
	const unsigned char *u = p, *end, *end_pair;
	bool atomic = t->h.version >= 2;
	size_t n = len / KTAU_TRACE_UNIT, i;
	uint64_t seconds = 0;

	if (t->second_type)
		return 0;
	if (n > t->left)
		n = t->left;
	end = p + n * KTAU_TRACE_UNIT;
	/* where a pair of units still fits */
	end_pair = n ? end - KTAU_TRACE_UNIT : p;
	for (;;) {
		unsigned int type;

		while (u < end_pair && ((u[7] - 1u) | (u[KTAU_TRACE_UNIT + 7] - 1u)) <= 1u)
			u += 2 * KTAU_TRACE_UNIT;
		if (u >= end)
			break;
		type = u[7];
		if (entry_or_exit(type)) {
			u += KTAU_TRACE_UNIT;
		} else if (type == KTAU_TRACE_ATOMIC && atomic && u < end_pair &&
			   !ktau__le64(u + KTAU_TRACE_UNIT + 8)) {
			u += 2 * KTAU_TRACE_UNIT;
			seconds++;
		} else {
			break;
		}
	}
	i = (size_t)(u - p) / KTAU_TRACE_UNIT;
	t->events[t->cur.kind - 1] += i - seconds;
	t->left -= (uint32_t)i;
	t->off += i * KTAU_TRACE_UNIT;
	if (!t->left)
		t->state = TALLY_CHUNK;
	return i;
}

static int feed(struct ktau_trace_tally *t, const unsigned char *p, size_t len)
{
	int ret = 0;

	while (len && !ret) {
		switch (t->state) {
		case TALLY_HEADER:
			if (gather(t, KTAU_TRACE_HEADER_SIZE, &p, &len)) {
				t->have = 0;
				ret = take_header(t);
			}
			break;
		case TALLY_SKIP: {
			size_t take = t->skip < len ? (size_t)t->skip : len;

			t->skip -= take;
			t->off += take;
			p += take;
			len -= take;
			if (!t->skip)
				t->state = TALLY_CHUNK;
			break;
		}
		case TALLY_CHUNK:
			if (gather(t, KTAU_TRACE_UNIT, &p, &len)) {
				t->have = 0;
				ret = take_chunk_header(t);
			}
			break;
		case TALLY_EVENTS:
			if (t->have) {
				if (gather(t, KTAU_TRACE_UNIT, &p, &len)) {
					t->have = 0;
					ret = take_unit(t, t->part, t->off - KTAU_TRACE_UNIT);
				}
				break;
			}
			/* the common case: whole units where they lie */
			while (!ret && len >= KTAU_TRACE_UNIT && t->state == TALLY_EVENTS) {
				size_t n = count_common(t, p, len);

				if (n) {
					p += n * KTAU_TRACE_UNIT;
					len -= n * KTAU_TRACE_UNIT;
					continue;
				}
				ret = take_unit(t, p, t->off);
				p += KTAU_TRACE_UNIT;
				len -= KTAU_TRACE_UNIT;
				t->off += KTAU_TRACE_UNIT;
			}
			if (!ret && len && len < KTAU_TRACE_UNIT && t->state == TALLY_EVENTS)
				gather(t, KTAU_TRACE_UNIT, &p, &len);
			break;
		}
	}
	return ret;
}

int ktau_trace_tally_feed(struct ktau_trace_tally *t, const void *data, size_t len,
			  struct ktau_error **err)
{
	struct ktau_parse_error pe;

	ktau__clear_error(&pe);
	if (!t || (!data && len))
		return ktau__ret_int(ktau__fail(&pe, EINVAL, 0, "NULL argument"), &pe, err);
	if (!t->failed.error)
		feed(t, data, len);
	if (t->failed.error)
		return ktau__ret_int(t->failed.error, &t->failed, err);
	if (err)
		*err = NULL;
	return 0;
}

int ktau_trace_tally_end(const struct ktau_trace_tally *t, struct ktau_error **err)
{
	struct ktau_parse_error pe;

	ktau__clear_error(&pe);
	if (!t)
		return ktau__ret_int(ktau__fail(&pe, EINVAL, 0, "NULL argument"), &pe, err);
	if (t->failed.error)
		return ktau__ret_int(t->failed.error, &t->failed, err);
	if (!t->off)
		ktau__fail(&pe, EPROTO, 0, "empty input: not a ktau trace");
	else if (t->state == TALLY_HEADER || (t->state == TALLY_SKIP && t->off <= t->h.header_size))
		ktau__fail(&pe, EPROTO, 0, "truncated: the stream ends inside the stream header "
			   "at offset %llu", (unsigned long long)t->off);
	else if (t->state == TALLY_CHUNK && t->have)
		ktau__fail(&pe, EPROTO, 0, "truncated: the stream ends inside a chunk header "
			   "at offset %llu", (unsigned long long)(t->off - t->have));
	else if (t->state != TALLY_CHUNK)
		ktau__fail(&pe, EPROTO, 0, "truncated: the stream ends inside the chunk at "
			   "offset %llu", (unsigned long long)t->cur.offset);
	if (pe.error)
		return ktau__ret_int(pe.error, &pe, err);
	if (err)
		*err = NULL;
	return 0;
}

uint64_t ktau_trace_tally_events(const struct ktau_trace_tally *t, unsigned int origin)
{
	if (!t || origin < KTAU_TRACE_KERNEL || origin > KTAU_TRACE_USER)
		return 0;
	return t->events[origin - 1];
}

uint64_t ktau_trace_tally_lost(const struct ktau_trace_tally *t, unsigned int origin)
{
	if (!t || origin < KTAU_TRACE_KERNEL || origin > KTAU_TRACE_USER)
		return 0;
	return t->lost[origin - 1];
}
