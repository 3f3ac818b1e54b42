// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ktau-run — run a command, then print the kernel profile of it and all
 * its descendants.
 *
 * The kernel folds every reaped process's total into its parent's
 * `children` block.  ktau-run is a child subreaper, so orphaned
 * descendants are reaped by it too; the difference between its own
 * children block before the fork and after the last reap is exactly the
 * command's tree.  Reading, diffing and writing are libktau's.
 */
#define _GNU_SOURCE	/* getopt_long, strsignal, asprintf */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ktau.h>

#include "child-run.h"
#include "profile-table.h"
#include "run-node.h"
#include "tool.h"

/* ktau-run's own failures, numbered like env(1) and timeout(1): the
 * command's status is passed through and may be anything below 125. */
enum run_exit {
	RUN_FAILED = 125,
	RUN_NOT_EXECUTABLE = 126,
	RUN_NOT_FOUND = 127,
};

#define DEFAULT_OUTDIR "ktau-run.out"

struct options {
	const char *outdir;	/* -o DIR, or NULL */
	bool tau;
	bool follow;
	bool callgraph;
	bool node_profile;
	char **command;		/* NULL-terminated */
	/* under a job launcher (OMPI_COMM_WORLD_RANK, PMI_RANK, ...): this
	 * process's rank; its own files go to DIR/rank.<rank> */
	bool has_rank;
	unsigned int rank;
	char rank_dir[PATH_MAX];	/* DIR, or DIR/rank.<rank> */
};

static const char usage_text[] =
"Usage: ktau-run [OPTIONS] [--] COMMAND [ARG...]\n"
"\n"
"Run COMMAND and, when it has ended, print on stderr the kernel profile of\n"
"it and all its descendants (children, grandchildren, their threads): one\n"
"row per kernel routine (system calls, softirqs, interrupts, page faults,\n"
"scheduling) with its group, calls, inclusive and exclusive microseconds and\n"
"its share of the exclusive kernel time, sorted by exclusive time.\n"
"\n"
"A descendant counts once it has ended and been reaped. ktau-run is a child\n"
"subreaper: descendants orphaned by their parent are reparented to it and\n"
"reaped by it, so they count too once they end.\n"
"\n"
"Options:\n"
"  -o, --output DIR  also save into DIR (created if missing, not its parents):\n"
"                    before.ktau and after.ktau (ktau-run's own /proc/PID/ktau\n"
"                    before the command and after it; the command is their\n"
"                    difference in the children block) and report.txt\n"
"      --tau         also write a TAU profile directory of the command's kernel\n"
"                    profile, DIR/tau (for ParaProf and pprof); without -o,\n"
"                    DIR is " DEFAULT_OUTDIR ". And run COMMAND with the user-level\n"
"                    profiler, libktau-prof, preloaded (LD_PRELOAD of\n"
"                    $KTAU_PRELOAD, else libktau-prof.so.1 in ../lib or\n"
"                    ../lib/" KTAU_MULTIARCH " next to ktau-run, when present;\n"
"                    under an MPI launcher also libktau-mpi.so.1 beside it):\n"
"                    each thread's user routines with the kernel time they\n"
"                    caused under them, one TAU file per thread, in\n"
"                    DIR/tau-user ($KTAU_PROFILE_DIR when set)\n"
"      --follow      after COMMAND ends, also wait for its orphaned descendants\n"
"                    (daemons, background jobs) to end, so that they are in the\n"
"                    profile; SIGINT or SIGTERM stops that wait. Without it,\n"
"                    descendants still running when COMMAND ends are left out\n"
"                    (a note says so)\n"
"      --callgraph   also print caller => callee edges\n"
"      --node-profile\n"
"                    once per node of a job, save the node's system-wide kernel\n"
"                    profile (all tasks: daemons, kernel threads, interrupts) as\n"
"                    ktau archives DIR/node.<host>.start.ktar before COMMAND and\n"
"                    DIR/node.<host>.end.ktar after it (for ktau-report --job).\n"
"                    The node's one is the node-local rank 0\n"
"                    (OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, PMI_LOCAL_RANK,\n"
"                    SLURM_LOCALID), else the first to create\n"
"                    DIR/node.<host>.lock. Without -o, DIR is " DEFAULT_OUTDIR "\n"
"  -h, --help        print this help and exit\n"
"  -V, --version     print the version and exit\n"
"\n"
"Under a job launcher (mpirun, srun: OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK\n"
"or SLURM_PROCID set) every rank writes into the same DIR without\n"
"overwriting another's: its before.ktau, after.ktau and report.txt into\n"
"DIR/rank.<rank>, its TAU profile as DIR/tau/profile.<rank>.0.0, its\n"
"threads' user profiles as DIR/tau-user/profile.<rank>.0.<thread>, each\n"
"file written whole under a temporary name, then renamed:\n"
"  mpirun -np 4 ktau-run --tau --node-profile -o job ./app\n"
"  ktau-report --job job\n"
"\n"
"SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to ktau-run are forwarded to\n"
"COMMAND (a terminal's Ctrl-C reaches COMMAND directly and is not sent twice).\n"
"Children that a descendant lets the kernel reap (SIGCHLD ignored) count\n"
"too. A process reaped while such children of its own were still exiting\n"
"reaches the totals when the last of them has: ktau-run waits for those\n"
"(at most 10 s; the report says if any were still missing).\n"
"\n"
"Exit status:\n"
"  COMMAND's exit status, or 128 + N when a signal N killed it\n"
"  125  ktau-run failed: usage error, no ktau support in this kernel, DIR\n"
"       cannot be created, or a profile could not be read or written\n"
"  126  COMMAND was found but could not be executed\n"
"  127  COMMAND was not found\n";

