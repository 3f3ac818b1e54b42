// SPDX-License-Identifier: GPL-2.0
/*
 * format — /proc/ktau/functions and the profile files follow the v1 format
 * (docs/proc-format.md): headers, scopes, block kinds, ids, names.
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static struct ktr_fmap fmap;
static int have_fmap;

static void check_functions(void)
{
	/* a system call's id is its number: x86_64's 0, 1, 39, arm64's 63, 64, 172 */
	static const struct { const char *name; uint64_t fid; } want[] = {
		{ "read", SYS_read }, { "write", SYS_write }, { "getpid", SYS_getpid },
	};
	char err[256], check[64];
	size_t len;
	char *text = ktr_slurp("/proc/ktau/functions", &len);

	if (!text) {
		ktr_fail("functions-read", "/proc/ktau/functions: %s", strerror(errno));
		return;
	}
	ktr_check(strncmp(text, "ktau-functions 1\n", 17) == 0, "functions-first-line",
		  "first line '%.40s', expected 'ktau-functions 1'", text);
	if (ktr_parse_functions(text, len, &fmap, err, sizeof(err))) {
		ktr_fail("functions-parse", "%s", err);
		free(text);
		return;
	}
	free(text);
	have_fmap = 1;
	ktr_pass("functions-parse");
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct ktr_fmap_ent *e = ktr_fmap_name(&fmap, want[i].name);

		snprintf(check, sizeof(check), "functions-%s", want[i].name);
		if (!e)
			ktr_fail(check, "no function named '%s'", want[i].name);
		else
			ktr_check(e->fid == want[i].fid && !strcmp(e->group, "syscall"), check,
				  "'%s' has fid %" PRIu64 " group %s, expected fid %" PRIu64
				  " group syscall", want[i].name, e->fid, e->group, want[i].fid);
	}
	ktr_check(ktr_fmap_name(&fmap, "ni_syscall") != NULL, "functions-ni_syscall",
		  "no static point named 'ni_syscall' (%zu functions)", fmap.n);
	/* ids and names unique */
	for (size_t i = 0; i < fmap.n; i++)
		for (size_t j = i + 1; j < fmap.n; j++) {
			if (fmap.ents[i].fid == fmap.ents[j].fid) {
				ktr_fail("functions-unique-fid", "fid %" PRIu64 " listed twice (%s, %s)",
					 fmap.ents[i].fid, fmap.ents[i].name, fmap.ents[j].name);
				goto names;
			}
		}
	ktr_pass("functions-unique-fid");
names:
	for (size_t i = 0; i < fmap.n; i++)
		for (size_t j = i + 1; j < fmap.n; j++)
			if (!strcmp(fmap.ents[i].name, fmap.ents[j].name)) {
				ktr_fail("functions-unique-name", "name %s listed twice (fids %" PRIu64
					 ", %" PRIu64 ")", fmap.ents[i].name, fmap.ents[i].fid,
					 fmap.ents[j].fid);
				return;
			}
	ktr_pass("functions-unique-name");
}

/* every func/edge line names its fids as the function map does */
static void check_names(struct ktr_profile *p, const char *what)
{
	char check[64];

	if (!have_fmap)
		return;
	snprintf(check, sizeof(check), "%s-names-match-map", what);
	for (size_t i = 0; i < p->nblocks; i++) {
		struct ktr_block *b = &p->blocks[i];

		for (size_t k = 0; k < b->nfuncs; k++) {
			struct ktr_rec *r = &b->funcs[k];
			const struct ktr_fmap_ent *e = ktr_fmap_fid(&fmap, r->fid);

			if (!e || strcmp(e->name, r->name) || strcmp(e->group, r->group)) {
				ktr_fail(check, "line %d: func fid %" PRIu64 " %s %s, map says %s %s",
					 r->lineno, r->fid, r->name, r->group,
					 e ? e->name : "(absent)", e ? e->group : "-");
				return;
			}
		}
		for (size_t k = 0; k < b->npaths + b->nopens; k++) {
			struct ktr_path *r = k < b->npaths ? &b->paths[k] : &b->opens[k - b->npaths];

			for (unsigned int d = 0; d < r->depth; d++) {
				const struct ktr_fmap_ent *e = ktr_fmap_fid(&fmap, r->fids[d]);
				const char *name = ktr_path_elem(b, r, d);

				if (!e || strcmp(e->name, name) ||
				    (d + 1 == r->depth && strcmp(e->group, r->group))) {
					ktr_fail(check, "line %d: path element %u: fid %" PRIu64
						 " %s, map says %s", r->lineno, d, r->fids[d], name,
						 e ? e->name : "(absent)");
					return;
				}
			}
		}
	}
	ktr_pass(check);
}

static void check_header(struct ktr_profile *p, const char *what, const char *scope)
{
	char check[64];

	snprintf(check, sizeof(check), "%s-header", what);
	ktr_check(p->version == 2 && p->tsc_khz > 0 && !strcmp(p->scope, scope) && p->have_end &&
		  !strcmp(p->last_line, "end"), check,
		  "version %d tsc_khz %" PRIu64 " scope %s last line '%s'; expected 2, >0, %s, 'end'",
		  p->version, p->tsc_khz, p->scope, p->last_line, scope);
}

static int rank(const char *kind)
{
	return !strcmp(kind, "thread") ? 0 : !strcmp(kind, "exited") ? 1 :
	       !strcmp(kind, "children") ? 2 : -1;
}

static void check_dropped(struct ktr_block *b, const char *what)
{
	char check[64];

	snprintf(check, sizeof(check), "%s-dropped", what);
	ktr_check(b->dropped == 0, check, "%s block (line %d) dropped=%ld, expected 0",
		  b->kind, b->lineno, b->dropped);
}

