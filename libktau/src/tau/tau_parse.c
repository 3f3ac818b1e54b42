// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The one parser of TAU profile files (profile.<node>.<context>.<thread>),
 * by the rules of ParaProf's reader (TauDataSource in TAU's source), so
 * that what ParaProf opens, ktau opens: the function count and metric on
 * the first line, the header line with its metadata, the function lines
 * (a name may hold quotes: it ends at the quote before GROUP="), the
 * aggregates (skipped) and the user events. Repeated names are summed.
 */
#define _GNU_SOURCE	/* strtod_l */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tau/tau.h"

#define MULTI "_MULTI_"
#define GROUP_KEY "GROUP="
#define MAX_NUMBER 64

struct tau_parser {
	struct ktau_tau_thread *t;
	struct ktau_line_reader lines;
	struct ktau_parse_error *err;
	locale_t c_locale;
	bool sumexclsqr;	/* the header has a SumExclSqr column */
};

/* ---- numbers ---- */

static bool number_chars(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!s[i] || !strchr("0123456789.eE+-", s[i]))
			return false;
	return len > 0;
}

/* A finite, non-negative decimal in the C locale: 0 or -EPROTO. */
static int parse_value(const struct tau_parser *p, const char *s, size_t len, double *out)
{
	char buf[MAX_NUMBER + 1], *end;

	if (len > MAX_NUMBER || !number_chars(s, len))
		return -EPROTO;
	memcpy(buf, s, len);
	buf[len] = '\0';
	*out = strtod_l(buf, &end, p->c_locale);
	if (*end || !isfinite(*out) || *out < 0)
		return -EPROTO;
	return 0;
}

/* A whole number: digits, or a value like "3.0E2" that is one. */
static int parse_count(const struct tau_parser *p, const char *s, size_t len, uint64_t *out)
{
	double v;

	if (!ktau__parse_u64(s, len, out))
		return 0;
	if (parse_value(p, s, len, &v) || v != floor(v) || v >= 18446744073709551616.0)
		return -EPROTO;
	*out = (uint64_t)v;
	return 0;
}

/* ---- records ---- */

static int add_metadata(struct ktau_tau_thread *t, const char *name, const char *value)
{
	struct ktau_tau_metadata *m;

	if (ktau__grow((void **)&t->meta, &t->cap_meta, t->nr_meta, sizeof(*m)))
		return -ENOMEM;
	m = &t->meta[t->nr_meta];
	m->name = ktau__strpool_add(&t->pool, name, strlen(name));
	m->value = ktau__strpool_add(&t->pool, value, strlen(value));
	if (!m->name || !m->value)
		return -ENOMEM;
	t->nr_meta++;
	return 0;
}

static unsigned int path_depth(const char *name)
{
	unsigned int depth = 1;
	const char *s = name;

	while ((s = strstr(s, "=>")) != NULL) {
		depth++;
		s += 2;
	}
	return depth;
}

static int add_function(struct ktau_tau_thread *t, const struct ktau_tau_function *f,
			size_t name_len, size_t groups_len)
{
	const char *name = ktau__strpool_add(&t->pool, f->name, name_len);
	size_t i;

	if (!name)
		return -ENOMEM;
	i = ktau__index_find(&t->func_index, name);
	if (i != KTAU_INDEX_NONE) {
		struct ktau_tau_function *old = &t->funcs[i];

		if (old->calls > UINT64_MAX - f->calls || old->subrs > UINT64_MAX - f->subrs)
			return -EOVERFLOW;
		old->calls += f->calls;
		old->subrs += f->subrs;
		old->excl += f->excl;
		old->incl += f->incl;
		return 0;
	}
	if (ktau__grow((void **)&t->funcs, &t->cap_funcs, t->nr_funcs, sizeof(*f)))
		return -ENOMEM;
	t->funcs[t->nr_funcs] = *f;
	t->funcs[t->nr_funcs].name = name;
	t->funcs[t->nr_funcs].groups = ktau__strpool_add(&t->pool, f->groups, groups_len);
	t->funcs[t->nr_funcs].depth = path_depth(name);
	if (!t->funcs[t->nr_funcs].groups ||
	    ktau__index_put(&t->func_index, name, t->nr_funcs))
		return -ENOMEM;
	t->nr_funcs++;
	return 0;
}

