// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The user-level profiler's run time: each thread's state in TLS, found
 * without a lock; its context word registered with the kernel
 * (prctl(PR_KTAU_SET_CONTEXT)) so that a timer boundary costs one store
 * and no system call; profiles written at exit, when a thread exits, and
 * on demand (userprof_output.c).
 *
 * The profiler is process-wide state by nature (one per process, shared
 * by every thread and by the -finstrument-functions hooks): it lives in
 * `proc` below, behind one lock that the fast path never takes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "prof/prof.h"

#define TLS __attribute__((tls_model("initial-exec")))
/* tls_self of a thread that has left the profiler for good */
#define GONE ((struct ktau_uthread *)1)

enum kernel_state { KERNEL_UNKNOWN, KERNEL_ON, KERNEL_OFF };

static struct {
	pthread_once_t once;
	int init_error;
	pthread_key_t key;
	pthread_mutex_t lock;
	struct ktau_uthread *threads, **tail;
	unsigned int nr_threads;
	struct ktau_process_info info;
	int kernel;			/* enum kernel_state, atomically */
	ktau_set_context_fn set_context;
	int warned[KTAU_NR_WARNINGS];	/* atomically */
} proc = {
	.once = PTHREAD_ONCE_INIT,
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.tail = &proc.threads,
};

static __thread struct ktau_uthread *tls_self TLS;
/* The word the kernel reads at every entry from this thread: the context
 * id of the innermost running timer. volatile: only the kernel reads it. */
static __thread volatile uint32_t tls_word TLS __attribute__((aligned(4)));

/* The line goes out in one write(): the ranks of an MPI job share one
 * stderr, and a line written in pieces comes out mixed with theirs. */
void ktau__warn_once(enum ktau_warning kind, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int len;

	if (__atomic_exchange_n(&proc.warned[kind], 1, __ATOMIC_RELAXED))
		return;
	len = snprintf(line, sizeof(line), "ktau: ");
	va_start(ap, fmt);
	len += vsnprintf(line + len, sizeof(line) - (size_t)len - 1, fmt, ap);
	va_end(ap);
	if (len > (int)sizeof(line) - 2)
		len = (int)sizeof(line) - 2;	/* cut, still one line */
	line[len++] = '\n';
	fflush(stderr);
	if (write(STDERR_FILENO, line, (size_t)len) < 0)
		return;	/* nowhere left to say it */
}

static int prctl_set_context(volatile uint32_t *word)
{
	return prctl(PR_KTAU_SET_CONTEXT, (unsigned long)word, 0UL, 0UL, 0UL);
}

void ktau__set_context_hook(ktau_set_context_fn fn)
{
	proc.set_context = fn ? fn : prctl_set_context;
}

static bool have_proc_ktau(void)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/ktau", ktau__procfs_root());
	return access(path, F_OK) == 0;
}

/* Registers s's context word with the kernel. The first failure in the
 * process decides: no kernel data, said once, and no more attempts. */
