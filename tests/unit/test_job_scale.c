// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A synthetic 1000-rank job (4000 files, 32 nodes, job_gen.c): libktau's
 * reader loads it and ktau-report --job summarises it with the figures
 * the generator knows. ktau-report's time and peak memory are printed as
 * INFO lines (the goal: under 10 s and 1 GiB): figures, not asserts.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <time.h>

#include "harness.h"
#include "job_gen.h"
#include "json_check.h"
#include "testutil.h"

#define RANKS 1000
#define THREADS 4
#define NODES 32

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * ktau-report --job's time and peak memory on dir as INFO lines, measured
 * by gen-job (not sanitized: a fork of this process would count its
 * memory as the child's).
 */
static void print_bench(const char *dir)
{
	char gen[4200], *line, *save = NULL;
	struct run_result r;

	snprintf(gen, sizeof(gen), "%s/gen-job", getenv("USERPROF_PROGS"));
	if (run_program((char *const[]){ gen, "--measure-only", "--bench",
					 getenv("KTAU_REPORT"), (char *)dir, NULL }, NULL, &r)) {
		printf("INFO: job_1000_ranks: cannot run %s\n", gen);
		return;
	}
	for (line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		printf("INFO: job_1000_ranks: %s\n", line);
	if (r.status)
		printf("INFO: job_1000_ranks: gen-job failed: %s\n", r.err);
	fflush(stdout);
	run_result_free(&r);
}

/* The sum over per_rank[] of member key (whole numbers). */
static uint64_t rank_sum(const struct json *ranks, const char *group, const char *key)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < ranks->count; i++) {
		const struct json *r = json_at(ranks, i);

		sum += json_u64(group ? json_get(json_get(r, "kernel_by_group"), group)
				      : json_get(r, key));
	}
	return sum;
}

TEST(job_1000_ranks_read_and_reported)
{
	struct job_gen g = { RANKS, THREADS, NODES };
	struct job_gen_totals t;
	char *dir = make_tmpdir();
	const struct ktau_tau_function *f;
	const struct json *job, *ranks, *node0, *top, *imb;
	struct ktau_tau_dir *d;
	struct run_result r;
	struct json *j;
	double t0, read_s;

	ASSERT_NOT_NULL(dir);
	ASSERT_EQ(0, job_gen_write(dir, &g, &t));
	ASSERT_EQ_U64(RANKS * THREADS, t.files);
	t0 = now();
	d = ktau_tau_dir_read(dir, NULL, test_err());
	read_s = now() - t0;
	ASSERT_NOT_NULL(d);
	ASSERT_EQ(RANKS * THREADS, ktau_tau_dir_thread_count(d));
	f = ktau_tau_thread_find_function(ktau_tau_dir_find_thread(d, 999, 0, 0), "main");
	ASSERT_TRUE(f && f->incl == t.main_max && f->calls == 1);
	ASSERT_EQ(2, ktau_tau_thread_event_count(ktau_tau_dir_find_thread(d, 5, 0, 0)));
	ktau_tau_dir_free(d);

	printf("INFO: job_1000_ranks: libktau read %d files in %.3f s (sanitized build)\n",
	       RANKS * THREADS, read_s);
	print_bench(dir);
	ASSERT_EQ(0, run_tool("KTAU_REPORT", NULL, &r, "--job", dir, "--json", "--top", "3",
			      (char *)NULL));
	remove_tree(dir);
	free(dir);
	ASSERT_EQ(0, r.status);
	j = json_parse(r.out, NULL);
	run_result_free(&r);
	ASSERT_NOT_NULL(j);
	job = json_get(j, "job");
	ranks = json_get(job, "per_rank");
	node0 = json_at(json_get(job, "per_node"), 0);
	top = json_at(json_get(job, "most_kernel"), 0);
	imb = json_at(json_get(job, "imbalance"), 0);
	if (!ranks || !node0 || !top || !imb) {
		json_free(j);
		FAIL("missing members");
	}
	ASSERT_EQ_U64(RANKS, json_u64(json_get(job, "ranks")));
	ASSERT_EQ_U64(RANKS * THREADS, json_u64(json_get(job, "threads")));
	ASSERT_EQ_U64(NODES, json_u64(json_get(job, "nodes")));
	ASSERT_EQ_U64(RANKS, ranks->count);
	ASSERT_EQ_U64((uint64_t)t.total, rank_sum(ranks, NULL, "total"));
	ASSERT_EQ_U64((uint64_t)t.kernel, rank_sum(ranks, NULL, "kernel"));
	ASSERT_EQ_U64((uint64_t)t.syscall, rank_sum(ranks, "KTAU_SYSCALL", NULL));
	ASSERT_EQ_U64((uint64_t)t.schedule, rank_sum(ranks, "KTAU_SCHEDULE", NULL));
	ASSERT_EQ_U64((uint64_t)t.irq, rank_sum(ranks, "KTAU_IRQ", NULL));
	ASSERT_EQ_U64((uint64_t)t.exception, rank_sum(ranks, "KTAU_EXCEPTION", NULL));
	ASSERT_STREQ("node00", json_str(json_get(node0, "node")));
	ASSERT_EQ_U64(t.first_node_ranks, json_u64(json_get(node0, "ranks")));
	ASSERT_EQ_U64(t.first_node_ranks * THREADS, json_u64(json_get(node0, "threads")));
	ASSERT_EQ_U64(t.top_kernel_rank, json_u64(json_get(top, "rank")));
	ASSERT_EQ_U64((uint64_t)t.top_kernel, json_u64(json_get(top, "kernel")));
	ASSERT_STREQ("main", json_str(json_get(imb, "routine")));
	ASSERT_EQ_U64((uint64_t)t.main_max, json_u64(json_get(imb, "max")));
	ASSERT_EQ_U64((uint64_t)t.main_min, json_u64(json_get(imb, "min")));
	ASSERT_EQ_U64(t.main_max_rank, json_u64(json_get(imb, "max_rank")));
	ASSERT_EQ_U64(t.main_min_rank, json_u64(json_get(imb, "min_rank")));
	ASSERT_NULL(json_at(json_get(job, "imbalance"), 3));
	json_free(j);
}
