// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Receives and requests. A receive's size is known once it completes:
 * blocking receives read it from their status (one of ours when the
 * program passed MPI_STATUS_IGNORE); a nonblocking receive's request is
 * remembered when posted, and the wait or test that completes it reads
 * its status, so the size is charged to that MPI_Wait*() or MPI_Test*(),
 * as TAU does. Persistent sends are remembered too: each MPI_Start is a
 * message sent.
 *
 * The table of pending requests is process-wide by nature (a request may
 * be completed by another thread than the one that posted it): a small
 * hash table under one lock, skipped whole while it is empty.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kmpi.h"

_Static_assert(sizeof(MPI_Request) <= sizeof(uint64_t), "a request handle fits 64 bits");

enum pending_kind { PENDING_RECV, PENDING_PERSISTENT_RECV, PENDING_PERSISTENT_SEND };

struct pending {
	uint64_t key;
	enum pending_kind kind;
	double bytes;		/* a persistent send's message */
	struct pending *next;
};

#define NR_BUCKETS 1024u

static struct {
	pthread_mutex_t lock;
	struct pending *buckets[NR_BUCKETS];
	size_t count;		/* atomically: read without the lock */
} table = { .lock = PTHREAD_MUTEX_INITIALIZER };

static uint64_t key_of(MPI_Request request)
{
	uint64_t key = 0;

	memcpy(&key, &request, sizeof(request));
	return key;
}

static struct pending **bucket(uint64_t key)
{
	return &table.buckets[(key ^ key >> 17 ^ key >> 31) % NR_BUCKETS];
}

/* The entry for key, *link pointing at it; NULL when none. Under the lock. */
static struct pending *find(uint64_t key, struct pending ***link)
{
	struct pending **p;

	for (p = bucket(key); *p && (*p)->key != key; p = &(*p)->next)
		;
	*link = p;
	return *p;
}

static void unlink_entry(struct pending **link)
{
	struct pending *e = *link;

	*link = e->next;
	free(e);
	__atomic_store_n(&table.count, table.count - 1, __ATOMIC_RELAXED);
}

/* Remembers request (a handle the MPI may reuse once its last use ended:
 * a new one replaces what is left of the old). Without memory the
 * request goes uncounted. */
static void remember(MPI_Request request, enum pending_kind kind, double bytes)
{
	uint64_t key = key_of(request);
	struct pending **link, *e;

	if (request == MPI_REQUEST_NULL)
		return;
	pthread_mutex_lock(&table.lock);
	e = find(key, &link);
	if (!e && (e = calloc(1, sizeof(*e)))) {
		e->key = key;
		*link = e;
		__atomic_store_n(&table.count, table.count + 1, __ATOMIC_RELAXED);
	}
	if (e) {
		e->kind = kind;
		e->bytes = bytes;
	}
	pthread_mutex_unlock(&table.lock);
}

static bool table_empty(void)
{
	return __atomic_load_n(&table.count, __ATOMIC_RELAXED) == 0;
}

void kmpi_track_recv(const MPI_Request *request, int persistent)
{
	remember(*request, persistent ? PENDING_PERSISTENT_RECV : PENDING_RECV, 0);
}

void kmpi_track_send(const MPI_Request *request, int count, MPI_Datatype type, int peer)
{
	/* nothing will be sent to MPI_PROC_NULL: nothing to remember */
	if (peer != MPI_PROC_NULL)
		remember(*request, PENDING_PERSISTENT_SEND, kmpi_bytes(count, type));
}

void kmpi_started(const MPI_Request *requests, int count)
{
	struct pending **link, *e;
	int i;

	if (table_empty())
		return;
	for (i = 0; i < count; i++) {
		double bytes = -1;

		pthread_mutex_lock(&table.lock);
		e = find(key_of(requests[i]), &link);
		if (e && e->kind == PENDING_PERSISTENT_SEND)
			bytes = e->bytes;
		pthread_mutex_unlock(&table.lock);
		if (bytes >= 0)
			kmpi_event(KMPI_SENT, bytes);
	}
}

void kmpi_forget(const MPI_Request *request)
{
	struct pending **link;

	if (table_empty())
		return;
	pthread_mutex_lock(&table.lock);
	if (find(key_of(*request), &link))
		unlink_entry(link);
	pthread_mutex_unlock(&table.lock);
}

/* The request that was key completed with status: a remembered receive
 * received; a non-persistent one is done with. */
