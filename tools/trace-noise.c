// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * "Kernel noise" per thread, from a trace: interrupts, softirqs and
 * involuntary switches that took the CPU while the thread ran its own
 * code. Such a slice has no kernel slice around it (user routines may
 * be): inside a system call or a fault the thread was in the kernel
 * already. Nested interruptions (an irq inside a softirq) are part of
 * the outermost one and count once, with it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <ktau.h>

#include "tool.h"
#include "trace-noise.h"

/* power-of-two buckets of microseconds: [0,1), [1,2), [2,4), ... */
#define NR_BUCKETS 40

/* What kinds of interruption a slice may be, in the report's order. */
static const char *const kinds[] = { "irq", "softirq", "schedule_invol" };
#define NR_KINDS (sizeof(kinds) / sizeof(kinds[0]))

struct noise {
	uint64_t count[NR_KINDS];
	double total[NR_KINDS], max[NR_KINDS];
	uint64_t buckets[NR_BUCKETS];
};

/* The kind index of an interrupting slice, or -1. */
static int interruption_kind(const struct ktau_trace_slice *s)
{
	if (s->origin != KTAU_TRACE_KERNEL)
		return -1;
	if (!strcmp(s->group, "irq"))
		return 0;
	if (!strcmp(s->group, "softirq"))
		return 1;
	if (!strcmp(s->group, "sched") && !strcmp(s->name, "schedule_invol"))
		return 2;
	return -1;
}

static bool in_kernel(const struct ktau_trace_thread *th, const struct ktau_trace_slice *s)
{
	while (s->parent != KTAU_SLICE_NONE) {
		s = ktau_trace_thread_slice(th, s->parent);
		if (s->origin == KTAU_TRACE_KERNEL)
			return true;
	}
	return false;
}

static unsigned int bucket_of(double usec)
{
	unsigned int b = 0;

	while (b + 1 < NR_BUCKETS && usec >= (double)(UINT64_C(1) << b))
		b++;
	return b;
}

static void measure(const struct ktau_trace_thread *th, uint64_t khz, struct noise *n)
{
	size_t i;

	memset(n, 0, sizeof(*n));
	for (i = 0; i < th->nr_slices; i++) {
		const struct ktau_trace_slice *s = ktau_trace_thread_slice(th, i);
		int k = interruption_kind(s);
		double usec;

		if (k < 0 || in_kernel(th, s))
			continue;
		usec = ktau_cycles_to_usec(s->end - s->begin, khz);
		n->count[k]++;
		n->total[k] += usec;
		if (usec > n->max[k])
			n->max[k] = usec;
		n->buckets[bucket_of(usec)]++;
	}
}

static void print_thread(FILE *out, const struct ktau_trace_thread *th, const struct noise *n)
{
	uint64_t count = 0;
	double total = 0, max = 0;
	unsigned int k, b;

	for (k = 0; k < NR_KINDS; k++) {
		count += n->count[k];
		total += n->total[k];
		if (n->max[k] > max)
			max = n->max[k];
	}
	fprintf(out, "\n# thread %u (%s), process %u: %llu interruption%s, %.3f usec, "
		"max %.3f usec\n", th->tid, th->comm[0] ? th->comm : "?", th->pid,
		(unsigned long long)count, count == 1 ? "" : "s", total, max);
	if (!count)
		return;
	fprintf(out, "%-16s %10s %14s %12s\n", "interruption", "count", "total_usec",
		"max_usec");
	for (k = 0; k < NR_KINDS; k++)
		if (n->count[k])
			fprintf(out, "%-16s %10llu %14.3f %12.3f\n", kinds[k],
				(unsigned long long)n->count[k], n->total[k], n->max[k]);
	fprintf(out, "%-16s %10s\n", "length_usec", "count");
	for (b = 0; b < NR_BUCKETS; b++) {
		char range[48];

		if (!n->buckets[b])
			continue;
		if (!b)
			snprintf(range, sizeof(range), "[0,1)");
		else
			snprintf(range, sizeof(range), "[%llu,%llu)",
				 (unsigned long long)(UINT64_C(1) << (b - 1)),
				 (unsigned long long)(UINT64_C(1) << b));
		fprintf(out, "%-16s %10llu\n", range, (unsigned long long)n->buckets[b]);
	}
}

int print_noise(FILE *out, const char *path)
{
	KTAU_OPTS(ktau_load_opts, lo, .path = path);
	struct ktau_trace_timeline *tl;
	struct ktau_error *err;
	struct ktau_trace *t;
	uint64_t khz;
	size_t i;

	t = ktau_trace_open(&lo, &err);
	tl = t ? ktau_trace_timeline(t, &err) : NULL;
	ktau_trace_close(t);
	if (!tl) {
		fprintf(stderr, "ktau-report: %s: %s\n", path, ktau_error_message(err));
		ktau_error_free(err);
		return EXIT_RUNTIME;
	}
	khz = ktau_trace_timeline_tsc_khz(tl);
	if (!khz || !ktau_trace_timeline_thread_count(tl)) {
		fprintf(stderr, "ktau-report: %s: %s\n", path, khz ? "the trace has no events"
			: "the trace has no tsc_khz: its time stamps cannot be converted");
		ktau_trace_timeline_free(tl);
		return EXIT_RUNTIME;
	}
	fprintf(out, "# ktau-report --noise: %s: interrupts, softirqs and involuntary "
		"switches while each thread ran in user mode\n", path);
	for (i = 0; i < ktau_trace_timeline_thread_count(tl); i++) {
		const struct ktau_trace_thread *th = ktau_trace_timeline_thread(tl, i);
		struct noise n;

		measure(th, khz, &n);
		print_thread(out, th, &n);
	}
	ktau_trace_timeline_free(tl);
	return EXIT_OK;
}
