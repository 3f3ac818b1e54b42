// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The process-wide timer registry: a name (and the group it was first
 * created with) gets one small id that every thread's callpath tree uses.
 * Creating a timer takes a lock; starting and stopping one does not.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "prof/prof.h"

#define DEFAULT_GROUP "TAU_USER"

/* The registry is process-wide state by nature: every thread's timers
 * must share ids. Timers are never freed while the process runs. */
static pthread_mutex_t timers_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ktau_timer **timers;
static size_t nr_timers, cap_timers;
static struct ktau_index timers_by_name;

void ktau__timers_fork_lock(bool lock)
{
	if (lock)
		pthread_mutex_lock(&timers_lock);
	else
		pthread_mutex_unlock(&timers_lock);
}

static struct ktau_timer *timer_new(const char *name, const char *group)
{
	size_t nlen = strlen(name) + 1, glen = strlen(group) + 1;
	struct ktau_timer *t = malloc(sizeof(*t) + nlen + glen);

	if (!t)
		return NULL;
	t->name = memcpy((char *)(t + 1), name, nlen);
	t->group = memcpy((char *)(t + 1) + nlen, group, glen);
	t->id = (uint32_t)nr_timers;
	return t;
}

struct ktau_timer *ktau_timer_get(const char *name, const char *group)
{
	struct ktau_timer *t = NULL;
	size_t i;

	/* a flat name with "=>" would read as a callpath in every TAU tool */
	if (!name || !*name || strstr(name, "=>") || (group && !*group)) {
		errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&timers_lock);
	i = ktau__index_find(&timers_by_name, name);
	if (i != KTAU_INDEX_NONE) {
		t = timers[i];
		goto out;
	}
	if (nr_timers >= KTAU_U64MAP_NONE - 1 ||
	    ktau__grow((void **)&timers, &cap_timers, nr_timers, sizeof(*timers)))
		goto nomem;
	t = timer_new(name, group ? group : DEFAULT_GROUP);
	if (!t)
		goto nomem;
	if (ktau__index_put(&timers_by_name, t->name, nr_timers)) {
		free(t);
		goto nomem;
	}
	timers[nr_timers++] = t;
out:
	pthread_mutex_unlock(&timers_lock);
	return t;
nomem:
	pthread_mutex_unlock(&timers_lock);
	errno = ENOMEM;
	return NULL;
}

const char *ktau_timer_name(const struct ktau_timer *timer)
{
	return timer ? timer->name : NULL;
}

const char *ktau_timer_group(const struct ktau_timer *timer)
{
	return timer ? timer->group : NULL;
}

const struct ktau_timer *ktau__timer_by_id(uint32_t id)
{
	const struct ktau_timer *t = NULL;

	pthread_mutex_lock(&timers_lock);
	if (id < nr_timers)
		t = timers[id];
	pthread_mutex_unlock(&timers_lock);
	return t;
}

void ktau__timers_reset(void)
{
	size_t i;

	pthread_mutex_lock(&timers_lock);
	for (i = 0; i < nr_timers; i++)
		free(timers[i]);
	free(timers);
	timers = NULL;
	nr_timers = cap_timers = 0;
	ktau__index_free(&timers_by_name);
	timers_by_name = (struct ktau_index){ 0 };
	pthread_mutex_unlock(&timers_lock);
}
