// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Every MPI routine of kmpi_calls.def as a timer around its PMPI_ twin:
 * the hooks below say what else a routine records (message sizes, the
 * requests whose completion kmpi_requests.c counts).
 */
#include "kmpi.h"

/* hooks (kmpi_calls.def) */
#define K_NONE ((void)0)
#define K_SENT(count, type, peer) kmpi_sent((count), (type), (peer))
#define K_COLL(event, bytes) kmpi_event((event), (bytes))
#define K_IO(event, count, type) kmpi_event((event), kmpi_bytes((count), (type)))
#define K_TRACK_RECV(request) kmpi_track_recv((request), 0)
#define K_TRACK_PERSISTENT_RECV(request) kmpi_track_recv((request), 1)
#define K_TRACK_SEND(request, count, type, peer) \
	kmpi_track_send((request), (count), (type), (peer))
#define K_STARTED(requests, count) kmpi_started((requests), (count))
#define K_FORGET(request) kmpi_forget(request)

/* sizes of collectives */
#define K_BYTES(count, type) kmpi_bytes((count), (type))
#define K_BYTES_V(counts, type, comm) kmpi_bytes_v((counts), (type), (comm))
#define K_BYTES_W(counts, types, comm) kmpi_bytes_w((counts), (types), (comm))
#define K_BYTES_SCALED(count, type, comm) kmpi_bytes_scaled((count), (type), (comm))
/* with MPI_IN_PLACE the other buffer's count and type say the size */
#define K_IN_PLACE(buf, count, type, other_count, other_type)			\
	((buf) == MPI_IN_PLACE ? kmpi_bytes((other_count), (other_type))	\
			       : kmpi_bytes((count), (type)))

#define KMPI_WRAP(name, params, args, before, after)			\
	KMPI_API int name params					\
	{								\
		static struct ktau_timer *site;				\
		struct ktau_timer *timer = kmpi_enter(&site, #name "()"); \
		int ret;						\
									\
		before;							\
		ret = P##name args;					\
		if (ret == MPI_SUCCESS)					\
			after;						\
		kmpi_leave(timer);					\
		return ret;						\
	}

#include "kmpi_calls.def"
