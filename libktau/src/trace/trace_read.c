// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The one reader of the trace format (docs/trace-format.md). It streams:
 * a unit at a time through stdio, one names chunk at most in memory, so a
 * trace of any length is read in bounded memory (the names, the per-CPU
 * lost totals and one event).
 */
#define _FILE_OFFSET_BITS 64
#define _GNU_SOURCE	/* fseeko, ftello */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trace/trace.h"

struct user_name {
	const char *name;
};

/*
 * Bytes read from the stream at once: fread() of each 16-byte unit cost
 * ktau-trace's read-back of a trace about as much as tracing did.
 */
#define KTAU_TRACE_READ_BUF 65536

struct ktau_trace {
	FILE *f;
	bool own;		/* f was opened from a path */
	uint64_t off;		/* bytes consumed from the stream's start */
	/* read from f, not consumed yet: rbuf[rpos, rlen) is at off */
	size_t rpos, rlen;
	unsigned char rbuf[KTAU_TRACE_READ_BUF];

	struct ktau_trace_header h;

	struct ktau_trace_chunk cur;	/* the chunk being read */
	uint32_t left;			/* its units not yet read */
	bool in_chunk, done;

	uint64_t *lost;			/* per kernel CPU */
	size_t nr_lost;
	uint64_t lost_user;
	/* chunks before this offset were read by the pre-scan: their names
	 * and lost counts are known already */
	uint64_t prescanned;

	struct ktau_functions *kernel_names;
	struct user_name *user_names;	/* values of user_index */
	size_t nr_user_names, cap_user_names;
	struct ktau_u64map user_index;	/* source << 32 | id -> user_names[] */
	struct ktau_strpool strings;

	struct ktau_trace_event ev;
	unsigned char second[KTAU_TRACE_UNIT];	/* a two-unit event's second unit */
	char comm[KTAU_TRACE_UNIT + 1];
};

/* ---- bytes ---- */

/* 0, 1 at a clean end of stream (nothing read), -EPROTO when the stream
 * ends inside, -errno when reading fails. */
static int read_exact(struct ktau_trace *t, void *buf, size_t n, const char *what,
		      struct ktau_parse_error *err)
{
	unsigned char *dst = buf;
	size_t got = 0;

	while (got < n) {
		size_t k;

		if (t->rpos == t->rlen) {
			t->rpos = 0;
			t->rlen = fread(t->rbuf, 1, sizeof(t->rbuf), t->f);
			if (!t->rlen)
				break;
		}
		k = t->rlen - t->rpos < n - got ? t->rlen - t->rpos : n - got;
		memcpy(dst + got, t->rbuf + t->rpos, k);
		t->rpos += k;
		got += k;
	}
	t->off += got;
	if (got == n)
		return 0;
	if (ferror(t->f))
		return ktau__fail(err, EIO, 0, "reading the trace at offset %llu failed",
				  (unsigned long long)t->off);
	if (!got)
		return 1;
	return ktau__fail(err, EPROTO, 0, "truncated: the stream ends inside %s at "
			  "offset %llu", what, (unsigned long long)(t->off - got));
}

/* Moves to offset off of a file: 0, or -1 (fseeko's errno). */
static int seek_to(struct ktau_trace *t, uint64_t off)
{
	if (fseeko(t->f, (off_t)off, SEEK_SET))
		return -1;
	t->rpos = t->rlen = 0;
	t->off = off;
	return 0;
}

/* Skips n bytes that must be there: -EPROTO when the stream ends first. */
static int skip_bytes(struct ktau_trace *t, uint64_t n, const char *what,
		      struct ktau_parse_error *err)
{
	unsigned char buf[4096];
	uint64_t start = t->off;

	while (n) {
		size_t step = n < sizeof(buf) ? (size_t)n : sizeof(buf);
		int ret = read_exact(t, buf, step, what, err);

		if (ret > 0)
			return ktau__fail(err, EPROTO, 0, "truncated: the stream ends inside "
					  "%s at offset %llu", what, (unsigned long long)start);
		if (ret)
			return ret;
		n -= step;
	}
	return 0;
}

/* ---- the stream header ---- */