static void register_kernel(struct ktau_uthread *s)
{
	int state = __atomic_load_n(&proc.kernel, __ATOMIC_ACQUIRE), err;

	if (!proc.info.merge_wanted || state == KERNEL_OFF) {
		s->kernel_error = proc.info.merge_wanted ? proc.info.kernel_error : -ECANCELED;
		return;
	}
	if (proc.set_context(&tls_word) == 0) {
		s->kernel_registered = true;
		__atomic_compare_exchange_n(&proc.kernel, &state, KERNEL_ON, false,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
		return;
	}
	err = errno;
	s->kernel_error = -err;
	if (state == KERNEL_ON)
		return;		/* this thread only: the kernel works for others */
	proc.info.kernel_error = -err;
	__atomic_store_n(&proc.kernel, KERNEL_OFF, __ATOMIC_RELEASE);
	ktau__warn_once(KTAU_WARN_NO_KERNEL,
			"kernel profiles will not be merged: prctl(PR_KTAU_SET_CONTEXT) "
			"failed (%s): %s; writing user-level profiles only",
			strerror(err),
			have_proc_ktau() ? "this ktau kernel has no user-context support"
					 : "the running kernel has no ktau");
}

static void finish_thread(struct ktau_uthread *s);

static void thread_exit(void *arg)
{
	struct ktau_uthread *s = arg;

	tls_self = GONE;
	tls_word = 0;
	ktau__utrace_thread_exit(s->trace);
	s->trace = NULL;
	finish_thread(s);
}

static void process_exit(void)
{
	const char *dir = getenv("KTAU_PROFILE_DIR");
	int ret;

	/* a traced forked child writes its own trace, not its parent's profiles */
	ktau__utrace_process_exit();
	if (proc.init_error)
		return;		/* a forked child: its parent writes */
	if (tls_self && tls_self != GONE)
		tls_word = 0;
	ret = ktau_profiler_write(NULL);
	if (ret)
		ktau__warn_once(KTAU_WARN_WRITE, "could not write the profiles to %s: %s",
				dir && *dir ? dir : ".", ktau_strerror(ret));
}

/* A forked child is a copy of one thread of a profiled process: it must
 * not write the parent's profiles over again (see ktau.h). When the
 * process traces, the child keeps timing that thread (and registers new
 * ones) for a trace file of its own; else its profiler is off. */
static void forked_child(void)
{
	struct ktau_uthread *s = tls_self;
	bool own = s && s != GONE;
	pid_t tid = (pid_t)syscall(SYS_gettid);

	ktau__metadata_fork_lock(false);
	ktau__user_events_fork_lock(false);
	ktau__timers_fork_lock(false);
	ktau__names_fork_lock(false);
	if (own && s->kernel_registered) {
		proc.set_context(NULL);
		s->kernel_registered = false;
		s->kernel_error = -ECHILD;
	}
	proc.init_error = -ECHILD;
	if (ktau__utrace_fork_child(own ? s->trace : NULL, tid)) {
		if (own)
			s->tid = tid;
		return;
	}
	if (own)
		s->trace = NULL;
	tls_self = GONE;
}

/* The order the profiler nests them in: names, the trace, timers, events,
 * metadata. */
static void fork_prepare(void)
{
	ktau__names_fork_lock(true);
	ktau__utrace_fork_prepare();
	ktau__timers_fork_lock(true);
	ktau__user_events_fork_lock(true);
	ktau__metadata_fork_lock(true);
}

static void fork_parent(void)
{
	ktau__metadata_fork_lock(false);
	ktau__user_events_fork_lock(false);
	ktau__timers_fork_lock(false);
	ktau__utrace_fork_parent();
	ktau__names_fork_lock(false);
}

static void process_init(void)
{
	const char *merge = getenv("KTAU_KERNEL_MERGE");

	proc.info.start_cycles = ktau__cycles_at(CLOCK_MONOTONIC,
						 &proc.info.start_mono);
	clock_gettime(CLOCK_REALTIME, &proc.info.start_real);
	proc.info.merge_wanted = !(merge && !strcmp(merge, "0"));
	if (!proc.info.merge_wanted)
		proc.info.kernel_error = -ECANCELED;
	if (!proc.set_context)
		proc.set_context = prctl_set_context;
	if (pthread_key_create(&proc.key, thread_exit) ||
	    pthread_atfork(fork_prepare, fork_parent, forked_child) || atexit(process_exit))
		proc.init_error = -ENOMEM;
	else
		ktau__utrace_start();
}

static struct ktau_uthread *thread_register(void)
{
	struct ktau_uthread *s;

	pthread_once(&proc.once, process_init);
	/* a forked child that traces times its threads for its trace only */
	if (proc.init_error && !(proc.init_error == -ECHILD && ktau__utrace_enabled()))
		goto gone;
	s = calloc(1, sizeof(*s));
	if (!s)
		goto gone;
	if (ktau__ut_init(&s->tree)) {
		free(s);
		goto gone;
	}
	s->tid = (pid_t)syscall(SYS_gettid);
	s->trace = ktau__utrace_thread_start(s->tid);
	pthread_mutex_lock(&proc.lock);
	s->seq = proc.nr_threads++;
	*proc.tail = s;
	proc.tail = &s->next;
	pthread_mutex_unlock(&proc.lock);
	/* without the key's destructor the thread's profile is still written,
	 * at exit, from its tree as it was left */
	pthread_setspecific(proc.key, s);
	tls_self = s;
	if (proc.init_error)
		s->kernel_error = -ECHILD;	/* a forked child merges nothing */
	else
		register_kernel(s);
	return s;
gone:
	tls_self = GONE;
	return NULL;
}

struct ktau_uthread *ktau__uthread_self(void)
{
	struct ktau_uthread *s = tls_self;

	if (__builtin_expect(s != NULL && s != GONE, 1))
		return s;
	return s == GONE ? NULL : thread_register();
}

/*
 * A timer boundary, written once and compiled twice: `traced` is a
 * constant, so the untraced copy is the profiler's code without trace
 * mode, and trace mode costs the untraced timer path one test of
 * s->trace (in busy's cache line) and nothing else.
 */
static inline __attribute__((always_inline)) void enter(struct ktau_uthread *s,
							 uint32_t timer, bool traced)
{
	struct ktau_ut_frame *f = ktau__ut_push(&s->tree, timer);
	uint64_t now;

	if (!f && !traced)
		return;
	/* the context first, then the clock: whatever allocating the node
	 * cost stays with the parent, inside its own interval */
	if (f)
		tls_word = f->node + 1;
	now = ktau__cycles();
	if (f)
		ktau__ut_set_start(f, now);
	/* traced even when the tree could not record the frame: its stop is
	 * still due, and keeps the thread's ENTRY and EXIT events balanced */
	if (traced)
		ktau__utrace_event(s->trace, KTAU_UTRACE_ENTRY, timer, now);
}

static inline __attribute__((always_inline)) int exit_timer(struct ktau_uthread *s,
							     uint32_t timer, bool traced)
{
	uint64_t now;
	int ret = ktau__ut_stop(&s->tree, timer, &tls_word, &now);

	if (!ret && traced)
		ktau__utrace_event(s->trace, KTAU_UTRACE_EXIT, timer, now);
	return ret;
}

static __attribute__((noinline)) void enter_traced(struct ktau_uthread *s, uint32_t timer)
{
	enter(s, timer, true);
}

static __attribute__((noinline)) int exit_traced(struct ktau_uthread *s, uint32_t timer)
{
	return exit_timer(s, timer, true);
}

void ktau__uthread_enter(struct ktau_uthread *s, uint32_t timer)
{
	if (__builtin_expect(s->trace != NULL, 0))
		enter_traced(s, timer);
	else
		enter(s, timer, false);
}

int ktau__uthread_exit(struct ktau_uthread *s, uint32_t timer)
{
	if (__builtin_expect(s->trace != NULL, 0))
		return exit_traced(s, timer);
	return exit_timer(s, timer, false);
}

uint32_t ktau__context_word_set(uint32_t ctx)
{
	uint32_t old = tls_word;

	tls_word = ctx;
	return old;
}

int ktau_timer_start(struct ktau_timer *timer)
{
	struct ktau_uthread *s;

	if (!timer)
		return -EINVAL;
	s = ktau__uthread_self();
	if (!s || !ktau__uthread_begin(s))
		return 0;	/* profiler off here; see ktau.h */
	ktau__uthread_enter(s, timer->id);
	ktau__uthread_end(s);
	return 0;
}

int ktau_timer_stop(struct ktau_timer *timer)
{
	struct ktau_uthread *s;
	int ret;

	if (!timer)
		return -EINVAL;
	s = ktau__uthread_self();
	if (!s || !ktau__uthread_begin(s))
		return 0;
	ret = ktau__uthread_exit(s, timer->id);
	ktau__uthread_end(s);
	return ret;
}

struct ktau_timer *ktau_timer_scope_enter(struct ktau_timer **site, const char *name,
					 const char *group)
{
	struct ktau_timer *t = site ? __atomic_load_n(site, __ATOMIC_ACQUIRE) : NULL;

	if (!t) {
		t = ktau_timer_get(name, group);
		if (t && site)
			__atomic_store_n(site, t, __ATOMIC_RELEASE);
	}
	if (t && ktau_timer_start(t))
		t = NULL;
	return t;
}

void ktau_timer_scope_leave(struct ktau_timer **scope)
{
	if (scope && *scope)
		ktau_timer_stop(*scope);
}

uint32_t ktau_user_context(void)
{
	return tls_self && tls_self != GONE ? tls_word : 0;
}

struct ktau_profile *ktau__ut_read_kernel(pid_t tid)
{
	struct ktau_proc *proc = ktau_proc_open(NULL, NULL);
	KTAU_OPTS(ktau_read_opts, opts, .pid = getpid(), .tid = tid);
	struct ktau_profile *p = proc ? ktau_proc_read_profile(proc, &opts, NULL) : NULL;
	int error = errno;

	ktau_proc_close(proc);
	errno = error;
	return p;
}

/* Keeps an exited thread's profile: its tree as a snapshot, its kernel
 * profile read now, while /proc still has the thread. */
static void finish_thread(struct ktau_uthread *s)
{
	struct ktau_ut_sample *final;
	struct ktau_ue_sample *events;
	struct ktau_profile *kernel = NULL;
	size_t n = 0, nr_events = 0;

	final = ktau__ut_snapshot(&s->tree, ktau__cycles(), &n);
	events = ktau__ue_snapshot(&s->events, &nr_events);
	if (s->kernel_registered) {
		kernel = ktau__ut_read_kernel(s->tid);
		if (!kernel)
			s->kernel_error = -errno;
	}
	pthread_mutex_lock(&proc.lock);
	/* both snapshots or neither: a finished thread's profile is whole */
	if (final && events) {
		s->final = final;
		s->nr_final = n;
		ktau__ut_free(&s->tree);
		s->final_events = events;
		s->nr_final_events = nr_events;
		ktau__ue_free(&s->events);
	} else {
		free(final);
		free(events);
		final = NULL;
	}
	s->kernel_final = kernel;
	s->finished = final != NULL;
	pthread_mutex_unlock(&proc.lock);
	ktau__u64map_free(&s->fn_timers);
}

int ktau__profiler_error(void)
{
	return proc.init_error;
}

struct ktau_uthread *ktau__threads_lock(struct ktau_process_info *info)
{
	pthread_mutex_lock(&proc.lock);
	*info = proc.info;
	return proc.threads;
}

void ktau__threads_unlock(void)
{
	pthread_mutex_unlock(&proc.lock);
}
