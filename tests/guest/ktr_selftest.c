// SPDX-License-Identifier: GPL-2.0
/* Host self-test of the guest tests' reader (ktr.c): `make -C tests/guest selftest`. */
#define _GNU_SOURCE
#include "ktr.h"

#include <string.h>

static const char doc_example[] =
	"ktau-profile 2\n"
	"tsc_khz 2899999\n"
	"scope process\n"
	"columns func ctx fid name group calls incl_cycles excl_cycles\n"
	"columns path ctx fids name group calls incl_cycles excl_cycles\n"
	"columns event ctx fid name count min max sum sumsq\n"
	"columns open tid ctx fids name group incl_cycles excl_cycles\n"
	"task kind=process pid=412 tid=412 comm=getpid_test threads=1 exited_threads=0 dropped=0\n"
	"func 0 39 getpid syscall 1000 231000 231000\n"
	"func 0 0 read syscall 501 2680500 172000\n"
	"func 0 470 page_fault exception 3 9800 9300\n"
	"func 0 469 irq irq 1 500 500\n"
	"func 0 473 schedule_vol sched 1 2500000 2500000\n"
	"path 0 39 getpid syscall 1000 231000 231000\n"
	"path 0 0 read syscall 501 2680500 172000\n"
	"path 0 0,470 page_fault exception 2 8500 8000\n"
	"path 0 0,470,469 irq irq 1 500 500\n"
	"path 0 0,473 schedule_vol sched 1 2500000 2500000\n"
	"path 0 470 page_fault exception 1 1300 1300\n"
	"event 0 480 read_bytes 500 16 16 8000 128000\n"
	"open 412 0 0 read syscall 1500200 200\n"
	"open 412 0 0,473 schedule_vol sched 1500000 1500000\n"
	"task kind=children pid=412 tid=0 comm=- processes=2 private=1 dropped=0\n"
	"end\n";

/* columns reordered, an unknown record keyword, an unknown task key, ctx != 0 */
static const char reordered[] =
	"ktau-profile 2\n"
	"tsc_khz 1000\n"
	"scope thread\n"
	"columns func fid name group ctx calls incl_cycles excl_cycles extra\n"
	"columns path fids ctx name group calls incl_cycles excl_cycles extra\n"
	"future-header x y\n"
	"task kind=thread pid=5 tid=6 comm=a newkey=7\n"
	"func 39 getpid syscall 0 10 100 90 123\n"
	"func 39 getpid syscall 3 5 50 45 123\n"
	"path 39 3 getpid syscall 5 50 45 123\n"
	"future-record 1 2 3\n"
	"end\n";

/* nesting: page_fault 12 calls, 5 of them under syscalls; irq 4, all top */
static const char nested[] =
	"ktau-profile 2\n"
	"tsc_khz 1000\n"
	"scope thread\n"
	"task kind=thread pid=5 tid=5 comm=t\n"
	"func 0 0 read syscall 10 500 300\n"
	"func 0 1 write syscall 2 50 50\n"
	"func 0 470 page_fault exception 12 120 120\n"
	"func 0 471 irq irq 4 40 40\n"
	"func 0 472 TIMER softirq 2 20 20\n"
	"path 0 0 read syscall 10 500 300\n"
	"path 0 1 write syscall 2 50 50\n"
	"path 0 470 page_fault exception 7 70 70\n"
	"path 0 471 irq irq 4 40 40\n"
	"path 0 0,470 page_fault exception 3 30 30\n"
	"path 0 1,470 page_fault exception 2 20 20\n"
	"path 0 0,472 TIMER softirq 1 10 10\n"
	"path 0 1,472 TIMER softirq 1 10 10\n"
	"path 0 1,470,472 TIMER softirq 0 0 0\n"
	"end\n";

#define HDR "ktau-profile 2\ntsc_khz 1\nscope process\n"
#define TASK "task kind=process pid=1 tid=1\n"
static const char *const bad[] = {
	"",							/* empty */
	HDR,							/* no end */
	HDR "end",						/* no newline */
	"ktau-profile 1\ntsc_khz 1\nscope process\nend\n",	/* version */
	"ktau-profile 2\nscope process\nend\n",			/* no tsc_khz */
	"ktau-profile 2\ntsc_khz 1\nend\n",			/* no scope */
	HDR "func 0 39 getpid syscall 1 2 2\nend\n",		/* before task */
	HDR TASK "func 0 39 getpid syscall 1 2\nend\n",		/* short func */
	HDR TASK "func 0 39 getpid syscall -1 2 2\nend\n",	/* negative */
	HDR TASK "func 0 39 getpid syscall 1 2 2\nend\nfunc 0 1 write syscall 1 1 1\n",
	HDR "task kind=bogus pid=1 tid=1\nend\n",
	HDR "\nend\n",						/* empty line */
	HDR TASK "func 0 39 getpid syscall 99999999999999999999 2 2\nend\n",	/* overflow */
	HDR TASK "path 0 0,470 page_fault exception 1 2 2\nend\n",	/* no prefix */
	HDR TASK "path 0 0,,470 page_fault exception 1 2 2\nend\n",	/* empty id */
	HDR TASK "path 0 1,2,3,4,5,6,7,8,9 x kernel 1 2 2\nend\n",	/* too deep */
	HDR TASK "path 0 0 read syscall 1 2 2\npath 0 0 read syscall 1 2 2\nend\n",
	HDR TASK "open 1 0 0,470 page_fault exception 2 2\nend\n",	/* no prefix */
	HDR "open 1 0 0 read syscall 2 2\nend\n",		/* before task */
};

