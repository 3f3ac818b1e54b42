/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libktau — read, check and combine KTAU kernel profiles.
 *
 * Error convention (one for the whole library):
 *   - functions returning int return 0 on success or a negative errno value;
 *   - functions returning a pointer return NULL on failure and set errno
 *     to a positive errno value.
 * Functions that can say more than an errno value (what was malformed, on
 * which line, which file) take a `struct ktau_error **err` last: NULL, or
 * where to store a library-allocated error on failure (NULL on success);
 * see "errors" below. The errno values that carry a ktau-specific meaning:
 *   EPROTO           malformed or truncated input
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
 * Options structs (struct ktau_*_opts) start with their size: declare them
 * with KTAU_OPTS() so that a program built against an older header keeps
 * working with a newer library and vice versa (docs/libktau-abi.md).
 *
 * Everything that reads or writes /proc takes a struct ktau_proc handle
 * (ktau_proc_open()), which names the /proc root: "/proc", or a saved copy.
 */
#ifndef KTAU_H
#define KTAU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The release, MAJOR.MINOR.PATCH: the one place it is written
 * (docs/libktau-abi.md, "Versions"). The build reads it from here
 * (scripts/version.sh: the .pc files, the shared objects' file names
 * libktau.so.MAJOR.MINOR.PATCH, the man pages, the packages);
 * debian/changelog and the symbols files must agree, and MAJOR.MINOR is the
 * newest version node of libktau.map, KTAU_MAJOR.MINOR
 * (tests/install/check-abi.sh). The soname is libktau.so.MAJOR.
 */
#define KTAU_VERSION_MAJOR 1
#define KTAU_VERSION_MINOR 6
#define KTAU_VERSION_PATCH 0
#define KTAU__STR2(x) #x
#define KTAU__STR(x) KTAU__STR2(x)
#define KTAU_VERSION_STRING KTAU__STR(KTAU_VERSION_MAJOR) "." \
	KTAU__STR(KTAU_VERSION_MINOR) "." KTAU__STR(KTAU_VERSION_PATCH)

/* The /proc text format versions this library reads: profiles of versions
 * KTAU_PROFILE_FORMAT_VERSION_MIN to KTAU_PROFILE_FORMAT_VERSION. */
#define KTAU_PROFILE_FORMAT_VERSION 2
#define KTAU_PROFILE_FORMAT_VERSION_MIN 1
#define KTAU_FUNCTIONS_FORMAT_VERSION 1
#define KTAU_CONTROL_FORMAT_VERSION 1

#if defined(__GNUC__)
#define KTAU_API __attribute__((visibility("default")))
#else
#define KTAU_API
#endif

/* ---- errors ------------------------------------------------------------ */

/*
 * A failure's details, allocated by the library: the function that failed
 * stores it in *err (when err is not NULL) and the caller frees it with
 * ktau_error_free(). On success *err is set to NULL, so one variable can be
 * reused across calls once each error is freed. Running out of memory
 * hands out a shared static error (code -ENOMEM) that ktau_error_free()
 * leaves alone, so an error is always delivered. The return value and
 * errno say the same as ktau_error_code(): callers that only need the
 * errno value pass NULL.
 */
struct ktau_error;

/* The negative errno value; 0 for a NULL error. */
KTAU_API int ktau_error_code(const struct ktau_error *e);
/* 1-based line of the input where the problem is, 0 if none (or NULL). */
KTAU_API unsigned int ktau_error_line(const struct ktau_error *e);
/* Human-readable, without a trailing newline; never NULL ("" for NULL). */
KTAU_API const char *ktau_error_message(const struct ktau_error *e);
/* NULL is accepted. */
KTAU_API void ktau_error_free(struct ktau_error *e);

/*
 * Options structs: `size_t sz` first, set to the size of the struct the
 * caller was compiled with; every other member zero means "the default".
 * The library reads the members that fit in sz (older callers get the
 * defaults for members added since) and fails with EINVAL when sz is
 * smaller than a size_t, or when the caller's struct is larger than the
 * library's and the extra bytes are not all zero (a newer caller asked
 * for something this library cannot do). KTAU_OPTS declares one:
 *
 *   KTAU_OPTS(ktau_read_opts, opts, .pid = pid);
 *   p = ktau_proc_read_profile(proc, &opts, &err);
 */
#if defined(__GNUC__)
/* memset first: the padding must be zero too, for the size check */
#define KTAU_OPTS(TYPE, NAME, ...)					\
	struct TYPE NAME = __extension__ ({				\
		memset(&NAME, 0, sizeof(struct TYPE));			\
		(struct TYPE){ .sz = sizeof(struct TYPE), __VA_ARGS__ };	\
	})
#else
#define KTAU_OPTS(TYPE, NAME, ...)					\
	struct TYPE NAME = { .sz = sizeof(struct TYPE), __VA_ARGS__ }
#endif

/* Message for a (negative or positive) errno value; never NULL. */
KTAU_API const char *ktau_strerror(int err);

/* The library's release, KTAU_VERSION_STRING of its build, e.g. "1.5.0". */
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

/*
 * `edge` record: the part of fid's profile spent while called by parent_fid.
 * Version 1 files have edge lines; in a version 2 block the edges are
 * derived from the paths: each path of depth >= 2 adds its calls and cycles
 * to edge (ctx, fids[depth - 2], fids[depth - 1]) (sums saturate at
 * 2^64-1), after parsing and after any arithmetic. So the edges into a
 * routine of a v2 block count a recursive call's time at every level.
 */
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

/* ---- sources: the /proc tree and saved files -------------------------- */

/*
 * A handle on a /proc tree. root: the directory to read instead of
 * "/proc" (a saved or extracted copy, e.g. an archive's proc/ directory);
 * NULL means $KTAU_PROCFS when set and not empty (ignored in set-uid
 * programs: secure_getenv()), else "/proc". The root is copied; nothing is
 * opened until a read. opts may be NULL. NULL with errno EINVAL or ENOMEM.
 */
struct ktau_proc;

struct ktau_proc_opts {
	size_t sz;
	const char *root;
	size_t :0;
};

KTAU_API struct ktau_proc *ktau_proc_open(const struct ktau_proc_opts *opts,
					  struct ktau_error **err);
/* NULL is accepted. */
KTAU_API void ktau_proc_close(struct ktau_proc *proc);
/* The root the handle reads, without a trailing slash unless it is "/";
 * NULL (errno EINVAL) for a NULL handle. */
KTAU_API const char *ktau_proc_root(const struct ktau_proc *proc);

/*
 * What ktau_proc_read_profile() and ktau_proc_read_raw() read:
 *   pid 0                  the system profile, <root>/ktau/profile
 *   pid P                  process P, <root>/P/ktau
 *   pid P, tid T           thread T of process P, <root>/P/task/T/ktau
 *   pid P, KTAU_READ_THREADS  each live thread of P (<root>/P/task/T/ktau for
 *                          every T) as one system-scope profile with a thread
 *                          block per thread, in tid order; threads that exit
 *                          meanwhile are left out (ESRCH when all have).
 *                          Not for ktau_proc_read_raw().
 * opts NULL: the system profile. A tid without a pid, negative ids and
 * flags this library does not know fail with EINVAL.
 */
#define KTAU_READ_THREADS (1U << 0)

struct ktau_read_opts {
	size_t sz;
	pid_t pid;
	pid_t tid;
	unsigned int flags;	/* KTAU_READ_* */
	size_t :0;
};

/*
 * Saved files for the ktau_*_load() functions: exactly one of path (a
 * file to read) and stream (read to its end, not closed); EINVAL
 * otherwise, and for NULL opts.
 */
struct ktau_load_opts {
	size_t sz;
	const char *path;
	FILE *stream;
	size_t :0;
};

/* ---- reading profiles -------------------------------------------------- */

/*
 * Parsing. Lines with an unknown first word, unknown task keys and record
 * fields beyond those named by the `columns` lines are skipped; blocks of an
 * unknown task kind are skipped whole. Every reader fails with EPROTO for
 * malformed input, EPROTONOSUPPORT for a later format version; /proc reads
 * also with ENODEV, ESRCH, EACCES (see above) or what reading failed with.
 */
KTAU_API struct ktau_profile *ktau_profile_parse(const char *buf, size_t len,
						 struct ktau_error **err);
/* A saved profile file. */
KTAU_API struct ktau_profile *ktau_profile_load(const struct ktau_load_opts *opts,
						struct ktau_error **err);
/* A profile from the /proc tree (struct ktau_read_opts says which). */
KTAU_API struct ktau_profile *ktau_proc_read_profile(struct ktau_proc *proc,
						     const struct ktau_read_opts *opts,
						     struct ktau_error **err);

/*
 * The raw text, unparsed: a NUL-terminated malloc()ed buffer the caller
 * free()s; *len (if not NULL) receives its length. Same errors as the
 * parsed readers except EPROTO.
 */
KTAU_API char *ktau_proc_read_raw(struct ktau_proc *proc,
				  const struct ktau_read_opts *opts,
				  size_t *len, struct ktau_error **err);
