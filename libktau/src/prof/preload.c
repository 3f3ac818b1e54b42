// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * LD_PRELOAD=libktau-prof.so: profile a program that was neither recompiled
 * nor relinked. The constructor starts TAU's top-level timer, ".TAU
 * application", in the main thread before main() runs; the profiler's
 * exit handler writes it (still running: it counts up to exit) with the
 * kernel routines of the whole run merged under it. LD_PRELOAD=
 * libktau-mpi.so (which brings libktau-prof) does the same, so that MPI
 * routines show under it.
 *
 * The same library linked normally must not do this, so the constructor
 * acts only when LD_PRELOAD names libktau-prof or libktau-mpi.
 */
#include <stdlib.h>
#include <string.h>

#include "prof/prof.h"

#define APPLICATION_TIMER ".TAU application"
static const char *const preload_names[] = { "libktau-prof.so", "libktau-mpi.so" };

/* Whether the file name base[0 .. len) is one of preload_names, with any
 * suffix (".1"). */
static bool is_ours(const char *base, size_t len)
{
	size_t i;

	for (i = 0; i < KTAU_ARRAY_SIZE(preload_names); i++) {
		size_t n = strlen(preload_names[i]);

		if (len >= n && !strncmp(base, preload_names[i], n))
			return true;
	}
	return false;
}

/* Whether the LD_PRELOAD list (blank or colon separated) has one of ours. */
static bool preloaded(const char *list)
{
	const char *p = list;

	while (p && *p) {
		size_t len = strcspn(p, " :");
		const char *base = p, *s;

		for (s = p; s < p + len; s++)
			if (*s == '/')
				base = s + 1;
		if (is_ours(base, (size_t)(p + len - base)))
			return true;
		p += len;
		p += strspn(p, " :");
	}
	return false;
}

__attribute__((constructor)) static void preload_start(void)
{
	struct ktau_timer *app;

	if (!preloaded(getenv("LD_PRELOAD")))
		return;
	app = ktau_timer_get(APPLICATION_TIMER, "TAU_DEFAULT");
	if (app)
		ktau_timer_start(app);
}