static int add_event(struct ktau_tau_thread *t, const struct ktau_tau_event *e,
		     size_t name_len)
{
	const char *name = ktau__strpool_add(&t->pool, e->name, name_len);
	size_t i;

	if (!name)
		return -ENOMEM;
	i = ktau__index_find(&t->event_index, name);
	if (i != KTAU_INDEX_NONE) {
		struct ktau_tau_event *old = &t->events[i];
		uint64_t count;

		if (old->count > UINT64_MAX - e->count)
			return -EOVERFLOW;
		count = old->count + e->count;
		if (count)
			old->mean = (old->mean * (double)old->count +
				     e->mean * (double)e->count) / (double)count;
		old->count = count;
		old->max = e->max > old->max ? e->max : old->max;
		old->min = e->min < old->min ? e->min : old->min;
		old->sumsq += e->sumsq;
		return 0;
	}
	if (ktau__grow((void **)&t->events, &t->cap_events, t->nr_events, sizeof(*e)))
		return -ENOMEM;
	t->events[t->nr_events] = *e;
	t->events[t->nr_events].name = name;
	if (ktau__index_put(&t->event_index, name, t->nr_events))
		return -ENOMEM;
	t->nr_events++;
	return 0;
}

/* ---- lines ---- */

static int next_line(struct tau_parser *p, const char **line, size_t *len,
		     const char *what)
{
	int ret = ktau__lines_next(&p->lines, line, len, p->err);

	if (ret < 0)
		return ret;
	if (!ret)
		return ktau__fail(p->err, EPROTO, p->lines.line + 1,
				  "the file ends where %s should be", what);
	return 0;
}

static size_t trim_end(const char *s, size_t len)
{
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	return len;
}

/* The last c in s[0, len), or -1. */
static long last_of(const char *s, size_t len, char c)
{
	while (len--)
		if (s[len] == c)
			return (long)len;
	return -1;
}

/* "<N> templated_functions[_MULTI_<metric>]": N and the metric. */
static int parse_first_line(struct tau_parser *p, uint64_t *nr_funcs)
{
	struct ktau_words w;
	const char *line, *multi;
	size_t len;
	int ret = next_line(p, &line, &len, "the \"templated_functions\" line");

	if (ret)
		return ret;
	ret = ktau__split_words(line, len, &w, p->lines.line, p->err);
	if (ret)
		return ret;
	if (w.count < 2 || ktau__parse_u64(w.word[0], w.len[0], nr_funcs) ||
	    w.len[1] < strlen("templated_functions") ||
	    strncmp(w.word[1], "templated_functions", strlen("templated_functions")))
		return ktau__fail(p->err, EPROTO, p->lines.line,
				  "not a TAU profile: expected \"<N> templated_functions\"");
	multi = memmem(w.word[1], w.len[1], MULTI, strlen(MULTI));
	if (multi) {
		const char *metric = multi + strlen(MULTI);
		size_t mlen = trim_end(metric, (size_t)(line + len - metric));

		if (!mlen)
			return ktau__fail(p->err, EPROTO, p->lines.line,
					  "empty metric name after \"" MULTI "\"");
		p->t->metric = ktau__strpool_add(&p->t->pool, metric, mlen);
		if (!p->t->metric)
			return ktau__fail(p->err, ENOMEM, 0, "out of memory");
	}
	return 0;
}

static int parse_header(struct tau_parser *p)
{
	const char *line, *meta;
	size_t len, before;
	int ret = next_line(p, &line, &len, "the \"# Name Calls ...\" header");

	if (ret)
		return ret;
	if (len < 6 || strncmp(line, "# Name", 6))
		return ktau__fail(p->err, EPROTO, p->lines.line,
				  "expected the \"# Name Calls Subrs Excl Incl ...\" header");
	meta = memmem(line, len, "<metadata>", strlen("<metadata>"));
	before = meta ? (size_t)(meta - line) : len;
	p->sumexclsqr = memmem(line, before, "SumExclSqr", strlen("SumExclSqr")) != NULL;
	if (!meta)
		return 0;
	return ktau__tau_metadata_parse(p->t, meta, len - before, p->lines.line, p->err);
}

/*
 * A function line: "name" calls subrs excl incl [sumexclsqr] profilecalls
 * [GROUP="groups"]. With a group the name ends at the last quote before
 * GROUP=", else at the last quote of the line (TAU's rule, so names with
 * quotes survive).
 */
