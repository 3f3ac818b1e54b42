// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mpi-check: reads the TAU profile directory of an mpi-ring (or
 * mpi-requests) job with the project's independent TAU reader
 * (tests/unit/tau_reader.c) and checks it against what the program did
 * (tests/mpi/mpi-ring.h, mpi-requests.h): one file per
 * rank and nothing else, the exact calls of every MPI routine, the exact
 * message-size events (flat and per callpath), the MPI metadata, and with
 * --kernel kernel routines under MPI routines. One PASS/FAIL line per
 * rank and one for the directory; exit 0 when all passed, 1 when not, 2
 * on bad arguments. Plain C without libktau or MPI, so the guest tests
 * can run it too.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi-requests.h"
#include "mpi-ring.h"
#include "tau_reader.h"

#define MAX_RANKS 4096

static const char usage[] =
	"usage: mpi-check --ranks N [--program P] [--rounds R] [--bytes B]\n"
	"                 [--root NAME] [--missing RANK] [--kernel] [--label TEXT] DIR\n"
	"\n"
	"Checks DIR, the TAU profiles of `P R B` run on N ranks under libktau-mpi,\n"
	"with the project's TAU reader:\n"
	"  --ranks N       the job's ranks: DIR holds profile.<rank>.0.<thread>\n"
	"                  for each, and no other file\n"
	"  --program P     mpi-ring (the default; mpi-ring-f does the same) or\n"
	"                  mpi-requests: whose numbers (tests/mpi/P.h) to expect\n"
	"  --rounds R      the program's ROUNDS (default 10)\n"
	"  --bytes B       the program's BYTES (default 4096)\n"
	"  --root NAME     the routine the MPI routines run under: \".TAU\n"
	"                  application\" (the default, LD_PRELOAD), \"\" for none\n"
	"                  (a program linked with libktau-mpi)\n"
	"  --missing RANK  that rank crashed: it has no file\n"
	"  --kernel        kernel routines must show under MPI routines\n"
	"  --label TEXT    what the PASS/FAIL lines start with (default mpi-check)\n"
	"One line per rank and one for the directory: PASS: or FAIL: with the\n"
	"reason. Exit status 0 when all passed, 1 when not, 2 on bad arguments.\n";

struct options {
	long ranks, rounds, bytes, missing;
	const char *program, *root, *label, *dir;
	bool kernel;
};

/* One check's outcome: the first problem found, or none. */
struct verdict {
	char why[512];
	bool failed;
};

static void __attribute__((format(printf, 2, 3))) reject(struct verdict *v, const char *fmt, ...)
{
	va_list ap;

	if (v->failed)
		return;
	v->failed = true;
	va_start(ap, fmt);
	vsnprintf(v->why, sizeof(v->why), fmt, ap);
	va_end(ap);
}

static int parse_long(const char *arg, long min, long max, long *value)
{
	char *end;

	errno = 0;
	*value = strtol(arg, &end, 10);
	return errno || end == arg || *end || *value < min || *value > max ? -1 : 0;
}

static int parse_options(int argc, char **argv, struct options *o)
{
	int i;

	*o = (struct options){ .ranks = -1, .rounds = MPI_RING_DEFAULT_ROUNDS,
			       .bytes = MPI_RING_DEFAULT_BYTES, .missing = -1,
			       .program = "mpi-ring", .root = ".TAU application",
			       .label = "mpi-check" };
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		long *num = !strcmp(a, "--ranks") ? &o->ranks :
			    !strcmp(a, "--rounds") ? &o->rounds :
			    !strcmp(a, "--bytes") ? &o->bytes :
			    !strcmp(a, "--missing") ? &o->missing : NULL;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage, stdout);
			exit(0);
		} else if (!strcmp(a, "--kernel")) {
			o->kernel = true;
		} else if (num) {
			long max = num == &o->rounds ? 1000000 :
				   num == &o->bytes ? MPI_RING_MAX_BYTES : MAX_RANKS;

			if (!v || parse_long(v, 0, max, num)) {
				fprintf(stderr, "mpi-check: %s needs a number in range, not '%s'\n",
					a, v ? v : "");
				return -1;
			}
			i++;
		} else if (!strcmp(a, "--root") || !strcmp(a, "--label") ||
			   !strcmp(a, "--program")) {
			if (!v) {
				fprintf(stderr, "mpi-check: %s needs a value\n", a);
				return -1;
			}
			*(a[2] == 'r' ? &o->root : a[2] == 'l' ? &o->label : &o->program) = v;
			i++;
		} else if (a[0] == '-' || o->dir) {
			fprintf(stderr, "mpi-check: unexpected argument '%s'\n", a);
			return -1;
		} else {
			o->dir = a;
		}
	}
	if (!o->dir || o->ranks < 1 || o->missing >= o->ranks) {
		fprintf(stderr, "mpi-check: %s\n", !o->dir ? "no directory given" :
			o->ranks < 1 ? "--ranks N (N >= 1) is required" :
				       "--missing names a rank beyond --ranks");
		return -1;
	}
	return 0;
}

