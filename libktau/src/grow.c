// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "internal.h"

int ktau__grow(void **items, size_t *cap, size_t count, size_t size)
{
	size_t new_cap;
	void *p;

	if (count < *cap)
		return 0;
	new_cap = *cap ? *cap * 2 : 16;
	if (new_cap < *cap || new_cap > SIZE_MAX / size)
		return -ENOMEM;
	p = realloc(*items, new_cap * size);
	if (!p)
		return -ENOMEM;
	*items = p;
	*cap = new_cap;
	return 0;
}
