// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The profile model: threads of routines, callpaths, atomic events and
 * metadata, which every exporter writes. Names are normalised once, here,
 * so that no writer has to think about blanks, quotes or control bytes.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

#define DEFAULT_GROUP "TAU_DEFAULT"
#define PATH_SEP " => "

struct ktau_model *ktau_model_new(void)
{
	struct ktau_model *m = calloc(1, sizeof(*m));

	if (!m)
		errno = ENOMEM;
	return m;
}

static void thread_free(struct ktau_model_thread *t)
{
	size_t i;

	for (i = 0; i < t->nr_callpaths; i++)
		free((void *)t->callpaths[i].path);
	for (i = 0; i < t->nr_opens; i++)
		free(t->opens[i].path);
	free(t->opens);
	free(t->callpaths);
	free(t->routines);
	free(t->events);
	free(t->meta);
	ktau__index_free(&t->routine_index);
	ktau__index_free(&t->callpath_index);
	free(t);
}

void ktau_model_free(struct ktau_model *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nr_threads; i++)
		thread_free(m->threads[i]);
	free(m->threads);
	ktau__strpool_free(&m->strings);
	free(m);
}

void ktau__model_drop_last_thread(struct ktau_model *m)
{
	if (m->nr_threads)
		thread_free(m->threads[--m->nr_threads]);
}

char *ktau__model_normalise(const char *s, bool allow_empty)
{
	char *out = malloc(strlen(s) + 1), *o = out;
	bool blank = false;

	if (!out) {
		errno = ENOMEM;
		return NULL;
	}
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c <= ' ' || c == 0x7f) {
			blank = o != out;
			continue;
		}
		if (blank)
			*o++ = ' ';
		blank = false;
		*o++ = c >= 0x80 ? '?' : c == '"' ? '\'' : (char)c;
	}
	*o = '\0';
	if (!allow_empty && o == out) {
		free(out);
		errno = EINVAL;
		return NULL;
	}
	return out;
}

/* A routine name or callpath element: non-empty, without "=>". */
static char *normalise_name(const char *s)
{
	char *n = ktau__model_normalise(s, false);

	if (n && strstr(n, "=>")) {
		free(n);
		errno = EINVAL;
		return NULL;
	}
	return n;
}

static const char *intern(struct ktau_model *m, const char *s)
{
	const char *p = ktau__strpool_add(&m->strings, s, strlen(s));

	if (!p)
		errno = ENOMEM;
	return p;
}

/* Interns a caller's string in normal form; NULL with errno set. */
static const char *intern_normalised(struct ktau_model *m, const char *s,
				     bool allow_empty)
{
	char *n = ktau__model_normalise(s, allow_empty);
	const char *p;

	if (!n)
		return NULL;
	p = intern(m, n);
	free(n);
	return p;
}

static bool same_ids(const struct ktau_model_thread *t, unsigned int node,
		     unsigned int context, unsigned int thread)
{
	return t->node == node && t->context == context && t->thread == thread;
}

struct ktau_model_thread *ktau_model_add_thread(struct ktau_model *m,
						unsigned int node,
						unsigned int context,
						unsigned int thread,
						const char *label)
{
	struct ktau_model_thread *t;
	char def[96];
	size_t i;

	if (!m) {
		errno = EINVAL;
		return NULL;
	}
	for (i = 0; i < m->nr_threads; i++) {
		if (same_ids(m->threads[i], node, context, thread)) {
			errno = EEXIST;
			return NULL;
		}
	}
	if (!label) {
		snprintf(def, sizeof(def), "node %u context %u thread %u",
			 node, context, thread);
		label = def;
	}
	if (ktau__grow((void **)&m->threads, &m->cap_threads, m->nr_threads,
		       sizeof(*m->threads))) {
		errno = ENOMEM;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		errno = ENOMEM;
		return NULL;
	}
	t->owner = m;
	t->node = node;
	t->context = context;
	t->thread = thread;
	t->label = intern_normalised(m, label, true);
	if (!t->label) {
		free(t);
		return NULL;
	}
	m->threads[m->nr_threads++] = t;
	return t;
}

