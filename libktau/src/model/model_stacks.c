// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A thread's profile as stacks with exclusive costs at their leaves: what
 * the stack-based formats (pprof, folded) are made of. One place decides
 * how flat routines and callpaths share out the exclusive time.
 */
#include <errno.h>
#include <stdlib.h>

#include "model/model.h"

struct leaf_share {
	uint64_t calls;
	uint64_t excl_ns;
};

static uint64_t minus(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

int ktau__model_stacks(const struct ktau_model_thread *t, ktau_stack_fn fn, void *arg)
{
	struct leaf_share *share;
	size_t i;
	int ret = 0;

	share = calloc(t->nr_routines ? t->nr_routines : 1, sizeof(*share));
	if (!share)
		return -ENOMEM;
	for (i = 0; i < t->nr_callpaths && !ret; i++) {
		const struct ktau_model_callpath *c = &t->callpaths[i];
		size_t leaf = ktau__index_find(&t->routine_index, c->path[c->depth - 1]);

		/* every element has its flat routine (ktau_model_add_callpath) */
		share[leaf].calls += c->calls;
		share[leaf].excl_ns += c->excl_ns;
		ret = fn(arg, c->path, c->depth, c->calls, c->excl_ns);
	}
	for (i = 0; i < t->nr_routines && !ret; i++) {
		const struct ktau_model_routine *r = &t->routines[i].rec;

		ret = fn(arg, &r->name, 1, minus(r->calls, share[i].calls),
			 minus(r->excl_ns, share[i].excl_ns));
	}
	free(share);
	return ret;
}
