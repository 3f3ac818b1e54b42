/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libktau — read, check and combine KTAU kernel profiles.
 *
 * Error convention (one for the whole library):
 *   - functions returning int return 0 on success or a negative errno value;
 *   - functions returning a pointer return NULL on failure and set errno
 *     to a positive errno value.
 * The errno values that carry a ktau-specific meaning:
 *   EPROTO           malformed or truncated input (see struct ktau_parse_error)
 *   EPROTONOSUPPORT  a format version this library does not know
 *   ENODEV           the running kernel has no ktau support (no /proc/ktau)
 *   ESRCH            no such process or thread (or it exited while being read)
 *   EACCES           not allowed to read that task's profile
 *   ERANGE           a difference would be negative (counters went backwards)
 *   EOVERFLOW        a sum does not fit in 64 bits
 * ktau_strerror() turns any of them into a message.
 *
 * Objects are opaque and not internally locked: one object may be used by
 * one thread at a time; distinct objects may be used concurrently.
 * Record structs (struct ktau_func etc.) are owned by the profile they came
 * from and stay valid until it is freed or modified. New members may be
 * appended to them in later versions, so never allocate or copy them by
 * value into arrays; use the pointers the library hands out.
 *
 * The /proc root defaults to "/proc"; the environment variable KTAU_PROCFS
 * overrides it (read at each call), e.g. to read a saved copy of /proc.
 */
#ifndef KTAU_H
#define KTAU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KTAU_VERSION_MAJOR 0
#define KTAU_VERSION_MINOR 1
#define KTAU_VERSION_STRING "0.1"

/* The /proc text format versions this library reads. */
#define KTAU_PROFILE_FORMAT_VERSION 1
#define KTAU_FUNCTIONS_FORMAT_VERSION 1

#if defined(__GNUC__)
#define KTAU_API __attribute__((visibility("default")))
#else
#define KTAU_API
#endif

/* ---- errors ------------------------------------------------------------ */

/* Filled in, when the caller passes one, by every function that parses. */
struct ktau_parse_error {
	int error;		/* negative errno, 0 when nothing failed */
	unsigned int line;	/* 1-based line of the problem, 0 if none */
	char message[160];	/* human-readable, without a trailing newline */
};

/* Message for a (negative or positive) errno value; never NULL. */
KTAU_API const char *ktau_strerror(int err);

/* Library version, e.g. "0.1". */
KTAU_API const char *ktau_version(void);

/* ---- time -------------------------------------------------------------- */

/* usec = cycles * 1000 / tsc_khz, without overflow; NaN when tsc_khz is 0. */
KTAU_API double ktau_cycles_to_usec(uint64_t cycles, uint64_t tsc_khz);

/* ---- profiles ---------------------------------------------------------- */

struct ktau_profile;
struct ktau_block;

enum ktau_scope {
	KTAU_SCOPE_THREAD = 1,
	KTAU_SCOPE_PROCESS,
	KTAU_SCOPE_SYSTEM,
};

enum ktau_block_kind {
	KTAU_BLOCK_THREAD = 1,	/* one live thread */
	KTAU_BLOCK_PROCESS,	/* live threads + exited threads of a process */
	KTAU_BLOCK_EXITED,	/* exited threads of a process (tid 0) */
	KTAU_BLOCK_CHILDREN,	/* reaped children's process totals (tid 0) */
};

/* `func` record: the flat profile of one function under one user context. */
struct ktau_func {
	uint64_t ctx;
	uint32_t fid;
	const char *name;
	const char *group;
	uint64_t calls;
	uint64_t incl_cycles;
	uint64_t excl_cycles;
};

/* `edge` record: the part of fid's profile spent while called by parent_fid. */
struct ktau_edge {
	uint64_t ctx;
	uint32_t parent_fid;
	const char *parent;
	uint32_t fid;
	const char *name;
	uint64_t calls;
	uint64_t incl_cycles;
	uint64_t excl_cycles;
};

/* `event` record: an atomic event (TAU user event). */
struct ktau_event {
	uint64_t ctx;
	uint32_t fid;
	const char *name;
	uint64_t count;
	uint64_t min;
	uint64_t max;
	uint64_t sum;
	uint64_t sumsq;
};

/*
 * Parsing. Lines with an unknown first word, unknown task keys and record
 * fields beyond those named by the `columns` lines are skipped; blocks of an
 * unknown task kind are skipped whole. err may be NULL.
 */
KTAU_API struct ktau_profile *ktau_profile_parse(const char *buf, size_t len,
						 struct ktau_parse_error *err);
