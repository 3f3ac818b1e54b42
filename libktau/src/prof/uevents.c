// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Atomic (user) events: a process-wide registry gives each name a small id
 * (creating one takes a lock, triggering does not), and each thread keeps
 * its samples per (event, context id) in a table of its own, written
 * without locks by its owner and read by snapshots from any thread (the
 * callpath tree's discipline, utree.c).
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "prof/prof.h"

#define LOAD_U64(p) __atomic_load_n((p), __ATOMIC_RELAXED)

/* The registry is process-wide by nature, as the timers' is: every
 * thread's table uses its ids. Events are never freed while the process
 * runs. */
static pthread_mutex_t events_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ktau_user_event **events;
static size_t nr_events, cap_events;
static struct ktau_index events_by_name;

void ktau__user_events_fork_lock(bool lock)
{
	if (lock)
		pthread_mutex_lock(&events_lock);
	else
		pthread_mutex_unlock(&events_lock);
}

/* TAU's tools read " : " as a context event and "=>" as a callpath. */
static bool valid_name(const char *name)
{
	return name && *name && !strstr(name, " : ") && !strstr(name, "=>");
}

struct ktau_user_event *ktau_user_event_get(const char *name)
{
	struct ktau_user_event *e = NULL;
	size_t i, len;

	if (!valid_name(name)) {
		errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&events_lock);
	i = ktau__index_find(&events_by_name, name);
	if (i != KTAU_INDEX_NONE) {
		e = events[i];
		goto out;
	}
	len = strlen(name) + 1;
	if (nr_events >= KTAU_U64MAP_NONE - 1 ||
	    ktau__grow((void **)&events, &cap_events, nr_events, sizeof(*events)))
		goto nomem;
	e = malloc(sizeof(*e) + len);
	if (!e)
		goto nomem;
	e->name = memcpy((char *)(e + 1), name, len);
	e->id = (uint32_t)nr_events;
	if (ktau__index_put(&events_by_name, e->name, nr_events)) {
		free(e);
		goto nomem;
	}
	events[nr_events++] = e;
out:
	pthread_mutex_unlock(&events_lock);
	return e;
nomem:
	pthread_mutex_unlock(&events_lock);
	errno = ENOMEM;
	return NULL;
}

const char *ktau_user_event_name(const struct ktau_user_event *event)
{
	return event ? event->name : NULL;
}

const char *ktau__user_event_name(uint32_t id)
{
	const char *name = NULL;

	pthread_mutex_lock(&events_lock);
	if (id < nr_events)
		name = events[id]->name;
	pthread_mutex_unlock(&events_lock);
	return name;
}

void ktau__user_events_reset(void)
{
	size_t i;

	pthread_mutex_lock(&events_lock);
	for (i = 0; i < nr_events; i++)
		free(events[i]);
	free(events);
	events = NULL;
	nr_events = cap_events = 0;
	ktau__index_free(&events_by_name);
	events_by_name = (struct ktau_index){ 0 };
	pthread_mutex_unlock(&events_lock);
}

int ktau_user_event_trigger(struct ktau_user_event *event, double value)
{
	struct ktau_uthread *s;

	if (!event || !isfinite(value))
		return -EINVAL;
	s = ktau__uthread_self();
	if (!s || !ktau__uthread_begin(s))
		return 0;	/* profiler off here, as for the timers */
	ktau__ue_add(&s->events, event->id, ktau__ut_context(&s->tree), value);
	ktau__uthread_end(s);
	return 0;
}

/* ---- one thread's table ---- */

static struct ktau_ue_sample *slot_at(const struct ktau_ue_table *t, uint32_t index)
{
	return &t->chunks[index >> KTAU_UE_CHUNK_SHIFT][index & (KTAU_UE_CHUNK - 1)];
}

void ktau__ue_free(struct ktau_ue_table *t)
{
	size_t i;

	for (i = 0; i < KTAU_UE_MAX_CHUNKS && t->chunks[i]; i++)
		free(t->chunks[i]);
	ktau__u64map_free(&t->index);
	memset(t, 0, sizeof(*t));
}

/* The slot of (event, ctx), new when needed; NULL when out of room. */
static struct ktau_ue_sample *slot_for(struct ktau_ue_table *t, uint32_t event,
				       uint32_t ctx)
{
	uint64_t key = (uint64_t)ctx << 32 | event;
	uint32_t index = ktau__u64map_get(&t->index, key), chunk;
	struct ktau_ue_sample *slot;

	if (index != KTAU_U64MAP_NONE)
		return slot_at(t, index);
	index = t->nr_slots;
	chunk = index >> KTAU_UE_CHUNK_SHIFT;
	if (chunk >= KTAU_UE_MAX_CHUNKS)
		return NULL;
	if (!t->chunks[chunk]) {
		t->chunks[chunk] = calloc(KTAU_UE_CHUNK, sizeof(struct ktau_ue_sample));
		if (!t->chunks[chunk])
			return NULL;
	}
	if (ktau__u64map_put(&t->index, key, index))
		return NULL;
	slot = slot_at(t, index);
	slot->event = event;
	slot->ctx = ctx;
	__atomic_store_n(&t->nr_slots, index + 1, __ATOMIC_RELEASE);
	return slot;
}

static double load_double(const double *p)
{
	double v;

	__atomic_load(p, &v, __ATOMIC_RELAXED);
	return v;
}

static void store_double(double *p, double v)
{
	__atomic_store(p, &v, __ATOMIC_RELAXED);
}

void ktau__ue_add(struct ktau_ue_table *t, uint32_t event, uint32_t ctx, double value)
{
	struct ktau_ue_sample *s = slot_for(t, event, ctx);
	uint64_t count;

	if (!s) {
		t->dropped++;
		return;
	}
	count = LOAD_U64(&s->count);
	if (!count || value < load_double(&s->min))
		store_double(&s->min, value);
	if (!count || value > load_double(&s->max))
		store_double(&s->max, value);
	store_double(&s->sum, load_double(&s->sum) + value);
	store_double(&s->sumsq, load_double(&s->sumsq) + value * value);
	/* the count last: a snapshot that sees it sees min and max set */
	__atomic_store_n(&s->count, count + 1, __ATOMIC_RELEASE);
}

struct ktau_ue_sample *ktau__ue_snapshot(const struct ktau_ue_table *t, size_t *count)
{
	uint32_t n = __atomic_load_n(&t->nr_slots, __ATOMIC_ACQUIRE), i;
	struct ktau_ue_sample *copy = calloc(n ? n : 1, sizeof(*copy));

	if (!copy) {
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < n; i++) {
		const struct ktau_ue_sample *s = slot_at(t, i);

		copy[i].event = s->event;
		copy[i].ctx = s->ctx;
		copy[i].count = __atomic_load_n(&s->count, __ATOMIC_ACQUIRE);
		copy[i].min = load_double(&s->min);
		copy[i].max = load_double(&s->max);
		copy[i].sum = load_double(&s->sum);
		copy[i].sumsq = load_double(&s->sumsq);
	}
	*count = n;
	return copy;
}
