/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What tests/mpi/mpi-requests does, as numbers: the request-based paths of
 * libktau-mpi that mpi-ring does not take (persistent requests,
 * MPI_Waitany, MPI_Waitsome, MPI_Probe, MPI_PROC_NULL, statuses the
 * program keeps) and the size rule of each collective. Every rank works
 * with its partner rank ^ 1 (an even number of ranks), ROUNDS rounds of
 * BYTES-byte messages (argv[1], argv[2]); collectives move
 * MPI_REQUESTS_INTS ints per rank.
 */
#ifndef KTAU_MPI_REQUESTS_H
#define KTAU_MPI_REQUESTS_H

#define MPI_REQUESTS_DEFAULT_ROUNDS 5
#define MPI_REQUESTS_DEFAULT_BYTES 1000
#define MPI_REQUESTS_INTS 8
#define MPI_REQUESTS_INT_BYTES (MPI_REQUESTS_INTS * 4)

/*
 * X(routine, fewest calls, most calls) per rank: MPI_Waitsome returns one
 * or both of its two requests at a time.
 */
#define MPI_REQUESTS_CALLS(X, rounds)					\
	X("MPI_Init", 1, 1)						\
	X("MPI_Comm_rank", 1, 1)					\
	X("MPI_Comm_size", 1, 1)					\
	X("MPI_Send_init", 1, 1)					\
	X("MPI_Recv_init", 1, 1)					\
	X("MPI_Startall", (rounds), (rounds))				\
	X("MPI_Waitall", (rounds), (rounds))				\
	X("MPI_Request_free", 2, 2)					\
	X("MPI_Irecv", 2, 2)						\
	X("MPI_Isend", 2, 2)						\
	X("MPI_Waitany", 2, 2)						\
	X("MPI_Waitsome", 1, 2)						\
	X("MPI_Send", 2, 2)						\
	X("MPI_Recv", 2, 2)						\
	X("MPI_Probe", 1, 1)						\
	X("MPI_Gather", 1, 1)						\
	X("MPI_Scatter", 1, 1)						\
	X("MPI_Allgather", 1, 1)					\
	X("MPI_Alltoall", 1, 1)						\
	X("MPI_Alltoallv", 1, 1)					\
	X("MPI_Reduce", 1, 1)						\
	X("MPI_Scan", 1, 1)						\
	X("MPI_Reduce_scatter_block", 1, 1)				\
	X("MPI_Barrier", 1, 1)						\
	X("MPI_Finalize", 1, 1)

/*
 * X(event, routine charged, samples, bytes of each) per rank on `ranks`
 * ranks: a persistent send is sent at each MPI_Startall, a persistent
 * receive received at each MPI_Waitall; nothing goes to or comes from
 * MPI_PROC_NULL (one MPI_Send and one MPI_Recv each).
 */
#define MPI_REQUESTS_EVENTS(X, rounds, bytes, ranks)			\
	X("Message size sent to all nodes", "MPI_Startall", (rounds), (bytes)) \
	X("Message size sent to all nodes", "MPI_Isend", 2, (bytes))	\
	X("Message size sent to all nodes", "MPI_Send", 1, (bytes))	\
	X("Message size received from all nodes", "MPI_Waitall", (rounds), (bytes)) \
	X("Message size received from all nodes", "MPI_Waitany", 1, (bytes)) \
	X("Message size received from all nodes", "MPI_Waitsome", 1, (bytes)) \
	X("Message size received from all nodes", "MPI_Recv", 1, (bytes)) \
	X("Message size for gather", "MPI_Gather", 1, MPI_REQUESTS_INT_BYTES) \
	X("Message size for scatter", "MPI_Scatter", 1, MPI_REQUESTS_INT_BYTES) \
	X("Message size for all-gather", "MPI_Allgather", 1, MPI_REQUESTS_INT_BYTES) \
	X("Message size for all-to-all", "MPI_Alltoall", 1, MPI_REQUESTS_INT_BYTES) \
	X("Message size for all-to-all", "MPI_Alltoallv", 1,		\
	  (ranks) * MPI_REQUESTS_INT_BYTES)				\
	X("Message size for reduce", "MPI_Reduce", 1, MPI_REQUESTS_INT_BYTES) \
	X("Message size for scan", "MPI_Scan", 1, MPI_REQUESTS_INT_BYTES) \
	X("Message size for reduce-scatter", "MPI_Reduce_scatter_block", 1, \
	  (ranks) * MPI_REQUESTS_INT_BYTES)

#endif /* KTAU_MPI_REQUESTS_H */
