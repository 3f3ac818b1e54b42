/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private to libktau-prof: the user-level profiler. Layers, bottom up:
 *   utree.c     one thread's callpath tree and timer stack (pure: no
 *               globals, times passed in), what the fast path runs;
 *   utimers.c   the process-wide timer registry (name + group -> id);
 *   umerge.c    a thread's tree snapshot + its kernel profile -> model;
 *   utrace.c    trace mode (KTAU_TRACE=1): per-thread event buffers and
 *               the process's trace file;
 *   uevents.c   atomic (user) events: the registry, each thread's table
 *               of samples per (event, callpath);
 *   umetadata.c the program's metadata and node number for the profiles;
 *   userprof*.c thread-local state, kernel registration, output.
 */
#ifndef KTAU_PROF_PROF_H
#define KTAU_PROF_PROF_H

#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#include "ktau-prof.h"
#include "model/model.h"
#include "proc/proc.h"
#include "util/clock.h"

/* ---- one thread's callpath tree ---- */

/*
 * A node is one callpath (a timer under a parent node); its context id,
 * the value the kernel keys this thread's kernel records by, is its index
 * + 1 (0 means "no user context"). Nodes live in fixed chunks that never
 * move, and their counters are written with relaxed atomics, so another
 * thread may snapshot the tree while its owner runs.
 */
#define KTAU_UT_CHUNK_SHIFT 8
#define KTAU_UT_CHUNK (1u << KTAU_UT_CHUNK_SHIFT)
#define KTAU_UT_MAX_CHUNKS 4096		/* 1M callpaths per thread */
#define KTAU_UT_MAX_DEPTH 1024		/* deeper frames are not timed */
#define KTAU_UT_NONE UINT32_MAX

struct ktau_ut_node {
	uint32_t timer;
	uint32_t parent;		/* node index, KTAU_UT_NONE for a root */
	uint64_t calls;			/* completed calls */
	uint64_t subrs;			/* completed calls of child nodes */
	uint64_t incl;			/* cycles */
	uint64_t excl;
	uint32_t last_timer;		/* one-entry cache of the last child */
	uint32_t last_child;
};

struct ktau_ut_frame {
	uint32_t node;
	uint32_t timer;
	struct ktau_ut_node *n;		/* &node, to spare the lookups */
	uint64_t start;			/* 0 until the caller sets it */
	uint64_t child;			/* cycles of completed children */
};

struct ktau_ut_tree {
	struct ktau_ut_node *chunks[KTAU_UT_MAX_CHUNKS];
	uint32_t nr_nodes;		/* published with release */
	struct ktau_ut_frame *stack;	/* KTAU_UT_MAX_DEPTH frames */
	uint32_t depth;			/* recorded frames, published with release */
	uint32_t overflow;		/* frames pushed beyond what is recorded */
	uint64_t dropped;		/* pushes not recorded (depth, memory) */
	struct ktau_ut_node roots;	/* only its child cache is used */
	struct ktau_u64map children;	/* (parent + 1) << 32 | timer -> node */
};

/* What a snapshot copies of a node: plain values. */
struct ktau_ut_sample {
	uint32_t timer;
	uint32_t parent;
	uint64_t calls, subrs, incl, excl;
};

KTAU_HIDDEN int ktau__ut_init(struct ktau_ut_tree *t);
KTAU_HIDDEN void ktau__ut_free(struct ktau_ut_tree *t);
/*
 * Enters timer under the innermost recorded frame and returns the new
 * frame, whose start the caller then sets (ktau__ut_set_start); NULL when
 * the frame is not recorded (too deep, out of memory): the matching pop is
 * still due, and the time stays with the enclosing frame.
 */
KTAU_HIDDEN struct ktau_ut_frame *ktau__ut_push(struct ktau_ut_tree *t, uint32_t timer);
KTAU_HIDDEN void ktau__ut_set_start(struct ktau_ut_frame *f, uint64_t now);
/*
 * Leaves timer at time now. When timer is not the innermost frame but is
 * running further out, the frames above it are left too (a longjmp, or
 * an exception, skipped their exits). -EINVAL, nothing changed, when
 * timer is not running at all.
 */
KTAU_HIDDEN int ktau__ut_pop(struct ktau_ut_tree *t, uint32_t timer, uint64_t now);
/*
 * The stop of a running timer: ktau__ut_pop() at the clock it reads,
 * *now, with the new context id stored in *word right after that read,
 * before the pop, so that kernel time after the routine's end is not
 * keyed by it. -EINVAL, nothing changed, when timer is not running.
 */
KTAU_HIDDEN int ktau__ut_stop(struct ktau_ut_tree *t, uint32_t timer,
			      volatile uint32_t *word, uint64_t *now);
