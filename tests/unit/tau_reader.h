/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An independent reader of TAU profile files (profile.<node>.<context>.
 * <thread>), written from DESIGN.md's "TAU profile format", not from
 * libktau's writer: the tests read what libktau wrote with it. Strict:
 * anything off the format fails with a reason. Plain C, no libktau, so the
 * guest tests use it too.
 */
#ifndef KTAU_TAU_READER_H
#define KTAU_TAU_READER_H

#include <stddef.h>
#include <stdint.h>

struct tau_entry {
	char *name;		/* as written, between the quotes */
	uint64_t calls, subrs;
	double excl, incl;	/* microseconds */
	char *group;
};

struct tau_event {
	char *name;
	uint64_t count;
	double max, min, mean, sumsq;
};

struct tau_profile {
	char metric[64];	/* after "_MULTI_" */
	char *metadata;		/* the <metadata>...</metadata> text */
	struct tau_entry *entries;
	size_t nr_entries;
	struct tau_event *events;
	size_t nr_events;
};

/* Parses a whole file's text: 0, or -1 with the reason in err. Checks the
 * counts, the header, GROUP= on every line, a flat entry for every
 * callpath element, callpath groups "TAU_CALLPATH | <the leaf's primary
 * group>" (its first word up to a blank or '|', as TAU writes them), no
 * negative or non-finite numbers, "0 aggregates", the userevents block. */
int tau_parse(const char *text, struct tau_profile *p, char *err, size_t errlen);
/* tau_parse() of file dir/name; -1 with the reason in err also when it
 * cannot be read. */
int tau_parse_file(const char *dir, const char *name, struct tau_profile *p,
		   char *err, size_t errlen);
void tau_free(struct tau_profile *p);

const struct tau_entry *tau_find(const struct tau_profile *p, const char *name);
const struct tau_event *tau_find_event(const struct tau_profile *p, const char *name);
/* The unescaped value of metadata attribute name, or NULL. */
const char *tau_metadata(const struct tau_profile *p, const char *name,
			 char *buf, size_t size);
/* Inclusive time of the children of callpath (or root routine) `path`:
 * every entry named "<path> => <leaf>" (one level down). */
double tau_children_incl(const struct tau_profile *p, const char *path,
			 size_t *count);

#endif
