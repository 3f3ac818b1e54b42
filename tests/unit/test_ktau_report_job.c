// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ktau-report --job on a small hand-checked job: three ranks on two nodes,
 * kernel routines under MPI routines, two node archives; every figure
 * below was worked out by hand from the files. And its errors.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"
#include "json_check.h"
#include "testutil.h"

#define META(host, pid) \
	"# Name Calls Subrs Excl Incl ProfileCalls # <metadata><attribute><name>Hostname" \
	"</name><value>" host "</value></attribute><attribute><name>KTAU pid</name><value>" \
	pid "</value></attribute></metadata>\n"

/* rank 0 on nodeA, two threads: total 3900, kernel 2100 (syscall 2000,
 * schedule 100), user 1800 */
static const char rank0_t0[] =
	"5 templated_functions_MULTI_TIME\n" META("nodeA", "100")
	"\"main\" 1 1 1000 3500 0 GROUP=\"TAU_DEFAULT\"\n"
	"\"MPI_Send()\" 4 4 500 2500 0 GROUP=\"MPI\"\n"
	"\"sys_sendto()\" 4 0 2000 2000 0 GROUP=\"TAU_KERNEL_MERGE | KTAU_SYSCALL\"\n"
	"\"main => MPI_Send()\" 4 4 500 2500 0 GROUP=\"TAU_CALLPATH | MPI\"\n"
	"\"main => MPI_Send() => sys_sendto()\" 4 0 2000 2000 0 "
	"GROUP=\"TAU_CALLPATH | TAU_KERNEL_MERGE\"\n"
	"0 aggregates\n";
static const char rank0_t1[] =
	"2 templated_functions_MULTI_TIME\n" META("nodeA", "100")
	"\"worker\" 1 1 300 400 0 GROUP=\"TAU_USER\"\n"
	"\"schedule_vol()\" 1 0 100 100 0 GROUP=\"TAU_KERNEL_MERGE | KTAU_SCHEDULE\"\n"
	"0 aggregates\n";
/* rank 1 on nodeA: total 9000, kernel 7000 (schedule) */
static const char rank1[] =
	"3 templated_functions_MULTI_TIME\n" META("nodeA", "101")
	"\"main\" 1 1 1000 9000 0 GROUP=\"TAU_DEFAULT\"\n"
	"\"MPI_Recv()\" 2 2 1000 8000 0 GROUP=\"MPI\"\n"
	"\"schedule_vol()\" 2 0 7000 7000 0 GROUP=\"TAU_KERNEL_MERGE | KTAU_SCHEDULE\"\n"
	"0 aggregates\n";
/* rank 2 on nodeB: total 3000, kernel 400 (syscall 300, irq 100) */
static const char rank2[] =
	"4 templated_functions_MULTI_TIME\n" META("nodeB", "200")
	"\"main\" 1 1 2000 3000 0 GROUP=\"TAU_DEFAULT\"\n"
	"\"MPI_Send()\" 1 1 600 1000 0 GROUP=\"MPI\"\n"
	"\"sys_sendto()\" 1 0 300 300 0 GROUP=\"TAU_KERNEL_MERGE | KTAU_SYSCALL\"\n"
	"\"irq()\" 1 0 100 100 0 GROUP=\"TAU_KERNEL_MERGE | KTAU_IRQ\"\n"
	"0 aggregates\n";

#define SYSTEM_HEAD "ktau-profile 1\ntsc_khz 1000000\nscope system\n" \
	"columns func ctx fid name group calls incl_cycles excl_cycles\n"

/* nodeA between start and end: rank 0 (pid 100) 3000 usec of read,
 * ksoftirqd 2000 of NET_RX, cron (new) 500 of getpid, sshd nothing */
static const char node_start[] = SYSTEM_HEAD
	"task kind=thread pid=100 tid=100 comm=rank0 dropped=0\n"
	"func 0 0 read syscall 1 1000000 1000000\n"
	"task kind=thread pid=7 tid=7 comm=ksoftirqd/0 dropped=0\n"
	"func 0 465 NET_RX softirq 1 1000000 1000000\n"
	"task kind=thread pid=300 tid=300 comm=sshd dropped=0\n"
	"func 0 0 read syscall 1 1000 1000\n"
	"end\n";
static const char node_end[] = SYSTEM_HEAD
	"task kind=thread pid=100 tid=100 comm=rank0 dropped=0\n"
	"func 0 0 read syscall 3 4000000 4000000\n"
	"task kind=thread pid=7 tid=7 comm=ksoftirqd/0 dropped=0\n"
	"func 0 465 NET_RX softirq 5 3000000 3000000\n"
	"task kind=thread pid=300 tid=300 comm=sshd dropped=0\n"
	"func 0 0 read syscall 1 1000 1000\n"
	"task kind=thread pid=400 tid=400 comm=cron dropped=0\n"
	"func 0 39 getpid syscall 2 500000 500000\n"
	"end\n";