static int parse_function(struct tau_parser *p, const char *line, size_t len)
{
	struct ktau_tau_function f = { .groups = "" };
	size_t groups_len = 0, nums = p->sumexclsqr ? 6 : 5, key = strlen(GROUP_KEY);
	struct ktau_words w;
	unsigned int n = p->lines.line;
	long q;
	int ret;

	len = trim_end(line, len);
	if (!len || line[0] != '"')
		return ktau__fail(p->err, EPROTO, n, "expected a function line (\"name\" calls ...)");
	if (len > key + 2 && line[len - 1] == '"') {
		long g = last_of(line, len - 1, '"');

		if (g < (long)key + 1 || memcmp(line + g - (long)key, GROUP_KEY, key))
			return ktau__fail(p->err, EPROTO, n,
					  "a function line ends in a quote but has no GROUP=\"...\"");
		f.groups = line + g + 1;
		groups_len = len - 1 - (size_t)g - 1;
		len = (size_t)g - key;
	}
	q = last_of(line, len, '"');
	if (q < 1)
		return ktau__fail(p->err, EPROTO, n, "unterminated function name");
	f.name = line + 1;
	if (q == 1)
		return ktau__fail(p->err, EPROTO, n, "empty function name");
	ret = ktau__split_words(line + q + 1, len - (size_t)q - 1, &w, n, p->err);
	if (ret)
		return ret;
	if (w.count != nums)
		return ktau__fail(p->err, EPROTO, n,
				  "a function line needs %zu numbers after the name, not %zu",
				  nums, w.count);
	if (parse_count(p, w.word[0], w.len[0], &f.calls) ||
	    parse_count(p, w.word[1], w.len[1], &f.subrs))
		return ktau__fail(p->err, EPROTO, n, "calls and subrs must be whole numbers");
	if (parse_value(p, w.word[2], w.len[2], &f.excl) ||
	    parse_value(p, w.word[3], w.len[3], &f.incl))
		return ktau__fail(p->err, EPROTO, n,
				  "exclusive and inclusive values must be finite numbers >= 0");
	ret = add_function(p->t, &f, (size_t)q - 1, groups_len);
	if (ret)
		return ktau__fail(p->err, -ret, n, "%s", ret == -ENOMEM ? "out of memory" :
				  "the calls of a repeated function overflow");
	return 0;
}

/* "<K> aggregates" and its K lines, which nothing reads any more. */
static int parse_aggregates(struct tau_parser *p)
{
	struct ktau_words w;
	const char *line;
	uint64_t k, i;
	size_t len;
	int ret = next_line(p, &line, &len, "the \"<K> aggregates\" line");

	if (ret || (ret = ktau__split_words(line, len, &w, p->lines.line, p->err)))
		return ret;
	if (w.count != 2 || ktau__parse_u64(w.word[0], w.len[0], &k) ||
	    !ktau__word_is(w.word[1], w.len[1], "aggregates"))
		return ktau__fail(p->err, EPROTO, p->lines.line,
				  "expected \"<K> aggregates\" after the function lines");
	for (i = 0; i < k; i++)
		if ((ret = next_line(p, &line, &len, "an aggregate line")))
			return ret;
	return 0;
}

/* "name" count max min mean sumsqr; the name ends at the last quote. */
static int parse_event(struct tau_parser *p, const char *line, size_t len)
{
	struct ktau_tau_event e = { 0 };
	struct ktau_words w;
	unsigned int n = p->lines.line;
	long q;
	int ret;

	len = trim_end(line, len);
	q = last_of(line, len, '"');
	if (!len || line[0] != '"' || q < 1)
		return ktau__fail(p->err, EPROTO, n, "expected a user event line (\"name\" count ...)");
	if (q == 1)
		return ktau__fail(p->err, EPROTO, n, "empty user event name");
	e.name = line + 1;
	ret = ktau__split_words(line + q + 1, len - (size_t)q - 1, &w, n, p->err);
	if (ret)
		return ret;
	if (w.count != 5)
		return ktau__fail(p->err, EPROTO, n,
				  "a user event line needs 5 numbers after the name, not %zu",
				  w.count);
	if (parse_count(p, w.word[0], w.len[0], &e.count))
		return ktau__fail(p->err, EPROTO, n, "an event's count must be a whole number");
	/* event values may be negative (a difference, a temperature) */
	{
		double *v[] = { &e.max, &e.min, &e.mean, &e.sumsq };
		size_t i;

		for (i = 0; i < 4; i++) {
			const char *s = w.word[i + 1];
			size_t l = w.len[i + 1];
			bool neg = l > 1 && s[0] == '-';

			if (parse_value(p, s + neg, l - neg, v[i]))
				return ktau__fail(p->err, EPROTO, n,
						  "an event's max, min, mean and sumsqr must be finite numbers");
			if (neg)
				*v[i] = -*v[i];
		}
	}
	if (e.sumsq < 0)
		return ktau__fail(p->err, EPROTO, n, "an event's sum of squares is negative");
	ret = add_event(p->t, &e, (size_t)q - 1);
	if (ret)
		return ktau__fail(p->err, -ret, n, "%s", ret == -ENOMEM ? "out of memory" :
				  "the count of a repeated event overflows");
	return 0;
}

