// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A trace's timeline as an OTF2 archive, through libotf2 (3.0; Debian's
 * libotf2-trace-dev). What maps to what (docs/export-formats.md):
 *   system tree      one node "node"
 *   location group   a process (pid), named "COMM (pid PID)"
 *   location         a thread (tid), named "COMM (tid TID)", CPU_THREAD
 *   region           a routine name, per origin: kernel routines with
 *                    paradigm UNKNOWN and description "kernel GROUP",
 *                    user routines with paradigm USER and "user"
 *   group (REGIONS)  a kernel group ("kernel syscall", ...) or "user", its
 *                    regions as members, for grouping in a viewer
 *   ENTER / LEAVE    a slice's begin and end, in TSC ticks; a slice whose
 *                    ENTRY or EXIT was lost starts or ends where the
 *                    timeline puts it
 *   metric member    an atomic event's name (read_bytes, ...): UINT64,
 *                    ABSOLUTE_POINT, description "kernel event"
 *   metric class     one per member, ASYNCHRONOUS, recorded by threads
 *   METRIC           an atomic event: its value on its thread's location,
 *                    among the ENTER/LEAVE by time (inside the slices
 *                    open at its stamp)
 *   clock            resolution tsc_khz * 1000, offset the first event,
 *                    length up to the last slice end or thread event
 * Lost events have no place of their own: their totals are in the
 * archive's description.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <otf2/otf2.h>

#include <ktau.h>

#include "otf2-writer.h"

/* One region (a routine name of one origin), or one metric (an atomic
 * event's name). */
struct region {
	const char *name;
	const char *group;	/* kernel: the slice's group; user: "user" */
	unsigned int origin;
};

/* Regions by (origin, name), open addressing; slots hold index + 1. */
struct regions {
	struct region *v;
	size_t n, cap;
	size_t *slot;
	size_t nslots;
};

static size_t region_hash(unsigned int origin, const char *name)
{
	size_t h = 2166136261u ^ origin;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	return h;
}

static size_t *region_slot(const struct regions *r, unsigned int origin, const char *name)
{
	size_t i = region_hash(origin, name) & (r->nslots - 1);

	for (;; i = (i + 1) & (r->nslots - 1)) {
		const struct region *g = r->slot[i] ? &r->v[r->slot[i] - 1] : NULL;

		if (!g || (g->origin == origin && !strcmp(g->name, name)))
			return &r->slot[i];
	}
}

/* The entry of (origin, name) (added when new); its index, or -ENOMEM. */
static long name_index(struct regions *r, unsigned int origin, const char *name,
		       const char *group)
{
	size_t *slot;

	if (r->nslots) {
		slot = region_slot(r, origin, name);
		if (*slot)
			return (long)*slot - 1;
	}
	/* a new one: room for it at most half full */
	if ((r->n + 1) * 2 > r->nslots) {
		size_t nslots = r->nslots ? r->nslots * 2 : 64, i;
		size_t *old = r->slot;

		r->slot = calloc(nslots, sizeof(*r->slot));
		if (!r->slot) {
			r->slot = old;
			return -ENOMEM;
		}
		r->nslots = nslots;
		for (i = 0; i < r->n; i++)
			*region_slot(r, r->v[i].origin, r->v[i].name) = i + 1;
		free(old);
	}
	slot = region_slot(r, origin, name);
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 32;
		struct region *v = realloc(r->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->v = v;
		r->cap = cap;
	}
	r->v[r->n] = (struct region){ name, group, origin };
	*slot = ++r->n;
	return (long)r->n - 1;
}

/* The region of s (added when new); its index, or -ENOMEM. */
static long region_of(struct regions *r, const struct ktau_trace_slice *s)
{
	return name_index(r, s->origin, s->name, s->origin == KTAU_TRACE_USER ? "user" : s->group);
}

