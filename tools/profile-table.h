/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Text tables of a profile block, shared by the ktau command-line tools. */
#ifndef KTAU_TOOLS_PROFILE_TABLE_H
#define KTAU_TOOLS_PROFILE_TABLE_H

#include <stdbool.h>
#include <stdio.h>

#include <ktau.h>

/* One comment line naming the block: kind, pid, tid, comm and its counts. */
void print_block_header(FILE *out, const struct ktau_profile *p,
			const struct ktau_block *b);
/* The flat profile, sorted by exclusive time; 0 or -ENOMEM. */
int print_flat_table(FILE *out, const struct ktau_profile *p,
		     const struct ktau_block *b);
/* The flat table of b's records, with the percentages and the total line
 * of all (b a selection of all's records, e.g. the top N); 0 or -ENOMEM. */
int print_flat_table_of(FILE *out, const struct ktau_profile *p,
			const struct ktau_block *b, const struct ktau_block *all);
/* Caller => callee edges, sorted by inclusive time; 0 or -ENOMEM. */
int print_callgraph(FILE *out, const struct ktau_profile *p,
		    const struct ktau_block *b);
/* Atomic events, in file order. */
void print_events(FILE *out, const struct ktau_block *b);
/*
 * Block i of p as ktau-dump prints it: header, flat table, note (a line
 * after the table, NULL: none), events and (callgraph) edges. grouped and
 * rows are selections of p with the same blocks (profile-select.h): rows
 * gives the rows, grouped the totals.
 */
int print_block_tables(FILE *out, const struct ktau_profile *p,
		       const struct ktau_profile *grouped,
		       const struct ktau_profile *rows, size_t i, bool callgraph,
		       const char *note);

#endif
