// SPDX-License-Identifier: GPL-2.0-or-later
/* The trace reader, the per-thread rebuild and the trace-event JSON. */
#define _GNU_SOURCE	/* open_memstream */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ktau.h>

#include "harness.h"
#include "json_check.h"
#include "testutil.h"
#include "trace_gen.h"

/* The generator's stream in a temporary file (seekable: the pre-scan). */
static char *gen_file(const struct tgen *g)
{
	char *dir = make_tmpdir(), *path;

	if (!dir)
		return NULL;
	path = malloc(strlen(dir) + 16);
	if (path) {
		sprintf(path, "%s/t.ktt", dir);
		if (tg_write(g, path)) {
			free(path);
			path = NULL;
		}
	}
	free(dir);
	return path;
}

static void drop_file(char *path)
{
	char *slash;

	if (!path)
		return;
	unlink(path);
	slash = strrchr(path, '/');
	*slash = '\0';
	rmdir(path);
	free(path);
}

static struct ktau_trace *open_path(const char *path)
{
	KTAU_OPTS(ktau_load_opts, lo, .path = path);

	return ktau_trace_open(&lo, test_err());
}

static struct ktau_trace *open_stream(FILE *f)
{
	KTAU_OPTS(ktau_load_opts, lo, .stream = f);

	return ktau_trace_open(&lo, test_err());
}

/* The stream gen() makes, opened from a temporary file (gone once open). */
static struct ktau_trace *gen_open_file(void (*gen)(struct tgen *))
{
	struct tgen g = { 0 };
	struct ktau_trace *t;
	char *path;

	gen(&g);
	path = gen_file(&g);
	tg_free(&g);
	if (!path)
		return NULL;
	t = open_path(path);
	drop_file(path);
	return t;
}

/* Reads every event; the count, or -errno of the failure (error in last_err()). */
static long count_events(struct ktau_trace *t)
{
	const struct ktau_trace_event *ev;
	long n = 0;
	int ret;

	while ((ret = ktau_trace_next(t, &ev, test_err())) > 0)
		n++;
	return ret < 0 ? ret : n;
}

TEST(trace_header_and_events_in_stream_order)
{
	const struct ktau_trace_event *ev;
	struct ktau_trace *t;
	uint64_t tsc, rt, mono;

	t = gen_open_file(tg_sample);
	ASSERT_NOT_NULL(t);
	ASSERT_EQ(1, ktau_trace_version(t));
	ASSERT_EQ(2, ktau_trace_nr_cpus(t));
	ASSERT_EQ_U64(1000, ktau_trace_tsc_khz(t));
	ktau_trace_clock(t, &tsc, &rt, &mono);
	ASSERT_EQ_U64(1000, tsc);
	ASSERT_EQ_U64(2000, rt);
	ASSERT_EQ_U64(3000, mono);
	/* the first event: CPU 1's EXIT of schedule_vol */
	ASSERT_EQ(1, ktau_trace_next(t, &ev, test_err()));
	ASSERT_EQ(KTAU_TRACE_EXIT, ev->type);
	ASSERT_EQ(KTAU_TRACE_KERNEL, ev->origin);
	ASSERT_EQ_U64(40, ev->tsc);
	ASSERT_EQ(100, ev->tid);
	ASSERT_EQ(471, ev->data);
	ASSERT_EQ(1, ev->cpu);
	ASSERT_NULL(ev->comm);
	/* the file's names are known before their chunk is reached */
	ASSERT_STREQ("schedule_vol", ktau_trace_name(t, KTAU_TRACE_KERNEL, 0, 471));
	ASSERT_STREQ("sched", ktau_trace_group(t, KTAU_TRACE_KERNEL, 0, 471));
	ASSERT_STREQ("io", ktau_trace_name(t, KTAU_TRACE_USER, 1, 2));
	ASSERT_STREQ("user", ktau_trace_group(t, KTAU_TRACE_USER, 1, 2));
	ASSERT_NULL(ktau_trace_name(t, KTAU_TRACE_USER, 2, 2));
	ASSERT_EQ(ENOENT, errno);
	ASSERT_NULL(ktau_trace_name(t, KTAU_TRACE_KERNEL, 0, 9999));
	/* and so are the lost totals */
	ASSERT_EQ_U64(3, ktau_trace_lost(t, 0));
	ASSERT_EQ_U64(7, ktau_trace_lost(t, 1));
	ASSERT_EQ_U64(0, ktau_trace_lost(t, 2));
	ASSERT_EQ_U64(4, ktau_trace_lost_user(t));
	ASSERT_EQ(23, count_events(t));
	ktau_trace_close(t);
}

TEST(trace_two_unit_events_and_user_events)
{
	struct tgen g = { 0 };
	const struct ktau_trace_event *ev;
	struct ktau_trace *t;
	FILE *f;
	int tasks = 0, user = 0, total = 0, ret;

	tg_sample(&g);
	f = tg_stream(&g);
	ASSERT_NOT_NULL(f);
	t = open_stream(f);
	ASSERT_NOT_NULL(t);
	/* not a file: nothing is known before its chunk */
	ASSERT_EQ_U64(0, ktau_trace_lost(t, 0));
	ASSERT_NULL(ktau_trace_name(t, KTAU_TRACE_KERNEL, 0, 471));
	while ((ret = ktau_trace_next(t, &ev, test_err())) > 0) {
		total++;
		if (ev->type == KTAU_TRACE_TASK) {
			ASSERT_STREQ(tasks ? "worker" : "app", ev->comm);
			ASSERT_EQ(100, ev->data);
			ASSERT_EQ(0, ev->cpu);
			tasks++;
		}
		if (ev->origin == KTAU_TRACE_USER) {
			ASSERT_EQ(0xffff, ev->cpu);
			ASSERT_EQ(1, ev->source);
			ASSERT_EQ(100, ev->tid);
			user++;
		}
		if (ev->type == KTAU_TRACE_CONTEXT)
			ASSERT_EQ(7, ev->data);
	}
	ASSERT_EQ(0, ret);
	ASSERT_EQ(24, total);
	ASSERT_EQ(2, tasks);
	ASSERT_EQ(4, user);
	/* the end stays the end */
	ASSERT_EQ(0, ktau_trace_next(t, &ev, test_err()));
	ASSERT_EQ_U64(3, ktau_trace_lost(t, 0));
	ASSERT_EQ_U64(7, ktau_trace_lost(t, 1));
	ASSERT_EQ_U64(4, ktau_trace_lost_user(t));
	ASSERT_STREQ("NET_RX", ktau_trace_name(t, KTAU_TRACE_KERNEL, 0, 301));
	ASSERT_STREQ("main", ktau_trace_name(t, KTAU_TRACE_USER, 1, 1));
	ktau_trace_close(t);
	fclose(f);
	tg_free(&g);
}

/* One malformed stream: the error code and a word of the message. */
struct bad_case {
	const char *what;
	int code;
	const char *message;
};

static int open_and_read(const struct tgen *g)
{
	FILE *f = tg_stream(g);
	struct ktau_trace *t;
	long n;

	if (!f)
		return -ENOMEM;
	t = open_stream(f);
	if (!t) {
		int e = -errno;

		fclose(f);
		return e;
	}
	n = count_events(t);
	ktau_trace_close(t);
	fclose(f);
	return n < 0 ? (int)n : 0;
}

/* Whether reading g fails with code, a message holding msg and (when
 * line is not 0) that line; g is freed. */
static int tally_stream(const struct tgen *g, size_t piece, struct ktau_trace_tally **out);
static int is_bad_stream(struct tgen *g, int code, const char *msg, unsigned int line);