/* The metric of a (added when new); its index, or -ENOMEM. */
static long metric_of(struct regions *r, const struct ktau_trace_atomic *a)
{
	return name_index(r, a->origin, a->name, a->group);
}

/* What libotf2 said first, for the message (its own printing is off). */
static char otf2_message[512];

static OTF2_ErrorCode on_otf2_error(void *data, const char *file, uint64_t line,
				    const char *function, OTF2_ErrorCode code,
				    const char *fmt, va_list va)
{
	(void)data, (void)file, (void)line, (void)function;
	if (!otf2_message[0]) {
		int n = snprintf(otf2_message, sizeof(otf2_message), "%s: ",
				 OTF2_Error_GetDescription(code));

		if (n > 0 && (size_t)n < sizeof(otf2_message))
			vsnprintf(otf2_message + n, sizeof(otf2_message) - (size_t)n, fmt, va);
	}
	return code;
}

/* Per location, its last time stamp: a buffer flush record may not go back. */
struct flush_times {
	const uint64_t *last;
	size_t n;
};

static OTF2_FlushType pre_flush(void *data, OTF2_FileType type, OTF2_LocationRef loc,
				void *caller, bool final)
{
	(void)data, (void)type, (void)loc, (void)caller, (void)final;
	return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *data, OTF2_FileType type, OTF2_LocationRef loc)
{
	const struct flush_times *ft = data;

	(void)type;
	return loc < ft->n ? ft->last[loc] : 0;
}

/* The writer's state. */
struct otf2_out {
	const struct ktau_trace_timeline *tl;
	OTF2_Archive *archive;
	OTF2_GlobalDefWriter *defs;
	OTF2_StringRef next_string;
	OTF2_StringRef empty;	/* "", once put_regions() wrote it */
	struct regions regions;
	struct regions metrics;	/* the atomic events' names */
	uint32_t *pids;		/* the processes, in order of first thread */
	size_t nr_pids;
	uint64_t *last;		/* per thread: its last event's time stamp */
	struct flush_times flush;
};

static bool otf2_ok(OTF2_ErrorCode code)
{
	return code == OTF2_SUCCESS;
}

static uint32_t thread_pid(const struct ktau_trace_thread *th)
{
	return th->pid ? th->pid : th->tid;
}

/* The location group of a pid, added when new (o->pids has room for
 * one per thread). */
static size_t pid_index(struct otf2_out *o, uint32_t pid)
{
	size_t i;

	for (i = 0; i < o->nr_pids; i++)
		if (o->pids[i] == pid)
			return i;
	o->pids[o->nr_pids] = pid;
	return o->nr_pids++;
}

/* Regions and processes, before any event is written. */
static int collect(struct otf2_out *o)
{
	size_t n = ktau_trace_timeline_thread_count(o->tl), i, j;

	o->pids = calloc(n ? n : 1, sizeof(*o->pids));
	o->last = calloc(n ? n : 1, sizeof(*o->last));
	if (!o->pids || !o->last)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct ktau_trace_thread *th = ktau_trace_timeline_thread(o->tl, i);
		pid_index(o, thread_pid(th));
		for (j = 0; j < th->nr_slices; j++)
			if (region_of(&o->regions, ktau_trace_thread_slice(th, j)) < 0)
				return -ENOMEM;
		for (j = 0; j < ktau_trace_thread_atomic_count(th); j++)
			if (metric_of(&o->metrics, ktau_trace_thread_atomic(th, j)) < 0)
				return -ENOMEM;
	}
	o->flush = (struct flush_times){ o->last, n };
	return 0;
}

/* One event of location loc at tsc (never before the previous one). */
static bool put_event(struct otf2_out *o, OTF2_EvtWriter *w, size_t loc, bool enter,
		      uint64_t tsc, long region)
{
	if (tsc < o->last[loc])
		tsc = o->last[loc];
	o->last[loc] = tsc;
	return otf2_ok(enter ? OTF2_EvtWriter_Enter(w, NULL, tsc, (OTF2_RegionRef)region)
			     : OTF2_EvtWriter_Leave(w, NULL, tsc, (OTF2_RegionRef)region));
}

