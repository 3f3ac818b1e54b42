// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Exports faithful to their viewers: what pprof and ParaProf show of a
 * profile, read back by readers that are not ours. pprof: every label
 * (thread, node, context, thread_id) also when its value is 0, and the
 * atomic events as the samples of the event_count and event_sum sample
 * types, checked with `protoc --decode` (and --decode_raw for the bytes on
 * the wire) and, when Debian's golang-go is installed, `go tool pprof`.
 * TAU: callpath lines in group "TAU_CALLPATH | <the leaf's primary group>",
 * read back by the independent TAU reader (tau_reader.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "harness.h"
#include "tau_reader.h"
#include "testutil.h"

/*
 * Thread (0, 0, 0) "t0": routines in one group, in two ("APP | TAU_USER",
 * "TAU_KERNEL_MERGE | KTAU_SYSCALL") and in the default one, callpaths
 * ending in each, a flat and a context event, an event with a fractional
 * sum and one without samples. Thread (2, 1, 3) "t3": one routine, one
 * event, so that non-zero labels are seen too.
 */
static struct ktau_model *viewer_model(void)
{
	const char *mw[] = { "main", "work" }, *mh[] = { "main", "helper" };
	const char *mwr[] = { "main", "work", "sys_read()" };
	struct ktau_model *m = ktau_model_new();
	struct ktau_model_thread *t = m ? ktau_model_add_thread(m, 0, 0, 0, "t0") : NULL;
	struct ktau_model_thread *t3 = m ? ktau_model_add_thread(m, 2, 1, 3, "t3") : NULL;
	int ret;

	if (!t || !t3)
		goto fail;
	ret = ktau_model_add_routine(t, "main", "TAU_DEFAULT", 1, 3, 10000, 3000);
	ret = ret ?: ktau_model_add_routine(t, "work", "APP | TAU_USER", 2, 1, 6000, 5000);
	ret = ret ?: ktau_model_add_routine(t, "helper", NULL, 1, 0, 1000, 1000);
	ret = ret ?: ktau_model_add_routine(t, "sys_read()", "TAU_KERNEL_MERGE | KTAU_SYSCALL",
					    1, 0, 1000, 1000);
	ret = ret ?: ktau_model_add_callpath(t, mw, 2, 2, 1, 6000, 5000);
	ret = ret ?: ktau_model_add_callpath(t, mh, 2, 1, 0, 1000, 1000);
	ret = ret ?: ktau_model_add_callpath(t, mwr, 3, 1, 0, 1000, 1000);
	ret = ret ?: ktau_model_add_event(t, "bytes read", 3, 1, 5, 10, 42);
	ret = ret ?: ktau_model_add_event(t, "bytes read : main => work", 2, 4, 5, 9, 41);
	ret = ret ?: ktau_model_add_event(t, "load", 2, 0.25, 1.5, 1.75, 2.3125);
	ret = ret ?: ktau_model_add_event(t, "never", 0, 0, 0, 0, 0);
	ret = ret ?: ktau_model_add_routine(t3, "main", "TAU_DEFAULT", 1, 0, 500, 500);
	ret = ret ?: ktau_model_add_event(t3, "bytes read", 1, 7, 7, 7, 49);
	if (!ret)
		return m;
fail:
	ktau_model_free(m);
	return NULL;
}

static const struct ktau_model_thread *thread_labelled(const struct ktau_model *m,
						       const char *label)
{
	size_t i;

	for (i = 0; i < ktau_model_thread_count(m); i++)
		if (!strcmp(ktau_model_thread_label(ktau_model_thread(m, i)), label))
			return ktau_model_thread(m, i);
	return NULL;
}

/* The model's events with samples, and the sum of their rounded sums. */
static size_t events_with_samples(const struct ktau_model *m, int64_t *sums)
{
	size_t i, j, n = 0;

	*sums = 0;
	for (i = 0; i < ktau_model_thread_count(m); i++) {
		const struct ktau_model_thread *t = ktau_model_thread(m, i);

		for (j = 0; j < ktau_model_event_count(t); j++) {
			n += ktau_model_event(t, j)->count > 0;
			*sums += llround(ktau_model_event(t, j)->sum);
		}
	}
	return n;
}

/* The sum of the event counts of the threads on node 0. */
static uint64_t node0_event_count(const struct ktau_model *m)
{
	uint64_t n = 0;
	size_t i, j;

	for (i = 0; i < ktau_model_thread_count(m); i++) {
		const struct ktau_model_thread *t = ktau_model_thread(m, i);

		for (j = 0; !ktau_model_thread_node(t) && j < ktau_model_event_count(t); j++)
			n += ktau_model_event(t, j)->count;
	}
	return n;
}

static const struct ktau_model_event *find_event(const struct ktau_model_thread *t,
						 const char *name)
{
	size_t i;

	for (i = 0; t && i < ktau_model_event_count(t); i++)
		if (!strcmp(ktau_model_event(t, i)->name, name))
			return ktau_model_event(t, i);
	return NULL;
}

/* ---- protoc's text of a Profile, read into tables ---- */

enum { PP_MAX = 64, PP_VALUES = 8, PP_LABELS = 8 };

struct pp_label {
	long key, str, num, unit;
};

struct pp_sample {
	long loc[PP_MAX];
	size_t nr_loc;
	int64_t value[PP_VALUES];
	size_t nr_value;
	struct pp_label label[PP_LABELS];
	size_t nr_label;
};

struct pp_profile {
	char *str[PP_MAX * 4];
	size_t nr_str;
	long type[PP_VALUES], unit[PP_VALUES];
	size_t nr_type;
	long default_type;
	long fn_id[PP_MAX], fn_name[PP_MAX];
	size_t nr_fn;
	long loc_id[PP_MAX], loc_fn[PP_MAX];
	size_t nr_loc;
	struct pp_sample sample[PP_MAX];
	size_t nr_sample;
};

static void pp_free(struct pp_profile *p)
{
	size_t i;

	for (i = 0; i < p->nr_str; i++)
		free(p->str[i]);
	memset(p, 0, sizeof(*p));
}

/* A protoc string literal without its quotes; \' and \" unescaped (the
 * names here have no other escapes). */
static char *pp_unquote(const char *v)
{
	size_t len = strlen(v), o = 0, i;
	char *s = len >= 2 ? malloc(len) : NULL;

	if (!s)
		return NULL;
	for (i = 1; i + 1 < len; i++) {
		if (v[i] == '\\' && i + 2 < len)
			i++;
		s[o++] = v[i];
	}
	s[o] = '\0';
	return s;
}

/* Reads protoc --decode's text; 0, or -1 when a table overflows or a
 * line is not of the expected form. */
static int pp_parse(const char *text, struct pp_profile *p)
{
	char *copy = strdup(text), *save = NULL, *line;
	char outer[32] = "", inner[32] = "";
	struct pp_sample *s = NULL;
	int ret = 0;

	memset(p, 0, sizeof(*p));
	for (line = copy ? strtok_r(copy, "\n", &save) : NULL; line && !ret;
	     line = strtok_r(NULL, "\n", &save)) {
		size_t indent = strspn(line, " ");
		char name[32], *colon;
		long v;

		if (!strcmp(line + indent, "}")) {
			if (indent) {
				inner[0] = '\0';
				continue;
			}
			if (!strcmp(outer, "sample_type"))
				ret = p->nr_type < PP_VALUES ? (p->nr_type++, 0) : -1;
			else if (!strcmp(outer, "function"))
				ret = p->nr_fn < PP_MAX ? (p->nr_fn++, 0) : -1;
			else if (!strcmp(outer, "location"))
				ret = p->nr_loc < PP_MAX ? (p->nr_loc++, 0) : -1;
			outer[0] = '\0';
			continue;
		}
		if (sscanf(line + indent, "%31[a-z_] {", name) == 1 && strchr(line, '{')) {
			snprintf(indent ? inner : outer, sizeof(name), "%s", name);
			if (!indent && !strcmp(name, "sample")) {
				if (p->nr_sample == PP_MAX)
					ret = -1;
				else
					s = &p->sample[p->nr_sample++];
			}
			if (!strcmp(inner, "label") && s) {
				if (s->nr_label == PP_LABELS)
					ret = -1;
				else
					s->label[s->nr_label++] = (struct pp_label){ 0 };
			}
			continue;
		}
		colon = strstr(line, ": ");
		if (!colon) {
			ret = -1;
			continue;
		}
		*colon = '\0';
		if (!strcmp(line + indent, "string_table")) {
			if (p->nr_str == PP_MAX * 4 || !(p->str[p->nr_str++] = pp_unquote(colon + 2)))
				ret = -1;
			continue;
		}
		v = strtol(colon + 2, NULL, 10);
		if (!strcmp(outer, "sample_type") && p->nr_type < PP_VALUES) {
			if (!strcmp(line + indent, "type"))
				p->type[p->nr_type] = v;
			else if (!strcmp(line + indent, "unit"))
				p->unit[p->nr_type] = v;
		} else if (!strcmp(line + indent, "default_sample_type")) {
			p->default_type = v;
		} else if (!strcmp(outer, "function") && p->nr_fn < PP_MAX) {
			if (!strcmp(line + indent, "id"))
				p->fn_id[p->nr_fn] = v;
			else if (!strcmp(line + indent, "name"))
				p->fn_name[p->nr_fn] = v;
		} else if (!strcmp(outer, "location") && p->nr_loc < PP_MAX) {
			if (!strcmp(line + indent, "id"))
				p->loc_id[p->nr_loc] = v;
			else if (!strcmp(line + indent, "function_id"))
				p->loc_fn[p->nr_loc] = v;
		} else if (!strcmp(outer, "sample") && s) {
			if (!strcmp(inner, "label")) {
				struct pp_label *l = &s->label[s->nr_label - 1];

				if (!strcmp(line + indent, "key"))
					l->key = v;
				else if (!strcmp(line + indent, "str"))
					l->str = v;
				else if (!strcmp(line + indent, "num"))
					l->num = v;
				else if (!strcmp(line + indent, "num_unit"))
					l->unit = v;
			} else if (!strcmp(line + indent, "location_id") && s->nr_loc < PP_MAX) {
				s->loc[s->nr_loc++] = v;
			} else if (!strcmp(line + indent, "value") && s->nr_value < PP_VALUES) {
				s->value[s->nr_value++] = strtoll(colon + 2, NULL, 10);
			}
		}
	}
	free(copy);
	return copy ? ret : -1;
}

static const char *pp_str(const struct pp_profile *p, long i)
{
	return i >= 0 && (size_t)i < p->nr_str ? p->str[i] : "(bad string index)";
}

/* The function name at a location id. */
static const char *pp_loc_name(const struct pp_profile *p, long loc)
{
	size_t i, j;

	for (i = 0; i < p->nr_loc; i++)
		for (j = 0; p->loc_id[i] == loc && j < p->nr_fn; j++)
			if (p->fn_id[j] == p->loc_fn[i])
				return pp_str(p, p->fn_name[j]);
	return "(no such location)";
}

static const struct pp_label *pp_label(const struct pp_profile *p,
				       const struct pp_sample *s, const char *key)
{
	size_t i;

	for (i = 0; i < s->nr_label; i++)
		if (!strcmp(pp_str(p, s->label[i].key), key))
			return &s->label[i];
	return NULL;
}

/*
 * Checks a sample's labels against its thread in the model: the string
 * label thread, the numeric node, context and thread_id in unit "id";
 * NULL, or what is wrong (in buf).
 */
static const char *pp_check_labels(const struct pp_profile *p, const struct pp_sample *s,
				   const struct ktau_model *m, char *buf, size_t size)
{
	const struct pp_label *l = pp_label(p, s, "thread");
	const struct ktau_model_thread *t = l ? thread_labelled(m, pp_str(p, l->str)) : NULL;
	const char *keys[] = { "node", "context", "thread_id" };
	unsigned int want[3];
	size_t i;

	if (!t)
		return "no thread label naming a thread of the model";
	if (s->nr_label != 4) {
		snprintf(buf, size, "%zu labels, not 4", s->nr_label);
		return buf;
	}
	want[0] = ktau_model_thread_node(t);
	want[1] = ktau_model_thread_context(t);
	want[2] = ktau_model_thread_id(t);
	for (i = 0; i < 3; i++) {
		l = pp_label(p, s, keys[i]);
		if (!l || l->str || l->num != (long)want[i] || strcmp(pp_str(p, l->unit), "id")) {
			snprintf(buf, size, "label %s of thread %s: %s", keys[i],
				 ktau_model_thread_label(t), l ? "wrong value or unit" : "missing");
			return buf;
		}
	}
	return NULL;
}

/* Occurrences of needle in text. */
static size_t count_of(const char *text, const char *needle)
{
	size_t n = 0;

	for (; (text = strstr(text, needle)); text++)
		n++;
	return n;
}

/* A test's end: its directory removed, the rest freed. */
static void done(char *dir, char *path, struct ktau_model *m)
{
	if (dir)
		remove_tree(dir);
	free(dir);
	free(path);
	ktau_model_free(m);
}

/* dir/profile.pb written from m (NULL: either is NULL, or it failed). */
static char *write_pprof(const struct ktau_model *m, const char *dir)
{
	char *path = NULL;

	if (!m || !dir || asprintf(&path, "%s/profile.pb", dir) < 0)
		return NULL;
	if (ktau_model_write_pprof(m, path)) {
		free(path);
		return NULL;
	}
	return path;
}

TEST(export_pprof_labels_and_events_read_by_protoc)
{
	struct ktau_model *m = viewer_model();
	char *dir = make_tmpdir(), *path, *cmd, buf[256], raw_label[128];
	const char *types[][2] = { { "calls", "count" }, { "time", "nanoseconds" },
				   { "event_count", "count" }, { "event_sum", "unit" } };
	size_t i, events = 0, t0_samples = 0;
	uint64_t time_total = 0;
	int64_t sums;
	struct pp_profile p;
	struct run_result r;
	long node_key = -1, id_unit = -1;

	path = write_pprof(m, dir);
	ASSERT_NOT_NULL(path);
	if (!have_program("protoc")) {
		done(dir, path, m);
		SKIP("protoc is not installed (Debian package protobuf-compiler)");
	}
	ASSERT_EQ(0, protoc_decode(path, &r));
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("", r.err);
	ASSERT_EQ(0, pp_parse(r.out, &p));
	run_result_free(&r);

	ASSERT_EQ(4, p.nr_type);
	for (i = 0; i < 4; i++) {
		ASSERT_STREQ(types[i][0], pp_str(&p, p.type[i]));
		ASSERT_STREQ(types[i][1], pp_str(&p, p.unit[i]));
	}
	ASSERT_STREQ("time", pp_str(&p, p.default_type));
	for (i = 0; i < p.nr_sample; i++) {
		const struct pp_sample *s = &p.sample[i];
		const struct pp_label *tl = pp_label(&p, s, "thread");
		const char *why = pp_check_labels(&p, s, m, buf, sizeof(buf));
		const struct ktau_model_event *e;

		if (why)
			FAIL("sample %zu: %s", i, why);
		ASSERT_EQ(4, s->nr_value);
		time_total += (uint64_t)s->value[1];
		t0_samples += !strcmp(pp_str(&p, tl->str), "t0");
		if (s->value[2] || s->value[3]) {
			/* an event: one frame named by it, no calls, no time */
			ASSERT_EQ(1, s->nr_loc);
			e = find_event(thread_labelled(m, pp_str(&p, tl->str)),
				       pp_loc_name(&p, s->loc[0]));
			if (!e)
				FAIL("event sample at '%s': no such event in thread %s",
				     pp_loc_name(&p, s->loc[0]), pp_str(&p, tl->str));
			ASSERT_EQ(0, s->value[0]);
			ASSERT_EQ(0, s->value[1]);
			ASSERT_EQ_U64(e->count, (uint64_t)s->value[2]);
			ASSERT_EQ(llround(e->sum), s->value[3]);
			events++;
		}
	}
	ASSERT_EQ(events_with_samples(m, &sums), events);
	ASSERT_EQ(4, events);	/* three in t0 ("never" has no samples), one in t3 */
	ASSERT_EQ_U64(model_excl_total(m), time_total);
	for (i = 0; i < p.nr_str; i++) {
		ASSERT_TRUE(strcmp(p.str[i], "never"));
		if (!strcmp(p.str[i], "node"))
			node_key = (long)i;
		if (!strcmp(p.str[i], "id"))
			id_unit = (long)i;
	}
	pp_free(&p);

	/* on the wire: t0's node label has its num, 0, written out */
	ASSERT_TRUE(asprintf(&cmd, "protoc --decode_raw < '%s'", path) > 0);
	ASSERT_EQ(0, run_program((char *[]){ "/bin/sh", "-c", cmd, NULL }, NULL, &r));
	free(cmd);
	ASSERT_EQ(0, r.status);
	snprintf(raw_label, sizeof(raw_label), "  3 {\n    1: %ld\n    3: 0\n    4: %ld\n  }\n",
		 node_key, id_unit);
	ASSERT_EQ(t0_samples, count_of(r.out, raw_label));
	run_result_free(&r);
	done(dir, path, m);
}

/* ---- go tool pprof -raw ---- */

struct raw_sample {
	int64_t value[PP_VALUES];
	size_t nr_value;
	long loc[PP_MAX];
	size_t nr_loc;
	char thread[512];	/* "thread:[...]" */
	char numbers[512];	/* "context:[...] node:[...] thread_id:[...]" */
};

/* The name pprof -raw prints for location id in its Locations section
 * ("     3: 0x0 M=1 NAME :0 s=0"), copied to buf; NULL if absent. */
static const char *raw_loc_name(const char *out, long id, char *buf, size_t size)
{
	char head[32];
	const char *p = strstr(out, "\nLocations\n"), *nl, *name, *end;

	snprintf(head, sizeof(head), "%6ld: 0x0 ", id);
	for (; p && (p = strchr(p, '\n')); p = nl) {
		p++;
		nl = strchr(p, '\n');
		if (strncmp(p, head, strlen(head)))
			continue;
		name = p + strlen(head);
		if (!strncmp(name, "M=", 2))
			name = strchr(name, ' ') + 1;
		end = nl ? memmem(name, (size_t)(nl - name), " :0 s=0", 7) : NULL;
		if (!end)
			return NULL;
		snprintf(buf, size, "%.*s", (int)(end - name), name);
		return buf;
	}
	return NULL;
}

/* Parses one "  v1  v2 ...: loc loc " sample line into s; 0 or -1. */
static int raw_sample_line(const char *line, struct raw_sample *s)
{
	char *end;

	memset(s, 0, sizeof(*s));
	for (;;) {
		long long v = strtoll(line, &end, 10);

		if (end == line || s->nr_value == PP_VALUES)
			return -1;
		s->value[s->nr_value++] = v;
		line = end;
		if (*line == ':')
			break;
	}
	for (line++; s->nr_loc < PP_MAX; line = end) {
		long v = strtol(line, &end, 10);

		if (end == line)
			break;
		s->loc[s->nr_loc++] = v;
	}
	return *end == ' ' || !*end ? 0 : -1;
}

/* The samples of pprof -raw's output; their number, or -1 on a line not
 * of the expected form. */
static long raw_samples(const char *out, struct raw_sample *s, size_t max)
{
	static const char labels[] = "                ";	/* a label line's indent */
	const char *p = strstr(out, "\nSamples:\n");
	long n = 0;

	p = p ? strchr(p + 10, '\n') : NULL;	/* past the sample types */
	while (p && strncmp(p + 1, "Locations\n", 10)) {
		const char *nl = strchr(p + 1, '\n');
		char line[512];

		if (!nl)
			return -1;
		snprintf(line, sizeof(line), "%.*s", (int)(nl - p - 1), p + 1);
		p = nl;
		if (!strncmp(line, labels, strlen(labels))) {
			const char *l = line + strlen(labels);

			if (!n)
				return -1;
			if (!strncmp(l, "thread:[", 8))
				snprintf(s[n - 1].thread, sizeof(s->thread), "%s", l);
			else
				snprintf(s[n - 1].numbers, sizeof(s->numbers), "%s", l);
			continue;
		}
		if ((size_t)n == max || raw_sample_line(line, &s[n]))
			return -1;
		n++;
	}
	return p ? n : -1;
}

/* go tool pprof OPTIONS... PATH (up to 4 options, NULL-terminated), with
 * HOME in dir. */
static int go_pprof(const char *dir, struct run_result *r, const char *const *options,
		    const char *path)
{
	char *argv[9] = { "/usr/bin/go", "tool", "pprof" }, *env[2] = { NULL, NULL };
	size_t n = 3;
	int ret;

	for (; *options && n < 7; options++)
		argv[n++] = (char *)*options;
	argv[n] = (char *)path;

	if (asprintf(&env[0], "HOME=%s", dir) < 0)
		return -ENOMEM;
	ret = run_program(argv, env, r);
	free(env[0]);
	return ret;
}

TEST(export_pprof_read_by_go_tool_pprof)
{
	struct ktau_model *m = viewer_model();
	char *dir = make_tmpdir(), *path, name[256], want[256], line[256];
	struct raw_sample s[PP_MAX];
	struct run_result r;
	uint64_t time_total = 0;
	size_t events = 0, i;
	int64_t sums;
	long n;

	path = write_pprof(m, dir);
	ASSERT_NOT_NULL(path);
	if (!have_program("go")) {
		done(dir, path, m);
		SKIP("go is not installed (Debian package golang-go)");
	}
	ASSERT_EQ(0, go_pprof(dir, &r, (const char *[]){ "-raw", NULL }, path));
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.out, "\nSamples:\ncalls/count time/nanoseconds[dflt] "
			"event_count/count event_sum/unit\n");
	n = raw_samples(r.out, s, PP_MAX);
	ASSERT_TRUE(n > 0);
	for (i = 0; i < (size_t)n; i++) {
		const struct ktau_model_thread *t;
		const struct ktau_model_event *e;

		ASSERT_EQ(4, s[i].nr_value);
		ASSERT_TRUE(!strncmp(s[i].thread, "thread:[", 8));
		snprintf(name, sizeof(name), "%.*s", (int)strlen(s[i].thread) - 9,
			 s[i].thread + 8);
		t = thread_labelled(m, name);
		if (!t)
			FAIL("sample %zu: no thread '%s' in the model", i, name);
		snprintf(want, sizeof(want), "context:[%u id] node:[%u id] thread_id:[%u id]",
			 ktau_model_thread_context(t), ktau_model_thread_node(t),
			 ktau_model_thread_id(t));
		ASSERT_STREQ(want, s[i].numbers);
		time_total += (uint64_t)s[i].value[1];
		if (!s[i].value[2] && !s[i].value[3])
			continue;
		ASSERT_EQ(1, s[i].nr_loc);
		ASSERT_NOT_NULL(raw_loc_name(r.out, s[i].loc[0], name, sizeof(name)));
		e = find_event(t, name);
		if (!e)
			FAIL("event sample at '%s': no such event", name);
		ASSERT_EQ(0, s[i].value[0]);
		ASSERT_EQ(0, s[i].value[1]);
		ASSERT_EQ_U64(e->count, (uint64_t)s[i].value[2]);
		ASSERT_EQ(llround(e->sum), s[i].value[3]);
		events++;
	}
	ASSERT_EQ(events_with_samples(m, &sums), events);
	ASSERT_EQ_U64(model_excl_total(m), time_total);
	/* thread (0, 0, 0)'s zeros are there */
	ASSERT_CONTAINS(r.out, "\n                context:[0 id] node:[0 id] thread_id:[0 id]\n");
	run_result_free(&r);

	/* the event view: every event sum, and tags that filter on a 0 */
	ASSERT_EQ(0, go_pprof(dir, &r, (const char *[]){ "-top", "-sample_index=event_sum", NULL },
			      path));
	ASSERT_EQ(0, r.status);
	snprintf(want, sizeof(want), "Showing nodes accounting for %" PRId64 ", 100%% of %"
		 PRId64 " total\n", sums, sums);
	ASSERT_CONTAINS(r.out, want);
	run_result_free(&r);
	ASSERT_EQ(0, go_pprof(dir, &r, (const char *[]){ "-top", "-sample_index=event_count",
						       "-tagfocus=node=0", NULL }, path));
	ASSERT_EQ(0, r.status);
	snprintf(want, sizeof(want), "Showing nodes accounting for %" PRIu64 ",",
		 node0_event_count(m));
	ASSERT_NOT_NULL(line_starting(r.out, want, line, sizeof(line)));
	run_result_free(&r);
	done(dir, path, m);
}

