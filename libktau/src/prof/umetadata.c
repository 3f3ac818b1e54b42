// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What the program says about itself for its profiles: metadata pairs
 * (ktau_metadata_set) and the node number (ktau_profiler_set_node), both
 * process-wide by nature: every thread's profile carries them.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "prof/prof.h"

struct pair {
	char *name;
	char *value;
};

static pthread_mutex_t metadata_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pair *pairs;
static size_t nr_pairs, cap_pairs;
/* node + 1; 0 while the program has not set one */
static unsigned long program_node;

void ktau__metadata_fork_lock(bool lock)
{
	if (lock)
		pthread_mutex_lock(&metadata_lock);
	else
		pthread_mutex_unlock(&metadata_lock);
}

int ktau_metadata_set(const char *name, const char *value)
{
	char *n = NULL, *v;
	size_t i;
	int ret = 0;

	if (!name || !*name || !value)
		return -EINVAL;
	v = strdup(value);
	if (!v)
		return -ENOMEM;
	pthread_mutex_lock(&metadata_lock);
	for (i = 0; i < nr_pairs && strcmp(pairs[i].name, name); i++)
		;
	if (i < nr_pairs) {
		free(pairs[i].value);
		pairs[i].value = v;
		goto out;
	}
	n = strdup(name);
	if (!n || ktau__grow((void **)&pairs, &cap_pairs, nr_pairs, sizeof(*pairs))) {
		free(n);
		free(v);
		ret = -ENOMEM;
		goto out;
	}
	pairs[nr_pairs++] = (struct pair){ n, v };
out:
	pthread_mutex_unlock(&metadata_lock);
	return ret;
}

int ktau__metadata_each(int (*fn)(void *arg, const char *name, const char *value),
			void *arg)
{
	size_t i;
	int ret = 0;

	pthread_mutex_lock(&metadata_lock);
	for (i = 0; i < nr_pairs && !ret; i++)
		ret = fn(arg, pairs[i].name, pairs[i].value);
	pthread_mutex_unlock(&metadata_lock);
	return ret;
}

void ktau__metadata_reset(void)
{
	size_t i;

	pthread_mutex_lock(&metadata_lock);
	for (i = 0; i < nr_pairs; i++) {
		free(pairs[i].name);
		free(pairs[i].value);
	}
	free(pairs);
	pairs = NULL;
	nr_pairs = cap_pairs = 0;
	__atomic_store_n(&program_node, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&metadata_lock);
}

int ktau_profiler_set_node(unsigned int node)
{
	if (node > INT_MAX)
		return -EINVAL;
	__atomic_store_n(&program_node, (unsigned long)node + 1, __ATOMIC_RELAXED);
	return 0;
}

bool ktau__profiler_node(unsigned int *node)
{
	unsigned long n = __atomic_load_n(&program_node, __ATOMIC_RELAXED);

	if (n)
		*node = (unsigned int)(n - 1);
	return n != 0;
}