/*
 * The tally (ktau-trace's, of a stream as written) refuses g's stream as
 * the reader does, fed whole and a byte at a time: code and a message
 * holding msg.
 */
static int tally_refuses(const struct tgen *g, int code, const char *msg)
{
	int whole = tally_stream(g, g->len ? g->len : 1, NULL);
	char first[256];
	int bytes;

	snprintf(first, sizeof(first), "%s", ERR_MSG);
	bytes = tally_stream(g, 1, NULL);
	if (whole == code && bytes == code && strstr(first, msg) && strstr(ERR_MSG, msg))
		return 1;
	fprintf(stderr, "tally whole: %d '%s'; a byte at a time: %d '%s'\n", whole, first,
		bytes, ERR_MSG);
	return 0;
}

/* Reader and tally refuse g's stream alike (a structural fault). */
static int is_bad_both(struct tgen *g, int code, const char *msg)
{
	if (!tally_refuses(g, code, msg)) {
		tg_free(g);
		return 0;
	}
	return is_bad_stream(g, code, msg, 0);
}

static int is_bad_stream(struct tgen *g, int code, const char *msg, unsigned int line)
{
	int ret = open_and_read(g);

	tg_free(g);
	if (ret == code && strstr(ERR_MSG, msg) && (!line || ERR_LINE == line))
		return 1;
	fprintf(stderr, "got %d, line %u: %s\n", ret, ERR_LINE, ERR_MSG);
	return 0;
}

TEST(trace_rejects_malformed_streams_precisely)
{
	struct tgen g = { 0 };

	/* bad magic */
	tg_bytes(&g, "KTAUTRC2", 8);
	tg_bytes(&g, "\1\0\0\0@\0\0\0\20\0\0\0\1\0\0\0", 16);
	tg_bytes(&g, "........................................", 40);
	ASSERT_TRUE(is_bad_both(&g, -EPROTO, "not a ktau trace"));
	/* another version (1 and 2 are read) */
	tg_header(&g, 3, 16, 1, 1000);
	ASSERT_TRUE(is_bad_both(&g, -EPROTONOSUPPORT, "trace format version 3 is not "
				"supported (this library reads 1 to 2)"));
	tg_header(&g, 0, 16, 1, 1000);
	ASSERT_TRUE(is_bad_both(&g, -EPROTONOSUPPORT, "trace format version 0"));
	/* another unit size */
	tg_header(&g, 1, 32, 1, 1000);
	ASSERT_TRUE(is_bad_both(&g, -EPROTO, "unit_size 32"));
	/* a header cut short */
	tg_header(&g, 1, 16, 1, 1000);
	g.len = 40;
	ASSERT_TRUE(is_bad_stream(&g, -EPROTO, "truncated", 0));
	/* a chunk's magic, at offset 64 + 16 + 16 */
	tg_header(&g, 1, 16, 1, 1000);
	tg_chunk(&g, TG_KERNEL, 0, 0, 1, 0);
	tg_event(&g, TG_ENTRY, 1, 1, 0);
	tg_bytes(&g, "XY", 2);
	tg_bytes(&g, "\1\0\0\0\0\0\0\0\0\0\0\0\0\0", 14);
	ASSERT_TRUE(is_bad_both(&g, -EPROTO, "chunk at offset 96: bad magic 0x5958"));
	/* a chunk that says more units than the stream has */
	tg_header(&g, 1, 16, 1, 1000);
	tg_chunk(&g, TG_KERNEL, 0, 0, 3, 0);
	tg_event(&g, TG_ENTRY, 1, 1, 0);
	tg_event(&g, TG_EXIT, 2, 1, 0);
	ASSERT_TRUE(is_bad_stream(&g, -EPROTO, "chunk at offset 64 says 3 units, the stream ends after 2", 0));
	/* a TASK whose comm would be past its chunk */
	tg_header(&g, 1, 16, 1, 1000);
	tg_chunk(&g, TG_KERNEL, 0, 0, 1, 0);
	tg_event(&g, TG_TASK, 1, 1, 1);
	tg_chunk(&g, TG_KERNEL, 0, 0, 0, 0);
	ASSERT_TRUE(is_bad_both(&g, -EPROTO, "event at offset 80: TASK without its comm unit"));
	/* an EXEC whose comm the stream lost */
	tg_header(&g, 1, 16, 1, 1000);
	tg_chunk(&g, TG_KERNEL, 0, 0, 2, 0);
	tg_event(&g, TG_EXEC, 1, 1, 1);
	ASSERT_TRUE(is_bad_stream(&g, -EPROTO, "comm unit", 0));
	/* an event type the format does not have */
	tg_header(&g, 2, 16, 1, 1000);
	tg_chunk(&g, TG_KERNEL, 0, 0, 1, 0);
	tg_event(&g, 8, 1, 1, 1);
	ASSERT_TRUE(is_bad_both(&g, -EPROTO, "event at offset 80: unknown type 8"));
	tg_header(&g, 2, 16, 1, 1000);
	tg_chunk(&g, TG_KERNEL, 0, 0, 1, 0);
	tg_event(&g, 0, 1, 1, 1);
	ASSERT_TRUE(is_bad_both(&g, -EPROTO, "event at offset 80: unknown type 0"));
	/* a kernel chunk of a CPU the header does not have */
	tg_header(&g, 1, 16, 2, 1000);
	tg_chunk(&g, TG_KERNEL, 2, 0, 0, 1);
	ASSERT_TRUE(is_bad_both(&g, -EPROTO, "cpu 2, but the header says nr_cpus 2"));
	/* half a chunk header */
	tg_header(&g, 1, 16, 1, 1000);
	tg_bytes(&g, "KT\1\0", 4);
	ASSERT_TRUE(is_bad_stream(&g, -EPROTO, "inside a chunk header at offset 64", 0));
	/* a kernel names chunk that is not a function map */
	tg_header(&g, 1, 16, 1, 1000);
	tg_names(&g, 0, 0, "ktau-functions 1\ncolumns fid group name\n4294967296 syscall read\n");
	ASSERT_TRUE(is_bad_stream(&g, -EPROTO, "names chunk at offset 64: function id 4294967296 out of range", 3));
	/* user names that are not "ID NAME" lines */
	tg_header(&g, 1, 16, 1, 1000);
	tg_names(&g, 1, 4, "1 main\nmain\n");
	ASSERT_TRUE(is_bad_stream(&g, -EPROTO, "expected 'ID NAME'", 2));
}

TEST(trace_open_errors)
{
	struct tgen g = { 0 };
	char *path;

	ASSERT_NULL(open_path("/nonexistent/t.ktt"));
	ASSERT_EQ(-ENOENT, ERR_CODE);
	ASSERT_CONTAINS(ERR_MSG, "/nonexistent/t.ktt");
	ASSERT_NULL(ktau_trace_open(NULL, test_err()));
	ASSERT_EQ(-EINVAL, ERR_CODE);
	{
		KTAU_OPTS(ktau_load_opts, both, .path = "x", .stream = stdin);

		ASSERT_NULL(ktau_trace_open(&both, test_err()));
		ASSERT_EQ(-EINVAL, ERR_CODE);
	}
	/* an empty file */
	path = gen_file(&g);
	ASSERT_NOT_NULL(path);
	ASSERT_NULL(open_path(path));
	drop_file(path);
	ASSERT_EQ(-EPROTO, ERR_CODE);
	ASSERT_CONTAINS(ERR_MSG, "empty input");
	/* a header only is an empty trace */
	tg_header(&g, 1, 16, 4, 0);
	path = gen_file(&g);
	tg_free(&g);
	ASSERT_NOT_NULL(path);
	{
		struct ktau_trace *t = open_path(path);
		struct ktau_trace_timeline *tl;

		drop_file(path);
		ASSERT_NOT_NULL(t);
		tl = ktau_trace_timeline(t, test_err());
		ktau_trace_close(t);
		ASSERT_NOT_NULL(tl);
		ASSERT_EQ(0, ktau_trace_timeline_thread_count(tl));
		ASSERT_NULL(ktau_trace_timeline_thread(tl, 0));
		ASSERT_EQ(ERANGE, errno);
		/* no tsc_khz: no time stamps to write */
		ASSERT_EQ(-EINVAL, ktau_trace_timeline_write_json(tl, stdout));
		ktau_trace_timeline_free(tl);
	}
}

