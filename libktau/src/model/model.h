/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private to libktau: the profile model's layout, and kernel blocks in it. */
#ifndef KTAU_MODEL_MODEL_H
#define KTAU_MODEL_MODEL_H

#include <stdbool.h>

#include "profile/profile.h"

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

/* ---- kernel records in the model (model_kernel.c) ---- */

/* The part of a kernel routine entered straight from user mode: a v2
 * block's one-element path, or in a v1 block the func minus the edges
 * into it (same context). */
struct ktau_toplevel {
	uint64_t ctx;
	const char *name, *group;
	uint64_t calls, incl, excl;
};

typedef int (*ktau_toplevel_fn)(void *arg, const struct ktau_toplevel *tl);
/* Calls fn for each one-element path of b (v1: each func); stops at fn's
 * first non-zero return and returns it; -ENOMEM. */
KTAU_PRIVATE int ktau__kernel_toplevel(const struct ktau_block *b,
				      ktau_toplevel_fn fn, void *arg);

/* The user callpath a kernel context sits under (depth >= 1). */
typedef const char *const *(*ktau_ctx_path_fn)(void *arg, uint64_t ctx,
					       size_t *depth);
/*
 * Adds a kernel block's records to t (kernel names and groups as
 * ktau_model_add_block() gives them). Without ctx_path, as
 * ktau_model_add_block(): flat routines, and each path of depth >= 2 as
 * callpath "a => b => c" (v1: each edge as "parent => child"). With it:
 * flat routines, then each routine's top-level part as
 * "<user path> => routine", each path as "<user path> => a => b => c"
 * (v1: each edge as "<user path> => parent => child"), and each event also
 * as context event "event : <user path>".
 */
KTAU_PRIVATE int ktau__model_add_kernel(struct ktau_model_thread *t,
				       const struct ktau_block *b, uint64_t khz,
				       ktau_ctx_path_fn ctx_path, void *arg);

/* "event : a => b", TAU's name for an event in a callpath context, in a
 * malloc()ed string; NULL with errno ENOMEM. */
KTAU_PRIVATE char *ktau__context_event_name(const char *event, const char *const *path,
					   size_t depth);

#endif /* KTAU_MODEL_MODEL_H */
