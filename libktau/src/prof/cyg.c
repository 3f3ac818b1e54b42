// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The -finstrument-functions hooks: every function entry and exit of a
 * program compiled with that flag becomes a timer start and stop, the
 * timer named after the function's symbol. A thread maps addresses to
 * timers in its own table (no lock); only an address it has not seen
 * before takes the process-wide lock to be named.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>

#include "prof/prof.h"

#define NO_HOOK __attribute__((no_instrument_function))
#define FUNCTION_GROUP "TAU_DEFAULT"

void __cyg_profile_func_enter(void *fn, void *call_site) KTAU_API NO_HOOK;
void __cyg_profile_func_exit(void *fn, void *call_site) KTAU_API NO_HOOK;

static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ktau_u64map timer_of_address;	/* all threads' addresses */

void ktau__names_fork_lock(bool lock)
{
	if (lock)
		pthread_mutex_lock(&names_lock);
	else
		pthread_mutex_unlock(&names_lock);
}

/* The timer of function fn, named now if new; KTAU_U64MAP_NONE when out
 * of memory (the function then goes untimed). */
static NO_HOOK uint32_t name_function(const void *fn)
{
	uint64_t key = (uintptr_t)fn;
	struct ktau_timer *t;
	uint32_t id;
	char name[512];

	pthread_mutex_lock(&names_lock);
	id = ktau__u64map_get(&timer_of_address, key);
	if (id == KTAU_U64MAP_NONE) {
		if (ktau__symbol_name(fn, name, sizeof(name)))
			snprintf(name, sizeof(name), "[%p]", fn);
		t = ktau_timer_get(name, FUNCTION_GROUP);
		if (t && !ktau__u64map_put(&timer_of_address, key, t->id))
			id = t->id;
	}
	pthread_mutex_unlock(&names_lock);
	return id;
}

static NO_HOOK uint32_t function_timer(struct ktau_uthread *s, const void *fn)
{
	uint64_t key = (uintptr_t)fn;
	uint32_t id = ktau__u64map_get(&s->fn_timers, key);

	if (id != KTAU_U64MAP_NONE)
		return id;
	id = name_function(fn);
	if (id != KTAU_U64MAP_NONE)
		ktau__u64map_put(&s->fn_timers, key, id);	/* else: asked again */
	return id;
}

static NO_HOOK void hook(void *fn, bool enter)
{
	struct ktau_uthread *s = ktau__uthread_self();
	uint32_t id;

	if (!s || !ktau__uthread_begin(s))
		return;
	id = function_timer(s, fn);
	if (id != KTAU_U64MAP_NONE) {
		if (enter)
			ktau__uthread_enter(s, id);
		else
			ktau__uthread_exit(s, id);
	}
	ktau__uthread_end(s);
}

void __cyg_profile_func_enter(void *fn, void *call_site)
{
	(void)call_site;
	hook(fn, true);
}

void __cyg_profile_func_exit(void *fn, void *call_site)
{
	(void)call_site;
	hook(fn, false);
}