static int write_archive(const char *dir, const char *name, const char *profile)
{
	struct ktau_archive *a = ktau_archive_new();
	char path[4200];
	int ret;

	if (!a)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	ret = ktau_archive_add(a, "proc/ktau/profile", profile, strlen(profile));
	ret = ret ?: ktau_archive_set_info(a, "host", "nodeA");
	ret = ret ?: ktau_archive_write(a, path);
	ktau_archive_free(a);
	return ret;
}

static char *job_dir(bool archives)
{
	char *dir = make_tmpdir();

	if (dir && (write_tree_file(dir, "profile.0.0.0", rank0_t0) ||
		    write_tree_file(dir, "profile.0.0.1", rank0_t1) ||
		    write_tree_file(dir, "profile.1.0.0", rank1) ||
		    write_tree_file(dir, "profile.2.0.0", rank2) ||
		    (archives && (write_archive(dir, "node.nodeA.start.ktar", node_start) ||
				  write_archive(dir, "node.nodeA.end.ktar", node_end) ||
				  write_archive(dir, "node.nodeB.start.ktar", node_start))))) {
		remove_tree(dir);
		free(dir);
		return NULL;
	}
	return dir;
}

static bool has_line(const char *text, const char *line)
{
	char buf[512];
	const char *hit = line_starting(text, line, buf, sizeof(buf));

	return hit && !strcmp(buf, line);
}

TEST(ktau_report_job_figures)
{
	static const char *const lines[] = {
		"rank node threads total user kernel kernel% KTAU_SYSCALL KTAU_SCHEDULE KTAU_IRQ",
		"0 nodeA 2 3900.000 1800.000 2100.000 53.85 2000.000 100.000 0.000",
		"1 nodeA 1 9000.000 2000.000 7000.000 77.78 0.000 7000.000 0.000",
		"2 nodeB 1 3000.000 2600.000 400.000 13.33 300.000 0.000 100.000",
		"nodeA 2 3 12900.000 3800.000 9100.000 70.54 2000.000 7100.000 0.000",
		"nodeB 1 1 3000.000 2600.000 400.000 13.33 300.000 0.000 100.000",
		"ranks with the most kernel time (top 2):",
		"1 nodeA 7000.000 77.78",
		"0 nodeA 2100.000 53.85",
		"0.000 2666.667 8000.000 3.000 0 1 MPI_Recv()",
		"0.000 2366.667 7000.000 2.958 2 1 schedule_vol()",
		"node nodeA between the job's start and end (node.nodeA.{start,end}.ktar): "
		"kernel 5500.000 usec; syscall 3500.000, softirq 2000.000",
		"100 rank0 3000.000 0",
		"7 ksoftirqd/0 2000.000 -",
	};
	char *dir = job_dir(true);
	struct run_result r;
	size_t i;

	ASSERT_NOT_NULL(dir);
	ASSERT_EQ(0, run_tool("KTAU_REPORT", NULL, &r, "--job", dir, "--top", "2", (char *)NULL));
	remove_tree(dir);
	free(dir);
	if (r.status) {
		run_result_free(&r);
		FAIL("exit %d: %s", r.status, r.err);
	}
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		if (!has_line(r.out, lines[i])) {
			run_result_free(&r);
			FAIL("no line \"%s\" in:\n%s", lines[i], r.out);
		}
	ASSERT_CONTAINS(r.out, ": 3 ranks, 4 threads, 2 nodes; metric TIME (usec)\n");
	/* top 2: the third rank and routine are left out; cron ranks third */
	ASSERT_FALSE(has_line(r.out, "2 nodeB 400.000 13.33"));
	ASSERT_NOT_CONTAINS(r.out, "main\n");
	ASSERT_NOT_CONTAINS(r.out, " cron ");
	ASSERT_CONTAINS(r.out, "node nodeB between the job's start and end "
			"(node.nodeB.{start,end}.ktar): none: no ");
	ASSERT_CONTAINS(r.out, "node.nodeB.end.ktar: the job did not end normally on this node\n");
	ASSERT_EQ_U64(0, strlen(r.err));
	run_result_free(&r);
}

