// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the TAU compatibility layer's unpack_bindata()
 * (make -C tests/unit fuzz): packed profiles from anywhere must unpack
 * within the buffer or fail with EPROTO; what unpacks goes through
 * ktau_diff_profiles() and aggr_many_profiles() too.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ktau_proc_interface.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly size bytes, so that ASan sees any read past it */
	char *buf = malloc(size ? size : 1);
	ktau_output *out = NULL, *diff = NULL;
	unsigned long total = 0;
	long n, i, d;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	errno = 0;
	n = unpack_bindata(KTAU_TYPE_PROFILE, buf, size, &out);
	if (n < 0) {
		if (out || errno != EPROTO)
			abort();
		free(buf);
		return 0;
	}
	for (i = 0; i < n; i++) {
		if (out[i].size && !out[i].ent_lst)
			abort();
		total += out[i].size;
		if ((unsigned long long)total * sizeof(o_ent) > size)
			abort();
	}
	/* the data against itself, and against nothing */
	d = ktau_diff_profiles(out, (int)n, out, (int)n, &diff);
	if (d < 0 || d > n)
		abort();
	ktau_free_profiles(diff, d);
	d = ktau_diff_profiles(NULL, 0, out, (int)n, &diff);
	if (d < 0)
		abort();
	ktau_free_profiles(diff, d);
	{
		o_ent room[16];
		ktau_output sum = { 0, 0, room, NULL };

		if (aggr_many_profiles(out, (unsigned int)n, 16, &sum) && errno != ENOSPC &&
		    errno != EOVERFLOW)
			abort();
		if (sum.size > 16)
			abort();
	}
	ktau_free_profiles(out, n);
	free(buf);
	return 0;
}