/* The slice at index i: its name, depth, begin, end, flags, parent. */
static int slice_is(const struct ktau_trace_thread *th, size_t i, const char *name,
		    unsigned int depth, uint64_t begin, uint64_t end, unsigned int flags,
		    size_t parent)
{
	const struct ktau_trace_slice *s = ktau_trace_thread_slice(th, i);

	if (!s) {
		fprintf(stderr, "no slice %zu\n", i);
		return 0;
	}
	if (strcmp(s->name, name) || s->depth != depth || s->begin != begin ||
	    s->end != end || s->flags != flags || s->parent != parent) {
		fprintf(stderr, "slice %zu: %s depth %u [%llu, %llu] flags %u parent %zu\n",
			i, s->name, s->depth, (unsigned long long)s->begin,
			(unsigned long long)s->end, s->flags, s->parent);
		return 0;
	}
	return 1;
}

/* The timeline of the stream gen() makes, read from a file or a stream. */
static struct ktau_trace_timeline *gen_timeline(void (*gen)(struct tgen *), int from_file)
{
	struct tgen g = { 0 };
	struct ktau_trace_timeline *tl = NULL;
	struct ktau_trace *t;
	char *path = NULL;
	FILE *f = NULL;

	gen(&g);
	if (from_file) {
		path = gen_file(&g);
		t = path ? open_path(path) : NULL;
	} else {
		f = tg_stream(&g);
		t = f ? open_stream(f) : NULL;
	}
	if (t)
		tl = ktau_trace_timeline(t, test_err());
	ktau_trace_close(t);
	if (f)
		fclose(f);
	drop_file(path);
	tg_free(&g);
	return tl;
}

static struct ktau_trace_timeline *sample_timeline(int from_file)
{
	return gen_timeline(tg_sample, from_file);
}

TEST(trace_timeline_merges_cpus_and_user_into_one_nesting)
{
	const struct ktau_trace_thread *th;
	struct ktau_trace_timeline *tl;
	const struct ktau_trace_slice *s;
	int from_file;

	for (from_file = 0; from_file < 2; from_file++) {
		tl = sample_timeline(from_file);
		ASSERT_NOT_NULL(tl);
		ASSERT_EQ_U64(1000, ktau_trace_timeline_tsc_khz(tl));
		ASSERT_EQ_U64(5, ktau_trace_timeline_first_tsc(tl));
		ASSERT_EQ(2, ktau_trace_timeline_thread_count(tl));
		th = ktau_trace_timeline_thread(tl, 0);
		ASSERT_EQ(100, th->tid);
		ASSERT_EQ(100, th->pid);
		ASSERT_STREQ("app", th->comm);
		ASSERT_EQ_U64(5, th->first_tsc);
		ASSERT_EQ_U64(70, th->last_tsc);
		ASSERT_EQ(7, th->nr_slices);
		ASSERT_TRUE(slice_is(th, 0, "main", 0, 10, 70, 0, KTAU_SLICE_NONE));
		ASSERT_TRUE(slice_is(th, 1, "io", 1, 15, 55, 0, 0));
		ASSERT_TRUE(slice_is(th, 2, "read", 2, 20, 50, 0, 1));
		ASSERT_TRUE(slice_is(th, 3, "schedule_vol", 3, 30, 40, 0, 2));
		ASSERT_TRUE(slice_is(th, 4, "irq", 1, 60, 65, 0, 0));
		ASSERT_TRUE(slice_is(th, 5, "schedule_invol", 1, 66, 68, 0, 0));
		ASSERT_TRUE(slice_is(th, 6, "irq", 2, 67, 67, 0, 5));
		s = ktau_trace_thread_slice(th, 0);
		ASSERT_EQ(KTAU_TRACE_USER, s->origin);
		ASSERT_EQ(1, s->source);
		ASSERT_EQ(1, s->id);
		ASSERT_STREQ("user", s->group);
		s = ktau_trace_thread_slice(th, 2);
		ASSERT_EQ(KTAU_TRACE_KERNEL, s->origin);
		ASSERT_STREQ("syscall", s->group);
		ASSERT_NULL(ktau_trace_thread_slice(th, 7));
		ASSERT_EQ(ERANGE, errno);

		th = ktau_trace_timeline_thread(tl, 1);
		ASSERT_EQ(200, th->tid);
		ASSERT_EQ(100, th->pid);
		ASSERT_STREQ("worker", th->comm);
		ASSERT_EQ(6, th->nr_slices);
		ASSERT_TRUE(slice_is(th, 0, "read", 0, 90, 100, KTAU_SLICE_BEGIN_UNKNOWN,
				     KTAU_SLICE_NONE));
		ASSERT_TRUE(slice_is(th, 1, "page_fault", 1, 92, 100, KTAU_SLICE_END_UNKNOWN, 0));
		ASSERT_TRUE(slice_is(th, 2, "read", 0, 110, 120, 0, KTAU_SLICE_NONE));
		ASSERT_TRUE(slice_is(th, 3, "schedule_invol", 1, 115, 120,
				     KTAU_SLICE_END_UNKNOWN, 2));
		ASSERT_TRUE(slice_is(th, 4, "irq", 2, 116, 120, KTAU_SLICE_END_UNKNOWN, 3));
		ASSERT_TRUE(slice_is(th, 5, "NET_RX", 0, 130, 140, KTAU_SLICE_END_UNKNOWN,
				     KTAU_SLICE_NONE));
		ktau_trace_timeline_free(tl);
	}
}

TEST(trace_timeline_unmatched_exits_nest_below_everything)
{
	struct tgen g = { 0 };
	const struct ktau_trace_thread *th;
	struct ktau_trace_timeline *tl;
	struct ktau_trace *t;
	FILE *f;

	/* two routines open before the trace began (a user main, then a
	 * kernel read inside it), a fault inside read, an unnamed id */
	tg_header(&g, 1, 16, 1, 1000);
	tg_chunk(&g, TG_KERNEL, 0, 0, 4, 0);
	tg_event(&g, TG_ENTRY, 10, 7, 470);
	tg_event(&g, TG_EXIT, 11, 7, 470);
	tg_event(&g, TG_EXIT, 12, 7, 0);
	tg_event(&g, TG_ENTRY, 13, 7, 999);
	tg_chunk(&g, TG_USER, 0xffff, 0, 2, 0);
	tg_event(&g, TG_EXIT, 14, 7, 5);
	tg_event(&g, TG_ENTRY, 15, 7, 6);
	tg_chunk(&g, TG_KERNEL, 0, 0, 1, 0);
	tg_event(&g, TG_TASK_EXIT, 16, 7, 7);
	tg_names(&g, 0, 0, TG_SAMPLE_FUNCTIONS);
	f = tg_stream(&g);
	ASSERT_NOT_NULL(f);
	t = open_stream(f);
	ASSERT_NOT_NULL(t);
	tl = ktau_trace_timeline(t, test_err());
	ktau_trace_close(t);
	fclose(f);
	tg_free(&g);
	ASSERT_NOT_NULL(tl);
	th = ktau_trace_timeline_thread(tl, 0);
	ASSERT_EQ(7, th->tid);
	ASSERT_EQ(0, th->pid);
	ASSERT_STREQ("", th->comm);
	ASSERT_EQ(5, th->nr_slices);
	ASSERT_TRUE(slice_is(th, 0, "user_5", 0, 10, 14, KTAU_SLICE_BEGIN_UNKNOWN,
			     KTAU_SLICE_NONE));
	ASSERT_TRUE(slice_is(th, 1, "read", 1, 10, 12, KTAU_SLICE_BEGIN_UNKNOWN, 0));
	ASSERT_TRUE(slice_is(th, 2, "page_fault", 2, 10, 11, 0, 1));
	/* fid 999 opened after read ended, closed by the user EXIT below it */
	ASSERT_TRUE(slice_is(th, 3, "fid_999", 1, 13, 14, KTAU_SLICE_END_UNKNOWN, 0));
	ASSERT_STREQ("unknown", ktau_trace_thread_slice(th, 3)->group);
	/* the thread exited inside user_6 */
	ASSERT_TRUE(slice_is(th, 4, "user_6", 0, 15, 16, KTAU_SLICE_END_UNKNOWN,
			     KTAU_SLICE_NONE));
	ktau_trace_timeline_free(tl);
}