enum { OPT_TAU = 256, OPT_FOLLOW, OPT_CALLGRAPH, OPT_NODE_PROFILE };

/* Returns -1 to go on, or the exit code to stop with. */
static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "tau", no_argument, NULL, OPT_TAU },
		{ "follow", no_argument, NULL, OPT_FOLLOW },
		{ "callgraph", no_argument, NULL, OPT_CALLGRAPH },
		{ "node-profile", no_argument, NULL, OPT_NODE_PROFILE },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	/* '+': the first non-option is COMMAND; its options are its own */
	while ((c = getopt_long(argc, argv, "+:o:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->outdir = optarg;
			break;
		case OPT_TAU:
			o->tau = true;
			break;
		case OPT_FOLLOW:
			o->follow = true;
			break;
		case OPT_CALLGRAPH:
			o->callgraph = true;
			break;
		case OPT_NODE_PROFILE:
			o->node_profile = true;
			break;
		default:
			return tool_standard_option(c, usage_text, argv, RUN_FAILED);
		}
	}
	if (optind >= argc) {
		tool_usage_error("%s", "missing COMMAND to run");
		return RUN_FAILED;
	}
	if (o->outdir && !*o->outdir) {
		tool_usage_error("%s", "-o needs a directory name");
		return RUN_FAILED;
	}
	if ((o->tau || o->node_profile) && !o->outdir)
		o->outdir = DEFAULT_OUTDIR;
	o->has_rank = !ktau_launcher_rank(&o->rank, NULL);
	if (o->outdir && o->has_rank)
		snprintf(o->rank_dir, sizeof(o->rank_dir), "%s/rank.%u", o->outdir, o->rank);
	else if (o->outdir)
		snprintf(o->rank_dir, sizeof(o->rank_dir), "%s", o->outdir);
	o->command = argv + optind;
	return -1;
}

/* One read of ktau-run's own /proc/PID/ktau: the text as saved, parsed. */
struct snapshot {
	char *text;
	size_t len;
	struct ktau_profile *profile;
};

static void snapshot_free(struct snapshot *s)
{
	free(s->text);
	ktau_profile_free(s->profile);
}