/* ---- TAU: callpaths in TAU_CALLPATH and their leaf's primary group ---- */

TEST(export_tau_callpath_groups_read_back)
{
	struct ktau_model *m = viewer_model();
	char *dir = make_tmpdir(), err[512] = "";
	struct tau_profile tp;
	const struct {
		const char *name, *group;
	} want[] = {
		{ "main => work", "TAU_CALLPATH | APP" },
		{ "main => helper", "TAU_CALLPATH | TAU_DEFAULT" },
		{ "main => work => sys_read()", "TAU_CALLPATH | TAU_KERNEL_MERGE" },
		{ "work", "APP | TAU_USER" },
		{ "sys_read()", "TAU_KERNEL_MERGE | KTAU_SYSCALL" },
	};
	size_t i;

	ASSERT_NOT_NULL(m);
	ASSERT_NOT_NULL(dir);
	ASSERT_EQ(0, ktau_model_write_tau(m, dir));
	if (tau_parse_file(dir, "profile.0.0.0", &tp, err, sizeof(err)))
		FAIL("profile.0.0.0: %s", err);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct tau_entry *e = tau_find(&tp, want[i].name);

		if (!e)
			FAIL("no entry '%s'", want[i].name);
		ASSERT_STREQ(want[i].group, e->group);
	}
	ASSERT_EQ(3, tp.nr_events);
	ASSERT_EQ_U64(2, tau_find_event(&tp, "bytes read : main => work")->count);
	tau_free(&tp);
	if (tau_parse_file(dir, "profile.2.1.3", &tp, err, sizeof(err)))
		FAIL("profile.2.1.3: %s", err);
	ASSERT_NEAR(7.0, tau_find_event(&tp, "bytes read")->mean, 1e-12);
	tau_free(&tp);
	done(dir, NULL, m);
}