static void completed(uint64_t key, const MPI_Status *status)
{
	struct pending **link, *e;
	bool received = false;

	pthread_mutex_lock(&table.lock);
	e = find(key, &link);
	if (e && e->kind != PENDING_PERSISTENT_SEND) {
		received = true;
		if (e->kind == PENDING_RECV)
			unlink_entry(link);
	}
	pthread_mutex_unlock(&table.lock);
	if (received)
		kmpi_received(status);
}

void kmpi_complete(MPI_Request request, const MPI_Status *status)
{
	if (!table_empty())
		completed(key_of(request), status);
}

/* ---- what a wait or test needs: the handles before, statuses after ---- */

#define ON_STACK 16

struct completion {
	uint64_t keys_buf[ON_STACK];
	MPI_Status statuses_buf[ON_STACK];
	uint64_t *keys;		/* NULL: nothing to count */
	MPI_Status *statuses;	/* what to hand the MPI */
	bool own_statuses;	/* ours, not the program's */
};

/* Before a wait or test of count requests: their keys, and statuses to
 * read when the program wants none. Counts nothing when there is nothing
 * pending or no memory. */
static void completion_begin(struct completion *c, const MPI_Request *requests, int count,
			     MPI_Status *statuses)
{
	int i;

	c->keys = NULL;
	c->statuses = statuses;
	c->own_statuses = false;
	if (table_empty() || count <= 0)
		return;
	c->keys = count <= ON_STACK ? c->keys_buf : malloc(count * sizeof(*c->keys));
	if (!c->keys)
		return;
	/* one value in the MPIs we know, two names in the standard */
	if (statuses == MPI_STATUSES_IGNORE || statuses == MPI_STATUS_IGNORE) {
		c->statuses = count <= ON_STACK ? c->statuses_buf
						: malloc(count * sizeof(*c->statuses));
		if (!c->statuses) {
			c->statuses = statuses;
			if (c->keys != c->keys_buf)
				free(c->keys);
			c->keys = NULL;
			return;
		}
		c->own_statuses = true;
	}
	for (i = 0; i < count; i++)
		c->keys[i] = key_of(requests[i]);
}

static void completion_one(const struct completion *c, int index)
{
	if (c->keys && index >= 0)
		completed(c->keys[index], &c->statuses[index]);
}

/* index: where the status of c's i-th completion is (MPI_Waitsome gives
 * them packed, in the order of indices[]) */
/*
 * The request that an MPI_Waitany or MPI_Testany completed, @index
 * (MPI_UNDEFINED: none); its status was received in statuses[0], the
 * caller's copy is @status.
 */
static void completion_any(const struct completion *c, int index, MPI_Status *status)
{
	if (!c->keys || index == MPI_UNDEFINED)
		return;
	completed(c->keys[index], &c->statuses[0]);
	if (status != MPI_STATUS_IGNORE)
		*status = c->statuses[0];
}

static void completion_some(const struct completion *c, const int indices[], int n)
{
	int i;

	for (i = 0; c->keys && i < n; i++)
		completed(c->keys[indices[i]], &c->statuses[i]);
}

static void completion_end(struct completion *c)
{
	if (c->keys && c->keys != c->keys_buf)
		free(c->keys);
	if (c->own_statuses && c->statuses != c->statuses_buf)
		free(c->statuses);
}

/* ---- the routines ---- */

#define TIMED(name)							\
	static struct ktau_timer *site;					\
	struct ktau_timer *timer = kmpi_enter(&site, name "()")

KMPI_API int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
		      MPI_Comm comm, MPI_Status *status)
{
	TIMED("MPI_Recv");
	MPI_Status mine;
	int ret;

	if (status == MPI_STATUS_IGNORE)
		status = &mine;
	ret = PMPI_Recv(buf, count, datatype, source, tag, comm, status);
	if (ret == MPI_SUCCESS)
		kmpi_received(status);
	kmpi_leave(timer);
	return ret;
}

KMPI_API int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			  int dest, int sendtag, void *recvbuf, int recvcount,
			  MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
			  MPI_Status *status)
{
	TIMED("MPI_Sendrecv");
	MPI_Status mine;
	int ret;

	if (status == MPI_STATUS_IGNORE)
		status = &mine;
	ret = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
			    recvcount, recvtype, source, recvtag, comm, status);
	if (ret == MPI_SUCCESS) {
		kmpi_sent(sendcount, sendtype, dest);
		kmpi_received(status);
	}
	kmpi_leave(timer);
	return ret;
}

KMPI_API int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest,
				  int sendtag, int source, int recvtag, MPI_Comm comm,
				  MPI_Status *status)
{
	TIMED("MPI_Sendrecv_replace");
	MPI_Status mine;
	int ret;

	if (status == MPI_STATUS_IGNORE)
		status = &mine;
	ret = PMPI_Sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag,
				    comm, status);
	if (ret == MPI_SUCCESS) {
		kmpi_sent(count, datatype, dest);
		kmpi_received(status);
	}
	kmpi_leave(timer);
	return ret;
}