/* The context id of the innermost recorded frame: node index + 1, or 0. */
KTAU_HIDDEN uint32_t ktau__ut_context(const struct ktau_ut_tree *t);
/*
 * A copy of every node, with the frames still open counted as if they
 * ended at now (a call each, their time so far). May run in another
 * thread than the tree's owner: values are then those of a moment
 * during the copy. malloc()ed, *count nodes; NULL (errno ENOMEM) when
 * there is no memory (an empty tree gives a non-NULL empty array).
 */
KTAU_HIDDEN struct ktau_ut_sample *ktau__ut_snapshot(const struct ktau_ut_tree *t,
						     uint64_t now, size_t *count);

/* ---- the timer registry ---- */

struct ktau_timer {
	uint32_t id;
	const char *name;
	const char *group;
};

/* The timer with that id (never freed), or NULL. */
KTAU_HIDDEN const struct ktau_timer *ktau__timer_by_id(uint32_t id);
/* Frees every timer: for tests, which build registries of their own. */
KTAU_HIDDEN void ktau__timers_reset(void);
/* Held across fork() (names, the trace, timers), so that a traced child, which
 * keeps timing, never inherits them locked by a thread it does not have. */
KTAU_HIDDEN void ktau__names_fork_lock(bool lock);
KTAU_HIDDEN void ktau__timers_fork_lock(bool lock);

/* ---- atomic (user) events ---- */

struct ktau_user_event {
	uint32_t id;
	const char *name;
};

/*
 * One thread's samples per (event, context id): only the owner writes
 * (relaxed atomics, slots in chunks that never move), a snapshot may read
 * from another thread, as for the callpath tree.
 */
#define KTAU_UE_CHUNK_SHIFT 6
#define KTAU_UE_CHUNK (1u << KTAU_UE_CHUNK_SHIFT)
#define KTAU_UE_MAX_CHUNKS 1024		/* 64K (event, callpath) pairs per thread */

struct ktau_ue_sample {
	uint32_t event;
	uint32_t ctx;			/* the callpath node's context id, 0: none */
	uint64_t count;
	double min, max, sum, sumsq;
};

struct ktau_ue_table {
	struct ktau_ue_sample *chunks[KTAU_UE_MAX_CHUNKS];
	uint32_t nr_slots;		/* published with release */
	uint64_t dropped;		/* samples that found no slot */
	struct ktau_u64map index;	/* ctx << 32 | event -> slot */
};

KTAU_HIDDEN void ktau__ue_free(struct ktau_ue_table *t);
/* Adds one sample of event in context ctx; the owner thread only. */
KTAU_HIDDEN void ktau__ue_add(struct ktau_ue_table *t, uint32_t event, uint32_t ctx,
			      double value);
/* A copy of every slot (malloc()ed, *count of them; NULL with errno ENOMEM;
 * an empty table gives a non-NULL empty array). */
KTAU_HIDDEN struct ktau_ue_sample *ktau__ue_snapshot(const struct ktau_ue_table *t,
						     size_t *count);
/* The name of event id, or NULL. */
KTAU_HIDDEN const char *ktau__user_event_name(uint32_t id);
KTAU_HIDDEN void ktau__user_events_reset(void);
KTAU_HIDDEN void ktau__user_events_fork_lock(bool lock);

/* ---- the program's metadata and node number (umetadata.c) ---- */

/* Calls fn for each (name, value) ktau_metadata_set() left, in the order
 * they were first set; stops at fn's first non-zero return and returns it. */
KTAU_HIDDEN int ktau__metadata_each(int (*fn)(void *arg, const char *name,
					       const char *value), void *arg);
KTAU_HIDDEN void ktau__metadata_reset(void);
KTAU_HIDDEN void ktau__metadata_fork_lock(bool lock);
/* The node ktau_profiler_set_node() gave: true with *node, else false. */
KTAU_HIDDEN bool ktau__profiler_node(unsigned int *node);

/* ---- merging a thread's user profile with its kernel profile ---- */

/* The name and group of a timer id, for the merge. */
struct ktau_timer_names {
	const char *(*name)(void *arg, uint32_t timer, const char **group);
	void *arg;
	/* the name of an atomic event id, for ktau__merge_events() */
	const char *(*event)(void *arg, uint32_t event);
};

/* What a merge could not attribute exactly (written as metadata). */
struct ktau_merge_stats {
	uint64_t unknown_ctx_records;	/* kernel records of an unknown context */
	uint64_t clamped_nodes;		/* kernel time above a node's exclusive */
};

#define KTAU_NO_USER_CONTEXT "[no user context]"
#define KTAU_NO_USER_CONTEXT_GROUP "TAU_KERNEL_MERGE"

