/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ktau-run --node-profile: once per node of a job, the node's system-wide
 * kernel profile as a ktau archive before the command starts and after it
 * ends, DIR/node.<host>.start.ktar and DIR/node.<host>.end.ktar, so that
 * ktau-report --job shows what the node's kernel did meanwhile (daemons,
 * kernel threads, interrupts) next to the ranks.
 */
#ifndef KTAU_TOOLS_RUN_NODE_H
#define KTAU_TOOLS_RUN_NODE_H

#include <limits.h>
#include <stdbool.h>

struct node_profile {
	bool leader;		/* this process saves the node's archives */
	const char *why;	/* how that was decided */
	char end_path[PATH_MAX];
};

/*
 * Decides whether this process is its node's one (the node-local rank 0
 * of the launcher's variables, else the first to create DIR/node.<host>.lock)
 * and if so saves the start archive. 0, or -1 after a message.
 */
int node_profile_start(struct node_profile *np, const char *dir);
/* The end archive, if this process saved the start. 0, or -1 after a message. */
int node_profile_end(const struct node_profile *np);

#endif /* KTAU_TOOLS_RUN_NODE_H */
