/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private to libktau: a profile's layout (blocks and their records). */
#ifndef KTAU_PROFILE_PROFILE_H
#define KTAU_PROFILE_PROFILE_H

#include "util/util.h"

/* ---- profiles ---- */

/* A record and the input line it came from (0 when computed). */
struct ktau_func_slot {
	struct ktau_func rec;
	unsigned int line;
};

struct ktau_edge_slot {
	struct ktau_edge rec;
	unsigned int line;
};

struct ktau_event_slot {
	struct ktau_event rec;
	unsigned int line;
};

struct ktau_path_slot {
	struct ktau_path rec;
	unsigned int line;
};

struct ktau_open_slot {
	struct ktau_open rec;
	unsigned int line;
};

struct ktau_block {
	struct ktau_profile *owner;
	enum ktau_block_kind kind;
	pid_t pid;
	pid_t tid;
	const char *comm;
	uint64_t threads;
	uint64_t exited_threads;
	uint64_t processes;
	uint64_t dropped;
	uint64_t private_processes;
	uint64_t pending;	/* children: folds still to come */
	unsigned int line;
	/*
	 * Which of edges and paths are the block's own records: true for a
	 * version 1 block (edge lines; paths derived from them), false for a
	 * version 2 one (path lines; edges derived from them). Arithmetic works
	 * on the own records and derives the others again.
	 */
	bool edges_own;

	struct ktau_func_slot *funcs;
	size_t nr_funcs, cap_funcs;
	struct ktau_edge_slot *edges;
	size_t nr_edges, cap_edges;
	struct ktau_event_slot *events;
	size_t nr_events, cap_events;
	struct ktau_path_slot *paths;
	size_t nr_paths, cap_paths;
	struct ktau_open_slot *opens;
	size_t nr_opens, cap_opens;
};

struct ktau_profile {
	unsigned int version;
	uint64_t tsc_khz;
	enum ktau_scope scope;
	/* pointers, so that a block stays put while more are appended */
	struct ktau_block **blocks;
	size_t nr_blocks, cap_blocks;
	struct ktau_strpool strings;
};

/* Copies a name into the string pool of b's profile; NULL when out of memory. */
KTAU_HIDDEN const char *ktau__block_intern(struct ktau_block *b,
					   const char *s, size_t len);
/* Appends rec as it is: its names must already belong to b's profile. */
KTAU_HIDDEN int ktau__block_append_func(struct ktau_block *b,
					const struct ktau_func *rec,
					unsigned int line);
KTAU_HIDDEN int ktau__block_append_edge(struct ktau_block *b,
					const struct ktau_edge *rec,
					unsigned int line);
KTAU_HIDDEN int ktau__block_append_event(struct ktau_block *b,
					 const struct ktau_event *rec,
					 unsigned int line);
KTAU_HIDDEN int ktau__block_append_path(struct ktau_block *b,
					const struct ktau_path *rec,
					unsigned int line);
KTAU_HIDDEN int ktau__block_append_open(struct ktau_block *b,
					const struct ktau_open *rec,
					unsigned int line);
/* A copy of fids[0..depth) in b's profile; NULL when out of memory. */
KTAU_HIDDEN const uint32_t *ktau__block_intern_fids(struct ktau_block *b,
						    const uint32_t *fids,
						    uint32_t depth);
KTAU_HIDDEN struct ktau_block *ktau__profile_append_block(struct ktau_profile *p,
							  enum ktau_block_kind kind,
							  pid_t pid, pid_t tid,
							  const char *comm,
							  size_t comm_len);
/* Copies a block's header and records to the end of dst. */
KTAU_HIDDEN struct ktau_block *ktau__profile_clone_block(struct ktau_profile *dst,
							 const struct ktau_block *src);
/* Appends rec with its names copied into b's profile. */
KTAU_HIDDEN int ktau__block_copy_func(struct ktau_block *dst,
				      const struct ktau_func *src, unsigned int line);
KTAU_HIDDEN int ktau__block_copy_edge(struct ktau_block *dst,
				      const struct ktau_edge *src, unsigned int line);
KTAU_HIDDEN int ktau__block_copy_event(struct ktau_block *dst,
				       const struct ktau_event *src, unsigned int line);
KTAU_HIDDEN int ktau__block_copy_path(struct ktau_block *dst,
				      const struct ktau_path *src, unsigned int line);
KTAU_HIDDEN int ktau__block_copy_open(struct ktau_block *dst,
				      const struct ktau_open *src, unsigned int line);
KTAU_HIDDEN int ktau__block_copy_records(struct ktau_block *dst,
					 const struct ktau_block *src);

KTAU_HIDDEN ssize_t ktau__find_func_index(const struct ktau_block *b,
					  uint64_t ctx, uint32_t fid);
KTAU_HIDDEN ssize_t ktau__find_edge_index(const struct ktau_block *b, uint64_t ctx,
					  uint32_t parent_fid, uint32_t fid);
KTAU_HIDDEN ssize_t ktau__find_event_index(const struct ktau_block *b,
					   uint64_t ctx, uint32_t fid);
KTAU_HIDDEN ssize_t ktau__find_path_index(const struct ktau_block *b, uint64_t ctx,
					  const uint32_t *fids, uint32_t depth);

/* ---- derived records (derive.c) ---- */

/* The name and group of path element k (k < depth), as
 * ktau_block_path_element_name() finds them; the group may be NULL. */
KTAU_HIDDEN const char *ktau__path_element(const struct ktau_block *b,
					   const struct ktau_path *path, uint32_t k,
					   const char **group);
/* Rebuilds the records a block does not own (its edges from its paths, or
 * a v1 block's paths from its edges); 0 or -ENOMEM. */
KTAU_HIDDEN int ktau__block_derive(struct ktau_block *b);

#endif /* KTAU_PROFILE_PROFILE_H */