int ktau__trace_header_decode(const unsigned char *p, struct ktau_trace_header *h,
			      struct ktau_parse_error *err)
{
	unsigned int unit;

	if (memcmp(p, KTAU_TRACE_MAGIC, 8))
		return ktau__fail(err, EPROTO, 0, "not a ktau trace (the magic is not "
				  "'" KTAU_TRACE_MAGIC "')");
	h->version = ktau__le32(p + 8);
	if (h->version < 1 || h->version > KTAU_TRACE_FORMAT_VERSION)
		return ktau__fail(err, EPROTONOSUPPORT, 0, "trace format version %u is not "
				  "supported (this library reads 1 to %d)", h->version,
				  KTAU_TRACE_FORMAT_VERSION);
	h->header_size = ktau__le32(p + 12);
	if (h->header_size < KTAU_TRACE_HEADER_SIZE)
		return ktau__fail(err, EPROTO, 0, "header_size %u is below %d",
				  h->header_size, KTAU_TRACE_HEADER_SIZE);
	unit = ktau__le32(p + 16);
	if (unit != KTAU_TRACE_UNIT)
		return ktau__fail(err, EPROTO, 0, "unit_size %u, expected %d", unit,
				  KTAU_TRACE_UNIT);
	h->nr_cpus = ktau__le32(p + 20);
	h->tsc_khz = ktau__le64(p + 24);
	h->anchor_tsc = ktau__le64(p + 32);
	h->realtime_ns = ktau__le64(p + 40);
	h->monotonic_ns = ktau__le64(p + 48);
	return 0;
}

static int read_header(struct ktau_trace *t, struct ktau_parse_error *err)
{
	unsigned char h[KTAU_TRACE_HEADER_SIZE];
	int ret;

	ret = read_exact(t, h, sizeof(h), "the stream header", err);
	if (ret > 0)
		return ktau__fail(err, EPROTO, 0, "empty input: not a ktau trace");
	if (ret)
		return ret;
	ret = ktau__trace_header_decode(h, &t->h, err);
	if (ret)
		return ret;
	/* a later version's header is longer: what it adds is skipped */
	return skip_bytes(t, t->h.header_size - KTAU_TRACE_HEADER_SIZE, "the stream header",
			  err);
}

/* ---- chunks ---- */

int ktau__trace_chunk_decode(const unsigned char *p, uint64_t offset,
			     struct ktau_trace_chunk *c, struct ktau_parse_error *err)
{
	uint16_t magic = ktau__le16(p);

	if (magic != KTAU_TRACE_CHUNK_MAGIC)
		return ktau__fail(err, EPROTO, 0, "chunk at offset %llu: bad magic 0x%04x "
				  "(expected 0x%04x)", (unsigned long long)offset, magic,
				  KTAU_TRACE_CHUNK_MAGIC);
	c->kind = p[2];
	c->flags = p[3];
	c->cpu = ktau__le16(p + 4);
	c->source = ktau__le16(p + 6);
	c->count = ktau__le32(p + 8);
	c->lost = ktau__le32(p + 12);
	c->offset = offset;
	return 0;
}

/* 1 with t->cur set, 0 at the end of the stream, or -errno. */
static int read_chunk_header(struct ktau_trace *t, struct ktau_parse_error *err)
{
	unsigned char h[KTAU_TRACE_UNIT];
	uint64_t offset = t->off;
	int ret = read_exact(t, h, sizeof(h), "a chunk header", err);

	if (ret)
		return ret > 0 ? 0 : ret;
	ret = ktau__trace_chunk_decode(h, offset, &t->cur, err);
	if (ret)
		return ret;
	t->left = t->cur.count;
	return 1;
}

static void add_lost(struct ktau_trace *t, const struct ktau_trace_chunk *c)
{
	if (c->kind == KTAU_CHUNK_USER) {
		t->lost_user += c->lost;
		return;
	}
	if (c->kind != KTAU_CHUNK_KERNEL || !c->lost)
		return;
	if (c->cpu >= t->nr_lost) {
		/* cpu is 16 bits: at most 65536 counters */
		uint64_t *p = realloc(t->lost, (c->cpu + 1) * sizeof(*p));

		if (!p)
			return;	/* a total we cannot keep; events still read */
		memset(p + t->nr_lost, 0, (c->cpu + 1 - t->nr_lost) * sizeof(*p));
		t->lost = p;
		t->nr_lost = c->cpu + 1;
	}
	t->lost[c->cpu] += c->lost;
}

