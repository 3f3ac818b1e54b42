/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktr — a tiny, self-contained reader of the ktau /proc text format v2
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

/* the kernel's clock as user mode reads it, libktau's (header-only) */
#include "../../libktau/src/util/clock.h"

#define KTR_NAME_MAX 64

#define KTR_MAX_DEPTH 8

struct ktr_rec {		/* a func line */
	uint64_t ctx;
	uint64_t fid;
	uint64_t calls, incl, excl;
	char name[KTR_NAME_MAX];
	char group[KTR_NAME_MAX];
	int lineno;
};

/* A path line (tid 0), or an open line (tid: the live thread running it). */
struct ktr_path {
	uint64_t tid;
	uint64_t ctx;
	unsigned int depth;		/* 1..KTR_MAX_DEPTH */
	uint64_t fids[KTR_MAX_DEPTH];	/* outermost first */
	char name[KTR_NAME_MAX];	/* the innermost routine's */
	char group[KTR_NAME_MAX];
	char parent[KTR_NAME_MAX];	/* name of fids[depth - 2]; "" at depth 1 */
	uint64_t calls;			/* 0 for open lines */
	uint64_t incl, excl;
	int lineno;
};

struct ktr_event {		/* an event line: event ctx fid name count min max sum sumsq */
	uint64_t ctx, fid;
	char name[KTR_NAME_MAX];
	uint64_t count, min, max, sum, sumsq;
	int lineno;
};

struct ktr_block {
	char kind[16];		/* thread | process | exited | children */
	long pid, tid;
	char comm[64];
	long threads, exited_threads, processes, private_processes, dropped;	/* -1 if absent */
	long pending;		/* children: folds still to come; -1 if absent */
	int lineno;
	struct ktr_rec *funcs;
	size_t nfuncs, capfuncs;
	struct ktr_path *paths;		/* every prefix of a path precedes it */
	size_t npaths, cappaths;
	struct ktr_path *opens;
	size_t nopens, capopens;
	struct ktr_event *events;
	size_t nevents, capevents;
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

/* Wait until task @pid (a process, or any thread's id) sleeps, switched
 * out in a system call: blocked where the test wants it.  0, or -1 after
 * 5 seconds. */
int ktr_wait_sleeping(pid_t pid);

/* Wait for child @pid: its exit status, 128 + the signal that killed it,
 * or -1 if waitpid() fails. */
int ktr_reap(pid_t pid);

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

/* Event lines named `name` merged over all contexts (count and sums
 * added, min/max combined) into *out.  Returns the number of lines found. */
int ktr_event_find(const struct ktr_block *b, const char *name,
		   struct ktr_event *out);

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
/* Read and parse /proc/ktau/functions into *m (its size in *len, if not
 * NULL): 0, or -1 with *m empty, after "FAIL: <test>/<check>: ..." saying
 * why when check is not NULL. */
int ktr_load_functions(struct ktr_fmap *m, size_t *len, const char *check);

/* Read (once: exactly one read() of up to 1 MiB) and parse a profile.  On
 * failure prints "FAIL: <test>/<check>: <path>: <why>" and returns -1. */
int ktr_load(const char *path, int once, struct ktr_profile *p, const char *check);

/* ktr_load() (not once) until no children block has folds pending, at
 * most 10 s: the totals of processes whose autoreaped descendants were
 * still exiting as they were reaped arrive with the last of those.  0,
 * or -1 after a FAIL line (a read failed, or still pending after 10 s). */
int ktr_load_settled(const char *path, struct ktr_profile *p, const char *check);

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
/* A check that could not run here (an optional part missing from the
 * guest): "SKIP: <test>/<check>: why", neither passed nor failed. */
void ktr_skip(const char *check, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Run the shell script of a root overlay a host check staged (its
 * PASS/FAIL lines are the test's): does not return unless the exec
 * fails; without the script, a SKIP naming @staged_by.  Returns the
 * test's exit status when it does return. */
int ktr_run_overlay(const char *script, const char *staged_by);

/* ---- additions for the softirq/irq/fault/sched/control tests ---- */

/* Sum of the path lines ending in `parent => name`, at any depth and over
 * all contexts (parent NULL: any caller, depth >= 2).  Returns the number
 * of lines found. */
int ktr_edge(const struct ktr_block *b, const char *parent, const char *name,
	     uint64_t *calls, uint64_t *incl, uint64_t *excl);

/* Sum of the path lines whose element names are exactly names[0..n) from
 * the outermost routine, over all contexts.  Returns the lines found. */
int ktr_path_sum(const struct ktr_block *b, const char *const *names, unsigned int n,
		 uint64_t *calls, uint64_t *incl, uint64_t *excl);

/* Name of element k (0 = outermost) of path p of block b ("?" if unknown). */
const char *ktr_path_elem(const struct ktr_block *b, const struct ktr_path *p,
			  unsigned int k);

/* Calls of `name` with no caller: its depth-1 path lines' calls. */
uint64_t ktr_toplevel(const struct ktr_block *b, const char *name);

/* The group of the first func line named `name` in b, or NULL. */
const char *ktr_func_group(const struct ktr_block *b, const char *name);

/* Sum of the calls of every func line of group `group`. */
uint64_t ktr_group_calls(const struct ktr_block *b, const char *group);

/* Like ktr_load(once=1) but reads with ONE read() into the caller's buffer
 * (cap bytes; pre-fault it with memset so that the read() causes no page
 * faults of its own). */
int ktr_load_buf(const char *path, char *buf, size_t cap, struct ktr_profile *p,
		 const char *check);

/* The kernel's clock, as the profiles count it (their tsc_khz). */
static inline uint64_t ktr_cycles(void)
{
	return ktau__cycles();
}

/* Cycles in ms milliseconds at tsc_khz. */
static inline uint64_t ktr_ms_cycles(uint64_t tsc_khz, uint64_t ms)
{
	return tsc_khz * ms;
}

/* Reads at most len - 1 bytes of a small file (one read()) into buf,
 * NUL-terminated; the length, or -1. */
ssize_t ktr_read_small(const char *path, char *buf, size_t len);

/* A worker process: forks a child that runs nthreads threads of fn, joins
 * them, writes one byte to the pipe read by *ready, then waits until *go
 * (a pipe's write end) is closed and exits 0 (2: a thread could not
 * start, 3: ready could not be written).  Returns the child's pid, or -1
 * with errno set. */
pid_t ktr_worker_fork(int nthreads, void *(*fn)(void *), int *ready, int *go);

/* /proc/ktau/control */
#define KTR_CONTROL "/proc/ktau/control"
/* One open(O_WRONLY) + ONE write() of len bytes.  Returns 0 if the write
 * returned len, else the errno (EIO for a short write). */
int ktr_ctl_write(const char *cmd, size_t len);
/* Write @text to the file @path with one open(O_WRONLY) and one write()
 * (a uid_map, a cgroup or debugfs file): 0, or -1 with errno set. */
int ktr_write_file(const char *path, const char *text);
/* ktr_ctl_write of a C string. */
int ktr_ctl(const char *cmd);
/* The whole control file (malloc'ed), or NULL with errno set. */
char *ktr_ctl_read(void);
/* The value of line `key` of a control read-back (e.g. "state"), copied
 * into out (words after the key, single-blank separated); -1 if absent. */
int ktr_ctl_field(const char *text, const char *key, char *out, size_t len);
/* The number after `field` (e.g. "limit=") on line `key` of the control
 * file, or after the key itself when field is NULL; 0 if absent. */
unsigned long ktr_ctl_number(const char *key, const char *field);

#endif
