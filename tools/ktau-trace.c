// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ktau-trace — record a trace (docs/trace-format.md) of a command and its
 * descendants, or of the whole system for a while.
 *
 * The kernel is told which process to trace before the command may exec
 * (child-run's hooks: the child waits on a pipe), so its very first
 * events are in the trace. /proc/ktau/trace is drained while the command
 * runs, when poll() says it has events and at least every 200 ms; the
 * bytes go to the output as read (the kernel writes the stream header
 * and whole chunks). Then the names and the user traces are appended
 * through libktau, the format's one reader and writer.
 */
#define _GNU_SOURCE	/* getopt_long, mkdtemp, strsignal */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ktau.h>

#include "child-run.h"
#include "sig-wait.h"
#include "tool.h"

/* ktau-trace's own failures, as ktau-run's: the command's status is
 * passed through and may be anything below 125. */
enum trace_exit {
	TRACE_FAILED = 125,
	TRACE_NOT_EXECUTABLE = 126,
	TRACE_NOT_FOUND = 127,
};

#define DEFAULT_OUTPUT "ktau.ktt"
/* the kernel's bounds for `trace size` (docs/trace-format.md) */
#define MIN_SIZE_KIB 16
#define MAX_SIZE_KIB 262144
/* drain at least this often, so that no buffer fills between wake-ups */
#define DRAIN_MS 200
/* a read must hold 96 bytes at offset 0; large reads drain in few calls */
#define READ_SIZE (1 << 20)

struct options {
	const char *output;
	long size_kib;		/* 0: the kernel's */
	bool all;
	long seconds;		/* --all -d */
	bool force;
	char **command;
};

static const char usage_text[] =
"Usage: ktau-trace [-o FILE] [-s KIB] [--force] [--] COMMAND [ARG...]\n"
"       ktau-trace --all -d SECONDS [-o FILE] [-s KIB] [--force]\n"
"\n"
"Record when things happened: every system call, interrupt, softirq, page\n"
"fault and scheduling of COMMAND and all its descendants (threads, children,\n"
"what they fork), as events stamped with the TSC, into FILE (docs/trace-\n"
"format.md). With --all, every task of the system for SECONDS instead.\n"
"Read FILE with ktau-export -f perfetto (a timeline for ui.perfetto.dev) or\n"
"ktau-report --noise (what interrupted each thread).\n"
"\n"
"COMMAND runs with KTAU_TRACE=1 and KTAU_TRACE_DIR set to a private\n"
"directory: a program using libktau-prof (linked or LD_PRELOAD) records its\n"
"user routines there, and ktau-trace appends those user traces to FILE, so\n"
"user routines and the kernel work they caused nest in one timeline.\n"
"\n"
"Options:\n"
"  -o, --output FILE   where to write the trace (default " DEFAULT_OUTPUT ")\n"
"  -s, --size KIB      buffer size per CPU in KiB: a power of two from 16 to\n"
"                      262144 (default: the kernel's, 1024)\n"
"  -a, --all           trace every task, not a command\n"
"  -d, --duration SECONDS  with --all: how long to trace (SIGINT ends it early)\n"
"      --force         trace even when tracing is already on (someone else's\n"
"                      trace is stopped and its undrained events are lost)\n"
"  -h, --help          print this help and exit\n"
"  -V, --version       print the version and exit\n"
"\n"
"Progress (bytes drained, events lost) goes to stderr once a second when it\n"
"is a terminal; a summary line always ends the run. Events that found a\n"
"full buffer are lost and counted: a larger -s helps. Tracing needs root\n"
"(CAP_SYS_ADMIN) and a kernel with ktau's trace mode. KTAU_PROCFS names\n"
"another /proc root.\n"
"\n"
"SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to ktau-trace are forwarded to\n"
"COMMAND, as ktau-run does.\n"
"\n"
"Exit status:\n"
"  COMMAND's exit status, or 128 + N when a signal N killed it (--all: 0)\n"
"  125  ktau-trace failed: usage error, not root, no ktau or no trace mode,\n"
"       tracing already on, FILE cannot be written\n"
"  126  COMMAND was found but could not be executed\n"
"  127  COMMAND was not found\n";

enum { OPT_FORCE = 256 };

static int parse_size(const char *arg, long *kib)
{
	if (tool_parse_uint(arg, MIN_SIZE_KIB, kib) || *kib > MAX_SIZE_KIB ||
	    (*kib & (*kib - 1))) {
		tool_usage_error("invalid size '%s' (KiB: a power of two from 16 to 262144)",
				 arg);
		return TRACE_FAILED;
	}
	return -1;
}

/* Returns -1 to go on, or the exit code to stop with. */
static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "size", required_argument, NULL, 's' },
		{ "all", no_argument, NULL, 'a' },
		{ "duration", required_argument, NULL, 'd' },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	opterr = 0;
	/* '+': the first non-option is COMMAND; its options are its own */
	while ((c = getopt_long(argc, argv, "+:o:s:ad:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!*optarg) {
				tool_usage_error("%s", "-o needs a file name");
				return TRACE_FAILED;
			}
			o->output = optarg;
			break;
		case 's':
			ret = parse_size(optarg, &o->size_kib);
			if (ret >= 0)
				return ret;
			break;
		case 'a':
			o->all = true;
			break;
		case 'd':
			if (tool_parse_uint(optarg, 1, &o->seconds)) {
				tool_usage_error("invalid duration '%s' (whole seconds, 1 or more)",
						 optarg);
				return TRACE_FAILED;
			}
			break;
		case OPT_FORCE:
			o->force = true;
			break;
		default:
			return tool_standard_option(c, usage_text, argv, TRACE_FAILED);
		}
	}
	if (o->all) {
		if (optind < argc) {
			tool_usage_error("%s", "--all traces the system: no COMMAND with it");
			return TRACE_FAILED;
		}
		if (!o->seconds) {
			tool_usage_error("%s", "--all needs -d SECONDS");
			return TRACE_FAILED;
		}
	} else {
		if (o->seconds) {
			tool_usage_error("%s", "-d is for --all (a COMMAND is traced until it ends)");
			return TRACE_FAILED;
		}
		if (optind >= argc) {
			tool_usage_error("%s", "missing COMMAND to trace (or --all -d SECONDS)");
			return TRACE_FAILED;
		}
		o->command = argv + optind;
	}
	if (!o->output)
		o->output = DEFAULT_OUTPUT;
	return -1;
}