TEST(trace_timeline_reports_a_bad_stream)
{
	struct tgen g = { 0 };
	struct ktau_trace *t;
	FILE *f;

	tg_header(&g, 1, 16, 1, 1000);
	tg_chunk(&g, TG_KERNEL, 0, 0, 2, 0);
	tg_event(&g, TG_ENTRY, 10, 7, 470);
	f = tg_stream(&g);
	ASSERT_NOT_NULL(f);
	t = open_stream(f);
	ASSERT_NOT_NULL(t);
	ASSERT_NULL(ktau_trace_timeline(t, test_err()));
	ASSERT_EQ(EPROTO, errno);
	ASSERT_CONTAINS(ERR_MSG, "truncated");
	ktau_trace_close(t);
	fclose(f);
	tg_free(&g);
	ASSERT_NULL(ktau_trace_timeline(NULL, test_err()));
	ASSERT_EQ(-EINVAL, ERR_CODE);
}

/* "ts" of a trace event in nanoseconds (three decimals of microseconds). */
static uint64_t ts_ns(const struct json *e)
{
	const char *ts = json_get(e, "ts") ? json_get(e, "ts")->text : NULL;
	unsigned long long us = 0, frac = 0;

	if (!ts || sscanf(ts, "%llu.%3llu", &us, &frac) != 2)
		return UINT64_MAX;
	return us * 1000 + frac;
}

/* A JSON number that is an unsigned integer (2^64-1 included). */
static int is_uint(const struct json *j)
{
	return j && j->type == JSON_NUMBER && j->text[0] &&
	       strspn(j->text, "0123456789") == strlen(j->text);
}

/*
 * Per (pid, tid): B and E balanced and properly nested (an E ends the
 * innermost open B), ts never going back, instant events ("i") thread
 * scoped ("s":"t") with a name, a category and an unsigned integer
 * args.value; the number of B events in *slices, of "i" in *instants.
 * 0 or the index of the first bad event + 1.
 */
static size_t check_trace_events(const struct json *events, size_t *slices,
				 size_t *metadata, size_t *instants)
{
	struct open { uint64_t tid; size_t depth; uint64_t last_ts; } open[8] = { { 0 } };
	size_t nr_open = 0, i, k;

	*slices = *metadata = *instants = 0;
	for (i = 0; i < events->count; i++) {
		const struct json *e = json_at(events, i);
		const char *ph = json_str(json_get(e, "ph"));
		uint64_t tid = json_u64(json_get(e, "tid")), ts;

		if (!ph || tid == UINT64_MAX || json_u64(json_get(e, "pid")) == UINT64_MAX)
			return i + 1;
		if (!strcmp(ph, "M")) {
			(*metadata)++;
			continue;
		}
		ts = ts_ns(e);
		for (k = 0; k < nr_open && open[k].tid != tid; k++)
			;
		if (k == nr_open) {
			if (nr_open == 8)
				return i + 1;
			open[nr_open++] = (struct open){ tid, 0, 0 };
		}
		if (ts == UINT64_MAX || ts < open[k].last_ts)
			return i + 1;
		open[k].last_ts = ts;
		if (!strcmp(ph, "B")) {
			if (!json_str(json_get(e, "name")) || !json_str(json_get(e, "cat")))
				return i + 1;
			open[k].depth++;
			(*slices)++;
		} else if (!strcmp(ph, "E")) {
			if (!open[k].depth)
				return i + 1;
			open[k].depth--;
		} else if (!strcmp(ph, "i")) {
			const char *scope = json_str(json_get(e, "s"));

			if (!json_str(json_get(e, "name")) || !json_str(json_get(e, "cat")) ||
			    !scope || strcmp(scope, "t") ||
			    !is_uint(json_get(json_get(e, "args"), "value")))
				return i + 1;
			(*instants)++;
		} else {
			return i + 1;
		}
	}
	for (k = 0; k < nr_open; k++)
		if (open[k].depth)
			return events->count + 1;
	return 0;
}

TEST(trace_json_is_balanced_nested_and_monotonic)
{
	struct ktau_trace_timeline *tl = sample_timeline(1);
	const struct json *events, *e;
	size_t len = 0, at = 0, slices, metadata, instants;
	struct json *root;
	char *text = NULL;
	FILE *mem;

	ASSERT_NOT_NULL(tl);
	mem = open_memstream(&text, &len);
	ASSERT_NOT_NULL(mem);
	ASSERT_EQ(0, ktau_trace_timeline_write_json(tl, mem));
	fclose(mem);
	ktau_trace_timeline_free(tl);
	root = json_parse(text, &at);
	if (!root) {
		free(text);
		FAIL("not JSON at byte %zu", at);
	}
	events = json_get(root, "traceEvents");
	ASSERT_NOT_NULL(events);
	ASSERT_EQ(0, check_trace_events(events, &slices, &metadata, &instants));
	ASSERT_EQ(13, slices);
	ASSERT_EQ(0, instants);
	ASSERT_EQ(2 * 13 + 3, events->count);
	/* tid 100 is its process's main thread: process and thread names */
	ASSERT_EQ(3, metadata);
	e = json_find(events, "name", "process_name");
	ASSERT_NOT_NULL(e);
	ASSERT_EQ(100, json_u64(json_get(e, "pid")));
	ASSERT_STREQ("app", json_str(json_get(json_get(e, "args"), "name")));
	/* the first slice: main at 10 - 5 cycles = 5 us, a user routine */
	e = json_find(events, "name", "main");
	ASSERT_NOT_NULL(e);
	ASSERT_STREQ("user", json_str(json_get(e, "cat")));
	ASSERT_EQ_U64(5000, ts_ns(e));
	e = json_find(events, "name", "NET_RX");
	ASSERT_NOT_NULL(e);
	ASSERT_STREQ("kernel,softirq", json_str(json_get(e, "cat")));
	ASSERT_EQ(200, json_u64(json_get(e, "tid")));
	ASSERT_EQ(100, json_u64(json_get(e, "pid")));
	ASSERT_STREQ("true", json_get(json_get(e, "args"), "end_unknown")->text);
	json_free(root);
	free(text);
}

