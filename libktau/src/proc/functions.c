// SPDX-License-Identifier: LGPL-2.1-or-later
/* The function id map, /proc/ktau/functions (docs/proc-format.md). */
#define _GNU_SOURCE	/* qsort_r */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "proc/proc.h"

struct ktau_functions {
	struct ktau_function *funcs;	/* file order */
	size_t nr_funcs, cap_funcs;
	size_t *by_fid;			/* indexes into funcs, sorted by fid */
	struct ktau_strpool strings;
};

static const char *const map_fields[] = { "fid", "group", "name" };
enum { MAP_FID, MAP_GROUP, MAP_NAME };

void ktau_functions_free(struct ktau_functions *map)
{
	int saved = errno;

	if (!map)
		return;
	free(map->funcs);
	free(map->by_fid);
	ktau__strpool_free(&map->strings);
	free(map);
	errno = saved;
}

static int is_number(const char *s, size_t len)
{
	uint64_t v;

	return ktau__parse_u64(s, len, &v) == 0;
}

static int parse_record(struct ktau_functions *map, const struct ktau_columns *c,
			const struct ktau_words *w, unsigned int line,
			struct ktau_parse_error *err)
{
	struct ktau_function *f;
	uint64_t fid;
	size_t i;

	if (w->count < c->min_words)
		return ktau__fail(err, EPROTO, line, "%zu fields, expected %zu",
				  w->count, c->min_words);
	i = c->pos[MAP_FID];
	if (ktau__parse_u64(w->word[i], w->len[i], &fid))
		return ktau__fail(err, EPROTO, line, "fid is not an unsigned decimal");
	if (fid > UINT32_MAX)
		return ktau__fail(err, EPROTO, line, "function id %llu out of range",
				  (unsigned long long)fid);
	if (ktau__grow((void **)&map->funcs, &map->cap_funcs, map->nr_funcs,
		       sizeof(*map->funcs)))
		return ktau__fail(err, ENOMEM, line, "out of memory");
	f = &map->funcs[map->nr_funcs];
	f->fid = (uint32_t)fid;
	i = c->pos[MAP_GROUP];
	f->group = ktau__strpool_add(&map->strings, w->word[i], w->len[i]);
	i = c->pos[MAP_NAME];
	f->name = ktau__strpool_add(&map->strings, w->word[i], w->len[i]);
	if (!f->group || !f->name)
		return ktau__fail(err, ENOMEM, line, "out of memory");
	map->nr_funcs++;
	return 0;
}

/*
 * Records have no keyword: a line is a record when its first word is a
 * number. So the fid must stay the first column; the others may move.
 */
static int parse_columns(struct ktau_columns *cols, const struct ktau_words *w,
			 unsigned int line, struct ktau_parse_error *err)
{
	int ret = ktau__columns_from_line(cols, w, 1, 0, line, err);

	if (ret)
		return ret;
	if (cols->pos[MAP_FID] != 0)
		return ktau__fail(err, EPROTO, line, "columns: fid must be the first field");
	return 0;
}

static int parse_first_line(const struct ktau_words *w, struct ktau_parse_error *err)
{
	uint64_t version;

	if (!w->count || !ktau__word_is(w->word[0], w->len[0], "ktau-functions"))
		return ktau__fail(err, EPROTO, 1, "not a ktau function map (the first "
				  "line is not 'ktau-functions <version>')");
	if (w->count < 2 || ktau__parse_u64(w->word[1], w->len[1], &version))
		return ktau__fail(err, EPROTO, 1,
				  "ktau-functions: missing or bad format version");
	if (version != KTAU_FUNCTIONS_FORMAT_VERSION)
		return ktau__fail(err, EPROTONOSUPPORT, 1,
				  "format version %llu is not supported (this library reads %d)",
				  (unsigned long long)version, KTAU_FUNCTIONS_FORMAT_VERSION);
	return 0;
}

static int cmp_fid(const void *a, const void *b, void *arg)
{
	const struct ktau_functions *map = arg;
	uint32_t fa = map->funcs[*(const size_t *)a].fid;
	uint32_t fb = map->funcs[*(const size_t *)b].fid;

	return fa < fb ? -1 : fa > fb;
}

