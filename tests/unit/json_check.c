// SPDX-License-Identifier: GPL-2.0-or-later
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "json_check.h"

struct reader {
	const char *s;
};

static struct json *value(struct reader *r, int depth);

static void skip_ws(struct reader *r)
{
	while (*r->s == ' ' || *r->s == '\t' || *r->s == '\n' || *r->s == '\r')
		r->s++;
}

static struct json *node(enum json_type type)
{
	struct json *j = calloc(1, sizeof(*j));

	if (j)
		j->type = type;
	return j;
}

static int push(struct json *j, struct json *item, char *key)
{
	struct json **items = realloc(j->items, (j->count + 1) * sizeof(*items));
	char **keys = realloc(j->keys, (j->count + 1) * sizeof(*keys));

	if (items)
		j->items = items;
	if (keys)
		j->keys = keys;
	if (!items || !keys)
		return -1;
	j->items[j->count] = item;
	j->keys[j->count++] = key;
	return 0;
}

/* A string at r->s (on the opening quote); the value malloc()ed. */
static char *string(struct reader *r)
{
	const char *p = r->s + 1;
	size_t n = 0;
	char *out;

	out = malloc(strlen(p) + 1);
	if (!out)
		return NULL;
	for (; *p != '"'; p++) {
		if ((unsigned char)*p < 0x20)
			goto bad;
		if (*p == '\\') {
			p++;
			if (!strchr("\"\\/bfnrt", *p))
				goto bad;	/* \u is not needed by our writers */
			out[n++] = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
			continue;
		}
		out[n++] = *p;
	}
	out[n] = '\0';
	r->s = p + 1;
	return out;
bad:
	r->s = p;
	free(out);
	return NULL;
}

static struct json *number(struct reader *r)
{
	const char *p = r->s;
	struct json *j;

	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (isdigit((unsigned char)*p))
			p++;
	else
		return NULL;
	if (*p == '.') {
		if (!isdigit((unsigned char)*++p))
			return NULL;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!isdigit((unsigned char)*p))
			return NULL;
		while (isdigit((unsigned char)*p))
			p++;
	}
	j = node(JSON_NUMBER);
	if (!j)
		return NULL;
	j->text = strndup(r->s, (size_t)(p - r->s));
	r->s = p;
	return j;
}

static struct json *container(struct reader *r, int depth, int is_object)
{
	struct json *j = node(is_object ? JSON_OBJECT : JSON_ARRAY);
	char close = is_object ? '}' : ']';

	if (!j)
		return NULL;
	r->s++;
	skip_ws(r);
	if (*r->s == close) {
		r->s++;
		return j;
	}
	for (;;) {
		char *key = NULL;
		struct json *item;

		skip_ws(r);
		if (is_object) {
			if (*r->s != '"' || !(key = string(r)))
				goto bad;
			skip_ws(r);
			if (*r->s++ != ':') {
				free(key);
				goto bad;
			}
		}
		item = value(r, depth + 1);
		if (!item || push(j, item, key)) {
			json_free(item);
			free(key);
			goto bad;
		}
		skip_ws(r);
		if (*r->s == close) {
			r->s++;
			return j;
		}
		if (*r->s++ != ',')
			goto bad;
	}
bad:
	json_free(j);
	return NULL;
}

static struct json *literal(struct reader *r, const char *word, enum json_type type)
{
	struct json *j;

	if (strncmp(r->s, word, strlen(word)))
		return NULL;
	j = node(type);
	if (j) {
		j->text = strdup(word);
		r->s += strlen(word);
	}
	return j;
}

static struct json *value(struct reader *r, int depth)
{
	struct json *j;

	if (depth > 64)
		return NULL;
	skip_ws(r);
	switch (*r->s) {
	case '{':
		return container(r, depth, 1);
	case '[':
		return container(r, depth, 0);
	case '"':
		j = node(JSON_STRING);
		if (!j)
			return NULL;
		j->text = string(r);
		if (!j->text) {
			free(j);
			return NULL;
		}
		return j;
	case 't':
		return literal(r, "true", JSON_BOOL);
	case 'f':
		return literal(r, "false", JSON_BOOL);
	case 'n':
		return literal(r, "null", JSON_NULL);
	default:
		return number(r);
	}
}

struct json *json_parse(const char *text, size_t *error_at)
{
	struct reader r = { text };
	struct json *j = value(&r, 0);

	if (j) {
		skip_ws(&r);
		if (!*r.s)
			return j;
		json_free(j);
	}
	if (error_at)
		*error_at = (size_t)(r.s - text);
	return NULL;
}

void json_free(struct json *j)
{
	size_t i;

	if (!j)
		return;
	for (i = 0; i < j->count; i++) {
		json_free(j->items[i]);
		free(j->keys[i]);
	}
	free(j->items);
	free(j->keys);
	free(j->text);
	free(j);
}

const struct json *json_get(const struct json *j, const char *key)
{
	size_t i;

	for (i = 0; j && j->type == JSON_OBJECT && i < j->count; i++)
		if (!strcmp(j->keys[i], key))
			return j->items[i];
	return NULL;
}

const struct json *json_at(const struct json *j, size_t index)
{
	return j && j->type == JSON_ARRAY && index < j->count ? j->items[index] : NULL;
}

uint64_t json_u64(const struct json *j)
{
	const char *p;
	uint64_t v = 0;

	if (!j || j->type != JSON_NUMBER)
		return UINT64_MAX;
	for (p = j->text; *p; p++) {
		if (!isdigit((unsigned char)*p))
			return UINT64_MAX;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	return v;
}

const char *json_str(const struct json *j)
{
	return j && j->type == JSON_STRING ? j->text : NULL;
}

const struct json *json_find(const struct json *j, const char *key, const char *value)
{
	size_t i;

	for (i = 0; j && j->type == JSON_ARRAY && i < j->count; i++) {
		const char *s = json_str(json_get(j->items[i], key));

		if (s && !strcmp(s, value))
			return j->items[i];
	}
	return NULL;
}