int main(int argc, char **argv)
{
	struct ktr_profile p;
	struct ktr_block *b;
	long pid = syscall(SYS_getpid), tid = syscall(SYS_gettid);
	char path[64], comm[16];
	const char *base;
	uint64_t khz_self = 0;

	(void)argc;
	ktr_init("format");
	base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	snprintf(comm, sizeof(comm), "%s", base);	/* TASK_COMM_LEN 16 */

	check_functions();

	/* /proc/self/ktau: scope process; one process block, then one children block */
	if (ktr_load("/proc/self/ktau", 0, &p, "self-parse") == 0) {
		ktr_pass("self-parse");
		check_header(&p, "self", "process");
		khz_self = p.tsc_khz;
		ktr_check(p.nblocks == 2 && !strcmp(p.blocks[0].kind, "process") &&
			  !strcmp(p.blocks[1].kind, "children"), "self-blocks",
			  "%zu blocks (%s, %s), expected 2: process, children", p.nblocks,
			  p.nblocks > 0 ? p.blocks[0].kind : "-", p.nblocks > 1 ? p.blocks[1].kind : "-");
		b = ktr_block_kind(&p, "process", 0);
		if (b) {
			ktr_check(b->pid == pid && !strcmp(b->comm, comm) && b->threads == 1,
				  "self-process-fields",
				  "process block pid=%ld comm=%s threads=%ld, expected pid=%ld comm=%s threads=1",
				  b->pid, b->comm, b->threads, pid, comm);
			check_dropped(b, "self-process");
		}
		b = ktr_block_kind(&p, "children", 0);
		if (b)
			ktr_check(b->pid == pid && b->tid == 0 && !strcmp(b->comm, "-"),
				  "self-children-fields",
				  "children block pid=%ld tid=%ld comm=%s, expected pid=%ld tid=0 comm=-",
				  b->pid, b->tid, b->comm, pid);
		check_names(&p, "self");
		ktr_free(&p);
	}

	/* /proc/self/task/<tid>/ktau: scope thread, one thread block */
	snprintf(path, sizeof(path), "/proc/self/task/%ld/ktau", tid);
	if (ktr_load(path, 0, &p, "thread-parse") == 0) {
		ktr_pass("thread-parse");
		check_header(&p, "thread", "thread");
		ktr_check(p.tsc_khz == khz_self, "thread-tsc_khz",
			  "tsc_khz %" PRIu64 " differs from /proc/self/ktau's %" PRIu64,
			  p.tsc_khz, khz_self);
		b = ktr_block_kind(&p, "thread", 0);
		ktr_check(p.nblocks == 1 && b && b->pid == pid && b->tid == tid &&
			  !strcmp(b->comm, comm), "thread-block",
			  "%zu blocks, first %s pid=%ld tid=%ld comm=%s; expected 1 thread pid=%ld "
			  "tid=%ld comm=%s", p.nblocks, p.nblocks ? p.blocks[0].kind : "-",
			  p.nblocks ? p.blocks[0].pid : -1, p.nblocks ? p.blocks[0].tid : -1,
			  p.nblocks ? p.blocks[0].comm : "-", pid, tid, comm);
		if (b)
			check_dropped(b, "thread");
		check_names(&p, "thread");
		ktr_free(&p);
	}

	/* /proc/ktau/profile: scope system; per process thread blocks, exited, children */
	if (access("/proc/ktau/profile", F_OK) == 0) {
		if (ktr_load("/proc/ktau/profile", 0, &p, "system-parse") == 0) {
			int mine_thread = 0, mine_exited = 0, mine_children = 0, order_ok = 1;
			long last_pid = -1;
			const char *last_kind = "";

			ktr_pass("system-parse");
			check_header(&p, "system", "system");
			for (size_t i = 0; i < p.nblocks; i++) {
				b = &p.blocks[i];
				if (b->pid == pid) {
					mine_thread += !strcmp(b->kind, "thread") && b->tid == tid;
					mine_exited += !strcmp(b->kind, "exited");
					mine_children += !strcmp(b->kind, "children");
				}
				/* a process's blocks are contiguous: thread..., exited, children */
				int rk = rank(b->kind), lrk = rank(last_kind), ok;

				if (rk < 0)
					ok = 0;
				else if (b->pid == last_pid)
					ok = (rk == 0 && lrk == 0) || rk == lrk + 1;
				else
					ok = (last_pid == -1 || lrk == 2) && rk <= 1;
				if (!ok && order_ok) {	/* report the first one only */
					ktr_fail("system-block-order",
						 "line %d: %s block of pid %ld after %s block of pid %ld "
						 "(expected per process: thread..., exited, children)",
						 b->lineno, b->kind, b->pid, last_kind, last_pid);
					order_ok = 0;
				}
				last_pid = b->pid;
				last_kind = b->kind;
			}
			if (order_ok)
				ktr_check(p.nblocks == 0 || !strcmp(last_kind, "children"),
					  "system-block-order", "last block is %s, expected children",
					  last_kind);
			ktr_check(mine_thread == 1 && mine_exited == 1 && mine_children == 1,
				  "system-has-self",
				  "own pid %ld: %d thread(tid %ld)/%d exited/%d children blocks, expected 1/1/1",
				  pid, mine_thread, tid, mine_exited, mine_children);
			check_names(&p, "system");
			ktr_free(&p);
		}
	} else {
		ktr_fail("system-parse", "/proc/ktau/profile: %s", strerror(errno));
	}
	ktr_fmap_free(&fmap);
	return ktr_exit();
}
