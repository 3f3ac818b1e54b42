// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ktau-top — the processes that spent the most time in the kernel during
 * the last interval, refreshed live.
 *
 * Each refresh reads /proc/ktau/profile, folds it into per-process totals
 * (libktau) and subtracts the previous refresh's totals: a thread that
 * exits in between stays counted in its process's exited total. Calls
 * still running count as if they stopped at each read, so an interval
 * holds exactly the part of a long call that fell inside it.
 */
#define _GNU_SOURCE	/* getopt_long */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ktau.h>

#include "term.h"
#include "tool.h"

#define MAX_PIDS 64
#define TOP_ROUTINES 3

struct options {
	double delay;		/* seconds between refreshes */
	long iterations;	/* 0: until q */
	bool batch;
	pid_t pids[MAX_PIDS];	/* -p: only these */
	size_t nr_pids;
};

static const char usage_text[] =
"Usage: ktau-top [-d SECS] [-n N] [-p PID[,PID...]] [-b]\n"
"\n"
"Show, refreshed every SECS seconds, the processes that spent the most time\n"
"in the kernel during the last interval, as KTAU measured it: one row per\n"
"process with its pid, command, live threads, kernel time in the interval\n"
"(exclusive ms of every routine but the scheduler's, and as a percentage of\n"
"the interval), time switched out inside the kernel (WAIT_MS: blocked or\n"
"preempted; the sched group), completed system calls, and the routines with\n"
"the most kernel time (with their calls). Times include the part of calls\n"
"still running (a thread blocked in a long read) that fell in the interval,\n"
"at most the interval per thread. Rows are sorted by kernel time;\n"
"processes with no kernel activity in the interval are not shown. Press q\n"
"to quit (or Ctrl-C).\n"
"\n"
"Options:\n"
"  -d, --delay SECS     seconds between refreshes (default 2; 0.01 to 86400)\n"
"  -n, --iterations N   stop after N refreshes (default: until q)\n"
"  -p, --pid PID[,...]  only these processes (shown even when idle)\n"
"  -b, --batch          plain text for scripts and logs: no escape sequences,\n"
"                       no keys; each refresh is appended, after a first line\n"
"                       saying when sampling started. The default when standard\n"
"                       output is not a terminal\n"
"  -h, --help           print this help and exit\n"
"  -V, --version        print the version and exit\n"
"\n"
"Root sees every process; another user sees only the processes they may\n"
"ptrace. The environment variable KTAU_PROCFS names another /proc root.\n"
"\n"
"Exit status:\n"
"  0  success (quit with q, Ctrl-C or after N refreshes)\n"
"  1  runtime error: no ktau support in this kernel, no such process or\n"
"     permission denied for -p, unreadable or malformed profile\n"
"  2  usage error: unknown option, bad or missing argument\n";

/* Seconds: a decimal number, e.g. 2 or 0.5. */
static int parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	if ((*s < '0' || *s > '9') && *s != '.')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < 0.01 || v > 86400)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_pids(const char *s, struct options *o)
{
	char buf[1024], *tok, *save = NULL;

	if (snprintf(buf, sizeof(buf), "%s", s) >= (int)sizeof(buf))
		return -EINVAL;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long v;

		if (o->nr_pids == MAX_PIDS || tool_parse_uint(tok, 1, &v))
			return -EINVAL;
		o->pids[o->nr_pids++] = (pid_t)v;
	}
	return o->nr_pids ? 0 : -EINVAL;
}