KTAU_API struct ktau_profile *ktau_profile_read_file(const char *path,
						     struct ktau_parse_error *err);
KTAU_API struct ktau_profile *ktau_profile_read_fd(int fd,
						   struct ktau_parse_error *err);
KTAU_API struct ktau_profile *ktau_profile_read_stream(FILE *stream,
						       struct ktau_parse_error *err);
/* /proc/<pid>/ktau, /proc/<pid>/task/<tid>/ktau, /proc/ktau/profile */
KTAU_API struct ktau_profile *ktau_profile_read_pid(pid_t pid,
						    struct ktau_parse_error *err);
KTAU_API struct ktau_profile *ktau_profile_read_tid(pid_t pid, pid_t tid,
						    struct ktau_parse_error *err);
KTAU_API struct ktau_profile *ktau_profile_read_system(struct ktau_parse_error *err);

/* An empty profile, to build sums into. */
KTAU_API struct ktau_profile *ktau_profile_new(enum ktau_scope scope,
					       uint64_t tsc_khz);
/* A deep copy. */
KTAU_API struct ktau_profile *ktau_profile_dup(const struct ktau_profile *p);
KTAU_API void ktau_profile_free(struct ktau_profile *p);

/*
 * The raw /proc text, unparsed: a NUL-terminated malloc()ed buffer the
 * caller free()s; *len (if not NULL) receives its length. Same errors as
 * the ktau_profile_read_*() functions except EPROTO.
 */
KTAU_API char *ktau_raw_read_file(const char *path, size_t *len);
KTAU_API char *ktau_raw_read_pid(pid_t pid, size_t *len);
KTAU_API char *ktau_raw_read_tid(pid_t pid, pid_t tid, size_t *len);
KTAU_API char *ktau_raw_read_system(size_t *len);

/* Header. */
KTAU_API unsigned int ktau_profile_version(const struct ktau_profile *p);
KTAU_API uint64_t ktau_profile_tsc_khz(const struct ktau_profile *p);
KTAU_API enum ktau_scope ktau_profile_scope(const struct ktau_profile *p);
/* cycles converted with this profile's tsc_khz */
KTAU_API double ktau_profile_usec(const struct ktau_profile *p, uint64_t cycles);

/* Blocks, in file order. ktau_profile_block() returns NULL (errno ERANGE)
 * past the end. */
KTAU_API size_t ktau_profile_block_count(const struct ktau_profile *p);
KTAU_API const struct ktau_block *ktau_profile_block(const struct ktau_profile *p,
						     size_t index);
/* First block of that kind, pid and tid; NULL (errno ENOENT) if none. */
KTAU_API const struct ktau_block *ktau_profile_find_block(const struct ktau_profile *p,
							  enum ktau_block_kind kind,
							  pid_t pid, pid_t tid);

KTAU_API enum ktau_block_kind ktau_block_kind(const struct ktau_block *b);
KTAU_API pid_t ktau_block_pid(const struct ktau_block *b);
KTAU_API pid_t ktau_block_tid(const struct ktau_block *b);
KTAU_API const char *ktau_block_comm(const struct ktau_block *b);
KTAU_API uint64_t ktau_block_threads(const struct ktau_block *b);
KTAU_API uint64_t ktau_block_exited_threads(const struct ktau_block *b);
KTAU_API uint64_t ktau_block_processes(const struct ktau_block *b);
KTAU_API uint64_t ktau_block_dropped(const struct ktau_block *b);

/* Records by index (NULL, errno ERANGE, past the end) and by key
 * (NULL, errno ENOENT, when absent). */
KTAU_API size_t ktau_block_func_count(const struct ktau_block *b);
KTAU_API const struct ktau_func *ktau_block_func(const struct ktau_block *b,
						 size_t index);
KTAU_API const struct ktau_func *ktau_block_find_func(const struct ktau_block *b,
						      uint64_t ctx, uint32_t fid);
KTAU_API const struct ktau_func *ktau_block_find_func_by_name(const struct ktau_block *b,
							      uint64_t ctx,
							      const char *name);

KTAU_API size_t ktau_block_edge_count(const struct ktau_block *b);
KTAU_API const struct ktau_edge *ktau_block_edge(const struct ktau_block *b,
						 size_t index);
KTAU_API const struct ktau_edge *ktau_block_find_edge(const struct ktau_block *b,
						      uint64_t ctx,
						      uint32_t parent_fid,
						      uint32_t fid);

KTAU_API size_t ktau_block_event_count(const struct ktau_block *b);
KTAU_API const struct ktau_event *ktau_block_event(const struct ktau_block *b,
						   size_t index);
