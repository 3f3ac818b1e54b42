// SPDX-License-Identifier: GPL-2.0-or-later
/* The synthetic job of job_gen.h: each rank's files and the totals. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "job_gen.h"

/* Per-rank kernel time under MPI routines (microseconds). */
static double send_kernel(unsigned int r)
{
	return 50.0 * (r % 10) + 100;
}

static double recv_wait(unsigned int r)
{
	return 1000.0 + 10.0 * r;
}

#define POLL 500.0
#define IRQ 7.0
#define FAULT 30.0
#define WORKER 2000.0
#define MAIN_EXCL 1000.0
#define INIT 100.0
#define SEND_EXCL 200.0
#define RECV_EXCL 100.0
#define ALLREDUCE_EXCL 300.0
#define MESSAGES 10
#define MESSAGE_SIZE 1024.0

static void metadata(FILE *f, unsigned int r, unsigned int t, unsigned int node)
{
	fprintf(f, "# Name Calls Subrs Excl Incl ProfileCalls # <metadata>"
		"<attribute><name>Thread Label</name><value>rank %u thread %u</value></attribute>"
		"<attribute><name>Hostname</name><value>node%02u</value></attribute>"
		"<attribute><name>KTAU pid</name><value>%u</value></attribute>"
		"<attribute><name>KTAU node</name><value>%u</value></attribute>"
		"<attribute><name>OS Name</name><value>Linux</value></attribute>"
		"<attribute><name>Command Line</name><value>./ring --iterations 10 &amp; "
		"more</value></attribute></metadata>\n", r, t, node, 10000 + r, r);
}

static void line(FILE *f, const char *name, unsigned long calls, unsigned long subrs,
		 double excl, double incl, const char *group)
{
	fprintf(f, "\"%s\" %lu %lu %.16G %.16G 0 GROUP=\"%s\"\n", name, calls, subrs, excl, incl,
		group);
}

#define SYSCALL "TAU_KERNEL_MERGE | KTAU_SYSCALL"
#define CP_KERNEL "TAU_CALLPATH | TAU_KERNEL_MERGE"

static void main_thread(FILE *f, unsigned int r, unsigned int node)
{
	double s = send_kernel(r), w = recv_wait(r);
	double send = SEND_EXCL + s, recv = RECV_EXCL + w, allreduce = ALLREDUCE_EXCL + POLL;
	double main_incl = MAIN_EXCL + INIT + send + recv + allreduce + IRQ;

	fprintf(f, "17 templated_functions_MULTI_TIME\n");
	metadata(f, r, 0, node);
	line(f, "main", 1, 5, MAIN_EXCL, main_incl, "TAU_DEFAULT");
	line(f, "MPI_Init()", 1, 0, INIT, INIT, "MPI");
	line(f, "MPI_Send()", MESSAGES, MESSAGES, SEND_EXCL, send, "MPI");
	line(f, "MPI_Recv()", MESSAGES, MESSAGES, RECV_EXCL, recv, "MPI");
	line(f, "MPI_Allreduce()", 1, 1, ALLREDUCE_EXCL, allreduce, "MPI");
	line(f, "sys_sendto()", MESSAGES, 0, s, s, SYSCALL);
	line(f, "schedule_vol()", MESSAGES, 0, w, w, "TAU_KERNEL_MERGE | KTAU_SCHEDULE");
	line(f, "sys_poll()", 1, 0, POLL, POLL, SYSCALL);
	line(f, "irq()", 1, 0, IRQ, IRQ, "TAU_KERNEL_MERGE | KTAU_IRQ");
	line(f, "main => MPI_Init()", 1, 0, INIT, INIT, "TAU_CALLPATH | MPI");
	line(f, "main => MPI_Send()", MESSAGES, MESSAGES, SEND_EXCL, send, "TAU_CALLPATH | MPI");
	line(f, "main => MPI_Send() => sys_sendto()", MESSAGES, 0, s, s, CP_KERNEL);
	line(f, "main => MPI_Recv()", MESSAGES, MESSAGES, RECV_EXCL, recv, "TAU_CALLPATH | MPI");
	line(f, "main => MPI_Recv() => schedule_vol()", MESSAGES, 0, w, w, CP_KERNEL);
	line(f, "main => MPI_Allreduce()", 1, 1, ALLREDUCE_EXCL, allreduce, "TAU_CALLPATH | MPI");
	line(f, "main => MPI_Allreduce() => sys_poll()", 1, 0, POLL, POLL, CP_KERNEL);
	line(f, "main => irq()", 1, 0, IRQ, IRQ, CP_KERNEL);
	fprintf(f, "0 aggregates\n2 userevents\n# eventname numevents max min mean sumsqr\n");
	fprintf(f, "\"Message size sent to all nodes\" %d %.16G %.16G %.16G %.16G\n", MESSAGES,
		MESSAGE_SIZE, MESSAGE_SIZE, MESSAGE_SIZE, MESSAGES * MESSAGE_SIZE * MESSAGE_SIZE);
	fprintf(f, "\"Message size sent to all nodes : main => MPI_Send()\" %d %.16G %.16G %.16G "
		"%.16G\n", MESSAGES, MESSAGE_SIZE, MESSAGE_SIZE, MESSAGE_SIZE,
		MESSAGES * MESSAGE_SIZE * MESSAGE_SIZE);
}

