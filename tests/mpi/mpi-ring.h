/* SPDX-License-Identifier: GPL-2.0-only */
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

#endif /* KTAU_MPI_RING_H */