/* ---- the session: the kernel's side ---- */

struct session {
	const struct options *o;
	struct child_hooks *hooks;	/* a command's: the fd to poll, once open */
	struct ktau_proc *proc;
	int trace_fd;
	FILE *out;
	struct ktau_trace_tally *tally;	/* of every byte written to out */
	char *buf;
	uint64_t bytes;
	bool tracing;		/* we turned it on: turn it off on every path */
	bool failed;		/* a drain or write failed: already reported */
	bool progress;		/* stderr is a terminal */
	double next_progress;
	char tmpdir[PATH_MAX];	/* the user traces' directory, or "" */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int control(struct session *s, const char *fmt, long arg)
{
	char cmd[64];
	struct ktau_error *err;
	int ret;

	snprintf(cmd, sizeof(cmd), fmt, arg);
	ret = ktau_proc_write_control(s->proc, cmd, &err);
	if (ret)
		fprintf(stderr, "ktau-trace: \"%s\": %s\n", cmd,
			ret == -EACCES ? "permission denied: tracing needs root (CAP_SYS_ADMIN)"
				       : ktau_error_message(err));
	ktau_error_free(err);
	return ret;
}

/* The kernel's trace state; -1 when it cannot trace or is busy. */
static int check_kernel(struct session *s)
{
	struct ktau_control_status *st;
	struct ktau_error *err;
	bool on = false;

	st = ktau_proc_read_control(s->proc, &err);
	if (!st) {
		int e = ktau_error_code(err);

		if (e == -ENODEV)
			fprintf(stderr, "ktau-trace: this kernel has no ktau support (no "
				"%s/ktau): boot a kernel built with CONFIG_KTAU\n",
				ktau_proc_root(s->proc));
		else if (e == -EACCES)
			fprintf(stderr, "ktau-trace: permission denied: tracing needs root "
				"(CAP_SYS_ADMIN)\n");
		else
			fprintf(stderr, "ktau-trace: cannot read %s/ktau/control: %s\n",
				ktau_proc_root(s->proc), ktau_error_message(err));
		ktau_error_free(err);
		return -1;
	}
	if (ktau_control_status_trace(st, &on, NULL)) {
		fprintf(stderr, "ktau-trace: this kernel's ktau has no trace mode (no trace "
			"line in %s/ktau/control): build it with CONFIG_KTAU_TRACE\n",
			ktau_proc_root(s->proc));
		ktau_control_status_free(st);
		return -1;
	}
	ktau_control_status_free(st);
	if (on && !s->o->force) {
		fprintf(stderr, "ktau-trace: tracing is already on (another ktau-trace?); "
			"--force stops that trace and starts this one\n");
		return -1;
	}
	if (on && control(s, "trace off", 0))
		return -1;
	return 0;
}

/* Until the first trace on: the buffer size and whom to trace. */
static int start_tracing(struct session *s, pid_t pid)
{
	char path[PATH_MAX];

	if (s->o->size_kib && control(s, "trace size %ld", s->o->size_kib))
		return -1;
	if (pid ? control(s, "trace pid %ld", pid) : control(s, "trace all", 0))
		return -1;
	if (control(s, "trace on", 0))
		return -1;
	s->tracing = true;
	snprintf(path, sizeof(path), "%s/ktau/trace", ktau_proc_root(s->proc));
	s->trace_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (s->trace_fd < 0) {
		int e = errno;

		if (e == ENOENT)
			fprintf(stderr, "ktau-trace: no %s: this kernel's ktau has no trace "
				"mode (CONFIG_KTAU_TRACE)\n", path);
		else
			fprintf(stderr, "ktau-trace: cannot open %s: %s\n", path,
				e == EACCES ? "permission denied: tracing needs root" : strerror(e));
		return -1;
	}
	return 0;
}

static void stop_tracing(struct session *s)
{
	if (s->tracing && !control(s, "trace off", 0))
		s->tracing = false;
}

static void show_progress(struct session *s, bool force)
{
	struct ktau_control_status *st;
	uint64_t lost = 0;
	bool on;

	if (!s->progress || (!force && now() < s->next_progress))
		return;
	s->next_progress = now() + 1.0;
	st = ktau_proc_read_control(s->proc, NULL);
	if (st)
		ktau_control_status_trace(st, &on, &lost);
	ktau_control_status_free(st);
	fprintf(stderr, "\rktau-trace: %llu KiB drained, %llu events lost   ",
		(unsigned long long)(s->bytes >> 10), (unsigned long long)lost);
}

/*
 * Writes n bytes of the trace to the output, counted by the tally (the
 * summary's figures: reading the file back cost as much as tracing).
 * 0, or -1 when the write failed (reported).
 */
static int emit(struct session *s, const void *buf, size_t n)
{
	struct ktau_error *err;

	if (fwrite(buf, 1, n, s->out) != n) {
		fprintf(stderr, "ktau-trace: cannot write %s: %s\n", s->o->output,
			strerror(errno));
		return -1;
	}
	/* a malformed stream is reported once, by the summary */
	ktau_trace_tally_feed(s->tally, buf, n, &err);
	ktau_error_free(err);
	return 0;
}

/* Reads what the buffers hold; whether anything came. */
static bool drain(struct session *s)
{
	bool got = false;

	while (!s->failed) {
		ssize_t n = read(s->trace_fd, s->buf, READ_SIZE);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0) {
			fprintf(stderr, "ktau-trace: reading %s/ktau/trace: %s\n",
				ktau_proc_root(s->proc), strerror(errno));
			s->failed = true;
			break;
		}
		if (!n)
			break;
		if (emit(s, s->buf, (size_t)n)) {
			s->failed = true;
			break;
		}
		s->bytes += (uint64_t)n;
		got = true;
	}
	show_progress(s, false);
	return got;
}