TEST(ktau_report_job_json)
{
	char *dir = job_dir(true);
	const struct json *job, *rank, *node, *imb, *act;
	struct json *j;
	struct run_result r;

	ASSERT_NOT_NULL(dir);
	ASSERT_EQ(0, run_tool("KTAU_REPORT", NULL, &r, "--json", "--job", dir, (char *)NULL));
	remove_tree(dir);
	free(dir);
	ASSERT_EQ(0, r.status);
	j = json_parse(r.out, NULL);
	run_result_free(&r);
	ASSERT_NOT_NULL(j);
	job = json_get(j, "job");
	rank = json_at(json_get(job, "per_rank"), 1);
	node = json_at(json_get(job, "per_node"), 0);
	imb = json_at(json_get(job, "imbalance"), 2);
	act = json_get(node, "activity");
	if (!job || !rank || !node || !imb || !act) {
		json_free(j);
		FAIL("missing members");
	}
	ASSERT_EQ_U64(3, json_u64(json_get(job, "ranks")));
	ASSERT_EQ_U64(4, json_u64(json_get(job, "threads")));
	ASSERT_EQ_U64(1, json_u64(json_get(rank, "rank")));
	ASSERT_EQ_U64(7000, json_u64(json_get(rank, "kernel")));
	ASSERT_EQ_U64(7000, json_u64(json_get(json_get(rank, "kernel_by_group"), "KTAU_SCHEDULE")));
	ASSERT_STREQ("nodeA", json_str(json_get(node, "node")));
	ASSERT_EQ_U64(9100, json_u64(json_get(node, "kernel")));
	ASSERT_STREQ("main", json_str(json_get(imb, "routine")));
	ASSERT_EQ_U64(9000, json_u64(json_get(imb, "max")));
	ASSERT_EQ_U64(3000, json_u64(json_get(imb, "min")));
	ASSERT_EQ_U64(5500, json_u64(json_get(act, "kernel_usec")));
	/* 7 routines, fewer than the default top 10 */
	ASSERT_NOT_NULL(json_at(json_get(job, "imbalance"), 6));
	ASSERT_NULL(json_at(json_get(job, "imbalance"), 7));
	ASSERT_STREQ("cron", json_str(json_get(json_at(json_get(act, "tasks"), 2), "comm")));
	json_free(j);
}

TEST(ktau_report_job_errors)
{
	static const char *const mixed =
		"0 templated_functions_MULTI_PAPI_TOT_CYC\n# Name Calls\n0 aggregates\n";
	char *empty = make_tmpdir(), *other = make_tmpdir(), *mix = job_dir(false);
	char *bad = job_dir(false);
	struct run_result r[5];
	int ok = empty && other && mix && bad && !write_tree_file(other, "README", "x") &&
		 !write_tree_file(mix, "profile.3.0.0", mixed) &&
		 !write_tree_file(bad, "profile.1.0.0", "1 templated_functions\n# Name\n\"m\" 1\n");

	ok = ok && !run_tool("KTAU_REPORT", NULL, &r[0], "--job", empty, (char *)NULL);
	ok = ok && !run_tool("KTAU_REPORT", NULL, &r[1], "--job", other, (char *)NULL);
	ok = ok && !run_tool("KTAU_REPORT", NULL, &r[2], "--job", mix, (char *)NULL);
	ok = ok && !run_tool("KTAU_REPORT", NULL, &r[3], "--job", bad, (char *)NULL);
	ok = ok && !run_tool("KTAU_REPORT", NULL, &r[4], "--job", bad, "--threads", (char *)NULL);
	remove_tree(empty);
	remove_tree(other);
	remove_tree(mix);
	remove_tree(bad);
	free(empty);
	free(other);
	free(mix);
	free(bad);
	ASSERT_TRUE(ok);
	ASSERT_EQ(1, r[0].status);
	ASSERT_CONTAINS(r[0].err, ": no TAU profile (profile.N.N.N) in it\n");
	ASSERT_EQ(1, r[1].status);
	ASSERT_CONTAINS(r[1].err, ": no TAU profile (profile.N.N.N) in it\n");
	ASSERT_EQ(1, r[2].status);
	ASSERT_CONTAINS(r[2].err, "but the other profiles have");
	ASSERT_EQ(1, r[3].status);
	ASSERT_CONTAINS(r[3].err, "/profile.1.0.0:3: a function line needs 5 numbers after the "
			"name, not 1\n");
	ASSERT_EQ(2, r[4].status);
	ASSERT_CONTAINS(r[4].err, "--job takes one DIR and only --top and --json");
	ASSERT_EQ_U64(0, strlen(r[0].out) + strlen(r[3].out));
	for (int i = 0; i < 5; i++)
		run_result_free(&r[i]);
}
