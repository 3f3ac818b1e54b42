/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private to libktau: TAU profile files and directories, read. */
#ifndef KTAU_TAU_TAU_H
#define KTAU_TAU_TAU_H

#include "util/util.h"

/* TAU's metadata line holds every attribute: far longer than ktau's own
 * formats allow, still bounded. */
#define KTAU_TAU_MAX_LINE ((size_t)1 << 20)

struct ktau_tau_thread {
	struct ktau_strpool pool;
	unsigned int node, context, thread;
	const char *metric;
	struct ktau_tau_function *funcs;
	size_t nr_funcs, cap_funcs;
	struct ktau_index func_index;
	struct ktau_tau_event *events;
	size_t nr_events, cap_events;
	struct ktau_index event_index;
	struct ktau_tau_metadata *meta;
	size_t nr_meta, cap_meta;
};

/* The one parser of a TAU profile file: fills t (from ktau__tau_thread_new()). */
KTAU_HIDDEN struct ktau_tau_thread *ktau__tau_thread_new(void);
KTAU_HIDDEN int ktau__tau_thread_fill(struct ktau_tau_thread *t, const char *buf, size_t len,
				      struct ktau_parse_error *err);
/* The <metadata> block of a header line into t's attributes. */
KTAU_HIDDEN int ktau__tau_metadata_parse(struct ktau_tau_thread *t, const char *s, size_t len,
					 unsigned int line, struct ktau_parse_error *err);

#endif /* KTAU_TAU_TAU_H */