KTAU_API char *ktau_raw_load(const struct ktau_load_opts *opts, size_t *len,
			     struct ktau_error **err);

/* An empty profile, to build sums into. */
KTAU_API struct ktau_profile *ktau_profile_new(enum ktau_scope scope,
					       uint64_t tsc_khz);
/* A deep copy. */
KTAU_API struct ktau_profile *ktau_profile_dup(const struct ktau_profile *p);
KTAU_API void ktau_profile_free(struct ktau_profile *p);

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
 * excl <= incl for funcs, edges, paths and open records, min <= max for
 * events, the blocks fit the scope, open records only in thread and
 * process blocks; in a version 1 block the edges into a (ctx, fid) sum to
 * at most its func record and have one; in a version 2 block every path
 * has depth 1 to KTAU_PATH_MAX_DEPTH and all its proper prefixes. (That a
 * path's exclusive time plus its children's inclusive time is at most its
 * inclusive time is not checked: the kernel clamps negative times from
 * TSC skew, so it holds only approximately.)
 * Returns 0 or -EPROTO with the first problem (and its line) in *err.
 */
KTAU_API int ktau_profile_validate(const struct ktau_profile *p,
				   struct ktau_error **err);

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
 * dst += src, record by record: funcs keyed by (ctx, fid), paths by
 * (ctx, fids), events by (ctx, fid); events merge count, sum and sumsq by
 * addition and min/max by comparison; then the edges are derived from the
 * paths again (when both blocks are version 1 blocks, the edges are added
 * by (ctx, parent_fid, fid) and the paths derived from them). dst gets
 * copies of src's open records (both snapshots stay). threads,
 * exited_threads, processes, private and dropped add up (a thread block
 * counts as one thread).
 * -EOVERFLOW leaves dst unchanged.
 */
KTAU_API int ktau_block_add(struct ktau_block *dst, const struct ktau_block *src);

/*
 * dst -= src (dst is the later snapshot, src the earlier). Records only in
 * dst stay as they are; a record only in src, or any count, cycle or sum
 * that would become negative, fails with -ERANGE and leaves dst unchanged
 * (the kernel counters were cleared or the task is not the same one).
 * Records whose counts drop to zero are removed (a path only when no longer
 * path keeps it as its prefix). Events keep dst's min and max: they
 * describe the whole run up to the later snapshot, not the interval. Open
 * records are dst's: they are what ran at the later snapshot. threads,
 * exited_threads, processes, private and pending keep dst's values;
 * dropped is subtracted.
 */
KTAU_API int ktau_block_subtract(struct ktau_block *dst, const struct ktau_block *src);

/*
 * a + b and after - before, block by block: blocks are matched by
 * (kind, pid, tid) (ktau_profile_diff() through a sorted index of `before`,
 * the first such block in file order); unmatched blocks of a/b, and blocks
 * new in `after`, are copied; blocks only in `before` (tasks gone since)
 * are left out. A diff's counts are checked as ktau_block_subtract()
 * checks them (ERANGE when one went down). Both
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

/*
 * Two runs compared routine by routine (ktau-report --diff). This is
 * ktau_profile_diff()'s companion for when `before` is not an earlier
 * snapshot of the same tasks: two runs have other pids, a count may go
 * either way and a routine may run in one run only, so the result cannot
 * be a profile (whose counters are unsigned) and nothing is an ERANGE.
 *
 * Each side is summed first, over every block and user context of its
 * profile, per routine (func name and group); a row per routine of either
 * side has both sums ([0] a's, [1] b's, 0 where a side lacks it) and
 * b - a. Counts and cycles are exact: a sum beyond 2^64 - 1 fails the
 * whole comparison with EOVERFLOW (as ktau_block_add()). A *_delta is
 * b - a saturated to [INT64_MIN, INT64_MAX] (only a change of 2^63 or
 * more is clamped; the sides stay exact). The *_usec_delta fields convert
 * each side with its own profile's tsc_khz, so runs on machines with
 * different TSC rates compare (NaN when a profile has tsc_khz 0).
 *
 * Rows are sorted by the size of the exclusive-time change, largest
 * first (in cycles when both profiles have the same tsc_khz, else in
 * microseconds), then by name and group. Routines are matched by sorting
 * both sides' records: O(n log n) in the func records.
 *
 * NULL with errno EINVAL (a NULL profile), EOVERFLOW or ENOMEM. The result
 * owns its names; the profiles may be freed first.
 */
struct ktau_routine_diff;

struct ktau_diff_row {
	const char *name;
	const char *group;
	uint64_t calls[2];		/* [0]: a's, [1]: b's */
	uint64_t incl_cycles[2];
	uint64_t excl_cycles[2];
	int64_t calls_delta;		/* b - a, saturated */
	int64_t incl_cycles_delta;
	int64_t excl_cycles_delta;
	double incl_usec_delta;		/* b's microseconds - a's */
	double excl_usec_delta;
};

KTAU_API struct ktau_routine_diff *ktau_profile_diff_routines(const struct ktau_profile *a,
							      const struct ktau_profile *b);
KTAU_API void ktau_routine_diff_free(struct ktau_routine_diff *d);
KTAU_API size_t ktau_routine_diff_count(const struct ktau_routine_diff *d);
/* In sorted order; NULL (errno ERANGE) past the end. */
KTAU_API const struct ktau_diff_row *ktau_routine_diff_row(const struct ktau_routine_diff *d,
							   size_t index);
/*
 * Every row summed (name "total", group ""), overflow-checked like the
 * rows: calls and exclusive cycles only, since routines nest and their
 * inclusive times overlap (the inclusive fields are 0).
 */
KTAU_API const struct ktau_diff_row *ktau_routine_diff_total(const struct ktau_routine_diff *d);

/* ---- function map (/proc/ktau/functions) ------------------------------ */

struct ktau_functions;

struct ktau_function {
	uint32_t fid;
	const char *group;
	const char *name;
};

KTAU_API struct ktau_functions *ktau_functions_parse(const char *buf, size_t len,
						     struct ktau_error **err);
KTAU_API struct ktau_functions *ktau_functions_load(const struct ktau_load_opts *opts,
						    struct ktau_error **err);
/* <root>/ktau/functions; ENODEV without a ktau kernel */
KTAU_API struct ktau_functions *ktau_proc_read_functions(struct ktau_proc *proc,
							 struct ktau_error **err);
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

/* ---- profile model and exporters -------------------------------------- */

/*
 * A profile model: what the exporters write, built from kernel profile
 * blocks or by hand (the user-level profiler). Per thread, identified by
 * TAU's (node, context, thread) triple and a free-form label:
 *   - routines, keyed by name: group, calls, subroutine calls (calls this
 *     routine made to other profiled routines), inclusive and exclusive time;
 *   - callpaths, keyed by their names from root to leaf (depth >= 2):
 *     calls, subroutine calls, inclusive and exclusive time of the leaf while
 *     called along that path (TAU's `a => b => c` entries);
 *   - atomic events (TAU "user events"): count, min, max, sum, sum of squares;
 *   - metadata: name/value pairs (written into TAU's metadata and JSON).
 *
 * Times are integer nanoseconds (exact sums in every format; TAU files get
 * microseconds as ns / 1000).
 *
 * Names, groups, labels and metadata are normalised when they enter the
 * model, so every exporter can write them as they are: leading and trailing
 * blanks go, control characters become spaces and runs of spaces one space,
 * '"' becomes '\'', bytes >= 0x80 become '?'. Routine names and callpath
 * elements must be non-empty and must not contain "=>" (EINVAL).
 *
 * Adding a routine, callpath or event whose (normalised) name exists sums
 * into it: counts and times add (EOVERFLOW, nothing changed, if a sum does
 * not fit in 64 bits), event min/max combine. A routine added with a NULL
 * group keeps the group it has, or gets "TAU_DEFAULT" when new. Adding a
 * callpath creates a zero flat routine for each element that has none yet,
 * so every callpath element has its flat entry.
 *
 * Record pointers (struct ktau_model_routine etc.) stay valid until the
 * thread they belong to is modified or the model is freed.
 */
struct ktau_model;
struct ktau_model_thread;

struct ktau_model_routine {
	const char *name;
	const char *group;	/* e.g. "TAU_KERNEL_MERGE | KTAU_SYSCALL" */
	uint64_t calls;
	uint64_t subrs;
	uint64_t incl_ns;
	uint64_t excl_ns;
};

struct ktau_model_callpath {
	const char *name;	/* the elements joined with " => " */
	const char *const *path;	/* depth elements, root first */
	size_t depth;
	uint64_t calls;
	uint64_t subrs;
	uint64_t incl_ns;
	uint64_t excl_ns;
};

struct ktau_model_event {
	const char *name;
	uint64_t count;
	double min;
	double max;
	double sum;
	double sumsq;
};

struct ktau_model_metadata {
	const char *name;
	const char *value;
};

KTAU_API struct ktau_model *ktau_model_new(void);
KTAU_API void ktau_model_free(struct ktau_model *m);

/*
 * Appends a thread; label may be NULL ("node N context C thread T").
 * NULL with errno EEXIST if the model has that (node, context, thread),
 * EINVAL or ENOMEM.
 */
