// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Trace mode (KTAU_TRACE=1): every user timer's start and stop as an
 * ENTRY or EXIT event stamped with the TSC, the kernel trace's clock,
 * into $KTAU_TRACE_DIR/ktau-utrace.<pid>.ktt, in the format of
 * docs/trace-format.md ("User trace files"): the stream header, chunks of
 * kind 2 holding one thread's events each, and at exit one chunk of kind
 * 3 naming every timer id the events use.
 *
 * Each thread appends to a bounded buffer of its own without a lock
 * (prof.h, ktau__utrace_event); a full buffer goes to the file in one
 * write(). Writes take the trace lock, so chunks never interleave and a
 * failed write can be cut off the file (ftruncate), which stays a valid
 * stream: the events it held are counted as lost instead.
 *
 * The trace is process-wide state by nature (one file per process, shared
 * by every thread): it lives in `trace` below.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prof/prof.h"

#define TRACE_MAGIC "KTAUTRC1"
#define TRACE_VERSION 1
#define UNIT_SIZE 16u
#define CHUNK_MAGIC 0x544b		/* "KT" */
#define CHUNK_USER_EVENTS 2
#define CHUNK_NAMES 3
#define CPU_NONE 0xffff			/* user events belong to no CPU */
#define NAMES_OF_USER_IDS 1		/* a names chunk's cpu field */
#define DEFAULT_BUFFER_KIB 64
#define MAX_BUFFER_KIB (1024 * 1024)

struct stream_header {
	char magic[8];
	uint32_t version;
	uint32_t header_size;
	uint32_t unit_size;
	uint32_t nr_cpus;
	uint64_t tsc_khz;
	uint64_t tsc;
	uint64_t realtime_ns;
	uint64_t monotonic_ns;
	uint32_t flags;
	uint32_t reserved;
};
_Static_assert(sizeof(struct stream_header) == 64, "the format's stream header");

struct chunk_header {
	uint16_t magic;
	uint8_t kind;
	uint8_t flags;
	uint16_t cpu;
	uint16_t source;
	uint32_t count;
	uint32_t lost;
};
_Static_assert(sizeof(struct chunk_header) == UNIT_SIZE, "the format's chunk header");
_Static_assert(sizeof(struct ktau_utrace_unit) == UNIT_SIZE, "the format's event");

static struct {
	pthread_mutex_t lock;		/* everything below, and writing the file */
	int fd;				/* -1: not tracing; read without the lock by
					 * new threads: written atomically */
	bool closed;			/* the exit handler has written the names */
	uint32_t buffer_events;		/* events a thread's buffer holds */
	uint64_t size;			/* bytes in the file: where a failed write is cut */
	struct ktau_utrace_buffer *buffers;
	uint64_t *used;			/* bitmap of the timer ids in the file's events */
	size_t used_words;
	bool used_unknown;		/* no memory for the bitmap: name every timer */
	char path[PATH_MAX];		/* for messages */
} trace = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.fd = -1,
};

static void set_fd_locked(int fd)
{
	__atomic_store_n(&trace.fd, fd, __ATOMIC_RELAXED);
}