static void worker_thread(FILE *f, unsigned int r, unsigned int t, unsigned int node)
{
	fprintf(f, "3 templated_functions_MULTI_TIME\n");
	metadata(f, r, t, node);
	line(f, "worker", 1, 1, WORKER, WORKER + FAULT, "TAU_USER");
	line(f, "page_fault()", 3, 0, FAULT, FAULT, "TAU_KERNEL_MERGE | KTAU_EXCEPTION");
	line(f, "worker => page_fault()", 3, 0, FAULT, FAULT, CP_KERNEL);
	fprintf(f, "0 aggregates\n");
}

/* Rank r's totals into t. */
static void count_rank(const struct job_gen *g, unsigned int r, struct job_gen_totals *t)
{
	double s = send_kernel(r), w = recv_wait(r);
	double main_incl = MAIN_EXCL + INIT + SEND_EXCL + s + RECV_EXCL + w + ALLREDUCE_EXCL +
			   POLL + IRQ;
	double kernel = s + w + POLL + IRQ + FAULT * (g->threads - 1);

	t->total += main_incl + (WORKER + FAULT) * (g->threads - 1);
	t->kernel += kernel;
	t->syscall += s + POLL;
	t->schedule += w;
	t->irq += IRQ;
	t->exception += FAULT * (g->threads - 1);
	if (!r || kernel > t->top_kernel) {
		t->top_kernel = kernel;
		t->top_kernel_rank = r;
	}
	if (!r || main_incl > t->main_max) {
		t->main_max = main_incl;
		t->main_max_rank = r;
	}
	if (!r || main_incl < t->main_min) {
		t->main_min = main_incl;
		t->main_min_rank = r;
	}
}

int job_gen_write(const char *dir, const struct job_gen *g, struct job_gen_totals *t)
{
	unsigned int per_node = (g->ranks + g->nodes - 1) / g->nodes, r, th;
	char path[4200];

	memset(t, 0, sizeof(*t));
	if (!g->ranks || !g->threads || !g->nodes)
		return -EINVAL;
	for (r = 0; r < g->ranks; r++) {
		for (th = 0; th < g->threads; th++) {
			FILE *f;
			int bad;

			snprintf(path, sizeof(path), "%s/profile.%u.0.%u", dir, r, th);
			f = fopen(path, "w");
			if (!f)
				return -errno;
			if (th)
				worker_thread(f, r, th, r / per_node);
			else
				main_thread(f, r, r / per_node);
			bad = ferror(f);
			if (fclose(f) || bad)
				return -EIO;
			t->files++;
		}
		count_rank(g, r, t);
		t->first_node_ranks += r / per_node == 0;
	}
	return 0;
}
