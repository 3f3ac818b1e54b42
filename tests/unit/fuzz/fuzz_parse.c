// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the two /proc text parsers: make -C tests/unit fuzz
 * Whatever parses must also survive validation, copying and arithmetic.
 */
#include <stddef.h>
#include <stdint.h>

#include <ktau.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ktau_profile *p = ktau_profile_parse((const char *)data, size, NULL);
	struct ktau_functions *m = ktau_functions_parse((const char *)data, size, NULL);

	if (p) {
		struct ktau_profile *sum = ktau_profile_sum(p, p);

		ktau_profile_validate(p, NULL);
		if (sum) {
			struct ktau_profile *diff = ktau_profile_diff(p, sum);

			ktau_profile_free(diff);
			ktau_profile_free(sum);
		}
	}
	ktau_profile_free(p);
	ktau_functions_free(m);
	return 0;
}
