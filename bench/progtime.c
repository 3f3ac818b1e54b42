// SPDX-License-Identifier: GPL-2.0
/*
 * progtime — instructions of a whole program run, for the whole-program
 * section of `make bench` (issue 35).  Run in a guest under
 * `qemu -icount shift=0` (see icount.h): the guest clock advances one
 * tick per instruction, so a run's rdtsc difference is the instructions
 * the one CPU executed for it (the program, its children, the kernel and
 * whatever else ran meanwhile).
 *
 *   progtime [-n RUNS] [-b BEFORE] [-o OUT] [-c] LABEL COMMAND [ARG...]
 *
 * Runs COMMAND (fork, execv of its path: no shell, no PATH search) RUNS
 * times (default 3) and prints "BENCH LABEL MIN", the fewest
 * instructions of a run from before fork() to after its last descendant
 * was reaped.  A program run is tens of millions of instructions: many
 * timer ticks fall into every run, so the minimum drops what comes now
 * and then (a tick's extra work, a daemon's wakeup), not the ticks
 * themselves.  Run r starts after a spin of r / RUNS of a tick period
 * (PROGTIME_PHASE_SPAN), so that the runs meet the tick at spread
 * phases.
 *
 * -b BEFORE   run `/bin/sh -c BEFORE` before each run, outside the count
 *             (e.g. remove what the previous run wrote)
 * -o OUT      COMMAND's standard output and error go to OUT (default
 *             /dev/null: text on the serial console costs the guest many
 *             instructions, and it is not the program's work)
 * -c          also print the minimum run's counts: with ktau on,
 *             "BENCH LABEL.syscalls N" and "BENCH LABEL.faults N", the
 *             system calls and page faults of COMMAND and every
 *             descendant, from this process's children total
 *             (/proc/self/ktau; progtime is a child subreaper, so orphans
 *             are counted too), "BENCH LABEL.execve N", the execve()
 *             calls among them, and "BENCH LABEL.ctxsw N" (/proc/stat
 *             ctxt: system wide, and the guest runs nothing else).
 *             Without ktau the faults are /proc/vmstat's pgfault, when
 *             the kernel has it
 *
 * Prints "INFO: progtime LABEL: ..." with every run's count, and "BENCH
 * LABEL.max N", the most instructions of a run, so that a reader can
 * tell a difference between rows from the runs' own spread.
 * Exit status: 0 done; 1 COMMAND failed (its status is printed) or a
 * system call failed; 2 bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "icount.h"

/* one tick at HZ=250 under -icount shift=0 (1 instruction = 1 ns) */
#define PROGTIME_PHASE_SPAN	(4L << 20)
#define PROGTIME_MAX_RUNS	64

struct counts {
	long long faults, ctxsw, syscalls, execs;	/* -1: not known */
};

static void usage(void)
{
	fprintf(stderr, "usage: progtime [-n RUNS] [-b BEFORE] [-o OUT] [-c] LABEL COMMAND [ARG...]\n");
	exit(2);
}

