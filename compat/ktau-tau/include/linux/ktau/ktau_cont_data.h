/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ktau's compatibility layer for TAU: KTAU's shared counters
 * (TAU's -ktau_shctr, KtauCounters.cpp; docs/tau.md).
 *
 * A container belongs to the thread that adds it; a counter set in it names
 * up to KTAU_SHCTR_MAX routines by their System.map addresses
 * (`ktau-ctl --system-map`).  ktau_copy_counter_type() gives, for each,
 * the calling thread's inclusive cycles, exclusive cycles or calls of that
 * routine so far.
 *
 * Cost: where the kernel has the shared counter area, ktau_get_counter()
 * registers one for the set on the calling thread (a set of at most 16
 * counters, the thread's first), and ktau_copy_counter_type() on that
 * thread is a few loads, no system call.  Otherwise (no area in this
 * kernel, another thread, a second set, over 16 counters) it reads and
 * parses the calling thread's profile, /proc/self/task/<tid>/ktau: one
 * open/read/close per call.
 */
#ifndef _KTAU_COMPAT_CONT_DATA_H
#define _KTAU_COMPAT_CONT_DATA_H

#include <linux/ktau/ktau_datatype.h>

#ifdef __cplusplus
extern "C" {
#endif

/* what ktau_copy_counter_type() copies for each counter */
#define KTAU_SHCTR_TYPE_INCL	1	/* inclusive TSC cycles */
#define KTAU_SHCTR_TYPE_NUM	2	/* calls */
#define KTAU_SHCTR_TYPE_EXCL	3	/* exclusive TSC cycles */

#define KTAU_SHCTR_MAX		64	/* counters in one set */

typedef struct _ktau_ushcont ktau_ushcont;	/* opaque */
typedef struct _ktau_ush_ctr ktau_ush_ctr;	/* opaque */

/*
 * A container for the calling thread (self must be 1; pid, nopids and
 * flags are ignored, size is KTAU's shared-memory size and only checked to
 * be positive).  NULL with errno set on failure: ENODEV without a ktau
 * kernel, EINVAL for other arguments.
 */
extern ktau_ushcont *ktau_add_container(int type, int self, pid_t *pid,
					unsigned int nopids, unsigned int *flags,
					long size);
/* Frees the container (its counter sets must be put first). 0 or -1/errno. */
extern int ktau_del_container(int type, int self, pid_t *pid, unsigned int nopids,
			      unsigned int *flags, ktau_ushcont *cont);
/*
 * A counter set named name over nsyms routine addresses; 0 and *ctr, or
 * -1 with errno: EINVAL (no such container, nsyms 0 or over
 * KTAU_SHCTR_MAX), ENOENT (an address names no ktau routine: the message
 * on standard error says which).
 */
extern int ktau_get_counter(ktau_ushcont *cont, const char *name, int nsyms,
			    unsigned long *syms, ktau_ush_ctr **ctr);
/* Frees a counter set, and unregisters its area when called on the
 * thread that has it (elsewhere, while that thread runs, the area stays:
 * the kernel may write it). 0 or -1/errno. */
extern int ktau_put_counter(ktau_ush_ctr *ctr);
/*
 * The first n counters' values into vals[0..n-1], counter i as types[i]
 * says (KTAU_SHCTR_TYPE_*; types NULL: exclusive cycles).  0, or -1 with
 * errno (the profile could not be read: vals unchanged).
 */
extern int ktau_copy_counter_type(ktau_ush_ctr *ctr, unsigned long long *vals,
				  int n, int *types);
/* The same with every counter of one type. */
extern int ktau_copy_counter_excl(ktau_ush_ctr *ctr, unsigned long long *vals, int n);
extern int ktau_copy_counter_incl(ktau_ush_ctr *ctr, unsigned long long *vals, int n);
extern int ktau_copy_counter_count(ktau_ush_ctr *ctr, unsigned long long *vals, int n);

#ifdef __cplusplus
}
#endif

#endif
