/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the profile-printing tools share beyond the tables: the --groups
 * and --top selections, and --json output (docs/json-schema.md).
 */
#ifndef KTAU_TOOLS_PROFILE_SELECT_H
#define KTAU_TOOLS_PROFILE_SELECT_H

#include <stdbool.h>
#include <stdio.h>

#include <ktau.h>

#define SELECT_MAX_GROUPS 16

struct selection {
	const char *groups[SELECT_MAX_GROUPS];	/* --groups, pointing into argv */
	size_t nr_groups;			/* 0: every group */
	size_t top;				/* --top N, 0: every routine */
	char group_buf[256];			/* the copy groups[] points into */
};

/* "syscall,softirq" into s->groups; 0, or -EINVAL after printing a usage
 * error that names the bad group. */
int select_parse_groups(struct selection *s, const char *arg);
/* --top N into s->top; 0, or -EINVAL after printing a usage error. */
int select_parse_top(struct selection *s, const char *arg);

/*
 * The selection applied: *grouped keeps the selected groups (the totals
 * of a table), *rows also only the top routines (its rows). Either may be
 * p itself when the selection does not change it. 0 or -errno.
 */
int select_apply(const struct selection *s, const struct ktau_profile *p,
		 struct ktau_profile **grouped, struct ktau_profile **rows);
/* Frees what select_apply() made (not p). */
void select_release(const struct ktau_profile *p, struct ktau_profile *grouped,
		    struct ktau_profile *rows);

/* A model thread per block for which keep(b) is true, node `node`. */
int json_add_blocks(struct ktau_model *m, const struct ktau_profile *p,
		    unsigned int node, bool (*keep)(const struct ktau_block *b,
						    const void *arg),
		    const void *arg);

#endif