int ktau_model_add_metadata(struct ktau_model_thread *t, const char *name,
			    const char *value)
{
	struct ktau_model_metadata md;

	if (!t || !name || !value)
		return -EINVAL;
	md.name = intern_normalised(t->owner, name, false);
	if (!md.name)
		return -errno;
	md.value = intern_normalised(t->owner, value, true);
	if (!md.value)
		return -errno;
	if (ktau__grow((void **)&t->meta, &t->cap_meta, t->nr_meta, sizeof(md)))
		return -ENOMEM;
	t->meta[t->nr_meta++] = md;
	return 0;
}

/*
 * The index of routine `name` (normal form), created with zero counts and
 * the default group when absent; KTAU_INDEX_NONE with errno ENOMEM.
 */
static size_t routine_slot(struct ktau_model_thread *t, const char *name)
{
	size_t i = ktau__index_find(&t->routine_index, name);
	struct ktau_routine_slot *r;

	if (i != KTAU_INDEX_NONE)
		return i;
	if (ktau__grow((void **)&t->routines, &t->cap_routines, t->nr_routines,
		       sizeof(*t->routines)))
		goto nomem;
	r = &t->routines[t->nr_routines];
	memset(r, 0, sizeof(*r));
	r->rec.name = intern(t->owner, name);
	r->rec.group = DEFAULT_GROUP;
	if (!r->rec.name || ktau__index_put(&t->routine_index, r->rec.name,
					    t->nr_routines))
		goto nomem;
	return t->nr_routines++;
nomem:
	errno = ENOMEM;
	return KTAU_INDEX_NONE;
}

/* *dst += the four counters, all or nothing; 0 or -EOVERFLOW. */
static int add_counters(uint64_t *dst[4], const uint64_t add[4])
{
	uint64_t sum[4];
	int i;

	for (i = 0; i < 4; i++)
		if (__builtin_add_overflow(*dst[i], add[i], &sum[i]))
			return -EOVERFLOW;
	for (i = 0; i < 4; i++)
		*dst[i] = sum[i];
	return 0;
}

int ktau_model_add_routine(struct ktau_model_thread *t, const char *name,
			   const char *group, uint64_t calls, uint64_t subrs,
			   uint64_t incl_ns, uint64_t excl_ns)
{
	const uint64_t add[4] = { calls, subrs, incl_ns, excl_ns };
	const char *g = NULL;
	struct ktau_routine_slot *r;
	char *n;
	size_t i;
	int ret;

	if (!t || !name)
		return -EINVAL;
	if (group) {
		g = intern_normalised(t->owner, group, false);
		if (!g)
			return -errno;
	}
	n = normalise_name(name);
	if (!n)
		return -errno;
	i = routine_slot(t, n);
	free(n);
	if (i == KTAU_INDEX_NONE)
		return -ENOMEM;
	r = &t->routines[i];
	ret = add_counters((uint64_t *[4]){ &r->rec.calls, &r->rec.subrs,
					    &r->rec.incl_ns, &r->rec.excl_ns }, add);
	if (ret)
		return ret;
	if (g && !r->group_given) {
		r->rec.group = g;
		r->group_given = 1;
	}
	return 0;
}

/* path joined with " => ", each element normalised; elements[] receives the
 * interned flat names (created as routines when new, once every element
 * proved valid). NULL, errno set. */