int ktau__trace_check_chunk(const struct ktau_trace_chunk *c, unsigned int nr_cpus,
			    struct ktau_parse_error *err)
{
	if (c->kind == KTAU_CHUNK_KERNEL && c->cpu >= nr_cpus)
		return ktau__fail(err, EPROTO, 0, "chunk at offset %llu: cpu %u, but the "
				  "header says nr_cpus %u", (unsigned long long)c->offset,
				  c->cpu, nr_cpus);
	if (c->kind == KTAU_CHUNK_NAMES &&
	    (uint64_t)c->count * KTAU_TRACE_UNIT > KTAU_TRACE_MAX_NAMES)
		return ktau__fail(err, EPROTO, 0, "chunk at offset %llu: a names chunk of "
				  "%u units is larger than %zu MiB", (unsigned long long)c->offset,
				  c->count, KTAU_TRACE_MAX_NAMES >> 20);
	return 0;
}

static int check_chunk(const struct ktau_trace *t, const struct ktau_trace_chunk *c,
		       struct ktau_parse_error *err)
{
	return ktau__trace_check_chunk(c, t->h.nr_cpus, err);
}

/* ---- names ---- */

/* "ID NAME" lines: NAME is the rest of the line (C++ names have blanks). */
static int parse_user_names(struct ktau_trace *t, unsigned int source, const char *text,
			    size_t len, uint64_t offset, struct ktau_parse_error *err)
{
	const char *pos = text, *end = text + len;
	unsigned int line = 0;

	while (pos < end) {
		const char *nl = memchr(pos, '\n', (size_t)(end - pos));
		const char *eol = nl ? nl : end, *sp, *name;
		uint64_t id;
		size_t name_len;

		line++;
		if (eol > pos && eol[-1] == '\r')
			eol--;
		if (eol == pos) {
			pos = nl ? nl + 1 : end;
			continue;
		}
		sp = memchr(pos, ' ', (size_t)(eol - pos));
		if (!sp || ktau__parse_u64(pos, (size_t)(sp - pos), &id) || id > UINT32_MAX)
			return ktau__fail(err, EPROTO, line, "names chunk at offset %llu: "
					  "expected 'ID NAME'", (unsigned long long)offset);
		name = sp + 1;
		name_len = (size_t)(eol - name);
		if (!name_len)
			return ktau__fail(err, EPROTO, line, "names chunk at offset %llu: "
					  "id %llu has no name", (unsigned long long)offset,
					  (unsigned long long)id);
		if (ktau__grow((void **)&t->user_names, &t->cap_user_names, t->nr_user_names,
			       sizeof(*t->user_names)))
			return ktau__fail(err, ENOMEM, line, "out of memory");
		t->user_names[t->nr_user_names].name =
			ktau__strpool_add(&t->strings, name, name_len);
		if (!t->user_names[t->nr_user_names].name ||
		    ktau__u64map_put(&t->user_index, (uint64_t)source << 32 | id,
				     (uint32_t)t->nr_user_names))
			return ktau__fail(err, ENOMEM, line, "out of memory");
		t->nr_user_names++;
		pos = nl ? nl + 1 : end;
	}
	return 0;
}

static int parse_names(struct ktau_trace *t, const struct ktau_trace_chunk *c,
		       const char *body, size_t size, struct ktau_parse_error *err)
{
	size_t len = strnlen(body, size);	/* NUL padding ends the text */
	struct ktau_functions *map;
	struct ktau_error *e;

	if (c->cpu == KTAU_NAMES_USER)
		return parse_user_names(t, c->source, body, len, c->offset, err);
	if (c->cpu != KTAU_NAMES_KERNEL)
		return 0;	/* names of a later version's kind */
	map = ktau_functions_parse(body, len, &e);
	if (!map) {
		int code = -ktau_error_code(e);

		ktau__fail(err, code, ktau_error_line(e), "names chunk at offset %llu: %s",
			   (unsigned long long)c->offset, ktau_error_message(e));
		ktau_error_free(e);
		return -code;
	}
	ktau_functions_free(t->kernel_names);
	t->kernel_names = map;
	return 0;
}