TEST(trace_append_user_gives_the_chunks_their_source)
{
	struct tgen user = { 0 }, kernel = { 0 };
	const char *names = TG_SAMPLE_FUNCTIONS;
	struct ktau_trace_timeline *tl;
	const struct ktau_trace_thread *th;
	struct ktau_trace *t;
	char *upath, *text = NULL;
	size_t len = 0;
	FILE *mem, *in;

	/* a user trace file as libktau-prof writes it: source 0 */
	tg_header(&user, 1, 16, 0, 0);
	tg_chunk(&user, TG_USER, 0xffff, 0, 2, 1);
	tg_event(&user, TG_ENTRY, 10, 100, 1);
	tg_event(&user, TG_EXIT, 70, 100, 1);
	tg_chunk(&user, 9, 0, 0, 0, 0);
	tg_names(&user, 1, 0, "1 solve(int, double)\n");
	upath = gen_file(&user);
	tg_free(&user);
	ASSERT_NOT_NULL(upath);
	tg_header(&kernel, 1, 16, 1, 1000);
	tg_chunk(&kernel, TG_KERNEL, 0, 0, 2, 0);
	tg_event(&kernel, TG_ENTRY, 20, 100, 0);
	tg_event(&kernel, TG_EXIT, 30, 100, 0);
	mem = open_memstream(&text, &len);
	ASSERT_NOT_NULL(mem);
	fwrite(kernel.buf, kernel.len, 1, mem);
	tg_free(&kernel);
	ASSERT_EQ(0, ktau_trace_append_names(mem, 0, 0, names, strlen(names)));
	{
		KTAU_OPTS(ktau_load_opts, from, .path = upath);

		ASSERT_EQ(0, ktau_trace_append_user(mem, &from, 3, test_err()));
		ASSERT_EQ(-EINVAL, ktau_trace_append_user(mem, &from, 70000, test_err()));
	}
	drop_file(upath);
	fclose(mem);
	/* header, kernel chunk, names padded to units, user events, user
	 * names (19 bytes: 2 units); the unknown chunk is not copied */
	ASSERT_EQ(64 + 48 + 16 + (strlen(names) + 15) / 16 * 16 + 48 + 48, len);
	in = fmemopen(text, len, "r");
	ASSERT_NOT_NULL(in);
	t = open_stream(in);
	ASSERT_NOT_NULL(t);
	tl = ktau_trace_timeline(t, test_err());
	ASSERT_NOT_NULL(tl);
	ASSERT_EQ_U64(1, ktau_trace_lost_user(t));
	ASSERT_STREQ("solve(int, double)", ktau_trace_name(t, KTAU_TRACE_USER, 3, 1));
	ktau_trace_close(t);
	fclose(in);
	free(text);
	th = ktau_trace_timeline_thread(tl, 0);
	ASSERT_EQ(2, th->nr_slices);
	ASSERT_TRUE(slice_is(th, 0, "solve(int, double)", 0, 10, 70, 0, KTAU_SLICE_NONE));
	ASSERT_EQ(3, ktau_trace_thread_slice(th, 0)->source);
	ASSERT_TRUE(slice_is(th, 1, "read", 1, 20, 30, 0, 0));
	ktau_trace_timeline_free(tl);
}

TEST(trace_append_refuses_bad_input)
{
	struct tgen bad = { 0 };
	char *path;
	FILE *out = fopen("/dev/null", "w");

	ASSERT_NOT_NULL(out);
	ASSERT_EQ(-EINVAL, ktau_trace_append_names(out, 2, 0, "x", 1));
	ASSERT_EQ(-EINVAL, ktau_trace_append_names(out, 0, 1, "x", 1));
	ASSERT_EQ(-EINVAL, ktau_trace_append_names(out, 1, 1, "a\0b", 3));
	ASSERT_EQ(-EINVAL, ktau_trace_append_names(NULL, 1, 1, "x", 1));
	tg_header(&bad, 1, 16, 0, 0);
	tg_chunk(&bad, TG_USER, 0xffff, 0, 2, 0);
	tg_event(&bad, TG_ENTRY, 10, 100, 1);
	path = gen_file(&bad);
	tg_free(&bad);
	ASSERT_NOT_NULL(path);
	{
		KTAU_OPTS(ktau_load_opts, from, .path = path);

		ASSERT_EQ(-EPROTO, ktau_trace_append_user(out, &from, 1, test_err()));
		ASSERT_CONTAINS(ERR_MSG, "truncated");
	}
	drop_file(path);
	{
		KTAU_OPTS(ktau_load_opts, from, .path = "/nonexistent/u.ktt");

		ASSERT_EQ(-ENOENT, ktau_trace_append_user(out, &from, 1, test_err()));
	}
	fclose(out);
}

TEST(control_status_trace_line)
{
	static const char base[] = "ktau-control 1\nstate running\ngroups syscall\n"
				   "available syscall\n";
	char text[512];
	struct ktau_control_status *s;
	uint64_t lost = 99;
	bool on = true;

	snprintf(text, sizeof(text), "%strace on size=1024 tasks=all lost=12 wakeup=50\nend\n", base);
	s = ktau_control_status_parse(text, strlen(text), test_err());
	ASSERT_NOT_NULL(s);
	ASSERT_EQ(0, ktau_control_status_trace(s, &on, &lost));
	ASSERT_TRUE(on);
	ASSERT_EQ_U64(12, lost);
	ktau_control_status_free(s);
	snprintf(text, sizeof(text), "%strace off size=64 tasks=pid\nend\n", base);
	s = ktau_control_status_parse(text, strlen(text), test_err());
	ASSERT_NOT_NULL(s);
	ASSERT_EQ(0, ktau_control_status_trace(s, &on, &lost));
	ASSERT_FALSE(on);
	ASSERT_EQ_U64(0, lost);
	ktau_control_status_free(s);
	snprintf(text, sizeof(text), "%send\n", base);
	s = ktau_control_status_parse(text, strlen(text), test_err());
	ASSERT_NOT_NULL(s);
	ASSERT_EQ(-ENOENT, ktau_control_status_trace(s, &on, NULL));
	ktau_control_status_free(s);
	snprintf(text, sizeof(text), "%strace maybe\nend\n", base);
	ASSERT_NULL(ktau_control_status_parse(text, strlen(text), test_err()));
	ASSERT_EQ(-EPROTO, ERR_CODE);
	ASSERT_EQ(5, ERR_LINE);
	snprintf(text, sizeof(text), "%strace on lost=x\nend\n", base);
	ASSERT_NULL(ktau_control_status_parse(text, strlen(text), test_err()));
	ASSERT_CONTAINS(ERR_MSG, "lost=");
}

/* ---- atomic events (version 2) ---- */

/* Whether reading g fails with code and exactly the message msg; g is freed. */
static int is_bad_exact(struct tgen *g, int code, const char *msg)
{
	int ret = open_and_read(g);

	tg_free(g);
	if (ret == code && !strcmp(ERR_MSG, msg))
		return 1;
	fprintf(stderr, "got %d: '%s'\n", ret, ERR_MSG);
	return 0;
}

