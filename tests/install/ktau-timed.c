// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ktau-timed: a program that tests/install builds against an installed
 * libktau-prof with `pkg-config --cflags --libs ktau-prof` only.  It times
 * one user routine, calls it argv[1] times and leaves the writing to the
 * profiler's exit handler ($KTAU_PROFILE_DIR), for the test to read back.
 */
#include <stdio.h>
#include <stdlib.h>

#include <ktau-prof.h>

static void work(void)
{
	KTAU_SCOPE_GROUP("install check", "TAU_USER");
}

int main(int argc, char **argv)
{
	long i, n;

	if (argc != 2 || (n = strtol(argv[1], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: %s COUNT\n", argv[0]);
		return 2;
	}
	for (i = 0; i < n; i++)
		work();
	return 0;
}
