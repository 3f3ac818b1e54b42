/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ktau's compatibility layer for TAU (compat/ktau-tau, docs/tau.md): the
 * data types of the original KTAU user API, as TAU's KTAU code
 * (TauKtau.cpp, KtauProfiler.cpp, KtauCounters.cpp) uses them.  Written for
 * ktau; only the names and the meaning of the fields follow KTAU.
 *
 * An unpacked profile is one ktau_output per task: its thread id and an
 * array of o_ent, one per kernel routine or event that task recorded,
 * sorted by index, each index once:
 *
 *   index    the routine's key: ktau function id fid as fid (fid < 300) or
 *            fid + 100 (fid >= 300); 300-399 are atomic events (TAU writes
 *            those as user events): 300 + fid % 100, or the next free one
 *            when another event of the process has it; an index stays with
 *            its routine for the process's life
 *   entry.addr  the routine's address in the System.map that
 *            `ktau-ctl --system-map` writes (0xc1000000 + 16 * fid): TAU
 *            names the routine through that map (-ktausym=)
 *   entry.type  KTAU_TIMER
 *   entry.data.timer  calls, inclusive and exclusive TSC cycles, summed
 *            over the user contexts (for an event: count, and the sum of
 *            its values in both incl and excl)
 */
#ifndef _KTAU_COMPAT_DATATYPE_H
#define _KTAU_COMPAT_DATATYPE_H

#include <sys/types.h>

/*
 * TAU's KTAU code (KtauProfiler.h, KtauCounters.h) sizes its per-thread
 * tables with TAU_MAX_THREADS, which TAU itself no longer defines (its
 * threads are dynamic); only its -ktau_merge header gives a default.  The
 * same default here, for TAU's KTAU builds only; a program with more
 * threads needs TAU configured with -useropt=-DTAU_MAX_THREADS=N.
 */
#if (defined(TAUKTAU) || defined(TAUKTAU_SHCTR)) && !defined(TAU_MAX_THREADS)
#define TAU_MAX_THREADS 128
#endif

#ifdef __cplusplus
extern "C" {
#endif

#include <linux/ktau/ktau_merge.h>

/* h_ent.type */
#define KTAU_TIMER	0
#define KTAU_EVENT	1	/* not produced: events are KTAU_TIMER entries too */

/* index ranges (TAU treats 300-399 as events) */
#define KTAU_EVENT_INDEX_FIRST	300
#define KTAU_EVENT_INDEX_LAST	399

typedef struct _ktau_timer {
	unsigned long long count;	/* completed calls */
	unsigned long long incl;	/* inclusive TSC cycles */
	unsigned long long excl;	/* exclusive TSC cycles */
} ktau_timer;

typedef union _ktau_data {
	ktau_timer timer;
} ktau_data;

typedef struct _h_ent {
	unsigned long addr;		/* System.map address; fits in 32 bits */
	unsigned int type;		/* KTAU_TIMER */
	ktau_data data;
} h_ent;

typedef struct _o_ent {
	unsigned int index;
	h_ent entry;
} o_ent;

/* one trace record (KTAU_TYPE_TRACE: not supported, see read_size()) */
typedef struct _ktau_trace {
	unsigned long long tsc;
	unsigned long addr;
	unsigned int type;
} ktau_trace;

typedef struct _ktau_output {
	pid_t pid;			/* the task's thread id */
	unsigned int size;		/* entries in ent_lst */
	o_ent *ent_lst;
	ktau_trace *trace_lst;		/* always NULL */
} ktau_output;


#ifdef __cplusplus
}
#endif

#endif