/* the value of the line "NAME VALUE" of FILE, or -1 */
static long long proc_value(const char *file, const char *name)
{
	char line[256];
	size_t len = strlen(name);
	long long v = -1;
	FILE *f = fopen(file, "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ' ') {
			v = strtoll(line + len + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/*
 * The system calls and page faults in this process's children total: the
 * calls of the syscall group's func lines, and of page_fault's, of the
 * "task kind=children" block of /proc/self/ktau (docs/proc-format.md).
 * Read again while its "pending" says that reaped processes are still to
 * be folded in.  Both -1 without ktau.
 */
static void children_counts(struct counts *c)
{
	for (int tries = 0; tries < 100; tries++) {
		char line[4096], name[128], group[64];
		long long syscalls = 0, faults = 0, execs = 0, calls;
		int in_children = 0, pending = 0, found = 0;
		FILE *f = fopen("/proc/self/ktau", "re");

		if (!f)
			return;
		while (fgets(line, sizeof(line), f)) {
			if (!strncmp(line, "task ", 5)) {
				const char *p = strstr(line, " pending=");

				in_children = strstr(line, " kind=children ") != NULL;
				if (in_children) {
					found = 1;
					pending = p ? atoi(p + 9) : 0;
				}
			} else if (in_children && !strncmp(line, "func ", 5) &&
				   sscanf(line, "func %*s %*s %127s %63s %lld", name, group, &calls) == 3) {
				if (!strcmp(group, "syscall"))
					syscalls += calls;
				if (!strcmp(name, "execve"))
					execs += calls;
				else if (!strcmp(name, "page_fault"))
					faults += calls;
			}
		}
		fclose(f);
		if (!found)
			return;
		if (!pending) {
			c->syscalls = syscalls;
			c->faults = faults;
			c->execs = execs;
			return;
		}
		usleep(1000);
	}
}

/* ktau's counts when it has them, else the kernel's own (system wide) */
static void read_counts(struct counts *c, int with_counts)
{
	c->faults = c->ctxsw = c->syscalls = c->execs = -1;
	if (!with_counts)
		return;
	children_counts(c);
	if (c->faults < 0)
		c->faults = proc_value("/proc/vmstat", "pgfault");
	c->ctxsw = proc_value("/proc/stat", "ctxt");
}

static long long diff(long long a, long long b)
{
	return (a < 0 || b < 0) ? -1 : b - a;
}

/* wait for every descendant (we are their subreaper); the status of @pid */
static int reap_all(pid_t pid, int *status)
{
	int st, got = 0;
	pid_t p;

	for (;;) {
		p = waitpid(-1, &st, 0);
		if (p < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ECHILD)
				break;
			perror("progtime: waitpid");
			return -1;
		}
		if (p == pid) {
			*status = st;
			got = 1;
		}
	}
	return got ? 0 : -1;
}

static int run_before(const char *before)
{
	int st;
	pid_t pid = fork();

	if (pid < 0) {
		perror("progtime: fork");
		return -1;
	}
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", before, (char *)NULL);
		perror("progtime: /bin/sh");
		_exit(127);
	}
	if (reap_all(pid, &st) || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "progtime: '%s' failed\n", before);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t t[PROGTIME_MAX_RUNS], best = UINT64_MAX, worst = 0;
	struct counts c0, c1, best_counts = { -1, -1, -1, -1 };
	const char *before = NULL, *out = "/dev/null", *label;
	int opt, runs = 3, with_counts = 0;
	char info[64 * 24] = "";

	while ((opt = getopt(argc, argv, "+n:b:o:c")) != -1) {
		switch (opt) {
		case 'n':
			runs = atoi(optarg);
			if (runs < 1 || runs > PROGTIME_MAX_RUNS)
				usage();
			break;
		case 'b':
			before = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'c':
			with_counts = 1;
			break;
		default:
			usage();
		}
	}
	if (argc - optind < 2)
		usage();
	label = argv[optind];
	argv += optind + 1;
	/* orphans (a daemon a run leaves) are reaped, and counted, here */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1UL, 0UL, 0UL, 0UL))
		perror("progtime: prctl(PR_SET_CHILD_SUBREAPER)");

	for (int r = 0; r < runs; r++) {
		uint64_t t0, t1;
		int status;
		pid_t pid;

		if (before && run_before(before))
			return 1;
		read_counts(&c0, with_counts);
		if (r)
			icount_loop2((long)r * PROGTIME_PHASE_SPAN / runs / 2);
		t0 = icount_now();
		pid = fork();
		if (pid < 0) {
			perror("progtime: fork");
			return 1;
		}
		if (pid == 0) {
			int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

			if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0) {
				fprintf(stderr, "progtime: %s: %s\n", out, strerror(errno));
				_exit(127);
			}
			execv(argv[0], argv);
			fprintf(stderr, "progtime: %s: %s\n", argv[0], strerror(errno));
			_exit(127);
		}
		if (reap_all(pid, &status))
			return 1;
		t1 = icount_now();
		read_counts(&c1, with_counts);
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "progtime: %s: %s %d\n", label,
				WIFEXITED(status) ? "exit status" : "killed by signal",
				WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
			printf("BENCH %s.unavailable %s failed (status %d)\n", label, argv[0], status);
			return 1;
		}
		t[r] = t1 - t0;
		if (t[r] > worst)
			worst = t[r];
		if (t[r] < best) {
			best = t[r];
			best_counts.faults = diff(c0.faults, c1.faults);
			best_counts.ctxsw = diff(c0.ctxsw, c1.ctxsw);
			best_counts.syscalls = diff(c0.syscalls, c1.syscalls);
			best_counts.execs = diff(c0.execs, c1.execs);
		}
		snprintf(info + strlen(info), sizeof(info) - strlen(info), " %" PRIu64, t[r]);
	}
	printf("INFO: progtime %s: runs%s\n", label, info);
	printf("BENCH %s %" PRIu64 "\n", label, best);
	printf("BENCH %s.max %" PRIu64 "\n", label, worst);
	if (with_counts) {
		if (best_counts.faults >= 0)
			printf("BENCH %s.faults %lld\n", label, best_counts.faults);
		if (best_counts.ctxsw >= 0)
			printf("BENCH %s.ctxsw %lld\n", label, best_counts.ctxsw);
		if (best_counts.syscalls >= 0)
			printf("BENCH %s.syscalls %lld\n", label, best_counts.syscalls);
		if (best_counts.execs >= 0)
			printf("BENCH %s.execve %lld\n", label, best_counts.execs);
	}
	fflush(stdout);
	return 0;
}