/* "<root> => MPI_X()", or "MPI_X()" without a root. */
static void callpath(const struct options *o, const char *routine, char *buf, size_t size)
{
	if (*o->root)
		snprintf(buf, size, "%s => %s()", o->root, routine);
	else
		snprintf(buf, size, "%s()", routine);
}

/* What a program does, per rank: its routines' calls and its events. */
struct call_want {
	const char *routine;
	long min, max;
};

struct event_want {
	const char *event, *routine;	/* charged to routine's callpath */
	long count;
	double bytes;			/* of each sample */
};

#define MAX_WANTS 64

struct wants {
	struct call_want calls[MAX_WANTS];
	struct event_want events[MAX_WANTS];
	size_t nr_calls, nr_events;
};

/* The tables of tests/mpi/<program>.h; -1 for an unknown program. */
static int program_wants(const struct options *o, struct wants *w)
{
	memset(w, 0, sizeof(*w));
#define CALL(routine, fewest, most)					\
	w->calls[w->nr_calls++] = (struct call_want){ routine, (fewest), (most) };
#define RING_CALL(routine, n) CALL(routine, n, n)
#define EVENT(event, routine, count, each)				\
	w->events[w->nr_events++] = (struct event_want){ event, routine, (count), (each) };
	if (!strcmp(o->program, "mpi-ring")) {
		MPI_RING_CALLS(RING_CALL, o->rounds)
		MPI_RING_EVENTS(EVENT, o->rounds, o->bytes)
	} else if (!strcmp(o->program, "mpi-requests")) {
		MPI_REQUESTS_CALLS(CALL, o->rounds)
		MPI_REQUESTS_EVENTS(EVENT, o->rounds, o->bytes, o->ranks)
	} else {
		return -1;
	}
#undef CALL
#undef RING_CALL
#undef EVENT
	return 0;
}

static void check_calls(const struct tau_profile *p, const struct wants *w,
			struct verdict *v, int *routines)
{
	size_t i, expected = 0, seen = 0;
	char name[256];

	for (i = 0; i < w->nr_calls; i++) {
		const struct call_want *c = &w->calls[i];
		const struct tau_entry *e;

		snprintf(name, sizeof(name), "%s()", c->routine);
		e = tau_find(p, name);
		expected += c->max != 0;
		if (!c->max && e)
			reject(v, "%s has an entry, it was never called", name);
		else if (c->max && !e)
			reject(v, "no entry %s", name);
		else if (e && (e->calls < (uint64_t)c->min || e->calls > (uint64_t)c->max))
			reject(v, "%s calls %llu, expected %ld (at most %ld)", name,
			       (unsigned long long)e->calls, c->min, c->max);
		else if (e && strcmp(e->group, "MPI"))
			reject(v, "%s group '%s', expected MPI", name, e->group);
	}
	/* nothing else of the MPI was timed: the library's own calls are PMPI_ */
	for (i = 0; i < p->nr_entries; i++)
		if (!strncmp(p->entries[i].name, "MPI_", 4) && !strstr(p->entries[i].name, "=>"))
			seen++;
	if (seen != expected)
		reject(v, "%zu flat MPI_ routines, expected %zu", seen, expected);
	*routines = (int)seen;
}

/* What an event should hold: samples, their sum, sum of squares, range. */
struct event_sum {
	long count;
	double sum, sumsq, min, max;
};

