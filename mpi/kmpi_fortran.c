// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The Fortran entry points (mpif.h and `use mpi`, gfortran's names:
 * mpi_send_). Open MPI's Fortran bindings (libmpi_mpifh) call PMPI_Send
 * and the like directly, never MPI_Send, so the C wrappers do not see a
 * Fortran program's calls: these do, each timing the same timer as its C
 * twin ("MPI_Send()") around the MPI's own Fortran profiling entry point
 * (pmpi_send_). Those live in the MPI's Fortran library, which a C
 * program does not load: they are weak references here, and a Fortran
 * entry point whose twin is missing fails with MPI_ERR_OTHER (it cannot
 * be called then anyway: only a Fortran program calls it). `use mpi_f08`
 * goes through other, MPI-private entry points and is not timed.
 *
 * Sizes as in C, from the Fortran handles (MPI_Type_f2c, MPI_Status_f2c).
 */
#include <stdbool.h>
#include <stdlib.h>

#include "kmpi.h"

/* A Fortran status: MPI_STATUS_SIZE integers, the C status's size (Open
 * MPI 6, MPICH 5). */
#define F_STATUS_SIZE (sizeof(MPI_Status) / sizeof(MPI_Fint))

static void f_sent(const MPI_Fint *count, const MPI_Fint *type, const MPI_Fint *peer)
{
	kmpi_sent(*count, PMPI_Type_f2c(*type), *peer);
}

static double f_bytes(const MPI_Fint *count, const MPI_Fint *type)
{
	return kmpi_bytes(*count, PMPI_Type_f2c(*type));
}

static void f_received(const MPI_Fint *status)
{
	MPI_Status c;

	if (PMPI_Status_f2c(status, &c) == MPI_SUCCESS)
		kmpi_received(&c);
}

static bool status_ignored(const MPI_Fint *status)
{
	return status == MPI_F_STATUS_IGNORE || status == MPI_F_STATUSES_IGNORE;
}

/* hooks, as in kmpi_wrappers.c */
#define F_NONE ((void)0)
#define F_SENT(count, type, peer) f_sent((count), (type), (peer))
#define F_COLL(event, count, type) kmpi_event((event), f_bytes((count), (type)))
#define F_TRACK_RECV(request) kmpi_track_recv(&(MPI_Request){ PMPI_Request_f2c(*(request)) }, 0)

/*
 * FWRAP(name, "C name", (parameters), (arguments), after): mpi_<name>_
 * timing pmpi_<name>_, then `after` when it succeeded. Every Fortran
 * routine ends with its MPI_Fint *ierr.
 */
#define FWRAP(name, cname, params, args, after)			\
	extern void p##name params __attribute__((weak));		\
	KMPI_API void name params					\
	{								\
		static struct ktau_timer *site;				\
		struct ktau_timer *timer;				\
									\
		if (!p##name) {						\
			*ierr = MPI_ERR_OTHER;				\
			return;						\
		}							\
		timer = kmpi_enter(&site, cname "()");			\
		p##name args;						\
		if (*ierr == MPI_SUCCESS)				\
			after;						\
		kmpi_leave(timer);					\
	}

#define F_BUF_COUNT_TYPE void *buf, MPI_Fint *count, MPI_Fint *datatype

FWRAP(mpi_init_, "MPI_Init", (MPI_Fint *ierr), (ierr), kmpi_after_init())
FWRAP(mpi_init_thread_, "MPI_Init_thread",
      (MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr),
      (required, provided, ierr), kmpi_after_init())
FWRAP(mpi_finalize_, "MPI_Finalize", (MPI_Fint *ierr), (ierr), F_NONE)
FWRAP(mpi_comm_rank_, "MPI_Comm_rank", (MPI_Fint *comm, MPI_Fint *rank, MPI_Fint *ierr),
      (comm, rank, ierr), F_NONE)
