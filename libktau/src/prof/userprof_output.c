// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The profiler's threads as a model (each merged with its kernel profile)
 * and as a TAU profile directory: profile.<node>.0.<thread>, node the MPI
 * rank the program (ktau_profiler_set_node) or else the launcher gave,
 * threads numbered from 0 with the main thread first, so TAU's tools see
 * no gap. Each file is written whole or not at all (tmp + rename), so
 * ranks sharing a directory never see each other's half files.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "prof/prof.h"

/*
 * The node number: the program's (ktau_profiler_set_node), else the
 * launcher's MPI rank, else 0.
 */
static unsigned int node_number(const char **source)
{
	unsigned int node;

	if (ktau__profiler_node(&node)) {
		*source = "ktau_profiler_set_node";
		return node;
	}
	if (ktau_launcher_rank(&node, source)) {
		*source = "none";
		return 0;
	}
	return node;
}

/* One thread's data, gathered under the registry lock. */
struct gathered {
	const struct ktau_uthread *s;
	struct ktau_ut_sample *nodes;
	size_t count;
	bool own_nodes;
	struct ktau_ue_sample *events;
	size_t nr_events;
	uint64_t events_dropped;
	struct ktau_profile *kernel;
	bool own_kernel;
	int kernel_error;
	uint64_t dropped;
};

static void gathered_free(struct gathered *g, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (g[i].own_nodes) {
			free(g[i].nodes);
			free(g[i].events);
		}
		if (g[i].own_kernel)
			ktau_profile_free(g[i].kernel);
	}
	free(g);
}

static int gather_one(const struct ktau_uthread *s, uint64_t now, struct gathered *g)
{
	g->s = s;
	g->kernel_error = s->kernel_error;
	if (s->finished) {
		g->nodes = s->final;
		g->count = s->nr_final;
		g->events = s->final_events;
		g->nr_events = s->nr_final_events;
		g->kernel = s->kernel_final;
		return 0;
	}
	g->nodes = ktau__ut_snapshot(&s->tree, now, &g->count);
	if (!g->nodes)
		return -ENOMEM;
	g->own_nodes = true;
	g->events = ktau__ue_snapshot(&s->events, &g->nr_events);
	if (!g->events)
		return -ENOMEM;
	g->dropped = s->tree.dropped;
	g->events_dropped = s->events.dropped;
	if (s->kernel_registered) {
		g->kernel = ktau__ut_read_kernel(s->tid);
		g->own_kernel = g->kernel != NULL;
		if (!g->kernel) {
			g->kernel_error = -errno;
			ktau__warn_once(KTAU_WARN_KERNEL_READ,
					"could not read the kernel profile of thread %d: %s",
					(int)s->tid, ktau_strerror(errno));
		}
	}
	return 0;
}

/* Every thread, the main thread first; NULL with errno. */
static struct gathered *gather(const struct ktau_uthread *threads, size_t *count)
{
	const struct ktau_uthread *s;
	struct gathered *g;
	uint64_t now = ktau__cycles();
	size_t n = 0, i = 0;
	pid_t pid = getpid();
	int pass, ret = 0;

	for (s = threads; s; s = s->next)
		n++;
	g = calloc(n ? n : 1, sizeof(*g));
	if (!g) {
		errno = ENOMEM;
		return NULL;
	}
	for (pass = 0; pass < 2 && !ret; pass++)
		for (s = threads; s && !ret; s = s->next)
			if ((s->tid == pid) == (pass == 0))
				ret = gather_one(s, now, &g[i++]);
	if (ret) {
		gathered_free(g, i);
		errno = -ret;
		return NULL;
	}
	*count = n;
	return g;
}

/* ---- the clock rate ---- */

static double seconds_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/*
 * The TSC rate over the whole run, when no kernel profile says it: the
 * cycles and the monotonic time since the profiler started (at least
 * 10 ms of them, so that the estimate is good to a few parts in 10^5).
 */
static uint64_t measured_khz(const struct ktau_process_info *info)
{
	struct timespec now, pause = { 0, 10 * 1000 * 1000 };
	uint64_t cycles;
	double secs;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (seconds_between(&info->start_mono, &now) < 0.01)
		nanosleep(&pause, NULL);
	cycles = ktau__cycles_at(CLOCK_MONOTONIC, &now);
	secs = seconds_between(&info->start_mono, &now);
	return (uint64_t)((double)(cycles - info->start_cycles) / secs / 1000.0 + 0.5);
}