/* Reads the body of the names chunk t->cur and parses it. */
static int read_names(struct ktau_trace *t, bool parse, struct ktau_parse_error *err)
{
	size_t size = (size_t)t->cur.count * KTAU_TRACE_UNIT;
	char *body;
	int ret;

	if (!parse) {
		t->left = 0;
		return skip_bytes(t, size, "a names chunk", err);
	}
	body = malloc(size + 1);
	if (!body)
		return ktau__fail(err, ENOMEM, 0, "out of memory");
	ret = read_exact(t, body, size, "a names chunk", err);
	if (ret > 0)
		ret = ktau__fail(err, EPROTO, 0, "truncated: the stream ends before the "
				 "names chunk at offset %llu", (unsigned long long)t->cur.offset);
	if (!ret) {
		body[size] = '\0';
		ret = parse_names(t, &t->cur, body, size, err);
	}
	free(body);
	t->left = 0;
	return ret;
}

/*
 * When the stream is a file: every chunk header once, seeking over the
 * bodies, to have the names (ktau-trace writes them last) and the lost
 * totals before the first event. Stops quietly at the first problem: the
 * events pass reports it where it is.
 */
static void prescan(struct ktau_trace *t)
{
	uint64_t start = t->off;
	off_t pos = ftello(t->f);
	struct stat st;

	if (pos < 0 || (uint64_t)pos != t->off + (t->rlen - t->rpos) ||
	    fstat(fileno(t->f), &st) ||
	    !S_ISREG(st.st_mode))
		return;
	for (;;) {
		uint64_t end;

		if (read_chunk_header(t, NULL) <= 0 || check_chunk(t, &t->cur, NULL))
			break;
		end = t->off + (uint64_t)t->cur.count * KTAU_TRACE_UNIT;
		if (end > (uint64_t)st.st_size)
			break;
		if (t->cur.kind == KTAU_CHUNK_NAMES) {
			if (read_names(t, true, NULL))
				break;
		} else if (seek_to(t, end)) {
			break;
		}
		t->off = end;
		add_lost(t, &t->cur);
		t->prescanned = end;
	}
	clearerr(t->f);
	t->left = 0;
	if (seek_to(t, start))
		t->prescanned = 0;	/* cannot happen on a file we just read */
	t->off = start;
}

/* ---- open and close ---- */

void ktau_trace_close(struct ktau_trace *t)
{
	int saved = errno;

	if (!t)
		return;
	if (t->own)
		fclose(t->f);
	free(t->lost);
	ktau_functions_free(t->kernel_names);
	free(t->user_names);
	ktau__u64map_free(&t->user_index);
	ktau__strpool_free(&t->strings);
	free(t);
	errno = saved;
}

struct ktau_trace *ktau__trace_open(const struct ktau_load_opts *opts,
				    struct ktau_parse_error *err)
{
	struct ktau_trace *t;
	const char *path;
	FILE *stream;
	int ret;

	ret = ktau__load_source(opts, &path, &stream, err);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		errno = -ktau__fail(err, ENOMEM, 0, "out of memory");
		return NULL;
	}
	t->f = stream;
	if (path) {
		t->f = fopen(path, "rbe");
		if (!t->f) {
			int error = errno;

			free(t);
			errno = -ktau__fail(err, error, 0, "%s: %s", path, ktau_strerror(error));
			return NULL;
		}
		t->own = true;
	}
	ret = read_header(t, err);
	if (ret) {
		ktau_trace_close(t);
		errno = -ret;
		return NULL;
	}
	prescan(t);
	return t;
}

struct ktau_trace *ktau_trace_open(const struct ktau_load_opts *opts,
				   struct ktau_error **err)
{
	struct ktau_parse_error pe;

	ktau__clear_error(&pe);
	return ktau__ret_ptr(ktau__trace_open(opts, &pe), &pe, err);
}

