// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The model as folded stacks for flamegraph.pl: one line per stack of
 * ktau__model_stacks() with exclusive time at its leaf,
 *	<thread label>;<root>;...;<leaf> <exclusive ns>
 * The thread label is always the first frame. Stacks with no exclusive
 * time are left out. ';' inside a name (the frame separator) is written
 * as ':'.
 */
#include <inttypes.h>

#include "export/export.h"

static void put_frame(FILE *out, const char *s)
{
	for (; *s; s++)
		putc(*s == ';' ? ':' : *s, out);
}

struct folded_ctx {
	FILE *out;
	const char *label;
};

static int put_stack(void *arg, const char *const *path, size_t depth,
		     uint64_t calls, uint64_t excl_ns)
{
	struct folded_ctx *c = arg;
	size_t i;

	(void)calls;
	if (!excl_ns)
		return 0;
	put_frame(c->out, c->label);
	for (i = 0; i < depth; i++) {
		putc(';', c->out);
		put_frame(c->out, path[i]);
	}
	fprintf(c->out, " %" PRIu64 "\n", excl_ns);
	return 0;
}

int ktau__emit_folded(const struct ktau_model *m, FILE *out)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < m->nr_threads && !ret; i++) {
		struct folded_ctx c = { out, m->threads[i]->label };

		ret = ktau__model_stacks(m->threads[i], put_stack, &c);
	}
	return ret;
}
