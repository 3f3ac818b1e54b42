// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the /proc text parsers and the archive reader:
 * make -C tests/unit fuzz
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
	struct ktau_control_status *c = ktau_control_status_parse((const char *)data, size,
								  NULL);

	if (p) {
		struct ktau_profile *sum = ktau_profile_sum(p, p);

		ktau_profile_validate(p, NULL);
		if (ktau_profile_scope(p) == KTAU_SCOPE_SYSTEM)
			ktau_profile_free(ktau_profile_process_totals(p));
		if (sum) {
			struct ktau_profile *diff = ktau_profile_diff(p, sum);

			ktau_profile_free(diff);
			ktau_profile_free(sum);
		}
	}
	ktau_profile_free(p);
	ktau_functions_free(m);
	if (c) {
		size_t i;

		for (i = 0; i < ktau_control_status_group_count(c); i++)
			ktau_control_status_group_enabled(c, ktau_control_status_group(c, i));
		ktau_control_status_memory(c, NULL, NULL, NULL);
		for (i = 0; i <= ktau_control_status_user_count(c); i++)
			ktau_control_status_user(c, i, NULL, NULL, NULL);
	}
	ktau_control_status_free(c);
	ktau_archive_free(ktau_archive_parse(data, size, NULL));
	return 0;
}
