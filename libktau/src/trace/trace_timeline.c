// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Per-thread intervals (docs/trace-format.md, "Per-thread intervals").
 *
 * A thread's events may sit in chunks of several CPUs drained at
 * different times, and its user events come after every kernel chunk, so
 * the only order that is sure is the whole thread's: every ENTRY and EXIT
 * is kept (24 bytes each) and each thread's are sorted by TSC, the stream
 * order breaking ties, before they are paired.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace.h"

/* One ENTRY, EXIT or TASK_EXIT of a thread, as kept until the rebuild. */
struct mark {
	uint64_t tsc;
	uint64_t seq;		/* stream order */
	uint32_t id;
	uint8_t type;
	uint8_t origin;
	uint16_t source;
};

/* One ATOMIC of a thread, as kept until the rebuild. */
struct atomic_mark {
	uint64_t tsc;
	uint64_t seq;		/* stream order */
	uint64_t value;
	uint32_t id;
	uint8_t origin;
	uint16_t source;
};

/* The public record first, so a pointer to it is a pointer to this. */
struct thread {
	struct ktau_trace_thread pub;
	struct ktau_trace_slice *slices;
	size_t cap_slices;
	struct mark *marks;
	size_t nr_marks, cap_marks;
	/* the ATOMIC events: collected into amarks, then atomics in time order */
	struct atomic_mark *amarks;
	size_t nr_amarks, cap_amarks;
	struct ktau_trace_atomic *atomics;
	size_t nr_atomics;
	uint64_t comm_tsc;	/* of the TASK or EXEC that named it */
	bool seen, named;
};

struct ktau_trace_timeline {
	struct thread *threads;	/* tid order once built */
	size_t nr_threads, cap_threads;
	struct ktau_u64map by_tid;	/* while collecting */
	uint64_t tsc_khz;
	uint64_t first_tsc;
	bool any;
	struct ktau_strpool strings;
	/* names copied from the trace, once per routine: the timeline
	 * outlives the trace */
	struct ktau_u64map name_index;	/* origin << 48 | source << 32 | id */
	const char **names, **groups;
	size_t nr_names, cap_names, cap_groups;
};

void ktau_trace_timeline_free(struct ktau_trace_timeline *tl)
{
	int saved = errno;
	size_t i;

	if (!tl)
		return;
	for (i = 0; i < tl->nr_threads; i++) {
		free(tl->threads[i].slices);
		free(tl->threads[i].marks);
		free(tl->threads[i].amarks);
		free(tl->threads[i].atomics);
	}
	free(tl->threads);
	ktau__u64map_free(&tl->by_tid);
	ktau__u64map_free(&tl->name_index);
	free(tl->names);
	free(tl->groups);
	ktau__strpool_free(&tl->strings);
	free(tl);
	errno = saved;
}

/* ---- collecting ---- */

static struct thread *thread_of(struct ktau_trace_timeline *tl, uint32_t tid)
{
	uint32_t i = ktau__u64map_get(&tl->by_tid, tid);
	struct thread *th;

	if (i != KTAU_U64MAP_NONE)
		return &tl->threads[i];
	if (tl->nr_threads >= KTAU_U64MAP_NONE - 1 ||
	    ktau__grow((void **)&tl->threads, &tl->cap_threads, tl->nr_threads,
		       sizeof(*tl->threads)) ||
	    ktau__u64map_put(&tl->by_tid, tid, (uint32_t)tl->nr_threads))
		return NULL;
	th = &tl->threads[tl->nr_threads++];
	memset(th, 0, sizeof(*th));
	th->pub.tid = tid;
	th->pub.comm = "";
	return th;
}

static int collect(struct ktau_trace_timeline *tl, const struct ktau_trace_event *ev,
		   uint64_t seq, struct ktau_parse_error *err)
{
	struct thread *th = thread_of(tl, ev->tid);
	struct mark *m;

	if (!th)
		return ktau__fail(err, ENOMEM, 0, "out of memory");
	if (!th->seen) {
		th->pub.first_tsc = th->pub.last_tsc = ev->tsc;
		th->seen = true;
	} else {
		if (ev->tsc < th->pub.first_tsc)
			th->pub.first_tsc = ev->tsc;
		if (ev->tsc > th->pub.last_tsc)
			th->pub.last_tsc = ev->tsc;
	}
	if (!tl->any || ev->tsc < tl->first_tsc)
		tl->first_tsc = ev->tsc;
	tl->any = true;
	switch (ev->type) {
	case KTAU_TRACE_TASK:
	case KTAU_TRACE_EXEC:
		th->pub.pid = ev->data;
		/* the latest name wins, whatever chunk order brought it */
		if (!th->named || ev->tsc >= th->comm_tsc) {
			th->pub.comm = ktau__strpool_add(&tl->strings, ev->comm, strlen(ev->comm));
			if (!th->pub.comm)
				return ktau__fail(err, ENOMEM, 0, "out of memory");
			th->comm_tsc = ev->tsc;
			th->named = true;
		}
		return 0;
	case KTAU_TRACE_ENTRY:
	case KTAU_TRACE_EXIT:
	case KTAU_TRACE_TASK_EXIT:
		break;
	case KTAU_TRACE_ATOMIC:
		if (ktau__grow((void **)&th->amarks, &th->cap_amarks, th->nr_amarks,
			       sizeof(*th->amarks)))
			return ktau__fail(err, ENOMEM, 0, "out of memory");
		th->amarks[th->nr_amarks++] = (struct atomic_mark){
			.tsc = ev->tsc, .seq = seq, .value = ev->value, .id = ev->data,
			.origin = (uint8_t)ev->origin, .source = (uint16_t)ev->source,
		};
		return 0;
	default:
		return 0;
	}
	if (ktau__grow((void **)&th->marks, &th->cap_marks, th->nr_marks, sizeof(*th->marks)))
		return ktau__fail(err, ENOMEM, 0, "out of memory");
	m = &th->marks[th->nr_marks++];
	*m = (struct mark){
		.tsc = ev->tsc, .seq = seq, .id = ev->data, .type = (uint8_t)ev->type,
		.origin = (uint8_t)ev->origin, .source = (uint16_t)ev->source,
	};
	return 0;
}

/* ---- pairing ---- */