/* The thread's atomic events from *next on that come before tsc (at tsc
 * too when at_too), as METRIC events. */
static bool put_metrics(struct otf2_out *o, OTF2_EvtWriter *w, size_t loc, size_t *next,
			uint64_t tsc, bool at_too)
{
	const struct ktau_trace_thread *th = ktau_trace_timeline_thread(o->tl, loc);
	size_t n = ktau_trace_thread_atomic_count(th);
	OTF2_Type type = OTF2_TYPE_UINT64;

	for (; *next < n; ++*next) {
		const struct ktau_trace_atomic *a = ktau_trace_thread_atomic(th, *next);
		OTF2_MetricValue value = { .unsigned_int = a->value };
		uint64_t t = a->tsc;

		if (t > tsc || (t == tsc && !at_too))
			break;
		if (t < o->last[loc])
			t = o->last[loc];
		o->last[loc] = t;
		if (!otf2_ok(OTF2_EvtWriter_Metric(w, NULL, t,
						   (OTF2_MetricRef)metric_of(&o->metrics, a), 1,
						   &type, &value)))
			return false;
	}
	return true;
}

/*
 * A thread's ENTER and LEAVE events: the slices come in preorder, so
 * before a slice enters, every open slice that is not its parent leaves
 * (innermost first); at the end the rest leave. Its METRIC events go
 * between them by time.
 */
static int put_location(struct otf2_out *o, size_t loc)
{
	const struct ktau_trace_thread *th = ktau_trace_timeline_thread(o->tl, loc);
	OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(o->archive, loc);
	size_t *stack = malloc((th->nr_slices + 1) * sizeof(*stack));
	size_t top = 0, next = 0, i;
	bool ok = w && stack;
	int ret = stack ? 0 : -ENOMEM;

	o->last[loc] = ktau_trace_timeline_first_tsc(o->tl);
	for (i = 0; ok && i <= th->nr_slices; i++) {
		const struct ktau_trace_slice *s = NULL;
		size_t parent = KTAU_SLICE_NONE;

		if (i < th->nr_slices) {
			s = ktau_trace_thread_slice(th, i);
			parent = s->parent;
		}
		for (; ok && top && stack[top - 1] != parent; top--) {
			const struct ktau_trace_slice *open = ktau_trace_thread_slice(th,
										      stack[top - 1]);

			ok = put_metrics(o, w, loc, &next, open->end, true) &&
			     put_event(o, w, loc, false, open->end, region_of(&o->regions, open));
		}
		if (ok && s) {
			ok = put_metrics(o, w, loc, &next, s->begin, false) &&
			     put_event(o, w, loc, true, s->begin, region_of(&o->regions, s));
			stack[top++] = i;
		}
	}
	if (ok)
		ok = put_metrics(o, w, loc, &next, UINT64_MAX, true);
	free(stack);
	if (w && !otf2_ok(OTF2_Archive_CloseEvtWriter(o->archive, w)))
		ok = false;
	return ok ? 0 : ret ? ret : -EIO;
}

/* A string definition; its reference (OTF2_UNDEFINED_STRING on failure). */
static OTF2_StringRef put_string(struct otf2_out *o, const char *s)
{
	OTF2_StringRef ref = o->next_string;

	if (!otf2_ok(OTF2_GlobalDefWriter_WriteString(o->defs, ref, s)))
		return OTF2_UNDEFINED_STRING;
	o->next_string++;
	return ref;
}

/* "COMM (what ID)", or "what ID" without a comm. */
static OTF2_StringRef put_task_name(struct otf2_out *o, const char *comm, const char *what,
				    uint32_t id)
{
	char buf[128];

	if (comm && comm[0])
		snprintf(buf, sizeof(buf), "%s (%s %u)", comm, what, (unsigned int)id);
	else
		snprintf(buf, sizeof(buf), "%s %u", what, (unsigned int)id);
	return put_string(o, buf);
}

