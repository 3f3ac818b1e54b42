/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private to libktau: what every part shares (errors, options structs,
 * string pools, text scanning, file reading, hash tables, time). Names
 * start with ktau__ so that the static library, where hidden visibility
 * does not apply, cannot clash with a program's own.
 */
#ifndef KTAU_UTIL_UTIL_H
#define KTAU_UTIL_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "ktau.h"

#define KTAU_HIDDEN __attribute__((visibility("hidden")))
/* Exported to libktau-prof only (version node KTAU_PRIVATE in libktau.map). */
#define KTAU_PRIVATE __attribute__((visibility("default")))

/* The longest line either format may have; longer input is malformed. */
#define KTAU_MAX_LINE 4096
/* A /proc file larger than this is refused rather than read into memory. */
#define KTAU_MAX_FILE ((size_t)1 << 30)

/* ---- string pool: every name a profile hands out lives here ---- */

struct ktau_strpool {
	struct ktau_strchunk *chunks;
};

KTAU_PRIVATE const char *ktau__strpool_add(struct ktau_strpool *pool,
					  const char *s, size_t len);
/* size bytes aligned for any scalar, living as long as the pool; NULL
 * when out of memory. */
KTAU_HIDDEN void *ktau__strpool_alloc(struct ktau_strpool *pool, size_t size);
KTAU_PRIVATE void ktau__strpool_free(struct ktau_strpool *pool);

/* ---- growable arrays ---- */

/* Makes room for one more element; 0 or -ENOMEM. */
KTAU_PRIVATE int ktau__grow(void **items, size_t *cap, size_t count, size_t size);

#define KTAU_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- errors ---- */

/*
 * Where the parsers write what went wrong: on the stack of each public
 * entry point, which turns it into the library-allocated struct
 * ktau_error the caller gets (ktau__ret_ptr(), ktau__ret_int()). Internal
 * code fills and passes this fixed-size record, so that a parser never
 * allocates just to report a failure.
 */
struct ktau_parse_error {
	int error;		/* negative errno, 0 when nothing failed */
	unsigned int line;	/* 1-based line of the problem, 0 if none */
	char message[160];	/* human-readable, without a trailing newline */
};