FWRAP(mpi_comm_size_, "MPI_Comm_size", (MPI_Fint *comm, MPI_Fint *size, MPI_Fint *ierr),
      (comm, size, ierr), F_NONE)
FWRAP(mpi_send_, "MPI_Send",
      (F_BUF_COUNT_TYPE, MPI_Fint *dest, MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *ierr),
      (buf, count, datatype, dest, tag, comm, ierr), F_SENT(count, datatype, dest))
FWRAP(mpi_ssend_, "MPI_Ssend",
      (F_BUF_COUNT_TYPE, MPI_Fint *dest, MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *ierr),
      (buf, count, datatype, dest, tag, comm, ierr), F_SENT(count, datatype, dest))
FWRAP(mpi_isend_, "MPI_Isend",
      (F_BUF_COUNT_TYPE, MPI_Fint *dest, MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *request,
       MPI_Fint *ierr),
      (buf, count, datatype, dest, tag, comm, request, ierr), F_SENT(count, datatype, dest))
FWRAP(mpi_irecv_, "MPI_Irecv",
      (F_BUF_COUNT_TYPE, MPI_Fint *source, MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *request,
       MPI_Fint *ierr),
      (buf, count, datatype, source, tag, comm, request, ierr), F_TRACK_RECV(request))
FWRAP(mpi_barrier_, "MPI_Barrier", (MPI_Fint *comm, MPI_Fint *ierr), (comm, ierr), F_NONE)
FWRAP(mpi_bcast_, "MPI_Bcast",
      (F_BUF_COUNT_TYPE, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr),
      (buf, count, datatype, root, comm, ierr), F_COLL(KMPI_BCAST, count, datatype))
FWRAP(mpi_reduce_, "MPI_Reduce",
      (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,
       MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr),
      (sendbuf, recvbuf, count, datatype, op, root, comm, ierr),
      F_COLL(KMPI_REDUCE, count, datatype))
FWRAP(mpi_allreduce_, "MPI_Allreduce",
      (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,
       MPI_Fint *comm, MPI_Fint *ierr),
      (sendbuf, recvbuf, count, datatype, op, comm, ierr),
      F_COLL(KMPI_ALLREDUCE, count, datatype))
FWRAP(mpi_gather_, "MPI_Gather",
      (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
       MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm,
       MPI_Fint *ierr),
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr),
      F_COLL(KMPI_GATHER, sendcount, sendtype))
FWRAP(mpi_scatter_, "MPI_Scatter",
      (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
       MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm,
       MPI_Fint *ierr),
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr),
      F_COLL(KMPI_SCATTER, recvcount, recvtype))
FWRAP(mpi_allgather_, "MPI_Allgather",
      (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
       MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr),
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr),
      F_COLL(KMPI_ALLGATHER, sendcount, sendtype))
FWRAP(mpi_alltoall_, "MPI_Alltoall",
      (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
       MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr),
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr),
      F_COLL(KMPI_ALLTOALL, sendcount, sendtype))

/* ---- receives and waits: a status of ours where the program wants none ---- */

extern void pmpi_recv_(F_BUF_COUNT_TYPE, MPI_Fint *source, MPI_Fint *tag, MPI_Fint *comm,
		       MPI_Fint *status, MPI_Fint *ierr) __attribute__((weak));

KMPI_API void mpi_recv_(F_BUF_COUNT_TYPE, MPI_Fint *source, MPI_Fint *tag, MPI_Fint *comm,
			MPI_Fint *status, MPI_Fint *ierr)
{
	static struct ktau_timer *site;
	MPI_Fint mine[F_STATUS_SIZE];
	struct ktau_timer *timer;

	if (!pmpi_recv_) {
		*ierr = MPI_ERR_OTHER;
		return;
	}
	timer = kmpi_enter(&site, "MPI_Recv()");
	if (status_ignored(status))
		status = mine;
	pmpi_recv_(buf, count, datatype, source, tag, comm, status, ierr);
	if (*ierr == MPI_SUCCESS)
		f_received(status);
	kmpi_leave(timer);
}