TEST(trace_atomic_events_read_back_in_stream_order)
{
	static const struct { unsigned int type; uint64_t tsc; uint32_t tid, data; uint64_t value;
			      unsigned int cpu; } want[] = {
		{ KTAU_TRACE_ENTRY, 40, 100, 1, 0, 1 },
		{ KTAU_TRACE_ATOMIC, 40, 100, 481, 512, 1 },
		{ KTAU_TRACE_EXIT, 50, 100, 1, 0, 1 },
		{ KTAU_TRACE_ATOMIC, 60, 100, 480, 0, 1 },
		{ KTAU_TRACE_ATOMIC, 60, 100, 480, UINT64_MAX, 1 },
		{ KTAU_TRACE_ATOMIC, 80, 200, 999, 7, 1 },
		{ KTAU_TRACE_TASK, 5, 100, 100, 0, 0 },
		{ KTAU_TRACE_ENTRY, 20, 100, 0, 0, 0 },
		{ KTAU_TRACE_ATOMIC, 25, 100, 480, 4096, 0 },
		{ KTAU_TRACE_ATOMIC, 30, 100, 480, 100, 0 },
		{ KTAU_TRACE_EXIT, 30, 100, 0, 0, 0 },
	};
	const struct ktau_trace_event *ev;
	struct ktau_trace *t;
	size_t i;

	ASSERT_EQ(7, KTAU_TRACE_ATOMIC);
	ASSERT_EQ(2, KTAU_TRACE_FORMAT_VERSION);
	t = gen_open_file(tg_sample_atomic);
	ASSERT_NOT_NULL(t);
	ASSERT_EQ(2, ktau_trace_version(t));
	ASSERT_STREQ("read_bytes", ktau_trace_name(t, KTAU_TRACE_KERNEL, 0, 480));
	ASSERT_STREQ("event", ktau_trace_group(t, KTAU_TRACE_KERNEL, 0, 481));
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		ASSERT_EQ(1, ktau_trace_next(t, &ev, test_err()));
		if (ev->type != want[i].type || ev->tsc != want[i].tsc || ev->tid != want[i].tid ||
		    ev->data != want[i].data || ev->value != want[i].value || ev->cpu != want[i].cpu)
			FAIL("event %zu: type %u tsc %llu tid %u data %u value %llu cpu %u", i,
			     ev->type, (unsigned long long)ev->tsc, ev->tid, ev->data,
			     (unsigned long long)ev->value, ev->cpu);
		ASSERT_EQ(KTAU_TRACE_KERNEL, ev->origin);
		if (ev->type == KTAU_TRACE_ATOMIC)
			ASSERT_NULL(ev->comm);
	}
	ASSERT_EQ(0, ktau_trace_next(t, &ev, test_err()));
	ASSERT_EQ_U64(1, ktau_trace_lost(t, 0));
	ktau_trace_close(t);
}

TEST(trace_atomic_malformed_streams)
{
	struct tgen g = { 0 };

	/* a version 1 stream has no type 7 */
	tg_header(&g, 1, 16, 1, 1000);
	tg_chunk(&g, TG_KERNEL, 0, 0, 2, 0);
	tg_atomic(&g, 1, 1, 480, 5);
	ASSERT_TRUE(tally_refuses(&g, -EPROTO, "event at offset 80: unknown type 7 (ATOMIC) "
				  "in a version 1 stream"));
	ASSERT_TRUE(is_bad_exact(&g, -EPROTO, "event at offset 80: unknown type 7 (ATOMIC) "
				 "in a version 1 stream"));
	/* the chunk ends after the event unit */
	tg_header(&g, 2, 16, 1, 1000);
	tg_chunk(&g, TG_KERNEL, 0, 0, 1, 0);
	tg_event(&g, TG_ATOMIC, 1, 1, 480);
	tg_chunk(&g, TG_KERNEL, 0, 0, 0, 0);
	ASSERT_TRUE(tally_refuses(&g, -EPROTO, "event at offset 80: ATOMIC without its value "
				  "unit (the chunk ends)"));
	ASSERT_TRUE(is_bad_exact(&g, -EPROTO, "event at offset 80: ATOMIC without its value "
				 "unit (the chunk ends)"));
	/* the stream ends after the event unit */
	tg_header(&g, 2, 16, 1, 1000);
	tg_chunk(&g, TG_KERNEL, 0, 0, 2, 0);
	tg_event(&g, TG_ATOMIC, 1, 1, 480);
	ASSERT_TRUE(is_bad_exact(&g, -EPROTO, "truncated: the stream ends before the value "
				 "unit of the event at offset 80"));
	/* ... or inside the value unit */
	tg_header(&g, 2, 16, 1, 1000);
	tg_chunk(&g, TG_KERNEL, 0, 0, 2, 0);
	tg_atomic(&g, 1, 1, 480, 5);
	g.len -= 8;
	ASSERT_TRUE(tally_refuses(&g, -EPROTO, "truncated: the stream ends inside the chunk "
				  "at offset 64"));
	ASSERT_TRUE(is_bad_exact(&g, -EPROTO, "truncated: the stream ends inside an event's "
				 "second unit at offset 96"));
	/* the reserved word is not 0 */
	tg_header(&g, 2, 16, 1, 1000);
	tg_chunk(&g, TG_KERNEL, 0, 0, 3, 0);
	tg_event(&g, TG_ENTRY, 1, 1, 0);
	tg_event(&g, TG_ATOMIC, 2, 1, 480);
	tg_value(&g, 5, UINT64_C(0x8000000000000001));
	ASSERT_TRUE(tally_refuses(&g, -EPROTO, "event at offset 96: ATOMIC with reserved "
				  "word 0x8000000000000001 (must be 0)"));
	ASSERT_TRUE(is_bad_exact(&g, -EPROTO, "event at offset 96: ATOMIC with reserved word "
				 "0x8000000000000001 (must be 0)"));
	/* a TASK's comm unit cut the same way says comm */
	tg_header(&g, 2, 16, 1, 1000);
	tg_chunk(&g, TG_KERNEL, 0, 0, 2, 0);
	tg_event(&g, TG_TASK, 1, 1, 1);
	ASSERT_TRUE(is_bad_exact(&g, -EPROTO, "truncated: the stream ends before the comm "
				 "unit of the event at offset 80"));
}

/* The atomic event at index i of th: tsc, id, value, name, group. */
static int atomic_is(const struct ktau_trace_thread *th, size_t i, uint64_t tsc, uint32_t id,
		     uint64_t value, const char *name, const char *group)
{
	const struct ktau_trace_atomic *a = ktau_trace_thread_atomic(th, i);

	if (!a) {
		fprintf(stderr, "no atomic event %zu\n", i);
		return 0;
	}
	if (a->tsc != tsc || a->id != id || a->value != value || strcmp(a->name, name) ||
	    strcmp(a->group, group) || a->origin != KTAU_TRACE_KERNEL || a->source) {
		fprintf(stderr, "atomic %zu: tsc %llu id %u value %llu %s %s origin %u "
			"source %u\n", i, (unsigned long long)a->tsc, a->id,
			(unsigned long long)a->value, a->name, a->group, a->origin, a->source);
		return 0;
	}
	return 1;
}

static struct ktau_trace_timeline *atomic_timeline(int from_file)
{
	return gen_timeline(tg_sample_atomic, from_file);
}