KTAU_API struct ktau_model_thread *ktau_model_add_thread(struct ktau_model *m,
							 unsigned int node,
							 unsigned int context,
							 unsigned int thread,
							 const char *label);
/* name must be non-empty; value may be empty. A repeated name is kept twice. */
KTAU_API int ktau_model_add_metadata(struct ktau_model_thread *t,
				     const char *name, const char *value);
KTAU_API int ktau_model_add_routine(struct ktau_model_thread *t,
				    const char *name, const char *group,
				    uint64_t calls, uint64_t subrs,
				    uint64_t incl_ns, uint64_t excl_ns);
/* depth >= 2 (a one-element path is a routine: EINVAL). */
KTAU_API int ktau_model_add_callpath(struct ktau_model_thread *t,
				     const char *const *path, size_t depth,
				     uint64_t calls, uint64_t subrs,
				     uint64_t incl_ns, uint64_t excl_ns);
/* Values must be finite (EINVAL); count 0 is accepted and never written. */
KTAU_API int ktau_model_add_event(struct ktau_model_thread *t, const char *name,
				  uint64_t count, double min, double max,
				  double sum, double sumsq);

/*
 * Adds block `index` of a kernel profile as thread (node, context, thread),
 * labelled "<kind> pid P tid T <comm>", following TAU's KTAU merge naming:
 * a `func` of group syscall becomes routine "sys_<name>()", any other
 * "<name>()"; groups "TAU_KERNEL_MERGE | KTAU_SYSCALL" (syscall), KTAU_BH
 * (softirq), KTAU_IRQ, KTAU_SCHEDULE (sched), KTAU_EXCEPTION, KTAU_KERNEL
 * (kernel) or KTAU_<GROUP> for a group this library does not know. Each
 * path of depth >= 2 becomes the callpath of its elements' names, e.g.
 * "sys_read() => page_fault() => irq()" for path 0,470,469, with the
 * path's calls and times, and adds its calls to its caller's subrs (a
 * version 1 block's paths are its edges: "parent => child"). So the stack
 * exporters (folded, pprof, callgrind) draw each path under its full
 * stack, and a thread's stacks add up to its kernel time. Events keep
 * their names. Cycles become nanoseconds with
 * the profile's tsc_khz (EINVAL when it is 0). Records of all user contexts
 * (ctx) are summed. Metadata: the block's kind, pid, tid, comm, tsc_khz,
 * dropped. Open records (routines running at the read) are not added to
 * routines or callpaths; the JSON writer lists them in the thread's "open"
 * array (docs/json-schema.md), the other writers leave them out. NULL with errno EINVAL, ERANGE (no such block), EEXIST,
 * EOVERFLOW or ENOMEM; the model is then unchanged.
 */
KTAU_API struct ktau_model_thread *ktau_model_add_block(struct ktau_model *m,
							const struct ktau_profile *p,
							size_t index,
							unsigned int node,
							unsigned int context,
							unsigned int thread);

/* Reading a model. Index functions return NULL (errno ERANGE) past the end;
 * find functions NULL (errno ENOENT) when absent. */
KTAU_API size_t ktau_model_thread_count(const struct ktau_model *m);
KTAU_API const struct ktau_model_thread *ktau_model_thread(const struct ktau_model *m,
							   size_t index);
KTAU_API unsigned int ktau_model_thread_node(const struct ktau_model_thread *t);
KTAU_API unsigned int ktau_model_thread_context(const struct ktau_model_thread *t);
KTAU_API unsigned int ktau_model_thread_id(const struct ktau_model_thread *t);
KTAU_API const char *ktau_model_thread_label(const struct ktau_model_thread *t);

KTAU_API size_t ktau_model_routine_count(const struct ktau_model_thread *t);
KTAU_API const struct ktau_model_routine *ktau_model_routine(const struct ktau_model_thread *t,
							     size_t index);
KTAU_API const struct ktau_model_routine *ktau_model_find_routine(const struct ktau_model_thread *t,
								  const char *name);
KTAU_API size_t ktau_model_callpath_count(const struct ktau_model_thread *t);
KTAU_API const struct ktau_model_callpath *ktau_model_callpath(const struct ktau_model_thread *t,
							       size_t index);
KTAU_API size_t ktau_model_event_count(const struct ktau_model_thread *t);
KTAU_API const struct ktau_model_event *ktau_model_event(const struct ktau_model_thread *t,
							 size_t index);
KTAU_API size_t ktau_model_metadata_count(const struct ktau_model_thread *t);
KTAU_API const struct ktau_model_metadata *ktau_model_metadata(const struct ktau_model_thread *t,
							       size_t index);

/*
 * Writers. Numbers are written in the C locale whatever the program's
 * locale. Files are written to a temporary name in the same directory and
 * renamed into place (mode 0644), so a reader never sees half a file.
 * 0 or a negative errno (EINVAL, EOVERFLOW: a value pprof's int64 cannot
 * hold, or what creating/writing the file failed with).
 *
 * tau:       directory dir (created if missing, not its parents) with one
 *            profile.<node>.<context>.<thread> per thread, as ParaProf reads.
 * pprof:     profile.proto (perftools.profiles.Profile), uncompressed; sample
 *            types calls/count, time/nanoseconds, event_count/count and
 *            event_sum/unit; one sample per stack and one per atomic event
 *            with samples (see ktau-export(1) and docs/export-formats.md).
 * callgrind: callgrind format, event "ns" (exclusive time as self cost).
 * folded:    "label;root;...;leaf ns" lines for flamegraph.pl.
 * json:      docs/json-schema.md.
 * svg:       an interactive flame graph of the same stacks as folded, one
 *            self-contained file (since 1.4: through ktau_model_write() and
 *            ktau_model_write_stream() only; docs/export-formats.md).
 */
enum ktau_model_format {
	KTAU_FORMAT_TAU = 1,
	KTAU_FORMAT_PPROF,
	KTAU_FORMAT_CALLGRIND,
	KTAU_FORMAT_FOLDED,
	KTAU_FORMAT_JSON,
	KTAU_FORMAT_SVG,	/* since 1.4 */
};

KTAU_API int ktau_model_write_tau(const struct ktau_model *m, const char *dir);
KTAU_API int ktau_model_write_pprof(const struct ktau_model *m, const char *path);
KTAU_API int ktau_model_write_callgrind(const struct ktau_model *m, const char *path);
KTAU_API int ktau_model_write_folded(const struct ktau_model *m, const char *path);
KTAU_API int ktau_model_write_json(const struct ktau_model *m, const char *path);
/* Any format: path is the directory for KTAU_FORMAT_TAU, else the file. */
KTAU_API int ktau_model_write(const struct ktau_model *m,
			      enum ktau_model_format format, const char *path);
/* A single-file format to a stream (EINVAL for KTAU_FORMAT_TAU). */
KTAU_API int ktau_model_write_stream(const struct ktau_model *m,
				     enum ktau_model_format format, FILE *out);
/* "tau", "pprof", "callgrind", "folded", "json", "svg" and back; -EINVAL / NULL
 * (errno EINVAL) for anything else. */
KTAU_API int ktau_model_format_from_name(const char *name);
KTAU_API const char *ktau_model_format_name(enum ktau_model_format format);

/* ---- archives (docs/archive-format.md), since 0.2 ---------------------- */

/*
 * A ktau archive is one file holding what it takes to analyze profiles on
 * another machine, like oprofile's oparchive: the profiles, the function
 * map, the kernel's version and configuration, kallsyms. It is a POSIX
 * ustar tar file (tar(1) lists and extracts it). Its first member,
 * "ktau-archive", is the manifest: `key value` lines (host, kernel, time,
 * tsc_khz, ...), handed out here as info entries rather than as a member.
 * A member named proc/PATH is a copy of /proc/PATH, so an extracted
 * archive's proc/ directory also serves as a ktau_proc_open() root.
 */
struct ktau_archive;

struct ktau_archive_member {
	const char *name;	/* e.g. "proc/42/ktau" */
	const char *data;	/* size bytes, then a NUL not counted in size */
	size_t size;
};

struct ktau_archive_info {
	const char *key;
	const char *value;
};

KTAU_API struct ktau_archive *ktau_archive_new(void);
KTAU_API void ktau_archive_free(struct ktau_archive *a);

/*
 * Adds a member (data copied). name: 1 to 99 characters of [A-Za-z0-9._/+-],
 * relative, no empty, "." or ".." component, not "ktau-archive".
 * -EINVAL, -EEXIST (a member has that name) or -ENOMEM.
 */
KTAU_API int ktau_archive_add(struct ktau_archive *a, const char *name,
			      const void *data, size_t size);
/*
 * Sets a manifest entry: key 1 to 32 characters of [a-z0-9_]; value
 * printable ASCII, possibly empty (-EINVAL otherwise). Setting a key
 * again replaces its value, in place.
 */
KTAU_API int ktau_archive_set_info(struct ktau_archive *a, const char *key,
				   const char *value);
