/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private to libktau-mpi: MPI routines as libktau-prof timers (group
 * "MPI", named as TAU names them: "MPI_Send()"), message sizes as TAU's
 * atomic events, the rank and the MPI's identity as metadata. Layers:
 *   kmpi_core.c      timers, events, MPI_Init/MPI_Init_thread/MPI_Finalize;
 *   kmpi_requests.c  receives, and the requests whose completion says
 *                    how much was received (waits and tests);
 *   kmpi_wrappers.c  every other routine, from the table kmpi_calls.def;
 *   kmpi_fortran.c   the Fortran (mpif.h, `use mpi`) entry points.
 */
#ifndef KTAU_KMPI_H
#define KTAU_KMPI_H

#include <mpi.h>

#include "ktau-prof.h"

#if !defined(MPI_VERSION) || MPI_VERSION < 3
#error "libktau-mpi needs an MPI-3 mpi.h (Open MPI >= 1.7, MPICH >= 3.0)"
#endif

#define KMPI_API __attribute__((visibility("default")))
#define KMPI_GROUP "MPI"

/* TAU's message-size events (TAU's MPI wrapper names them so). */
enum kmpi_event {
	KMPI_SENT,		/* "Message size sent to all nodes" */
	KMPI_RECEIVED,		/* "Message size received from all nodes" */
	KMPI_BCAST,
	KMPI_REDUCE,
	KMPI_ALLREDUCE,
	KMPI_REDUCE_SCATTER,
	KMPI_SCAN,
	KMPI_ALLTOALL,
	KMPI_SCATTER,
	KMPI_GATHER,
	KMPI_ALLGATHER,
	KMPI_IO_READ,		/* "MPI-IO Bytes Read" */
	KMPI_IO_WRITE,
	KMPI_NR_EVENTS,
};

/*
 * A routine's timer, started: *site caches it (one lookup per routine).
 * kmpi_leave() stops what kmpi_enter() returned (NULL: nothing).
 */
struct ktau_timer *kmpi_enter(struct ktau_timer **site, const char *name);
void kmpi_leave(struct ktau_timer *timer);

/* One sample of event e, in the calling thread's current callpath. */
void kmpi_event(enum kmpi_event e, double bytes);
/* count elements of type, in bytes; 0 for a type the MPI cannot size. */
double kmpi_bytes(int count, MPI_Datatype type);
/* The sum of counts[0 .. size of comm) elements of type(s). */
double kmpi_bytes_v(const int counts[], MPI_Datatype type, MPI_Comm comm);
double kmpi_bytes_w(const int counts[], const MPI_Datatype types[], MPI_Comm comm);
/* count elements of type for each rank of comm. */
double kmpi_bytes_scaled(int count, MPI_Datatype type, MPI_Comm comm);
/* A message sent to peer (none to MPI_PROC_NULL). */
void kmpi_sent(int count, MPI_Datatype type, int peer);
/* What a completed receive's status says it received (nothing for
 * MPI_PROC_NULL or a cancelled receive). */
void kmpi_received(const MPI_Status *status);

/* Once MPI_Init (C or Fortran) succeeded: the rank numbers the profile
 * files, and the MPI's identity goes into their metadata. */
void kmpi_after_init(void);

/* ---- requests (kmpi_requests.c) ---- */

/* A posted receive: its completion is a received message. */
void kmpi_track_recv(const MPI_Request *request, int persistent);
/* A persistent send: each MPI_Start of it is a message sent. */
void kmpi_track_send(const MPI_Request *request, int count, MPI_Datatype type, int peer);
/* MPI_Start/MPI_Startall: the persistent sends among them are sent. */
void kmpi_started(const MPI_Request *requests, int count);
/* MPI_Request_free: the request is gone. */
void kmpi_forget(const MPI_Request *request);
/* request (its handle before the wait or test) completed with status. */
void kmpi_complete(MPI_Request request, const MPI_Status *status);

#endif /* KTAU_KMPI_H */