static uint64_t ns_of(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

/*
 * The kernel's TSC frequency: the `tsc_khz` header line of the process's
 * own profile, /proc/self/ktau (under $KTAU_PROCFS; the system-wide
 * profile would make the kernel print every task), read alone, without
 * the profile parser: the header lines come first. 0 when it cannot be
 * read.
 */
static uint64_t kernel_tsc_khz(void)
{
	char path[PATH_MAX], text[512], *line, *end;
	unsigned long long khz;
	ssize_t n;
	int fd;

	if (snprintf(path, sizeof(path), "%s/self/ktau", ktau__procfs_root()) >=
	    (int)sizeof(path))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	text[n] = '\0';
	for (line = text; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (strncmp(line, "tsc_khz ", 8))
			continue;
		errno = 0;
		khz = strtoull(line + 8, &end, 10);
		return !errno && end != line + 8 && *end == '\n' ? khz : 0;
	}
	return 0;
}

/* Creates the trace file of the calling process and writes the stream
 * header; 0 or a negative errno (trace.fd stays -1). */
static int open_file(const char *dir)
{
	struct stream_header h = {
		.magic = TRACE_MAGIC,
		.version = TRACE_VERSION,
		.header_size = sizeof(h),
		.unit_size = UNIT_SIZE,
		.nr_cpus = 0,		/* user events belong to no CPU */
		.tsc_khz = kernel_tsc_khz(),
	};
	struct timespec real, mono;
	uint64_t before, after;
	ssize_t n;
	int fd, err;

	if (snprintf(trace.path, sizeof(trace.path), "%s/ktau-utrace.%d.ktt", dir,
		     (int)getpid()) >= (int)sizeof(trace.path))
		return -ENAMETOOLONG;
	/* the anchors: the TSC halfway through reading both clocks */
	before = ktau__cycles();
	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	after = ktau__cycles();
	h.tsc = (before + (after - before) / 2) & KTAU_UTRACE_TSC_MASK;
	h.realtime_ns = ns_of(&real);
	h.monotonic_ns = ns_of(&mono);
	/* O_TRUNC: a program this process execs traces under the same pid */
	fd = open(trace.path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	n = write(fd, &h, sizeof(h));
	if (n != (ssize_t)sizeof(h)) {
		err = n < 0 ? errno : ENOSPC;
		close(fd);
		unlink(trace.path);
		return -err;
	}
	set_fd_locked(fd);
	trace.size = sizeof(h);
	return 0;
}

/* Events per thread buffer from KTAU_TRACE_BUFFER (KiB; one unit of each
 * buffer is kept for the chunk header). */
static uint32_t buffer_events(void)
{
	const char *v = getenv("KTAU_TRACE_BUFFER");
	unsigned long kib = DEFAULT_BUFFER_KIB;
	char *end;

	if (v && *v) {
		errno = 0;
		kib = strtoul(v, &end, 10);
		if (errno || *end || *v < '0' || *v > '9' || kib < 1 || kib > MAX_BUFFER_KIB) {
			ktau__warn_once(KTAU_WARN_TRACE_CONFIG,
					"KTAU_TRACE_BUFFER=%s is not a size in KiB from 1 to %u: "
					"using %u",
					v, MAX_BUFFER_KIB, DEFAULT_BUFFER_KIB);
			kib = DEFAULT_BUFFER_KIB;
		}
	}
	return (uint32_t)(kib * 1024 / UNIT_SIZE - 1);
}

static const char *trace_dir(void)
{
	const char *dir = getenv("KTAU_TRACE_DIR");

	return dir && *dir ? dir : ".";
}

/* The warning of a process that wanted a trace and cannot have one. */
static void warn_no_trace(int err)
{
	ktau__warn_once(KTAU_WARN_TRACE_WRITE,
			"KTAU_TRACE=1 but the trace file %s cannot be created (%s): "
			"not tracing", trace.path, strerror(-err));
}

void ktau__utrace_start(void)
{
	const char *on = getenv("KTAU_TRACE");
	int ret;

	if (!on || !*on || !strcmp(on, "0"))
		return;
	trace.buffer_events = buffer_events();
	ret = open_file(trace_dir());
	if (ret) {
		if (ret == -ENAMETOOLONG)
			snprintf(trace.path, sizeof(trace.path), "%s/...", trace_dir());
		warn_no_trace(ret);
	}
}

bool ktau__utrace_enabled(void)
{
	return __atomic_load_n(&trace.fd, __ATOMIC_RELAXED) >= 0;
}

struct ktau_utrace_buffer *ktau__utrace_thread_start(pid_t tid)
{
	struct ktau_utrace_buffer *b;

	if (!ktau__utrace_enabled())
		return NULL;
	/* + 1: units[0], room for the first chunk's header */
	b = malloc(sizeof(*b) + ((size_t)trace.buffer_events + 1) * UNIT_SIZE);
	if (!b)
		return NULL;
	*b = (struct ktau_utrace_buffer){
		.next = 1,
		.end = trace.buffer_events + 1,
		.tid = (uint32_t)tid,
		.first = 1,
	};
	pthread_mutex_lock(&trace.lock);
	b->link = trace.buffers;
	trace.buffers = b;
	pthread_mutex_unlock(&trace.lock);
	return b;
}

/* ---- writing, under the lock ---- */

/* len bytes at the end of the file in one go, or nothing: a write that
 * fails part way is cut off. 0 or a negative errno. */
static int append_locked(const void *buf, size_t len)
{
	const char *p = buf;
	size_t done = 0;
	ssize_t n;
	int err;

	if (trace.fd < 0 || trace.closed)
		return -EBADF;
	while (done < len) {
		n = write(trace.fd, p + done, len - done);
		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		err = n < 0 ? errno : ENOSPC;
		if (done && ftruncate(trace.fd, (off_t)trace.size)) {
			/* a partial chunk stays: nothing more can be written */
			close(trace.fd);
			set_fd_locked(-1);
		}
		return -err;
	}
	trace.size += len;
	return 0;
}

/* Marks the timer ids of count events as named in the file. */
static void mark_used_locked(const struct ktau_utrace_unit *events, uint32_t count)
{
	uint32_t i;

	for (i = 0; i < count && !trace.used_unknown; i++) {
		size_t word = events[i].data / 64;

		if (word >= trace.used_words) {
			size_t words = word + 1 > 2 * trace.used_words ? word + 1 : 2 * trace.used_words;
			uint64_t *more = realloc(trace.used, words * sizeof(*more));

			if (!more) {
				trace.used_unknown = true;
				break;
			}
			memset(more + trace.used_words, 0,
			       (words - trace.used_words) * sizeof(*more));
			trace.used = more;
			trace.used_words = words;
		}
		trace.used[word] |= UINT64_C(1) << (events[i].data % 64);
	}
}

static struct chunk_header events_header(uint32_t count, uint32_t lost)
{
	return (struct chunk_header){
		.magic = CHUNK_MAGIC,
		.kind = CHUNK_USER_EVENTS,
		.cpu = CPU_NONE,
		.count = count,
		.lost = lost,
	};
}

static uint32_t add_saturating(uint32_t a, uint32_t b)
{
	return a > UINT32_MAX - b ? UINT32_MAX : a + b;
}

/*
 * Writes b's slots first .. upto - 1 as one chunk, its header in the
 * slot before them (units[0], or an event already written). When that
 * fails the events are lost: counted, and said in the thread's next
 * chunk, whose events name the thread. A thread's last chunk has no next
 * one: its loss goes out in a chunk of no events (which cannot name the
 * thread, but keeps the process's count right).
 */
static void flush_locked(struct ktau_utrace_buffer *b, uint32_t upto, bool last)
{
	uint32_t count = upto - b->first;
	struct chunk_header h = events_header(count, b->lost);
	struct ktau_utrace_unit *slot = &b->units[b->first - 1];
	int ret;

	if (!count && !b->lost)
		return;
	b->first = upto;
	if (trace.fd < 0 || trace.closed)
		return;		/* the file is complete, or gone: nobody counts */
	memcpy(slot, &h, sizeof(h));
	ret = append_locked(slot, (size_t)(count + 1) * UNIT_SIZE);
	if (!ret) {
		mark_used_locked(slot + 1, count);
		b->lost = 0;
		return;
	}
	ktau__warn_once(KTAU_WARN_TRACE_WRITE, "could not write the trace to %s (%s): "
			"its events are lost from there on", trace.path, strerror(-ret));
	b->lost = add_saturating(b->lost, count);
	h = events_header(0, b->lost);
	if (last && count && !append_locked(&h, sizeof(h)))
		b->lost = 0;
}

void ktau__utrace_full(struct ktau_utrace_buffer *b)
{
	pthread_mutex_lock(&trace.lock);
	flush_locked(b, b->end, false);
	b->first = 1;
	__atomic_store_n(&b->next, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&trace.lock);
}

void ktau__utrace_thread_exit(struct ktau_utrace_buffer *b)
{
	struct ktau_utrace_buffer **p;

	if (!b)
		return;
	pthread_mutex_lock(&trace.lock);
	flush_locked(b, __atomic_load_n(&b->next, __ATOMIC_RELAXED), true);
	for (p = &trace.buffers; *p; p = &(*p)->link)
		if (*p == b) {
			*p = b->link;
			break;
		}
	pthread_mutex_unlock(&trace.lock);
	free(b);
}

/* Whether the names chunk lists timer id. */
static bool id_used_locked(size_t id)
{
	return trace.used_unknown ||
	       (id / 64 < trace.used_words && trace.used[id / 64] & UINT64_C(1) << (id % 64));
}

/* Appends "ID NAME\n" to the text (*len bytes in *cap); *text freed and
 * NULL when there is no memory. A newline in a name would start another
 * line: it is written as a blank. */
static void add_name_line(char **text, size_t *len, size_t *cap, size_t id, const char *name)
{
	int n = snprintf(NULL, 0, "%zu %s\n", id, name);
	char *p;

	if (n < 0)
		return;		/* cannot happen with %zu and %s: no line */
	while (*len + (size_t)n + UNIT_SIZE > *cap) {
		p = realloc(*text, *cap * 2);
		if (!p) {
			free(*text);
			*text = NULL;
			return;
		}
		*text = p;
		*cap *= 2;
	}
	snprintf(*text + *len, *cap - *len, "%zu %s\n", id, name);
	for (p = *text + *len; p < *text + *len + n - 1; p++)
		if (*p == '\n')
			*p = ' ';
	*len += (size_t)n;
}

/*
 * The names chunk, header slot included: a line for every id marked used
 * (every timer when the bitmap ran out of memory), NUL-padded to whole
 * units (*units, the header's included); NULL when there is no memory.
 */
static char *names_chunk_locked(size_t *units)
{
	size_t len = sizeof(struct chunk_header), cap = 256, id;
	size_t limit = trace.used_unknown ? UINT32_MAX : trace.used_words * 64;
	char *text = malloc(cap);
	const struct ktau_timer *t;

	for (id = 0; text && id < limit; id++) {
		if (!id_used_locked(id))
			continue;
		t = ktau__timer_by_id((uint32_t)id);
		if (t)
			add_name_line(&text, &len, &cap, id, t->name);
		else if (trace.used_unknown)
			break;	/* ids are dense: no more timers */
	}
	if (!text)
		return NULL;
	*units = (len + UNIT_SIZE - 1) / UNIT_SIZE;
	memset(text + len, 0, *units * UNIT_SIZE - len);
	return text;
}

void ktau__utrace_process_exit(void)
{
	struct chunk_header h = {
		.magic = CHUNK_MAGIC,
		.kind = CHUNK_NAMES,
		.cpu = NAMES_OF_USER_IDS,
	};
	struct ktau_utrace_buffer *b;
	size_t units = 0;
	char *names;
	int ret = 0;

	pthread_mutex_lock(&trace.lock);
	if (trace.fd < 0 || trace.closed)
		goto out;
	/* threads still running go on filling their buffers beyond `next` */
	for (b = trace.buffers; b; b = b->link)
		flush_locked(b, __atomic_load_n(&b->next, __ATOMIC_ACQUIRE), true);
	names = names_chunk_locked(&units);
	if (names) {
		h.count = (uint32_t)(units - 1);
		memcpy(names, &h, sizeof(h));
		ret = append_locked(names, units * UNIT_SIZE);
		free(names);
	} else {
		ret = -ENOMEM;
	}
	if (ret)
		ktau__warn_once(KTAU_WARN_TRACE_WRITE,
				"could not write the timer names to the trace %s (%s)",
				trace.path, strerror(-ret));
	trace.closed = true;
	if (trace.fd >= 0)
		close(trace.fd);
	set_fd_locked(-1);
out:
	pthread_mutex_unlock(&trace.lock);
}

/* ---- fork ---- */

void ktau__utrace_fork_prepare(void)
{
	pthread_mutex_lock(&trace.lock);
}

void ktau__utrace_fork_parent(void)
{
	pthread_mutex_unlock(&trace.lock);
}

bool ktau__utrace_fork_child(struct ktau_utrace_buffer *keep, pid_t tid)
{
	int ret;

	/* the prepare handler's lock, taken by this very thread */
	pthread_mutex_unlock(&trace.lock);
	if (trace.fd < 0 || trace.closed)
		return false;
	close(trace.fd);
	set_fd_locked(-1);
	/* the other buffers are those of threads the child does not have: left
	 * to their (copied) owners' state, which the child never uses */
	trace.buffers = keep;
	if (keep) {
		keep->link = NULL;
		keep->tid = (uint32_t)tid;
		keep->first = 1;
		keep->lost = 0;
		__atomic_store_n(&keep->next, 1, __ATOMIC_RELAXED);
	}
	free(trace.used);
	trace.used = NULL;
	trace.used_words = 0;
	trace.used_unknown = false;
	ret = open_file(trace_dir());
	if (ret)
		warn_no_trace(ret);
	return !ret;
}
