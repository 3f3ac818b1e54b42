/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ktau's compatibility layer for TAU (docs/tau.md): the original KTAU user
 * API, implemented over libktau's reader of ktau's /proc files (profile
 * format 2).  TAU ships its own copy of this header
 * (include/Profile/ktau_proc_interface.h); this one declares the same
 * functions with the same prototypes, the same include guard, and the
 * rest of the library after them.  Link with -L<this layer's lib> -lktau
 * (its own libktau.a, apart from libktau's).
 *
 * Errors: -1 (or NULL) with errno set, as the original.
 */
#ifndef _KTAU_PROC_INTERFACE_H
#define _KTAU_PROC_INTERFACE_H

#ifdef __cplusplus
extern "C" {
#endif

#include <linux/ktau/ktau_datatype.h>
#include <linux/ktau/ktau_proc_external.h>
#include <linux/ktau/ktau_proc_data.h>

#include <stdio.h>

extern long ktau_dump_toggle();

#define KTAU_PROFILE		0
#define KTAU_TRACE		1

/*
 * read_size: the bytes read_data() needs for the packed profiles of
 *   self = 1            the calling thread;
 *   pid, nopids > 0     those threads (thread ids; a process's pid is its
 *                       main thread's);
 *   nopids = 0          every thread the caller may read (/proc/ktau/profile).
 * The size is scaled up by compratio (0 to 1; -1: 0.5) and 64 entries for
 * what the profiles may grow by before read_data().  type KTAU_TYPE_PROFILE
 * only (KTAU_TYPE_TRACE: ENOTSUP).  tol and flags are ignored.
 */
extern long read_size(int type, int self, pid_t *pid, unsigned int nopids, unsigned long tol, unsigned int* flags, float compratio);

/*
 * read_data: the same tasks' profiles packed into buffer (ktau_proc_data.h),
 * sorted by thread id; returns the bytes written.  A listed thread that
 * cannot be read (it exited, or the caller may not read it) is left out;
 * -1 when none could be read (errno of the last), or ENOSPC when size is too
 * small.
 */
extern long read_data(int type, int self, pid_t *pid, unsigned int nopids, char* buffer, unsigned long size, unsigned long tol, unsigned int* flags);

/*
 * purge_data: clears the profiles.  ktau clears every profile at once
 * (`clear` on /proc/ktau/control): root only, others get EPERM.
 */
extern long purge_data(pid_t *pid, unsigned int nopids, unsigned long tol, unsigned int* flags);

/* write_data: unsupported (ENOSYS), as in KTAU. */
extern long write_data(pid_t *pid, unsigned int nopids, char* buffer, unsigned long size, unsigned long tol, unsigned int* flags);

/* ktau_set_state: KTAU's merge state; ktau has none (ENOSYS). */
extern long ktau_set_state(pid_t *pid, ktau_state* state, unsigned int* flags);

/*
 * unpack_bindata: packed data of size bytes (at least what read_data()
 * wrote; bytes after the last profile are ignored) into *output, a
 * malloc()ed array of profiles, each ent_lst malloc()ed: the caller frees
 * them.  Returns the number of profiles, or -1 with errno EINVAL (NULL
 * arguments, KTAU_TYPE_TRACE) or EPROTO (truncated or malformed data) and
 * *output NULL.
 */
extern long unpack_bindata(int type, char* buffer, unsigned long size, ktau_output** output);

/* One line per task, one per entry: index, address, calls, incl, excl. */
extern void print_many_profiles(int type, FILE* fp, const ktau_output* profiles, unsigned int no_profiles);
extern void print_ktau_output(int type, FILE* fp, const ktau_output* profile);

/*
 * aggr_many_profiles: the sum of no_profiles profiles, entry by index, into
 * outprofile (its ent_lst allocated by the caller for max_prof_entries
 * entries; outprofile->pid is set to 0).  0, or -1 with errno ENOSPC when
 * the sum has more than max_prof_entries entries (outprofile->size is then
 * max_prof_entries: the lowest indexes), EINVAL for NULL arguments, or
 * EOVERFLOW when a sum does not fit in 64 bits.
 */
int aggr_many_profiles(const ktau_output* inprofiles, unsigned int no_profiles, unsigned int max_prof_entries, ktau_output* outprofile);

/*
 * ktau_diff_profiles: stop (plist2) minus start (plist1), task by thread id:
 * a task in both gets each entry's difference (an entry only in stop is
 * copied; one only in start, or whose counts went down because the profiles
 * were cleared in between, gives stop's values: what was recorded since the
 * clear); a task only in stop is copied; one only in start (exited) is left
 * out.  *outlist is a new malloc()ed array sorted by thread id, each ent_lst
 * a new malloc()ed array; the inputs are not changed.  Returns the number of
 * tasks, or -1 with errno EINVAL or ENOMEM.
 */
int ktau_diff_profiles(ktau_output* plist1, int size1, ktau_output* plist2, int size2, ktau_output** outlist);

/* Frees what unpack_bindata() or ktau_diff_profiles() returned. */
void ktau_free_profiles(ktau_output* profiles, long no_profiles);

/*
 * ktau_get_tsc: the kernel's cycle counter rate, ticks per second (the
 * calling thread's profile's tsc_khz * 1000); 0 with errno set when it
 * cannot be read.  TAU built with TAU_mips divides KTAU cycles by it.
 */
double ktau_get_tsc(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif
