/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The nodes' own view for ktau-report --job: what each node's kernel did
 * between the job's start and end (daemons, kernel threads, interrupts),
 * from the system-wide archives ktau-run --node-profile saved as
 * node.<host>.start.ktar and node.<host>.end.ktar.
 */
#ifndef KTAU_TOOLS_JOB_NODES_H
#define KTAU_TOOLS_JOB_NODES_H

#include "job-summary.h"

/* The file names ktau-run --node-profile writes into the job directory. */
#define JOB_NODE_PREFIX "node."
#define JOB_NODE_START ".start.ktar"
#define JOB_NODE_END ".end.ktar"

/* Fills each node's activity from dir's node archives (a host with no
 * rank gets a node of its own). 0, or -errno after a message on stderr;
 * a missing end archive is a note, not an error. */
int job_nodes_read(struct job_summary *s, const char *dir);
void job_node_activity_free(struct job_node *n);

#endif /* KTAU_TOOLS_JOB_NODES_H */
