// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * LD_PRELOAD=libktau-prof.so: profile a program that was neither recompiled
 * nor relinked. The constructor starts TAU's top-level timer, ".TAU
 * application", in the main thread before main() runs; the profiler's
 * exit handler writes it (still running: it counts up to exit) with the
 * kernel routines of the whole run merged under it.
 *
 * The same library linked normally must not do this, so the constructor
 * acts only when LD_PRELOAD names libktau-prof.
 */
#include <stdlib.h>
#include <string.h>

#include "prof/prof.h"

#define APPLICATION_TIMER ".TAU application"
#define PRELOAD_NAME "libktau-prof.so"

/* Whether the LD_PRELOAD list (blank or colon separated) has libktau-prof.so*. */
static bool preloaded(const char *list)
{
	const char *p = list;

	while (p && *p) {
		size_t len = strcspn(p, " :");
		const char *base = p, *s;

		for (s = p; s < p + len; s++)
			if (*s == '/')
				base = s + 1;
		if ((size_t)(p + len - base) >= sizeof(PRELOAD_NAME) - 1 &&
		    !strncmp(base, PRELOAD_NAME, sizeof(PRELOAD_NAME) - 1))
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