/* "yes", "no" or "unknown": whether the TSC ticks at a constant rate. */
static const char *constant_tsc(void)
{
	char *text = ktau__read_path_all("/proc/cpuinfo", NULL);
	const char *answer = "unknown", *flags;

	if (!text)
		return answer;
	flags = strstr(text, "\nflags");
	if (flags) {
		const char *eol = strchr(flags + 1, '\n');
		const char *hit = strstr(flags, " constant_tsc");

		answer = hit && (!eol || hit < eol) ? "yes" : "no";
	}
	free(text);
	return answer;
}

/* ---- metadata ---- */

struct run_facts {
	unsigned int node;
	const char *node_source;
	uint64_t khz;
	const char *khz_source;
	const char *constant_tsc;
	struct utsname uts;
	char *cmdline;
	char exe[PATH_MAX];
	char start_us[32];
	char start_iso[32];
};

static char *command_line(void)
{
	size_t len = 0, i;
	char *text = ktau__read_path_all("/proc/self/cmdline", &len);

	if (!text)
		return strdup("");
	for (i = 0; i + 1 < len; i++)
		if (!text[i])
			text[i] = ' ';
	return text;
}

static void run_facts_init(struct run_facts *f, const struct ktau_process_info *info,
			   const struct gathered *g, size_t n)
{
	struct tm tm;
	ssize_t len;
	size_t i;

	memset(f, 0, sizeof(*f));
	f->node = node_number(&f->node_source);
	for (i = 0; i < n && !f->khz; i++)
		if (g[i].kernel)
			f->khz = ktau_profile_tsc_khz(g[i].kernel);
	f->khz_source = f->khz ? "kernel" : "measured";
	if (!f->khz)
		f->khz = measured_khz(info);
	f->constant_tsc = constant_tsc();
	if (uname(&f->uts))
		memset(&f->uts, 0, sizeof(f->uts));
	f->cmdline = command_line();
	len = readlink("/proc/self/exe", f->exe, sizeof(f->exe) - 1);
	f->exe[len > 0 ? len : 0] = '\0';
	snprintf(f->start_us, sizeof(f->start_us), "%" PRId64,
		 (int64_t)info->start_real.tv_sec * 1000000 + info->start_real.tv_nsec / 1000);
	gmtime_r(&info->start_real.tv_sec, &tm);
	strftime(f->start_iso, sizeof(f->start_iso), "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int add_program_metadata(void *arg, const char *name, const char *value)
{
	return ktau_model_add_metadata(arg, name, value);
}

static int add_metadata(struct ktau_model_thread *t, const struct run_facts *f,
			const struct gathered *g, const struct ktau_merge_stats *st)
{
	char num[9][24], merged[160];
	const struct ktau_block *b = NULL;
	size_t i;
	int ret = 0;

	if (g->kernel)
		b = ktau_profile_block(g->kernel, 0);
	if (b)
		snprintf(merged, sizeof(merged), "yes");
	else
		snprintf(merged, sizeof(merged), "no: %s", g->kernel_error ?
			 ktau_strerror(g->kernel_error) : "no kernel profile");
	snprintf(num[0], sizeof(num[0]), "%d", (int)getpid());
	snprintf(num[1], sizeof(num[1]), "%d", (int)g->s->tid);
	snprintf(num[2], sizeof(num[2]), "%" PRIu64, f->khz);
	snprintf(num[3], sizeof(num[3]), "%" PRIu64, b ? ktau_block_dropped(b) : 0);
	snprintf(num[4], sizeof(num[4]), "%" PRIu64, g->dropped);
	snprintf(num[5], sizeof(num[5]), "%" PRIu64, st->unknown_ctx_records);
	snprintf(num[6], sizeof(num[6]), "%" PRIu64, st->clamped_nodes);
	snprintf(num[7], sizeof(num[7]), "%u", f->node);
	snprintf(num[8], sizeof(num[8]), "%" PRIu64, g->events_dropped);
	{
		const char *md[][2] = {
			{ "Hostname", f->uts.nodename },
			{ "OS Name", f->uts.sysname },
			{ "OS Release", f->uts.release },
			{ "OS Version", f->uts.version },
			{ "OS Machine", f->uts.machine },
			{ "Executable", f->exe },
			{ "Command Line", f->cmdline },
			{ "Starting Timestamp", f->start_us },
			{ "Start Time", f->start_iso },
			{ "KTAU pid", num[0] },
			{ "KTAU tid", num[1] },
			{ "KTAU node", num[7] },
			{ "KTAU node from", f->node_source },
			{ "KTAU tsc_khz", num[2] },
			{ "KTAU tsc_khz from", f->khz_source },
			{ "KTAU constant_tsc", f->constant_tsc },
			{ "KTAU kernel merged", merged },
			{ "KTAU dropped", num[3] },
			{ "KTAU user frames dropped", num[4] },
			{ "KTAU unknown context records", num[5] },
			{ "KTAU clamped routines", num[6] },
			{ "KTAU user events dropped", num[8] },
		};

		for (i = 0; i < KTAU_ARRAY_SIZE(md) && !ret; i++)
			ret = ktau_model_add_metadata(t, md[i][0], md[i][1]);
	}
	/* the program's own (ktau_metadata_set), after the profiler's */
	return ret ? ret : ktau__metadata_each(add_program_metadata, t);
}

/* ---- the model ---- */

static const char *registry_name(void *arg, uint32_t timer, const char **group)
{
	const struct ktau_timer *t = ktau__timer_by_id(timer);

	(void)arg;
	*group = t ? t->group : NULL;
	return t ? t->name : NULL;
}

static const char *registry_event(void *arg, uint32_t event)
{
	(void)arg;
	return ktau__user_event_name(event);
}

static int add_thread(struct ktau_model *m, const struct run_facts *f,
		      const struct gathered *g, unsigned int number)
{
	static const struct ktau_timer_names names = { registry_name, NULL, registry_event };
	struct ktau_merge_stats st = { 0 };
	const struct ktau_block *b = NULL;
	struct ktau_model_thread *t;
	char label[64];
	int ret;

	snprintf(label, sizeof(label), "pid %d tid %d", (int)getpid(), (int)g->s->tid);
	t = ktau_model_add_thread(m, f->node, 0, number, label);
	if (!t)
		return -errno;
	if (g->kernel) {
		b = ktau_profile_find_block(g->kernel, KTAU_BLOCK_THREAD, getpid(), g->s->tid);
		if (!b)
			b = ktau_profile_block(g->kernel, 0);
	}
	ret = ktau__merge_thread(t, g->nodes, g->count, &names, b, f->khz, &st);
	if (!ret)
		ret = ktau__merge_events(t, g->nodes, g->count, &names, g->events,
					 g->nr_events);
	return ret ? ret : add_metadata(t, f, g, &st);
}

struct ktau_model *ktau_profiler_model(void)
{
	struct ktau_process_info info;
	const struct ktau_uthread *threads;
	struct ktau_model *m = NULL;
	struct gathered *g;
	struct run_facts f;
	size_t n = 0, i;
	uint32_t word;
	int ret = 0;

	if (ktau__profiler_error() == -ECHILD) {
		errno = ECHILD;
		return NULL;
	}
	/* our own reads of /proc are no user routine's doing */
	word = ktau__context_word_set(0);
	threads = ktau__threads_lock(&info);
	g = gather(threads, &n);
	if (!g) {
		ret = -errno;
		goto out;
	}
	run_facts_init(&f, &info, g, n);
	m = ktau_model_new();
	for (i = 0; m && i < n && !ret; i++)
		ret = add_thread(m, &f, &g[i], (unsigned int)i);
	if (!m)
		ret = -ENOMEM;
	free(f.cmdline);
	gathered_free(g, n);
out:
	ktau__threads_unlock();
	ktau__context_word_set(word);
	if (ret) {
		ktau_model_free(m);
		errno = -ret;
		return NULL;
	}
	return m;
}

int ktau_profiler_write(const char *dir)
{
	struct ktau_model *m;
	int ret;

	if (!dir || !*dir)
		dir = getenv("KTAU_PROFILE_DIR");
	if (!dir || !*dir)
		dir = ".";
	m = ktau_profiler_model();
	if (!m)
		return -errno;
	ret = ktau_model_write_tau(m, dir);
	ktau_model_free(m);
	return ret;
}