/*
 * Adds one thread's profile to t: the user callpath nodes (sample i has
 * context id i + 1, parents before children), and when kernel is not
 * NULL the thread's kernel block merged under them by context id. khz
 * converts both. 0 or a negative errno (the thread may be half filled).
 */
KTAU_HIDDEN int ktau__merge_thread(struct ktau_model_thread *t,
				   const struct ktau_ut_sample *nodes, size_t count,
				   const struct ktau_timer_names *names,
				   const struct ktau_block *kernel, uint64_t khz,
				   struct ktau_merge_stats *stats);

/*
 * Adds one thread's atomic events to t: each as TAU's flat event, and
 * those triggered under a user routine also as context event
 * "event : main => MPI_Send()" (nodes as for ktau__merge_thread). 0 or a
 * negative errno.
 */
KTAU_HIDDEN int ktau__merge_events(struct ktau_model_thread *t,
				   const struct ktau_ut_sample *nodes, size_t count,
				   const struct ktau_timer_names *names,
				   const struct ktau_ue_sample *events, size_t nr_events);

/* ---- the process's profiler (userprof.c) ---- */

/* One profiled thread. */
struct ktau_uthread {
	struct ktau_ut_tree tree;
	struct ktau_u64map fn_timers;	/* -finstrument-functions: address -> timer */
	pid_t tid;
	unsigned int seq;		/* registration order */
	volatile int busy;		/* in the profiler: a signal handler's timers are ignored */
	/* KTAU_TRACE=1: this thread's event buffer, else NULL; next to busy,
	 * which the timer path reads anyway */
	struct ktau_utrace_buffer *trace;
	bool kernel_registered;		/* the kernel reads our context word */
	int kernel_error;		/* why not (negative errno), 0 when registered */
	bool finished;			/* exited: final and kernel_final hold its profile */
	struct ktau_ut_sample *final;
	size_t nr_final;
	struct ktau_ue_table events;	/* atomic events (uevents.c) */
	struct ktau_ue_sample *final_events;
	size_t nr_final_events;
	struct ktau_profile *kernel_final;
	struct ktau_uthread *next;
};

/* The calling thread's state, registered on first use; NULL when the
 * profiler is off in this thread (exiting, a forked child, no memory). */
KTAU_HIDDEN struct ktau_uthread *ktau__uthread_self(void);

/* Timer boundaries; the caller has set busy (ktau__uthread_begin). */
KTAU_HIDDEN void ktau__uthread_enter(struct ktau_uthread *s, uint32_t timer);
KTAU_HIDDEN int ktau__uthread_exit(struct ktau_uthread *s, uint32_t timer);

static inline bool ktau__uthread_begin(struct ktau_uthread *s)
{
	if (s->busy)
		return false;
	s->busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return true;
}

static inline void ktau__uthread_end(struct ktau_uthread *s)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	s->busy = 0;
}

/* For the output: the registry, locked while a model is built from it. */
struct ktau_process_info {
	uint64_t start_cycles;		/* the TSC when the profiler started */
	struct timespec start_mono;	/* CLOCK_MONOTONIC then */
	struct timespec start_real;	/* CLOCK_REALTIME then */
	bool merge_wanted;		/* KTAU_KERNEL_MERGE is not 0 */
	int kernel_error;		/* 0, or why kernel data is unavailable */
};

/* 0, or why the profiler is off in this process (-ECHILD: a forked child). */
KTAU_HIDDEN int ktau__profiler_error(void);
KTAU_HIDDEN struct ktau_uthread *ktau__threads_lock(struct ktau_process_info *info);
KTAU_HIDDEN void ktau__threads_unlock(void);
/* Sets the calling thread's context word (0 while libktau reads /proc, so
 * that its own system calls stay out of the user's routines); returns the
 * old value. */
KTAU_HIDDEN uint32_t ktau__context_word_set(uint32_t ctx);
/* The kernel profile of this process's thread tid, read through libktau's
 * public API (the default /proc root); NULL with errno set. */
KTAU_HIDDEN struct ktau_profile *ktau__ut_read_kernel(pid_t tid);

/* How the profiler reaches the kernel, replaceable by tests:
 * prctl(PR_KTAU_SET_CONTEXT, addr, 0, 0, 0). */
typedef int (*ktau_set_context_fn)(volatile uint32_t *word);
KTAU_HIDDEN void ktau__set_context_hook(ktau_set_context_fn fn);