static char *callpath_key(struct ktau_model_thread *t, const char *const *path,
			  size_t depth, const char **elements)
{
	char **n = calloc(depth, sizeof(*n));
	size_t i, len = 0;
	char *key = NULL;

	if (!n) {
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < depth; i++) {
		errno = EINVAL;
		n[i] = path[i] ? normalise_name(path[i]) : NULL;
		if (!n[i])
			goto out;
		len += strlen(n[i]) + strlen(PATH_SEP);
	}
	key = malloc(len + 1);
	if (!key) {
		errno = ENOMEM;
		goto out;
	}
	for (i = 0, len = 0; i < depth; i++) {
		size_t r = routine_slot(t, n[i]);

		if (r == KTAU_INDEX_NONE) {
			free(key);
			key = NULL;
			goto out;
		}
		elements[i] = t->routines[r].rec.name;
		len += (size_t)sprintf(key + len, "%s%s", i ? PATH_SEP : "", n[i]);
	}
out:
	for (i = 0; i < depth; i++)
		free(n[i]);
	free(n);
	return key;
}

/* The index of the callpath with that key, created when absent (elements is
 * then taken over); KTAU_INDEX_NONE with errno ENOMEM. */
static size_t callpath_slot(struct ktau_model_thread *t, const char *key,
			    const char **elements, size_t depth)
{
	size_t i = ktau__index_find(&t->callpath_index, key);
	struct ktau_model_callpath *c;

	if (i != KTAU_INDEX_NONE) {
		free(elements);
		return i;
	}
	if (ktau__grow((void **)&t->callpaths, &t->cap_callpaths,
		       t->nr_callpaths, sizeof(*t->callpaths)))
		goto nomem;
	c = &t->callpaths[t->nr_callpaths];
	memset(c, 0, sizeof(*c));
	c->name = intern(t->owner, key);
	if (!c->name || ktau__index_put(&t->callpath_index, c->name,
					t->nr_callpaths))
		goto nomem;
	c->path = elements;
	c->depth = depth;
	return t->nr_callpaths++;
nomem:
	free(elements);
	errno = ENOMEM;
	return KTAU_INDEX_NONE;
}

int ktau_model_add_callpath(struct ktau_model_thread *t, const char *const *path,
			    size_t depth, uint64_t calls, uint64_t subrs,
			    uint64_t incl_ns, uint64_t excl_ns)
{
	const uint64_t add[4] = { calls, subrs, incl_ns, excl_ns };
	struct ktau_model_callpath *c;
	const char **elements;
	char *key;
	size_t i;

	if (!t || !path || depth < 2 || depth > SIZE_MAX / sizeof(*elements))
		return -EINVAL;
	elements = malloc(depth * sizeof(*elements));
	if (!elements)
		return -ENOMEM;
	key = callpath_key(t, path, depth, elements);
	if (!key) {
		free(elements);
		return -errno;
	}
	i = callpath_slot(t, key, elements, depth);
	free(key);
	if (i == KTAU_INDEX_NONE)
		return -ENOMEM;
	c = &t->callpaths[i];
	return add_counters((uint64_t *[4]){ &c->calls, &c->subrs, &c->incl_ns,
					     &c->excl_ns }, add);
}

int ktau_model_add_event(struct ktau_model_thread *t, const char *name,
			 uint64_t count, double min, double max, double sum,
			 double sumsq)
{
	struct ktau_model_event *e = NULL, merged;
	char *n;
	size_t i;

	if (!t || !name || !isfinite(min) || !isfinite(max) ||
	    !isfinite(sum) || !isfinite(sumsq))
		return -EINVAL;
	n = ktau__model_normalise(name, false);
	if (!n)
		return -errno;
	for (i = 0; i < t->nr_events && !e; i++)
		if (!strcmp(t->events[i].name, n))
			e = &t->events[i];
	if (!e) {
		merged = (struct ktau_model_event){ .name = intern(t->owner, n) };
		free(n);
		if (!merged.name || ktau__grow((void **)&t->events, &t->cap_events,
					       t->nr_events, sizeof(*e)))
			return -ENOMEM;
		e = &t->events[t->nr_events++];
		*e = merged;
	} else {
		free(n);
	}
	if (!count)
		return 0;
	merged = *e;
	if (__builtin_add_overflow(e->count, count, &merged.count))
		return -EOVERFLOW;
	merged.min = e->count && e->min < min ? e->min : min;
	merged.max = e->count && e->max > max ? e->max : max;
	merged.sum += sum;
	merged.sumsq += sumsq;
	if (!isfinite(merged.sum) || !isfinite(merged.sumsq))
		return -EOVERFLOW;
	*e = merged;
	return 0;
}