/* The reader holds callpaths to TAU's rule, so the test above means it. */
TEST(tau_reader_refuses_callpath_groups_not_tau_s)
{
	static const char head[] =
		"3 templated_functions_MULTI_TIME\n"
		"# Name Calls Subrs Excl Incl ProfileCalls # <metadata></metadata>\n"
		"\"a\" 1 1 1 2 0 GROUP=\"TAU_DEFAULT\"\n"
		"\"b\" 1 0 1 1 0 GROUP=\"TAU_KERNEL_MERGE | KTAU_SYSCALL\"\n";
	const char *groups[] = { "TAU_CALLPATH", "TAU_CALLPATH | KTAU_SYSCALL",
				 "TAU_CALLPATH | TAU_KERNEL_MERGE | KTAU_SYSCALL",
				 "TAU_DEFAULT", "TAU_CALLPATH | TAU_KERNEL_MERGE" };
	struct tau_profile tp;
	char text[1024], err[256];
	size_t i;

	for (i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		int ret;

		snprintf(text, sizeof(text), "%s\"a => b\" 1 0 1 1 0 GROUP=\"%s\"\n0 aggregates\n",
			 head, groups[i]);
		ret = tau_parse(text, &tp, err, sizeof(err));
		tau_free(&tp);
		if (i + 1 < sizeof(groups) / sizeof(groups[0])) {
			ASSERT_EQ(-1, ret);
			ASSERT_CONTAINS(err, "callpath a => b in group");
		} else {
			ASSERT_EQ(0, ret);	/* the one TAU writes */
		}
	}
}
