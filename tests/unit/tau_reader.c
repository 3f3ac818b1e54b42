// SPDX-License-Identifier: GPL-2.0-or-later
/* See tau_reader.h. Independent of libktau on purpose. */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tau_reader.h"

#define SEP " => "

static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* The next line (NUL-terminated in place), or NULL at the end. */
static char *next_line(char **pos)
{
	char *line = *pos, *nl;

	if (!line || !*line)
		return NULL;
	nl = strchr(line, '\n');
	if (nl) {
		*nl = '\0';
		*pos = nl + 1;
	} else {
		*pos = line + strlen(line);
	}
	return line;
}

static bool good_number(double v)
{
	return isfinite(v) && v >= 0;
}

/* "<name>" rest: the name (malloc()ed) and where rest starts. */
static char *quoted(const char *line, const char **rest)
{
	const char *end;

	if (line[0] != '"' || !(end = strchr(line + 1, '"')))
		return NULL;
	*rest = end + 1;
	return strndup(line + 1, (size_t)(end - line - 1));
}

static int parse_entry(const char *line, struct tau_entry *e, char *err, size_t len)
{
	const char *rest;
	char group[512];
	unsigned long long calls, subrs;
	int pcalls, used = -1;

	e->name = quoted(line, &rest);
	if (!e->name)
		return fail(err, len, "no quoted name: %s", line);
	if (sscanf(rest, " %llu %llu %lf %lf %d GROUP=\"%511[^\"]\"%n", &calls, &subrs,
		   &e->excl, &e->incl, &pcalls, group, &used) != 6 || used < 0 || rest[used])
		return fail(err, len, "bad function line: %s", line);
	if (pcalls != 0 || !good_number(e->excl) || !good_number(e->incl))
		return fail(err, len, "bad numbers: %s", line);
	if (strstr(e->name, "  ") || e->name[0] == ' ')
		return fail(err, len, "blanks not collapsed: %s", line);
	e->calls = calls;
	e->subrs = subrs;
	e->group = strdup(group);
	return 0;
}

static int parse_event(const char *line, struct tau_event *e, char *err, size_t len)
{
	const char *rest;
	unsigned long long count;
	int used = -1;

	e->name = quoted(line, &rest);
	if (!e->name)
		return fail(err, len, "no quoted event name: %s", line);
	if (sscanf(rest, " %llu %lf %lf %lf %lf%n", &count, &e->max, &e->min, &e->mean,
		   &e->sumsq, &used) != 5 || used < 0 || rest[used] || !count)
		return fail(err, len, "bad event line: %s", line);
	if (!isfinite(e->max) || !isfinite(e->min) || !isfinite(e->mean) ||
	    !isfinite(e->sumsq))
		return fail(err, len, "non-finite event value: %s", line);
	e->count = count;
	return 0;
}

static const struct tau_entry *find_flat(const struct tau_profile *p, const char *name,
					 size_t len)
{
	size_t i;

	for (i = 0; i < p->nr_entries; i++)
		if (!strstr(p->entries[i].name, "=>") && strlen(p->entries[i].name) == len &&
		    !strncmp(p->entries[i].name, name, len))
			return &p->entries[i];
	return NULL;
}

/* TAU's callpath group: "TAU_CALLPATH | " and the leaf's primary group,
 * its first word up to a blank or '|' (TAU's RtsLayer::PrimaryGroup);
 * "TAU_CALLPATH" alone when the leaf has none. */
static bool callpath_group_ok(const char *group, const char *leaf_group)
{
	char primary[512], want[600];
	const char *g = leaf_group;
	size_t n = 0;

	while (*g == ' ' || *g == '|')
		g++;
	while (*g && *g != ' ' && *g != '|' && n + 1 < sizeof(primary))
		primary[n++] = *g++;
	primary[n] = '\0';
	if (n)
		snprintf(want, sizeof(want), "TAU_CALLPATH | %s", primary);
	else
		snprintf(want, sizeof(want), "TAU_CALLPATH");
	return !strcmp(group, want);
}

static int check_callpaths(const struct tau_profile *p, char *err, size_t len)
{
	size_t i;

	for (i = 0; i < p->nr_entries; i++) {
		const struct tau_entry *e = &p->entries[i];
		const char *s = e->name;
		const struct tau_entry *flat = NULL;

		if (!strstr(s, "=>"))
			continue;
		for (;;) {
			const char *sep = strstr(s, SEP);
			size_t n = sep ? (size_t)(sep - s) : strlen(s);

			flat = find_flat(p, s, n);
			if (!flat)
				return fail(err, len, "element '%.*s' of %s has no flat entry",
					    (int)n, s, e->name);
			if (!sep)
				break;
			s = sep + strlen(SEP);
		}
		/* flat: the leaf's entry */
		if (!callpath_group_ok(e->group, flat->group))
			return fail(err, len, "callpath %s in group '%s', its leaf in '%s'",
				    e->name, e->group, flat->group);
	}
	return 0;
}

static int parse_header(char **pos, struct tau_profile *p, size_t *n, char *err, size_t len)
{
	char *line = next_line(pos), *md;
	int used = -1;

	if (!line || sscanf(line, "%zu templated_functions_MULTI_%63s%n", n, p->metric,
			    &used) != 2 || line[used])
		return fail(err, len, "bad first line: %s", line ? line : "(none)");
	line = next_line(pos);
	if (!line || strncmp(line, "# Name Calls Subrs Excl Incl ProfileCalls # ", 44))
		return fail(err, len, "bad second line");
	md = line + 44;
	if (strncmp(md, "<metadata>", 10) || strcmp(md + strlen(md) - 11, "</metadata>"))
		return fail(err, len, "metadata not one <metadata> element");
	for (const char *c = md; *c; c++)
		if ((unsigned char)*c >= 0x80 || (*c == '&' && !strchr(c, ';')))
			return fail(err, len, "unescaped metadata at %.20s", c);
	p->metadata = strdup(md);
	return 0;
}