/* NULL (errno ENOENT) when the manifest has no such key. */
KTAU_API const char *ktau_archive_info(const struct ktau_archive *a, const char *key);
KTAU_API size_t ktau_archive_info_count(const struct ktau_archive *a);
/* In manifest order; NULL (errno ERANGE) past the end. */
KTAU_API const struct ktau_archive_info *ktau_archive_info_get(const struct ktau_archive *a,
							       size_t index);

/* Members (the manifest is not one), in archive order; NULL (errno ERANGE)
 * past the end, NULL (errno ENOENT) for a name not there. */
KTAU_API size_t ktau_archive_member_count(const struct ktau_archive *a);
KTAU_API const struct ktau_archive_member *ktau_archive_member(const struct ktau_archive *a,
							       size_t index);
KTAU_API const struct ktau_archive_member *ktau_archive_find(const struct ktau_archive *a,
							     const char *name);

/*
 * Writing: the manifest, then the members in the order added. A file is
 * written to a temporary name in the same directory and renamed into place
 * (mode 0644). 0 or a negative errno.
 */
KTAU_API int ktau_archive_write(const struct ktau_archive *a, const char *path);
KTAU_API int ktau_archive_write_stream(const struct ktau_archive *a, FILE *out);

/*
 * Reading. A truncated or corrupt archive fails with EPROTO, an archive of
 * a later format version with EPROTONOSUPPORT; *err says what is wrong and
 * where (ktau_error_line(): the manifest line, 0 for the tar structure).
 * ktau_archive_detect() tells an archive (it starts with the manifest's
 * tar header, even when cut short) from a profile text file.
 */
KTAU_API struct ktau_archive *ktau_archive_parse(const void *buf, size_t len,
						 struct ktau_error **err);
KTAU_API struct ktau_archive *ktau_archive_load(const struct ktau_load_opts *opts,
						struct ktau_error **err);
KTAU_API bool ktau_archive_detect(const void *buf, size_t len);

/*
 * The profiles of an archive: members proc/ktau/profile, proc/PID/ktau and
 * proc/PID/task/TID/ktau, in archive order. ktau_archive_profile() parses
 * one (the caller frees it); a parse error's message starts with the
 * member's name. NULL with errno ERANGE, EPROTO, EPROTONOSUPPORT, ENOMEM.
 */
KTAU_API size_t ktau_archive_profile_count(const struct ktau_archive *a);
KTAU_API const struct ktau_archive_member *ktau_archive_profile_member(const struct ktau_archive *a,
								       size_t index);
KTAU_API struct ktau_profile *ktau_archive_profile(const struct ktau_archive *a,
						   size_t index,
						   struct ktau_error **err);
/* proc/ktau/functions, parsed; NULL with errno ENOENT if absent. */
KTAU_API struct ktau_functions *ktau_archive_functions(const struct ktau_archive *a,
						       struct ktau_error **err);

/*
 * Fills a from proc's tree (see docs/archive-format.md): for each of the
 * nr_pids processes in opts <root>/PID/ktau and the profile of each live
 * thread, or with none (or NULL opts) <root>/ktau/profile;
 * <root>/ktau/functions and <root>/ktau/control; <root>/config.gz and
 * <root>/kallsyms when readable (the manifest says why not otherwise); the
 * manifest: host, kernel (uname), time, tsc_khz, pids. A thread that exits
 * meanwhile is left out; a process that cannot be read fails the whole
 * collection (ESRCH, EACCES, ENODEV, EPROTO, ...) with *err naming the file.
 */
struct ktau_collect_opts {
	size_t sz;
	const pid_t *pids;
	size_t nr_pids;
	size_t :0;
};

KTAU_API int ktau_archive_collect(struct ktau_archive *a, struct ktau_proc *proc,
				  const struct ktau_collect_opts *opts,
				  struct ktau_error **err);

/* ---- selections, since 0.2 --------------------------------------------- */

/*
 * A copy of p keeping, in each block, the func records of the listed groups
 * ("syscall", "softirq", ...), the edges, paths and open records ending in
 * them, and the events when "event" is listed. (A kept path may lose its
 * prefixes: ktau_block_path_element_name() then names elements by their
 * func records.) NULL with errno EINVAL or ENOMEM.
 */
KTAU_API struct ktau_profile *ktau_profile_filter_groups(const struct ktau_profile *p,
							 const char *const *groups,
							 size_t nr_groups);
/*
 * A copy of p keeping, in each block, the n func records with the largest
 * exclusive time (ties: by name, then ctx), the edges, paths and open
 * records ending in them, and all events. NULL with errno EINVAL (n is 0) or ENOMEM.
 */
KTAU_API struct ktau_profile *ktau_profile_top(const struct ktau_profile *p, size_t n);

/* ---- recording control (/proc/ktau/control) ---------------------------- */

/*
 * The state /proc/ktau/control reports (docs/proc-format.md): whether
 * recording runs, which instrumentation groups exist and which are enabled.
 * The file is root-only: reading it as another user fails with EACCES.
 */
struct ktau_control_status;

/* The longest command the kernel accepts, in bytes. */
#define KTAU_CONTROL_COMMAND_MAX 256

KTAU_API struct ktau_control_status *ktau_control_status_parse(const char *buf,
							       size_t len,
							       struct ktau_error **err);
/* <root>/ktau/control; ENODEV without a ktau kernel, EACCES if not root */
KTAU_API struct ktau_control_status *ktau_proc_read_control(struct ktau_proc *proc,
							    struct ktau_error **err);
KTAU_API void ktau_control_status_free(struct ktau_control_status *s);

KTAU_API bool ktau_control_status_running(const struct ktau_control_status *s);
/* The groups the kernel has, in its order; NULL (errno ERANGE) past the end. */
KTAU_API size_t ktau_control_status_group_count(const struct ktau_control_status *s);
KTAU_API const char *ktau_control_status_group(const struct ktau_control_status *s,
					       size_t index);
/* 1 enabled, 0 disabled, -ENOENT: the kernel has no such group. */
KTAU_API int ktau_control_status_group_enabled(const struct ktau_control_status *s,
					       const char *group);
/* Registered and maximum function ids; -ENOENT when the file did not say. */
KTAU_API int ktau_control_status_fids(const struct ktau_control_status *s,
				      uint64_t *registered, uint64_t *max);
/* Tasks whose exited/children totals the kernel could not keep (no memory);
 * -ENOENT when the file did not say. */
KTAU_API int ktau_control_status_lost_tasks(const struct ktau_control_status *s,
					    uint64_t *lost);

/*
 * Writes one command to <root>/ktau/control with a single write():
 * "start", "stop", "clear", "startclr", "enable GROUP...", "disable GROUP..."
 * (GROUP a name from the status or "all"; at most KTAU_CONTROL_COMMAND_MAX
 * bytes). 0, or
 * -EACCES (not root), -ENODEV (no ktau kernel), -EINVAL (the kernel refused
 * the command and changed nothing), or what open/write failed with.
 */
KTAU_API int ktau_proc_write_control(struct ktau_proc *proc, const char *command,
				     struct ktau_error **err);

/* ---- process totals ---------------------------------------------------- */

/*
 * From a system-scope profile, a new system-scope profile with one
 * `process` block per process (pid = tid = the process id): the sum of its
 * thread blocks and its exited block, as /proc/<pid>/ktau has it. Children
 * blocks are left out. Blocks come in the order of each process's first
 * block; comm is its main thread's (else its first block's) comm. Diffing
 * two such profiles gives each process's interval even when threads exited
 * in between. NULL with errno EINVAL (not a system profile), EOVERFLOW or
 * ENOMEM.
 */
KTAU_API struct ktau_profile *ktau_profile_process_totals(const struct ktau_profile *system);

/* ---- since 0.2 (version node KTAU_0.2) --------------------------------- */

/*
 * What a model's inclusive/exclusive values measure. A new model measures
 * time in nanoseconds. A sample model (ktau_model_add_stacks()) holds
 * sample counts in the same fields (incl_ns, excl_ns: the names are kept
 * for binary compatibility), and the writers label them so: TAU metric
 * SAMPLES (counts, not microseconds), pprof sample type samples/count,
 * callgrind event "samples", JSON "metric": "samples". A model takes one
 * metric: ktau_model_add_block() refuses a sample model (EINVAL) and
 * ktau_model_add_stacks() a time model that has threads.
 */
enum ktau_model_metric {
	KTAU_METRIC_TIME = 0,
	KTAU_METRIC_SAMPLES,
};

/* -EINVAL for an unknown metric, or to change the metric of a model that
 * already has threads. */
KTAU_API int ktau_model_set_metric(struct ktau_model *m, enum ktau_model_metric metric);
KTAU_API enum ktau_model_metric ktau_model_get_metric(const struct ktau_model *m);

/* ---- sampled call stacks: perf, SystemTap, DTrace (since 0.2) ---------- */