/* ---- events ---- */

/*
 * Starts the next chunk that has units to read: names are parsed, unknown
 * kinds skipped. 1 with t->cur a kernel or user events chunk, 0 at the
 * end, or -errno.
 */
static int next_events_chunk(struct ktau_trace *t, struct ktau_parse_error *err)
{
	for (;;) {
		bool seen;
		int ret = read_chunk_header(t, err);

		if (ret <= 0)
			return ret;
		ret = check_chunk(t, &t->cur, err);
		if (ret)
			return ret;
		seen = t->cur.offset < t->prescanned;
		if (!seen)
			add_lost(t, &t->cur);
		switch (t->cur.kind) {
		case KTAU_CHUNK_KERNEL:
		case KTAU_CHUNK_USER:
			if (t->left)
				return 1;
			break;
		case KTAU_CHUNK_NAMES:
			ret = read_names(t, !seen, err);
			break;
		default:	/* a later version's kind: skipped whole */
			ret = skip_bytes(t, (uint64_t)t->left * KTAU_TRACE_UNIT,
					 "a chunk of unknown kind", err);
			t->left = 0;
			break;
		}
		if (ret)
			return ret;
	}
}

static const char *two_unit_name(unsigned int type)
{
	return type == KTAU_TRACE_TASK ? "TASK" : type == KTAU_TRACE_EXEC ? "EXEC" : "ATOMIC";
}

int ktau__trace_no_second(unsigned int type, uint64_t offset, struct ktau_parse_error *err)
{
	return ktau__fail(err, EPROTO, 0, "event at offset %llu: %s without its %s unit "
			  "(the chunk ends)", (unsigned long long)offset, two_unit_name(type),
			  type == KTAU_TRACE_ATOMIC ? "value" : "comm");
}

/* The second unit of the two-unit event at offset into t->second. */
static int read_second_unit(struct ktau_trace *t, unsigned int type, uint64_t offset,
			    struct ktau_parse_error *err)
{
	const char *what = type == KTAU_TRACE_ATOMIC ? "value" : "comm";
	int ret;

	if (!t->left)
		return ktau__trace_no_second(type, offset, err);
	ret = read_exact(t, t->second, KTAU_TRACE_UNIT, "an event's second unit", err);
	if (ret > 0)
		ret = ktau__fail(err, EPROTO, 0, "truncated: the stream ends before the "
				 "%s unit of the event at offset %llu", what,
				 (unsigned long long)offset);
	if (ret)
		return ret;
	t->left--;
	return 0;
}

int ktau__trace_check_type(unsigned int type, unsigned int version, uint64_t offset,
			   struct ktau_parse_error *err)
{
	unsigned int last = version >= 2 ? KTAU_TRACE_ATOMIC : KTAU_TRACE_CONTEXT;

	if (type < KTAU_TRACE_ENTRY || type > last)
		return ktau__fail(err, EPROTO, 0, "event at offset %llu: unknown type %u%s",
				  (unsigned long long)offset, type,
				  type == KTAU_TRACE_ATOMIC ? " (ATOMIC) in a version 1 stream"
							    : "");
	return 0;
}

int ktau__trace_check_second(unsigned int type, const unsigned char *second, uint64_t offset,
			     struct ktau_parse_error *err)
{
	uint64_t reserved = ktau__le64(second + 8);

	if (type == KTAU_TRACE_ATOMIC && reserved)
		return ktau__fail(err, EPROTO, 0, "event at offset %llu: ATOMIC with "
				  "reserved word 0x%llx (must be 0)",
				  (unsigned long long)offset, (unsigned long long)reserved);
	return 0;
}

/* Decodes the event unit u (and its second unit) of chunk t->cur into t->ev. */
static int decode_event(struct ktau_trace *t, const unsigned char *u, uint64_t offset,
			struct ktau_parse_error *err)
{
	uint64_t stamp = ktau__le64(u);
	unsigned int type = (unsigned int)(stamp >> 56);
	int ret;