int tau_parse(const char *text, struct tau_profile *p, char *err, size_t len)
{
	char *copy = strdup(text), *pos = copy, *line;
	size_t n, i;
	int ret = -1;

	memset(p, 0, sizeof(*p));
	if (!copy || parse_header(&pos, p, &n, err, len))
		goto out;
	p->entries = calloc(n + 1, sizeof(*p->entries));
	for (i = 0; i < n; i++) {
		line = next_line(&pos);
		if (!line) {
			fail(err, len, "%zu function lines announced, %zu found", n, i);
			goto out;
		}
		p->nr_entries++;
		if (parse_entry(line, &p->entries[i], err, len))
			goto out;
	}
	line = next_line(&pos);
	if (!line || strcmp(line, "0 aggregates")) {
		fail(err, len, "expected '0 aggregates', got %s", line ? line : "(end)");
		goto out;
	}
	line = next_line(&pos);
	if (line) {
		if (sscanf(line, "%zu userevents", &n) != 1 || !n) {
			fail(err, len, "bad userevents line: %s", line);
			goto out;
		}
		line = next_line(&pos);
		if (!line || strcmp(line, "# eventname numevents max min mean sumsqr")) {
			fail(err, len, "bad userevents header");
			goto out;
		}
		p->events = calloc(n, sizeof(*p->events));
		for (i = 0; i < n; i++) {
			line = next_line(&pos);
			if (!line) {
				fail(err, len, "%zu events announced, %zu found", n, i);
				goto out;
			}
			p->nr_events++;
			if (parse_event(line, &p->events[i], err, len))
				goto out;
		}
		if (next_line(&pos)) {
			fail(err, len, "text after the userevents");
			goto out;
		}
	}
	ret = check_callpaths(p, err, len);
out:
	free(copy);
	return ret;
}

int tau_parse_file(const char *dir, const char *name, struct tau_profile *p,
		   char *err, size_t errlen)
{
	char path[4096], *text = NULL;
	size_t size = 0;
	FILE *in, *mem;
	int c, ret;

	memset(p, 0, sizeof(*p));
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	in = fopen(path, "r");
	if (!in)
		return fail(err, errlen, "cannot open %s", path);
	mem = open_memstream(&text, &size);
	while (mem && (c = getc(in)) != EOF)
		putc(c, mem);
	fclose(in);
	if (!mem || fclose(mem)) {
		free(text);
		return fail(err, errlen, "out of memory reading %s", path);
	}
	ret = tau_parse(text, p, err, errlen);
	free(text);
	return ret;
}

void tau_free(struct tau_profile *p)
{
	size_t i;

	for (i = 0; i < p->nr_entries; i++) {
		free(p->entries[i].name);
		free(p->entries[i].group);
	}
	for (i = 0; i < p->nr_events; i++)
		free(p->events[i].name);
	free(p->entries);
	free(p->events);
	free(p->metadata);
	memset(p, 0, sizeof(*p));
}

const struct tau_entry *tau_find(const struct tau_profile *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nr_entries; i++)
		if (!strcmp(p->entries[i].name, name))
			return &p->entries[i];
	return NULL;
}

const struct tau_event *tau_find_event(const struct tau_profile *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nr_events; i++)
		if (!strcmp(p->events[i].name, name))
			return &p->events[i];
	return NULL;
}

static void unescape(const char *s, size_t n, char *out, size_t size)
{
	static const struct {
		const char *entity, *text;
	} ent[] = { { "&amp;", "&" }, { "&lt;", "<" }, { "&gt;", ">" },
		    { "&quot;", "\"" }, { "&apos;", "'" }, { "&#xa;", "\n" } };
	size_t o = 0, i, k;

	for (i = 0; i < n && o + 1 < size;) {
		for (k = 0; k < sizeof(ent) / sizeof(ent[0]); k++)
			if (!strncmp(s + i, ent[k].entity, strlen(ent[k].entity)))
				break;
		if (k < sizeof(ent) / sizeof(ent[0])) {
			out[o++] = ent[k].text[0];
			i += strlen(ent[k].entity);
		} else {
			out[o++] = s[i++];
		}
	}
	out[o] = '\0';
}

const char *tau_metadata(const struct tau_profile *p, const char *name, char *buf,
			 size_t size)
{
	char key[512];
	const char *v, *end;

	if (!p->metadata)
		return NULL;
	snprintf(key, sizeof(key), "<attribute><name>%s</name><value>", name);
	v = strstr(p->metadata, key);
	if (!v)
		return NULL;
	v += strlen(key);
	end = strstr(v, "</value>");
	if (!end)
		return NULL;
	unescape(v, (size_t)(end - v), buf, size);
	return buf;
}

double tau_children_incl(const struct tau_profile *p, const char *path, size_t *count)
{
	size_t i, plen = strlen(path);
	double sum = 0;

	*count = 0;
	for (i = 0; i < p->nr_entries; i++) {
		const char *n = p->entries[i].name;

		if (!strncmp(n, path, plen) && !strncmp(n + plen, SEP, strlen(SEP)) &&
		    !strstr(n + plen + strlen(SEP), SEP)) {
			sum += p->entries[i].incl;
			(*count)++;
		}
	}
	return sum;
}