TEST(trace_timeline_atomic_events_per_thread_in_time_order)
{
	const struct ktau_trace_thread *th;
	struct ktau_trace_timeline *tl;
	int from_file;

	for (from_file = 0; from_file < 2; from_file++) {
		tl = atomic_timeline(from_file);
		ASSERT_NOT_NULL(tl);
		ASSERT_EQ_U64(5, ktau_trace_timeline_first_tsc(tl));
		ASSERT_EQ(2, ktau_trace_timeline_thread_count(tl));
		th = ktau_trace_timeline_thread(tl, 0);
		ASSERT_EQ(100, th->tid);
		ASSERT_STREQ("app", th->comm);
		ASSERT_EQ_U64(60, th->last_tsc);
		ASSERT_EQ(2, th->nr_slices);
		ASSERT_TRUE(slice_is(th, 0, "read", 0, 20, 30, 0, KTAU_SLICE_NONE));
		ASSERT_TRUE(slice_is(th, 1, "write", 0, 40, 50, 0, KTAU_SLICE_NONE));
		ASSERT_EQ(5, ktau_trace_thread_atomic_count(th));
		ASSERT_TRUE(atomic_is(th, 0, 25, 480, 4096, "read_bytes", "event"));
		ASSERT_TRUE(atomic_is(th, 1, 30, 480, 100, "read_bytes", "event"));
		ASSERT_TRUE(atomic_is(th, 2, 40, 481, 512, "write_bytes", "event"));
		/* equal stamps: the stream's order */
		ASSERT_TRUE(atomic_is(th, 3, 60, 480, 0, "read_bytes", "event"));
		ASSERT_TRUE(atomic_is(th, 4, 60, 480, UINT64_MAX, "read_bytes", "event"));
		ASSERT_NULL(ktau_trace_thread_atomic(th, 5));
		ASSERT_EQ(ERANGE, errno);
		/* a thread of atomic events only, its id unnamed */
		th = ktau_trace_timeline_thread(tl, 1);
		ASSERT_EQ(200, th->tid);
		ASSERT_EQ(0, th->pid);
		ASSERT_EQ(0, th->nr_slices);
		ASSERT_EQ_U64(80, th->first_tsc);
		ASSERT_EQ_U64(80, th->last_tsc);
		ASSERT_EQ(1, ktau_trace_thread_atomic_count(th));
		ASSERT_TRUE(atomic_is(th, 0, 80, 999, 7, "fid_999", "unknown"));
		ktau_trace_timeline_free(tl);
	}
	/* a version 1 trace: no atomic events */
	tl = sample_timeline(1);
	ASSERT_NOT_NULL(tl);
	ASSERT_EQ(0, ktau_trace_thread_atomic_count(ktau_trace_timeline_thread(tl, 0)));
	ASSERT_NULL(ktau_trace_thread_atomic(ktau_trace_timeline_thread(tl, 0), 0));
	ktau_trace_timeline_free(tl);
}

/* The traceEvents of a timeline's JSON, parsed (root in *root). */
static const struct json *timeline_json(struct ktau_trace_timeline *tl, struct json **root,
					char **text)
{
	size_t len = 0, at = 0;
	FILE *mem = open_memstream(text, &len);

	*root = NULL;
	if (!mem)
		return NULL;
	if (ktau_trace_timeline_write_json(tl, mem)) {
		fclose(mem);
		return NULL;
	}
	fclose(mem);
	*root = json_parse(*text, &at);
	if (!*root)
		fprintf(stderr, "not JSON at byte %zu\n", at);
	return json_get(*root, "traceEvents");
}

TEST(trace_json_atomic_events_are_instants_inside_their_slices)
{
	/* tid 100's events after the metadata, in order: ph, name, ts in ns */
	static const struct { const char *ph, *name; uint64_t ts; } want[] = {
		{ "B", "read", 15000 }, { "i", "read_bytes", 20000 }, { "i", "read_bytes", 25000 },
		{ "E", NULL, 25000 }, { "B", "write", 35000 }, { "i", "write_bytes", 35000 },
		{ "E", NULL, 45000 }, { "i", "read_bytes", 55000 }, { "i", "read_bytes", 55000 },
		{ "i", "fid_999", 75000 },
	};
	static const char *const values[] = { "4096", "100", "512", "0", "18446744073709551615",
					      "7" };
	struct ktau_trace_timeline *tl = atomic_timeline(1);
	const struct json *events, *e;
	size_t slices, metadata, instants, i, k = 0;
	struct json *root;
	char *text = NULL;

	ASSERT_NOT_NULL(tl);
	events = timeline_json(tl, &root, &text);
	ktau_trace_timeline_free(tl);
	free(text);
	ASSERT_NOT_NULL(events);
	ASSERT_EQ(0, check_trace_events(events, &slices, &metadata, &instants));
	ASSERT_EQ(2, slices);
	ASSERT_EQ(6, instants);
	/* both threads are their processes' main threads (200: no pid) */
	ASSERT_EQ(4, metadata);
	ASSERT_EQ(4 + 10, events->count);
	for (i = 0; i < 10; i++) {
		e = json_at(events, 4 + i);
		ASSERT_STREQ(want[i].ph, json_str(json_get(e, "ph")));
		if (want[i].name)
			ASSERT_STREQ(want[i].name, json_str(json_get(e, "name")));
		ASSERT_EQ_U64(want[i].ts, ts_ns(e));
		ASSERT_EQ(i < 9 ? 100 : 200, json_u64(json_get(e, "tid")));
		ASSERT_EQ(i < 9 ? 100 : 200, json_u64(json_get(e, "pid")));
		if (strcmp(want[i].ph, "i"))
			continue;
		ASSERT_STREQ("t", json_str(json_get(e, "s")));
		ASSERT_STREQ(i < 9 ? "kernel,event" : "kernel,unknown",
			     json_str(json_get(e, "cat")));
		ASSERT_EQ(JSON_NUMBER, json_get(json_get(e, "args"), "value")->type);
		ASSERT_STREQ(values[k++], json_get(json_get(e, "args"), "value")->text);
	}
	ASSERT_EQ(6, k);
	json_free(root);
}

TEST(trace_append_user_copies_two_unit_events_whole)
{
	struct tgen user = { 0 };
	const struct ktau_trace_event *ev;
	struct ktau_trace *t;
	char *upath, *text = NULL;
	size_t len = 0;
	FILE *mem, *in;
	int ret, atomics = 0;

	/* a version 2 user trace with an ATOMIC between its events */
	tg_header(&user, 2, 16, 0, 0);
	tg_chunk(&user, TG_USER, 0xffff, 0, 4, 0);
	tg_event(&user, TG_ENTRY, 10, 100, 1);
	tg_atomic(&user, 11, 100, 3, 42);
	tg_event(&user, TG_EXIT, 12, 100, 1);
	upath = gen_file(&user);
	tg_free(&user);
	ASSERT_NOT_NULL(upath);
	mem = open_memstream(&text, &len);
	ASSERT_NOT_NULL(mem);
	tg_header(&user, 2, 16, 1, 1000);
	fwrite(user.buf, user.len, 1, mem);
	tg_free(&user);
	{
		KTAU_OPTS(ktau_load_opts, from, .path = upath);

		ASSERT_EQ(0, ktau_trace_append_user(mem, &from, 1, test_err()));
	}
	drop_file(upath);
	fclose(mem);
	ASSERT_EQ(64 + 16 + 4 * 16, len);
	in = fmemopen(text, len, "r");
	ASSERT_NOT_NULL(in);
	t = open_stream(in);
	ASSERT_NOT_NULL(t);
	while ((ret = ktau_trace_next(t, &ev, test_err())) > 0) {
		ASSERT_EQ(1, ev->source);
		if (ev->type == KTAU_TRACE_ATOMIC) {
			ASSERT_EQ_U64(42, ev->value);
			ASSERT_EQ(3, ev->data);
			atomics++;
		}
	}
	ASSERT_EQ(0, ret);
	ASSERT_EQ(1, atomics);
	ktau_trace_close(t);
	fclose(in);
	free(text);
}

/* ---- the tally of a stream as written ---- */

/*
 * Feeds g's stream to a new tally in pieces of piece bytes, then ends it:
 * 0 or the first error (in last_err()); the tally in *out (freed by the
 * caller) when out is not NULL.
 */
static int tally_stream(const struct tgen *g, size_t piece, struct ktau_trace_tally **out)
{
	struct ktau_trace_tally *t = ktau_trace_tally_new(test_err());
	size_t off = 0;
	int ret = 0;

	if (!t)
		return -ENOMEM;
	while (!ret && off < g->len) {
		size_t n = g->len - off < piece ? g->len - off : piece;

		ret = ktau_trace_tally_feed(t, g->buf + off, n, test_err());
		off += n;
	}
	if (!ret)
		ret = ktau_trace_tally_end(t, test_err());
	if (out)
		*out = t;
	else
		ktau_trace_tally_free(t);
	return ret;
}

