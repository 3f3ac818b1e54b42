/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ktau's compatibility layer for TAU: the packed profile data that
 * read_data() hands out and unpack_bindata() reads, in the machine's byte
 * order:
 *
 *   u32 n                      how many task profiles follow
 *   n times:
 *     u32 pid                  the task's thread id
 *     u32 size                 how many o_ent follow
 *     o_ent[size]              sizeof(o_ent) bytes each, unaligned
 *
 * ktau_package_t is the header of KTAU's old binary /proc protocol, kept
 * for code that takes its size; ktau never reads or writes it.
 */
#ifndef _KTAU_COMPAT_PROC_DATA_H
#define _KTAU_COMPAT_PROC_DATA_H

#include <linux/ktau/ktau_datatype.h>

typedef struct _ktau_package {
	int type;
	pid_t pid;
	unsigned long size;
	unsigned int flags;
} ktau_package_t;

#define KTAU_PACKED_HEADER_BYTES	4	/* u32 n */
#define KTAU_PACKED_TASK_BYTES		8	/* u32 pid, u32 size */

#endif
