// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libktau-papi: the calling thread's kernel time and calls, by ktau group,
 * as PAPI software-defined events (the "ktau" library of PAPI's sde
 * component: sde:::ktau::syscall_cycles, ...). Each event is a callback
 * that PAPI calls on the thread that starts or reads the event set; it
 * reads that thread's shared counter area (libktau's
 * ktau_thread_counters_*), registered on the thread's first read: loads,
 * no system call. Cycles are exclusive TSC cycles (docs/papi.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sde_lib.h>

#include <ktau.h>

/* The area's counters, one a group, and all kernel time last. */
static const struct area_counter {
	const char *prefix;	/* the events' names: PREFIX_cycles, PREFIX_calls */
	uint32_t id;
	const char *what;
} area_counters[] = {
	{ "syscall", KTAU_COUNTER_GROUP | KTAU_COUNTER_SYSCALL, "system calls" },
	{ "softirq", KTAU_COUNTER_GROUP | KTAU_COUNTER_SOFTIRQ, "softirqs run on the thread" },
	{ "irq", KTAU_COUNTER_GROUP | KTAU_COUNTER_IRQ, "hard interrupts taken on the thread" },
	{ "sched", KTAU_COUNTER_GROUP | KTAU_COUNTER_SCHED,
	  "schedule() (blocked and preempted)" },
	{ "exception", KTAU_COUNTER_GROUP | KTAU_COUNTER_EXCEPTION, "page faults" },
	{ "kernel", KTAU_COUNTER_ALL, "any kernel routine (cycles: all its kernel time)" },
};
#define NR_AREA_COUNTERS (sizeof(area_counters) / sizeof(area_counters[0]))

/* An event: counter (index into area_counters) and field, packed into
 * the callback's parameter. */
enum event_field { FIELD_CYCLES, FIELD_CALLS, NR_FIELDS };
#define EVENT_PARAM(counter, field) ((void *)(uintptr_t)((counter) * NR_FIELDS + (field)))

/*
 * The calling thread's area. Thread-local because the kernel's
 * registration is per thread and PAPI calls each callback on the thread
 * whose counters it wants: a load tells the callback whether that thread
 * has its area yet. A fork copies it with the registration the child
 * inherits at the same address.
 */
enum area_state { AREA_NONE, AREA_READY, AREA_FAILED };
static __thread struct ktau_thread_counters *thread_area;
static __thread enum area_state thread_area_state;

/* Unregisters a thread's area when it exits (on that thread). */
static pthread_key_t area_key;
static pthread_once_t area_key_once = PTHREAD_ONCE_INIT;

static void area_thread_exit(void *area)
{
	ktau_thread_counters_unregister(area);
}

static void create_area_key(void)
{
	if (pthread_key_create(&area_key, area_thread_exit))
		area_key = (pthread_key_t)-1;
}

/* Said once a process: why the ktau events read 0. */
static int said_why;

static void say_why(int error)
{
	char line[320];
	int len;

	if (__atomic_exchange_n(&said_why, 1, __ATOMIC_RELAXED))
		return;
	if (error == ENODEV)
		len = snprintf(line, sizeof(line), "ktau-papi: the ktau:: events read 0: this "
			       "kernel has no ktau shared counter area (not a ktau kernel, or "
			       "one without it)\n");
	else if (error == EBUSY)
		len = snprintf(line, sizeof(line), "ktau-papi: the ktau:: events read 0 on "
			       "this thread: it has a ktau counter area already (one a thread; "
			       "TAU's -ktau_shctr registers one too)\n");
	else
		len = snprintf(line, sizeof(line), "ktau-papi: the ktau:: events read 0: "
			       "registering the ktau counter area failed: %s\n",
			       strerror(error));
	/* one write(): stdio may be the very thing PAPI's caller is using */
	if (len > 0 && write(STDERR_FILENO, line, (size_t)len) < 0)
		return;
}

static struct ktau_thread_counters *calling_thread_area(void)
{
	uint32_t ids[NR_AREA_COUNTERS];
	size_t i;

	if (thread_area_state != AREA_NONE)
		return thread_area;
	for (i = 0; i < NR_AREA_COUNTERS; i++)
		ids[i] = area_counters[i].id;
	thread_area = ktau_thread_counters_register(ids, NR_AREA_COUNTERS);
	if (!thread_area) {
		thread_area_state = AREA_FAILED;
		say_why(errno);
		return NULL;
	}
	thread_area_state = AREA_READY;
	pthread_once(&area_key_once, create_area_key);
	if (area_key != (pthread_key_t)-1)
		pthread_setspecific(area_key, thread_area);
	return thread_area;
}

/* PAPI's callback: one field of one counter of the calling thread. */
static long long read_event(void *param)
{
	unsigned int event = (unsigned int)(uintptr_t)param;
	struct ktau_thread_counters *area = calling_thread_area();
	uint64_t calls = 0, excl = 0;

	if (!area)
		return 0;
	ktau_thread_counters_read(area, event / NR_FIELDS, &calls, NULL, &excl);
	return (long long)(event % NR_FIELDS == FIELD_CALLS ? calls : excl);
}

/* Registers every event through fns: the real libsde, or the one
 * papi_native_avail hands papi_sde_hook_list_events(). */
static papi_handle_t register_events(const papi_sde_fptr_struct_t *fns)
{
	static const char *const field_names[NR_FIELDS] = { "cycles", "calls" };
	papi_handle_t handle = fns->init("ktau");
	char name[64], description[256];
	size_t i;
	int f;

	if (!handle)
		return NULL;
	for (i = 0; i < NR_AREA_COUNTERS; i++) {
		for (f = 0; f < NR_FIELDS; f++) {
			snprintf(name, sizeof(name), "%s_%s", area_counters[i].prefix,
				 field_names[f]);
			if (f == FIELD_CYCLES)
				snprintf(description, sizeof(description), "The calling thread's "
					 "exclusive TSC cycles in %s (ktau's shared counter area)",
					 area_counters[i].what);
			else
				snprintf(description, sizeof(description), "The calling thread's "
					 "calls of %s (ktau's shared counter area)",
					 area_counters[i].what);
			fns->register_counter_cb(handle, name, PAPI_SDE_RO | PAPI_SDE_DELTA,
						 PAPI_SDE_long_long, read_event,
						 EVENT_PARAM(i, f));
			fns->describe_counter(handle, name, description);
		}
	}
	return handle;
}

/* papi_native_avail -sde libktau-papi.so lists the events through this. */
__attribute__((visibility("default")))
papi_handle_t papi_sde_hook_list_events(papi_sde_fptr_struct_t *fptr_struct)
{
	return register_events(fptr_struct);
}

/* Loaded (LD_PRELOAD, or linked): the events exist before PAPI looks. */
__attribute__((constructor)) static void register_at_load(void)
{
	papi_sde_fptr_struct_t fns;

	POPULATE_SDE_FPTR_STRUCT(fns);
	register_events(&fns);
}
