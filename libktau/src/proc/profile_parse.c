// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Parser of the ktau-profile text format, versions 1 and 2
 * (docs/proc-format.md). Strict about what a version defines, lenient about
 * what it allows to be added: unknown keywords (a v1 file's `path` lines, a
 * v2 file's `edge` lines), unknown task keys, extra record fields and blocks
 * of an unknown kind are skipped. After the last line each block derives
 * the records it does not own: a v1 block its paths from its edges, a v2
 * block its edges from its paths.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "proc/proc.h"

static const char *const func_fields[] = {
	"ctx", "fid", "name", "group", "calls", "incl_cycles", "excl_cycles",
};
enum { FUNC_CTX, FUNC_FID, FUNC_NAME, FUNC_GROUP, FUNC_CALLS, FUNC_INCL, FUNC_EXCL };

static const char *const edge_fields[] = {
	"ctx", "parent_fid", "parent", "fid", "name", "calls", "incl_cycles",
	"excl_cycles",
};
enum { EDGE_CTX, EDGE_PARENT_FID, EDGE_PARENT, EDGE_FID, EDGE_NAME, EDGE_CALLS,
       EDGE_INCL, EDGE_EXCL };

static const char *const event_fields[] = {
	"ctx", "fid", "name", "count", "min", "max", "sum", "sumsq",
};
enum { EVENT_CTX, EVENT_FID, EVENT_NAME, EVENT_COUNT, EVENT_MIN, EVENT_MAX,
       EVENT_SUM, EVENT_SUMSQ };

static const char *const path_fields[] = {
	"ctx", "fids", "name", "group", "calls", "incl_cycles", "excl_cycles",
};
enum { PATH_CTX, PATH_FIDS, PATH_NAME, PATH_GROUP, PATH_CALLS, PATH_INCL, PATH_EXCL };

/* an open line's fields are a path's, without calls, after a tid */
static const char *const open_fields[] = {
	"tid", "ctx", "fids", "name", "group", "incl_cycles", "excl_cycles",
};
enum { OPEN_TID, OPEN_CTX, OPEN_FIDS, OPEN_NAME, OPEN_GROUP, OPEN_INCL, OPEN_EXCL };

struct parser {
	struct ktau_profile *p;
	struct ktau_parse_error *err;
	unsigned int line;
	const struct ktau_words *w;
	struct ktau_columns func_cols, edge_cols, event_cols, path_cols, open_cols;
	bool seen_tsc_khz, seen_scope;
	bool in_header;		/* no task line yet */
	bool skipping_block;	/* inside a block of an unknown kind */
	bool ended;
	struct ktau_block *block;
};

static int fail(struct parser *ps, int error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct parser *ps, int error, const char *fmt, ...)
{
	char msg[sizeof(ps->err->message)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ktau__fail(ps->err, error, ps->line, "%s", msg);
}

/* The word itself, shortened so a huge token cannot flood the message. */
#define WORD_FMT "'%.*s%s'"
#define WORD_ARG(w, i) (int)((w)->len[i] > 40 ? 40 : (w)->len[i]), (w)->word[i], \
	((w)->len[i] > 40 ? "..." : "")

static int number_field(struct parser *ps, const char *keyword,
			const struct ktau_columns *c, size_t field, uint64_t *out)
{
	size_t i = c->pos[field];

	if (ktau__parse_u64(ps->w->word[i], ps->w->len[i], out))
		return fail(ps, EPROTO, "%s: field '%s' is not an unsigned 64-bit decimal: "
			    WORD_FMT, keyword, c->names[field], WORD_ARG(ps->w, i));
	return 0;
}

static int fid_field(struct parser *ps, const char *keyword,
		     const struct ktau_columns *c, size_t field, uint32_t *out)
{
	uint64_t v;
	int ret = number_field(ps, keyword, c, field, &v);

	if (ret)
		return ret;
	if (v > UINT32_MAX)
		return fail(ps, EPROTO, "%s: function id %llu out of range",
			    keyword, (unsigned long long)v);
	*out = (uint32_t)v;
	return 0;
}

static const char *name_field(struct parser *ps, const struct ktau_columns *c,
			      size_t field)
{
	size_t i = c->pos[field];

	return ktau__block_intern(ps->block, ps->w->word[i], ps->w->len[i]);
}

static int check_record_shape(struct parser *ps, const char *keyword,
			      const struct ktau_columns *c)
{
	if (ps->in_header)
		return fail(ps, EPROTO, "'%s' record before the first task line", keyword);
	if (ps->w->count < c->min_words)
		return fail(ps, EPROTO, "%s: %zu fields, expected %zu", keyword,
			    ps->w->count - 1, c->min_words - 1);
	return 0;
}

static int parse_func(struct parser *ps)
{
	const struct ktau_columns *c = &ps->func_cols;
	struct ktau_func f = { 0 };
	int ret;

	ret = check_record_shape(ps, "func", c);
	if (ret || ps->skipping_block)
		return ret;
	if ((ret = number_field(ps, "func", c, FUNC_CTX, &f.ctx)) ||
	    (ret = fid_field(ps, "func", c, FUNC_FID, &f.fid)) ||
	    (ret = number_field(ps, "func", c, FUNC_CALLS, &f.calls)) ||
	    (ret = number_field(ps, "func", c, FUNC_INCL, &f.incl_cycles)) ||
	    (ret = number_field(ps, "func", c, FUNC_EXCL, &f.excl_cycles)))
		return ret;
	f.name = name_field(ps, c, FUNC_NAME);
	f.group = name_field(ps, c, FUNC_GROUP);
	if (!f.name || !f.group || ktau__block_append_func(ps->block, &f, ps->line))
		return fail(ps, ENOMEM, "out of memory");
	return 0;
}

static int parse_edge(struct parser *ps)
{
	const struct ktau_columns *c = &ps->edge_cols;
	struct ktau_edge e = { 0 };
	int ret;

	ret = check_record_shape(ps, "edge", c);
	if (ret || ps->skipping_block)
		return ret;
	if ((ret = number_field(ps, "edge", c, EDGE_CTX, &e.ctx)) ||
	    (ret = fid_field(ps, "edge", c, EDGE_PARENT_FID, &e.parent_fid)) ||
	    (ret = fid_field(ps, "edge", c, EDGE_FID, &e.fid)) ||
	    (ret = number_field(ps, "edge", c, EDGE_CALLS, &e.calls)) ||
	    (ret = number_field(ps, "edge", c, EDGE_INCL, &e.incl_cycles)) ||
	    (ret = number_field(ps, "edge", c, EDGE_EXCL, &e.excl_cycles)))
		return ret;
	e.parent = name_field(ps, c, EDGE_PARENT);
	e.name = name_field(ps, c, EDGE_NAME);
	if (!e.parent || !e.name || ktau__block_append_edge(ps->block, &e, ps->line))
		return fail(ps, ENOMEM, "out of memory");
	return 0;
}

/* A comma-separated list of 1 to KTAU_PATH_MAX_DEPTH function ids. */
static int fids_field(struct parser *ps, const char *keyword,
		      const struct ktau_columns *c, size_t field,
		      uint32_t *fids, uint32_t *depth)
{
	size_t i = c->pos[field];
	const char *s = ps->w->word[i], *end = s + ps->w->len[i], *comma;
	uint32_t n = 0;
	uint64_t v;

	do {
		comma = memchr(s, ',', (size_t)(end - s));
		if (!comma)
			comma = end;
		if (n == KTAU_PATH_MAX_DEPTH)
			return fail(ps, EPROTO, "%s: more than %d function ids in " WORD_FMT,
				    keyword, KTAU_PATH_MAX_DEPTH, WORD_ARG(ps->w, i));
		if (comma == s)
			return fail(ps, EPROTO, "%s: empty function id in " WORD_FMT,
				    keyword, WORD_ARG(ps->w, i));
		if (ktau__parse_u64(s, (size_t)(comma - s), &v) || v > UINT32_MAX)
			return fail(ps, EPROTO, "%s: bad function id in " WORD_FMT,
				    keyword, WORD_ARG(ps->w, i));
		fids[n++] = (uint32_t)v;
		s = comma + 1;
	} while (comma != end);
	*depth = n;
	return 0;
}

/* The ctx, fids, name and group fields (at positions first to first + 3)
 * of a path or open line into p. */
static int callpath_fields(struct parser *ps, const char *keyword,
			   const struct ktau_columns *c, size_t first,
			   struct ktau_path *p)
{
	uint32_t fids[KTAU_PATH_MAX_DEPTH];
	int ret;

	if ((ret = number_field(ps, keyword, c, first, &p->ctx)) ||
	    (ret = fids_field(ps, keyword, c, first + 1, fids, &p->depth)))
		return ret;
	p->fids = ktau__block_intern_fids(ps->block, fids, p->depth);
	p->name = name_field(ps, c, first + 2);
	p->group = name_field(ps, c, first + 3);
	if (!p->fids || !p->name || !p->group)
		return fail(ps, ENOMEM, "out of memory");
	return 0;
}

static int parse_path(struct parser *ps)
{
	const struct ktau_columns *c = &ps->path_cols;
	struct ktau_path p = { 0 };
	int ret;

	ret = check_record_shape(ps, "path", c);
	if (ret || ps->skipping_block)
		return ret;
	if ((ret = callpath_fields(ps, "path", c, PATH_CTX, &p)) ||
	    (ret = number_field(ps, "path", c, PATH_CALLS, &p.calls)) ||
	    (ret = number_field(ps, "path", c, PATH_INCL, &p.incl_cycles)) ||
	    (ret = number_field(ps, "path", c, PATH_EXCL, &p.excl_cycles)))
		return ret;
	if (ktau__block_append_path(ps->block, &p, ps->line))
		return fail(ps, ENOMEM, "out of memory");
	return 0;
}

static int parse_open(struct parser *ps)
{
	const struct ktau_columns *c = &ps->open_cols;
	struct ktau_path p = { 0 };
	struct ktau_open o = { 0 };
	uint64_t tid;
	int ret;

	ret = check_record_shape(ps, "open", c);
	if (ret || ps->skipping_block)
		return ret;
	if ((ret = number_field(ps, "open", c, OPEN_TID, &tid)))
		return ret;
	if (tid > INT_MAX)
		return fail(ps, EPROTO, "open: tid %llu out of range", (unsigned long long)tid);
	if ((ret = callpath_fields(ps, "open", c, OPEN_CTX, &p)) ||
	    (ret = number_field(ps, "open", c, OPEN_INCL, &o.incl_cycles)) ||
	    (ret = number_field(ps, "open", c, OPEN_EXCL, &o.excl_cycles)))
		return ret;
	o.tid = (pid_t)tid;
	o.ctx = p.ctx;
	o.depth = p.depth;
	o.fids = p.fids;
	o.name = p.name;
	o.group = p.group;
	if (ktau__block_append_open(ps->block, &o, ps->line))
		return fail(ps, ENOMEM, "out of memory");
	return 0;
}

static int parse_event(struct parser *ps)
{
	const struct ktau_columns *c = &ps->event_cols;
	struct ktau_event ev = { 0 };
	int ret;

	ret = check_record_shape(ps, "event", c);
	if (ret || ps->skipping_block)
		return ret;
	if ((ret = number_field(ps, "event", c, EVENT_CTX, &ev.ctx)) ||
	    (ret = fid_field(ps, "event", c, EVENT_FID, &ev.fid)) ||
	    (ret = number_field(ps, "event", c, EVENT_COUNT, &ev.count)) ||
	    (ret = number_field(ps, "event", c, EVENT_MIN, &ev.min)) ||
	    (ret = number_field(ps, "event", c, EVENT_MAX, &ev.max)) ||
	    (ret = number_field(ps, "event", c, EVENT_SUM, &ev.sum)) ||
	    (ret = number_field(ps, "event", c, EVENT_SUMSQ, &ev.sumsq)))
		return ret;
	ev.name = name_field(ps, c, EVENT_NAME);
	if (!ev.name || ktau__block_append_event(ps->block, &ev, ps->line))
		return fail(ps, ENOMEM, "out of memory");
	return 0;
}

static int check_header_complete(struct parser *ps)
{
	if (!ps->seen_tsc_khz)
		return fail(ps, EPROTO, "missing 'tsc_khz' header line");
	if (!ps->seen_scope)
		return fail(ps, EPROTO, "missing 'scope' header line");
	return 0;
}

static int header_line_allowed(struct parser *ps, const char *keyword)
{
	if (!ps->in_header)
		return fail(ps, EPROTO, "header line '%s' after the first task line",
			    keyword);
	if (ps->w->count < 2)
		return fail(ps, EPROTO, "'%s' without a value", keyword);
	return 0;
}

static int parse_tsc_khz(struct parser *ps)
{
	int ret = header_line_allowed(ps, "tsc_khz");

	if (ret)
		return ret;
	if (ps->seen_tsc_khz)
		return fail(ps, EPROTO, "second 'tsc_khz' line");
	if (ktau__parse_u64(ps->w->word[1], ps->w->len[1], &ps->p->tsc_khz))
		return fail(ps, EPROTO, "tsc_khz: not an unsigned 64-bit decimal: "
			    WORD_FMT, WORD_ARG(ps->w, 1));
	ps->seen_tsc_khz = true;
	return 0;
}

static int parse_scope(struct parser *ps)
{
	static const struct {
		const char *name;
		enum ktau_scope scope;
	} scopes[] = {
		{ "thread", KTAU_SCOPE_THREAD },
		{ "process", KTAU_SCOPE_PROCESS },
		{ "system", KTAU_SCOPE_SYSTEM },
	};
	int ret = header_line_allowed(ps, "scope");
	size_t i;

	if (ret)
		return ret;
	if (ps->seen_scope)
		return fail(ps, EPROTO, "second 'scope' line");
	for (i = 0; i < KTAU_ARRAY_SIZE(scopes); i++) {
		if (ktau__word_is(ps->w->word[1], ps->w->len[1], scopes[i].name)) {
			ps->p->scope = scopes[i].scope;
			ps->seen_scope = true;
			return 0;
		}
	}
	return fail(ps, EPROTO, "unknown scope " WORD_FMT, WORD_ARG(ps->w, 1));
}

static int parse_columns(struct parser *ps)
{
	const struct ktau_words *w = ps->w;
	struct ktau_columns *c;
	int ret = header_line_allowed(ps, "columns");

	if (ret)
		return ret;
	if (ktau__word_is(w->word[1], w->len[1], "func"))
		c = &ps->func_cols;
	else if (ktau__word_is(w->word[1], w->len[1], "edge"))
		c = &ps->edge_cols;
	else if (ktau__word_is(w->word[1], w->len[1], "event"))
		c = &ps->event_cols;
	else if (ktau__word_is(w->word[1], w->len[1], "path"))
		c = &ps->path_cols;
	else if (ktau__word_is(w->word[1], w->len[1], "open"))
		c = &ps->open_cols;
	else
		return 0;	/* columns of a record kind we do not read */
	return ktau__columns_from_line(c, w, 2, 1, ps->line, ps->err);
}

struct task_fields {
	const char *kind;
	size_t kind_len;
	const char *comm;
	size_t comm_len;
	uint64_t pid, tid, threads, exited_threads, processes, dropped, private_processes;
	uint64_t pending;
	unsigned int seen;
};

enum { SEEN_KIND = 1, SEEN_PID = 2, SEEN_TID = 4, SEEN_COMM = 8 };

static int parse_task_field(struct parser *ps, size_t i, struct task_fields *t)
{
	static const struct {
		const char *key;
		size_t offset;
	} numbers[] = {
		{ "pid", offsetof(struct task_fields, pid) },
		{ "tid", offsetof(struct task_fields, tid) },
		{ "threads", offsetof(struct task_fields, threads) },
		{ "exited_threads", offsetof(struct task_fields, exited_threads) },
		{ "processes", offsetof(struct task_fields, processes) },
		{ "dropped", offsetof(struct task_fields, dropped) },
		{ "private", offsetof(struct task_fields, private_processes) },
		{ "pending", offsetof(struct task_fields, pending) },
	};
	const char *word = ps->w->word[i], *eq, *val;
	size_t len = ps->w->len[i], key_len, val_len, k;

	eq = memchr(word, '=', len);
	if (!eq || eq == word)
		return fail(ps, EPROTO, "task: field " WORD_FMT " is not key=value",
			    WORD_ARG(ps->w, i));
	key_len = (size_t)(eq - word);
	val = eq + 1;
	val_len = len - key_len - 1;

	if (ktau__word_is(word, key_len, "kind") || ktau__word_is(word, key_len, "comm")) {
		bool is_kind = ktau__word_is(word, key_len, "kind");
		unsigned int bit = is_kind ? SEEN_KIND : SEEN_COMM;

		if (t->seen & bit)
			goto twice;
		t->seen |= bit;
		if (is_kind) {
			t->kind = val;
			t->kind_len = val_len;
		} else {
			t->comm = val;
			t->comm_len = val_len;
		}
		return 0;
	}
	for (k = 0; k < KTAU_ARRAY_SIZE(numbers); k++) {
		unsigned int bit = 16u << k;

		if (!ktau__word_is(word, key_len, numbers[k].key))
			continue;
		if (t->seen & bit)
			goto twice;
		t->seen |= bit;
		if (k == 0)
			t->seen |= SEEN_PID;
		if (k == 1)
			t->seen |= SEEN_TID;
		if (ktau__parse_u64(val, val_len, (uint64_t *)((char *)t + numbers[k].offset)))
			return fail(ps, EPROTO, "task: %s is not an unsigned 64-bit decimal: "
				    WORD_FMT, numbers[k].key, WORD_ARG(ps->w, i));
		return 0;
	}
	return 0;	/* a key from a later version */
twice:
	return fail(ps, EPROTO, "task: key '%.*s' given twice", (int)key_len, word);
}

static int task_kind(const char *s, size_t len, enum ktau_block_kind *kind)
{
	static const struct {
		const char *name;
		enum ktau_block_kind kind;
	} kinds[] = {
		{ "thread", KTAU_BLOCK_THREAD },
		{ "process", KTAU_BLOCK_PROCESS },
		{ "exited", KTAU_BLOCK_EXITED },
		{ "children", KTAU_BLOCK_CHILDREN },
	};
	size_t i;

	for (i = 0; i < KTAU_ARRAY_SIZE(kinds); i++) {
		if (ktau__word_is(s, len, kinds[i].name)) {
			*kind = kinds[i].kind;
			return 0;
		}
	}
	return -ENOENT;
}

static int parse_task(struct parser *ps)
{
	struct task_fields t = { 0 };
	enum ktau_block_kind kind;
	struct ktau_block *b;
	size_t i;
	int ret;

	if (ps->in_header) {
		ret = check_header_complete(ps);
		if (ret)
			return ret;
		ps->in_header = false;
	}
	for (i = 1; i < ps->w->count; i++) {
		ret = parse_task_field(ps, i, &t);
		if (ret)
			return ret;
	}
	if (!(t.seen & SEEN_KIND))
		return fail(ps, EPROTO, "task: no kind=");
	if (!(t.seen & SEEN_PID))
		return fail(ps, EPROTO, "task: no pid=");
	if (!(t.seen & SEEN_TID))
		return fail(ps, EPROTO, "task: no tid=");
	if (t.pid > INT_MAX || t.tid > INT_MAX)
		return fail(ps, EPROTO, "task: pid or tid out of range");
	if (task_kind(t.kind, t.kind_len, &kind)) {
		/* a block kind from a later version: skip it whole */
		ps->skipping_block = true;
		ps->block = NULL;
		return 0;
	}
	ps->skipping_block = false;
	if (!(t.seen & SEEN_COMM)) {
		t.comm = "-";
		t.comm_len = 1;
	}
	b = ktau__profile_append_block(ps->p, kind, (pid_t)t.pid, (pid_t)t.tid,
				       t.comm, t.comm_len);
	if (!b)
		return fail(ps, ENOMEM, "out of memory");
	b->threads = t.threads;
	b->exited_threads = t.exited_threads;
	b->processes = t.processes;
	b->dropped = t.dropped;
	b->private_processes = t.private_processes;
	b->pending = t.pending;
	b->line = ps->line;
	b->edges_own = ps->p->version == 1;
	ps->block = b;
	return 0;
}

static int parse_end(struct parser *ps)
{
	if (ps->in_header) {
		int ret = check_header_complete(ps);

		if (ret)
			return ret;
		ps->in_header = false;
	}
	ps->ended = true;
	return 0;
}

static int parse_first_line(struct parser *ps)
{
	const struct ktau_words *w = ps->w;
	uint64_t version;

	if (!w->count || !ktau__word_is(w->word[0], w->len[0], "ktau-profile"))
		return fail(ps, EPROTO, "not a ktau profile (the first line is not "
			    "'ktau-profile <version>')");
	if (w->count < 2 || ktau__parse_u64(w->word[1], w->len[1], &version))
		return fail(ps, EPROTO, "ktau-profile: missing or bad format version");
	if (version < KTAU_PROFILE_FORMAT_VERSION_MIN || version > KTAU_PROFILE_FORMAT_VERSION)
		return fail(ps, EPROTONOSUPPORT,
			    "format version %llu is not supported (this library reads %d to %d)",
			    (unsigned long long)version, KTAU_PROFILE_FORMAT_VERSION_MIN,
			    KTAU_PROFILE_FORMAT_VERSION);
	ps->p->version = (unsigned int)version;
	return 0;
}

static int parse_line(struct parser *ps)
{
	enum { V1 = 1 << 1, V2 = 1 << 2, ALL = V1 | V2 };
	static const struct {
		const char *keyword;
		int (*parse)(struct parser *ps);
		unsigned int versions;
	} keywords[] = {
		{ "func", parse_func, ALL },
		{ "edge", parse_edge, V1 },
		{ "path", parse_path, V2 },
		{ "event", parse_event, ALL },
		{ "open", parse_open, V2 },
		{ "task", parse_task, ALL },
		{ "tsc_khz", parse_tsc_khz, ALL },
		{ "scope", parse_scope, ALL },
		{ "columns", parse_columns, ALL },
		{ "end", parse_end, ALL },
	};
	const struct ktau_words *w = ps->w;
	size_t i;

	if (ps->line == 1)
		return parse_first_line(ps);
	if (!w->count)
		return 0;
	if (ps->ended)
		return fail(ps, EPROTO, "data after 'end'");
	for (i = 0; i < KTAU_ARRAY_SIZE(keywords); i++)
		if ((keywords[i].versions & 1u << ps->p->version) &&
		    ktau__word_is(w->word[0], w->len[0], keywords[i].keyword))
			return keywords[i].parse(ps);
	return 0;	/* a record kind from a later version */
}

static void parser_init(struct parser *ps, struct ktau_profile *p,
			struct ktau_parse_error *err)
{
	memset(ps, 0, sizeof(*ps));
	ps->p = p;
	ps->err = err;
	ps->in_header = true;
	ktau__columns_default(&ps->func_cols, func_fields, KTAU_ARRAY_SIZE(func_fields), 1);
	ktau__columns_default(&ps->edge_cols, edge_fields, KTAU_ARRAY_SIZE(edge_fields), 1);
	ktau__columns_default(&ps->event_cols, event_fields, KTAU_ARRAY_SIZE(event_fields), 1);
	ktau__columns_default(&ps->path_cols, path_fields, KTAU_ARRAY_SIZE(path_fields), 1);
	ktau__columns_default(&ps->open_cols, open_fields, KTAU_ARRAY_SIZE(open_fields), 1);
}

static int parse_all(struct parser *ps, const char *buf, size_t len)
{
	struct ktau_line_reader lines;
	struct ktau_words words;
	const char *line;
	size_t line_len;
	int ret;

	ps->w = &words;
	ktau__lines_init(&lines, buf, len);
	while ((ret = ktau__lines_next(&lines, &line, &line_len, ps->err)) > 0) {
		ps->line = lines.line;
		ret = ktau__split_words(line, line_len, &words, ps->line, ps->err);
		if (ret)
			return ret;
		ret = parse_line(ps);
		if (ret)
			return ret;
	}
	if (ret < 0)
		return ret;
	if (!lines.line)
		return ktau__fail(ps->err, EPROTO, 0, "empty input");
	if (!ps->ended)
		return ktau__fail(ps->err, EPROTO, lines.line,
				  "truncated: no 'end' line");
	return 0;
}

static void *profile_create(void)
{
	return ktau_profile_new(KTAU_SCOPE_PROCESS, 0);
}

static int profile_parse_text(void *obj, const char *buf, size_t len,
			      struct ktau_parse_error *err)
{
	struct parser ps;
	struct ktau_profile *p = obj;
	size_t i;
	int ret;

	parser_init(&ps, p, err);
	ret = parse_all(&ps, buf, len);
	for (i = 0; i < p->nr_blocks && !ret; i++)
		if (ktau__block_derive(p->blocks[i]))
			ret = ktau__fail(err, ENOMEM, 0, "out of memory");
	return ret;
}

static void profile_destroy(void *obj)
{
	ktau_profile_free(obj);
}

const struct ktau_parser_ops ktau__profile_parser = {
	profile_create, profile_parse_text, profile_destroy,
};

struct ktau_profile *ktau_profile_parse(const char *buf, size_t len,
					struct ktau_error **err)
{
	struct ktau_parse_error pe;

	return ktau__ret_ptr(ktau__parse_text(&ktau__profile_parser, buf, len, &pe),
			     &pe, err);
}
