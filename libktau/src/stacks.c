// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Sampled call stacks: the public face. Each input format has its parser
 * (stacks_perf.c, stacks_stap.c, stacks_dtrace.c); they all build the same
 * trie (stacks_trie.c) through one frame-naming rule (stacks_frame.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stacks_internal.h"

typedef int (*stacks_parser)(struct ktau_stacks *s, const char *buf, size_t len,
			     struct ktau_parse_error *err);

static const struct {
	const char *name;
	stacks_parser parse;
} formats[] = {
	[KTAU_STACKS_PERF] = { "perf", ktau__stacks_parse_perf },
	[KTAU_STACKS_STAP] = { "stap", ktau__stacks_parse_stap },
	[KTAU_STACKS_DTRACE] = { "dtrace", ktau__stacks_parse_dtrace },
};

#define NR_FORMATS (sizeof(formats) / sizeof(formats[0]))

int ktau_stacks_format_from_name(const char *name)
{
	size_t i;

	for (i = 1; name && i < NR_FORMATS; i++)
		if (!strcmp(name, formats[i].name))
			return (int)i;
	return -EINVAL;
}

const char *ktau_stacks_format_name(enum ktau_stacks_format format)
{
	if (format <= KTAU_STACKS_AUTO || (size_t)format >= NR_FORMATS) {
		errno = EINVAL;
		return NULL;
	}
	return formats[format].name;
}

void ktau_stacks_free(struct ktau_stacks *s)
{
	if (!s)
		return;
	free(s->frames);
	free(s->nodes);
	free(s->children.keys);
	free(s->children.nodes);
	free(s->pending);
	ktau__index_free(&s->frame_index);
	ktau__strpool_free(&s->strings);
	free(s);
}

struct ktau_stacks *ktau_stacks_parse(const char *buf, size_t len,
				      enum ktau_stacks_format format,
				      struct ktau_parse_error *err)
{
	struct ktau_stacks *s;
	int ret;

	ktau__clear_error(err);
	if ((!buf && len) || (size_t)format >= NR_FORMATS) {
		errno = -ktau__fail(err, EINVAL, 0, "invalid argument");
		return NULL;
	}
	if (format == KTAU_STACKS_AUTO) {
		ret = ktau_stacks_detect(buf, len);
		if (ret < 0) {
			errno = -ktau__fail(err, EPROTO, 0,
					    "not perf script, SystemTap or DTrace stack output "
					    "(no line says which): name the format");
			return NULL;
		}
		format = (enum ktau_stacks_format)ret;
	}
	s = calloc(1, sizeof(*s));
	if (!s || ktau__stacks_add_root(s)) {
		ktau_stacks_free(s);
		errno = -ktau__fail(err, ENOMEM, 0, "out of memory");
		return NULL;
	}
	s->format = format;
	ret = formats[format].parse(s, buf ? buf : "", len, err);
	if (ret) {
		ktau_stacks_free(s);
		errno = -ret;
		return NULL;
	}
	s->nr_pending = 0;
	return s;
}

/* Parses text that was read (or failed to be, text == NULL: errno says
 * why), and frees it; errno is the parser's. */
static struct ktau_stacks *parse_read(char *text, size_t len, const char *what,
				      enum ktau_stacks_format format,
				      struct ktau_parse_error *err)
{
	struct ktau_stacks *s = NULL;
	int error = errno;

	if (text)
		s = ktau_stacks_parse(text, len, format, err);
	else
		ktau__fail(err, error, 0, "%s: %s", what, ktau_strerror(error));
	error = s ? 0 : errno;
	free(text);
	errno = error;
	return s;
}

struct ktau_stacks *ktau_stacks_read_file(const char *path, enum ktau_stacks_format format,
					  struct ktau_parse_error *err)
{
	size_t len = 0;
	char *text;

	ktau__clear_error(err);
	if (!path) {
		errno = -ktau__fail(err, EINVAL, 0, "NULL path");
		return NULL;
	}
	text = ktau__read_path_all(path, &len);
	return parse_read(text, len, path, format, err);
}

struct ktau_stacks *ktau_stacks_read_stream(FILE *stream, enum ktau_stacks_format format,
					    struct ktau_parse_error *err)
{
	size_t len = 0;
	char *text;

	ktau__clear_error(err);
	if (!stream) {
		errno = -ktau__fail(err, EINVAL, 0, "NULL stream");
		return NULL;
	}
	text = ktau__read_stream_all(stream, &len);
	return parse_read(text, len, "read", format, err);
}

enum ktau_stacks_format ktau_stacks_format(const struct ktau_stacks *s)
{
	return s->format;
}

uint64_t ktau_stacks_samples(const struct ktau_stacks *s)
{
	return s->samples;
}

uint64_t ktau_stacks_empty_samples(const struct ktau_stacks *s)
{
	return s->empty_samples;
}

size_t ktau_stacks_count(const struct ktau_stacks *s)
{
	return s->nr_stacks;
}

struct visit {
	ktau_stack_fn_t fn;
	void *arg;
};

static int visit_stack(void *arg, const struct ktau_stack_node *node,
		       const char *const *path, size_t depth)
{
	const struct visit *v = arg;

	return node->excl ? v->fn(v->arg, path, depth, node->excl) : 0;
}

int ktau_stacks_foreach(const struct ktau_stacks *s, ktau_stack_fn_t fn, void *arg)
{
	struct visit v = { fn, arg };

	if (!s || !fn)
		return -EINVAL;
	return ktau__stacks_walk(s, visit_stack, &v);
}