static int take_snapshot(struct snapshot *s, const char *when)
{
	struct ktau_error *perr;
	pid_t self = getpid();

	memset(s, 0, sizeof(*s));
	s->text = tool_read_raw(NULL, self, 0, &s->len, NULL);
	if (!s->text) {
		int e = errno;

		if (e == ENODEV)
			fprintf(stderr, "ktau-run: this kernel has no ktau support (no "
				"/proc/ktau): boot a kernel built with CONFIG_KTAU%s\n",
				*when == 'b' ? "; the command was not run" : "");
		else
			fprintf(stderr, "ktau-run: cannot read /proc/%d/ktau %s the command: "
				"%s\n", (int)self, when, ktau_strerror(e));
		return -1;
	}
	s->profile = ktau_profile_parse(s->text, s->len, &perr);
	if (!s->profile) {
		fprintf(stderr, "ktau-run: /proc/%d/ktau %s the command:%u: %s\n", (int)self,
			when, ktau_error_line(perr), ktau_error_message(perr));
		ktau_error_free(perr);
		return -1;
	}
	return 0;
}

static const struct ktau_block *children_block(const struct ktau_profile *p, size_t *index)
{
	size_t i;

	for (i = 0; i < ktau_profile_block_count(p); i++) {
		const struct ktau_block *b = ktau_profile_block(p, i);

		if (ktau_block_kind(b) == KTAU_BLOCK_CHILDREN) {
			if (index)
				*index = i;
			return b;
		}
	}
	return NULL;
}

/*
 * The snapshot after the last reap, once the children block has every
 * reaped process's totals: a process reaped while children the kernel
 * reaps for it were still exiting folds in after the last of them, which
 * the block counts as `pending`.  10 s at most; *pending is what is left.
 */
static int take_settled_snapshot(struct snapshot *s, uint64_t *pending)
{
	for (int tries = 0;; tries++) {
		const struct ktau_block *b;

		if (take_snapshot(s, "after"))
			return -1;
		b = children_block(s->profile, NULL);
		*pending = b ? ktau_block_pending(b) : 0;
		if (!*pending || tries == 1000)
			return 0;
		if (tries == 100)
			fprintf(stderr, "ktau-run: waiting for the totals of %llu reaped "
				"process%s still folding in\n", (unsigned long long)*pending,
				*pending == 1 ? "" : "es");
		snapshot_free(s);
		usleep(10000);
	}
}

/* What the report shows. */
struct report {
	char command_line[1024];
	struct child_result run;
	struct ktau_profile *profile;	/* after - before */
	const struct ktau_block *block;	/* the command's: its children block */
	size_t block_index;
	uint64_t processes;
	uint64_t pending;		/* reaped processes not folded in yet */
	bool cleared;			/* counters were cleared during the run */
};

static void join_command(char *const argv[], char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (; *argv && len < size; argv++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? " " : "", *argv);
	if (len >= size && size > 4)
		memcpy(buf + size - 4, "...", 4);
}

static int build_report(struct report *r, const struct snapshot *before,
			const struct snapshot *after)
{
	const struct ktau_block *b0 = children_block(before->profile, NULL);
	const struct ktau_block *b1 = children_block(after->profile, NULL);

	r->profile = ktau_profile_diff(before->profile, after->profile);
	if (!r->profile && errno == ERANGE) {
		/* `ktau-ctl clear` ran meanwhile: what is left is since then */
		r->cleared = true;
		r->profile = ktau_profile_dup(after->profile);
	}
	if (!r->profile) {
		fprintf(stderr, "ktau-run: cannot compute the command's profile: %s\n",
			ktau_strerror(errno));
		return -1;
	}
	r->block = children_block(r->profile, &r->block_index);
	if (!r->block || !b0 || !b1) {
		fprintf(stderr, "ktau-run: /proc/%d/ktau has no children block\n",
			(int)getpid());
		return -1;
	}
	r->processes = ktau_block_processes(b1);
	if (!r->cleared && r->processes >= ktau_block_processes(b0))
		r->processes -= ktau_block_processes(b0);
	return 0;
}

