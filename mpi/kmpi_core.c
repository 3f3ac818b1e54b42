// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libktau-mpi's core: timers and message-size events over libktau-prof,
 * and the routines that start and end MPI (after MPI_Init the profiles
 * are numbered by MPI_Comm_rank and carry the MPI's identity).
 */
#include <stdio.h>
#include <string.h>

#include "kmpi.h"

struct ktau_timer *kmpi_enter(struct ktau_timer **site, const char *name)
{
	return ktau_timer_scope_enter(site, name, KMPI_GROUP);
}

void kmpi_leave(struct ktau_timer *timer)
{
	ktau_timer_scope_leave(&timer);
}

static const char *const event_names[KMPI_NR_EVENTS] = {
	[KMPI_SENT] = "Message size sent to all nodes",
	[KMPI_RECEIVED] = "Message size received from all nodes",
	[KMPI_BCAST] = "Message size for broadcast",
	[KMPI_REDUCE] = "Message size for reduce",
	[KMPI_ALLREDUCE] = "Message size for all-reduce",
	[KMPI_REDUCE_SCATTER] = "Message size for reduce-scatter",
	[KMPI_SCAN] = "Message size for scan",
	[KMPI_ALLTOALL] = "Message size for all-to-all",
	[KMPI_SCATTER] = "Message size for scatter",
	[KMPI_GATHER] = "Message size for gather",
	[KMPI_ALLGATHER] = "Message size for all-gather",
	[KMPI_IO_READ] = "MPI-IO Bytes Read",
	[KMPI_IO_WRITE] = "MPI-IO Bytes Written",
};

void kmpi_event(enum kmpi_event e, double bytes)
{
	/* the handles, looked up once: process-wide, as the events are */
	static struct ktau_user_event *events[KMPI_NR_EVENTS];
	struct ktau_user_event *ev = __atomic_load_n(&events[e], __ATOMIC_ACQUIRE);

	if (!ev) {
		ev = ktau_user_event_get(event_names[e]);
		if (!ev)
			return;
		__atomic_store_n(&events[e], ev, __ATOMIC_RELEASE);
	}
	ktau_user_event_trigger(ev, bytes);
}

double kmpi_bytes(int count, MPI_Datatype type)
{
	int size = 0;

	if (type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS)
		return 0;
	return (double)count * size;
}

static int comm_size(MPI_Comm comm)
{
	int size = 0;

	if (PMPI_Comm_size(comm, &size) != MPI_SUCCESS)
		return 0;
	return size;
}

double kmpi_bytes_v(const int counts[], MPI_Datatype type, MPI_Comm comm)
{
	double sum = 0;
	int i, n = counts ? comm_size(comm) : 0;

	for (i = 0; i < n; i++)
		sum += kmpi_bytes(counts[i], type);
	return sum;
}

double kmpi_bytes_w(const int counts[], const MPI_Datatype types[], MPI_Comm comm)
{
	double sum = 0;
	int i, n = counts && types ? comm_size(comm) : 0;

	for (i = 0; i < n; i++)
		sum += kmpi_bytes(counts[i], types[i]);
	return sum;
}

double kmpi_bytes_scaled(int count, MPI_Datatype type, MPI_Comm comm)
{
	return kmpi_bytes(count, type) * comm_size(comm);
}

void kmpi_sent(int count, MPI_Datatype type, int peer)
{
	if (peer != MPI_PROC_NULL)
		kmpi_event(KMPI_SENT, kmpi_bytes(count, type));
}

void kmpi_received(const MPI_Status *status)
{
	int bytes = 0, cancelled = 0;

	if (status->MPI_SOURCE == MPI_PROC_NULL)
		return;
	if (PMPI_Test_cancelled(status, &cancelled) != MPI_SUCCESS || cancelled)
		return;
	if (PMPI_Get_count(status, MPI_BYTE, &bytes) != MPI_SUCCESS ||
	    bytes == MPI_UNDEFINED)
		return;
	kmpi_event(KMPI_RECEIVED, bytes);
}

/* ---- the start and the end ---- */

static void set_int(const char *name, int value)
{
	char text[24];

	snprintf(text, sizeof(text), "%d", value);
	ktau_metadata_set(name, text);
}

/* Once MPI runs: the real rank numbers the files, and every profile says
 * which MPI and where (TAU's "MPI Processor Name" among them). */
void kmpi_after_init(void)
{
	char name[MPI_MAX_PROCESSOR_NAME + 1] = "";
	char library[MPI_MAX_LIBRARY_VERSION_STRING + 1] = "";
	int rank = 0, size = 0, len = 0, version = 0, subversion = 0;

	if (PMPI_Comm_rank(MPI_COMM_WORLD, &rank) == MPI_SUCCESS && rank >= 0) {
		ktau_profiler_set_node((unsigned int)rank);
		set_int("MPI Rank", rank);
	}
	if (PMPI_Comm_size(MPI_COMM_WORLD, &size) == MPI_SUCCESS)
		set_int("MPI Size", size);
	if (PMPI_Get_processor_name(name, &len) == MPI_SUCCESS)
		ktau_metadata_set("MPI Processor Name", name);
	if (PMPI_Get_library_version(library, &len) == MPI_SUCCESS) {
		/* some end it with a newline */
		while (len > 0 && (library[len - 1] == '\n' || library[len - 1] == ' '))
			library[--len] = '\0';
		ktau_metadata_set("MPI Library Version", library);
	}
	if (PMPI_Get_version(&version, &subversion) == MPI_SUCCESS) {
		char text[32];

		snprintf(text, sizeof(text), "%d.%d", version, subversion);
		ktau_metadata_set("MPI Version", text);
	}
}

KMPI_API int MPI_Init(int *argc, char ***argv)
{
	static struct ktau_timer *site;
	struct ktau_timer *timer = kmpi_enter(&site, "MPI_Init()");
	int ret = PMPI_Init(argc, argv);

	if (ret == MPI_SUCCESS)
		kmpi_after_init();
	kmpi_leave(timer);
	return ret;
}

KMPI_API int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	static struct ktau_timer *site;
	struct ktau_timer *timer = kmpi_enter(&site, "MPI_Init_thread()");
	int ret = PMPI_Init_thread(argc, argv, required, provided);

	if (ret == MPI_SUCCESS) {
		kmpi_after_init();
		set_int("MPI Thread Level", *provided);
	}
	kmpi_leave(timer);
	return ret;
}

/* The profiles are written at exit (libktau-prof's atexit handler), after
 * MPI_Finalize: nothing to do here but time it. */
KMPI_API int MPI_Finalize(void)
{
	static struct ktau_timer *site;
	struct ktau_timer *timer = kmpi_enter(&site, "MPI_Finalize()");
	int ret = PMPI_Finalize();

	kmpi_leave(timer);
	return ret;
}