/* One line on stderr, the first time a given kind of problem is seen. */
enum ktau_warning {
	KTAU_WARN_NO_KERNEL,
	KTAU_WARN_KERNEL_READ,
	KTAU_WARN_WRITE,
	KTAU_WARN_TRACE_CONFIG,
	KTAU_WARN_TRACE_WRITE,
	KTAU_NR_WARNINGS,
};
KTAU_HIDDEN void ktau__warn_once(enum ktau_warning kind, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- trace mode (utrace.c; docs/trace-format.md, "User trace files") ---- */

#define KTAU_UTRACE_ENTRY 1u
#define KTAU_UTRACE_EXIT 2u
#define KTAU_UTRACE_TSC_MASK ((UINT64_C(1) << 56) - 1)

/* One 16-byte unit of the format: an event (or, in a buffer's header
 * slot, a chunk header's bytes). */
struct ktau_utrace_unit {
	uint64_t stamp;			/* TSC in bits 0-55, type in bits 56-63 */
	uint32_t tid;
	uint32_t data;			/* the user timer id */
};

/*
 * One thread's event buffer. Its owner appends without a lock; whoever
 * writes events to the file (the owner when the buffer is full or when
 * the thread exits, the exit handler for every thread) holds the trace
 * lock. units[0] and every slot already written are room for the chunk
 * header, so that a chunk goes to the file in one write().
 */
struct ktau_utrace_buffer {
	uint32_t next;			/* the slot the owner fills next; atomic */
	uint32_t end;			/* events go in slots 1 .. end - 1 */
	uint32_t tid;
	uint32_t first;			/* under the lock: the first slot not in the file */
	uint32_t lost;			/* under the lock: events dropped since the last chunk */
	struct ktau_utrace_buffer *link;	/* under the lock: the process's buffers */
	struct ktau_utrace_unit units[];
};

/* Reads KTAU_TRACE, KTAU_TRACE_BUFFER, KTAU_TRACE_DIR and, when tracing
 * is wanted, creates the trace file with its header (a warning on stderr
 * when it cannot: the program runs untraced). Once per process. */
KTAU_HIDDEN void ktau__utrace_start(void);
/* Whether this process writes a trace. */
KTAU_HIDDEN bool ktau__utrace_enabled(void);
/* A new buffer for thread tid, in the process's list; NULL when the
 * process does not trace or there is no memory (the thread goes untraced). */
KTAU_HIDDEN struct ktau_utrace_buffer *ktau__utrace_thread_start(pid_t tid);
/* Writes what b holds and frees it: the thread exits. */
KTAU_HIDDEN void ktau__utrace_thread_exit(struct ktau_utrace_buffer *b);
/* Writes every thread's events, then the names of the ids they use, and
 * closes the file: the process exits. Events recorded later are dropped. */
KTAU_HIDDEN void ktau__utrace_process_exit(void);
/* fork(): the prepare and parent handlers hold the trace lock over it;
 * the child's starts the child's own file, keeping of the buffers only
 * keep, the forking thread's (emptied: its events are the parent's), now
 * charged to tid. Whether the child traces. */
KTAU_HIDDEN void ktau__utrace_fork_prepare(void);
KTAU_HIDDEN void ktau__utrace_fork_parent(void);
KTAU_HIDDEN bool ktau__utrace_fork_child(struct ktau_utrace_buffer *keep, pid_t tid);
/* Called by the owner when its buffer is full: writes it, or drops its
 * events (counted as lost) when it cannot. Leaves the buffer empty. */
KTAU_HIDDEN void ktau__utrace_full(struct ktau_utrace_buffer *b);

/* Appends one event to the calling thread's buffer: the hot path. */
static inline void ktau__utrace_event(struct ktau_utrace_buffer *b, uint32_t type,
				      uint32_t timer, uint64_t tsc)
{
	uint32_t slot = __atomic_load_n(&b->next, __ATOMIC_RELAXED);

	if (__builtin_expect(slot == b->end, 0)) {
		ktau__utrace_full(b);
		slot = __atomic_load_n(&b->next, __ATOMIC_RELAXED);
	}
	b->units[slot] = (struct ktau_utrace_unit){
		.stamp = (tsc & KTAU_UTRACE_TSC_MASK) | (uint64_t)type << 56,
		.tid = b->tid,
		.data = timer,
	};
	/* the exit handler may write this slot from another thread */
	__atomic_store_n(&b->next, slot + 1, __ATOMIC_RELEASE);
}

/* ---- function symbols (-finstrument-functions) ---- */

/* The name of the function at addr, from the ELF symbol table of the
 * object mapped there (static functions included): 0, or -ENOENT when
 * no symbol covers it, or another negative errno. */
KTAU_HIDDEN int ktau__symbol_name(const void *addr, char *buf, size_t size);

#endif /* KTAU_PROF_PROF_H */