/* ---- reading ---- */

size_t ktau_model_thread_count(const struct ktau_model *m)
{
	return m ? m->nr_threads : 0;
}

/* items[index] of an array of count elements of size size, or NULL+ERANGE. */
static const void *nth(const void *items, size_t count, size_t size, size_t index)
{
	if (!items || index >= count) {
		errno = ERANGE;
		return NULL;
	}
	return (const char *)items + index * size;
}

const struct ktau_model_thread *ktau_model_thread(const struct ktau_model *m,
						  size_t index)
{
	const struct ktau_model_thread *const *t;

	t = nth(m ? m->threads : NULL, ktau_model_thread_count(m),
		sizeof(*m->threads), index);
	return t ? *t : NULL;
}

unsigned int ktau_model_thread_node(const struct ktau_model_thread *t)
{
	return t->node;
}

unsigned int ktau_model_thread_context(const struct ktau_model_thread *t)
{
	return t->context;
}

unsigned int ktau_model_thread_id(const struct ktau_model_thread *t)
{
	return t->thread;
}

const char *ktau_model_thread_label(const struct ktau_model_thread *t)
{
	return t->label;
}

size_t ktau_model_routine_count(const struct ktau_model_thread *t)
{
	return t->nr_routines;
}

const struct ktau_model_routine *ktau_model_routine(const struct ktau_model_thread *t,
						    size_t index)
{
	const struct ktau_routine_slot *r;

	r = nth(t->routines, t->nr_routines, sizeof(*r), index);
	return r ? &r->rec : NULL;
}

const struct ktau_model_routine *ktau_model_find_routine(const struct ktau_model_thread *t,
							 const char *name)
{
	size_t i = ktau__index_find(&t->routine_index, name);

	if (i == KTAU_INDEX_NONE) {
		errno = ENOENT;
		return NULL;
	}
	return &t->routines[i].rec;
}

size_t ktau_model_callpath_count(const struct ktau_model_thread *t)
{
	return t->nr_callpaths;
}

const struct ktau_model_callpath *ktau_model_callpath(const struct ktau_model_thread *t,
						      size_t index)
{
	return nth(t->callpaths, t->nr_callpaths, sizeof(*t->callpaths), index);
}

size_t ktau_model_event_count(const struct ktau_model_thread *t)
{
	return t->nr_events;
}

const struct ktau_model_event *ktau_model_event(const struct ktau_model_thread *t,
						size_t index)
{
	return nth(t->events, t->nr_events, sizeof(*t->events), index);
}

size_t ktau_model_metadata_count(const struct ktau_model_thread *t)
{
	return t->nr_meta;
}

const struct ktau_model_metadata *ktau_model_metadata(const struct ktau_model_thread *t,
						      size_t index)
{
	return nth(t->meta, t->nr_meta, sizeof(*t->meta), index);
}

int ktau__model_add_open(struct ktau_model_thread *t, uint64_t tid,
			 const char *const *path, size_t depth,
			 uint64_t incl_ns, uint64_t excl_ns)
{
	struct ktau_model_open o = { tid, NULL, depth, incl_ns, excl_ns };
	size_t i;

	if (!depth)
		return -EINVAL;
	o.path = calloc(depth, sizeof(*o.path));
	if (!o.path || ktau__grow((void **)&t->opens, &t->cap_opens, t->nr_opens,
				  sizeof(*t->opens))) {
		free(o.path);
		return -ENOMEM;
	}
	for (i = 0; i < depth; i++) {
		o.path[i] = intern_normalised(t->owner, path[i], false);
		if (!o.path[i]) {
			free(o.path);
			return -errno;
		}
	}
	t->opens[t->nr_opens++] = o;
	return 0;
}