/* A process's name: its main thread's comm, else its first thread's. */
static const char *process_comm(const struct otf2_out *o, uint32_t pid)
{
	const char *comm = NULL;
	size_t i;

	for (i = 0; i < ktau_trace_timeline_thread_count(o->tl); i++) {
		const struct ktau_trace_thread *th = ktau_trace_timeline_thread(o->tl, i);

		if (thread_pid(th) != pid)
			continue;
		if (th->tid == pid)
			return th->comm;
		if (!comm)
			comm = th->comm;
	}
	return comm;
}

static bool put_system(struct otf2_out *o)
{
	OTF2_StringRef node = put_string(o, "node");
	size_t i;

	if (node == OTF2_UNDEFINED_STRING ||
	    !otf2_ok(OTF2_GlobalDefWriter_WriteSystemTreeNode(o->defs, 0, node, node,
							      OTF2_UNDEFINED_SYSTEM_TREE_NODE)))
		return false;
	for (i = 0; i < o->nr_pids; i++) {
		OTF2_StringRef name = put_task_name(o, process_comm(o, o->pids[i]), "pid",
						    o->pids[i]);

		if (name == OTF2_UNDEFINED_STRING ||
		    !otf2_ok(OTF2_GlobalDefWriter_WriteLocationGroup(o->defs, i, name,
				OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
				OTF2_UNDEFINED_LOCATION_GROUP)))
			return false;
	}
	for (i = 0; i < ktau_trace_timeline_thread_count(o->tl); i++) {
		const struct ktau_trace_thread *th = ktau_trace_timeline_thread(o->tl, i);
		OTF2_StringRef name = put_task_name(o, th->comm, "tid", th->tid);

		if (name == OTF2_UNDEFINED_STRING ||
		    !otf2_ok(OTF2_GlobalDefWriter_WriteLocation(o->defs, i, name,
				OTF2_LOCATION_TYPE_CPU_THREAD,
				2 * (uint64_t)th->nr_slices + ktau_trace_thread_atomic_count(th),
				(OTF2_LocationGroupRef)pid_index(o, thread_pid(th)))))
			return false;
	}
	return true;
}

/* "kernel GROUP" or "user". */
static void group_label(const struct region *g, char *buf, size_t size)
{
	if (g->origin == KTAU_TRACE_USER)
		snprintf(buf, size, "user");
	else
		snprintf(buf, size, "kernel %s", g->group);
}

static bool same_group(const struct region *a, const struct region *b)
{
	return a->origin == b->origin &&
	       (a->origin == KTAU_TRACE_USER || !strcmp(a->group, b->group));
}

static OTF2_Paradigm region_paradigm(const struct region *g)
{
	return g->origin == KTAU_TRACE_USER ? OTF2_PARADIGM_USER : OTF2_PARADIGM_UNKNOWN;
}

/* A REGIONS group of the regions from `first` on that share its group,
 * named by its label string. */
static bool put_group(struct otf2_out *o, size_t first, OTF2_GroupRef group,
		      OTF2_StringRef label, uint64_t *members)
{
	const struct regions *r = &o->regions;
	uint32_t n = 0;
	size_t j;

	for (j = first; j < r->n; j++)
		if (same_group(&r->v[first], &r->v[j]))
			members[n++] = j;
	return otf2_ok(OTF2_GlobalDefWriter_WriteGroup(o->defs, group, label,
			OTF2_GROUP_TYPE_REGIONS, region_paradigm(&r->v[first]),
			OTF2_GROUP_FLAG_NONE, n, members));
}

/* The first region of r->v[i]'s group. */
static size_t group_first(const struct regions *r, size_t i)
{
	size_t j;

	for (j = 0; j < i && !same_group(&r->v[j], &r->v[i]); j++)
		;
	return j;
}

