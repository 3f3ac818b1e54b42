/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ktau's compatibility layer for TAU: KTAU's merge state (-ktau_merge, which
 * TAU's configure switches off).  Declared because TAU's KTAU code names it
 * in every -ktau build (KtauProfiler.h/.cpp); nothing fills it:
 * ktau_set_state() fails with ENOSYS.
 */
#ifndef _KTAU_COMPAT_MERGE_H
#define _KTAU_COMPAT_MERGE_H

/* the merge groups: TAU's KtauProfiler.h names NO_MERGE_GRPS + 1 of them */
#define KTAU_MERGE_MAX_GRPS	11
#define merge_max_grp		KTAU_MERGE_MAX_GRPS

typedef struct _ktau_state_buf {
	unsigned long long ktime[KTAU_MERGE_MAX_GRPS];
	unsigned long long kexcl[KTAU_MERGE_MAX_GRPS];
	unsigned long long knumcalls[KTAU_MERGE_MAX_GRPS];
} ktau_state_buf;

typedef struct _ktau_state {
	volatile int active_index;
	ktau_state_buf state[2];
} ktau_state;

#endif
