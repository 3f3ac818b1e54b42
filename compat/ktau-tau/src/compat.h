/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Internals of ktau's TAU compatibility layer: the entries of one task and
 * the tasks of one read.  Everything is read through libktau's public
 * reader; nothing here parses /proc.
 */
#ifndef KTAU_TAU_COMPAT_H
#define KTAU_TAU_COMPAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <ktau.h>
#include <ktau_proc_interface.h>
#include <linux/ktau/ktau_cont_data.h>

/* the layer's API: exported from the library; everything else is not */
#define KTAU_COMPAT_API __attribute__((visibility("default")))

struct ktc_task {
	pid_t tid;
	unsigned int size;
	o_ent *ents;
};

/* The calling thread's id. */
pid_t ktc_gettid(void);

/*
 * One task's entries from a profile block: a func record per (ctx, fid)
 * summed per fid, an event per fid; sorted by index, each index one
 * routine's for the process's life (events past the 100th are left out).
 * 0, or -ENOMEM, -ERANGE (a fid beyond the map's range).
 */
int ktc_block_entries(const struct ktau_block *b, o_ent **ents, unsigned int *n);

/*
 * The tasks read_size()/read_data() mean (self; pids; or all), sorted by
 * thread id.  0, or a negative errno value.
 */
int ktc_read_tasks(int self, const pid_t *pids, unsigned int nopids,
		   struct ktc_task **tasks, size_t *ntasks);
void ktc_free_tasks(struct ktc_task *tasks, size_t ntasks);

/* The packed size of tasks, and the packing into buf (that many bytes). */
size_t ktc_packed_size(const struct ktc_task *tasks, size_t ntasks);
void ktc_pack(const struct ktc_task *tasks, size_t ntasks, char *buf);

/* a + b saturated; *overflow set when it saturates */
static inline unsigned long long ktc_add(unsigned long long a, unsigned long long b,
					 bool *overflow)
{
	if (a + b < a) {
		*overflow = true;
		return ~0ULL;
	}
	return a + b;
}

/* qsort order of o_ent: index, then address */
int ktc_cmp_ent(const void *a, const void *b);

#endif