	ret = ktau__trace_check_type(type, t->h.version, offset, err);
	if (ret)
		return ret;
	t->ev = (struct ktau_trace_event){
		.tsc = stamp & KTAU_TRACE_TSC_MASK,
		.tid = ktau__le32(u + 8),
		.data = ktau__le32(u + 12),
		.type = type,
		.origin = t->cur.kind == KTAU_CHUNK_KERNEL ? KTAU_TRACE_KERNEL
							  : KTAU_TRACE_USER,
		.cpu = t->cur.cpu,
		.source = t->cur.source,
	};
	if (!ktau__trace_two_units(type))
		return 0;
	ret = read_second_unit(t, type, offset, err);
	if (!ret)
		ret = ktau__trace_check_second(type, t->second, offset, err);
	if (ret)
		return ret;
	if (type == KTAU_TRACE_ATOMIC) {
		t->ev.value = ktau__le64(t->second);
		return 0;
	}
	memcpy(t->comm, t->second, KTAU_TRACE_UNIT);
	t->comm[KTAU_TRACE_UNIT] = '\0';
	t->ev.comm = t->comm;
	return 0;
}

/* The next event unit of chunk t->cur (and its second unit) into u and t->ev. */
static int read_event(struct ktau_trace *t, unsigned char u[KTAU_TRACE_UNIT],
		      struct ktau_parse_error *err)
{
	uint64_t offset = t->off;
	int ret;

	/* the common case, without read_exact()'s loop: the unit is buffered */
	if (t->rlen - t->rpos >= KTAU_TRACE_UNIT) {
		memcpy(u, t->rbuf + t->rpos, KTAU_TRACE_UNIT);
		t->rpos += KTAU_TRACE_UNIT;
		t->off += KTAU_TRACE_UNIT;
		t->left--;
		return decode_event(t, u, offset, err);
	}
	ret = read_exact(t, u, KTAU_TRACE_UNIT, "an event", err);
	if (ret > 0)
		ret = ktau__fail(err, EPROTO, 0, "truncated: the chunk at offset %llu "
				 "says %u units, the stream ends after %u",
				 (unsigned long long)t->cur.offset, t->cur.count,
				 t->cur.count - t->left);
	if (ret)
		return ret;
	t->left--;
	return decode_event(t, u, offset, err);
}

int ktau__trace_next(struct ktau_trace *t, const struct ktau_trace_event **ev,
		     struct ktau_parse_error *err)
{
	unsigned char u[KTAU_TRACE_UNIT];
	int ret;

	if (t->done)
		return 0;
	if (!t->left) {
		ret = next_events_chunk(t, err);
		if (ret <= 0) {
			t->done = ret == 0;
			return ret;
		}
	}
	ret = read_event(t, u, err);
	if (ret)
		return ret;
	*ev = &t->ev;
	return 1;
}

int ktau_trace_next(struct ktau_trace *t, const struct ktau_trace_event **ev,
		    struct ktau_error **err)
{
	struct ktau_parse_error pe;
	int ret;

	ktau__clear_error(&pe);
	if (!t || !ev)
		return ktau__ret_int(ktau__fail(&pe, EINVAL, 0, "NULL argument"), &pe, err);
	ret = ktau__trace_next(t, ev, &pe);
	if (ret < 0)
		return ktau__ret_int(ret, &pe, err);
	if (err)
		*err = NULL;
	return ret;
}

/* ---- copying a user trace's chunks ---- */

/* The units of the user events chunk t->cur, checked and copied. */
static int copy_user_events(struct ktau_trace *t, FILE *out, struct ktau_parse_error *err)
{
	while (t->left) {
		unsigned char u[KTAU_TRACE_UNIT];
		int ret = read_event(t, u, err);

		if (ret)
			return ret;
		if (fwrite(u, sizeof(u), 1, out) != 1 ||
		    (ktau__trace_two_units(t->ev.type) && fwrite(t->second, KTAU_TRACE_UNIT, 1, out) != 1))
			return ktau__fail(err, EIO, 0, "writing the trace failed");
	}
	return 0;
}

int ktau__trace_copy_user(struct ktau_trace *t, FILE *out, unsigned int source,
			  struct ktau_parse_error *err)
{
	int ret;