static void print_outcome(FILE *out, const struct report *r)
{
	int st = r->run.status;

	if (WIFSIGNALED(st))
		fprintf(out, "killed by signal %d (%s), exit status %d", WTERMSIG(st),
			strsignal(WTERMSIG(st)), child_exit_code(st));
	else
		fprintf(out, "exit status %d", WEXITSTATUS(st));
}

static int print_report(FILE *out, const struct report *r, const struct options *o)
{
	const struct rusage *ru = &r->run.rusage;

	fprintf(out, "# ktau-run: %s\n# ", r->command_line);
	print_outcome(out, r);
	fprintf(out, "; %llu process%s; wall %.3f s; user %.3f s, system %.3f s\n",
		(unsigned long long)r->processes, r->processes == 1 ? "" : "es",
		r->run.wall_seconds,
		(double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec / 1e6,
		(double)ru->ru_stime.tv_sec + (double)ru->ru_stime.tv_usec / 1e6);
	if (r->run.orphans_left)
		fprintf(out, "# note: descendants still running are not included%s\n",
			o->follow ? " (the wait for them was interrupted)"
				  : " (--follow waits for them)");
	if (r->pending)
		fprintf(out, "# warning: %llu reaped process%s not folded in after 10 s: "
			"not included\n", (unsigned long long)r->pending,
			r->pending == 1 ? " was" : "es were");
	if (r->cleared)
		fprintf(out, "# warning: the profiles were cleared while the command ran: "
			"this is only what was recorded since\n");
	if (ktau_block_dropped(r->block))
		fprintf(out, "# warning: %llu events were dropped, this profile is "
			"incomplete\n", (unsigned long long)ktau_block_dropped(r->block));
	if (print_flat_table(out, r->profile, r->block))
		return -ENOMEM;
	if (ktau_block_event_count(r->block)) {
		fputc('\n', out);
		print_events(out, r->block);
	}
	if (o->callgraph) {
		fputc('\n', out);
		if (print_callgraph(out, r->profile, r->block))
			return -ENOMEM;
	}
	return 0;
}

static int make_outdir(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0755) == 0 || (errno == EEXIST && !stat(dir, &st) &&
				       S_ISDIR(st.st_mode)))
		return 0;
	fprintf(stderr, "ktau-run: cannot create directory '%s': %s\n", dir,
		errno == EEXIST ? "a file of that name exists" : strerror(errno));
	return -1;
}