extern void pmpi_sendrecv_(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype,
			   MPI_Fint *dest, MPI_Fint *sendtag, void *recvbuf,
			   MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *source,
			   MPI_Fint *recvtag, MPI_Fint *comm, MPI_Fint *status,
			   MPI_Fint *ierr) __attribute__((weak));

KMPI_API void mpi_sendrecv_(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype,
			    MPI_Fint *dest, MPI_Fint *sendtag, void *recvbuf,
			    MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *source,
			    MPI_Fint *recvtag, MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr)
{
	static struct ktau_timer *site;
	MPI_Fint mine[F_STATUS_SIZE];
	struct ktau_timer *timer;

	if (!pmpi_sendrecv_) {
		*ierr = MPI_ERR_OTHER;
		return;
	}
	timer = kmpi_enter(&site, "MPI_Sendrecv()");
	if (status_ignored(status))
		status = mine;
	pmpi_sendrecv_(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
		       recvtype, source, recvtag, comm, status, ierr);
	if (*ierr == MPI_SUCCESS) {
		f_sent(sendcount, sendtype, dest);
		f_received(status);
	}
	kmpi_leave(timer);
}

extern void pmpi_wait_(MPI_Fint *request, MPI_Fint *status, MPI_Fint *ierr)
	__attribute__((weak));

KMPI_API void mpi_wait_(MPI_Fint *request, MPI_Fint *status, MPI_Fint *ierr)
{
	static struct ktau_timer *site;
	MPI_Fint mine[F_STATUS_SIZE];
	struct ktau_timer *timer;
	MPI_Request before;
	MPI_Status c;

	if (!pmpi_wait_) {
		*ierr = MPI_ERR_OTHER;
		return;
	}
	timer = kmpi_enter(&site, "MPI_Wait()");
	before = PMPI_Request_f2c(*request);
	if (status_ignored(status))
		status = mine;
	pmpi_wait_(request, status, ierr);
	if (*ierr == MPI_SUCCESS && PMPI_Status_f2c(status, &c) == MPI_SUCCESS)
		kmpi_complete(before, &c);
	kmpi_leave(timer);
}

extern void pmpi_waitall_(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *statuses,
			  MPI_Fint *ierr) __attribute__((weak));

#define ON_STACK 16

KMPI_API void mpi_waitall_(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *statuses,
			   MPI_Fint *ierr)
{
	static struct ktau_timer *site;
	MPI_Request before_buf[ON_STACK], *before = before_buf;
	MPI_Fint mine_buf[ON_STACK * F_STATUS_SIZE], *mine = NULL;
	struct ktau_timer *timer;
	int i, n = *count;

	if (!pmpi_waitall_) {
		*ierr = MPI_ERR_OTHER;
		return;
	}
	timer = kmpi_enter(&site, "MPI_Waitall()");
	if (n > ON_STACK)
		before = malloc(n * sizeof(*before));
	if (status_ignored(statuses) && before)
		mine = n > ON_STACK ? malloc(n * F_STATUS_SIZE * sizeof(*mine)) : mine_buf;
	if (!before || (status_ignored(statuses) && !mine)) {
		/* no memory: the sizes go uncounted, the call goes on */
		pmpi_waitall_(count, requests, statuses, ierr);
		n = 0;
	} else {
		for (i = 0; i < n; i++)
			before[i] = PMPI_Request_f2c(requests[i]);
		if (mine)
			statuses = mine;
		pmpi_waitall_(count, requests, statuses, ierr);
	}
	for (i = 0; *ierr == MPI_SUCCESS && i < n; i++) {
		MPI_Status c;

		if (PMPI_Status_f2c(&statuses[i * F_STATUS_SIZE], &c) == MPI_SUCCESS)
			kmpi_complete(before[i], &c);
	}
	if (before && before != before_buf)
		free(before);
	if (mine && mine != mine_buf)
		free(mine);
	kmpi_leave(timer);
}