/*
 * The regions, described by their group's label ("kernel syscall",
 * "user"); then a REGIONS group per label, for grouping in a viewer, its
 * name the same string.
 */
static bool put_regions(struct otf2_out *o)
{
	const struct regions *r = &o->regions;
	uint64_t *members = malloc((r->n ? r->n : 1) * sizeof(*members));
	OTF2_StringRef *labels = malloc((r->n ? r->n : 1) * sizeof(*labels));
	OTF2_StringRef empty = o->empty = put_string(o, "");
	OTF2_GroupRef groups = 0;
	bool ok = members && labels && empty != OTF2_UNDEFINED_STRING;
	char label[256];
	size_t i;

	for (i = 0; ok && i < r->n; i++) {
		const struct region *g = &r->v[i];
		size_t first = group_first(r, i);
		OTF2_StringRef name = put_string(o, g->name);

		if (first == i) {
			group_label(g, label, sizeof(label));
			labels[i] = put_string(o, label);
		} else {
			labels[i] = labels[first];
		}
		ok = name != OTF2_UNDEFINED_STRING && labels[i] != OTF2_UNDEFINED_STRING &&
		     otf2_ok(OTF2_GlobalDefWriter_WriteRegion(o->defs, i, name, name, labels[i],
				OTF2_REGION_ROLE_FUNCTION, region_paradigm(g),
				OTF2_REGION_FLAG_NONE, empty, 0, 0));
	}
	for (i = 0; ok && i < r->n; i++)
		if (group_first(r, i) == i)
			ok = put_group(o, i, groups++, labels[i], members);
	free(members);
	free(labels);
	return ok;
}

/* A metric member per atomic event name, described by its group's label
 * ("kernel event"), and a metric class of it alone (the same reference):
 * a METRIC event carries one value. */
static bool put_metric_defs(struct otf2_out *o)
{
	const struct regions *m = &o->metrics;
	OTF2_StringRef *labels = malloc((m->n ? m->n : 1) * sizeof(*labels));
	bool ok = labels != NULL;
	char label[256];
	size_t i;

	for (i = 0; ok && i < m->n; i++) {
		OTF2_MetricMemberRef member = (OTF2_MetricMemberRef)i;
		OTF2_StringRef name = put_string(o, m->v[i].name);
		size_t first = group_first(m, i);

		if (first == i) {
			group_label(&m->v[i], label, sizeof(label));
			labels[i] = put_string(o, label);
		} else {
			labels[i] = labels[first];
		}
		ok = name != OTF2_UNDEFINED_STRING && labels[i] != OTF2_UNDEFINED_STRING &&
		     otf2_ok(OTF2_GlobalDefWriter_WriteMetricMember(o->defs, member, name,
				labels[i], OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ABSOLUTE_POINT,
				OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0, o->empty)) &&
		     otf2_ok(OTF2_GlobalDefWriter_WriteMetricClass(o->defs, (OTF2_MetricRef)i, 1,
				&member, OTF2_METRIC_ASYNCHRONOUS, OTF2_RECORDER_KIND_CPU));
	}
	free(labels);
	return ok;
}

/* The clock: offset the first event, length to the latest stamp written. */
static bool put_clock(struct otf2_out *o, const struct otf2_trace_info *info)
{
	uint64_t first = ktau_trace_timeline_first_tsc(o->tl), end = first;
	size_t i;

	for (i = 0; i < o->flush.n; i++) {
		const struct ktau_trace_thread *th = ktau_trace_timeline_thread(o->tl, i);

		if (o->last[i] > end)
			end = o->last[i];
		if (th->last_tsc > end)
			end = th->last_tsc;
	}
	return otf2_ok(OTF2_GlobalDefWriter_WriteClockProperties(o->defs,
			ktau_trace_timeline_tsc_khz(o->tl) * 1000, first, end - first,
			info->realtime_ns ? info->realtime_ns : OTF2_UNDEFINED_TIMESTAMP));
}