/* child-run's wait hook: drain; poll the fd again only if it gave events
 * (a file that is always readable but empty is left to the timeout). */
static bool on_wait(void *arg, bool ready)
{
	struct session *s = arg;
	bool got = drain(s);

	return !ready || got;
}

static int after_fork(pid_t pid, void *arg)
{
	struct session *s = arg;

	if (start_tracing(s, pid))
		return -EIO;
	s->hooks->fd = s->trace_fd;
	return 0;
}

/* In the child, before exec: where libktau-prof writes its user trace. */
static void set_user_trace_env(void *arg)
{
	const struct session *s = arg;

	setenv("KTAU_TRACE", "1", 1);
	setenv("KTAU_TRACE_DIR", s->tmpdir, 1);
}

/* ---- what comes after the kernel's stream ---- */

/* The kernel names chunk of text, through memory to emit() it. */
static int emit_kernel_names(struct session *s, const char *text, size_t len)
{
	char *chunk = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&chunk, &size);
	int ret;

	if (!m)
		return -errno;
	ret = ktau_trace_append_names(m, 0, 0, text, len);
	if (fclose(m) && !ret)
		ret = -ENOMEM;
	if (!ret && emit(s, chunk, size))
		ret = -EIO;
	free(chunk);
	return ret;
}

