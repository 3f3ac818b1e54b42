/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private to libktau. Names start with ktau__ so that the static library,
 * where hidden visibility does not apply, cannot clash with a program's own.
 */
#ifndef KTAU_INTERNAL_H
#define KTAU_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

/* ---- profiles ---- */

/* A record and the input line it came from (0 when computed). */
struct ktau_func_slot {
	struct ktau_func rec;
	unsigned int line;
};

struct ktau_edge_slot {
	struct ktau_edge rec;
	unsigned int line;
};

struct ktau_event_slot {
	struct ktau_event rec;
	unsigned int line;
};

struct ktau_path_slot {
	struct ktau_path rec;
	unsigned int line;
};

struct ktau_open_slot {
	struct ktau_open rec;
	unsigned int line;
};

struct ktau_block {
	struct ktau_profile *owner;
	enum ktau_block_kind kind;
	pid_t pid;
	pid_t tid;
	const char *comm;
	uint64_t threads;
	uint64_t exited_threads;
	uint64_t processes;
	uint64_t dropped;
	uint64_t private_processes;
	unsigned int line;
	/*
	 * Which of edges and paths are the block's own records: true for a
	 * version 1 block (edge lines; paths derived from them), false for a
	 * version 2 one (path lines; edges derived from them). Arithmetic works
	 * on the own records and derives the others again.
	 */
	bool edges_own;

	struct ktau_func_slot *funcs;
	size_t nr_funcs, cap_funcs;
	struct ktau_edge_slot *edges;
	size_t nr_edges, cap_edges;
	struct ktau_event_slot *events;
	size_t nr_events, cap_events;
	struct ktau_path_slot *paths;
	size_t nr_paths, cap_paths;
	struct ktau_open_slot *opens;
	size_t nr_opens, cap_opens;
};

struct ktau_profile {
	unsigned int version;
	uint64_t tsc_khz;
	enum ktau_scope scope;
	/* pointers, so that a block stays put while more are appended */
	struct ktau_block **blocks;
	size_t nr_blocks, cap_blocks;
	struct ktau_strpool strings;
};

/* Copies a name into the string pool of b's profile; NULL when out of memory. */
KTAU_HIDDEN const char *ktau__block_intern(struct ktau_block *b,
					   const char *s, size_t len);
/* Appends rec as it is: its names must already belong to b's profile. */
KTAU_HIDDEN int ktau__block_append_func(struct ktau_block *b,
					const struct ktau_func *rec,
					unsigned int line);
KTAU_HIDDEN int ktau__block_append_edge(struct ktau_block *b,
					const struct ktau_edge *rec,
					unsigned int line);
KTAU_HIDDEN int ktau__block_append_event(struct ktau_block *b,
					 const struct ktau_event *rec,
					 unsigned int line);
KTAU_HIDDEN int ktau__block_append_path(struct ktau_block *b,
					const struct ktau_path *rec,
					unsigned int line);
KTAU_HIDDEN int ktau__block_append_open(struct ktau_block *b,
					const struct ktau_open *rec,
					unsigned int line);
/* A copy of fids[0..depth) in b's profile; NULL when out of memory. */
KTAU_HIDDEN const uint32_t *ktau__block_intern_fids(struct ktau_block *b,
						    const uint32_t *fids,
						    uint32_t depth);
KTAU_HIDDEN struct ktau_block *ktau__profile_append_block(struct ktau_profile *p,
							  enum ktau_block_kind kind,
							  pid_t pid, pid_t tid,
							  const char *comm,
							  size_t comm_len);
/* Copies a block's header and records to the end of dst. */
KTAU_HIDDEN struct ktau_block *ktau__profile_clone_block(struct ktau_profile *dst,
							 const struct ktau_block *src);
/* Appends rec with its names copied into b's profile. */
KTAU_HIDDEN int ktau__block_copy_func(struct ktau_block *dst,
				      const struct ktau_func *src, unsigned int line);
KTAU_HIDDEN int ktau__block_copy_edge(struct ktau_block *dst,
				      const struct ktau_edge *src, unsigned int line);
KTAU_HIDDEN int ktau__block_copy_event(struct ktau_block *dst,
				       const struct ktau_event *src, unsigned int line);
KTAU_HIDDEN int ktau__block_copy_path(struct ktau_block *dst,
				      const struct ktau_path *src, unsigned int line);
