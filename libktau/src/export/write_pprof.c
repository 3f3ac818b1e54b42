// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The model as a pprof profile: perftools.profiles.Profile (profile.proto),
 * protocol-buffer encoded here by hand (varints and length-delimited
 * fields are all it takes), written uncompressed -- `go tool pprof` and
 * `protoc --decode` read it as it is.
 *
 * Sample types: calls/count, time/nanoseconds (a sample model: samples/count
 * in their place), then event_count/count and event_sum/unit. One
 * sample per stack of ktau__model_stacks(): every callpath and every
 * routine's own remainder, with [calls, exclusive ns, 0, 0] at its leaf, so
 * pprof's "flat" is exclusive time and its "cum" the inclusive time it
 * derives from the stacks. pprof has no atomic events: each event with
 * samples is one sample [0, 0, count, sum rounded to an integer] at a
 * one-frame stack named by the event (TAU's name: "bytes : main => io" for
 * a context event). Each sample carries the labels thread (the thread's
 * label, a string) and node, context, thread_id (numbers with unit "id",
 * written even when 0: go tool pprof drops a numeric label whose num and
 * unit are both absent). One function and one location (id = function
 * id) per distinct name.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"

/* field numbers of profile.proto */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6, PROFILE_PERIOD_TYPE = 11,
	PROFILE_PERIOD = 12, PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3,
	LABEL_KEY = 1, LABEL_STR = 2, LABEL_NUM = 3, LABEL_NUM_UNIT = 4,
	LOCATION_ID = 1, LOCATION_LINE = 4, LINE_FUNCTION_ID = 1,
	FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3,
};

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

/* A growing buffer; the first failure sticks in err. */
struct pb {
	uint8_t *buf;
	size_t len, cap;
	int err;
};

static void pb_bytes(struct pb *b, const void *p, size_t n)
{
	if (b->err)
		return;
	if (n > b->cap - b->len) {
		size_t cap = b->cap ? b->cap : 256;
		uint8_t *nb;

		while (cap - b->len < n && cap < SIZE_MAX / 2)
			cap *= 2;
		nb = cap - b->len >= n ? realloc(b->buf, cap) : NULL;
		if (!nb) {
			b->err = -ENOMEM;
			return;
		}
		b->buf = nb;
		b->cap = cap;
	}
	memcpy(b->buf + b->len, p, n);
	b->len += n;
}

