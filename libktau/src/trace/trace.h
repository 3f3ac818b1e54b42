/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private to libktau: the trace format (docs/trace-format.md), its one
 * reader (trace_read.c), its tally of a stream as written (trace_tally.c),
 * the per-thread rebuild (trace_timeline.c), the trace-event JSON writer
 * (trace_json.c) and the chunks ktau-trace appends (trace_append.c).
 */
#ifndef KTAU_TRACE_TRACE_H
#define KTAU_TRACE_TRACE_H

#include <stdbool.h>

#include "util/util.h"

#define KTAU_TRACE_MAGIC "KTAUTRC1"
#define KTAU_TRACE_HEADER_SIZE 64
#define KTAU_TRACE_UNIT 16
#define KTAU_TRACE_CHUNK_MAGIC 0x544b
#define KTAU_TRACE_TSC_MASK ((UINT64_C(1) << 56) - 1)

enum ktau_trace_chunk_kind {
	KTAU_CHUNK_KERNEL = 1,
	KTAU_CHUNK_USER = 2,
	KTAU_CHUNK_NAMES = 3,
};

/* names chunk cpu values */
#define KTAU_NAMES_KERNEL 0
#define KTAU_NAMES_USER 1
/* the cpu of a user events chunk */
#define KTAU_USER_CPU 0xffff
/* A names chunk larger than this is refused rather than read into memory. */
#define KTAU_TRACE_MAX_NAMES ((size_t)64 << 20)

struct ktau_trace_chunk {
	unsigned int kind, flags, cpu, source;
	uint32_t count, lost;
	uint64_t offset;	/* of its header in the stream */
};

/* The stream header's fields. */
struct ktau_trace_header {
	unsigned int version, header_size, nr_cpus;
	uint64_t tsc_khz, anchor_tsc, realtime_ns, monotonic_ns;
};

/* Little-endian fields of a unit. */
static inline uint16_t ktau__le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t ktau__le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t ktau__le64(const unsigned char *p)
{
	return (uint64_t)ktau__le32(p) | (uint64_t)ktau__le32(p + 4) << 32;
}

/* The stream header's first KTAU_TRACE_HEADER_SIZE bytes at p: 0, or
 * -EPROTO / -EPROTONOSUPPORT (err filled). */
KTAU_HIDDEN int ktau__trace_header_decode(const unsigned char *p, struct ktau_trace_header *h,
					  struct ktau_parse_error *err);

/* TASK, EXEC and ATOMIC: a second unit belongs to the event. */
static inline bool ktau__trace_two_units(unsigned int type)
{
	return type == KTAU_TRACE_TASK || type == KTAU_TRACE_EXEC || type == KTAU_TRACE_ATOMIC;
}

/* An event's type byte in a stream of version: 0, or -EPROTO (err filled)
 * for a type the version does not have. */
KTAU_HIDDEN int ktau__trace_check_type(unsigned int type, unsigned int version,
				       uint64_t offset, struct ktau_parse_error *err);
/* -EPROTO (err filled): the two-unit event of type at offset is the last
 * unit of its chunk. */
KTAU_HIDDEN int ktau__trace_no_second(unsigned int type, uint64_t offset,
				      struct ktau_parse_error *err);
/* The second unit of a two-unit event of type: 0, or -EPROTO for an
 * ATOMIC whose reserved word is not 0. */
KTAU_HIDDEN int ktau__trace_check_second(unsigned int type, const unsigned char *second,
					 uint64_t offset, struct ktau_parse_error *err);

/* The chunk header at p (16 bytes): 0, or -EPROTO (err filled) for a bad magic. */
KTAU_HIDDEN int ktau__trace_chunk_decode(const unsigned char *p, uint64_t offset,
					 struct ktau_trace_chunk *c,
					 struct ktau_parse_error *err);
/* Writes a chunk header; 0, -EINVAL (a field out of range) or -EIO. */
KTAU_HIDDEN int ktau__trace_write_chunk_header(FILE *out, unsigned int kind, unsigned int cpu,
					       unsigned int source, uint64_t count,
					       uint32_t lost);

/* A kernel events chunk's cpu must be one the header allows, a names
 * chunk no larger than KTAU_TRACE_MAX_NAMES: 0, or -EPROTO. */
KTAU_HIDDEN int ktau__trace_check_chunk(const struct ktau_trace_chunk *c, unsigned int nr_cpus,
					struct ktau_parse_error *err);

/* A stream open for reading: trace_read.c */
struct ktau_trace;
/* The header and names/lost pre-scan of ktau_trace_open(), from an open stream. */
KTAU_HIDDEN struct ktau_trace *ktau__trace_open(const struct ktau_load_opts *opts,
						struct ktau_parse_error *err);
KTAU_HIDDEN int ktau__trace_next(struct ktau_trace *t, const struct ktau_trace_event **ev,
				 struct ktau_parse_error *err);
/* Appends the kind 2 and kind 3 cpu 1 chunks of the rest of t to out with
 * their source set to source, checking every chunk as ktau__trace_next()
 * does; 0 or -errno. For ktau_trace_append_user(). */
KTAU_HIDDEN int ktau__trace_copy_user(struct ktau_trace *t, FILE *out, unsigned int source,
				      struct ktau_parse_error *err);
/* The latest kernel function map of the names seen, or NULL. */
KTAU_HIDDEN const struct ktau_functions *ktau__trace_kernel_names(const struct ktau_trace *t);

#endif /* KTAU_TRACE_TRACE_H */
