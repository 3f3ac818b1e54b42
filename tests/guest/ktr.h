/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktr — a tiny, self-contained reader of the ktau /proc text format v1
 * (docs/proc-format.md), used only by the guest tests.
 *
 * It is deliberately independent of libktau: the guest tests are a second,
 * independent reader of the contract.  It is strict: anything that does not
 * follow the format makes ktr_parse() fail with a message naming the line.
 */
#ifndef KTR_H
#define KTR_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define KTR_NAME_MAX 64

struct ktr_rec {		/* a func or an edge line */
	uint64_t ctx;
	uint64_t parent_fid;	/* edges only */
	uint64_t fid;
	uint64_t calls, incl, excl;
	char parent[KTR_NAME_MAX];	/* edges only */
	char name[KTR_NAME_MAX];
	char group[KTR_NAME_MAX];	/* funcs only */
	int lineno;
};

struct ktr_block {
	char kind[16];		/* thread | process | exited | children */
	long pid, tid;
	char comm[64];
	long threads, exited_threads, processes, dropped;	/* -1 if absent */
	int lineno;
	struct ktr_rec *funcs;
	size_t nfuncs, capfuncs;
	struct ktr_rec *edges;
	size_t nedges, capedges;
	size_t nevents;
};

struct ktr_profile {
	int version;
	uint64_t tsc_khz;
	int have_tsc_khz;
	char scope[16];
	int have_end;
	int nlines;
	char first_line[128];
	char last_line[128];
	struct ktr_block *blocks;
	size_t nblocks, capblocks;
};

/* Read a whole file: open(), then read() until EOF.  Returns a malloc'ed,
 * NUL-terminated buffer (length in *len) or NULL with errno set. */
char *ktr_slurp(const char *path, size_t *len);

/* Read with exactly ONE read() call of up to cap bytes (used where the count
 * of read() calls matters).  Returns NULL with errno set on failure. */
char *ktr_read_once(const char *path, size_t cap, size_t *len);

/* Parse a profile.  Returns 0, or -1 with a message in err. */
int ktr_parse(const char *text, size_t len, struct ktr_profile *p,
	      char *err, size_t errlen);
void ktr_free(struct ktr_profile *p);

/* The n-th block of the given kind (n from 0), or NULL. */
struct ktr_block *ktr_block_kind(struct ktr_profile *p, const char *kind, int n);

/* Sum of func lines named `name` over all contexts.  Returns the number of
 * lines found (0: all sums are 0). */
int ktr_func(const struct ktr_block *b, const char *name, uint64_t *calls,
	     uint64_t *incl, uint64_t *excl);

/* Function map of /proc/ktau/functions. */
struct ktr_fmap_ent {
	uint64_t fid;
	char group[KTR_NAME_MAX];
	char name[KTR_NAME_MAX];
};
struct ktr_fmap {
	char first_line[128];
	struct ktr_fmap_ent *ents;
	size_t n, cap;
};
int ktr_parse_functions(const char *text, size_t len, struct ktr_fmap *m,
			char *err, size_t errlen);
const struct ktr_fmap_ent *ktr_fmap_name(const struct ktr_fmap *m, const char *name);
const struct ktr_fmap_ent *ktr_fmap_fid(const struct ktr_fmap *m, uint64_t fid);
void ktr_fmap_free(struct ktr_fmap *m);

/* Read (once: exactly one read() of up to 1 MiB) and parse a profile.  On
 * failure prints "FAIL: <test>/<check>: <path>: <why>" and returns -1. */
int ktr_load(const char *path, int once, struct ktr_profile *p, const char *check);

/* Output protocol: one line per check. */
extern const char *ktr_test;	/* test name, set by each test's main */
extern int ktr_failed;		/* number of FAIL lines printed */
void ktr_pass(const char *check);
void ktr_fail(const char *check, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* PASS if cond, else FAIL with the formatted reason.  Returns cond. */
int ktr_check(int cond, const char *check, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Sets line buffering on stdout; call first in main. */
void ktr_init(const char *test);
/* Exit status for main: 1 if any check failed. */
int ktr_exit(void);
/* An informational line (not a check): "INFO: <test>/<what>: ...". */
void ktr_info(const char *what, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
