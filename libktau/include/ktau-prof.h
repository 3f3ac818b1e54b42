/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libktau-prof — the user-level profiler runtime: named timers and
 * -finstrument-functions hooks, merged with the kernel's per-thread
 * profiles. Link with `pkg-config --libs ktau-prof` (it brings libktau, whose
 * ktau.h this header includes: the model ktau_profiler_model() returns is
 * libktau's) or preload libktau-prof.so.1 into an unmodified program.
 *
 * Kept apart from libktau because linking it changes the program: it
 * defines __cyg_profile_func_enter/exit, uses initial-exec TLS, installs an
 * atfork handler and writes profiles at exit. A program that only reads
 * profiles links libktau alone.
 *
 * Errors follow libktau's convention (ktau.h).
 */
#ifndef KTAU_PROF_H
#define KTAU_PROF_H

#include <stdint.h>

#include "ktau.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define KTAU_PROF_API __attribute__((visibility("default")))
#else
#define KTAU_PROF_API
#endif

/*
 * Named timers, per thread, written as TAU profiles with each thread's
 * kernel routines merged under the user routine that was running:
 * `main => io => sys_read()`.
 *
 *   static struct ktau_timer *solve;
 *   solve = ktau_timer_get("solve", NULL);
 *   ktau_timer_start(solve); ...; ktau_timer_stop(solve);
 *   { KTAU_SCOPE("io"); ... }             // stopped when the block ends
 *
 * Each thread keeps its own callpath tree (`main => solve`, recursion
 * included: `f => f`), inclusive and exclusive TSC cycles, without locks.
 * Every callpath node has a 32-bit context id; a thread stores the id of
 * its innermost running timer in a word registered with the kernel
 * (prctl(PR_KTAU_SET_CONTEXT)), and the kernel keys the thread's kernel
 * profile by it (the `ctx` column of /proc/<pid>/task/<tid>/ktau). A timer
 * boundary is one store, no system call. In the merged profile a user
 * routine's exclusive time excludes the kernel time spent under it, and
 * its inclusive time is its exclusive time plus its children's, kernel
 * routines included. Kernel time with no user timer running (or before the
 * thread registered) shows under the top-level "[no user context]".
 *
 * Profiles are written at exit (atexit), and on demand, into
 * $KTAU_PROFILE_DIR (default "."): one profile.<node>.0.<thread> per
 * thread that used the profiler, threads numbered from 0 (the main thread
 * first), node the one ktau_profiler_set_node() gave (libktau-mpi gives
 * MPI_Comm_rank's), else the MPI rank from the launcher's environment
 * (OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK, SLURM_PROCID; else 0). A
 * thread that exits keeps its profile (taken when it exits) for the
 * process's files.
 *
 * Without a ktau kernel, or with KTAU_KERNEL_MERGE=0, the profiles hold the
 * user routines only; the first case says so once on stderr.
 *
 * Programs compiled with -finstrument-functions and linked with libktau-prof get
 * a timer per function (named from the ELF symbol table, static functions
 * included). LD_PRELOAD=libktau-prof.so profiles an unmodified program: a timer
 * ".TAU application" runs from start-up to exit in its main thread.
 *
 * Trace mode: with KTAU_TRACE=1 (unset or 0: off) each timer start and
 * stop is also an event stamped with the TSC, the kernel trace's clock,
 * written to $KTAU_TRACE_DIR/ktau-utrace.<pid>.ktt (default directory
 * "."), a stream in the format of docs/trace-format.md ("User trace
 * files"). Each thread fills a buffer of its own of KTAU_TRACE_BUFFER KiB
 * (default 64), written out when full, when the thread exits and at exit;
 * events that could not be written are counted as lost in the file. The
 * profiles are written as without it. A directory where the file cannot
 * be created is said once on stderr, and the program runs untraced.
 *
 * A forked child does not profile (its parent's state is not its own;
 * ktau_profiler_write() fails there with ECHILD); a program it execs does.
 * With KTAU_TRACE=1 the child still times its timers, into a trace file
 * of its own (its pid); its events are written at its exit() (none if it
 * ends with _exit() or exec).
 * A signal handler's timers are ignored while its thread is inside the
 * profiler. Frames nested deeper than 1024 are not timed (their time stays
 * with the frame above; "KTAU user frames dropped" counts them).
 */
#ifndef PR_KTAU_SET_CONTEXT
#define PR_KTAU_SET_CONTEXT 0x4b544155	/* "KTAU" */
#endif

struct ktau_timer;

/*
 * The timer named name, created on first use; group NULL means
 * "TAU_USER" (the group given first stays). Names are written in the
 * model's normal form (see the profile model below). NULL with errno
 * EINVAL (empty name or group, a name containing "=>") or ENOMEM.
 * Timers live as long as the process; any thread may use any timer.
 */
KTAU_PROF_API struct ktau_timer *ktau_timer_get(const char *name, const char *group);
KTAU_PROF_API const char *ktau_timer_name(const struct ktau_timer *timer);
KTAU_PROF_API const char *ktau_timer_group(const struct ktau_timer *timer);

/*
 * Start and stop in the calling thread. Stopping a timer that is running
 * further out also stops those started after it (as after a longjmp);
 * stopping one that is not running is -EINVAL and changes nothing.
 * Both return 0 without doing anything where the profiler is off (a
 * forked child when not tracing, a thread that is exiting, no memory for
 * its state).
 */
KTAU_PROF_API int ktau_timer_start(struct ktau_timer *timer);
KTAU_PROF_API int ktau_timer_stop(struct ktau_timer *timer);

/* The calling thread's current context id (what the kernel sees): 0 when
 * no timer runs. */
KTAU_PROF_API uint32_t ktau_user_context(void);

/*
 * Every profiled thread as a model (ktau_model_* below) as of now, merged
 * with the kernel profiles: open timers count as if they stopped now.
 * ktau_profiler_write() writes it as a TAU directory: dir, or NULL for
 * $KTAU_PROFILE_DIR or ".". 0 or a negative errno.
 */
KTAU_PROF_API struct ktau_model *ktau_profiler_model(void);
KTAU_PROF_API int ktau_profiler_write(const char *dir);

/*
 * KTAU_SCOPE("name"): a timer from here to the end of the enclosing block
 * (GCC/Clang cleanup attribute). The timer is looked up once per site
 * (*site caches it). ktau_timer_scope_enter() returns the timer it started,
 * or NULL where the profiler is off; ktau_timer_scope_leave() stops
 * *scope when it is not NULL.
 */
KTAU_PROF_API struct ktau_timer *ktau_timer_scope_enter(struct ktau_timer **site,
							 const char *name,
							 const char *group);
KTAU_PROF_API void ktau_timer_scope_leave(struct ktau_timer **scope);

/*
 * Since KTAU_PROF_1.1 (ktau 1.2): atomic events, metadata, the node number.
 *
 * Atomic events (TAU's "user events"): a named event takes samples
 * (message sizes, bytes read, ...) and keeps per thread their count, min,
 * max, sum and sum of squares, written in each thread's TAU profile as a
 * user event, and, for samples taken while a timer runs, also as TAU's
 * context event "<name> : <callpath>" ("Message size sent to all nodes :
 * main => MPI_Send()"), so a sample is charged to the callpath it was
 * taken in.
 *
 *   static struct ktau_user_event *sent;
 *   sent = ktau_user_event_get("Message size sent to all nodes");
 *   ktau_user_event_trigger(sent, bytes);
 *
 * ktau_user_event_get(): the event named name, created on first use
 * (normal form as timer names); NULL with errno EINVAL (NULL or empty
 * name, a name containing " : " or "=>", which TAU's tools would read as
 * a context event or a callpath) or ENOMEM. Events live as long as the
 * process; any thread may trigger any event.
 * ktau_user_event_trigger(): one sample of value in the calling thread,
 * in the context of its innermost running timer. 0; -EINVAL (NULL event,
 * a value that is not finite) and nothing recorded. Like the timers it
 * does nothing (and returns 0) where the profiler is off; a thread's
 * first 65536 (event, callpath) pairs are kept, later new ones are
 * counted in the metadata "KTAU user events dropped".
 */
struct ktau_user_event;

KTAU_PROF_API struct ktau_user_event *ktau_user_event_get(const char *name);
KTAU_PROF_API const char *ktau_user_event_name(const struct ktau_user_event *event);
KTAU_PROF_API int ktau_user_event_trigger(struct ktau_user_event *event, double value);

/*
 * Metadata: name = value in the metadata of every thread's profile this
 * process writes (TAU's metadata block, after the profiler's own). A name
 * set again gets the new value. 0; -EINVAL (NULL or empty name, NULL
 * value) or -ENOMEM, nothing changed.
 */
KTAU_PROF_API int ktau_metadata_set(const char *name, const char *value);

/*
 * The node number of this process's profiles (profile.<node>.0.<thread>),
 * in place of the launcher's rank variables: an MPI library gives the
 * rank MPI_Comm_rank() says. Metadata "KTAU node from" then says
 * "ktau_profiler_set_node". 0, or -EINVAL (node > INT_MAX: TAU's tools
 * read node numbers as int) and nothing changed.
 */
KTAU_PROF_API int ktau_profiler_set_node(unsigned int node);

#define KTAU__CAT2(a, b) a##b
#define KTAU__CAT(a, b) KTAU__CAT2(a, b)
#define KTAU__SCOPE(name, group, n)					\
	static struct ktau_timer *KTAU__CAT(ktau__site_, n);		\
	__attribute__((cleanup(ktau_timer_scope_leave), unused))		\
	struct ktau_timer *KTAU__CAT(ktau__scope_, n) =			\
		ktau_timer_scope_enter(&KTAU__CAT(ktau__site_, n), (name), (group))
#define KTAU_SCOPE_GROUP(name, group) KTAU__SCOPE(name, group, __COUNTER__)
#define KTAU_SCOPE(name) KTAU_SCOPE_GROUP(name, NULL)

#ifdef __cplusplus
}
#endif

#endif /* KTAU_PROF_H */
