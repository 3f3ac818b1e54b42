// SPDX-License-Identifier: LGPL-2.1-or-later
/* Saved profile files; the /proc readers are in procfs.c. */
#include "proc/proc.h"

struct ktau_profile *ktau_profile_load(const struct ktau_load_opts *opts,
				       struct ktau_error **err)
{
	struct ktau_parse_error pe;

	ktau__clear_error(&pe);
	return ktau__ret_ptr(ktau__load_parse(&ktau__profile_parser, opts, &pe), &pe, err);
}
