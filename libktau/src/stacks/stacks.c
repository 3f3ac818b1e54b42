// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Sampled call stacks: the public face. Each input format has its parser
 * (stacks_perf.c, stacks_stap.c, stacks_dtrace.c); they all build the same
 * trie (stacks_trie.c) through one frame-naming rule (stacks_frame.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stacks/stacks.h"

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

#define NR_FORMATS KTAU_ARRAY_SIZE(formats)

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

/* The parser behind ktau_stacks_parse() and ktau_stacks_load(). */
static struct ktau_stacks *stacks_parse(const char *buf, size_t len,
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

struct ktau_stacks *ktau_stacks_parse(const char *buf, size_t len,
				      enum ktau_stacks_format format,
				      struct ktau_error **err)
{
	struct ktau_parse_error pe;

	return ktau__ret_ptr(stacks_parse(buf, len, format, &pe), &pe, err);
}

struct ktau_stacks *ktau_stacks_load(const struct ktau_load_opts *opts,
				     enum ktau_stacks_format format,
				     struct ktau_error **err)
{
	struct ktau_parse_error pe;
	struct ktau_stacks *s = NULL;
	size_t len = 0;
	char *text;
	int saved;

	ktau__clear_error(&pe);
	text = ktau__load_text(opts, &len, &pe);
	if (text) {
		s = stacks_parse(text, len, format, &pe);
		saved = errno;
		free(text);
		errno = saved;
	}
	return ktau__ret_ptr(s, &pe, err);
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
