// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ktau-papi-check: libktau-papi's events read through PAPI, end to end,
 * on a ktau kernel. It reads its own thread's profile
 * (/proc/self/task/TID/ktau), starts a PAPI event set of ktau:: events,
 * makes N getpid() calls, reads the events, reads its profile again, and
 * checks that PAPI counted exactly the N system calls and, for every
 * event, no more than the profile grew by. One PASS:/FAIL: line a check;
 * exit 0 when all pass, 1 when one fails, 2 when it cannot run (no ktau
 * kernel, PAPI without the events).
 *
 *   ktau-papi-check [N]        (N: 1000)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <papi.h>

#include <ktau.h>

/* The events checked, and what of the thread's profile each counts: a
 * group's records (NULL: every record) and their calls or exclusive
 * cycles. */
static const struct checked_event {
	const char *name;
	const char *group;
	int calls;
} events[] = {
	{ "sde:::ktau::syscall_calls", "syscall", 1 },
	{ "sde:::ktau::syscall_cycles", "syscall", 0 },
	{ "sde:::ktau::exception_calls", "exception", 1 },
	{ "sde:::ktau::sched_calls", "sched", 1 },
	{ "sde:::ktau::irq_cycles", "irq", 0 },
	{ "sde:::ktau::softirq_cycles", "softirq", 0 },
	{ "sde:::ktau::kernel_calls", NULL, 1 },
	{ "sde:::ktau::kernel_cycles", NULL, 0 },
};
#define NR_EVENTS (sizeof(events) / sizeof(events[0]))

static int failed;

static void check(int ok, const char *what, const char *detail)
{
	if (ok) {
		printf("PASS: ktau-papi: %s\n", what);
	} else {
		printf("FAIL: ktau-papi: %s: %s\n", what, detail);
		failed = 1;
	}
}

/* Each event's sum over the thread's own profile; 0, or -1 with a FAIL. */
static int read_profile(struct ktau_proc *proc, long long sums[NR_EVENTS])
{
	KTAU_OPTS(ktau_read_opts, opts, .pid = getpid(), .tid = (pid_t)syscall(SYS_gettid));
	const struct ktau_block *b;
	struct ktau_profile *p;
	struct ktau_error *err;
	size_t i, k;

	p = ktau_proc_read_profile(proc, &opts, &err);
	if (!p) {
		printf("FAIL: ktau-papi: this thread's profile: %s\n", ktau_error_message(err));
		ktau_error_free(err);
		return -1;
	}
	b = ktau_profile_find_block(p, KTAU_BLOCK_THREAD, opts.pid, opts.tid);
	memset(sums, 0, NR_EVENTS * sizeof(*sums));
	for (k = 0; b && k < ktau_block_func_count(b); k++) {
		const struct ktau_func *f = ktau_block_func(b, k);

		for (i = 0; i < NR_EVENTS; i++) {
			if (events[i].group && strcmp(events[i].group, f->group))
				continue;
			sums[i] += (long long)(events[i].calls ? f->calls : f->excl_cycles);
		}
	}
	ktau_profile_free(p);
	return 0;
}

static void *try_area(void *arg)
{
	uint32_t all = KTAU_COUNTER_ALL;
	struct ktau_thread_counters *c = ktau_thread_counters_register(&all, 1);

	*(int *)arg = c ? 0 : errno;
	if (c)
		ktau_thread_counters_unregister(c);
	return NULL;
}

/* Whether the kernel takes a counter area, asked on a thread of its own
 * (one area a thread: this one's is libktau-papi's to register). */
static int have_area(void)
{
	pthread_t thread;
	int error = EAGAIN;

	if (pthread_create(&thread, NULL, try_area, &error) || pthread_join(thread, NULL))
		return -1;
	if (error) {
		printf("FAIL: ktau-papi: %s\n", error == ENODEV ?
		       "this kernel has no ktau shared counter area (not a ktau kernel, or "
		       "one without it): the ktau:: events would read 0" : strerror(error));
		return -1;
	}
	return 0;
}

static int setup_papi(int *set)
{
	size_t i;
	int ret;

	ret = PAPI_library_init(PAPI_VER_CURRENT);
	if (ret != PAPI_VER_CURRENT) {
		printf("FAIL: ktau-papi: PAPI_library_init: %s\n", PAPI_strerror(ret));
		return -1;
	}
	*set = PAPI_NULL;
	ret = PAPI_create_eventset(set);
	if (ret != PAPI_OK) {
		printf("FAIL: ktau-papi: PAPI_create_eventset: %s\n", PAPI_strerror(ret));
		return -1;
	}
	for (i = 0; i < NR_EVENTS; i++) {
		ret = PAPI_add_named_event(*set, events[i].name);
		if (ret != PAPI_OK) {
			printf("FAIL: ktau-papi: PAPI_add_named_event(%s): %s (is "
			       "libktau-papi loaded? papi_component_avail says whether the "
			       "sde component is enabled)\n", events[i].name, PAPI_strerror(ret));
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	long long before[NR_EVENTS], after[NR_EVENTS], counted[NR_EVENTS];
	long calls = argc > 1 ? strtol(argv[1], NULL, 10) : 1000, i;
	struct ktau_proc *proc = ktau_proc_open(NULL, NULL);
	char what[160], detail[160];
	size_t e;
	int set;

	if (!proc || calls < 1 || have_area() || read_profile(proc, before) || setup_papi(&set))
		return 2;
	if (PAPI_start(set) != PAPI_OK) {
		printf("FAIL: ktau-papi: PAPI_start\n");
		return 2;
	}
	for (i = 0; i < calls; i++)
		syscall(SYS_getpid);
	if (PAPI_read(set, counted) != PAPI_OK) {
		printf("FAIL: ktau-papi: PAPI_read\n");
		return 2;
	}
	if (read_profile(proc, after))
		return 2;
	for (e = 0; e < NR_EVENTS; e++)
		printf("ktau-papi: %s papi=%lld proc_delta=%lld\n", events[e].name, counted[e],
		       after[e] - before[e]);
	snprintf(what, sizeof(what), "syscall_calls counts the %ld getpid() calls between "
		 "PAPI_start and PAPI_read", calls);
	snprintf(detail, sizeof(detail), "PAPI read %lld", counted[0]);
	check(counted[0] == calls, what, detail);
	check(counted[1] > 0, "syscall_cycles counts their time", "PAPI read 0");
	for (e = 0; e < NR_EVENTS; e++) {
		snprintf(what, sizeof(what), "%s is no more than the profile grew by (0 <= "
			 "%lld <= %lld)", events[e].name, counted[e], after[e] - before[e]);
		check(counted[e] >= 0 && counted[e] <= after[e] - before[e], what,
		      "the area and /proc disagree");
	}
	PAPI_stop(set, counted);
	ktau_proc_close(proc);
	return failed;
}