/* The reader's counts of the stream gen() makes, from a file. */
static int reader_counts(void (*gen)(struct tgen *), uint64_t *events, uint64_t *user,
			 uint64_t *lost, uint64_t *lost_user)
{
	struct ktau_trace *t = gen_open_file(gen);
	const struct ktau_trace_event *ev;
	unsigned int cpu;
	int ret;

	if (!t)
		return -1;
	*events = *user = *lost = 0;
	while ((ret = ktau_trace_next(t, &ev, test_err())) > 0) {
		(*events)++;
		*user += ev->origin == KTAU_TRACE_USER;
	}
	for (cpu = 0; cpu < ktau_trace_nr_cpus(t); cpu++)
		*lost += ktau_trace_lost(t, cpu);
	*lost_user = ktau_trace_lost_user(t);
	ktau_trace_close(t);
	return ret;
}

TEST(trace_tally_counts_what_the_reader_reads_in_pieces_of_any_size)
{
	void (*gens[])(struct tgen *) = { tg_sample, tg_sample_atomic };
	/* the samples' documented figures: events, user events, lost, lost user */
	static const uint64_t want[][4] = { { 24, 0, 10, 4 }, { 11, 0, 1, 0 } };
	size_t i, piece;

	for (i = 0; i < 2; i++) {
		uint64_t events, user, lost, lost_user;
		struct tgen g = { 0 };

		ASSERT_EQ(0, reader_counts(gens[i], &events, &user, &lost, &lost_user));
		ASSERT_EQ_U64(want[i][0], events);
		ASSERT_EQ_U64(want[i][2], lost);
		ASSERT_EQ_U64(want[i][3], lost_user);
		gens[i](&g);
		for (piece = 1; piece <= g.len; piece += piece < 40 ? 1 : 37) {
			struct ktau_trace_tally *t;

			ASSERT_EQ(0, tally_stream(&g, piece, &t));
			ASSERT_EQ_U64(events - user, ktau_trace_tally_events(t, KTAU_TRACE_KERNEL));
			ASSERT_EQ_U64(user, ktau_trace_tally_events(t, KTAU_TRACE_USER));
			ASSERT_EQ_U64(lost, ktau_trace_tally_lost(t, KTAU_TRACE_KERNEL));
			ASSERT_EQ_U64(lost_user, ktau_trace_tally_lost(t, KTAU_TRACE_USER));
			ktau_trace_tally_free(t);
		}
		tg_free(&g);
	}
}

TEST(trace_tally_counts_user_events_and_skips_a_longer_header)
{
	static const unsigned char extension[16] = { 0xff, 0xfe };
	struct ktau_trace_tally *t;
	struct tgen g = { 0 };

	/* a later version's 80-byte header: its last 16 bytes are skipped */
	tg_header(&g, 2, 16, 1, 1000);
	g.buf[12] = 80;
	tg_bytes(&g, extension, sizeof(extension));
	tg_chunk(&g, TG_USER, 0xffff, 1, 3, 2);
	tg_event(&g, TG_ENTRY, 1, 7, 1);
	tg_event(&g, TG_TASK, 2, 7, 7);
	tg_comm(&g, "app");
	tg_chunk(&g, TG_KERNEL, 0, 0, 1, 0);
	tg_event(&g, TG_EXIT, 3, 7, 0);
	ASSERT_EQ(0, tally_stream(&g, 5, &t));
	ASSERT_EQ_U64(2, ktau_trace_tally_events(t, KTAU_TRACE_USER));
	ASSERT_EQ_U64(1, ktau_trace_tally_events(t, KTAU_TRACE_KERNEL));
	ASSERT_EQ_U64(2, ktau_trace_tally_lost(t, KTAU_TRACE_USER));
	ASSERT_EQ_U64(0, ktau_trace_tally_lost(t, KTAU_TRACE_KERNEL));
	/* no such origin */
	ASSERT_EQ_U64(0, ktau_trace_tally_events(t, 0));
	ASSERT_EQ_U64(0, ktau_trace_tally_lost(t, 3));
	ktau_trace_tally_free(t);
	/* cut inside the extension */
	g.len = 70;
	ASSERT_EQ(-EPROTO, tally_stream(&g, 64, NULL));
	ASSERT_STREQ("truncated: the stream ends inside the stream header at offset 70",
		     ERR_MSG);
	tg_free(&g);
}

/* What only the tally words its own way: where a stream stops short. */
TEST(trace_tally_says_where_a_stream_stops_short)
{
	struct tgen g = { 0 };

	ASSERT_TRUE(tally_refuses(&g, -EPROTO, "empty input: not a ktau trace"));
	tg_header(&g, 1, 16, 1, 1000);
	g.len = 40;
	ASSERT_TRUE(tally_refuses(&g, -EPROTO, "truncated: the stream ends inside the stream "
				  "header at offset 40"));
	tg_free(&g);
	/* more units said than the stream has */
	tg_header(&g, 1, 16, 1, 1000);
	tg_chunk(&g, TG_KERNEL, 0, 0, 3, 0);
	tg_event(&g, TG_ENTRY, 1, 1, 0);
	tg_event(&g, TG_EXIT, 2, 1, 0);
	ASSERT_TRUE(tally_refuses(&g, -EPROTO, "truncated: the stream ends inside the chunk "
				  "at offset 64"));
	tg_free(&g);
	/* half a chunk header */
	tg_header(&g, 1, 16, 1, 1000);
	tg_bytes(&g, "KT\1\0", 4);
	ASSERT_TRUE(tally_refuses(&g, -EPROTO, "truncated: the stream ends inside a chunk "
				  "header at offset 64"));
	tg_free(&g);
}

TEST(trace_tally_keeps_its_first_error_and_checks_arguments)
{
	struct ktau_trace_tally *t = ktau_trace_tally_new(test_err());
	struct tgen bad = { 0 }, good = { 0 };

	ASSERT_NOT_NULL(t);
	tg_header(&bad, 1, 32, 1, 1000);
	tg_sample(&good);
	ASSERT_EQ(-EPROTO, ktau_trace_tally_feed(t, bad.buf, bad.len, test_err()));
	/* a good stream after it changes nothing */
	ASSERT_EQ(-EPROTO, ktau_trace_tally_feed(t, good.buf, good.len, test_err()));
	ASSERT_STREQ("unit_size 32, expected 16", ERR_MSG);
	ASSERT_EQ(-EPROTO, ktau_trace_tally_end(t, test_err()));
	ASSERT_STREQ("unit_size 32, expected 16", ERR_MSG);
	ASSERT_EQ_U64(0, ktau_trace_tally_events(t, KTAU_TRACE_KERNEL));
	ktau_trace_tally_free(t);
	tg_free(&bad);
	tg_free(&good);

	t = ktau_trace_tally_new(test_err());
	ASSERT_NOT_NULL(t);
	ASSERT_EQ(-EINVAL, ktau_trace_tally_feed(NULL, "x", 1, test_err()));
	ASSERT_EQ(-EINVAL, ktau_trace_tally_feed(t, NULL, 1, test_err()));
	ASSERT_EQ(0, ktau_trace_tally_feed(t, NULL, 0, test_err()));
	ASSERT_NULL(last_err());
	ASSERT_EQ(-EINVAL, ktau_trace_tally_end(NULL, test_err()));
	ASSERT_EQ_U64(0, ktau_trace_tally_events(NULL, KTAU_TRACE_KERNEL));
	ASSERT_EQ_U64(0, ktau_trace_tally_lost(NULL, KTAU_TRACE_USER));
	errno = 1234;
	ktau_trace_tally_free(t);
	ktau_trace_tally_free(NULL);
	ASSERT_EQ(1234, errno);
}