/*
 * Call stacks that other profilers sampled, counted per distinct stack, so
 * that they can be written through the profile model like a kernel profile.
 * The inputs, each parsed by its own parser (docs/export-formats.md has the
 * exact shapes and the naming rules):
 *   KTAU_STACKS_PERF    `perf script` output of `perf record -g`: an event
 *                       line per sample, then its frames one per line, leaf
 *                       first ("\tffffffff8100abcd func+0x1d ([kernel.kallsyms])"),
 *                       a blank line after each sample; each sample counts 1.
 *   KTAU_STACKS_STAP    SystemTap print_stack()/print_ubacktrace() frames
 *                       (" 0xffffffff814cde75 : net_rx_action+0x105/0x2b0 [kernel]"),
 *                       leaf first, each stack followed by its count line;
 *                       "!" separator lines and blank lines between stacks.
 *   KTAU_STACKS_DTRACE  printed @[stack()] / @[ustack()] aggregations:
 *                       "module`func+0x105" frames, leaf first, then the count.
 * Frame names lose offsets, sizes, addresses and module prefixes; a frame
 * without a symbol is named by its address in hex ("0xffffffffc0a1b2c3");
 * the module becomes the routine's group. Names are in the model's normal
 * form, with "=>" written "=?". A stack of no frames (an empty backtrace, a
 * perf sample recorded without -g) only counts in
 * ktau_stacks_empty_samples(). Lines end in LF or CRLF; a line may be up to
 * 65536 bytes, a stack up to KTAU_STACKS_MAX_DEPTH frames.
 * Parsing fails with EPROTO (the line and what is wrong in *err), EOVERFLOW
 * (the counts add up beyond 2^64), or ENOMEM.
 */
struct ktau_stacks;

enum ktau_stacks_format {
	KTAU_STACKS_AUTO = 0,	/* as ktau_stacks_detect() says */
	KTAU_STACKS_PERF,
	KTAU_STACKS_STAP,
	KTAU_STACKS_DTRACE,
};

#define KTAU_STACKS_MAX_DEPTH 1024

KTAU_API struct ktau_stacks *ktau_stacks_parse(const char *buf, size_t len,
					       enum ktau_stacks_format format,
					       struct ktau_error **err);
KTAU_API struct ktau_stacks *ktau_stacks_load(const struct ktau_load_opts *opts,
					      enum ktau_stacks_format format,
					      struct ktau_error **err);
KTAU_API void ktau_stacks_free(struct ktau_stacks *s);

/*
 * The format of the first line that only one format has (a "!" or
 * "0x... : " line: stap; a "module`func" line or dtrace's own "dtrace:"
 * messages: dtrace; an indented "hex symbol (dso)" line: perf), or -EPROTO
 * when no line decides.
 */
KTAU_API int ktau_stacks_detect(const char *buf, size_t len);
/* "perf", "stap", "dtrace" and back; -EINVAL / NULL (errno EINVAL) else. */
KTAU_API int ktau_stacks_format_from_name(const char *name);
KTAU_API const char *ktau_stacks_format_name(enum ktau_stacks_format format);

/* The format that was parsed (never KTAU_STACKS_AUTO). */
KTAU_API enum ktau_stacks_format ktau_stacks_format(const struct ktau_stacks *s);
/* Samples with at least one frame; samples with none; distinct stacks. */
KTAU_API uint64_t ktau_stacks_samples(const struct ktau_stacks *s);
KTAU_API uint64_t ktau_stacks_empty_samples(const struct ktau_stacks *s);
KTAU_API size_t ktau_stacks_count(const struct ktau_stacks *s);

/*
 * Calls fn for every distinct stack, root first, with its sample count,
 * in a stable order (stacks sharing a prefix together, in input order);
 * stops at fn's first non-zero return and returns it.
 */
typedef int (*ktau_stack_fn_t)(void *arg, const char *const *frames, size_t depth,
			       uint64_t count);
KTAU_API int ktau_stacks_foreach(const struct ktau_stacks *s, ktau_stack_fn_t fn,
				 void *arg);

/*
 * Adds the stacks as thread (node, context, thread) of a sample model (a
 * model with no threads becomes one). label may be NULL ("<format>
 * samples"). Per frame name a routine: calls and inclusive samples = the
 * samples whose stack holds it (once per stack, however often recursion
 * repeats it), exclusive = the samples it is the leaf of, subrs =
 * inclusive - exclusive. Per stack prefix of two or more frames a
 * callpath, counted the same way along that path. Metadata: the format,
 * samples, empty-stack samples, distinct stacks. NULL with errno EINVAL (a
 * time model with threads), EEXIST, EOVERFLOW or ENOMEM; the model is then
 * unchanged.
 */
KTAU_API struct ktau_model_thread *ktau_model_add_stacks(struct ktau_model *m,
							 const struct ktau_stacks *s,
							 unsigned int node,
							 unsigned int context,
							 unsigned int thread,
							 const char *label);

/* ---- kernel callpaths and open routines (since 0.3, KTAU_0.3) -------- */

/* The deepest kernel callpath a profile holds. */
#define KTAU_PATH_MAX_DEPTH 8

/*
 * `path` record (profile version 2): one kernel callpath. fids[0] is the
 * outermost routine (entered from user mode, or the first a kernel thread
 * ran), fids[depth - 1] the innermost; name and group are the innermost
 * routine's, and calls and cycles are its completed calls and time while it
 * ran along this path. Every prefix of a path is a path of the same block
 * too (ktau_profile_validate() checks it), so element k's name is
 * ktau_block_find_path(b, ctx, fids, k + 1)->name, or
 * ktau_block_path_element_name(). A block's path excl_cycles add up to its
 * kernel time. In a version 1 block each `edge` line is a two-element path
 * [parent_fid, fid] (no one-element prefixes: v1 files do not have them).
 */
struct ktau_path {
	uint64_t ctx;
	uint32_t depth;		/* 1 to KTAU_PATH_MAX_DEPTH */
	const uint32_t *fids;	/* depth ids, outermost first */
	const char *name;
	const char *group;
	uint64_t calls;
	uint64_t incl_cycles;
	uint64_t excl_cycles;
};

/*
 * `open` record (profile version 2): a routine that was running in live
 * thread tid when the file was read, with its path as in struct ktau_path
 * and the cycles since it started (excl: of those, not in routines it
 * called). Not part of any func or path number. Open records are a
 * snapshot, not a counter: ktau_block_add() keeps both blocks' opens,
 * ktau_block_subtract() keeps dst's (the later snapshot's).
 */
struct ktau_open {
	pid_t tid;
	uint64_t ctx;
	uint32_t depth;
	const uint32_t *fids;
	const char *name;
	const char *group;
	uint64_t incl_cycles;
	uint64_t excl_cycles;
};

/* Paths in file order (v1: edge order); NULL (errno ERANGE) past the end. */
KTAU_API size_t ktau_block_path_count(const struct ktau_block *b);
KTAU_API const struct ktau_path *ktau_block_path(const struct ktau_block *b,
						 size_t index);
/* The path (ctx, fids[0..depth)); NULL (errno ENOENT) when absent. */
KTAU_API const struct ktau_path *ktau_block_find_path(const struct ktau_block *b,
						      uint64_t ctx,
						      const uint32_t *fids,
						      uint32_t depth);
/*
 * The name of path element k (0 = outermost): the innermost routine's name
 * of its prefix of depth k + 1; when that prefix is absent (a v1 block, a
 * filtered copy), the parent name of the v1 edge, else the name of the
 * func record of that fid (same ctx first). NULL (errno ERANGE: k >=
 * depth; ENOENT: no record names that fid).
 */
KTAU_API const char *ktau_block_path_element_name(const struct ktau_block *b,
						  const struct ktau_path *path,
						  uint32_t k);

/* Open routines in file order; NULL (errno ERANGE) past the end. */
KTAU_API size_t ktau_block_open_count(const struct ktau_block *b);
KTAU_API const struct ktau_open *ktau_block_open(const struct ktau_block *b,
						 size_t index);

/*
 * "Time so far": each open record of b added to the counters its routine
 * will reach when it stops, then the open records removed. An open record
 * adds its incl_cycles and excl_cycles to the path (ctx, fids) and to the
 * func (ctx, innermost fid): excl always, incl only when that fid does not
 * occur further out in the path (the func rule of docs/proc-format.md: a
 * recursive call's time counts once, at its outermost call). A path or
 * func that is absent is created with 0 calls; calls never change (a
 * routine still running has not completed a call). The kernel writes the
 * outer routines of an open record as open records too, so the paths keep
 * their prefixes. Edges are derived again (a version 1 block's edge between
 * the last two routines gets the time instead of the path). Events, dropped
 * and the task fields stay as they are.
 * 0 or -EINVAL (NULL, an open record's depth outside 1 to
 * KTAU_PATH_MAX_DEPTH), -EOVERFLOW or -ENOMEM; b is unchanged on failure.
 *
 * For an interval that counts a call still running at either end
 * (a live view), fold both snapshots and subtract:
 * (completed2 + open2) - (completed1 + open1) holds exactly the part of
 * every call's time inside the interval.
 */
KTAU_API int ktau_block_add_open(struct ktau_block *b);
/* A copy of p with ktau_block_add_open() applied to every block; NULL with
 * errno EINVAL, EOVERFLOW or ENOMEM. */
KTAU_API struct ktau_profile *ktau_profile_with_open(const struct ktau_profile *p);