static bool blank(const char *line, size_t len)
{
	return trim_end(line, len) == 0;
}

/* Optional: "<M> userevents", its heading, M lines; then only blank lines. */
static int parse_events(struct tau_parser *p)
{
	struct ktau_words w;
	const char *line;
	uint64_t m, i;
	size_t len;
	int ret;

	do {
		ret = ktau__lines_next(&p->lines, &line, &len, p->err);
		if (ret <= 0)
			return ret;
	} while (blank(line, len));
	if ((ret = ktau__split_words(line, len, &w, p->lines.line, p->err)))
		return ret;
	if (w.count != 2 || ktau__parse_u64(w.word[0], w.len[0], &m) ||
	    !ktau__word_is(w.word[1], w.len[1], "userevents"))
		return ktau__fail(p->err, EPROTO, p->lines.line,
				  "expected \"<M> userevents\" or the end of the file");
	if ((ret = next_line(p, &line, &len, "the user events' heading")))
		return ret;
	if (!len || line[0] != '#')
		return ktau__fail(p->err, EPROTO, p->lines.line,
				  "expected the \"# eventname numevents ...\" heading");
	for (i = 0; i < m; i++) {
		if ((ret = next_line(p, &line, &len, "a user event line")) ||
		    (ret = parse_event(p, line, len)))
			return ret;
	}
	while ((ret = ktau__lines_next(&p->lines, &line, &len, p->err)) > 0)
		if (!blank(line, len))
			return ktau__fail(p->err, EPROTO, p->lines.line,
					  "unexpected text after the user events");
	return ret;
}

int ktau__tau_thread_fill(struct ktau_tau_thread *t, const char *buf, size_t len,
			  struct ktau_parse_error *err)
{
	struct tau_parser p = { .t = t, .err = err };
	uint64_t nr_funcs, i;
	const char *line;
	size_t llen;
	int ret;

	p.c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	if (!p.c_locale)
		return ktau__fail(err, ENOMEM, 0, "out of memory");
	ktau__lines_init(&p.lines, buf, len);
	p.lines.max_len = KTAU_TAU_MAX_LINE;
	p.lines.high_bytes = 1;
	ret = parse_first_line(&p, &nr_funcs);
	if (!ret)
		ret = parse_header(&p);
	for (i = 0; !ret && i < nr_funcs; i++) {
		ret = next_line(&p, &line, &llen, "a function line");
		if (!ret)
			ret = parse_function(&p, line, llen);
	}
	if (!ret)
		ret = parse_aggregates(&p);
	if (!ret)
		ret = parse_events(&p);
	if (!ret && !t->metric) {
		const char *m = ktau_tau_thread_metadata_value(t, "Metric Name");

		t->metric = m && *m ? m : "TIME";
	}
	freelocale(p.c_locale);
	return ret;
}

/* ---- metadata ---- */