static void pb_varint(struct pb *b, uint64_t v)
{
	uint8_t out[10];
	size_t n = 0;

	do {
		out[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	pb_bytes(b, out, n);
}

static void pb_key(struct pb *b, unsigned int field, unsigned int wire)
{
	pb_varint(b, (uint64_t)field << 3 | wire);
}

/* A scalar field; proto3 leaves out zeros. */
static void pb_uint(struct pb *b, unsigned int field, uint64_t v)
{
	if (!v)
		return;
	pb_key(b, field, WIRE_VARINT);
	pb_varint(b, v);
}

static void pb_len(struct pb *b, unsigned int field, const void *p, size_t n)
{
	pb_key(b, field, WIRE_LEN);
	pb_varint(b, n);
	pb_bytes(b, p, n);
}

/* An embedded message (or packed array) built in sub, which is reset. */
static void pb_sub(struct pb *b, unsigned int field, struct pb *sub)
{
	if (sub->err && !b->err)
		b->err = sub->err;
	pb_len(b, field, sub->buf, sub->len);
	sub->len = 0;
}

static void pb_free(struct pb *b)
{
	free(b->buf);
}

/* The string table, and the function ids by name. */
struct pprof_tables {
	struct ktau_index strings;
	const char **str;
	size_t nr_str, cap_str;
	struct ktau_index functions;	/* name -> function id */
	const char **fn_name;		/* by function id - 1 */
	size_t nr_functions, cap_functions;
};

/* The index of s in the string table (added when new); SIZE_MAX on ENOMEM. */
static size_t str_id(struct pprof_tables *tb, const char *s)
{
	size_t i = ktau__index_find(&tb->strings, s);

	if (i != KTAU_INDEX_NONE)
		return i;
	if (ktau__grow((void **)&tb->str, &tb->cap_str, tb->nr_str, sizeof(*tb->str)) ||
	    ktau__index_put(&tb->strings, s, tb->nr_str))
		return SIZE_MAX;
	tb->str[tb->nr_str] = s;
	return tb->nr_str++;
}

static size_t function_id(struct pprof_tables *tb, const char *name)
{
	size_t i = ktau__index_find(&tb->functions, name);

	if (i != KTAU_INDEX_NONE)
		return i;
	if (str_id(tb, name) == SIZE_MAX ||
	    ktau__grow((void **)&tb->fn_name, &tb->cap_functions, tb->nr_functions,
		       sizeof(*tb->fn_name)) ||
	    ktau__index_put(&tb->functions, name, tb->nr_functions + 1))
		return SIZE_MAX;
	tb->fn_name[tb->nr_functions] = name;
	return ++tb->nr_functions;
}

/* The unit of the numeric labels node, context and thread_id. */
#define LABEL_ID_UNIT "id"

/* Values per sample: [calls,] metric, event count, event sum. */
enum { MAX_VALUES = 4 };

struct sample_ctx {
	struct pprof_tables *tb;
	const struct ktau_model_thread *t;
	struct pb *out;		/* the Profile */
	struct pb msg, sub;	/* scratch */
	int with_calls;		/* a calls value before the metric's */
};

/* A string label (str non-NULL) or a numeric one: key and num, num
 * written even when 0, with its unit so that readers keep it. */
static int add_label(struct sample_ctx *c, const char *key, const char *str,
		     uint64_t num)
{
	size_t k = str_id(c->tb, key);
	size_t v = str_id(c->tb, str ? str : LABEL_ID_UNIT);

	if (k == SIZE_MAX || v == SIZE_MAX)
		return -ENOMEM;
	pb_uint(&c->sub, LABEL_KEY, k);
	if (str) {
		pb_uint(&c->sub, LABEL_STR, v);
	} else {
		pb_key(&c->sub, LABEL_NUM, WIRE_VARINT);
		pb_varint(&c->sub, num);
		pb_uint(&c->sub, LABEL_NUM_UNIT, v);
	}
	pb_sub(&c->msg, SAMPLE_LABEL, &c->sub);
	return 0;
}

/* One sample: the stack (root first; written leaf first), its values
 * (each within int64), the thread's labels. */
static int put_sample(struct sample_ctx *c, const char *const *path, size_t depth,
		      const int64_t *values, size_t nr_values)
{
	size_t i;
	int ret;

	for (i = depth; i-- > 0;) {
		size_t id = function_id(c->tb, path[i]);

		if (id == SIZE_MAX)
			return -ENOMEM;
		pb_varint(&c->sub, id);
	}
	pb_sub(&c->msg, SAMPLE_LOCATION_ID, &c->sub);
	for (i = 0; i < nr_values; i++)
		pb_varint(&c->sub, (uint64_t)values[i]);	/* int64: two's complement */
	pb_sub(&c->msg, SAMPLE_VALUE, &c->sub);
	ret = add_label(c, "thread", c->t->label, 0);
	if (!ret)
		ret = add_label(c, "node", NULL, c->t->node);
	if (!ret)
		ret = add_label(c, "context", NULL, c->t->context);
	if (!ret)
		ret = add_label(c, "thread_id", NULL, c->t->thread);
	if (ret)
		return ret;
	pb_sub(c->out, PROFILE_SAMPLE, &c->msg);
	return c->out->err;
}

static int add_sample(void *arg, const char *const *path, size_t depth,
		      uint64_t calls, uint64_t excl_ns)
{
	struct sample_ctx *c = arg;
	int64_t values[MAX_VALUES] = { 0 };
	size_t n = 0;

	if (!c->with_calls)
		calls = 0;
	if (!calls && !excl_ns)
		return 0;
	if (calls > INT64_MAX || excl_ns > INT64_MAX)
		return -EOVERFLOW;
	if (c->with_calls)
		values[n++] = (int64_t)calls;
	values[n++] = (int64_t)excl_ns;
	return put_sample(c, path, depth, values, n + 2);	/* event count, sum: 0 */
}

/* The thread's events with samples, each at a one-frame stack of its name:
 * [count, sum] after zeros for the stacks' values; the sum rounded to the
 * nearest integer. -EOVERFLOW when either does not fit in int64. */
static int add_events(struct sample_ctx *c)
{
	size_t i, n = c->with_calls ? 2 : 1;
	int ret = 0;

	for (i = 0; i < c->t->nr_events && !ret; i++) {
		const struct ktau_model_event *e = &c->t->events[i];
		int64_t values[MAX_VALUES] = { 0 };
		double sum = round(e->sum);

		if (!e->count)
			continue;
		/* 2^63 is exact as a double; INT64_MAX is not */
		if (e->count > INT64_MAX || !(sum >= -0x1p63 && sum < 0x1p63))
			return -EOVERFLOW;
		values[n] = (int64_t)e->count;
		values[n + 1] = (int64_t)sum;
		ret = put_sample(c, &e->name, 1, values, n + 2);
	}
	return ret;
}

static int value_type(struct pprof_tables *tb, struct pb *out, struct pb *sub,
		      unsigned int field, const char *type, const char *unit)
{
	size_t t = str_id(tb, type), u = str_id(tb, unit);

	if (t == SIZE_MAX || u == SIZE_MAX)
		return -ENOMEM;
	pb_uint(sub, VALUE_TYPE_TYPE, t);
	pb_uint(sub, VALUE_TYPE_UNIT, u);
	pb_sub(out, field, sub);
	return 0;
}

/* Functions and their locations, one each per name, in id order. */
static void put_functions(struct pprof_tables *tb, struct pb *out, struct pb *msg,
			  struct pb *sub)
{
	size_t i;

	for (i = 0; i < tb->nr_functions; i++) {
		size_t name = ktau__index_find(&tb->strings, tb->fn_name[i]);

		pb_uint(msg, FUNCTION_ID, i + 1);
		pb_uint(msg, FUNCTION_NAME, name);
		pb_uint(msg, FUNCTION_SYSTEM_NAME, name);
		pb_sub(out, PROFILE_FUNCTION, msg);
		pb_uint(sub, LINE_FUNCTION_ID, i + 1);
		pb_uint(msg, LOCATION_ID, i + 1);
		pb_sub(msg, LOCATION_LINE, sub);
		pb_sub(out, PROFILE_LOCATION, msg);
	}
}

static int encode(const struct ktau_model *m, struct pprof_tables *tb, struct pb *out)
{
	const struct ktau_metric_info *metric = ktau__metric_info(m);
	struct sample_ctx c = { .tb = tb, .out = out, .with_calls = metric->pprof_calls };
	size_t i;
	int ret = 0;

	if (str_id(tb, "") == SIZE_MAX)	/* string_table[0] must be "" */
		return -ENOMEM;
	if (c.with_calls)
		ret = value_type(tb, out, &c.sub, PROFILE_SAMPLE_TYPE, "calls", "count");
	if (!ret)
		ret = value_type(tb, out, &c.sub, PROFILE_SAMPLE_TYPE, metric->pprof_type,
				 metric->pprof_unit);
	if (!ret)
		ret = value_type(tb, out, &c.sub, PROFILE_SAMPLE_TYPE, "event_count", "count");
	if (!ret)
		ret = value_type(tb, out, &c.sub, PROFILE_SAMPLE_TYPE, "event_sum", "unit");
	if (!ret)
		ret = value_type(tb, out, &c.sub, PROFILE_PERIOD_TYPE, metric->pprof_type,
				 metric->pprof_unit);
	pb_uint(out, PROFILE_PERIOD, 1);
	pb_uint(out, PROFILE_DEFAULT_SAMPLE_TYPE, str_id(tb, metric->pprof_type));
	for (i = 0; i < m->nr_threads && !ret; i++) {
		c.t = m->threads[i];
		ret = ktau__model_stacks(c.t, add_sample, &c);
		if (!ret)
			ret = add_events(&c);
	}
	if (!ret) {
		put_functions(tb, out, &c.msg, &c.sub);
		for (i = 0; i < tb->nr_str; i++)
			pb_len(out, PROFILE_STRING_TABLE, tb->str[i], strlen(tb->str[i]));
		ret = c.msg.err ? c.msg.err : c.sub.err ? c.sub.err : out->err;
	}
	pb_free(&c.msg);
	pb_free(&c.sub);
	return ret;
}

int ktau__emit_pprof(const struct ktau_model *m, FILE *out)
{
	struct pprof_tables tb = { 0 };
	struct pb profile = { 0 };
	int ret = encode(m, &tb, &profile);

	if (!ret && profile.len && fwrite(profile.buf, 1, profile.len, out) != profile.len)
		ret = -EIO;
	pb_free(&profile);
	ktau__index_free(&tb.strings);
	ktau__index_free(&tb.functions);
	free(tb.str);
	free(tb.fn_name);
	return ret;
}