static FILE *open_out(const char *dir, const char *name, char *path, size_t size)
{
	FILE *f;

	snprintf(path, size, "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "ktau-run: cannot write %s: %s\n", path, strerror(errno));
	return f;
}

static int close_out(FILE *f, const char *path)
{
	int bad = ferror(f);

	if (fclose(f) || bad) {
		fprintf(stderr, "ktau-run: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int save_text(const char *dir, const char *name, const struct snapshot *s)
{
	char path[4200];
	FILE *f = open_out(dir, name, path, sizeof(path));

	if (!f)
		return -1;
	fwrite(s->text, 1, s->len, f);
	return close_out(f, path);
}

static int save_tau(const struct options *o, const struct report *r)
{
	struct ktau_model *m = ktau_model_new();
	struct ktau_model_thread *t;
	char path[4200], status[16], host[256];
	int ret = -ENOMEM;

	snprintf(path, sizeof(path), "%s/tau", o->outdir);
	snprintf(status, sizeof(status), "%d", child_exit_code(r->run.status));
	if (gethostname(host, sizeof(host)))
		snprintf(host, sizeof(host), "?");
	host[sizeof(host) - 1] = '\0';
	/* the rank as the node number, as libktau-prof names its files */
	t = m ? ktau_model_add_block(m, r->profile, r->block_index, o->rank, 0, 0) : NULL;
	if (t && !ktau_model_add_metadata(t, "ktau-run command", r->command_line) &&
	    !ktau_model_add_metadata(t, "ktau-run exit status", status) &&
	    !ktau_model_add_metadata(t, "Hostname", host))
		ret = ktau_model_write_tau(m, path);
	else if (m && !t)
		ret = -errno;
	ktau_model_free(m);
	if (ret)
		fprintf(stderr, "ktau-run: cannot write the TAU profile %s: %s\n", path,
			ktau_strerror(ret));
	return ret ? -1 : 0;
}

static int save_all(const struct options *o, const struct report *r,
		    const struct snapshot *before, const struct snapshot *after)
{
	char path[4200];
	FILE *f;
	int ret;

	if (save_text(o->rank_dir, "before.ktau", before) ||
	    save_text(o->rank_dir, "after.ktau", after))
		return -1;
	f = open_out(o->rank_dir, "report.txt", path, sizeof(path));
	if (!f)
		return -1;
	ret = print_report(f, r, o);
	if (close_out(f, path) || ret)
		return -1;
	return o->tau ? save_tau(o, r) : 0;
}

/* Where libktau-prof is installed relative to ktau-run: `make install`
 * puts both under one PREFIX, Debian's packages use the multiarch
 * directory. */
static const char *const prof_lib_dirs[] = { "../lib", "../lib/" KTAU_MULTIARCH };
#define PROF_LIB "libktau-prof.so.1"
#define READER_LIB "libktau.so.1"
#define MPI_LIB "libktau-mpi.so.1"

/*
 * The user-level profiler for the command (--tau): libktau-prof is
 * preloaded ($KTAU_PRELOAD, else found next to this program) and writes
 * each thread's user routines, with the kernel time they caused under
 * them, into DIR/tau-user (or $KTAU_PROFILE_DIR when set). Under an MPI
 * launcher, libktau-mpi beside it is preloaded too, so the rank's MPI
 * routines are its timers. Programs linked with libktau-prof write there
 * too. Runs in the child, between fork and exec.
 */
static void setup_user_profiler(void *arg)
{
	const struct options *o = arg;
	const char *lib = getenv("KTAU_PRELOAD"), *old = getenv("LD_PRELOAD");
	char own[PATH_MAX], dir[PATH_MAX + 64], reader[PATH_MAX + 64], mpi[PATH_MAX + 64];
	char *preload, *slash;
	bool found = false;
	unsigned int rank;
	size_t i;
	ssize_t n;

	if (!getenv("KTAU_PROFILE_DIR")) {
		snprintf(dir, sizeof(dir), "%s/tau-user", o->outdir);
		setenv("KTAU_PROFILE_DIR", dir, 1);
	}
	if (!lib) {
		found = true;
		n = readlink("/proc/self/exe", own, sizeof(own) - 1);
		if (n <= 0)
			return;
		own[n] = '\0';
		*strrchr(own, '/') = '\0';
		for (i = 0; i < sizeof(prof_lib_dirs) / sizeof(prof_lib_dirs[0]); i++) {
			snprintf(dir, sizeof(dir), "%s/%s/" PROF_LIB, own, prof_lib_dirs[i]);
			if (!access(dir, R_OK))
				break;
		}
		lib = dir;
	}
	if (access(lib, R_OK))
		return;
	/*
	 * libktau-prof needs libktau.so.1, which the loader looks for in the
	 * system's path only: preload the one next to it first, so that a
	 * PREFIX outside that path (or the build tree) works too.
	 */
	snprintf(reader, sizeof(reader), "%s", lib);
	slash = strrchr(reader, '/');
	if (slash)
		snprintf(slash + 1, sizeof(reader) - (size_t)(slash + 1 - reader), "%s",
			 READER_LIB);
	if (!slash || access(reader, R_OK))
		reader[0] = '\0';
	/* the MPI wrappers need libktau-prof, loaded before them */
	mpi[0] = '\0';
	if (found && slash && !ktau_launcher_rank(&rank, NULL)) {
		snprintf(mpi, sizeof(mpi), "%.*s" MPI_LIB, (int)(slash + 1 - reader), reader);
		if (access(mpi, R_OK))
			mpi[0] = '\0';
	}
	if (asprintf(&preload, "%s%s%s%s%s%s%s", reader, reader[0] ? ":" : "", lib,
		     mpi[0] ? ":" : "", mpi, old && *old ? ":" : "", old && *old ? old : "") < 0)
		return;
	setenv("LD_PRELOAD", preload, 1);
	free(preload);
}

/* A stopped recording or no enabled group would give an empty report. */
static void warn_if_not_recording(void)
{
	struct ktau_proc *proc = ktau_proc_open(NULL, NULL);
	struct ktau_control_status *s = proc ? ktau_proc_read_control(proc, NULL) : NULL;
	size_t i, enabled = 0;

	ktau_proc_close(proc);
	if (!s)
		return;	/* not root: the state is not ours to see */
	for (i = 0; i < ktau_control_status_group_count(s); i++)
		enabled += ktau_control_status_group_enabled(s, ktau_control_status_group(s, i)) > 0;
	if (!ktau_control_status_running(s))
		fprintf(stderr, "ktau-run: warning: ktau recording is stopped, the profile "
			"will be empty ('ktau-ctl start')\n");
	else if (!enabled)
		fprintf(stderr, "ktau-run: warning: every ktau group is disabled, the "
			"profile will be empty ('ktau-ctl enable all')\n");
	ktau_control_status_free(s);
}

static int run(const struct options *o)
{
	struct snapshot before, after = { 0 };
	struct node_profile node = { 0 };
	struct report r = { 0 };
	int ret, code = RUN_FAILED;

	if (o->outdir && (make_outdir(o->outdir) || make_outdir(o->rank_dir)))
		return RUN_FAILED;
	if (o->node_profile && node_profile_start(&node, o->outdir)) {
		fprintf(stderr, "ktau-run: the command was not run\n");
		return RUN_FAILED;
	}
	if (take_snapshot(&before, "before")) {
		snapshot_free(&before);
		return RUN_FAILED;
	}
	warn_if_not_recording();
	join_command(o->command, r.command_line, sizeof(r.command_line));
	fflush(NULL);	/* nothing buffered may be written twice by the child */
	ret = child_run(o->command, o->follow, o->tau ? setup_user_profiler : NULL,
			(void *)o, &r.run);
	if (ret) {
		fprintf(stderr, "ktau-run: cannot start '%s': %s\n", o->command[0],
			strerror(-ret));
		goto out;
	}
	if (r.run.exec_errno) {
		fprintf(stderr, "ktau-run: cannot run '%s': %s\n", o->command[0],
			strerror(r.run.exec_errno));
		code = r.run.exec_errno == ENOENT ? RUN_NOT_FOUND : RUN_NOT_EXECUTABLE;
		goto out;
	}
	if (take_settled_snapshot(&after, &r.pending) || build_report(&r, &before, &after))
		goto failed_after_run;
	if (print_report(stderr, &r, o)) {
		fprintf(stderr, "ktau-run: out of memory\n");
		goto failed_after_run;
	}
	if (o->outdir && save_all(o, &r, &before, &after))
		goto failed_after_run;
	if (o->node_profile && node_profile_end(&node))
		goto failed_after_run;
	code = child_exit_code(r.run.status);
	goto out;
failed_after_run:
	fprintf(stderr, "ktau-run: the command ended with ");
	print_outcome(stderr, &r);
	fputc('\n', stderr);
out:
	ktau_profile_free(r.profile);
	snapshot_free(&after);
	snapshot_free(&before);
	return code;
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	int ret;

	tool_init("ktau-run");
	ret = parse_options(argc, argv, &o);
	if (ret >= 0)
		return ret;
	return run(&o);
}