/* Every location's (empty) local definitions, then the global ones. */
static bool put_definitions(struct otf2_out *o, const struct otf2_trace_info *info)
{
	size_t i;
	bool ok = otf2_ok(OTF2_Archive_OpenDefFiles(o->archive));

	for (i = 0; ok && i < o->flush.n; i++) {
		OTF2_DefWriter *w = OTF2_Archive_GetDefWriter(o->archive, i);

		ok = w && otf2_ok(OTF2_Archive_CloseDefWriter(o->archive, w));
	}
	ok = ok && otf2_ok(OTF2_Archive_CloseDefFiles(o->archive));
	o->defs = ok ? OTF2_Archive_GetGlobalDefWriter(o->archive) : NULL;
	return o->defs && put_clock(o, info) && put_system(o) && put_regions(o) &&
	       put_metric_defs(o);
}

/* The archive's open and its events; 0 or -errno. */
static int put_archive(struct otf2_out *o, const struct otf2_trace_info *info,
		       const char *dir)
{
	OTF2_FlushCallbacks flush = { pre_flush, post_flush };
	char description[160];
	size_t i;
	int ret = 0;

	o->archive = OTF2_Archive_Open(dir, OTF2_ARCHIVE_NAME, OTF2_FILEMODE_WRITE,
				       1024 * 1024, 4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX,
				       OTF2_COMPRESSION_NONE);
	if (!o->archive)
		return -EIO;
	snprintf(description, sizeof(description), "ktau trace; events lost: %llu kernel, "
		 "%llu user", (unsigned long long)info->lost_kernel,
		 (unsigned long long)info->lost_user);
	if (!otf2_ok(OTF2_Archive_SetFlushCallbacks(o->archive, &flush, &o->flush)) ||
	    !otf2_ok(OTF2_Archive_SetSerialCollectiveCallbacks(o->archive)) ||
	    !otf2_ok(OTF2_Archive_SetCreator(o->archive, info->creator)) ||
	    !otf2_ok(OTF2_Archive_SetDescription(o->archive, description)) ||
	    !otf2_ok(OTF2_Archive_OpenEvtFiles(o->archive)))
		return -EIO;
	for (i = 0; !ret && i < o->flush.n; i++)
		ret = put_location(o, i);
	if (!ret && !otf2_ok(OTF2_Archive_CloseEvtFiles(o->archive)))
		ret = -EIO;
	if (!ret && !put_definitions(o, info))
		ret = -EIO;
	return ret;
}

int otf2_write_timeline(const struct ktau_trace_timeline *tl,
			const struct otf2_trace_info *info, const char *dir,
			char *msg, size_t msg_size)
{
	struct otf2_out o = { .tl = tl };
	char anchor[4200];
	struct stat st;
	int ret;

	otf2_message[0] = '\0';
	OTF2_Error_RegisterCallback(on_otf2_error, NULL);
	snprintf(anchor, sizeof(anchor), "%s/%s.otf2", dir, OTF2_ARCHIVE_NAME);
	if (!stat(anchor, &st)) {
		snprintf(msg, msg_size, "%s already holds an OTF2 archive", dir);
		return -EEXIST;
	}
	ret = collect(&o);
	if (!ret)
		ret = put_archive(&o, info, dir);
	if (o.archive && !otf2_ok(OTF2_Archive_Close(o.archive)) && !ret)
		ret = -EIO;
	if (ret == -ENOMEM)
		snprintf(msg, msg_size, "%s", strerror(ENOMEM));
	else if (ret)
		snprintf(msg, msg_size, "%s", otf2_message[0] ? otf2_message
							      : "libotf2 failed");
	free(o.regions.v);
	free(o.regions.slot);
	free(o.metrics.v);
	free(o.metrics.slot);
	free(o.pids);
	free(o.last);
	return ret;
}
