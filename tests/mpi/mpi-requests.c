// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mpi-requests [ROUNDS [BYTES]]: the request-based MPI paths and the
 * collectives whose sizes libktau-mpi counts, with known numbers
 * (tests/mpi/mpi-requests.h); each rank works with its partner rank ^ 1.
 * Every message and every collective's result is checked. One line per
 * rank; exit 0 when every check held, 1 otherwise, 2 on bad arguments.
 */
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi-requests.h"

#define N MPI_REQUESTS_INTS

struct pair {
	int rank, size, partner, bad;
	long bytes;
	unsigned char *out, *in;
};

static int parse_count(const char *arg, long min, long max, long *value)
{
	char *end;

	errno = 0;
	*value = strtol(arg, &end, 10);
	return errno || end == arg || *end || *value < min || *value > max ? -1 : 0;
}

static void fill(struct pair *p, long step)
{
	for (long i = 0; i < p->bytes; i++)
		p->out[i] = (unsigned char)(p->rank * 31 + step * 7 + i);
}

static void expect(struct pair *p, long step)
{
	for (long i = 0; i < p->bytes; i++) {
		if (p->in[i] != (unsigned char)(p->partner * 31 + step * 7 + i)) {
			p->bad++;
			return;
		}
	}
}

/* persistent requests: started rounds times, then freed */
static void persistent(struct pair *p, long rounds)
{
	MPI_Request req[2];
	MPI_Status st[2];

	MPI_Send_init(p->out, (int)p->bytes, MPI_BYTE, p->partner, 10, MPI_COMM_WORLD, &req[0]);
	MPI_Recv_init(p->in, (int)p->bytes, MPI_BYTE, p->partner, 10, MPI_COMM_WORLD, &req[1]);
	for (long step = 0; step < rounds; step++) {
		fill(p, step);
		MPI_Startall(2, req);
		MPI_Waitall(2, req, st);	/* statuses kept: not ours */
		expect(p, step);
	}
	MPI_Request_free(&req[0]);
	MPI_Request_free(&req[1]);
}

/* MPI_Waitany twice, then MPI_Waitsome until both are done */
static void any_and_some(struct pair *p, long step)
{
	MPI_Request req[2];
	MPI_Status status;
	int index, done = 0, count, indices[2];

	fill(p, step);
	MPI_Irecv(p->in, (int)p->bytes, MPI_BYTE, p->partner, 11, MPI_COMM_WORLD, &req[0]);
	MPI_Isend(p->out, (int)p->bytes, MPI_BYTE, p->partner, 11, MPI_COMM_WORLD, &req[1]);
	MPI_Waitany(2, req, &index, &status);
	MPI_Waitany(2, req, &index, &status);
	expect(p, step);

	fill(p, step + 1);
	MPI_Irecv(p->in, (int)p->bytes, MPI_BYTE, p->partner, 12, MPI_COMM_WORLD, &req[0]);
	MPI_Isend(p->out, (int)p->bytes, MPI_BYTE, p->partner, 12, MPI_COMM_WORLD, &req[1]);
	while (done < 2) {
		MPI_Waitsome(2, req, &count, indices, MPI_STATUSES_IGNORE);
		done += count;
	}
	expect(p, step + 1);
}

/* nothing goes to MPI_PROC_NULL; a probed receive; even ranks send first */
static void proc_null_and_probe(struct pair *p, long step)
{
	MPI_Status status;

	MPI_Send(p->out, (int)p->bytes, MPI_BYTE, MPI_PROC_NULL, 13, MPI_COMM_WORLD);
	MPI_Recv(p->in, (int)p->bytes, MPI_BYTE, MPI_PROC_NULL, 13, MPI_COMM_WORLD,
		 MPI_STATUS_IGNORE);
	fill(p, step);
	if (p->rank % 2 == 0)
		MPI_Send(p->out, (int)p->bytes, MPI_BYTE, p->partner, 14, MPI_COMM_WORLD);
	MPI_Probe(p->partner, 14, MPI_COMM_WORLD, &status);
	MPI_Recv(p->in, (int)p->bytes, MPI_BYTE, status.MPI_SOURCE, 14, MPI_COMM_WORLD,
		 &status);
	if (p->rank % 2 == 1)
		MPI_Send(p->out, (int)p->bytes, MPI_BYTE, p->partner, 14, MPI_COMM_WORLD);
	expect(p, step);
}