/* children blocks: how many of the processes ran privileged and add only
 * their count (task field private=; 0 in a version 1 file). */
KTAU_API uint64_t ktau_block_private(const struct ktau_block *b);

/*
 * children blocks (since 1.4): how many reaped children's totals are still
 * to come (task field pending=; 0 when absent). A child reaped while its
 * own children, reaped automatically, were still exiting folds in when
 * the last of them has: until then its numbers are not in the block.
 * Read again until this is 0 for the complete totals.
 */
KTAU_API uint64_t ktau_block_pending(const struct ktau_block *b);

/* ---- traces: when things happened (since 1.1, version node KTAU_1.1) --- */

/*
 * A trace (docs/trace-format.md): what /proc/ktau/trace drains and
 * ktau-trace saves, kernel events per CPU, user-level profilers' events
 * per thread, and the names of both. libktau is its one reader.
 *
 * ktau_trace_open() reads the stream header and, when the source is
 * seekable (a file), looks once over the chunk headers to learn the names
 * and the lost totals up front (ktau-trace appends the names at the end);
 * it never holds more than one names chunk and one event in memory while
 * iterating. A pipe is read strictly in order: names and lost totals are
 * then known once their chunks have been passed.
 *
 * Errors (struct ktau_error, its message says what and at which byte
 * offset): EPROTO for a bad magic, unit size, chunk magic, unknown event
 * type (ATOMIC in a version 1 stream included), a two-unit event cut in
 * half, an ATOMIC whose reserved word is not 0, a truncated header or
 * chunk, a malformed names chunk; EPROTONOSUPPORT for a stream version
 * other than 1 and 2. Chunks of unknown kinds are skipped.
 */
/* The latest stream version this library reads (it reads 1 to this one);
 * version 2 added the ATOMIC event (since 1.3). */
#define KTAU_TRACE_FORMAT_VERSION 2

struct ktau_trace;

enum ktau_trace_event_type {
	KTAU_TRACE_ENTRY = 1,
	KTAU_TRACE_EXIT,
	KTAU_TRACE_TASK,	/* the first event of a thread; comm is set */
	KTAU_TRACE_EXEC,	/* the thread ran execve(); comm is the new one */
	KTAU_TRACE_TASK_EXIT,
	KTAU_TRACE_CONTEXT,	/* data: the user context word at kernel entry */
	KTAU_TRACE_ATOMIC = 7,	/* version 2: data is an atomic event's id, value its value */
};

/* Where an event or a slice comes from: the kernel (chunk kind 1, kernel
 * function ids) or a user-level profiler (kind 2, that source's user ids). */
enum ktau_trace_origin {
	KTAU_TRACE_KERNEL = 1,
	KTAU_TRACE_USER,
};

/* One event, valid until the next ktau_trace_next() or ktau_trace_close(). */
struct ktau_trace_event {
	uint64_t tsc;		/* the TSC's low 56 bits */
	uint32_t tid;
	uint32_t data;		/* function id, process id or context word */
	unsigned int type;	/* enum ktau_trace_event_type */
	unsigned int origin;	/* enum ktau_trace_origin */
	unsigned int cpu;	/* kernel: the CPU; user: the chunk's cpu (0xffff) */
	unsigned int source;	/* user: the user trace it came from; kernel: 0 */
	const char *comm;	/* TASK and EXEC: the comm (NUL-terminated); else NULL */
	uint64_t value;		/* ATOMIC: the value recorded; else 0 (since 1.3) */
};

/* From opts' path or stream (a stream is read from where it is and not
 * closed; wrap a file descriptor with fdopen()). */
KTAU_API struct ktau_trace *ktau_trace_open(const struct ktau_load_opts *opts,
					    struct ktau_error **err);
/* NULL is accepted; leaves errno unchanged. */
KTAU_API void ktau_trace_close(struct ktau_trace *t);

/* The stream header. */
KTAU_API unsigned int ktau_trace_version(const struct ktau_trace *t);
KTAU_API unsigned int ktau_trace_nr_cpus(const struct ktau_trace *t);
/* 0 when unknown (a user trace file written without a ktau kernel). */
KTAU_API uint64_t ktau_trace_tsc_khz(const struct ktau_trace *t);
/* The clock anchor: the TSC and CLOCK_REALTIME / CLOCK_MONOTONIC read at
 * the same moment; any pointer may be NULL. */
KTAU_API void ktau_trace_clock(const struct ktau_trace *t, uint64_t *tsc,
			       uint64_t *realtime_ns, uint64_t *monotonic_ns);

/* The next event in stream order: 1 with *ev set, 0 at the end, or a
 * negative errno (EPROTO, EPROTONOSUPPORT, an I/O error) with *err. */
KTAU_API int ktau_trace_next(struct ktau_trace *t, const struct ktau_trace_event **ev,
			     struct ktau_error **err);

/* Events lost to full buffers, summed over the chunks seen so far (all of
 * them for a seekable source): per CPU of the kernel (0 past the CPUs the
 * stream has), and over every user trace's threads. */
KTAU_API uint64_t ktau_trace_lost(const struct ktau_trace *t, unsigned int cpu);
KTAU_API uint64_t ktau_trace_lost_user(const struct ktau_trace *t);

/* The name and group of an id, from the names chunks seen so far: kernel
 * ids (source 0) as /proc/ktau/functions names them, user ids per source
 * (group "user"). NULL (errno ENOENT) for an id no chunk names. */
KTAU_API const char *ktau_trace_name(const struct ktau_trace *t, unsigned int origin,
				     unsigned int source, uint32_t id);
KTAU_API const char *ktau_trace_group(const struct ktau_trace *t, unsigned int origin,
				      unsigned int source, uint32_t id);

/*
 * Per-thread intervals: each thread's ENTRY and EXIT events (kernel and
 * user, merged by TSC, the stream order kept for equal stamps) paired into
 * one nesting of slices as docs/trace-format.md's "Per-thread intervals"
 * says, so that a user routine holds the system calls it made and those
 * the faults and interrupts inside them.
 *
 * ktau_trace_timeline() reads the rest of t (call it on a new trace) and
 * keeps every ENTRY and EXIT event (24 bytes each) until the rebuild:
 * memory is linear in the events, the price of merging a thread's events
 * drained from several CPUs at different times. NULL with errno and *err
 * as ktau_trace_next(), or ENOMEM.
 */
struct ktau_trace_timeline;

#define KTAU_SLICE_BEGIN_UNKNOWN (1U << 0)	/* its ENTRY was not in the stream */
#define KTAU_SLICE_END_UNKNOWN (1U << 1)	/* its EXIT was missed or not in the stream */
#define KTAU_SLICE_NONE ((size_t)-1)

struct ktau_trace_slice {
	uint64_t begin;		/* TSC */
	uint64_t end;		/* TSC, >= begin */
	uint32_t id;
	unsigned int origin;	/* enum ktau_trace_origin */
	unsigned int source;	/* user: its user trace; kernel: 0 */
	unsigned int depth;	/* 0: outermost */
	unsigned int flags;	/* KTAU_SLICE_* */
	size_t parent;		/* index of the enclosing slice, or KTAU_SLICE_NONE */
	const char *name;	/* never NULL: "fid_N" / "user_N" when unnamed */
	const char *group;	/* a kernel group, "user", or "unknown" */
};

struct ktau_trace_thread {
	uint32_t tid;
	uint32_t pid;		/* from TASK or EXEC; 0 when the stream has none */
	const char *comm;	/* the latest TASK or EXEC comm, or "" */
	uint64_t first_tsc;	/* its first and last event */
	uint64_t last_tsc;
	size_t nr_slices;
};

KTAU_API struct ktau_trace_timeline *ktau_trace_timeline(struct ktau_trace *t,
							 struct ktau_error **err);
KTAU_API void ktau_trace_timeline_free(struct ktau_trace_timeline *tl);
KTAU_API uint64_t ktau_trace_timeline_tsc_khz(const struct ktau_trace_timeline *tl);
/* The smallest TSC of any event (0 for an empty trace). */
KTAU_API uint64_t ktau_trace_timeline_first_tsc(const struct ktau_trace_timeline *tl);
/* Threads in tid order; NULL (errno ERANGE) past the end. */
KTAU_API size_t ktau_trace_timeline_thread_count(const struct ktau_trace_timeline *tl);
KTAU_API const struct ktau_trace_thread *
ktau_trace_timeline_thread(const struct ktau_trace_timeline *tl, size_t index);
/* A thread's slices in preorder (by begin, an enclosing slice before what
 * it encloses); NULL (errno ERANGE) past the end. */
KTAU_API const struct ktau_trace_slice *
ktau_trace_thread_slice(const struct ktau_trace_thread *th, size_t index);

/*
 * A thread's atomic events (ATOMIC events of a version 2 stream: the
 * kernel's `event` group, read_bytes, write_bytes, KTAU_EVENT(), each the
 * value the thread recorded at that moment), in time order (TSC, the
 * stream order for equal stamps); since 1.3, version node KTAU_1.3.
 * The timeline keeps them all (memory linear in them); they take part in a
 * thread's first_tsc and last_tsc.
 */
