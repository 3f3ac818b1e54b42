/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ktau-export -f otf2: a trace's timeline as an OTF2 archive (Vampir,
 * Score-P's tools). Built only when libotf2 is there (KTAU_HAVE_OTF2, see
 * tools/otf2.mk), and linked into ktau-export alone: libktau never depends
 * on libotf2.
 */
#ifndef KTAU_OTF2_WRITER_H
#define KTAU_OTF2_WRITER_H

#include <stddef.h>
#include <stdint.h>

struct ktau_trace_timeline;

/* What the timeline does not hold but the archive says. */
struct otf2_trace_info {
	uint64_t realtime_ns;	/* CLOCK_REALTIME at the first event, 0: unknown */
	uint64_t lost_kernel;	/* events lost, summed over the CPUs */
	uint64_t lost_user;
	const char *creator;	/* "ktau-export VERSION" */
};

/* The archive name: DIR/traces.otf2, DIR/traces.def, DIR/traces/. */
#define OTF2_ARCHIVE_NAME "traces"

/*
 * Writes tl (with tsc_khz) as the OTF2 archive OTF2_ARCHIVE_NAME in
 * directory dir, which is created (its parent must exist) and must not
 * hold an archive of that name yet. 0, or a negative errno with a message
 * in msg (EEXIST, ENOMEM, EIO for what libotf2 reports).
 */
int otf2_write_timeline(const struct ktau_trace_timeline *tl,
			const struct otf2_trace_info *info, const char *dir,
			char *msg, size_t msg_size);

#endif
