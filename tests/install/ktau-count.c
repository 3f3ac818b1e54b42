// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ktau-count: a program that tests/install builds against an installed
 * libktau (or the extracted Debian packages) with pkg-config only.  It
 * reads a saved profile with the library and prints the library's version
 * and what it found, for the test to compare with the file itself.
 */
#include <inttypes.h>
#include <stdio.h>

#include <ktau.h>

int main(int argc, char **argv)
{
	struct ktau_error *err;
	struct ktau_profile *p;
	size_t blocks, i, funcs = 0, edges = 0, events = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s PROFILE\n", argv[0]);
		return 2;
	}
	KTAU_OPTS(ktau_load_opts, load, .path = argv[1]);
	p = ktau_profile_load(&load, &err);
	if (!p) {
		fprintf(stderr, "%s:%u: %s\n", argv[1], ktau_error_line(err),
			ktau_error_message(err));
		ktau_error_free(err);
		return 1;
	}
	blocks = ktau_profile_block_count(p);
	for (i = 0; i < blocks; i++) {
		const struct ktau_block *b = ktau_profile_block(p, i);

		funcs += ktau_block_func_count(b);
		edges += ktau_block_edge_count(b);
		events += ktau_block_event_count(b);
	}
	printf("version %s\n", ktau_version());
	printf("profile %u\n", ktau_profile_version(p));
	printf("tsc_khz %" PRIu64 "\n", ktau_profile_tsc_khz(p));
	printf("blocks %zu\nfuncs %zu\nedges %zu\nevents %zu\n", blocks, funcs,
	       edges, events);
	ktau_profile_free(p);
	return 0;
}
