// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mpi-ring [ROUNDS [BYTES]]: an MPI program of known behaviour for the
 * tests of libktau-mpi (tests/mpi/mpi-ring.h has its exact counts).  Each
 * rank passes ROUNDS messages of BYTES bytes around a ring (MPI_Send to
 * rank+1, MPI_Recv from rank-1), one more step with MPI_Isend/MPI_Irecv/
 * MPI_Waitall and one with MPI_Sendrecv, then an MPI_Bcast, an
 * MPI_Allreduce and an MPI_Barrier.  Every message's contents are checked,
 * so a broken wrapper cannot pass unnoticed.  Prints one line per rank;
 * exits 0 when every check held, 1 otherwise, 2 on bad arguments.
 *
 * MPI_RING_CRASH_RANK=R: rank R kills itself (SIGKILL) after MPI_Finalize,
 * once the file $MPI_RING_CRASH_WHEN exists (it waits at most 60 s): a
 * rank that crashes at the end, for the tests that the other ranks'
 * results survive it.
 */
#include <errno.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mpi-ring.h"

struct ring {
	int rank, size, left, right;
	long rounds, bytes;
	unsigned char *out, *in;
	int bad;		/* messages whose contents were wrong */
};

static int parse_count(const char *arg, long min, long max, long *value)
{
	char *end;

	errno = 0;
	*value = strtol(arg, &end, 10);
	return errno || end == arg || *end || *value < min || *value > max ? -1 : 0;
}

/* the bytes rank `from` sends in step `step`: a pattern per sender and step */
static void fill(unsigned char *buf, long bytes, int from, long step)
{
	for (long i = 0; i < bytes; i++)
		buf[i] = (unsigned char)(from * 31 + step * 7 + i);
}

static void expect(struct ring *r, long step)
{
	for (long i = 0; i < r->bytes; i++) {
		if (r->in[i] != (unsigned char)(r->left * 31 + step * 7 + i)) {
			r->bad++;
			return;
		}
	}
}

/* Even ranks send first, odd ranks receive first: no step relies on the
 * MPI buffering a message, whatever its size (an odd-sized ring still
 * completes: the last even rank's send meets rank 0's receive later). */
static void ring_step(struct ring *r, long step)
{
	fill(r->out, r->bytes, r->rank, step);
	if (r->rank % 2 == 0) {
		MPI_Send(r->out, (int)r->bytes, MPI_BYTE, r->right, 1, MPI_COMM_WORLD);
		MPI_Recv(r->in, (int)r->bytes, MPI_BYTE, r->left, 1, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
	} else {
		MPI_Recv(r->in, (int)r->bytes, MPI_BYTE, r->left, 1, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		MPI_Send(r->out, (int)r->bytes, MPI_BYTE, r->right, 1, MPI_COMM_WORLD);
	}
	expect(r, step);
}

static void nonblocking_step(struct ring *r, long step)
{
	MPI_Request req[2];

	fill(r->out, r->bytes, r->rank, step);
	MPI_Irecv(r->in, (int)r->bytes, MPI_BYTE, r->left, 2, MPI_COMM_WORLD, &req[0]);
	MPI_Isend(r->out, (int)r->bytes, MPI_BYTE, r->right, 2, MPI_COMM_WORLD, &req[1]);
	MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
	expect(r, step);
}

static void sendrecv_step(struct ring *r, long step)
{
	fill(r->out, r->bytes, r->rank, step);
	MPI_Sendrecv(r->out, (int)r->bytes, MPI_BYTE, r->right, 3,
		     r->in, (int)r->bytes, MPI_BYTE, r->left, 3,
		     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	expect(r, step);
}

/* MPI_RING_CRASH_RANK: see the top of the file. */
static void crash_if_asked(int rank)
{
	const char *who = getenv("MPI_RING_CRASH_RANK"), *when = getenv("MPI_RING_CRASH_WHEN");
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	int i;

	if (!who || atoi(who) != rank)
		return;
	for (i = 0; when && i < 6000 && access(when, F_OK); i++)
		nanosleep(&tick, NULL);
	fprintf(stderr, "mpi-ring: rank %d crashes on purpose (MPI_RING_CRASH_RANK)\n", rank);
	raise(SIGKILL);
}

int main(int argc, char **argv)
{
	struct ring r = { .rounds = MPI_RING_DEFAULT_ROUNDS,
			  .bytes = MPI_RING_DEFAULT_BYTES };
	char host[MPI_MAX_PROCESSOR_NAME] = "";
	int bcast[MPI_RING_BCAST_INTS];
	long ranksum = 0;
	int len;

	if (argc > 3 || (argc > 1 && parse_count(argv[1], 0, 1000000, &r.rounds)) ||
	    (argc > 2 && parse_count(argv[2], 1, MPI_RING_MAX_BYTES, &r.bytes))) {
		fprintf(stderr, "usage: mpi-ring [ROUNDS [BYTES]]  (ROUNDS 0..1000000, "
			"default %d; BYTES 1..%ld, default %d)\n", MPI_RING_DEFAULT_ROUNDS,
			MPI_RING_MAX_BYTES, MPI_RING_DEFAULT_BYTES);
		return 2;
	}
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
	MPI_Comm_size(MPI_COMM_WORLD, &r.size);
	if (r.size < 2) {
		fprintf(stderr, "mpi-ring: needs at least 2 ranks (mpirun -np 4)\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	r.right = (r.rank + 1) % r.size;
	r.left = (r.rank + r.size - 1) % r.size;
	r.out = malloc((size_t)r.bytes);
	r.in = malloc((size_t)r.bytes);
	if (!r.out || !r.in) {
		fprintf(stderr, "mpi-ring: rank %d: out of memory\n", r.rank);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}

	for (long step = 0; step < r.rounds; step++)
		ring_step(&r, step);
	nonblocking_step(&r, r.rounds);
	sendrecv_step(&r, r.rounds + 1);

	for (int i = 0; i < MPI_RING_BCAST_INTS; i++)
		bcast[i] = r.rank == 0 ? 1000 + i : -1;
	MPI_Bcast(bcast, MPI_RING_BCAST_INTS, MPI_INT, 0, MPI_COMM_WORLD);
	for (int i = 0; i < MPI_RING_BCAST_INTS; i++)
		r.bad += bcast[i] != 1000 + i;

	long mine = r.rank;
	MPI_Allreduce(&mine, &ranksum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	r.bad += ranksum != (long)r.size * (r.size - 1) / 2;
	MPI_Barrier(MPI_COMM_WORLD);

	/* PMPI_: the query is not part of the counted behaviour */
	PMPI_Get_processor_name(host, &len);
	printf("mpi-ring: rank %d of %d on %s: %ld messages of %ld bytes sent and "
	       "received, allreduce %ld, %s\n", r.rank, r.size, host,
	       (long)MPI_RING_MESSAGES(r.rounds), r.bytes, ranksum,
	       r.bad ? "BAD DATA" : "ok");
	fflush(stdout);
	free(r.out);
	free(r.in);
	MPI_Finalize();
	crash_if_asked(r.rank);
	return r.bad ? 1 : 0;
}