struct ktau_trace_atomic {
	uint64_t tsc;
	uint64_t value;
	uint32_t id;		/* a kernel function id of group "event" */
	unsigned int origin;	/* enum ktau_trace_origin (the kernel's) */
	unsigned int source;	/* 0 for the kernel's */
	const char *name;	/* never NULL: "fid_N" when unnamed */
	const char *group;	/* "event", or "unknown" when unnamed */
};

/* How many; the one at index, NULL (errno ERANGE) past the end. */
KTAU_API size_t ktau_trace_thread_atomic_count(const struct ktau_trace_thread *th);
KTAU_API const struct ktau_trace_atomic *
ktau_trace_thread_atomic(const struct ktau_trace_thread *th, size_t index);

/*
 * Chrome/Perfetto trace-event JSON ({"traceEvents": [...]}, opens in
 * ui.perfetto.dev and chrome://tracing): per thread (pid, tid) process
 * and thread name metadata, then a "B" and an "E" event per slice, "ts" in
 * microseconds since the timeline's first event, "cat" "kernel,GROUP" or
 * "user"; an atomic event is a thread-scoped instant event among them
 * ({"ph":"i","s":"t","name":NAME,"cat":"kernel,event","args":{"value":N}},
 * inside the slices open at its stamp). 0, -EINVAL (NULL, or a trace without tsc_khz), -EOVERFLOW, or
 * the stream's write error.
 */
KTAU_API int ktau_trace_timeline_write_json(const struct ktau_trace_timeline *tl,
					    FILE *out);

/*
 * What ktau-trace writes after the kernel's stream: a names chunk (kind 3)
 * of cpu 0 (text: /proc/ktau/functions as read) or cpu 1 (user "ID NAME"
 * lines) and that source; and the kind 2 and kind 3 cpu 1 chunks of a user
 * trace file, checked as ktau_trace_open() checks a stream, with their
 * source set to source. 0 or a negative errno (EINVAL: source or cpu out
 * of range; EPROTO... for a bad user trace, with *err; the stream's error).
 * On failure part of a chunk may have been written.
 */
KTAU_API int ktau_trace_append_names(FILE *out, unsigned int cpu, unsigned int source,
				     const char *text, size_t len);
KTAU_API int ktau_trace_append_user(FILE *out, const struct ktau_load_opts *from,
				    unsigned int source, struct ktau_error **err);

/*
 * A tally of a trace as it is written (since 1.6, version node KTAU_1.6):
 * what a writer of a stream (ktau-trace) reports of it without reading
 * it back. Feed it every byte of the stream, in order, in pieces of any
 * size; it checks the structure as ktau_trace_next() does (the header, the
 * chunk headers, event types, two-unit events whole, an ATOMIC's reserved
 * word; not the text of names chunks) and counts the events and the
 * chunks' lost totals by origin (enum ktau_trace_origin).
 *
 * ktau_trace_tally_feed(): 0, or -EPROTO / -EPROTONOSUPPORT with *err at
 * the first problem, as ktau_trace_next() words it; every later call
 * returns the same error. ktau_trace_tally_end(): 0 when what was fed ends
 * where a chunk may end, else -EPROTO (the stream stops inside the header,
 * a chunk or an event). The counts are those of the events fed so far.
 */
struct ktau_trace_tally;

KTAU_API struct ktau_trace_tally *ktau_trace_tally_new(struct ktau_error **err);
/* NULL is accepted; leaves errno unchanged. */
KTAU_API void ktau_trace_tally_free(struct ktau_trace_tally *t);
KTAU_API int ktau_trace_tally_feed(struct ktau_trace_tally *t, const void *data, size_t len,
				   struct ktau_error **err);
KTAU_API int ktau_trace_tally_end(const struct ktau_trace_tally *t, struct ktau_error **err);
/* Events (a two-unit event is one) and events lost, of one origin. */
KTAU_API uint64_t ktau_trace_tally_events(const struct ktau_trace_tally *t,
					  unsigned int origin);
KTAU_API uint64_t ktau_trace_tally_lost(const struct ktau_trace_tally *t, unsigned int origin);

/* The `trace` line of /proc/ktau/control ("trace on size=1024 tasks=all
 * lost=0"): whether tracing is on and the events lost since `trace on`;
 * -ENOENT when the file has no such line (a kernel without trace mode). */
KTAU_API int ktau_control_status_trace(const struct ktau_control_status *s, bool *on,
				       uint64_t *lost);

/*
 * Memory of profiles (since 1.4, version node KTAU_1.4): the `memory` line's
 * bytes profiles take and the limit on all users' grown tables together,
 * and the `user_memory` line's limit of every user (0 when the kernel has
 * no per-user limits); -ENOENT when the file has no `memory` line.
 */
KTAU_API int ktau_control_status_memory(const struct ktau_control_status *s,
					uint64_t *bytes, uint64_t *limit,
					uint64_t *user_limit);
/* The `user` lines (the users with the most bytes charged, most first):
 * how many, and one's uid, bytes and the limit that applies to it;
 * -ERANGE past the end. */
KTAU_API size_t ktau_control_status_user_count(const struct ktau_control_status *s);
KTAU_API int ktau_control_status_user(const struct ktau_control_status *s, size_t index,
				      uint32_t *uid, uint64_t *bytes, uint64_t *limit);

/* ---- TAU profile directories (since 1.2, version node KTAU_1.2) -------- */

/*
 * Reading TAU profiles: one profile.<node>.<context>.<thread> file per
 * thread, in TAU's text format (docs/export-formats.md), as libktau's own
 * writer (ktau_model_write_tau()) and TAU itself write them: a
 * "<N> templated_functions_MULTI_<metric>" line, the "# Name Calls Subrs
 * Excl Incl ProfileCalls" header with its <metadata> XML, N function lines
 * ("name" calls subrs excl incl profilecalls GROUP="..."; a SumExclSqr
 * column when the header names one), "<K> aggregates" (K lines, skipped),
 * then optionally "<M> userevents", its heading and M event lines. Names
 * keep what the file has, callpaths included ("main => MPI_Send() =>
 * sys_sendto()"); a name may hold double quotes (TAU's rule: the name
 * ends at the quote before GROUP="). Function lines of the same name in
 * one file are summed (as ParaProf does), and so are events. Numbers are
 * read in the C locale; values must be finite and not negative; calls and
 * subrs are whole numbers. Lines may be up to 1 MiB (TAU's metadata is
 * long), bytes >= 0x80 are accepted in names and metadata.
 *
 * Malformed input fails with EPROTO and the line in *err.
 */
struct ktau_tau_thread;
struct ktau_tau_dir;

/* One function line; times in the metric's unit as written (TIME:
 * microseconds). depth is 1 for a routine, the number of names for a
 * callpath ("a => b => c": 3). */
struct ktau_tau_function {
	const char *name;
	const char *groups;	/* the GROUP="..." text, "" when none */
	uint64_t calls;
	uint64_t subrs;
	double excl;
	double incl;
	unsigned int depth;
};

/* One user event ("atomic event"): its samples' count, max, min, mean and
 * sum of squares, as written. */
struct ktau_tau_event {
	const char *name;
	uint64_t count;
	double max;
	double min;
	double mean;
	double sumsq;
};

/* One metadata attribute, unescaped. */
struct ktau_tau_metadata {
	const char *name;
	const char *value;
};

/* One file's text; its node, context and thread are 0 (a directory's
 * threads have their file names'). NULL with errno EPROTO, EINVAL or
 * ENOMEM. */
KTAU_API struct ktau_tau_thread *ktau_tau_thread_parse(const char *buf, size_t len,
						       struct ktau_error **err);
KTAU_API void ktau_tau_thread_free(struct ktau_tau_thread *t);
KTAU_API unsigned int ktau_tau_thread_node(const struct ktau_tau_thread *t);
KTAU_API unsigned int ktau_tau_thread_context(const struct ktau_tau_thread *t);
KTAU_API unsigned int ktau_tau_thread_id(const struct ktau_tau_thread *t);
/* After "_MULTI_" on the first line, else the "Metric Name" metadata,
 * else "TIME". */
KTAU_API const char *ktau_tau_thread_metric(const struct ktau_tau_thread *t);
/* In file order (a repeated name at its first place); index functions
 * return NULL (errno ERANGE) past the end, find functions NULL (errno
 * ENOENT) when absent. */
KTAU_API size_t ktau_tau_thread_function_count(const struct ktau_tau_thread *t);
KTAU_API const struct ktau_tau_function *ktau_tau_thread_function(const struct ktau_tau_thread *t,
								   size_t index);
KTAU_API const struct ktau_tau_function *ktau_tau_thread_find_function(const struct ktau_tau_thread *t,
									const char *name);
KTAU_API size_t ktau_tau_thread_event_count(const struct ktau_tau_thread *t);
KTAU_API const struct ktau_tau_event *ktau_tau_thread_event(const struct ktau_tau_thread *t,
							    size_t index);