KTAU_HIDDEN int ktau__block_copy_open(struct ktau_block *dst,
				      const struct ktau_open *src, unsigned int line);
KTAU_HIDDEN int ktau__block_copy_records(struct ktau_block *dst,
					 const struct ktau_block *src);

KTAU_HIDDEN ssize_t ktau__find_func_index(const struct ktau_block *b,
					  uint64_t ctx, uint32_t fid);
KTAU_HIDDEN ssize_t ktau__find_edge_index(const struct ktau_block *b, uint64_t ctx,
					  uint32_t parent_fid, uint32_t fid);
KTAU_HIDDEN ssize_t ktau__find_event_index(const struct ktau_block *b,
					   uint64_t ctx, uint32_t fid);
KTAU_HIDDEN ssize_t ktau__find_path_index(const struct ktau_block *b, uint64_t ctx,
					  const uint32_t *fids, uint32_t depth);

/* ---- derived records (derive.c) ---- */

/* The name and group of path element k (k < depth), as
 * ktau_block_path_element_name() finds them; the group may be NULL. */
KTAU_HIDDEN const char *ktau__path_element(const struct ktau_block *b,
					   const struct ktau_path *path, uint32_t k,
					   const char **group);
/* Rebuilds the records a block does not own (its edges from its paths, or
 * a v1 block's paths from its edges); 0 or -ENOMEM. */
KTAU_HIDDEN int ktau__block_derive(struct ktau_block *b);

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

/* The ktau-profile format's (profile_parse.c). */
KTAU_HIDDEN extern const struct ktau_parser_ops ktau__profile_parser;
/* The function map's (functions.c). */
KTAU_HIDDEN extern const struct ktau_parser_ops ktau__functions_parser;

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

/* ---- /proc access ---- */

/* Reads a whole file; NULL with errno set. */
KTAU_HIDDEN char *ktau__read_fd_all(int fd, size_t *len);
KTAU_PRIVATE char *ktau__read_path_all(const char *path, size_t *len);
KTAU_HIDDEN char *ktau__read_stream_all(FILE *stream, size_t *len);
/* A /proc tree: what ktau_proc_open() returns. */
struct ktau_proc {
	char *root;
};

/* The default root: $KTAU_PROCFS (secure_getenv) when set and not empty,
 * else "/proc". */
KTAU_PRIVATE const char *ktau__procfs_root(void);
/* <root>/ktau/profile (pid 0), <root>/PID/ktau (tid 0) or
 * <root>/PID/task/TID/ktau; NULL with errno mapped by ktau__proc_errno()
 * and err filled (naming the file). */
KTAU_HIDDEN char *ktau__proc_read_task(const char *root, pid_t pid, pid_t tid,
				       size_t *len, struct ktau_parse_error *err);
/* ktau__proc_read_task() parsed. */
KTAU_HIDDEN struct ktau_profile *ktau__proc_profile(const char *root, pid_t pid, pid_t tid,
						    struct ktau_parse_error *err);
/* <root>/<rel>, errors mapped like the profile files' */
KTAU_HIDDEN char *ktau__proc_read_file(const char *root, const char *rel, size_t *len,
				       struct ktau_parse_error *err);
/* <root>/<rel> parsed by ops (proc may be NULL: EINVAL). */
KTAU_HIDDEN void *ktau__proc_parse_file(struct ktau_proc *proc, const char *rel,
					const struct ktau_parser_ops *ops,
					struct ktau_parse_error *err);
/* The live thread ids of a process, sorted; *tids malloc()ed. 0 or -errno
 * (ESRCH, ENODEV, EACCES, ENOMEM). */
KTAU_HIDDEN int ktau__list_tids(const char *root, pid_t pid, pid_t **tids,
				size_t *count);
/* <root>/<rel> into path: 0 or -ENAMETOOLONG. */
KTAU_HIDDEN int ktau__proc_path(const char *root, char *path, size_t size,
				const char *rel);
/* Turns an errno from opening/reading a <root>/... ktau file into ours. */
KTAU_HIDDEN int ktau__proc_errno(const char *root, int error, pid_t pid, pid_t tid);
/* Each live thread of pid as one system-scope profile (threads.c). */
KTAU_HIDDEN struct ktau_profile *ktau__read_threads(const char *root, pid_t pid,
						    struct ktau_parse_error *err);

#endif /* KTAU_INTERNAL_H */