/* Records the failure in err (may be NULL) and returns -error. */
KTAU_HIDDEN int ktau__fail(struct ktau_parse_error *err, int error,
			   unsigned int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
KTAU_HIDDEN void ktau__clear_error(struct ktau_parse_error *err);

/*
 * The end of a public function: obj (and *err = NULL), or NULL with errno
 * kept and *err a new error from pe (its message when pe holds this
 * failure, else ktau_strerror()). err may be NULL.
 */
KTAU_HIDDEN void *ktau__ret_ptr(void *obj, const struct ktau_parse_error *pe,
				struct ktau_error **err);
/* The same for 0 / negative errno returns; sets errno on failure. */
KTAU_HIDDEN int ktau__ret_int(int ret, const struct ktau_parse_error *pe,
			      struct ktau_error **err);
/* How error objects are allocated: malloc, or a failing stand-in in the
 * tests, to reach the static ENOMEM error. */
KTAU_HIDDEN extern void *(*ktau__error_alloc)(size_t size);

/* ---- options structs (the libbpf scheme, docs/libktau-abi.md) ---- */

#define ktau__offsetofend(TYPE, FIELD) \
	(offsetof(TYPE, FIELD) + sizeof(((TYPE *)0)->FIELD))

/* 0 when opts is NULL or its sz is acceptable for a struct of which this
 * library knows the first `known` bytes; else -EINVAL with err filled. */
KTAU_HIDDEN int ktau__opts_check(const void *opts, size_t known, const char *type,
				 struct ktau_parse_error *err);
#define KTAU__OPTS_CHECK(opts, TYPE, LAST, err) \
	ktau__opts_check((opts), ktau__offsetofend(struct TYPE, LAST), #TYPE, (err))
/* A member the caller's struct has (it may predate the member); else dflt. */
#define KTAU__OPTS_HAS(opts, FIELD) \
	((opts) && (opts)->sz >= ktau__offsetofend(__typeof__(*(opts)), FIELD))
#define KTAU__OPTS_GET(opts, FIELD, dflt) \
	(KTAU__OPTS_HAS(opts, FIELD) ? (opts)->FIELD : (dflt))

/* ---- parse entry points ---- */

/* How one text format's object is made, filled and destroyed. */
struct ktau_parser_ops {
	void *(*create)(void);
	/* 0 or a negative errno with err filled */
	int (*parse)(void *obj, const char *buf, size_t len, struct ktau_parse_error *err);
	void (*destroy)(void *obj);
};

/* Clears err; buf may be NULL only when len is 0. The filled object, or
 * NULL with errno set and err filled. */
KTAU_HIDDEN void *ktau__parse_text(const struct ktau_parser_ops *ops, const char *buf,
				   size_t len, struct ktau_parse_error *err);
/* The same of text just read, then frees it; NULL text (the read failed,
 * errno set and err filled by the reader) gives NULL. */
KTAU_HIDDEN void *ktau__parse_read_text(const struct ktau_parser_ops *ops, char *text,
					size_t len, struct ktau_parse_error *err);

/* The source a struct ktau_load_opts names, checked: exactly one of
 * *path and *stream set; 0 or -EINVAL with err filled. */
KTAU_HIDDEN int ktau__load_source(const struct ktau_load_opts *opts, const char **path,
				  FILE **stream, struct ktau_parse_error *err);
/* The source a struct ktau_load_opts names, read whole: NULL with errno
 * set and err filled (EINVAL: not exactly one of path and stream). */
KTAU_HIDDEN char *ktau__load_text(const struct ktau_load_opts *opts, size_t *len,
				  struct ktau_parse_error *err);
/* ktau__load_text() then ops' parser. */
KTAU_HIDDEN void *ktau__load_parse(const struct ktau_parser_ops *ops,
				   const struct ktau_load_opts *opts,
				   struct ktau_parse_error *err);

/* ---- text scanning ---- */

#define KTAU_MAX_WORDS 64

/* One line split into blank-separated words (pointers into the input). */
struct ktau_words {
	size_t count;
	const char *word[KTAU_MAX_WORDS];
	size_t len[KTAU_MAX_WORDS];
};

/* Walks the input line by line; rejects what no ktau format allows. */
struct ktau_line_reader {
	const char *pos;
	const char *end;
	unsigned int line;	/* number of the line last returned */
	/* set by ktau__lines_init() for ktau's own formats; other tools'
	 * output may need more */
	size_t max_len;		/* longer lines are malformed */
	int high_bytes;		/* bytes >= 0x80 allowed (UTF-8 paths, names) */
};

KTAU_HIDDEN void ktau__lines_init(struct ktau_line_reader *r,
				  const char *buf, size_t len);
/* 1 with the line and its length set, 0 at end of input, or -EPROTO (err filled). */
KTAU_HIDDEN int ktau__lines_next(struct ktau_line_reader *r, const char **line,
				 size_t *len, struct ktau_parse_error *err);
/* Splits on blanks. -EPROTO (err filled) if there are too many words. */
KTAU_HIDDEN int ktau__split_words(const char *line, size_t len,
				  struct ktau_words *w, unsigned int lineno,
				  struct ktau_parse_error *err);
KTAU_HIDDEN int ktau__word_is(const char *word, size_t len, const char *lit);
/* Unsigned decimal that fits in 64 bits: 0 or -EPROTO (no message). */
KTAU_HIDDEN int ktau__parse_u64(const char *s, size_t len, uint64_t *out);

/* Maps the field names of a `columns` line to positions in record lines. */
struct ktau_columns {
	const char *const *names;	/* the fields this reader needs */
	size_t count;
	size_t pos[16];			/* word index of each needed field */
	size_t min_words;		/* a record needs this many words */
};

/* Positions of the v1 defaults: names[i] is word i + first. */
KTAU_HIDDEN void ktau__columns_default(struct ktau_columns *c,
				       const char *const *names, size_t count,
				       size_t first);
/* From a `columns` line whose field names start at words[first], for
 * records whose fields start at word record_first. */
KTAU_HIDDEN int ktau__columns_from_line(struct ktau_columns *c,
					const struct ktau_words *w, size_t first,
					size_t record_first, unsigned int lineno,
					struct ktau_parse_error *err);

/* ---- reading whole files ---- */

/* Reads a whole file; NULL with errno set. */
KTAU_HIDDEN char *ktau__read_fd_all(int fd, size_t *len);
KTAU_PRIVATE char *ktau__read_path_all(const char *path, size_t *len);
KTAU_HIDDEN char *ktau__read_stream_all(FILE *stream, size_t *len);

/* ---- uint64_t -> uint32_t hash table ---- */

#define KTAU_U64MAP_NONE UINT32_MAX

struct ktau_u64map {
	uint64_t *keys;
	uint32_t *vals;		/* KTAU_U64MAP_NONE: empty slot */
	size_t cap;		/* 0 or a power of two */
	size_t used;
};

/* The value for key, or KTAU_U64MAP_NONE. */
KTAU_PRIVATE uint32_t ktau__u64map_get(const struct ktau_u64map *m, uint64_t key);
/* Sets key -> val (val != KTAU_U64MAP_NONE); 0 or -ENOMEM / -EINVAL. */
KTAU_PRIVATE int ktau__u64map_put(struct ktau_u64map *m, uint64_t key, uint32_t val);
KTAU_PRIVATE void ktau__u64map_free(struct ktau_u64map *m);

/* ---- a string -> index hash table (open addressing) ---- */

struct ktau_index_slot {
	const char *key;	/* NULL: empty; owned by someone else */
	size_t value;
};

struct ktau_index {
	struct ktau_index_slot *slots;
	size_t cap;		/* 0 or a power of two */
	size_t used;
};

#define KTAU_INDEX_NONE ((size_t)-1)

/* The value stored for key, or KTAU_INDEX_NONE. */
KTAU_PRIVATE size_t ktau__index_find(const struct ktau_index *ix, const char *key);
/* Stores key (not copied: it must outlive the index) -> value; 0 or -ENOMEM. */
KTAU_PRIVATE int ktau__index_put(struct ktau_index *ix, const char *key, size_t value);
KTAU_PRIVATE void ktau__index_free(struct ktau_index *ix);

/* ---- time ---- */

/* cycles * 1e6 / tsc_khz, truncated; 0 or -EOVERFLOW / -EINVAL (khz 0). */
KTAU_PRIVATE int ktau__cycles_to_ns(uint64_t cycles, uint64_t tsc_khz, uint64_t *ns);

#endif /* KTAU_UTIL_UTIL_H */
