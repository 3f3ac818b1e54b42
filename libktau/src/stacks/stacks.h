/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private to libktau: sampled call stacks as a trie (one node per distinct
 * stack prefix, root first), what the perf/stap/dtrace parsers build and
 * ktau_model_add_stacks() reads.
 */
#ifndef KTAU_STACKS_STACKS_H
#define KTAU_STACKS_STACKS_H

#include "model/model.h"

/* The longest line the stack formats may have (C++ names grow long). */
#define KTAU_MAX_STACK_LINE 65536

struct ktau_stack_frame {
	const char *name;	/* normalised, unique within the stacks */
	const char *module;	/* normalised, NULL when unknown */
};

#define KTAU_STACK_NONE UINT32_MAX

/* Node 0 is the root, above every stack's outermost frame. */
struct ktau_stack_node {
	uint32_t frame;		/* index into frames (none for the root) */
	uint32_t parent;
	uint32_t first_child, last_child, next_sibling;	/* in input order */
	uint64_t incl;		/* samples whose stack starts with this prefix */
	uint64_t excl;		/* samples whose stack is this prefix */
};

/* (parent node, frame) -> child node */
struct ktau_child_table {
	uint64_t *keys;		/* 0: empty */
	uint32_t *nodes;
	size_t cap, used;
};

struct ktau_stacks {
	enum ktau_stacks_format format;
	struct ktau_strpool strings;
	struct ktau_stack_frame *frames;
	size_t nr_frames, cap_frames;
	struct ktau_index frame_index;		/* name -> frame */
	struct ktau_stack_node *nodes;
	size_t nr_nodes, cap_nodes;
	struct ktau_child_table children;
	uint64_t samples, empty_samples;
	size_t nr_stacks;

	/* the stack being parsed: frames leaf first */
	uint32_t *pending;
	size_t nr_pending, cap_pending;
	unsigned int pending_line;		/* its first frame's line */
};

/*
 * One frame as a parser cut it out of its line, before naming: each part
 * may be empty (len 0). address: hex digits, with or without "0x"; symbol:
 * as printed, offsets and all ("func+0x105/0x2b0", "[unknown]"); module:
 * without its brackets ("kernel.kallsyms", "/usr/lib/libc.so.6").
 */
struct ktau_raw_frame {
	const char *address;
	size_t address_len;
	const char *symbol;
	size_t symbol_len;
	const char *module;
	size_t module_len;
};

/* Names the frame (stacks_frame.c) and pushes it onto the pending stack,
 * which grows from the leaf. 0, -EPROTO (too deep) or -ENOMEM. */
KTAU_HIDDEN int ktau__stacks_push_frame(struct ktau_stacks *s,
					const struct ktau_raw_frame *raw,
					unsigned int line,
					struct ktau_parse_error *err);
/* Creates node 0, the root, in empty stacks; 0 or -ENOMEM. */
KTAU_HIDDEN int ktau__stacks_add_root(struct ktau_stacks *s);
/* Adds the pending stack (possibly empty) count times and starts a new
 * one. 0, -EOVERFLOW or -ENOMEM, err filled with line. */
KTAU_HIDDEN int ktau__stacks_commit(struct ktau_stacks *s, uint64_t count,
				    unsigned int line, struct ktau_parse_error *err);

/*
 * Visits every node but the root in depth-first order (children in input
 * order) with the frame names from the root down to it; stops at fn's
 * first non-zero return and returns it (or -ENOMEM).
 */
typedef int (*ktau_stack_node_fn)(void *arg, const struct ktau_stack_node *node,
				  const char *const *path, size_t depth);
KTAU_HIDDEN int ktau__stacks_walk(const struct ktau_stacks *s,
				  ktau_stack_node_fn fn, void *arg);

/* The parsers: the whole input into s. 0 or a negative errno, err filled. */
KTAU_HIDDEN int ktau__stacks_parse_perf(struct ktau_stacks *s, const char *buf,
					size_t len, struct ktau_parse_error *err);
KTAU_HIDDEN int ktau__stacks_parse_stap(struct ktau_stacks *s, const char *buf,
					size_t len, struct ktau_parse_error *err);
KTAU_HIDDEN int ktau__stacks_parse_dtrace(struct ktau_stacks *s, const char *buf,
					  size_t len, struct ktau_parse_error *err);

/* ---- what the parsers share ---- */

/* A line reader for the stack formats: longer lines, any byte >= 0x80. */
KTAU_HIDDEN void ktau__stacks_lines_init(struct ktau_line_reader *r,
					 const char *buf, size_t len);
/* The line without leading and trailing blanks (spaces, tabs). */
KTAU_HIDDEN void ktau__trim(const char **s, size_t *len);
/* Every byte a decimal digit (at least one). */
KTAU_HIDDEN int ktau__all_digits(const char *s, size_t len);
/* Every byte a hex digit (at least one). */
KTAU_HIDDEN int ktau__all_hex(const char *s, size_t len);
/* How much of a bad line an error message quotes: printf("%.*s", ...). */
#define KTAU_QUOTE(s, len) (int)((len) > 40 ? 40 : (len)), (s)

/*
 * The loop of the formats where each stack's frames are followed by a
 * line holding its count (stap, dtrace): blank lines are skipped, count
 * lines commit the pending stack, fn handles every other line (trimmed).
 * Frames left without a count at the end are an error.
 */
typedef int (*ktau_stack_line_fn)(struct ktau_stacks *s, const char *l, size_t n,
				  unsigned int line, struct ktau_parse_error *err);
KTAU_HIDDEN int ktau__stacks_parse_counted(struct ktau_stacks *s, const char *buf,
					   size_t len, ktau_stack_line_fn fn,
					   struct ktau_parse_error *err);

#endif /* KTAU_STACKS_STACKS_H */
