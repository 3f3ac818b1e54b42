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
 * error (an empty name, too many). Whether the groups exist is for
 * select_check_groups() once it is known where the profiles come from. */
int select_parse_groups(struct selection *s, const char *arg);

/*
 * The groups --groups may name, each once in the order first seen. No
 * list is compiled in: a kernel may have groups a tool has never heard of,
 * so the list is whatever the profiles' source says.
 */
struct group_set {
	char **names;
	size_t count, cap;
};

/* Each adds to g; 0 or -errno. */
int group_set_add(struct group_set *g, const char *name);
/* The running kernel's: /proc/ktau/control when readable (it is root-only),
 * else the groups of /proc/ktau/functions; -errno when neither is. */
int group_set_add_kernel(struct group_set *g);
int group_set_add_functions(struct group_set *g, const struct ktau_functions *map);
/* The groups present in p: its func and open records', "event" for events. */
int group_set_add_profile(struct group_set *g, const struct ktau_profile *p);
void group_set_free(struct group_set *g);

/* 0 when every selected group is in g, else -EINVAL after a usage error
 * "unknown group 'x' (<where>: a, b, c)". */
int select_check_groups(const struct selection *s, const struct group_set *g,
			const char *where);
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