static void collectives(struct pair *p)
{
	int mine[N], *all = calloc((size_t)p->size * N, sizeof(int));
	int *back = calloc((size_t)p->size * N, sizeof(int)), *counts, *displs;
	int got[N], sum[N], i, r;

	counts = calloc((size_t)p->size, sizeof(int));
	displs = calloc((size_t)p->size, sizeof(int));
	if (!all || !back || !counts || !displs) {
		fprintf(stderr, "mpi-requests: rank %d: out of memory\n", p->rank);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (i = 0; i < N; i++)
		mine[i] = p->rank * 100 + i;
	for (r = 0; r < p->size; r++) {
		counts[r] = N;
		displs[r] = r * N;
		for (i = 0; i < N; i++)
			all[r * N + i] = r * 100 + i;	/* what everyone holds */
	}
	MPI_Gather(mine, N, MPI_INT, back, N, MPI_INT, 0, MPI_COMM_WORLD);
	if (p->rank == 0)
		p->bad += memcmp(back, all, (size_t)p->size * N * sizeof(int)) != 0;
	MPI_Scatter(all, N, MPI_INT, got, N, MPI_INT, 0, MPI_COMM_WORLD);
	p->bad += memcmp(got, mine, sizeof(mine)) != 0;
	memset(back, 0, (size_t)p->size * N * sizeof(int));
	MPI_Allgather(mine, N, MPI_INT, back, N, MPI_INT, MPI_COMM_WORLD);
	p->bad += memcmp(back, all, (size_t)p->size * N * sizeof(int)) != 0;
	MPI_Alltoall(all, N, MPI_INT, back, N, MPI_INT, MPI_COMM_WORLD);
	for (r = 0; r < p->size; r++)		/* from r: all[p->rank * N ...] */
		p->bad += memcmp(&back[r * N], &all[p->rank * N], sizeof(mine)) != 0;
	MPI_Alltoallv(all, counts, displs, MPI_INT, back, counts, displs, MPI_INT,
		      MPI_COMM_WORLD);
	for (r = 0; r < p->size; r++)
		p->bad += memcmp(&back[r * N], &all[p->rank * N], sizeof(mine)) != 0;
	MPI_Reduce(mine, sum, N, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	for (i = 0; p->rank == 0 && i < N; i++)
		p->bad += sum[i] != 100 * p->size * (p->size - 1) / 2 + p->size * i;
	MPI_Scan(mine, sum, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	for (i = 0; i < N; i++)
		p->bad += sum[i] != 100 * p->rank * (p->rank + 1) / 2 + (p->rank + 1) * i;
	MPI_Reduce_scatter_block(all, got, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	for (i = 0; i < N; i++)
		p->bad += got[i] != p->size * (p->rank * 100 + i);
	free(all);
	free(back);
	free(counts);
	free(displs);
}

int main(int argc, char **argv)
{
	struct pair p = { .bytes = MPI_REQUESTS_DEFAULT_BYTES };
	long rounds = MPI_REQUESTS_DEFAULT_ROUNDS;

	if (argc > 3 || (argc > 1 && parse_count(argv[1], 0, 1000000, &rounds)) ||
	    (argc > 2 && parse_count(argv[2], 1, 1L << 26, &p.bytes))) {
		fprintf(stderr, "usage: mpi-requests [ROUNDS [BYTES]]  (ROUNDS 0..1000000, "
			"default %d; BYTES 1..%ld, default %d)\n", MPI_REQUESTS_DEFAULT_ROUNDS,
			1L << 26, MPI_REQUESTS_DEFAULT_BYTES);
		return 2;
	}
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &p.rank);
	MPI_Comm_size(MPI_COMM_WORLD, &p.size);
	if (p.size % 2) {
		fprintf(stderr, "mpi-requests: needs an even number of ranks (mpirun -np 4)\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	p.partner = p.rank ^ 1;
	p.out = malloc((size_t)p.bytes);
	p.in = malloc((size_t)p.bytes);
	if (!p.out || !p.in) {
		fprintf(stderr, "mpi-requests: rank %d: out of memory\n", p.rank);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	persistent(&p, rounds);
	any_and_some(&p, rounds);
	proc_null_and_probe(&p, rounds + 2);
	collectives(&p);
	MPI_Barrier(MPI_COMM_WORLD);
	printf("mpi-requests: rank %d of %d: partner %d, %ld rounds of %ld bytes, %s\n",
	       p.rank, p.size, p.partner, rounds, p.bytes, p.bad ? "BAD DATA" : "ok");
	fflush(stdout);
	free(p.out);
	free(p.in);
	MPI_Finalize();
	return p.bad ? 1 : 0;
}
