// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gen-job — write a synthetic MPI job's TAU profile directory (job_gen.c)
 * and print what ktau-report --job must find in it; with --bench REPORT,
 * also run `REPORT --job DIR` on it and print its time and peak memory
 * against the goal of issue 19 (under 10 s and 1 GiB for 1000 ranks).
 * The figures are printed, never asserted.
 *
 *   gen-job [--ranks N] [--threads N] [--nodes N] [--bench REPORT] DIR
 *   gen-job --measure-only --bench REPORT DIR   (DIR written before)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../job_gen.h"

#define GOAL_SECONDS 10.0
#define GOAL_MIB 1024.0

static const char usage[] =
	"Usage: gen-job [--ranks N] [--threads N] [--nodes N] [--bench REPORT] DIR\n"
	"Writes a synthetic job of N ranks (1000), threads per rank (4) and nodes (32)\n"
	"into DIR (created), prints its totals; --bench REPORT also times\n"
	"'REPORT --job DIR' and prints its time and peak memory against the goal;\n"
	"--measure-only: DIR was written before, only measure.\n";

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* REPORT --job dir, its output discarded: 0 with *secs and *mib, or -1. */
static int measure(const char *report, const char *dir, double *secs, double *mib)
{
	double t0 = seconds();
	struct rusage ru;
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, STDOUT_FILENO);
		execl(report, report, "--job", dir, (char *)NULL);
		fprintf(stderr, "gen-job: cannot run %s: %s\n", report, strerror(errno));
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	*secs = seconds() - t0;
	*mib = (double)ru.ru_maxrss / 1024.0;
	return 0;
}

static unsigned int number(const char *s, const char *what)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (*end || !v || v > 1000000) {
		fprintf(stderr, "gen-job: bad %s '%s'\n%s", what, s, usage);
		exit(2);
	}
	return (unsigned int)v;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ranks", required_argument, NULL, 'r' },
		{ "threads", required_argument, NULL, 't' },
		{ "nodes", required_argument, NULL, 'n' },
		{ "bench", required_argument, NULL, 'b' },
		{ "measure-only", no_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct job_gen g = { 1000, 4, 32 };
	struct job_gen_totals t;
	const char *report = NULL;
	int measure_only = 0;
	double t0, gen_s, secs, mib;
	int c, ret;

	while ((c = getopt_long(argc, argv, "r:t:n:b:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r': g.ranks = number(optarg, "--ranks"); break;
		case 't': g.threads = number(optarg, "--threads"); break;
		case 'n': g.nodes = number(optarg, "--nodes"); break;
		case 'b': report = optarg; break;
		case 'm': measure_only = 1; break;
		case 'h': fputs(usage, stdout); return 0;
		default: fputs(usage, stderr); return 2;
		}
	}
	if (optind != argc - 1 || (measure_only && !report)) {
		fputs(usage, stderr);
		return 2;
	}
	if (measure_only)
		goto bench;
	if (mkdir(argv[optind], 0755) && errno != EEXIST) {
		fprintf(stderr, "gen-job: cannot create %s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	t0 = seconds();
	ret = job_gen_write(argv[optind], &g, &t);
	gen_s = seconds() - t0;
	if (ret) {
		fprintf(stderr, "gen-job: cannot write %s: %s\n", argv[optind], strerror(-ret));
		return 1;
	}
	printf("gen-job: %zu files (%u ranks x %u threads, %u nodes) in %.2f s; total %.0f usec, "
	       "kernel %.0f usec; most kernel: rank %u (%.0f usec)\n", t.files, g.ranks, g.threads,
	       g.nodes, gen_s, t.total, t.kernel, t.top_kernel_rank, t.top_kernel);
	if (!report)
		return 0;
bench:
	if (measure(report, argv[optind], &secs, &mib)) {
		fprintf(stderr, "gen-job: %s --job %s failed\n", report, argv[optind]);
		return 1;
	}
	printf("%-46s %12s %12s\n", "ktau-report --job", "measured", "goal");
	printf("%-46s %10.2f s %10.0f s  %s\n", "  time", secs, GOAL_SECONDS,
	       secs < GOAL_SECONDS ? "met" : "NOT met");
	printf("%-46s %8.1f MiB %8.0f MiB  %s\n", "  peak memory (ru_maxrss)", mib, GOAL_MIB,
	       mib < GOAL_MIB ? "met" : "NOT met");
	return 0;
}
