// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ktau-ctl counters: the kernel's shared counter area checked end to end.
 * The tool registers the named counters for its own thread, makes system
 * calls, and prints each counter as the area has it next to what its own
 * /proc/self/task/TID/ktau says, one machine-readable line a counter.
 */
#define _GNU_SOURCE	/* syscall() */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ktau.h>

#include "ctl-counters.h"
#include "tool.h"

/* The getpid() calls between the two area reads, unless --calls says. */
#define DEFAULT_GETPID_CALLS 1000

struct counter_value {
	uint64_t calls, incl, excl;
};

struct counter {
	const char *name;
	uint32_t id;
	struct counter_value before_loop, area, proc, after;
};

/* What a func record of the /proc profile adds to counter c. */
static bool record_counts(const struct counter *c, const struct ktau_func *f)
{
	static const char group_prefix[] = "group:";

	if (c->id == KTAU_COUNTER_ALL)
		return true;
	if (c->id & KTAU_COUNTER_GROUP)
		return !strcmp(f->group, c->name + strlen(group_prefix));
	return f->fid == c->id;
}

/* Thread tid's own profile, summed per counter as the kernel sums it for
 * the area: every record of the routine, group or all. */
static int read_proc_values(pid_t pid, pid_t tid, struct counter *counters, size_t n,
			    struct ktau_error **err)
{
	const struct ktau_block *b;
	struct ktau_profile *p;
	size_t i, k;

	p = tool_read_profile(NULL, pid, tid, 0, err);
	if (!p)
		return -errno;
	b = ktau_profile_find_block(p, KTAU_BLOCK_THREAD, pid, tid);
	for (k = 0; b && k < ktau_block_func_count(b); k++) {
		const struct ktau_func *f = ktau_block_func(b, k);

		for (i = 0; i < n; i++) {
			if (!record_counts(&counters[i], f))
				continue;
			counters[i].proc.calls += f->calls;
			counters[i].proc.incl += f->incl_cycles;
			counters[i].proc.excl += f->excl_cycles;
		}
	}
	ktau_profile_free(p);
	return b ? 0 : -ESRCH;
}

static void read_area(const struct ktau_thread_counters *area, struct counter *counters,
		      size_t n, size_t which)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct counter_value *v = which == 0 ? &counters[i].before_loop :
					  which == 1 ? &counters[i].area : &counters[i].after;

		ktau_thread_counters_read(area, (unsigned int)i, &v->calls, &v->incl, &v->excl);
	}
}

static bool value_le(const struct counter_value *a, const struct counter_value *b)
{
	return a->calls <= b->calls && a->incl <= b->incl && a->excl <= b->excl;
}

/*
 * "exact": the area as read before the /proc read equals /proc; "bounded":
 * /proc lies between the area before and after its read (the read's own
 * system calls and faults count in a counter that covers them); "no":
 * neither, a kernel bug.
 */
static const char *verdict(const struct counter *c)
{
	if (!memcmp(&c->area, &c->proc, sizeof(c->area)))
		return "exact";
	if (value_le(&c->area, &c->proc) && value_le(&c->proc, &c->after))
		return "bounded";
	return "no";
}

static void print_counter(const struct counter *c)
{
	printf("counter %s id=%#x calls=%llu incl=%llu excl=%llu proc_calls=%llu "
	       "proc_incl=%llu proc_excl=%llu after_calls=%llu after_incl=%llu "
	       "after_excl=%llu loop_calls=%llu check=%s\n",
	       c->name, c->id, (unsigned long long)c->area.calls,
	       (unsigned long long)c->area.incl, (unsigned long long)c->area.excl,
	       (unsigned long long)c->proc.calls, (unsigned long long)c->proc.incl,
	       (unsigned long long)c->proc.excl, (unsigned long long)c->after.calls,
	       (unsigned long long)c->after.incl, (unsigned long long)c->after.excl,
	       (unsigned long long)(c->area.calls - c->before_loop.calls), verdict(c));
}