static int cmp_mark(const void *a, const void *b)
{
	const struct mark *x = a, *y = b;

	if (x->tsc != y->tsc)
		return x->tsc < y->tsc ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A slice still open, and the order its ENTRY came in. */
struct open_slice {
	const struct mark *entry;
	uint64_t order;
};

/* What one walk over a thread's marks needs. */
struct walk {
	struct thread *th;
	bool emit;		/* false: only count the unmatched exits */
	uint64_t unmatched;	/* the first walk's count */
	uint64_t unmatched_seen;
	struct open_slice *stack;
	size_t depth, cap;
	/* slices' preorder keys, parallel to th->slices */
	uint64_t *order;
	size_t cap_order;
};

static bool same_routine(const struct mark *a, const struct mark *b)
{
	return a->id == b->id && a->origin == b->origin && a->source == b->source;
}

static int emit_slice(struct walk *w, const struct mark *what, uint64_t begin,
		      uint64_t end, unsigned int depth, unsigned int flags, uint64_t order)
{
	struct thread *th = w->th;

	if (!w->emit)
		return 0;
	if (ktau__grow((void **)&th->slices, &th->cap_slices, th->pub.nr_slices,
		       sizeof(*th->slices)) ||
	    ktau__grow((void **)&w->order, &w->cap_order, th->pub.nr_slices, sizeof(*w->order)))
		return -ENOMEM;
	th->slices[th->pub.nr_slices] = (struct ktau_trace_slice){
		.begin = begin, .end = end, .id = what->id, .origin = what->origin,
		.source = what->source, .depth = depth, .flags = flags,
		.parent = KTAU_SLICE_NONE,
	};
	w->order[th->pub.nr_slices++] = order;
	return 0;
}

/* Closes the open slices above stack position keep at tsc, unknown ends. */
static int close_above(struct walk *w, size_t keep, uint64_t tsc)
{
	uint64_t base = w->unmatched - w->unmatched_seen;

	while (w->depth > keep) {
		const struct open_slice *o = &w->stack[--w->depth];
		int ret = emit_slice(w, o->entry, o->entry->tsc, tsc,
				     (unsigned int)(base + w->depth), KTAU_SLICE_END_UNKNOWN,
				     o->order);

		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The thread's routines open before its first event are below everything
 * in the stream; an unmatched EXIT ends the innermost of them. So with U
 * unmatched exits in all, the k-th (from 0) is the slice at depth U-1-k,
 * and an ENTRY made after k of them sits on U-k such slices.
 */
static int walk_marks(struct walk *w)
{
	struct thread *th = w->th;
	uint64_t entries = 0;
	size_t i;
	int ret;

	w->depth = 0;
	w->unmatched_seen = 0;
	for (i = 0; i < th->nr_marks; i++) {
		const struct mark *m = &th->marks[i];
		size_t p;

		if (m->type == KTAU_TRACE_ENTRY) {
			if (ktau__grow((void **)&w->stack, &w->cap, w->depth, sizeof(*w->stack)))
				return -ENOMEM;
			w->stack[w->depth++] = (struct open_slice){ m, w->unmatched + entries++ };
			continue;
		}
		if (m->type == KTAU_TRACE_TASK_EXIT) {
			ret = close_above(w, 0, m->tsc);
			if (ret)
				return ret;
			continue;
		}
		for (p = w->depth; p > 0 && !same_routine(w->stack[p - 1].entry, m); p--)
			;
		if (p) {	/* open at p - 1: what is above it missed its exit */
			const struct open_slice *o;

			ret = close_above(w, p, m->tsc);
			if (ret)
				return ret;
			o = &w->stack[--w->depth];
			ret = emit_slice(w, o->entry, o->entry->tsc, m->tsc,
					 (unsigned int)(w->unmatched - w->unmatched_seen + w->depth),
					 0, o->order);
		} else {	/* started before the stream: below everything open */
			uint64_t depth;

			ret = close_above(w, 0, m->tsc);
			if (ret)
				return ret;
			depth = w->unmatched - 1 - w->unmatched_seen;
			ret = emit_slice(w, m, th->pub.first_tsc, m->tsc, (unsigned int)depth,
					 KTAU_SLICE_BEGIN_UNKNOWN, depth);
			w->unmatched_seen++;
		}
		if (ret)
			return ret;
	}
	return close_above(w, 0, th->pub.last_tsc);
}

/* Sorts the slices by their preorder keys (ENTRY order) and links parents. */
static int order_slices(struct walk *w)
{
	struct thread *th = w->th;
	size_t n = th->pub.nr_slices, i, max_depth = 0;
	struct ktau_trace_slice *sorted;
	size_t *idx, *last_at;

	idx = malloc((n ? n : 1) * sizeof(*idx));
	sorted = malloc((n ? n : 1) * sizeof(*sorted));
	if (!idx || !sorted) {
		free(idx);
		free(sorted);
		return -ENOMEM;
	}
	/* keys are distinct and below n: a counting placement, no sort */
	for (i = 0; i < n; i++) {
		idx[w->order[i]] = i;
		if (th->slices[i].depth > max_depth)
			max_depth = th->slices[i].depth;
	}
	for (i = 0; i < n; i++)
		sorted[i] = th->slices[idx[i]];
	free(th->slices);
	th->slices = sorted;
	th->cap_slices = n;
	free(idx);
	/* in preorder, a slice's parent is the last slice one level up */
	last_at = malloc((max_depth + 1) * sizeof(*last_at));
	if (!last_at)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct ktau_trace_slice *s = &th->slices[i];

		if (s->depth)
			s->parent = last_at[s->depth - 1];
		last_at[s->depth] = i;
	}
	free(last_at);
	return 0;
}

static int rebuild_thread(struct thread *th)
{
	struct walk w = { .th = th };
	int ret;

	if (th->nr_marks)
		qsort(th->marks, th->nr_marks, sizeof(*th->marks), cmp_mark);
	ret = walk_marks(&w);		/* counts the unmatched exits */
	if (!ret) {
		w.unmatched = w.unmatched_seen;
		w.emit = true;
		ret = walk_marks(&w);
	}
	if (!ret)
		ret = order_slices(&w);
	free(w.stack);
	free(w.order);
	free(th->marks);
	th->marks = NULL;
	th->nr_marks = th->cap_marks = 0;
	return ret;
}

/* ---- names ---- */

/* The timeline's copy of a routine's (or an atomic event's) name and group
 * (index into names[]). */
static uint32_t routine_name(struct ktau_trace_timeline *tl, const struct ktau_trace *t,
			     unsigned int origin, unsigned int source, uint32_t id)
{
	uint64_t key = (uint64_t)origin << 48 | (uint64_t)source << 32 | id;
	uint32_t i = ktau__u64map_get(&tl->name_index, key);
	const char *name, *group;
	char buf[32];

	if (i != KTAU_U64MAP_NONE)
		return i;
	name = ktau_trace_name(t, origin, source, id);
	group = ktau_trace_group(t, origin, source, id);
	if (!name) {
		snprintf(buf, sizeof(buf), "%s_%u", origin == KTAU_TRACE_USER ? "user" : "fid",
			 id);
		name = buf;
		group = origin == KTAU_TRACE_USER ? "user" : "unknown";
	}
	if (tl->nr_names >= KTAU_U64MAP_NONE - 1 ||
	    ktau__grow((void **)&tl->names, &tl->cap_names, tl->nr_names, sizeof(*tl->names)) ||
	    ktau__grow((void **)&tl->groups, &tl->cap_groups, tl->nr_names,
		       sizeof(*tl->groups)))
		return KTAU_U64MAP_NONE;
	tl->names[tl->nr_names] = ktau__strpool_add(&tl->strings, name, strlen(name));
	tl->groups[tl->nr_names] = ktau__strpool_add(&tl->strings, group, strlen(group));
	if (!tl->names[tl->nr_names] || !tl->groups[tl->nr_names] ||
	    ktau__u64map_put(&tl->name_index, key, (uint32_t)tl->nr_names))
		return KTAU_U64MAP_NONE;
	return (uint32_t)tl->nr_names++;
}

static int name_slices(struct ktau_trace_timeline *tl, const struct ktau_trace *t,
		       struct thread *th)
{
	size_t i;

	for (i = 0; i < th->pub.nr_slices; i++) {
		struct ktau_trace_slice *s = &th->slices[i];
		uint32_t n = routine_name(tl, t, s->origin, s->source, s->id);

		if (n == KTAU_U64MAP_NONE)
			return -ENOMEM;
		s->name = tl->names[n];
		s->group = tl->groups[n];
	}
	return 0;
}

static int cmp_atomic_mark(const void *a, const void *b)
{
	const struct atomic_mark *x = a, *y = b;

	if (x->tsc != y->tsc)
		return x->tsc < y->tsc ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The thread's ATOMIC events in time order, named. */
static int build_atomics(struct ktau_trace_timeline *tl, const struct ktau_trace *t,
			 struct thread *th)
{
	size_t i;

	if (!th->nr_amarks)
		return 0;
	qsort(th->amarks, th->nr_amarks, sizeof(*th->amarks), cmp_atomic_mark);
	th->atomics = calloc(th->nr_amarks, sizeof(*th->atomics));
	if (!th->atomics)
		return -ENOMEM;
	for (i = 0; i < th->nr_amarks; i++) {
		const struct atomic_mark *m = &th->amarks[i];
		uint32_t n = routine_name(tl, t, m->origin, m->source, m->id);

		if (n == KTAU_U64MAP_NONE)
			return -ENOMEM;
		th->atomics[i] = (struct ktau_trace_atomic){
			.tsc = m->tsc, .value = m->value, .id = m->id, .origin = m->origin,
			.source = m->source, .name = tl->names[n], .group = tl->groups[n],
		};
	}
	th->nr_atomics = th->nr_amarks;
	free(th->amarks);
	th->amarks = NULL;
	th->nr_amarks = th->cap_amarks = 0;
	return 0;
}

static int cmp_thread(const void *a, const void *b)
{
	const struct thread *x = a, *y = b;

	return x->pub.tid < y->pub.tid ? -1 : x->pub.tid > y->pub.tid;
}

struct ktau_trace_timeline *ktau_trace_timeline(struct ktau_trace *t,
						struct ktau_error **err)
{
	struct ktau_trace_timeline *tl;
	const struct ktau_trace_event *ev;
	struct ktau_parse_error pe;
	uint64_t seq = 0;
	size_t i;
	int ret;

	ktau__clear_error(&pe);
	if (!t) {
		errno = -ktau__fail(&pe, EINVAL, 0, "NULL struct ktau_trace");
		return ktau__ret_ptr(NULL, &pe, err);
	}
	tl = calloc(1, sizeof(*tl));
	if (!tl) {
		errno = -ktau__fail(&pe, ENOMEM, 0, "out of memory");
		return ktau__ret_ptr(NULL, &pe, err);
	}
	tl->tsc_khz = ktau_trace_tsc_khz(t);
	while ((ret = ktau__trace_next(t, &ev, &pe)) > 0) {
		ret = collect(tl, ev, seq++, &pe);
		if (ret)
			break;
	}
	ktau__u64map_free(&tl->by_tid);
	for (i = 0; !ret && i < tl->nr_threads; i++) {
		ret = rebuild_thread(&tl->threads[i]);
		if (!ret)
			ret = name_slices(tl, t, &tl->threads[i]);
		if (!ret)
			ret = build_atomics(tl, t, &tl->threads[i]);
		if (ret)
			ktau__fail(&pe, -ret, 0, "out of memory");
	}
	if (ret) {
		ktau_trace_timeline_free(tl);
		errno = -ret;
		return ktau__ret_ptr(NULL, &pe, err);
	}
	if (tl->nr_threads)
		qsort(tl->threads, tl->nr_threads, sizeof(*tl->threads), cmp_thread);
	return ktau__ret_ptr(tl, &pe, err);
}

/* ---- reading it ---- */

uint64_t ktau_trace_timeline_tsc_khz(const struct ktau_trace_timeline *tl)
{
	return tl->tsc_khz;
}

uint64_t ktau_trace_timeline_first_tsc(const struct ktau_trace_timeline *tl)
{
	return tl->first_tsc;
}

size_t ktau_trace_timeline_thread_count(const struct ktau_trace_timeline *tl)
{
	return tl->nr_threads;
}

const struct ktau_trace_thread *ktau_trace_timeline_thread(const struct ktau_trace_timeline *tl,
							   size_t index)
{
	if (index >= tl->nr_threads) {
		errno = ERANGE;
		return NULL;
	}
	return &tl->threads[index].pub;
}

const struct ktau_trace_slice *ktau_trace_thread_slice(const struct ktau_trace_thread *th,
						       size_t index)
{
	const struct thread *t = (const struct thread *)th;

	if (index >= th->nr_slices) {
		errno = ERANGE;
		return NULL;
	}
	return &t->slices[index];
}

size_t ktau_trace_thread_atomic_count(const struct ktau_trace_thread *th)
{
	return ((const struct thread *)th)->nr_atomics;
}

const struct ktau_trace_atomic *ktau_trace_thread_atomic(const struct ktau_trace_thread *th,
							 size_t index)
{
	const struct thread *t = (const struct thread *)th;

	if (index >= t->nr_atomics) {
		errno = ERANGE;
		return NULL;
	}
	return &t->atomics[index];
}