/* Appends the UTF-8 encoding of code point c. */
static size_t put_utf8(char *out, unsigned long c)
{
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | (c >> 6));
		out[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (char)(0xe0 | (c >> 12));
		out[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (c >> 18));
	out[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	out[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/* XML character data, unescaped into out (at least len + 1 bytes: no
 * entity is shorter than what it stands for); 0 or -EPROTO. */
static int unescape(const char *s, size_t len, char *out)
{
	static const struct { const char *name; char c; } named[] = {
		{ "amp", '&' }, { "lt", '<' }, { "gt", '>' }, { "quot", '"' }, { "apos", '\'' },
	};
	size_t i = 0, o = 0, k;

	while (i < len) {
		const char *semi;
		size_t elen;

		if (s[i] != '&') {
			out[o++] = s[i++];
			continue;
		}
		semi = memchr(s + i, ';', len - i);
		if (!semi || semi - (s + i) > 10)
			return -EPROTO;
		elen = (size_t)(semi - (s + i)) - 1;	/* between & and ; */
		for (k = 0; k < KTAU_ARRAY_SIZE(named); k++)
			if (strlen(named[k].name) == elen && !memcmp(s + i + 1, named[k].name, elen))
				break;
		if (k < KTAU_ARRAY_SIZE(named)) {
			out[o++] = named[k].c;
		} else if (elen >= 2 && s[i + 1] == '#') {
			bool hex = s[i + 2] == 'x' || s[i + 2] == 'X';
			const char *d = s + i + 2 + hex;
			unsigned long c = 0;

			if (d >= semi)
				return -EPROTO;
			for (; d < semi; d++) {
				int v = *d >= '0' && *d <= '9' ? *d - '0' :
					hex && *d >= 'a' && *d <= 'f' ? *d - 'a' + 10 :
					hex && *d >= 'A' && *d <= 'F' ? *d - 'A' + 10 : -1;

				if (v < 0)
					return -EPROTO;
				c = c * (hex ? 16 : 10) + (unsigned long)v;
			}
			if (!c || c > 0x10ffff)
				return -EPROTO;
			o += put_utf8(out + o, c);
		} else {
			return -EPROTO;
		}
		i += elen + 2;
	}
	out[o] = '\0';
	return 0;
}

/* The text between <tag> and </tag> inside [s, end): found or not. */
static bool element(const char *s, const char *end, const char *tag,
		    const char **text, size_t *len)
{
	char open[24], close[24];
	const char *a, *b;

	snprintf(open, sizeof(open), "<%s>", tag);
	snprintf(close, sizeof(close), "</%s>", tag);
	a = memmem(s, (size_t)(end - s), open, strlen(open));
	if (!a)
		return false;
	a += strlen(open);
	b = memmem(a, (size_t)(end - a), close, strlen(close));
	if (!b)
		return false;
	*text = a;
	*len = (size_t)(b - a);
	return true;
}

/*
 * <metadata><attribute><name>N</name><value>V</value></attribute>...
 * </metadata>: each attribute's name and value; whatever else TAU puts
 * between attributes is skipped, as ParaProf's SAX reader does.
 */
int ktau__tau_metadata_parse(struct ktau_tau_thread *t, const char *s, size_t len,
			     unsigned int line, struct ktau_parse_error *err)
{
	const char *end = s + len, *close, *pos;
	char *name = NULL, *value = NULL;
	int ret = 0;

	close = memmem(s, len, "</metadata>", strlen("</metadata>"));
	if (!close)
		return ktau__fail(err, EPROTO, line, "metadata without </metadata>");
	end = close;
	name = malloc(len + 1);
	value = malloc(len + 1);
	if (!name || !value) {
		ret = ktau__fail(err, ENOMEM, 0, "out of memory");
		goto out;
	}
	for (pos = s; !ret; ) {
		const char *a = memmem(pos, (size_t)(end - pos), "<attribute>",
				       strlen("<attribute>"));
		const char *b, *n, *v;
		size_t nlen, vlen;

		if (!a)
			break;
		b = memmem(a, (size_t)(end - a), "</attribute>", strlen("</attribute>"));
		if (!b) {
			ret = ktau__fail(err, EPROTO, line, "metadata attribute without </attribute>");
			break;
		}
		if (!element(a, b, "name", &n, &nlen) || !nlen) {
			ret = ktau__fail(err, EPROTO, line, "metadata attribute without a <name>");
			break;
		}
		if (!element(a, b, "value", &v, &vlen))
			vlen = 0, v = a;
		if (unescape(n, nlen, name) || unescape(v, vlen, value)) {
			ret = ktau__fail(err, EPROTO, line,
					 "bad character reference in metadata (an unescaped '&'?)");
			break;
		}
		if (add_metadata(t, name, value))
			ret = ktau__fail(err, ENOMEM, 0, "out of memory");
		pos = b + strlen("</attribute>");
	}
out:
	free(name);
	free(value);
	return ret;
}