KTAU_API size_t ktau_tau_thread_metadata_count(const struct ktau_tau_thread *t);
KTAU_API const struct ktau_tau_metadata *ktau_tau_thread_metadata(const struct ktau_tau_thread *t,
								  size_t index);
/* The value of the first attribute of that name; NULL (errno ENOENT). */
KTAU_API const char *ktau_tau_thread_metadata_value(const struct ktau_tau_thread *t,
						    const char *name);
/* Whether group is one of f's groups (GROUP="A | B": "A" and "B"). */
KTAU_API bool ktau_tau_function_in_group(const struct ktau_tau_function *f,
					 const char *group);

/*
 * A whole directory: every profile.<node>.<context>.<thread> file in it,
 * sorted by node, context and thread. A directory without such files but
 * with MULTI__<metric> subdirectories (TAU's several-metric layout) reads
 * the one opts->metric names, else MULTI__TIME, else the only one. Other
 * files are ignored. Fails with ENOENT (no such directory, or no profile in
 * it), ENOTDIR, EPROTO (a malformed file, or files of different metrics;
 * the message names the file and *err has its line), EINVAL (several
 * metrics and none chosen, or an unknown metric), EACCES, ENOMEM. NULL opts
 * means the defaults.
 */
struct ktau_tau_dir_opts {
	size_t sz;
	const char *metric;	/* which MULTI__<metric>, e.g. "TIME" */
	size_t :0;
};

KTAU_API struct ktau_tau_dir *ktau_tau_dir_read(const char *path,
						const struct ktau_tau_dir_opts *opts,
						struct ktau_error **err);
KTAU_API void ktau_tau_dir_free(struct ktau_tau_dir *d);
KTAU_API const char *ktau_tau_dir_metric(const struct ktau_tau_dir *d);
KTAU_API size_t ktau_tau_dir_thread_count(const struct ktau_tau_dir *d);
/* NULL (errno ERANGE) past the end. */
KTAU_API const struct ktau_tau_thread *ktau_tau_dir_thread(const struct ktau_tau_dir *d,
							   size_t index);
/* NULL (errno ENOENT) when the directory has no such file. */
KTAU_API const struct ktau_tau_thread *ktau_tau_dir_find_thread(const struct ktau_tau_dir *d,
								unsigned int node,
								unsigned int context,
								unsigned int thread);

/*
 * The job launcher's view of this process, from its environment: the MPI
 * rank (OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK, SLURM_PROCID, the first
 * set to a decimal number) and the rank among this node's processes
 * (OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, PMI_LOCAL_RANK,
 * SLURM_LOCALID). 0 with *rank set and *variable (may be NULL) the
 * variable's name; -ENOENT when none is set (not launched by one).
 */
KTAU_API int ktau_launcher_rank(unsigned int *rank, const char **variable);
KTAU_API int ktau_launcher_local_rank(unsigned int *rank, const char **variable);

/* ---- the shared counter area (since 1.5, version node KTAU_1.5) -------- */

/*
 * A thread's kernel counters in its own memory: the thread names up to
 * KTAU_COUNTERS_MAX routines or groups, registers an area for them with
 * the kernel (prctl(PR_KTAU_SET_COUNTERS)), and from then on the kernel
 * writes their calls, inclusive and exclusive TSC cycles into it before
 * the thread returns to user mode. Reading a counter is then a few loads,
 * no system call: what a profiler needs at every timer boundary.
 *
 * The values are what /proc/self/task/TID/ktau records for the thread
 * (every record of the routine summed over callpaths and user contexts),
 * as of the thread's last return to user mode; cycles at the rate of the
 * profiles' tsc_khz. The area is the registering thread's alone: another
 * thread reading it sees the owner's counters as of the owner's last
 * return to user mode, with no ordering guarantee (docs/libktau.md).
 *
 * An id (uint32_t) is one of:
 *   a function id of /proc/ktau/functions: that routine;
 *   KTAU_COUNTER_GROUP | g: every routine of group g (KTAU_COUNTER_SYSCALL
 *     ... KTAU_COUNTER_KERNEL below; the event group has no times and is
 *     refused);
 *   KTAU_COUNTER_ALL: every routine; its exclusive cycles are all the
 *     thread's kernel time.
 * The same numbers as the kernel's <linux/ktau.h>, which need not be
 * installed.
 */
#ifndef PR_KTAU_SET_COUNTERS
#define PR_KTAU_SET_COUNTERS 0x4b544157
#endif
#ifndef PR_KTAU_GET_COUNTERS
#define PR_KTAU_GET_COUNTERS 0x4b544158
#endif
#ifndef KTAU_COUNTERS_MAX
#define KTAU_COUNTERS_MAX 16
#endif
#ifndef KTAU_COUNTER_GROUP
#define KTAU_COUNTER_GROUP 0x80000000U
#endif
#ifndef KTAU_COUNTER_ALL
#define KTAU_COUNTER_ALL 0xffffffffU
#endif
/* The groups' numbers, for KTAU_COUNTER_GROUP | g. */
#define KTAU_COUNTER_SYSCALL	0U
#define KTAU_COUNTER_SOFTIRQ	1U
#define KTAU_COUNTER_IRQ	2U
#define KTAU_COUNTER_SCHED	3U
#define KTAU_COUNTER_EXCEPTION	4U
#define KTAU_COUNTER_KERNEL	5U

/*
 * The id of a counter name: "all" (KTAU_COUNTER_ALL), "group:G" for a
 * group G (syscall, softirq, irq, sched, exception, kernel), or a routine
 * as <root>/ktau/functions names it ("getpid", "page_fault", "TIMER",
 * "schedule_vol"; not TAU's "sys_getpid"). proc is read only for a routine
 * name, and may be NULL for the others. 0 with *id set, or -EINVAL (NULL
 * name or id; a routine name with a NULL proc; "group:event" or a routine
 * of the event group: atomic events have no times), -ENOENT (no such
 * group or routine; the message names it), or what reading the function
 * map failed with (-ENODEV: no ktau kernel).
 */
KTAU_API int ktau_counter_id(struct ktau_proc *proc, const char *name, uint32_t *id,
			     struct ktau_error **err);

/*
 * The calling thread's counter area for ids[0 .. n-1] (n 1 ..
 * KTAU_COUNTERS_MAX), allocated, filled and registered with the kernel;
 * its counters are readable at once (the kernel writes them when it takes
 * the registration). NULL with errno:
 *   EINVAL  ids NULL, n 0 or above KTAU_COUNTERS_MAX, or an id of no
 *           group (KTAU_COUNTER_GROUP | g with g not a group above);
 *           checked here, before the kernel is asked
 *   ENODEV  the running kernel has no counter area (not ktau, or a ktau
 *           without it: the prctl is refused with EINVAL)
 *   ENOENT  an id names no routine the kernel has
 *   EBUSY   the calling thread has an area registered already (one a
 *           thread; unregister it first)
 *   ENOMEM, or what else the prctl failed with.
 * A forked child inherits its parent thread's registration at the same
 * address (its counters start at 0); a new thread has none; exec drops it.
 */
struct ktau_thread_counters;

KTAU_API struct ktau_thread_counters *ktau_thread_counters_register(const uint32_t *ids,
								     unsigned int n);
/* The number of counters, n of the registration. */
KTAU_API unsigned int ktau_thread_counters_count(const struct ktau_thread_counters *c);
/*
 * Counter i (the order of ids): any of calls, incl_cycles and excl_cycles
 * may be NULL. Loads only, no system call; the three values are of one
 * kernel write (read again when the sequence number moved meanwhile: an
 * interrupt's return to user mode may write between two loads). Meant for
 * the registering thread. 0, or -EINVAL (c NULL), -ERANGE (i past the end).
 */
KTAU_API int ktau_thread_counters_read(const struct ktau_thread_counters *c, unsigned int i,
				       uint64_t *calls, uint64_t *incl_cycles,
				       uint64_t *excl_cycles);
/* The kernel's write count: one more each time it wrote the area (at least
 * 1 once registered); a cheap test of whether anything changed. */
KTAU_API uint64_t ktau_thread_counters_seq(const struct ktau_thread_counters *c);
/*
 * How many times the kernel could not write the calling thread's area
 * (prctl(PR_KTAU_GET_COUNTERS)), into *faults. 0, or -ENOENT (c is not the
 * calling thread's registered area), -EINVAL (NULL), -ENODEV (no counter
 * area in this kernel).
 */
KTAU_API int ktau_thread_counters_faults(const struct ktau_thread_counters *c,
					 uint64_t *faults);
/*
 * Unregisters c and frees it: on the thread that registered it (or, in a
 * forked child, on its first thread, which inherited the registration).
 * On another thread it frees c, without a system call, when no running
 * thread can hold it: its registering thread has exited, or c is a forked
 * child's copy of an area of a thread other than the one that forked. 0,
 * or -EINVAL (NULL), -EBUSY (the thread that may hold it still runs: the
 * kernel may write there, so c is left as it was), or what the prctl
 * failed with (c then stays registered and allocated).
 */
KTAU_API int ktau_thread_counters_unregister(struct ktau_thread_counters *c);

#ifdef __cplusplus
}
#endif

#endif /* KTAU_H */