static int append_names(struct session *s)
{
	char path[PATH_MAX];
	char *text = NULL;
	size_t len = 0, cap = 0;
	FILE *f;
	int ret;

	/* the function map verbatim: it is the names chunk's contract */
	snprintf(path, sizeof(path), "%s/ktau/functions", ktau_proc_root(s->proc));
	f = fopen(path, "re");
	if (!f) {
		fprintf(stderr, "ktau-trace: cannot read %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (;;) {
		size_t n;

		if (len + 4096 > cap) {
			char *p = realloc(text, cap = cap ? cap * 2 : 65536);

			if (!p) {
				fclose(f);
				free(text);
				fprintf(stderr, "ktau-trace: out of memory\n");
				return -1;
			}
			text = p;
		}
		n = fread(text + len, 1, cap - len, f);
		len += n;
		if (!n)
			break;
	}
	ret = ferror(f) ? -EIO : 0;
	fclose(f);
	if (!ret)
		ret = emit_kernel_names(s, text, len);
	free(text);
	if (ret)
		fprintf(stderr, "ktau-trace: cannot append %s: %s\n", path, ktau_strerror(ret));
	return ret ? -1 : 0;
}

static int is_user_trace(const struct dirent *d)
{
	size_t len = strlen(d->d_name);

	return !strncmp(d->d_name, "ktau-utrace.", 12) && len > 16 &&
	       !strcmp(d->d_name + len - 4, ".ktt");
}

/* One user trace, through a temporary file: a bad one adds nothing. */
static int append_user_trace(struct session *s, const char *path, unsigned int source)
{
	KTAU_OPTS(ktau_load_opts, from, .path = path);
	struct ktau_error *err;
	FILE *tmp = tmpfile();
	char buf[65536];
	size_t n;
	int ret;

	if (!tmp) {
		fprintf(stderr, "ktau-trace: cannot create a temporary file: %s\n",
			strerror(errno));
		return -1;
	}
	ret = ktau_trace_append_user(tmp, &from, source, &err);
	if (ret) {
		fprintf(stderr, "ktau-trace: warning: user trace %s left out: %s\n", path,
			ktau_error_message(err));
		ktau_error_free(err);
		fclose(tmp);
		return 0;
	}
	rewind(tmp);
	while ((n = fread(buf, 1, sizeof(buf), tmp)) > 0)
		if (emit(s, buf, n)) {
			ret = -1;
			break;
		}
	if (ferror(tmp)) {
		fprintf(stderr, "ktau-trace: cannot append %s: %s\n", path, strerror(errno));
		ret = -1;
	}
	fclose(tmp);
	return ret;
}

/* Appends every user trace, sources 1, 2, ... in name order, then
 * removes the directory. */
static int append_user_traces(struct session *s, unsigned int *count)
{
	struct dirent **names;
	char path[PATH_MAX + 300];
	int n, i, ret = 0;

	*count = 0;
	if (!s->tmpdir[0])
		return 0;
	n = scandir(s->tmpdir, &names, is_user_trace, alphasort);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", s->tmpdir, names[i]->d_name);
		if (!ret && *count < 0xffff) {
			ret = append_user_trace(s, path, *count + 1);
			if (!ret)
				(*count)++;
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	return ret;
}

static void remove_tmpdir(struct session *s)
{
	struct dirent *d;
	char path[PATH_MAX + 300];
	DIR *dir;

	if (!s->tmpdir[0] || !(dir = opendir(s->tmpdir)))
		return;
	while ((d = readdir(dir)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", s->tmpdir, d->d_name);
			unlink(path);
		}
	closedir(dir);
	rmdir(s->tmpdir);
	s->tmpdir[0] = '\0';
}

/* The summary of what was written, from the tally. */
static int summarize(const struct session *s, unsigned int user_traces)
{
	const struct ktau_trace_tally *t = s->tally;
	uint64_t user = ktau_trace_tally_events(t, KTAU_TRACE_USER);
	uint64_t lost = ktau_trace_tally_lost(t, KTAU_TRACE_KERNEL);
	uint64_t lost_user = ktau_trace_tally_lost(t, KTAU_TRACE_USER);
	struct ktau_error *err;

	if (ktau_trace_tally_end(t, &err)) {
		fprintf(stderr, "ktau-trace: %s: the trace written is malformed: %s\n",
			s->o->output, ktau_error_message(err));
		ktau_error_free(err);
		return -1;
	}
	if (s->progress)
		fputc('\n', stderr);
	fprintf(stderr, "ktau-trace: %s: %llu events (%llu from %u user trace%s), %llu "
		"bytes, %llu lost (%llu user)\n", s->o->output,
		(unsigned long long)(ktau_trace_tally_events(t, KTAU_TRACE_KERNEL) + user),
		(unsigned long long)user, user_traces, user_traces == 1 ? "" : "s",
		(unsigned long long)(s->bytes), (unsigned long long)lost,
		(unsigned long long)lost_user);
	if (lost || lost_user)
		fprintf(stderr, "ktau-trace: warning: events were lost: a larger -s helps\n");
	return 0;
}

/* After the traced time: last drain, trace off, names, user traces. */
static int finish(struct session *s)
{
	unsigned int user_traces = 0;
	int ret = 0;

	if (s->trace_fd >= 0)
		drain(s);
	stop_tracing(s);
	if (s->failed || s->tracing || append_names(s) || append_user_traces(s, &user_traces))
		ret = -1;
	remove_tmpdir(s);
	if (fclose(s->out) && !ret) {
		fprintf(stderr, "ktau-trace: cannot write %s: %s\n", s->o->output,
			strerror(errno));
		ret = -1;
	}
	s->out = NULL;
	if (!ret)
		ret = summarize(s, user_traces);
	return ret;
}

/* --all: drain until the time is up or a signal asks to stop. */
static int trace_system(struct session *s)
{
	double end = now() + (double)s->o->seconds;
	sigset_t stop_set, old;
	struct sig_wait w;
	bool poll_fd = true;
	int ret = 0, err;

	sigemptyset(&stop_set);
	sigaddset(&stop_set, SIGINT);
	sigaddset(&stop_set, SIGTERM);
	sigaddset(&stop_set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &stop_set, &old)) {
		fprintf(stderr, "ktau-trace: %s\n", strerror(errno));
		return -1;
	}
	err = sig_wait_open(&w, &stop_set);
	if (err) {
		fprintf(stderr, "ktau-trace: cannot wait for signals: %s\n", strerror(-err));
		sigprocmask(SIG_SETMASK, &old, NULL);
		return -1;
	}
	if (start_tracing(s, 0))
		ret = -1;
	while (!ret && !s->failed) {
		double left = end - now();
		int ms = left * 1000 < DRAIN_MS ? (int)(left * 1000) : DRAIN_MS;
		bool ready;
		int sig, code;

		if (left <= 0)
			break;
		sig = sig_wait(&w, poll_fd ? s->trace_fd : -1, ms, &ready, &code);
		if (sig > 0)
			break;
		if (sig < 0 && errno != EINTR)
			break;
		if (!sig)
			poll_fd = on_wait(s, ready);
	}
	sig_wait_close(&w);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

static int trace_command(struct session *s)
{
	struct child_hooks hooks = {
		.after_fork = after_fork, .fd = -1, .timeout_ms = DRAIN_MS,
		.on_wait = on_wait, .arg = s,
	};
	struct child_result res;
	const char *tmp = getenv("TMPDIR");
	int ret;

	snprintf(s->tmpdir, sizeof(s->tmpdir), "%s/ktau-trace.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(s->tmpdir)) {
		fprintf(stderr, "ktau-trace: cannot create a directory in %s: %s\n",
			tmp && *tmp ? tmp : "/tmp", strerror(errno));
		s->tmpdir[0] = '\0';
		return TRACE_FAILED;
	}
	s->hooks = &hooks;	/* after_fork sets the fd it opens */
	ret = child_run_hooked(s->o->command, false, set_user_trace_env, s, &hooks, &res);
	if (ret) {
		if (ret != -EIO)
			fprintf(stderr, "ktau-trace: cannot run %s: %s\n", s->o->command[0],
				strerror(-ret));
		return TRACE_FAILED;
	}
	if (finish(s))
		return TRACE_FAILED;
	if (res.exec_errno) {
		fprintf(stderr, "ktau-trace: %s: %s\n", s->o->command[0], strerror(res.exec_errno));
		return res.exec_errno == ENOENT ? TRACE_NOT_FOUND : TRACE_NOT_EXECUTABLE;
	}
	if (WIFSIGNALED(res.status))
		fprintf(stderr, "ktau-trace: %s: killed by signal %d (%s)\n", s->o->command[0],
			WTERMSIG(res.status), strsignal(WTERMSIG(res.status)));
	return child_exit_code(res.status);
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	struct session s = { .o = &o, .trace_fd = -1 };
	struct ktau_error *err;
	int ret;

	tool_init("ktau-trace");
	ret = parse_options(argc, argv, &o);
	if (ret >= 0)
		return ret;
	s.proc = ktau_proc_open(NULL, &err);
	if (!s.proc) {
		fprintf(stderr, "ktau-trace: %s\n", ktau_error_message(err));
		ktau_error_free(err);
		return TRACE_FAILED;
	}
	s.progress = isatty(STDERR_FILENO);
	s.buf = malloc(READ_SIZE);
	if (!s.buf || check_kernel(&s)) {
		free(s.buf);
		ktau_proc_close(s.proc);
		return TRACE_FAILED;
	}
	s.tally = ktau_trace_tally_new(&err);
	if (!s.tally) {
		fprintf(stderr, "ktau-trace: %s\n", ktau_error_message(err));
		ktau_error_free(err);
		free(s.buf);
		ktau_proc_close(s.proc);
		return TRACE_FAILED;
	}
	s.out = fopen(o.output, "we");
	if (!s.out) {
		ktau_trace_tally_free(s.tally);
		fprintf(stderr, "ktau-trace: cannot write %s: %s\n", o.output, strerror(errno));
		free(s.buf);
		ktau_proc_close(s.proc);
		return TRACE_FAILED;
	}
	if (o.all)
		ret = trace_system(&s) || finish(&s) ? TRACE_FAILED : EXIT_OK;
	else
		ret = trace_command(&s);
	stop_tracing(&s);
	remove_tmpdir(&s);
	if (s.out)
		fclose(s.out);
	if (s.trace_fd >= 0)
		close(s.trace_fd);
	ktau_trace_tally_free(s.tally);
	free(s.buf);
	ktau_proc_close(s.proc);
	return ret;
}
