// SPDX-License-Identifier: LGPL-2.1-or-later
/* One TAU profile file as an object: its making, its accessors. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tau/tau.h"

struct ktau_tau_thread *ktau__tau_thread_new(void)
{
	return calloc(1, sizeof(struct ktau_tau_thread));
}

void ktau_tau_thread_free(struct ktau_tau_thread *t)
{
	if (!t)
		return;
	ktau__strpool_free(&t->pool);
	ktau__index_free(&t->func_index);
	ktau__index_free(&t->event_index);
	free(t->funcs);
	free(t->events);
	free(t->meta);
	free(t);
}

static void *create(void)
{
	return ktau__tau_thread_new();
}

static int fill(void *obj, const char *buf, size_t len, struct ktau_parse_error *err)
{
	return ktau__tau_thread_fill(obj, buf, len, err);
}

static void destroy(void *obj)
{
	ktau_tau_thread_free(obj);
}

static const struct ktau_parser_ops tau_thread_ops = { create, fill, destroy };

struct ktau_tau_thread *ktau_tau_thread_parse(const char *buf, size_t len,
					      struct ktau_error **err)
{
	struct ktau_parse_error pe;

	return ktau__ret_ptr(ktau__parse_text(&tau_thread_ops, buf, len, &pe), &pe, err);
}

unsigned int ktau_tau_thread_node(const struct ktau_tau_thread *t)
{
	return t->node;
}

unsigned int ktau_tau_thread_context(const struct ktau_tau_thread *t)
{
	return t->context;
}

unsigned int ktau_tau_thread_id(const struct ktau_tau_thread *t)
{
	return t->thread;
}

const char *ktau_tau_thread_metric(const struct ktau_tau_thread *t)
{
	return t->metric;
}

/* &items[index] of count, else NULL with errno ERANGE */
static const void *item(const void *items, size_t size, size_t count, size_t index)
{
	if (index >= count) {
		errno = ERANGE;
		return NULL;
	}
	return (const char *)items + index * size;
}

size_t ktau_tau_thread_function_count(const struct ktau_tau_thread *t)
{
	return t->nr_funcs;
}

const struct ktau_tau_function *ktau_tau_thread_function(const struct ktau_tau_thread *t,
							 size_t index)
{
	return item(t->funcs, sizeof(*t->funcs), t->nr_funcs, index);
}

const struct ktau_tau_function *ktau_tau_thread_find_function(const struct ktau_tau_thread *t,
							      const char *name)
{
	size_t i = name ? ktau__index_find(&t->func_index, name) : KTAU_INDEX_NONE;

	if (i == KTAU_INDEX_NONE) {
		errno = ENOENT;
		return NULL;
	}
	return &t->funcs[i];
}

size_t ktau_tau_thread_event_count(const struct ktau_tau_thread *t)
{
	return t->nr_events;
}

const struct ktau_tau_event *ktau_tau_thread_event(const struct ktau_tau_thread *t,
						   size_t index)
{
	return item(t->events, sizeof(*t->events), t->nr_events, index);
}

size_t ktau_tau_thread_metadata_count(const struct ktau_tau_thread *t)
{
	return t->nr_meta;
}

const struct ktau_tau_metadata *ktau_tau_thread_metadata(const struct ktau_tau_thread *t,
							 size_t index)
{
	return item(t->meta, sizeof(*t->meta), t->nr_meta, index);
}

const char *ktau_tau_thread_metadata_value(const struct ktau_tau_thread *t, const char *name)
{
	size_t i;

	for (i = 0; name && i < t->nr_meta; i++)
		if (!strcmp(t->meta[i].name, name))
			return t->meta[i].value;
	errno = ENOENT;
	return NULL;
}

bool ktau_tau_function_in_group(const struct ktau_tau_function *f, const char *group)
{
	size_t glen = group ? strlen(group) : 0;
	const char *s = f->groups;

	if (!glen)
		return false;
	while (*s) {
		size_t len;

		s += strspn(s, " |");
		len = strcspn(s, " |");
		if (len == glen && !memcmp(s, group, len))
			return true;
		s += len;
	}
	return false;
}
