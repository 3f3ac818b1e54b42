/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private to libktau: an archive's layout, shared by its container, tar and
 * collector files (docs/archive-format.md). */
#ifndef KTAU_ARCHIVE_ARCHIVE_H
#define KTAU_ARCHIVE_ARCHIVE_H

#include <time.h>

#include "proc/proc.h"

/* The first member of every archive: its manifest. */
#define KTAU_ARCHIVE_MANIFEST "ktau-archive"
#define KTAU_ARCHIVE_VERSION 1
/* ustar's name field; longer member names would need its prefix field. */
#define KTAU_ARCHIVE_NAME_MAX 99

struct ktau_archive {
	struct ktau_archive_member *members;	/* name and data malloc()ed */
	size_t nr_members, cap_members;
	struct ktau_archive_info *info;		/* the manifest, in order; malloc()ed */
	size_t nr_info, cap_info;
	time_t mtime;				/* of every tar header */
	bool manifest_read;			/* reading: the first member was it */
};

/* Appends a member, copying name and data (a NUL is kept after the data). */
KTAU_HIDDEN int ktau__archive_append(struct ktau_archive *a, const char *name,
				     size_t name_len, const void *data, size_t size);
/* The manifest text; malloc()ed, NULL when out of memory. */
KTAU_HIDDEN char *ktau__archive_manifest(const struct ktau_archive *a, size_t *len);
/* Fills a's info from the manifest member's text; 0 or -EPROTO/-EPROTONOSUPPORT. */
KTAU_HIDDEN int ktau__archive_parse_manifest(struct ktau_archive *a, const char *text,
					     size_t len, struct ktau_parse_error *err);
/* The tar stream of a to out. */
KTAU_HIDDEN int ktau__archive_emit_tar(const struct ktau_archive *a, FILE *out);
/* Appends the members of the tar in buf to a (the manifest included). */
KTAU_HIDDEN int ktau__archive_parse_tar(struct ktau_archive *a, const char *buf,
					size_t len, struct ktau_parse_error *err);

#endif /* KTAU_ARCHIVE_ARCHIVE_H */
