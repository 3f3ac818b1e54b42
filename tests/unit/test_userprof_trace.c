// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Trace mode of the user-level profiler (KTAU_TRACE=1): the files the
 * built programs write, read back by a small reader of the format written
 * here from docs/trace-format.md alone (not libktau's reader), so that the
 * writer is checked against the document.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "testutil.h"
#include "prof/prof.h"

/* ---- a reader of the format (docs/trace-format.md) ---- */

#define MAX_CHUNKS 256

struct rd_chunk {
	unsigned int kind, flags, cpu, source;
	uint32_t count, lost;
	uint32_t tid;			/* kind 2: the tid of its events */
};

struct rd_event {
	uint64_t tsc;
	unsigned int type;
	uint32_t tid, data;
};

struct rd_trace {
	char magic[9];
	uint32_t version, header_size, unit_size, nr_cpus, flags, reserved;
	uint64_t tsc_khz, tsc, realtime_ns, monotonic_ns;
	struct rd_chunk chunks[MAX_CHUNKS];
	size_t nr_chunks, nr_names_chunks;
	struct rd_event *events;
	size_t nr_events;
	char *names;			/* the names chunk's text, NULs cut */
};

static uint64_t le(const unsigned char *p, int bytes)
{
	uint64_t v = 0;

	while (bytes--)
		v = v << 8 | p[bytes];
	return v;
}

static void rd_free(struct rd_trace *t)
{
	free(t->events);
	free(t->names);
	memset(t, 0, sizeof(*t));
}

/* Reads the stream at path into t: 0, or -1 with why in err. */
static int rd_load(const char *path, struct rd_trace *t, char *err, size_t len)
{
	size_t size = 0, off, i;
	unsigned char *buf = (unsigned char *)slurp(path, &size);

	memset(t, 0, sizeof(*t));
	if (!buf) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (size < 64) {
		snprintf(err, len, "%zu bytes: no header", size);
		goto bad;
	}
	memcpy(t->magic, buf, 8);
	t->version = (uint32_t)le(buf + 8, 4);
	t->header_size = (uint32_t)le(buf + 12, 4);
	t->unit_size = (uint32_t)le(buf + 16, 4);
	t->nr_cpus = (uint32_t)le(buf + 20, 4);
	t->tsc_khz = le(buf + 24, 8);
	t->tsc = le(buf + 32, 8);
	t->realtime_ns = le(buf + 40, 8);
	t->monotonic_ns = le(buf + 48, 8);
	t->flags = (uint32_t)le(buf + 56, 4);
	t->reserved = (uint32_t)le(buf + 60, 4);
	t->events = calloc(size / 16 + 1, sizeof(*t->events));
	for (off = t->header_size; off < size; off += 16) {
		const unsigned char *h = buf + off;
		struct rd_chunk *c = &t->chunks[t->nr_chunks];

		if (off + 16 > size || t->nr_chunks == MAX_CHUNKS) {
			snprintf(err, len, "at %zu: a partial chunk header or too many chunks", off);
			goto bad;
		}
		if (le(h, 2) != 0x544b) {
			snprintf(err, len, "at %zu: chunk magic %#llx", off,
				 (unsigned long long)le(h, 2));
			goto bad;
		}
		*c = (struct rd_chunk){ h[2], h[3], (unsigned)le(h + 4, 2), (unsigned)le(h + 6, 2),
					(uint32_t)le(h + 8, 4), (uint32_t)le(h + 12, 4), 0 };
		t->nr_chunks++;
		if (off + 16 + (size_t)c->count * 16 > size) {
			snprintf(err, len, "at %zu: chunk of %u units cut short", off, c->count);
			goto bad;
		}
		if (c->kind == 3) {
			free(t->names);
			t->names = strndup((const char *)h + 16, (size_t)c->count * 16);
			t->nr_names_chunks++;
		}
		for (i = 0; c->kind == 2 && i < c->count; i++) {
			const unsigned char *e = h + 16 + i * 16;
			struct rd_event *ev = &t->events[t->nr_events++];

			ev->tsc = le(e, 8) & ((UINT64_C(1) << 56) - 1);
			ev->type = e[7];
			ev->tid = (uint32_t)le(e + 8, 4);
			ev->data = (uint32_t)le(e + 12, 4);
			if (i && ev->tid != c->tid) {
				snprintf(err, len, "at %zu: a chunk of two threads", off);
				goto bad;
			}
			c->tid = ev->tid;
		}
		off += (size_t)c->count * 16;
	}
	free(buf);
	return 0;
bad:
	free(buf);
	rd_free(t);
	return -1;
}

/* The name the names chunk gives id, or NULL. */
static const char *rd_name(const struct rd_trace *t, uint32_t id, char *buf, size_t len)
{
	char key[16];
	const char *p = t->names, *end;

	snprintf(key, sizeof(key), "%u ", id);
	for (; p && *p; p = end + 1) {
		end = strchr(p, '\n');
		if (!end)
			return NULL;
		if (!strncmp(p, key, strlen(key))) {
			snprintf(buf, len, "%.*s", (int)(end - p - strlen(key)), p + strlen(key));
			return buf;
		}
	}
	return NULL;
}

/*
 * Thread tid's events as "+name -name ..." (ENTRY, EXIT), NULL (why in
 * err) when its stamps go back, its ENTRY and EXIT are not properly nested
 * and balanced, an event is of another type or an id has no name.
 */
static char *rd_story(const struct rd_trace *t, uint32_t tid, char *err, size_t len)
{
	uint32_t stack[64];
	size_t depth = 0, i, used = 0, cap = 64;
	uint64_t last = 0;
	char *out = calloc(1, cap), name[256];

	for (i = 0; out && i < t->nr_events; i++) {
		const struct rd_event *e = &t->events[i];
		int n;

		if (e->tid != tid)
			continue;
		if (e->tsc < last || (e->type != 1 && e->type != 2) ||
		    !rd_name(t, e->data, name, sizeof(name))) {
			snprintf(err, len, "event %zu: tsc %llu after %llu, type %u, id %u", i,
				 (unsigned long long)e->tsc, (unsigned long long)last, e->type,
				 e->data);
			goto bad;
		}
		last = e->tsc;
		if (e->type == 1 && depth < 64) {
			stack[depth++] = e->data;
		} else if (e->type == 2 && (!depth || stack[--depth] != e->data)) {
			snprintf(err, len, "event %zu: EXIT %s is not the innermost", i, name);
			goto bad;
		}
		n = snprintf(NULL, 0, "%s%c%s", used ? " " : "", e->type == 1 ? '+' : '-', name);
		while (used + (size_t)n + 1 > cap)
			out = realloc(out, cap *= 2);
		used += (size_t)sprintf(out + used, "%s%c%s", used ? " " : "", e->type == 1 ? '+' : '-',
					name);
	}
	if (out && depth) {
		snprintf(err, len, "%zu timers still open", depth);
		goto bad;
	}
	return out;
bad:
	free(out);
	return NULL;
}

/* The number of kind 2 chunks of tid, and the events they say were lost. */
static size_t rd_chunks_of(const struct rd_trace *t, uint32_t tid, uint64_t *lost)
{
	size_t i, n = 0;

	*lost = 0;
	for (i = 0; i < t->nr_chunks; i++)
		if (t->chunks[i].kind == 2 && t->chunks[i].tid == tid) {
			n += t->chunks[i].count > 0;
			*lost += t->chunks[i].lost;
		}
	return n;
}

static size_t rd_events_of(const struct rd_trace *t, uint32_t tid)
{
	size_t i, n = 0;

	for (i = 0; i < t->nr_events; i++)
		n += t->events[i].tid == tid;
	return n;
}

/* Whether every kind 2 chunk has cpu 0xffff, source 0 and flags 0. */
static bool rd_user_chunks_well_formed(const struct rd_trace *t)
{
	size_t i;

	for (i = 0; i < t->nr_chunks; i++) {
		const struct rd_chunk *c = &t->chunks[i];

		if (c->kind == 2 && (c->cpu != 0xffff || c->source || c->flags))
			return false;
		if (c->kind == 3 && (c->cpu != 1 || c->source || c->flags))
			return false;
	}
	return true;
}

/* The names chunk's names, sorted, joined with commas ("" when none). */
static char *rd_sorted_names(const struct rd_trace *t)
{
	char *copy = strdup(t->names ? t->names : ""), *lines[64], *line, *save = NULL;
	char *out = calloc(1, strlen(copy) + 1);
	size_t n = 0, i, j;

	for (line = strtok_r(copy, "\n", &save); line && n < 64; line = strtok_r(NULL, "\n", &save))
		lines[n++] = strchr(line, ' ') ? strchr(line, ' ') + 1 : line;
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (strcmp(lines[j], lines[i]) < 0) {
				char *tmp = lines[i];

				lines[i] = lines[j];
				lines[j] = tmp;
			}
	for (i = 0; i < n; i++) {
		strcat(out, lines[i]);
		if (i + 1 < n)
			strcat(out, ",");
	}
	free(copy);
	return out;
}

/* ---- what the programs do ---- */

#define STEPS 50			/* progs/traced.c */
#define WORKER_EVENTS (2 + STEPS * 6)

static char *worker_story(int w)
{
	size_t cap = 64 + STEPS * 64;
	char *s = malloc(cap);
	int i;

	snprintf(s, cap, "+worker %d", w);
	for (i = 0; i < STEPS; i++)
		strcat(s, " +step +inner -inner +inner -inner -step");
	snprintf(s + strlen(s), cap - strlen(s), " -worker %d", w);
	return s;
}

/* The worker number (0 or 1) whose thread tid is, from its first event's
 * name; -1 if it is none. */
static int worker_of(const struct rd_trace *t, uint32_t tid)
{
	char name[64];
	size_t i;

	for (i = 0; i < t->nr_events; i++)
		if (t->events[i].tid == tid) {
			if (!rd_name(t, t->events[i].data, name, sizeof(name)) ||
			    strncmp(name, "worker ", 7))
				return -1;
			return name[7] - '0';
		}
	return -1;
}

/* The tids of t other than pid, in order of first appearance; how many. */
static size_t other_tids(const struct rd_trace *t, uint32_t pid, uint32_t *tids, size_t max)
{
	size_t i, j, n = 0;

	for (i = 0; i < t->nr_events; i++) {
		if (t->events[i].tid == pid)
			continue;
		for (j = 0; j < n && tids[j] != t->events[i].tid; j++)
			;
		if (j == n && n < max)
			tids[n++] = t->events[i].tid;
	}
	return n;
}

/* ---- running them ---- */

struct traced_run {
	char *dir;			/* scratch: trace/, profiles/, proc/ */
	char trace_dir[4200];
	char profile_dir[4200];
	struct run_result r;
	int pid, child;			/* as the program printed them */
	char path[4300];		/* its trace file */
	uint64_t before_real, after_real;	/* CLOCK_REALTIME around the run */
};

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Runs the program prog (prog-traced, with arg when not NULL) in a new
 * scratch directory with KTAU_TRACE=1, a made-up /proc whose
 * /proc/self/ktau says tsc_khz 2899999, and the extra environment
 * entries extra (NULL-terminated, may be NULL). 0 or -errno.
 */
static int run_traced(struct traced_run *run, const char *prog, const char *arg,
		      const char *preload, char *const extra[])
{
	char path[4200], trace_env[4300], profile_env[4300], procfs_env[4300], libs_env[4300];
	char preload_env[4300];
	char *argv[] = { path, (char *)arg, NULL };
	char *env[16] = { trace_env, profile_env, procfs_env, libs_env, preload_env,
			  "KTAU_TRACE=1", "KTAU_KERNEL_MERGE=0" };
	const char *progs = getenv("USERPROF_PROGS"), *libdir = getenv("LIBKTAU_LIBDIR");
	size_t n = 7;
	int ret;

	memset(run, 0, sizeof(*run));
	run->dir = make_tmpdir();
	if (!run->dir || make_tree_dir(run->dir, "trace") || make_tree_dir(run->dir, "profiles") ||
	    write_tree_file(run->dir, "proc/self/ktau",
			    "ktau-profile 2\ntsc_khz 2899999\nscope process\n"))
		return -EIO;
	snprintf(run->trace_dir, sizeof(run->trace_dir), "%s/trace", run->dir);
	snprintf(run->profile_dir, sizeof(run->profile_dir), "%s/profiles", run->dir);
	snprintf(path, sizeof(path), "%s/%s", progs ? progs : ".", prog);
	snprintf(trace_env, sizeof(trace_env), "KTAU_TRACE_DIR=%s", run->trace_dir);
	snprintf(profile_env, sizeof(profile_env), "KTAU_PROFILE_DIR=%s", run->profile_dir);
	snprintf(procfs_env, sizeof(procfs_env), "KTAU_PROCFS=%s/proc", run->dir);
	snprintf(libs_env, sizeof(libs_env), "LD_LIBRARY_PATH=%s", libdir ? libdir : "");
	snprintf(preload_env, sizeof(preload_env), "LD_PRELOAD=%s", preload ? preload : "");
	for (; extra && *extra && n < 15; extra++)
		env[n++] = *extra;
	run->before_real = realtime_ns();
	ret = run_program(argv, env, &run->r);
	run->after_real = realtime_ns();
	if (ret)
		return ret;
	if (sscanf(run->r.out, "pid=%d child=%d", &run->pid, &run->child) != 2)
		run->pid = run->child = 0;
	snprintf(run->path, sizeof(run->path), "%s/ktau-utrace.%d.ktt", run->trace_dir,
		 run->pid);
	return 0;
}

static void traced_run_free(struct traced_run *run)
{
	if (run->dir)
		remove_tree(run->dir);
	free(run->dir);
	run_result_free(&run->r);
}

static int count(const char *haystack, const char *needle)
{
	int n = 0;

	for (const char *p = haystack; p && (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* ---- the tests ---- */

/* What every run of prog-traced must show: exact events of each thread,
 * nested, in TSC order, named; err says what is wrong, "" when nothing. */
static void check_traced_threads(const struct rd_trace *t, uint32_t pid, char *err, size_t len)
{
	uint32_t tids[4];
	char *story, *want;
	size_t i;

	*err = '\0';
	story = rd_story(t, pid, err, len);
	if (!story)
		return;
	if (strcmp(story, "+main +setup -setup -main"))
		snprintf(err, len, "main thread: %s", story);
	free(story);
	if (*err)
		return;
	if (other_tids(t, pid, tids, 4) != 2) {
		snprintf(err, len, "%zu worker threads", other_tids(t, pid, tids, 4));
		return;
	}
	for (i = 0; i < 2 && !*err; i++) {
		int w = worker_of(t, tids[i]);

		if (w < 0 || (i && w == worker_of(t, tids[0]))) {
			snprintf(err, len, "thread %u is no worker", tids[i]);
			return;
		}
		story = rd_story(t, tids[i], err, len);
		want = worker_story(w);
		if (story && rd_events_of(t, tids[i]) != WORKER_EVENTS)
			snprintf(err, len, "worker %d: %zu events", w, rd_events_of(t, tids[i]));
		else if (story && strcmp(story, want))
			snprintf(err, len, "worker %d: %.200s", w, story);
		free(story);
		free(want);
	}
}

TEST(utrace_two_threads_exact_events_header_and_names)
{
	struct traced_run run;
	struct rd_trace t;
	char err[512] = "", *files, *names;
	uint64_t lost;
	uint32_t tids[2];

	ASSERT_EQ(0, run_traced(&run, "prog-traced", NULL, NULL, NULL));
	ASSERT_EQ(3, run.r.status);
	ASSERT_STREQ("", run.r.err);
	ASSERT_TRUE(run.pid > 0);
	files = listing(run.trace_dir);
	ASSERT_CONTAINS(run.path, files);
	ASSERT_EQ(0, count(files, " "));	/* that file alone */
	free(files);
	/* the profiles as without trace mode */
	files = listing(run.profile_dir);
	ASSERT_STREQ("profile.0.0.0 profile.0.0.1 profile.0.0.2", files);
	free(files);

	if (rd_load(run.path, &t, err, sizeof(err)))
		FAIL("%s", err);
	ASSERT_STREQ("KTAUTRC1", t.magic);
	ASSERT_EQ(1, t.version);
	ASSERT_EQ(64, t.header_size);
	ASSERT_EQ(16, t.unit_size);
	ASSERT_EQ(0, t.nr_cpus);
	ASSERT_EQ_U64(2899999, t.tsc_khz);	/* the made-up /proc/self/ktau */
	ASSERT_EQ(0, t.flags);
	ASSERT_EQ(0, t.reserved);
	ASSERT_TRUE(t.realtime_ns >= run.before_real && t.realtime_ns <= run.after_real);
	ASSERT_TRUE(t.monotonic_ns > 0);
	ASSERT_TRUE(t.nr_events > 0 && t.tsc <= t.events[0].tsc);
	ASSERT_TRUE(rd_user_chunks_well_formed(&t));

	check_traced_threads(&t, (uint32_t)run.pid, err, sizeof(err));
	ASSERT_STREQ("", err);
	ASSERT_EQ(4 + 2 * WORKER_EVENTS, t.nr_events);
	/* 64 KiB buffers: one chunk per thread, written when it ended */
	ASSERT_EQ(3 + 1, t.nr_chunks);
	ASSERT_EQ(1, rd_chunks_of(&t, (uint32_t)run.pid, &lost));
	ASSERT_EQ_U64(0, lost);
	ASSERT_EQ(2, other_tids(&t, (uint32_t)run.pid, tids, 2));
	ASSERT_EQ(1, rd_chunks_of(&t, tids[0], &lost));
	ASSERT_EQ_U64(0, lost);
	/* one names chunk, the last, naming the timers used: not "never started" */
	ASSERT_EQ(1, t.nr_names_chunks);
	ASSERT_EQ(3, t.chunks[t.nr_chunks - 1].kind);
	names = rd_sorted_names(&t);
	ASSERT_STREQ("inner,main,setup,step,worker 0,worker 1", names);
	free(names);
	rd_free(&t);
	traced_run_free(&run);
}

TEST(utrace_tiny_buffer_flushes_and_loses_nothing)
{
	char *extra[] = { "KTAU_TRACE_BUFFER=1", NULL };
	struct traced_run run;
	struct rd_trace t;
	char err[512] = "";
	uint64_t lost;
	uint32_t tids[2];
	size_t i;

	ASSERT_EQ(0, run_traced(&run, "prog-traced", NULL, NULL, extra));
	ASSERT_EQ(3, run.r.status);
	ASSERT_STREQ("", run.r.err);
	if (rd_load(run.path, &t, err, sizeof(err)))
		FAIL("%s", err);
	check_traced_threads(&t, (uint32_t)run.pid, err, sizeof(err));
	ASSERT_STREQ("", err);
	ASSERT_EQ(2, other_tids(&t, (uint32_t)run.pid, tids, 2));
	/* 1 KiB: 63 events and the chunk header; 302 events in 5 chunks */
	for (i = 0; i < 2; i++) {
		ASSERT_EQ((WORKER_EVENTS + 62) / 63, rd_chunks_of(&t, tids[i], &lost));
		ASSERT_EQ_U64(0, lost);
	}
	for (i = 0; i < t.nr_chunks; i++)
		ASSERT_TRUE(t.chunks[i].kind != 2 || t.chunks[i].count <= 63);
	ASSERT_EQ(1, t.nr_names_chunks);
	rd_free(&t);
	traced_run_free(&run);
}

TEST(utrace_bad_buffer_size_warns_and_uses_the_default)
{
	char *extra[] = { "KTAU_TRACE_BUFFER=12k", NULL };
	struct traced_run run;
	struct rd_trace t;
	char err[512] = "";

	ASSERT_EQ(0, run_traced(&run, "prog-traced", NULL, NULL, extra));
	ASSERT_EQ(3, run.r.status);
	ASSERT_STREQ("ktau: KTAU_TRACE_BUFFER=12k is not a size in KiB from 1 to 1048576: "
		     "using 64\n", run.r.err);
	if (rd_load(run.path, &t, err, sizeof(err)))
		FAIL("%s", err);
	check_traced_threads(&t, (uint32_t)run.pid, err, sizeof(err));
	ASSERT_STREQ("", err);
	ASSERT_EQ(3 + 1, t.nr_chunks);
	rd_free(&t);
	traced_run_free(&run);
}

TEST(utrace_unwritable_dir_warns_once_and_the_program_runs)
{
	char *extra[2] = { NULL, NULL }, env[4300], want[4600], *files;
	struct traced_run run;

	/* a regular file as the directory: unwritable even for root */
	char *dir = make_tmpdir();

	ASSERT_NOT_NULL(dir);
	ASSERT_EQ(0, write_tree_file(dir, "file", "not a directory\n"));
	snprintf(env, sizeof(env), "KTAU_TRACE_DIR=%s/file", dir);
	extra[0] = env;
	ASSERT_EQ(0, run_traced(&run, "prog-traced", NULL, NULL, extra));
	ASSERT_EQ(3, run.r.status);
	ASSERT_TRUE(run.pid > 0);
	snprintf(want, sizeof(want),
		 "ktau: KTAU_TRACE=1 but the trace file %s/file/ktau-utrace.%d.ktt cannot be "
		 "created (Not a directory): not tracing\n", dir, run.pid);
	ASSERT_STREQ(want, run.r.err);
	files = listing(run.profile_dir);
	ASSERT_STREQ("profile.0.0.0 profile.0.0.1 profile.0.0.2", files);
	free(files);
	files = listing(run.trace_dir);
	ASSERT_STREQ("", files);
	free(files);
	remove_tree(dir);
	free(dir);
	traced_run_free(&run);
}

TEST(utrace_off_writes_no_trace)
{
	char *off[] = { "KTAU_TRACE=0", NULL };
	struct traced_run run;
	char *files;

	ASSERT_EQ(0, run_traced(&run, "prog-traced", NULL, NULL, off));
	ASSERT_EQ(3, run.r.status);
	ASSERT_STREQ("", run.r.err);
	files = listing(run.trace_dir);
	ASSERT_STREQ("", files);
	free(files);
	files = listing(run.profile_dir);
	ASSERT_STREQ("profile.0.0.0 profile.0.0.1 profile.0.0.2", files);
	free(files);
	traced_run_free(&run);
}

TEST(utrace_forked_child_writes_its_own_file)
{
	struct traced_run run;
	struct rd_trace t, c;
	char err[512] = "", want[128], child_path[4300], *story, *names;
	uint64_t lost;

	ASSERT_EQ(0, run_traced(&run, "prog-traced", "fork", NULL, NULL));
	ASSERT_EQ(3, run.r.status);
	ASSERT_STREQ("", run.r.err);
	ASSERT_TRUE(run.child > 0 && run.child != run.pid);
	snprintf(want, sizeof(want), "ktau-utrace.%d.ktt ktau-utrace.%d.ktt",
		 run.pid < run.child ? run.pid : run.child,
		 run.pid < run.child ? run.child : run.pid);
	story = listing(run.trace_dir);
	ASSERT_STREQ(want, story);
	free(story);

	/* the parent's file: its own events once, the child's not */
	if (rd_load(run.path, &t, err, sizeof(err)))
		FAIL("parent: %s", err);
	check_traced_threads(&t, (uint32_t)run.pid, err, sizeof(err));
	ASSERT_STREQ("", err);
	ASSERT_EQ(4 + 2 * WORKER_EVENTS, t.nr_events);
	names = rd_sorted_names(&t);
	ASSERT_STREQ("inner,main,setup,step,worker 0,worker 1", names);
	free(names);

	/* the child's: a stream of its own, its one thread charged to its pid */
	snprintf(child_path, sizeof(child_path), "%s/ktau-utrace.%d.ktt", run.trace_dir,
		 run.child);
	if (rd_load(child_path, &c, err, sizeof(err)))
		FAIL("child: %s", err);
	ASSERT_STREQ("KTAUTRC1", c.magic);
	ASSERT_EQ_U64(2899999, c.tsc_khz);
	ASSERT_TRUE(c.tsc > t.tsc);		/* its anchors are its own */
	ASSERT_EQ(2, c.nr_events);
	story = rd_story(&c, (uint32_t)run.child, err, sizeof(err));
	ASSERT_NOT_NULL(story);
	ASSERT_STREQ("+child -child", story);
	free(story);
	ASSERT_EQ(1, rd_chunks_of(&c, (uint32_t)run.child, &lost));
	ASSERT_EQ_U64(0, lost);
	ASSERT_TRUE(rd_user_chunks_well_formed(&c));
	names = rd_sorted_names(&c);
	ASSERT_STREQ("child", names);
	free(names);
	rd_free(&t);
	rd_free(&c);
	traced_run_free(&run);
}

TEST(utrace_write_failure_is_cut_off_and_counted_as_lost)
{
	char *extra[] = { "KTAU_TRACE_BUFFER=1", NULL };
	struct rlimit small = { 0, RLIM_INFINITY };
	struct traced_run run;
	struct rd_trace t;
	char err[512] = "";
	uint64_t lost;
	size_t i;

	/* room for the header and two full chunks: the rest fails with EFBIG
	 * (SIGXFSZ ignored), except the small lost-only and names chunks */
	ASSERT_EQ(0, getrlimit(RLIMIT_FSIZE, &small));
	small.rlim_cur = 64 + 2 * 1024 + 512;
	signal(SIGXFSZ, SIG_IGN);
	ASSERT_EQ(0, setrlimit(RLIMIT_FSIZE, &small));
	ASSERT_EQ(0, run_traced(&run, "prog-traced", NULL, NULL, extra));
	ASSERT_EQ(3, run.r.status);
	ASSERT_EQ(1, count(run.r.err, "ktau: "));
	ASSERT_CONTAINS(run.r.err, "ktau: could not write the trace to ");
	ASSERT_CONTAINS(run.r.err, " (File too large): its events are lost from there on\n");
	if (rd_load(run.path, &t, err, sizeof(err)))
		FAIL("%s", err);	/* still a whole stream */
	ASSERT_TRUE(t.nr_events < 4 + 2 * WORKER_EVENTS);
	/* every event is in the file or counted as lost; a chunk of events
	 * says its thread's earlier losses, a chunk of none (a thread's last
	 * chunk failed) cannot say whose */
	for (i = 0, lost = 0; i < t.nr_chunks; i++) {
		lost += t.chunks[i].lost;
		ASSERT_TRUE(t.chunks[i].kind != 2 || t.chunks[i].count || t.chunks[i].lost);
	}
	ASSERT_EQ_U64(4 + 2 * WORKER_EVENTS, t.nr_events + lost);
	ASSERT_TRUE(lost > 0);
	ASSERT_EQ(1, t.nr_names_chunks);
	rd_free(&t);
	traced_run_free(&run);
}

TEST(utrace_instrumented_functions_and_preload)
{
	const char *libdir = getenv("LIBKTAU_LIBDIR");
	struct traced_run run;
	struct rd_trace t;
	char err[512] = "", lib[4200], *story, want[1024];
	int i;

	ASSERT_EQ(0, run_traced(&run, "prog-instrumented", NULL, NULL, NULL));
	ASSERT_EQ(0, run.r.status);
	ASSERT_STREQ("", run.r.err);
	/* it prints no pid: its file is the only one */
	story = listing(run.trace_dir);
	ASSERT_EQ(0, count(story, " "));
	snprintf(run.path, sizeof(run.path), "%s/%s", run.trace_dir, story);
	free(story);
	if (rd_load(run.path, &t, err, sizeof(err)))
		FAIL("%s", err);
	ASSERT_TRUE(t.nr_events > 0);
	story = rd_story(&t, t.events[0].tid, err, sizeof(err));
	ASSERT_NOT_NULL(story);
	strcpy(want, "+main +work");
	for (i = 0; i < 10; i++)
		strcat(want, " +leaf -leaf");
	strcat(want, " -work");
	for (i = 0; i < 3; i++)
		strcat(want, " +recurse +recurse +recurse -recurse -recurse -recurse");
	strcat(want, " -main");
	ASSERT_STREQ(want, story);
	free(story);
	rd_free(&t);
	traced_run_free(&run);

	/* preloaded: ".TAU application", still running at exit, has no EXIT */
	ASSERT_NOT_NULL(libdir);
	snprintf(lib, sizeof(lib), "%s/libktau-prof.so.1", libdir);
	ASSERT_EQ(0, run_traced(&run, "prog-plain", NULL, lib, NULL));
	ASSERT_EQ(0, run.r.status);
	story = listing(run.trace_dir);
	snprintf(run.path, sizeof(run.path), "%s/%s", run.trace_dir, story);
	free(story);
	if (rd_load(run.path, &t, err, sizeof(err)))
		FAIL("%s", err);
	ASSERT_EQ(1, t.nr_events);
	ASSERT_EQ(1, t.events[0].type);
	ASSERT_STREQ(".TAU application", rd_name(&t, t.events[0].data, err, sizeof(err)));
	rd_free(&t);
	traced_run_free(&run);
}

/* ---- the library itself, sanitized: in a child of the test ---- */

static void *traced_thread(void *arg)
{
	struct ktau_timer *t = ktau_timer_get(arg, NULL);

	for (int i = 0; i < 40; i++) {
		ktau_timer_start(t);
		ktau_timer_stop(t);
	}
	return NULL;
}

static __attribute__((noinline)) int probe_traced(int x)
{
	return x + 1;
}

/* In a forked child: traced timers, hooks and a thread, 1 KiB buffers. */
static int traced_in_process(const char *dir)
{
	struct ktau_timer *outer;
	pthread_t th;

	setenv("KTAU_TRACE", "1", 1);
	setenv("KTAU_TRACE_DIR", dir, 1);
	setenv("KTAU_TRACE_BUFFER", "1", 1);
	setenv("KTAU_PROFILE_DIR", dir, 1);
	setenv("KTAU_KERNEL_MERGE", "0", 1);
	outer = ktau_timer_get("outer", NULL);
	if (ktau_timer_start(outer))
		return 1;
	__cyg_profile_func_enter((void *)probe_traced, NULL);
	__cyg_profile_func_exit((void *)probe_traced, NULL);
	if (ktau_timer_stop(ktau_timer_get("not running", NULL)) != -EINVAL)
		return 2;	/* a refused stop is no event */
	if (pthread_create(&th, NULL, traced_thread, "thread") || pthread_join(th, NULL))
		return 3;
	return ktau_timer_stop(outer) ? 4 : 0;
}

TEST(utrace_in_process_sanitized)
{
	char *dir = make_tmpdir(), path[4300], err[512] = "", *story, want[2048];
	struct rd_trace t;
	uint32_t tid;
	int status, i;
	pid_t pid;

	ASSERT_NOT_NULL(dir);
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		exit(traced_in_process(dir));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	snprintf(path, sizeof(path), "%s/ktau-utrace.%d.ktt", dir, (int)pid);
	if (rd_load(path, &t, err, sizeof(err)))
		FAIL("%s", err);
	story = rd_story(&t, (uint32_t)pid, err, sizeof(err));
	ASSERT_NOT_NULL(story);
	ASSERT_STREQ("+outer +probe_traced -probe_traced -outer", story);
	free(story);
	ASSERT_EQ(1, other_tids(&t, (uint32_t)pid, &tid, 1));
	story = rd_story(&t, tid, err, sizeof(err));
	ASSERT_NOT_NULL(story);
	*want = '\0';
	for (i = 0; i < 40; i++)
		strcat(want, i ? " +thread -thread" : "+thread -thread");
	ASSERT_STREQ(want, story);
	free(story);
	story = rd_sorted_names(&t);
	ASSERT_STREQ("outer,probe_traced,thread", story);
	free(story);
	rd_free(&t);
	remove_tree(dir);
	free(dir);
}