KMPI_API int MPI_Mrecv(void *buf, int count, MPI_Datatype type, MPI_Message *message,
		       MPI_Status *status)
{
	TIMED("MPI_Mrecv");
	MPI_Status mine;
	int ret;

	if (status == MPI_STATUS_IGNORE)
		status = &mine;
	ret = PMPI_Mrecv(buf, count, type, message, status);
	if (ret == MPI_SUCCESS)
		kmpi_received(status);
	kmpi_leave(timer);
	return ret;
}

KMPI_API int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
	TIMED("MPI_Wait");
	struct completion c;
	int ret;

	completion_begin(&c, request, 1, status);
	ret = PMPI_Wait(request, c.statuses);
	if (ret == MPI_SUCCESS)
		completion_one(&c, 0);
	completion_end(&c);
	kmpi_leave(timer);
	return ret;
}

KMPI_API int MPI_Waitall(int count, MPI_Request array_of_requests[],
			 MPI_Status *array_of_statuses)
{
	TIMED("MPI_Waitall");
	struct completion c;
	int ret, i;

	completion_begin(&c, array_of_requests, count, array_of_statuses);
	ret = PMPI_Waitall(count, array_of_requests, c.statuses);
	for (i = 0; ret == MPI_SUCCESS && i < count; i++)
		completion_one(&c, i);
	completion_end(&c);
	kmpi_leave(timer);
	return ret;
}

KMPI_API int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index,
			 MPI_Status *status)
{
	TIMED("MPI_Waitany");
	struct completion c;
	int ret;

	completion_begin(&c, array_of_requests, count, MPI_STATUSES_IGNORE);
	ret = PMPI_Waitany(count, array_of_requests, index,
			   c.keys ? &c.statuses[0] : status);
	if (ret == MPI_SUCCESS)
		completion_any(&c, *index, status);
	completion_end(&c);
	kmpi_leave(timer);
	return ret;
}

KMPI_API int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
			  int array_of_indices[], MPI_Status array_of_statuses[])
{
	TIMED("MPI_Waitsome");
	struct completion c;
	int ret;

	completion_begin(&c, array_of_requests, incount, array_of_statuses);
	ret = PMPI_Waitsome(incount, array_of_requests, outcount, array_of_indices,
			    c.statuses);
	if (ret == MPI_SUCCESS && *outcount != MPI_UNDEFINED)
		completion_some(&c, array_of_indices, *outcount);
	completion_end(&c);
	kmpi_leave(timer);
	return ret;
}

KMPI_API int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
	TIMED("MPI_Test");
	struct completion c;
	int ret;

	completion_begin(&c, request, 1, status);
	ret = PMPI_Test(request, flag, c.statuses);
	if (ret == MPI_SUCCESS && *flag)
		completion_one(&c, 0);
	completion_end(&c);
	kmpi_leave(timer);
	return ret;
}

KMPI_API int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
			 MPI_Status array_of_statuses[])
{
	TIMED("MPI_Testall");
	struct completion c;
	int ret, i;

	completion_begin(&c, array_of_requests, count, array_of_statuses);
	ret = PMPI_Testall(count, array_of_requests, flag, c.statuses);
	for (i = 0; ret == MPI_SUCCESS && *flag && i < count; i++)
		completion_one(&c, i);
	completion_end(&c);
	kmpi_leave(timer);
	return ret;
}

KMPI_API int MPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
			 MPI_Status *status)
{
	TIMED("MPI_Testany");
	struct completion c;
	int ret;

	completion_begin(&c, array_of_requests, count, MPI_STATUSES_IGNORE);
	ret = PMPI_Testany(count, array_of_requests, index, flag,
			   c.keys ? &c.statuses[0] : status);
	if (ret == MPI_SUCCESS && *flag)
		completion_any(&c, *index, status);
	completion_end(&c);
	kmpi_leave(timer);
	return ret;
}

KMPI_API int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
			  int array_of_indices[], MPI_Status array_of_statuses[])
{
	TIMED("MPI_Testsome");
	struct completion c;
	int ret;

	completion_begin(&c, array_of_requests, incount, array_of_statuses);
	ret = PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices,
			    c.statuses);
	if (ret == MPI_SUCCESS && *outcount != MPI_UNDEFINED)
		completion_some(&c, array_of_indices, *outcount);
	completion_end(&c);
	kmpi_leave(timer);
	return ret;
}