static int build_fid_index(struct ktau_functions *map, struct ktau_parse_error *err)
{
	size_t i;

	map->by_fid = malloc((map->nr_funcs ? map->nr_funcs : 1) * sizeof(*map->by_fid));
	if (!map->by_fid)
		return ktau__fail(err, ENOMEM, 0, "out of memory");
	for (i = 0; i < map->nr_funcs; i++)
		map->by_fid[i] = i;
	qsort_r(map->by_fid, map->nr_funcs, sizeof(*map->by_fid), cmp_fid, map);
	for (i = 1; i < map->nr_funcs; i++) {
		const struct ktau_function *f = &map->funcs[map->by_fid[i]];

		if (f->fid == map->funcs[map->by_fid[i - 1]].fid)
			return ktau__fail(err, EPROTO, 0, "function id %u listed twice",
					  (unsigned int)f->fid);
	}
	return 0;
}

static int parse_map(struct ktau_functions *map, const char *buf, size_t len,
		     struct ktau_parse_error *err)
{
	struct ktau_line_reader lines;
	struct ktau_columns cols;
	struct ktau_words w;
	const char *line;
	size_t line_len;
	int ret;

	ktau__columns_default(&cols, map_fields, 3, 0);
	ktau__lines_init(&lines, buf, len);
	while ((ret = ktau__lines_next(&lines, &line, &line_len, err)) > 0) {
		ret = ktau__split_words(line, line_len, &w, lines.line, err);
		if (ret)
			return ret;
		if (lines.line == 1)
			ret = parse_first_line(&w, err);
		else if (!w.count)
			ret = 0;
		else if (is_number(w.word[0], w.len[0]))
			ret = parse_record(map, &cols, &w, lines.line, err);
		else if (ktau__word_is(w.word[0], w.len[0], "columns"))
			ret = parse_columns(&cols, &w, lines.line, err);
		/* else: a keyword from a later version */
		if (ret)
			return ret;
	}
	if (ret < 0)
		return ret;
	if (!lines.line)
		return ktau__fail(err, EPROTO, 0, "empty input");
	/* the map has no 'end' line; a cut-off last line is the only sign of a
	 * short read that can be seen */
	if (buf[len - 1] != '\n')
		return ktau__fail(err, EPROTO, lines.line,
				  "truncated: the last line has no newline");
	return build_fid_index(map, err);
}

static void *map_create(void)
{
	return calloc(1, sizeof(struct ktau_functions));
}

static int map_parse(void *obj, const char *buf, size_t len,
		     struct ktau_parse_error *err)
{
	return parse_map(obj, buf, len, err);
}

static void map_destroy(void *obj)
{
	ktau_functions_free(obj);
}

const struct ktau_parser_ops ktau__functions_parser = { map_create, map_parse, map_destroy };

struct ktau_functions *ktau_functions_parse(const char *buf, size_t len,
					    struct ktau_error **err)
{
	struct ktau_parse_error pe;

	return ktau__ret_ptr(ktau__parse_text(&ktau__functions_parser, buf, len, &pe), &pe, err);
}

struct ktau_functions *ktau_functions_load(const struct ktau_load_opts *opts,
					   struct ktau_error **err)
{
	struct ktau_parse_error pe;

	ktau__clear_error(&pe);
	return ktau__ret_ptr(ktau__load_parse(&ktau__functions_parser, opts, &pe), &pe, err);
}

struct ktau_functions *ktau_proc_read_functions(struct ktau_proc *proc,
						struct ktau_error **err)
{
	struct ktau_parse_error pe;

	return ktau__ret_ptr(ktau__proc_parse_file(proc, "ktau/functions",
						   &ktau__functions_parser, &pe), &pe, err);
}

size_t ktau_functions_count(const struct ktau_functions *map)
{
	return map->nr_funcs;
}

const struct ktau_function *ktau_functions_get(const struct ktau_functions *map,
					       size_t index)
{
	if (index >= map->nr_funcs) {
		errno = ERANGE;
		return NULL;
	}
	return &map->funcs[index];
}

const struct ktau_function *ktau_functions_find_fid(const struct ktau_functions *map,
						    uint32_t fid)
{
	size_t lo = 0, hi = map->nr_funcs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct ktau_function *f = &map->funcs[map->by_fid[mid]];

		if (f->fid == fid)
			return f;
		if (f->fid < fid)
			lo = mid + 1;
		else
			hi = mid;
	}
	errno = ENOENT;
	return NULL;
}

const struct ktau_function *ktau_functions_find_name(const struct ktau_functions *map,
						     const char *name)
{
	size_t i;

	for (i = 0; i < map->nr_funcs; i++)
		if (!strcmp(map->funcs[i].name, name))
			return &map->funcs[i];
	errno = ENOENT;
	return NULL;
}