	t->prescanned = 0;	/* every names chunk is read again to copy it */
	for (;;) {
		ret = read_chunk_header(t, err);
		if (ret <= 0)
			return ret;
		ret = check_chunk(t, &t->cur, err);
		if (ret)
			return ret;
		if (t->cur.kind == KTAU_CHUNK_USER) {
			if (ktau__trace_write_chunk_header(out, t->cur.kind, t->cur.cpu, source,
							   t->cur.count, t->cur.lost))
				return ktau__fail(err, EIO, 0, "writing the trace failed");
			ret = copy_user_events(t, out, err);
		} else if (t->cur.kind == KTAU_CHUNK_NAMES && t->cur.cpu == KTAU_NAMES_USER) {
			size_t size = (size_t)t->cur.count * KTAU_TRACE_UNIT;
			char *body = malloc(size + 1);

			if (!body)
				return ktau__fail(err, ENOMEM, 0, "out of memory");
			ret = read_exact(t, body, size, "a names chunk", err);
			if (ret > 0)
				ret = ktau__fail(err, EPROTO, 0, "truncated: the stream ends "
						 "before the names chunk at offset %llu",
						 (unsigned long long)t->cur.offset);
			body[size] = '\0';
			t->left = 0;
			if (!ret)
				ret = parse_names(t, &t->cur, body, size, err);
			if (!ret && (ktau__trace_write_chunk_header(out, t->cur.kind, t->cur.cpu, source,
							   t->cur.count, t->cur.lost) ||
				     fwrite(body, 1, size, out) != size))
				ret = ktau__fail(err, EIO, 0, "writing the trace failed");
			free(body);
		} else {
			ret = skip_bytes(t, (uint64_t)t->left * KTAU_TRACE_UNIT, "a chunk", err);
			t->left = 0;
		}
		if (ret)
			return ret;
	}
}

/* ---- what the stream said ---- */

unsigned int ktau_trace_version(const struct ktau_trace *t)
{
	return t->h.version;
}

unsigned int ktau_trace_nr_cpus(const struct ktau_trace *t)
{
	return t->h.nr_cpus;
}

uint64_t ktau_trace_tsc_khz(const struct ktau_trace *t)
{
	return t->h.tsc_khz;
}

void ktau_trace_clock(const struct ktau_trace *t, uint64_t *tsc, uint64_t *realtime_ns,
		      uint64_t *monotonic_ns)
{
	if (tsc)
		*tsc = t->h.anchor_tsc;
	if (realtime_ns)
		*realtime_ns = t->h.realtime_ns;
	if (monotonic_ns)
		*monotonic_ns = t->h.monotonic_ns;
}

uint64_t ktau_trace_lost(const struct ktau_trace *t, unsigned int cpu)
{
	return cpu < t->nr_lost ? t->lost[cpu] : 0;
}

uint64_t ktau_trace_lost_user(const struct ktau_trace *t)
{
	return t->lost_user;
}

const struct ktau_functions *ktau__trace_kernel_names(const struct ktau_trace *t)
{
	return t->kernel_names;
}

const char *ktau_trace_name(const struct ktau_trace *t, unsigned int origin,
			    unsigned int source, uint32_t id)
{
	const struct ktau_function *f;
	uint32_t i;

	if (origin == KTAU_TRACE_USER) {
		i = ktau__u64map_get(&t->user_index, (uint64_t)source << 32 | id);
		if (i != KTAU_U64MAP_NONE)
			return t->user_names[i].name;
	} else if (origin == KTAU_TRACE_KERNEL && !source && t->kernel_names) {
		f = ktau_functions_find_fid(t->kernel_names, id);
		if (f)
			return f->name;
	}
	errno = ENOENT;
	return NULL;
}

const char *ktau_trace_group(const struct ktau_trace *t, unsigned int origin,
			     unsigned int source, uint32_t id)
{
	const struct ktau_function *f;

	if (origin == KTAU_TRACE_USER) {
		if (ktau_trace_name(t, origin, source, id))
			return "user";
	} else if (origin == KTAU_TRACE_KERNEL && !source && t->kernel_names) {
		f = ktau_functions_find_fid(t->kernel_names, id);
		if (f)
			return f->group;
	}
	errno = ENOENT;
	return NULL;
}