KTAU_API const struct ktau_event *ktau_block_find_event(const struct ktau_block *b,
							uint64_t ctx, uint32_t fid);
KTAU_API const struct ktau_event *ktau_block_find_event_by_name(const struct ktau_block *b,
								uint64_t ctx,
								const char *name);

KTAU_API const char *ktau_scope_name(enum ktau_scope scope);
KTAU_API const char *ktau_block_kind_name(enum ktau_block_kind kind);

/*
 * Consistency checks the parser does not make (it accepts what the kernel
 * writes, so a reader can still show a profile a buggy kernel produced):
 * excl <= incl for funcs and edges, min <= max for events, the edges into a
 * (ctx, fid) sum to at most its func record, and the blocks fit the scope.
 * Returns 0 or -EPROTO with the first problem (and its line) in err.
 */
KTAU_API int ktau_profile_validate(const struct ktau_profile *p,
				   struct ktau_parse_error *err);

/* ---- arithmetic -------------------------------------------------------- */

/*
 * Appends an empty block to p and returns it, for ktau_block_add() and
 * ktau_block_subtract(). comm may be NULL ("-").
 */
KTAU_API struct ktau_block *ktau_profile_add_block(struct ktau_profile *p,
						   enum ktau_block_kind kind,
						   pid_t pid, pid_t tid,
						   const char *comm);

/*
 * dst += src, record by record: funcs keyed by (ctx, fid), edges by
 * (ctx, parent_fid, fid), events by (ctx, fid); events merge count, sum and
 * sumsq by addition and min/max by comparison. threads, exited_threads,
 * processes and dropped add up (a thread block counts as one thread).
 * -EOVERFLOW leaves dst unchanged.
 */
KTAU_API int ktau_block_add(struct ktau_block *dst, const struct ktau_block *src);

/*
 * dst -= src (dst is the later snapshot, src the earlier). Records only in
 * dst stay as they are; a record only in src, or any count, cycle or sum
 * that would become negative, fails with -ERANGE and leaves dst unchanged
 * (the kernel counters were cleared or the task is not the same one).
 * Records whose counts drop to zero are removed. Events keep dst's min and
 * max: they describe the whole run up to the later snapshot, not the
 * interval. threads, exited_threads and processes keep dst's values;
 * dropped is subtracted.
 */
KTAU_API int ktau_block_subtract(struct ktau_block *dst, const struct ktau_block *src);

/*
 * a + b and after - before, block by block: blocks are matched by
 * (kind, pid, tid); unmatched blocks of a/b, and blocks new in `after`, are
 * copied; blocks only in `before` (tasks gone since) are left out. Both
 * profiles must have the same scope and tsc_khz (else EINVAL).
 * NULL with errno EINVAL, ERANGE, EOVERFLOW or ENOMEM on failure.
 * In a system-scope diff, a thread that exited between the snapshots moves
 * its whole history into its process's exited block; for a process's
 * interval, diff process totals (thread + exited blocks summed) instead.
 */
KTAU_API struct ktau_profile *ktau_profile_sum(const struct ktau_profile *a,
					       const struct ktau_profile *b);
KTAU_API struct ktau_profile *ktau_profile_diff(const struct ktau_profile *before,
						const struct ktau_profile *after);

/* ---- function map (/proc/ktau/functions) ------------------------------ */

struct ktau_functions;

struct ktau_function {
	uint32_t fid;
	const char *group;
	const char *name;
};

KTAU_API struct ktau_functions *ktau_functions_parse(const char *buf, size_t len,
						     struct ktau_parse_error *err);
KTAU_API struct ktau_functions *ktau_functions_read_file(const char *path,
							 struct ktau_parse_error *err);
/* /proc/ktau/functions; ENODEV without a ktau kernel */
KTAU_API struct ktau_functions *ktau_functions_read(struct ktau_parse_error *err);
KTAU_API void ktau_functions_free(struct ktau_functions *map);

KTAU_API size_t ktau_functions_count(const struct ktau_functions *map);
/* In file order; NULL (errno ERANGE) past the end. */
KTAU_API const struct ktau_function *ktau_functions_get(const struct ktau_functions *map,
							size_t index);
/* NULL (errno ENOENT) when absent. */
KTAU_API const struct ktau_function *ktau_functions_find_fid(const struct ktau_functions *map,
							     uint32_t fid);
KTAU_API const struct ktau_function *ktau_functions_find_name(const struct ktau_functions *map,
							      const char *name);

#ifdef __cplusplus
}
#endif

#endif /* KTAU_H */