static void add_samples(struct event_sum *s, long count, double bytes)
{
	if (!count)
		return;
	s->min = s->count && s->min < bytes ? s->min : bytes;
	s->max = s->count && s->max > bytes ? s->max : bytes;
	s->count += count;
	s->sum += (double)count * bytes;
	s->sumsq += (double)count * bytes * bytes;
}

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fabs(b);
}

/* Event `name` holds exactly s (or has no entry when s has no samples). */
static void check_event(const struct tau_profile *p, const char *name,
			const struct event_sum *s, struct verdict *v)
{
	const struct tau_event *e = tau_find_event(p, name);

	if (!s->count) {
		if (e)
			reject(v, "event '%s' has %llu samples, expected none", name,
			       (unsigned long long)e->count);
		return;
	}
	if (!e)
		reject(v, "no event '%s'", name);
	else if (e->count != (uint64_t)s->count)
		reject(v, "event '%s': %llu samples, expected %ld", name,
		       (unsigned long long)e->count, s->count);
	else if (e->min != s->min || e->max != s->max || !near(e->mean, s->sum / s->count))
		reject(v, "event '%s': min %g max %g mean %g, expected %g %g %g", name,
		       e->min, e->max, e->mean, s->min, s->max, s->sum / s->count);
	else if (!near(e->sumsq, s->sumsq))
		reject(v, "event '%s': sum of squares %.17g, expected %.17g", name, e->sumsq,
		       s->sumsq);
}

static void check_events(const struct tau_profile *p, const struct options *o,
			 const struct wants *w, struct verdict *v, int *events)
{
	struct event_sum flat[MAX_WANTS] = { { 0 } };
	const char *flat_name[MAX_WANTS];
	size_t i, j, nr_flat = 0, expected = 0;
	char path[256], name[512];

	for (i = 0; i < w->nr_events; i++) {
		const struct event_want *e = &w->events[i];
		struct event_sum one = { 0 };

		add_samples(&one, e->count, e->bytes);
		callpath(o, e->routine, path, sizeof(path));
		snprintf(name, sizeof(name), "%s : %s", e->event, path);
		check_event(p, name, &one, v);
		expected += e->count != 0;
		for (j = 0; j < nr_flat && strcmp(flat_name[j], e->event); j++)
			;
		if (j == nr_flat)
			flat_name[nr_flat++] = e->event;
		add_samples(&flat[j], e->count, e->bytes);
	}
	for (j = 0; j < nr_flat; j++) {
		check_event(p, flat_name[j], &flat[j], v);
		expected += flat[j].count != 0;
	}
	if (p->nr_events != expected)
		reject(v, "%zu events, expected %zu", p->nr_events, expected);
	*events = (int)p->nr_events;
}

static void check_metadata(const struct tau_profile *p, const struct options *o, long rank,
			   struct verdict *v)
{
	char buf[512], want[32];
	const char *value;

	snprintf(want, sizeof(want), "%ld", rank);
	value = tau_metadata(p, "MPI Rank", buf, sizeof(buf));
	if (!value || strcmp(value, want))
		reject(v, "metadata MPI Rank '%s', expected %s", value ? value : "(none)", want);
	value = tau_metadata(p, "KTAU node from", buf, sizeof(buf));
	if (!value || strcmp(value, "ktau_profiler_set_node"))
		reject(v, "metadata KTAU node from '%s', expected ktau_profiler_set_node "
		       "(the rank of MPI_Comm_rank)", value ? value : "(none)");
	snprintf(want, sizeof(want), "%ld", o->ranks);
	value = tau_metadata(p, "MPI Size", buf, sizeof(buf));
	if (!value || strcmp(value, want))
		reject(v, "metadata MPI Size '%s', expected %s", value ? value : "(none)", want);
	if (!(value = tau_metadata(p, "MPI Processor Name", buf, sizeof(buf))) || !*value)
		reject(v, "no metadata MPI Processor Name");
	if (!(value = tau_metadata(p, "MPI Library Version", buf, sizeof(buf))) || !*value)
		reject(v, "no metadata MPI Library Version");
}

/* Kernel routines merged under MPI routines: callpaths "<MPI path> =>
 * <kernel routine>" whose leaf is in TAU_KERNEL_MERGE. */
