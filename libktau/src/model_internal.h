/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private to libktau: the profile model's layout and what its writers share. */
#ifndef KTAU_MODEL_INTERNAL_H
#define KTAU_MODEL_INTERNAL_H

#include <stdbool.h>

#include "internal.h"

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

/* ---- the model ---- */

struct ktau_routine_slot {
	struct ktau_model_routine rec;
	int group_given;	/* 0 while the group is the default */
};

/* A routine that was running when its kernel profile was read. */
struct ktau_model_open {
	uint64_t tid;
	const char **path;	/* depth names, root first, in the string pool */
	size_t depth;
	uint64_t incl_ns, excl_ns;
};

struct ktau_model_thread {
	struct ktau_model *owner;
	unsigned int node, context, thread;
	const char *label;

	struct ktau_model_metadata *meta;
	size_t nr_meta, cap_meta;
	struct ktau_routine_slot *routines;
	size_t nr_routines, cap_routines;
	struct ktau_index routine_index;
	struct ktau_model_callpath *callpaths;
	size_t nr_callpaths, cap_callpaths;
	struct ktau_index callpath_index;
	struct ktau_model_event *events;
	size_t nr_events, cap_events;
	struct ktau_model_open *opens;
	size_t nr_opens, cap_opens;
};

struct ktau_model {
	struct ktau_model_thread **threads;
	size_t nr_threads, cap_threads;
	struct ktau_strpool strings;
	enum ktau_model_metric metric;
};

/* How the writers name and scale a metric's values. */
struct ktau_metric_info {
	const char *tau_metric;		/* "<N> templated_functions_MULTI_<this>" */
	double tau_divisor;		/* a TAU value is value / divisor */
	const char *pprof_type;		/* the pprof sample type and unit */
	const char *pprof_unit;
	int pprof_calls;		/* a calls/count value comes first */
	const char *callgrind_event;	/* "event: <event> : <description>" */
	const char *callgrind_description;
	const char *json_suffix;	/* "inclusive_<suffix>" ... */
};

KTAU_HIDDEN const struct ktau_metric_info *ktau__metric_info(const struct ktau_model *m);

/*
 * A name in the model's normal form (see ktau.h) in a malloc()ed string;
 * NULL with errno EINVAL (empty and !allow_empty) or ENOMEM.
 */
KTAU_HIDDEN char *ktau__model_normalise(const char *s, bool allow_empty);

/* Adds a running routine (its path of names, normalised here); 0 or
 * -EINVAL (depth 0) or -ENOMEM. */
KTAU_HIDDEN int ktau__model_add_open(struct ktau_model_thread *t, uint64_t tid,
				     const char *const *path, size_t depth,
				     uint64_t incl_ns, uint64_t excl_ns);

/* Drops the last thread added (undoing a failed builder). */
KTAU_HIDDEN void ktau__model_drop_last_thread(struct ktau_model *m);

/* cycles * 1e6 / tsc_khz, truncated; 0 or -EOVERFLOW / -EINVAL (khz 0). */
KTAU_PRIVATE int ktau__cycles_to_ns(uint64_t cycles, uint64_t tsc_khz, uint64_t *ns);

/*
 * The thread's profile as stacks, each with the calls and exclusive time
 * spent at its leaf: every callpath, then per routine a one-frame stack
 * with what its callpaths (those ending in it) leave of its calls and
 * exclusive time. The exclusive times add up to the routines' exclusive
 * total when the callpaths fit inside their routines. Stops at fn's
 * first non-zero return and returns it.
 */
typedef int (*ktau_stack_fn)(void *arg, const char *const *path, size_t depth,
			     uint64_t calls, uint64_t excl_ns);
KTAU_HIDDEN int ktau__model_stacks(const struct ktau_model_thread *t,
				   ktau_stack_fn fn, void *arg);

/* ---- writers: each emits one format to a stream ---- */

KTAU_HIDDEN int ktau__emit_tau_thread(const struct ktau_model_thread *t, FILE *out);
KTAU_HIDDEN int ktau__emit_pprof(const struct ktau_model *m, FILE *out);
KTAU_HIDDEN int ktau__emit_callgrind(const struct ktau_model *m, FILE *out);
KTAU_HIDDEN int ktau__emit_folded(const struct ktau_model *m, FILE *out);
KTAU_HIDDEN int ktau__emit_json(const struct ktau_model *m, FILE *out);

/* Runs emit(arg, stream) into path atomically (temporary file + rename),
 * in the C locale. 0 or -errno. */
typedef int (*ktau_emit_fn)(const void *arg, FILE *out);
KTAU_HIDDEN int ktau__write_file_atomic(const char *path, ktau_emit_fn emit,
					const void *arg);

#endif /* KTAU_MODEL_INTERNAL_H */
