// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Per-process totals of a system profile.  A thread that exits between two
 * snapshots moves from its own block into its process's exited block, so
 * only the process sum is comparable across snapshots.
 */
#include <errno.h>

#include "profile/profile.h"

/* The comm a process block gets: its main thread's, else its first block's. */
static const char *process_comm(const struct ktau_profile *p, pid_t pid,
				const struct ktau_block *first)
{
	const struct ktau_block *main_thread =
		ktau_profile_find_block(p, KTAU_BLOCK_THREAD, pid, pid);

	return main_thread ? main_thread->comm : first->comm;
}

static struct ktau_block *find_total(struct ktau_profile *out, pid_t pid)
{
	size_t i;

	for (i = 0; i < out->nr_blocks; i++)
		if (out->blocks[i]->pid == pid)
			return out->blocks[i];
	return NULL;
}

struct ktau_profile *ktau_profile_process_totals(const struct ktau_profile *system)
{
	struct ktau_profile *out;
	size_t i;
	int ret = 0;

	if (!system || system->scope != KTAU_SCOPE_SYSTEM) {
		errno = EINVAL;
		return NULL;
	}
	out = ktau_profile_new(KTAU_SCOPE_SYSTEM, system->tsc_khz);
	if (!out)
		return NULL;
	for (i = 0; i < system->nr_blocks && !ret; i++) {
		const struct ktau_block *b = system->blocks[i];
		struct ktau_block *total;

		if (b->kind != KTAU_BLOCK_THREAD && b->kind != KTAU_BLOCK_EXITED)
			continue;
		total = find_total(out, b->pid);
		if (!total)
			total = ktau_profile_add_block(out, KTAU_BLOCK_PROCESS, b->pid, b->pid,
						       process_comm(system, b->pid, b));
		if (!total) {
			ret = -ENOMEM;
			break;
		}
		ret = ktau_block_add(total, b);
	}
	if (ret) {
		ktau_profile_free(out);
		errno = -ret;
		return NULL;
	}
	return out;
}