static int resolve_names(struct counter *counters, char **names, size_t n)
{
	struct ktau_proc *proc;
	struct ktau_error *err;
	size_t i;
	int ret = EXIT_OK;

	proc = ktau_proc_open(NULL, &err);
	if (!proc) {
		fprintf(stderr, "ktau-ctl: %s\n", ktau_error_message(err));
		ktau_error_free(err);
		return EXIT_RUNTIME;
	}
	for (i = 0; i < n && ret == EXIT_OK; i++) {
		counters[i].name = names[i];
		if (ktau_counter_id(proc, names[i], &counters[i].id, &err) == 0)
			continue;
		fprintf(stderr, "ktau-ctl: %s\n", ktau_error_message(err));
		/* a name that names nothing is the caller's mistake; an
		 * unreadable function map is the system's */
		ret = errno == ENOENT || errno == EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
		ktau_error_free(err);
	}
	ktau_proc_close(proc);
	return ret;
}

static int parse_calls(char ***args, int *n, long *calls)
{
	if (*n < 1 || strcmp((*args)[0], "--calls"))
		return 0;
	if (*n < 2 || tool_parse_uint((*args)[1], 0, calls)) {
		tool_usage_error("--calls takes a number, not '%s'", *n < 2 ? "" : (*args)[1]);
		return -1;
	}
	*args += 2;
	*n -= 2;
	return 0;
}

int ctl_counters(char **args, int n)
{
	struct counter counters[KTAU_COUNTERS_MAX] = { 0 };
	uint32_t ids[KTAU_COUNTERS_MAX];
	struct ktau_thread_counters *area;
	struct ktau_error *err;
	uint64_t faults = 0;
	long calls = DEFAULT_GETPID_CALLS, i;
	pid_t pid, tid;
	int ret, failed = 0;

	if (parse_calls(&args, &n, &calls))
		return EXIT_USAGE;
	if (n < 1 || n > KTAU_COUNTERS_MAX) {
		tool_usage_error("counters takes 1 to 16 names, e.g. 'getpid group:syscall all'%s",
				 "");
		return EXIT_USAGE;
	}
	ret = resolve_names(counters, args, (size_t)n);
	if (ret != EXIT_OK)
		return ret;
	for (i = 0; i < n; i++)
		ids[i] = counters[i].id;
	area = ktau_thread_counters_register(ids, (unsigned int)n);
	if (!area) {
		if (errno == ENODEV)
			fprintf(stderr, "ktau-ctl: this kernel has no shared counter area "
				"(prctl(PR_KTAU_SET_COUNTERS) refused: not a ktau kernel, or "
				"one without it)\n");
		else
			fprintf(stderr, "ktau-ctl: cannot register the counters: %s\n",
				strerror(errno));
		return EXIT_RUNTIME;
	}
	/* asked before the area's first read: between it and the profile's
	 * read, no system call but the loop's and the read's own */
	pid = getpid();
	tid = (pid_t)syscall(SYS_gettid);
	read_area(area, counters, (size_t)n, 0);
	for (i = 0; i < calls; i++)
		syscall(SYS_getpid);
	read_area(area, counters, (size_t)n, 1);
	ret = read_proc_values(pid, tid, counters, (size_t)n, &err);
	read_area(area, counters, (size_t)n, 2);
	if (ret) {
		fprintf(stderr, "ktau-ctl: cannot read this thread's profile: %s\n",
			ktau_error_message(err));
		ktau_error_free(err);
		ktau_thread_counters_unregister(area);
		return EXIT_RUNTIME;
	}
	ktau_thread_counters_faults(area, &faults);
	printf("counters tid=%ld seq=%llu faults=%llu getpid_calls=%ld\n", (long)tid,
	       (unsigned long long)ktau_thread_counters_seq(area),
	       (unsigned long long)faults, calls);
	for (i = 0; i < n; i++) {
		print_counter(&counters[i]);
		failed |= !strcmp(verdict(&counters[i]), "no");
	}
	ret = ktau_thread_counters_unregister(area);
	if (ret) {
		fprintf(stderr, "ktau-ctl: cannot unregister the counters: %s\n", strerror(-ret));
		return EXIT_RUNTIME;
	}
	return failed || faults ? EXIT_MISMATCH : EXIT_OK;
}
