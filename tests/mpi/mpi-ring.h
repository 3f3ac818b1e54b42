/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What tests/mpi/mpi-ring does, as numbers the tests check: each rank's
 * exact MPI call counts and message sizes for ROUNDS rounds of BYTES-byte
 * messages (argv[1], argv[2]; the defaults below).  One place, so that the
 * program and every test that reads its profiles agree.
 *
 * Per rank, on any number of ranks >= 2:
 *   MPI_Init, MPI_Comm_rank, MPI_Comm_size        1 each
 *   MPI_Send, MPI_Recv                            ROUNDS each (the ring)
 *   MPI_Isend, MPI_Irecv, MPI_Waitall             1 each (one more ring step)
 *   MPI_Sendrecv                                  1 (one more ring step)
 *   MPI_Bcast   of MPI_RING_BCAST_INTS ints from rank 0     1
 *   MPI_Allreduce of one long (the sum of the ranks)        1
 *   MPI_Barrier, MPI_Finalize                     1 each
 * Bytes sent (MPI_Send, MPI_Isend, MPI_Sendrecv) and received (MPI_Recv,
 * the MPI_Irecv completed by MPI_Waitall, MPI_Sendrecv): ROUNDS + 2
 * messages of BYTES each way.
 */
#ifndef KTAU_MPI_RING_H
#define KTAU_MPI_RING_H

#define MPI_RING_DEFAULT_ROUNDS 10
#define MPI_RING_DEFAULT_BYTES 4096
#define MPI_RING_MAX_BYTES (64L * 1024 * 1024)
#define MPI_RING_BCAST_INTS 16

/* messages each rank sends (and receives) */
#define MPI_RING_MESSAGES(rounds) ((rounds) + 2)
/* bytes of one MPI_Bcast and of one MPI_Allreduce */
#define MPI_RING_BCAST_BYTES (MPI_RING_BCAST_INTS * 4)
#define MPI_RING_ALLREDUCE_BYTES 8

/*
 * Each MPI routine mpi-ring calls, as X(name, calls per rank) for `rounds`
 * rounds (a routine called 0 times has no entry in a profile).
 */
#define MPI_RING_CALLS(X, rounds)					\
	X("MPI_Init", 1)						\
	X("MPI_Comm_rank", 1)						\
	X("MPI_Comm_size", 1)						\
	X("MPI_Send", (rounds))						\
	X("MPI_Recv", (rounds))						\
	X("MPI_Irecv", 1)						\
	X("MPI_Isend", 1)						\
	X("MPI_Waitall", 1)						\
	X("MPI_Sendrecv", 1)						\
	X("MPI_Bcast", 1)						\
	X("MPI_Allreduce", 1)						\
	X("MPI_Barrier", 1)						\
	X("MPI_Finalize", 1)

#define MPI_RING_SENT "Message size sent to all nodes"
#define MPI_RING_RECEIVED "Message size received from all nodes"
#define MPI_RING_BCAST "Message size for broadcast"
#define MPI_RING_ALLREDUCE "Message size for all-reduce"

/*
 * The message-size events of one rank, as X(event, routine it is charged
 * to, samples, bytes of each sample): a receive's size is charged to the
 * routine that completed it (MPI_Waitall for the MPI_Irecv). The flat
 * event is the sum of its routines' samples.
 */
#define MPI_RING_EVENTS(X, rounds, bytes)				\
	X(MPI_RING_SENT, "MPI_Send", (rounds), (bytes))			\
	X(MPI_RING_SENT, "MPI_Isend", 1, (bytes))			\
	X(MPI_RING_SENT, "MPI_Sendrecv", 1, (bytes))			\
	X(MPI_RING_RECEIVED, "MPI_Recv", (rounds), (bytes))		\
	X(MPI_RING_RECEIVED, "MPI_Waitall", 1, (bytes))			\
	X(MPI_RING_RECEIVED, "MPI_Sendrecv", 1, (bytes))		\
	X(MPI_RING_BCAST, "MPI_Bcast", 1, MPI_RING_BCAST_BYTES)		\
	X(MPI_RING_ALLREDUCE, "MPI_Allreduce", 1, MPI_RING_ALLREDUCE_BYTES)

#endif /* KTAU_MPI_RING_H */