int main(void)
{
	struct ktr_profile p;
	struct ktr_block *b;
	struct ktr_fmap m;
	char err[256], check[32];
	uint64_t c, i, e;
	const char *fmap_text = "ktau-functions 1\ncolumns fid group name\n0 syscall read\n"
				"1 syscall write\n39 syscall getpid\n";

	ktr_init("ktr");
	if (ktr_check(ktr_parse(doc_example, strlen(doc_example), &p, err, sizeof(err)) == 0,
		      "doc-example", "%s", err)) {
		b = ktr_block_kind(&p, "process", 0);
		ktr_func(b, "getpid", &c, &i, &e);
		ktr_check(p.tsc_khz == 2899999 && !strcmp(p.scope, "process") && p.nblocks == 2 &&
			  b && b->pid == 412 && b->threads == 1 && b->dropped == 0 && c == 1000 &&
			  i == 231000 && e == 231000 && b->npaths == 6 && b->nevents == 1 &&
			  b->paths[3].depth == 3 && b->paths[3].fids[1] == 470 &&
			  !strcmp(b->paths[3].parent, "page_fault") && b->paths[3].calls == 1 &&
			  !strcmp(ktr_path_elem(b, &b->paths[3], 0), "read") &&
			  b->nopens == 2 && b->opens[1].tid == 412 && b->opens[1].incl == 1500000 &&
			  !strcmp(b->opens[1].parent, "read") &&
			  ktr_block_kind(&p, "children", 0)->processes == 2 &&
			  ktr_block_kind(&p, "children", 0)->private_processes == 1,
			  "doc-example-values", "values differ");
		ktr_free(&p);
	}
	if (ktr_check(ktr_parse(reordered, strlen(reordered), &p, err, sizeof(err)) == 0,
		      "reordered", "%s", err)) {
		b = ktr_block_kind(&p, "thread", 0);
		ktr_check(ktr_func(b, "getpid", &c, &i, &e) == 2 && c == 15 && i == 150 && e == 135 &&
			  b->funcs[1].ctx == 3 && b->tid == 6 && b->npaths == 1 &&
			  b->paths[0].ctx == 3 && b->paths[0].excl == 45, "reordered-values",
			  "calls %lu incl %lu excl %lu", (unsigned long)c, (unsigned long)i,
			  (unsigned long)e);
		ktr_free(&p);
	}
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		snprintf(check, sizeof(check), "rejects-%zu", k);
		if (!ktr_check(ktr_parse(bad[k], strlen(bad[k]), &p, err, sizeof(err)) != 0, check,
			       "accepted: %s", bad[k]))
			ktr_free(&p);
	}
	if (ktr_check(ktr_parse_functions(fmap_text, strlen(fmap_text), &m, err, sizeof(err)) == 0,
		      "functions", "%s", err)) {
		ktr_check(m.n == 3 && ktr_fmap_name(&m, "getpid")->fid == 39 &&
			  !strcmp(ktr_fmap_fid(&m, 1)->name, "write"), "functions-values",
			  "n=%zu", m.n);
		ktr_fmap_free(&m);
	}
	ktr_check(ktr_parse_functions("ktau-profile 1\n", 15, &m, err, sizeof(err)) != 0,
		  "functions-rejects", "accepted a profile as a function map");
	if (ktr_check(ktr_parse(nested, strlen(nested), &p, err, sizeof(err)) == 0, "nested",
		      "%s", err)) {
		static const char *const deep[] = { "write", "page_fault", "TIMER" };
		uint64_t c2, c3;

		b = ktr_block_kind(&p, "thread", 0);
		ktr_edge(b, "read", "page_fault", &c, &i, &e);
		ktr_edge(b, NULL, "page_fault", &c2, NULL, NULL);
		ktr_check(ktr_path_sum(b, deep, 3, &c3, NULL, NULL) == 1 && c3 == 0 &&
			  ktr_path_sum(b, deep, 2, &c3, NULL, NULL) == 1 && c3 == 2,
			  "nested-paths", "path sums");
		ktr_check(c == 3 && i == 30 && e == 30 && c2 == 5 &&
			  ktr_toplevel(b, "page_fault") == 7 && ktr_toplevel(b, "irq") == 4 &&
			  ktr_toplevel(b, "TIMER") == 0 && ktr_toplevel(b, "nothing") == 0 &&
			  !strcmp(ktr_func_group(b, "irq"), "irq") && !ktr_func_group(b, "x") &&
			  ktr_group_calls(b, "syscall") == 12, "nested-values",
			  "edge read=>page_fault %lu/%lu/%lu, into page_fault %lu",
			  (unsigned long)c, (unsigned long)i, (unsigned long)e, (unsigned long)c2);
		ktr_free(&p);
	}
	{
		static const char ctl[] = "ktau-control 1\nstate running\n"
			"groups  syscall   irq \navailable syscall softirq irq\nfids 500/4096\n"
			"lost_tasks 0\nusage: start | stop\nend\n";
		char v[64], v2[64], v3[8], v4[64];

		ktr_check(!ktr_ctl_field(ctl, "state", v, sizeof(v)) && !strcmp(v, "running") &&
			  !ktr_ctl_field(ctl, "groups", v2, sizeof(v2)) &&
			  !strcmp(v2, "syscall irq") &&
			  !ktr_ctl_field(ctl, "available", v3, sizeof(v3)) &&
			  !strcmp(v3, "syscall") && ktr_ctl_field(ctl, "stat", v4, sizeof(v4)) &&
			  !v4[0] && !ktr_ctl_field(ctl, "usage:", v4, sizeof(v4)) &&
			  !strcmp(v4, "start | stop"), "ctl-field",
			  "state '%s' groups '%s' available '%s'", v, v2, v3);
	}
	return ktr_exit();
}