/* Returns -1 to go on, or the exit code to stop with. */
static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "delay", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "pid", required_argument, NULL, 'p' },
		{ "batch", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:n:p:bhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (parse_seconds(optarg, &o->delay)) {
				tool_usage_error("invalid delay '%s' (seconds, 0.01 to 86400)",
						 optarg);
				return EXIT_USAGE;
			}
			break;
		case 'n':
			if (tool_parse_uint(optarg, 1, &o->iterations)) {
				tool_usage_error("invalid number of iterations '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'p':
			if (parse_pids(optarg, o)) {
				tool_usage_error("invalid process id list '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'b':
			o->batch = true;
			break;
		default:
			return tool_standard_option(c, usage_text, argv, EXIT_USAGE);
		}
	}
	if (optind < argc) {
		tool_usage_error("unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	return -1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void report_read_error(const char *what, int error, struct ktau_error *perr)
{
	if (error == ENODEV)
		fprintf(stderr, "ktau-top: this kernel has no ktau support (no /proc/ktau): "
			"boot a kernel built with CONFIG_KTAU\n");
	else if (ktau_error_line(perr))
		fprintf(stderr, "ktau-top: %s:%u: %s\n", what, ktau_error_line(perr),
			ktau_error_message(perr));
	else
		fprintf(stderr, "ktau-top: cannot read %s: %s\n", what, ktau_strerror(error));
	ktau_error_free(perr);
}

/* -p: each process must exist and be readable, said now rather than
 * shown as an empty screen. */
static int check_pids(const struct options *o)
{
	size_t i;

	for (i = 0; i < o->nr_pids; i++) {
		struct ktau_error *perr;
		struct ktau_profile *p = tool_read_profile(NULL, o->pids[i], 0, 0, &perr);
		char what[64];

		if (p) {
			ktau_profile_free(p);
			continue;
		}
		if (errno != ESRCH && errno != EACCES) {
			snprintf(what, sizeof(what), "/proc/%d/ktau", (int)o->pids[i]);
			report_read_error(what, errno, perr);
			return -1;
		}
		ktau_error_free(perr);
		if (errno == ESRCH)
			fprintf(stderr, "ktau-top: no such process %d\n", (int)o->pids[i]);
		else if (errno == EACCES)
			fprintf(stderr, "ktau-top: permission denied reading /proc/%d/ktau (you "
				"need ptrace access to the process: run as root)\n",
				(int)o->pids[i]);
		return -1;
	}
	return 0;
}

/* One reading: every process's total of completed calls, and the same
 * with the calls still running counted as if they stopped now. */
struct snap {
	struct ktau_profile *done;
	struct ktau_profile *so_far;
};

static void snap_free(struct snap *s)
{
	ktau_profile_free(s->done);
	ktau_profile_free(s->so_far);
	s->done = s->so_far = NULL;
}

/* Every process's totals now; -1 after printing why. */
static int snapshot(struct snap *s)
{
	struct ktau_error *perr;
	struct ktau_profile *sys = tool_read_profile(NULL, 0, 0, 0, &perr);

	if (!sys) {
		report_read_error("/proc/ktau/profile", errno, perr);
		return -1;
	}
	s->done = ktau_profile_process_totals(sys);
	s->so_far = s->done ? ktau_profile_with_open(s->done) : NULL;
	ktau_profile_free(sys);
	if (!s->so_far) {
		fprintf(stderr, "ktau-top: cannot sum the processes: %s\n", ktau_strerror(errno));
		snap_free(s);
		return -1;
	}
	return 0;
}

static bool selected(const struct options *o, pid_t pid)
{
	size_t i;

	if (!o->nr_pids)
		return true;
	for (i = 0; i < o->nr_pids; i++)
		if (o->pids[i] == pid)
			return true;
	return false;
}

static const struct ktau_block *process_block(const struct ktau_profile *p, pid_t pid)
{
	return ktau_profile_find_block(p, KTAU_BLOCK_PROCESS, pid, pid);
}

/*
 * Appends to d process pid's block of cur less its block of prev (prev
 * NULL or without it: all of cur). 0, -ERANGE (counters went back; d
 * unchanged) or -ENOMEM.
 */
static int add_difference(struct ktau_profile *d, pid_t pid, const struct ktau_profile *prev,
			  const struct ktau_profile *cur)
{
	const struct ktau_block *b = process_block(cur, pid);
	const struct ktau_block *pb = prev ? process_block(prev, pid) : NULL;
	struct ktau_profile *s = ktau_profile_new(KTAU_SCOPE_SYSTEM, ktau_profile_tsc_khz(cur));
	struct ktau_block *sb = NULL, *db;
	int ret;

	if (s)
		sb = ktau_profile_add_block(s, KTAU_BLOCK_PROCESS, pid, pid, ktau_block_comm(b));
	ret = sb ? ktau_block_add(sb, b) : -ENOMEM;
	if (!ret && pb)
		ret = ktau_block_subtract(sb, pb);
	if (!ret) {
		db = ktau_profile_add_block(d, KTAU_BLOCK_PROCESS, pid, pid, ktau_block_comm(b));
		ret = db ? ktau_block_add(db, sb) : -ENOMEM;
	}
	ktau_profile_free(s);
	return ret;
}

/*
 * Each selected process's interval: (completed + running) now less the
 * same at the previous read, so a running call counts the part of its time
 * inside the interval. When that goes back (a running call that recorded
 * nothing in the end: a control change, a TSC that lags), the completed
 * calls' difference; when even those went back (cleared, or a reused pid),
 * or the process is new, all of its time.
 */
static struct ktau_profile *interval(const struct options *o, const struct snap *prev,
				     const struct snap *cur)
{
	struct ktau_profile *d = ktau_profile_new(KTAU_SCOPE_SYSTEM,
						  ktau_profile_tsc_khz(cur->so_far));
	size_t i;

	for (i = 0; d && i < ktau_profile_block_count(cur->so_far); i++) {
		pid_t pid = ktau_block_pid(ktau_profile_block(cur->so_far, i));
		int ret;

		if (!selected(o, pid))
			continue;
		ret = add_difference(d, pid, prev->so_far, cur->so_far);
		if (ret == -ERANGE)
			ret = add_difference(d, pid, prev->done, cur->done);
		if (ret == -ERANGE)
			ret = add_difference(d, pid, NULL, cur->so_far);
		if (ret) {
			ktau_profile_free(d);
			errno = -ret;
			return NULL;
		}
	}
	return d;
}

/* Switched out inside the kernel (schedule_vol, schedule_invol): time off
 * the CPU, kept apart from the kernel's own running time. */
#define WAIT_GROUP "sched"

struct row {
	const struct ktau_block *block;
	uint64_t excl;		/* on the CPU: every group but WAIT_GROUP */
	uint64_t wait;		/* WAIT_GROUP */
	uint64_t calls;
	uint64_t syscalls;
	const struct ktau_func *top[TOP_ROUTINES];
	size_t nr_top;
};

/* At most `limit` cycles: the interval's wall time, once per thread. */
static void clamp(uint64_t *cycles, uint64_t limit)
{
	if (*cycles > limit)
		*cycles = limit;
}

/* The threads of process pid that may have run in the interval: the live
 * ones and those that exited since the previous read. */
static uint64_t threads_in_interval(const struct snap *prev, const struct snap *cur,
				    pid_t pid)
{
	const struct ktau_block *b = process_block(cur->done, pid);
	const struct ktau_block *pb = process_block(prev->done, pid);
	uint64_t exited = b ? ktau_block_exited_threads(b) : 0, n;

	if (pb && ktau_block_exited_threads(pb) <= exited)
		exited -= ktau_block_exited_threads(pb);
	n = (b ? ktau_block_threads(b) : 0) + exited;
	return n ? n : 1;
}

static void fill_row(struct row *r, const struct ktau_block *b, uint64_t limit)
{
	size_t i, k;

	memset(r, 0, sizeof(*r));
	r->block = b;
	for (i = 0; i < ktau_block_func_count(b); i++) {
		const struct ktau_func *f = ktau_block_func(b, i);

		r->calls += f->calls;
		if (!strcmp(f->group, WAIT_GROUP)) {
			r->wait += f->excl_cycles;
			continue;
		}
		r->excl += f->excl_cycles;
		if (!strcmp(f->group, "syscall"))
			r->syscalls += f->calls;
		/* insertion into the few largest, by exclusive time */
		for (k = r->nr_top; k > 0 && r->top[k - 1]->excl_cycles < f->excl_cycles; k--)
			if (k < TOP_ROUTINES)
				r->top[k] = r->top[k - 1];
		if (k < TOP_ROUTINES) {
			r->top[k] = f;
			if (r->nr_top < TOP_ROUTINES)
				r->nr_top++;
		}
	}
	/* reads are not instantaneous: a running call's time may overshoot */
	clamp(&r->excl, limit);
	clamp(&r->wait, limit);
}

static int by_excl_desc(const void *a, const void *b)
{
	const struct row *ra = a, *rb = b;

	if (ra->excl != rb->excl)
		return ra->excl < rb->excl ? 1 : -1;
	if (ra->wait != rb->wait)
		return ra->wait < rb->wait ? 1 : -1;
	return ktau_block_pid(ra->block) < ktau_block_pid(rb->block) ? -1 : 1;
}

/* The rows to show, sorted; *n set. NULL with errno on failure. */
static struct row *make_rows(const struct options *o, const struct ktau_profile *d,
			     const struct snap *prev, const struct snap *cur, double seconds,
			     size_t *n, uint64_t *total_excl, uint64_t *total_wait)
{
	double interval = seconds * 1000.0 * (double)ktau_profile_tsc_khz(d);
	size_t count = ktau_profile_block_count(d), i;
	struct row *rows = calloc(count ? count : 1, sizeof(*rows));

	*n = 0;
	*total_excl = 0;
	*total_wait = 0;
	if (!rows)
		return NULL;
	for (i = 0; i < count; i++) {
		struct row *r = &rows[*n];
		const struct ktau_block *b = ktau_profile_block(d, i);
		double limit = interval * (double)threads_in_interval(prev, cur, ktau_block_pid(b));

		fill_row(r, b, limit < 1.8e19 ? (uint64_t)limit : UINT64_MAX);
		*total_excl += r->excl;
		*total_wait += r->wait;
		if (r->calls || r->excl || r->wait || o->nr_pids)
			(*n)++;
	}
	qsort(rows, *n, sizeof(*rows), by_excl_desc);
	return rows;
}

/* What one refresh shows, whatever the output. */
struct frame {
	long number;
	double seconds;
	size_t processes;
	const struct row *rows;
	size_t nr_rows;
	uint64_t total_excl;
	uint64_t total_wait;
	const struct ktau_profile *profile;
};

static double ms(const struct ktau_profile *p, uint64_t cycles)
{
	return ktau_profile_tsc_khz(p) ? ktau_profile_usec(p, cycles) / 1000.0 : 0.0;
}

static void format_header(char *buf, size_t size, const struct options *o,
			  const struct frame *f)
{
	int n;

	if (o->iterations)
		n = snprintf(buf, size, "ktau-top: interval %ld of %ld", f->number, o->iterations);
	else
		n = snprintf(buf, size, "ktau-top: interval %ld", f->number);
	snprintf(buf + n, size - (size_t)n, ", %.3f s, %zu processes, %zu shown, kernel %.3f ms, "
		 "waiting %.3f ms%s", f->seconds, f->processes, f->nr_rows,
		 ms(f->profile, f->total_excl), ms(f->profile, f->total_wait),
		 geteuid() ? " (your processes only: root sees all)" : "");
}

static void format_row(char *buf, size_t size, const struct frame *f, const struct row *r)
{
	const struct ktau_block *b = r->block;
	double excl_ms = ms(f->profile, r->excl);
	int n;
	size_t k;

	n = snprintf(buf, size, "%7d %-15.15s %4llu %11.3f %7.2f %11.3f %9llu  ",
		     (int)ktau_block_pid(b), ktau_block_comm(b),
		     (unsigned long long)ktau_block_threads(b), excl_ms,
		     f->seconds > 0 ? excl_ms / (f->seconds * 10.0) : 0.0,
		     ms(f->profile, r->wait), (unsigned long long)r->syscalls);
	for (k = 0; k < r->nr_top && n > 0 && (size_t)n < size; k++)
		n += snprintf(buf + n, size - (size_t)n, "%s%s %llu", k ? ", " : "",
			      r->top[k]->name, (unsigned long long)r->top[k]->calls);
}

static const char column_header[] =
	"    PID COMMAND          THR   KERNEL_MS   %INTV     WAIT_MS  SYSCALLS  "
	"TOP ROUTINES (calls)";

static void print_batch(const struct options *o, const struct frame *f)
{
	char line[1024];
	size_t i;

	format_header(line, sizeof(line), o, f);
	printf("%s%s\n%s\n", f->number > 1 ? "\n" : "", line, column_header);
	for (i = 0; i < f->nr_rows; i++) {
		format_row(line, sizeof(line), f, &f->rows[i]);
		printf("%s\n", line);
	}
	fflush(stdout);
}

static void print_screen(const struct options *o, const struct term *t, const struct frame *f)
{
	char line[1024];
	int rows, cols, used = 2;
	size_t i;

	term_size(t, &rows, &cols);
	format_header(line, sizeof(line), o, f);
	printf(TERM_HOME "%.*s" TERM_CLEAR_EOL "\n", cols, line);
	printf("\033[7m%-*.*s\033[0m" TERM_CLEAR_EOL "\n", cols, cols, column_header);
	for (i = 0; i < f->nr_rows && used < rows - 1; i++, used++) {
		format_row(line, sizeof(line), f, &f->rows[i]);
		printf("%.*s" TERM_CLEAR_EOL "\n", cols, line);
	}
	printf("%.*s" TERM_CLEAR_EOL TERM_CLEAR_EOS, cols, "q quits");
	fflush(stdout);
}

/* Waits out the interval; false when the user asked to quit. */
static bool wait_interval(struct term *t, double deadline, const struct options *o,
			  const struct frame *last)
{
	for (;;) {
		double left = deadline - now();
		int key;

		if (term_quit_requested())
			return false;
		if (left <= 0)
			return true;
		key = term_wait(t, (int)ceil(left * 1000.0));
		if (key == 'q' || key == 'Q' || term_quit_requested())
			return false;
		if (key == 0 && !o->batch && last)
			print_screen(o, t, last);	/* resized, or back from Ctrl-Z */
	}
}

static int watch(const struct options *o, struct term *t)
{
	struct snap prev = { 0 }, cur = { 0 };
	struct ktau_profile *d = NULL;
	struct frame f = { 0 };
	struct row *rows = NULL;
	double t_prev, t_cur;
	int ret = EXIT_OK;

	if (snapshot(&prev))
		return EXIT_RUNTIME;
	t_prev = now();
	if (o->batch) {
		printf("ktau-top: sampling %zu processes every %.3f s\n",
		       ktau_profile_block_count(prev.done), o->delay);
		fflush(stdout);
	} else if (term_enter(t)) {
		fprintf(stderr, "ktau-top: cannot set up the terminal: %s\n", strerror(errno));
		snap_free(&prev);
		return EXIT_RUNTIME;
	}
	for (f.number = 1; !o->iterations || f.number <= o->iterations; f.number++) {
		if (!wait_interval(t, t_prev + o->delay, o, f.rows ? &f : NULL))
			break;
		if (snapshot(&cur)) {
			ret = EXIT_RUNTIME;
			break;
		}
		t_cur = now();
		ktau_profile_free(d);
		free(rows);
		d = interval(o, &prev, &cur);
		rows = d ? make_rows(o, d, &prev, &cur, t_cur - t_prev, &f.nr_rows,
				     &f.total_excl, &f.total_wait) : NULL;
		if (!rows) {
			fprintf(stderr, "ktau-top: %s\n", ktau_strerror(errno));
			ret = EXIT_RUNTIME;
			break;
		}
		f.rows = rows;
		f.profile = d;
		f.seconds = t_cur - t_prev;
		f.processes = ktau_profile_block_count(cur.done);
		if (o->batch)
			print_batch(o, &f);
		else
			print_screen(o, t, &f);
		snap_free(&prev);
		prev = cur;
		cur = (struct snap){ 0 };
		t_prev = t_cur;
	}
	term_leave(t);
	free(rows);
	ktau_profile_free(d);
	snap_free(&cur);
	snap_free(&prev);
	return ret;
}

int main(int argc, char **argv)
{
	struct options o = { .delay = 2.0 };
	struct term t = { .in_fd = -1, .out_fd = STDOUT_FILENO };
	int ret;

	tool_init("ktau-top");
	ret = parse_options(argc, argv, &o);
	if (ret >= 0)
		return ret;
	if (!isatty(STDOUT_FILENO))
		o.batch = true;
	if (!o.batch && isatty(STDIN_FILENO))
		t.in_fd = STDIN_FILENO;
	if (check_pids(&o))
		return EXIT_RUNTIME;
	if (term_catch_signals()) {
		fprintf(stderr, "ktau-top: cannot catch signals: %s\n", strerror(errno));
		return EXIT_RUNTIME;
	}
	ret = watch(&o, &t);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "ktau-top: write error: %s\n", strerror(errno));
		return EXIT_RUNTIME;
	}
	return ret;
}