static int kernel_under_mpi(const struct tau_profile *p, const struct options *o,
			    char *example, size_t size)
{
	char prefix[256];
	size_t i, len;
	int n = 0;

	callpath(o, "MPI_", prefix, sizeof(prefix));
	len = strlen(prefix) - 2;	/* up to "MPI_" */
	for (i = 0; i < p->nr_entries; i++) {
		const struct tau_entry *e = &p->entries[i];

		if (strncmp(e->name, prefix, len) || !strstr(e->name + len, "() => ") ||
		    !strstr(e->group, "TAU_KERNEL_MERGE"))
			continue;
		if (!n++)
			snprintf(example, size, "%s", e->name);
	}
	return n;
}

static bool check_rank(const struct options *o, const struct wants *w, long rank)
{
	struct verdict v = { .failed = false };
	char name[64], err[512], example[512] = "";
	struct tau_profile p;
	int routines = 0, events = 0, kernel = 0;

	snprintf(name, sizeof(name), "profile.%ld.0.0", rank);
	if (tau_parse_file(o->dir, name, &p, err, sizeof(err))) {
		printf("FAIL: %s: rank %ld: %s\n", o->label, rank, err);
		return false;
	}
	check_calls(&p, w, &v, &routines);
	check_events(&p, o, w, &v, &events);
	check_metadata(&p, o, rank, &v);
	if (o->kernel && !(kernel = kernel_under_mpi(&p, o, example, sizeof(example))))
		reject(&v, "no kernel routine under an MPI routine");
	tau_free(&p);
	if (v.failed) {
		printf("FAIL: %s: rank %ld: %s\n", o->label, rank, v.why);
		return false;
	}
	printf("PASS: %s: rank %ld: %d MPI routines with their exact calls, %d message-size "
	       "events exact, metadata", o->label, rank, routines, events);
	if (o->kernel)
		printf(", %d kernel callpaths under MPI routines (%s)", kernel, example);
	putchar('\n');
	return true;
}

/* Exactly profile.<rank>.0.<thread> for the ranks that ran, thread 0 of
 * each, and no other file (no temporary file a crash left). */
static bool check_directory(const struct options *o)
{
	struct verdict v = { .failed = false };
	bool *has = calloc((size_t)o->ranks, sizeof(*has));
	struct dirent *d;
	size_t files = 0;
	DIR *dir;
	long r;

	dir = has ? opendir(o->dir) : NULL;
	if (!dir) {
		printf("FAIL: %s: directory %s: %s\n", o->label, o->dir, strerror(errno));
		free(has);
		return false;
	}
	while ((d = readdir(dir))) {
		unsigned int node, thread;
		char again[64];
		int end = 0;

		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		files++;
		if (sscanf(d->d_name, "profile.%u.0.%u%n", &node, &thread, &end) != 2 ||
		    d->d_name[end] ||
		    snprintf(again, sizeof(again), "profile.%u.0.%u", node, thread) < 0 ||
		    strcmp(again, d->d_name)) {
			reject(&v, "unexpected file %s", d->d_name);
			continue;
		}
		if ((long)node >= o->ranks || (long)node == o->missing)
			reject(&v, "%s: no such rank ran", d->d_name);
		else if (thread == 0)
			has[node] = true;
	}
	closedir(dir);
	for (r = 0; r < o->ranks; r++)
		if (r != o->missing && !has[r])
			reject(&v, "no profile.%ld.0.0", r);
	free(has);
	if (v.failed) {
		printf("FAIL: %s: directory: %s\n", o->label, v.why);
		return false;
	}
	printf("PASS: %s: directory: %zu files, profile.<rank>.0.0 for %ld ranks%s\n",
	       o->label, files, o->ranks - (o->missing >= 0), o->missing >= 0 ?
	       ", none for the crashed rank" : "");
	return true;
}

int main(int argc, char **argv)
{
	static struct wants w;
	struct options o;
	bool ok;
	long r;

	if (parse_options(argc, argv, &o)) {
		fputs(usage, stderr);
		return 2;
	}
	if (program_wants(&o, &w)) {
		fprintf(stderr, "mpi-check: unknown program '%s' (mpi-ring or mpi-requests)\n",
			o.program);
		return 2;
	}
	ok = check_directory(&o);
	for (r = 0; r < o.ranks; r++)
		if (r != o.missing)
			ok &= check_rank(&o, &w, r);
	return ok ? 0 : 1;
}
