// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A uint64_t -> uint32_t hash table (open addressing, linear probing), for
 * the lookups the profiler makes on numbers: callpath children by (parent,
 * timer), timers by function address, kernel records by (ctx, fid).
 */
#include <errno.h>
#include <stdlib.h>

#include "util/util.h"

static size_t mix(uint64_t key)
{
	/* splitmix64's finaliser: neighbouring keys land far apart */
	key ^= key >> 30;
	key *= UINT64_C(0xbf58476d1ce4e5b9);
	key ^= key >> 27;
	key *= UINT64_C(0x94d049bb133111eb);
	return (size_t)(key ^ (key >> 31));
}

static size_t probe(const struct ktau_u64map *m, uint64_t key)
{
	size_t i = mix(key) & (m->cap - 1);

	while (m->vals[i] != KTAU_U64MAP_NONE && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

uint32_t ktau__u64map_get(const struct ktau_u64map *m, uint64_t key)
{
	return m->cap ? m->vals[probe(m, key)] : KTAU_U64MAP_NONE;
}

static int rehash(struct ktau_u64map *m, size_t cap)
{
	struct ktau_u64map n = { .cap = cap, .used = m->used };
	size_t i;

	n.keys = malloc(cap * sizeof(*n.keys));
	n.vals = malloc(cap * sizeof(*n.vals));
	if (!n.keys || !n.vals) {
		free(n.keys);
		free(n.vals);
		return -ENOMEM;
	}
	for (i = 0; i < cap; i++)
		n.vals[i] = KTAU_U64MAP_NONE;
	for (i = 0; i < m->cap; i++) {
		if (m->vals[i] != KTAU_U64MAP_NONE) {
			size_t j = probe(&n, m->keys[i]);

			n.keys[j] = m->keys[i];
			n.vals[j] = m->vals[i];
		}
	}
	free(m->keys);
	free(m->vals);
	*m = n;
	return 0;
}

int ktau__u64map_put(struct ktau_u64map *m, uint64_t key, uint32_t val)
{
	size_t i;

	if (val == KTAU_U64MAP_NONE)
		return -EINVAL;
	/* keep the load under 1/2: probes stay short */
	if ((m->used + 1) * 2 > m->cap && rehash(m, m->cap ? m->cap * 2 : 64))
		return -ENOMEM;
	i = probe(m, key);
	if (m->vals[i] == KTAU_U64MAP_NONE)
		m->used++;
	m->keys[i] = key;
	m->vals[i] = val;
	return 0;
}

void ktau__u64map_free(struct ktau_u64map *m)
{
	free(m->keys);
	free(m->vals);
	*m = (struct ktau_u64map){ 0 };
}
