/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A small strict JSON reader for the tests, written without libktau: the
 * tools' --json output is checked by parsing it back with a second reader.
 */
#ifndef KTAU_TEST_JSON_CHECK_H
#define KTAU_TEST_JSON_CHECK_H

#include <stddef.h>
#include <stdint.h>

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json {
	enum json_type type;
	char *text;		/* string value, number as written, object key */
	struct json **items;	/* array elements, object values */
	char **keys;		/* object keys, parallel to items */
	size_t count;
};

/* The whole text must be one JSON value (whitespace around it allowed).
 * NULL on any syntax error, with where in *error_at (byte offset). */
struct json *json_parse(const char *text, size_t *error_at);
void json_free(struct json *j);

/* Object member by key, array element by index; NULL when absent or of
 * another type. */
const struct json *json_get(const struct json *j, const char *key);
const struct json *json_at(const struct json *j, size_t index);
/* A number that is an unsigned integer; -1 (UINT64_MAX) when it is not. */
uint64_t json_u64(const struct json *j);
/* A string's value, or NULL. */
const char *json_str(const struct json *j);
/* The element of array j whose member `key` is the string `value`. */
const struct json *json_find(const struct json *j, const char *key, const char *value);

#endif
