// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile-select.h"
#include "report-view.h"

/* Says what e (NULL: only error is known) says, and frees it. */
static void print_parse_error(const char *path, struct ktau_error *e, int error)
{
	if (ktau_error_line(e))
		fprintf(stderr, "ktau-report: %s: line %u: %s\n", path, ktau_error_line(e),
			ktau_error_message(e));
	else
		fprintf(stderr, "ktau-report: %s: %s\n", path,
			e ? ktau_error_message(e) : ktau_strerror(error));
	ktau_error_free(e);
}

static int open_archive(struct report_input *in, const char *buf, size_t len)
{
	struct ktau_error *err;
	size_t i, n;

	in->archive = ktau_archive_parse(buf, len, &err);
	if (!in->archive) {
		print_parse_error(in->path, err, errno);
		return -EPROTO;
	}
	n = ktau_archive_profile_count(in->archive);
	in->profiles = calloc(n ? n : 1, sizeof(*in->profiles));
	if (!in->profiles)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		in->profiles[i] = ktau_archive_profile(in->archive, i, &err);
		if (!in->profiles[i]) {
			print_parse_error(in->path, err, errno);
			return -EPROTO;
		}
		in->nr_profiles++;
	}
	if (!n) {
		fprintf(stderr, "ktau-report: %s: the archive has no profiles\n", in->path);
		return -ENOENT;
	}
	return 0;
}

int report_input_open(struct report_input *in, const char *path)
{
	KTAU_OPTS(ktau_load_opts, load, .path = path);
	struct ktau_error *err = NULL;
	size_t len = 0;
	char *buf;
	int ret = 0;

	memset(in, 0, sizeof(*in));
	in->path = path;
	buf = ktau_raw_load(&load, &len, NULL);
	if (!buf) {
		ret = -errno;
		fprintf(stderr, "ktau-report: cannot read %s: %s\n", path, strerror(-ret));
		return ret;
	}
	if (ktau_archive_detect(buf, len)) {
		ret = open_archive(in, buf, len);
	} else {
		in->profiles = calloc(1, sizeof(*in->profiles));
		if (in->profiles)
			in->profiles[0] = ktau_profile_parse(buf, len, &err);
		if (!in->profiles || !in->profiles[0]) {
			ret = -errno;
			print_parse_error(path, err, errno);
		} else {
			in->nr_profiles = 1;
		}
	}
	free(buf);
	return ret;
}

void report_input_close(struct report_input *in)
{
	size_t i;

	for (i = 0; i < in->nr_profiles; i++)
		ktau_profile_free(in->profiles[i]);
	free(in->profiles);
	ktau_archive_free(in->archive);
	memset(in, 0, sizeof(*in));
}

int report_input_groups(const struct report_input *in, struct group_set *g)
{
	struct ktau_functions *map = in->archive ? ktau_archive_functions(in->archive, NULL)
						 : NULL;
	size_t i;
	int ret = map ? group_set_add_functions(g, map) : 0;

	/* an archive without a map still has its profiles' groups */
	ktau_functions_free(map);
	for (i = 0; !ret && i < in->nr_profiles; i++)
		ret = group_set_add_profile(g, in->profiles[i]);
	return ret;
}

static const char *info(const struct report_input *in, const char *key)
{
	const char *v = ktau_archive_info(in->archive, key);

	return v ? v : "?";
}

void report_input_describe(FILE *out, const struct report_input *in)
{
	if (!in->archive) {
		fprintf(out, "# %s: %s profile\n", in->path,
			ktau_scope_name(ktau_profile_scope(in->profiles[0])));
		return;
	}
	fprintf(out, "# %s: archive of pids %s, host %s, kernel %s, created %s\n",
		in->path, info(in, "pids"), info(in, "host"), info(in, "kernel_release"),
		info(in, "created"));
}

/* ---- the view ---- */

/* dst's block for (kind, pid, tid), made on first use. */
static struct ktau_block *view_block(struct ktau_profile *view, enum ktau_block_kind kind,
				     pid_t pid, pid_t tid, const char *comm)
{
	const struct ktau_block *b = ktau_profile_find_block(view, kind, pid, tid);

	if (!b)
		return ktau_profile_add_block(view, kind, pid, tid, comm);
	/* the view is ours to change; the library hands blocks out as const */
	return (struct ktau_block *)b;
}

static int add_to(struct ktau_profile *view, enum ktau_block_kind kind, pid_t tid,
		  const struct ktau_block *src)
{
	struct ktau_block *dst = view_block(view, kind, ktau_block_pid(src), tid,
					    ktau_block_comm(src));

	return dst ? ktau_block_add(dst, src) : -errno;
}

/* The blocks of p that o reports, added to view. */
static int add_profile(struct ktau_profile *view, const struct ktau_profile *p,
		       const struct view_options *o, bool in_archive)
{
	enum ktau_scope scope = ktau_profile_scope(p);
	size_t i;
	int ret = 0;

	for (i = 0; i < ktau_profile_block_count(p) && !ret; i++) {
		const struct ktau_block *b = ktau_profile_block(p, i);
		enum ktau_block_kind kind = ktau_block_kind(b);

		if (o->pid && ktau_block_pid(b) != o->pid)
			continue;
		if (kind == KTAU_BLOCK_CHILDREN) {
			if (o->children)
				ret = add_to(view, kind, 0, b);
		} else if (o->threads) {
			if (kind != KTAU_BLOCK_PROCESS)
				ret = add_to(view, kind, ktau_block_tid(b), b);
		} else if (kind == KTAU_BLOCK_PROCESS || scope == KTAU_SCOPE_SYSTEM) {
			ret = add_to(view, KTAU_BLOCK_PROCESS, ktau_block_pid(b), b);
		} else if (!in_archive) {
			/* a lone thread profile: all there is */
			ret = add_to(view, kind, ktau_block_tid(b), b);
		}
	}
	return ret;
}

struct ktau_profile *report_view(const struct report_input *in,
				 const struct view_options *o)
{
	uint64_t khz = ktau_profile_tsc_khz(in->profiles[0]);
	struct ktau_profile *view = ktau_profile_new(KTAU_SCOPE_SYSTEM, khz);
	size_t i;
	int ret = 0;

	for (i = 0; view && i < in->nr_profiles && !ret; i++) {
		if (ktau_profile_tsc_khz(in->profiles[i]) != khz)
			ret = -EINVAL;
		else
			ret = add_profile(view, in->profiles[i], o, in->archive != NULL);
	}
	if (ret) {
		ktau_profile_free(view);
		errno = -ret;
		return NULL;
	}
	return view;
}
