// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Writing a model: format names, the C locale, files written atomically,
 * XML escaping (tau's metadata, svg). The formats themselves live in
 * write_<format>.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/export.h"

static const char *const format_names[] = {
	[KTAU_FORMAT_TAU] = "tau",
	[KTAU_FORMAT_PPROF] = "pprof",
	[KTAU_FORMAT_CALLGRIND] = "callgrind",
	[KTAU_FORMAT_FOLDED] = "folded",
	[KTAU_FORMAT_JSON] = "json",
	[KTAU_FORMAT_SVG] = "svg",
};

#define NR_FORMATS KTAU_ARRAY_SIZE(format_names)

int ktau_model_format_from_name(const char *name)
{
	size_t i;

	for (i = 1; name && i < NR_FORMATS; i++)
		if (!strcmp(name, format_names[i]))
			return (int)i;
	return -EINVAL;
}

const char *ktau_model_format_name(enum ktau_model_format format)
{
	if ((size_t)format >= NR_FORMATS || !format_names[format]) {
		errno = EINVAL;
		return NULL;
	}
	return format_names[format];
}

void ktau__put_xml_n(FILE *out, const char *s, size_t n)
{
	for (; n--; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&apos;", out);
			break;
		default:
			putc(*s, out);
		}
	}
}

void ktau__put_xml(FILE *out, const char *s)
{
	ktau__put_xml_n(out, s, strlen(s));
}

/* Runs emit in the C locale (numbers with '.', whatever the program set);
 * then a write error on the stream is an error of the emit. */
static int emit_in_c_locale(ktau_emit_fn emit, const void *arg, FILE *out)
{
	locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	locale_t old;
	int ret;

	if (c == (locale_t)0)
		return -ENOMEM;
	old = uselocale(c);
	errno = 0;
	ret = emit(arg, out);
	uselocale(old);
	freelocale(c);
	if (!ret && fflush(out))
		ret = -errno;
	if (!ret && ferror(out))
		ret = errno ? -errno : -EIO;	/* what the failed write set */
	return ret;
}

int ktau__write_file_atomic(const char *path, ktau_emit_fn emit, const void *arg)
{
	size_t len = strlen(path);
	char *tmp = malloc(len + sizeof(".tmp.XXXXXX"));
	FILE *out = NULL;
	int fd, ret;

	if (!tmp)
		return -ENOMEM;
	memcpy(tmp, path, len);
	memcpy(tmp + len, ".tmp.XXXXXX", sizeof(".tmp.XXXXXX"));
	fd = mkstemp(tmp);
	if (fd < 0) {
		ret = -errno;
		free(tmp);
		return ret;
	}
	if (fchmod(fd, 0644) || !(out = fdopen(fd, "w"))) {
		ret = -errno;
		close(fd);
		goto fail;
	}
	ret = emit_in_c_locale(emit, arg, out);
	if (!ret && fsync(fileno(out)))
		ret = -errno;
	if (fclose(out) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (!ret) {
		free(tmp);
		return 0;
	}
fail:
	unlink(tmp);
	free(tmp);
	return ret;
}

/* ---- the single-file formats ---- */

typedef int (*model_emit_fn)(const struct ktau_model *m, FILE *out);

static model_emit_fn stream_emitter(enum ktau_model_format format)
{
	switch (format) {
	case KTAU_FORMAT_PPROF:
		return ktau__emit_pprof;
	case KTAU_FORMAT_CALLGRIND:
		return ktau__emit_callgrind;
	case KTAU_FORMAT_FOLDED:
		return ktau__emit_folded;
	case KTAU_FORMAT_JSON:
		return ktau__emit_json;
	case KTAU_FORMAT_SVG:
		return ktau__emit_svg;
	default:
		return NULL;
	}
}

struct model_emit {
	model_emit_fn fn;
	const struct ktau_model *m;
};

static int run_model_emit(const void *arg, FILE *out)
{
	const struct model_emit *e = arg;

	return e->fn(e->m, out);
}

int ktau_model_write_stream(const struct ktau_model *m,
			    enum ktau_model_format format, FILE *out)
{
	struct model_emit e = { stream_emitter(format), m };

	if (!m || !out || !e.fn)
		return -EINVAL;
	return emit_in_c_locale(run_model_emit, &e, out);
}

static int write_file(const struct ktau_model *m, enum ktau_model_format format,
		      const char *path)
{
	struct model_emit e = { stream_emitter(format), m };

	if (!m || !path || !*path || !e.fn)
		return -EINVAL;
	return ktau__write_file_atomic(path, run_model_emit, &e);
}

/* ---- TAU: a directory of per-thread files ---- */

static int run_tau_emit(const void *arg, FILE *out)
{
	return ktau__emit_tau_thread(arg, out);
}

int ktau_model_write_tau(const struct ktau_model *m, const char *dir)
{
	size_t i;

	if (!m || !dir || !*dir)
		return -EINVAL;
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	for (i = 0; i < m->nr_threads; i++) {
		const struct ktau_model_thread *t = m->threads[i];
		char *path;
		int ret;

		path = malloc(strlen(dir) + 3 * 12 + sizeof("/profile..."));
		if (!path)
			return -ENOMEM;
		sprintf(path, "%s/profile.%u.%u.%u", dir, t->node, t->context, t->thread);
		ret = ktau__write_file_atomic(path, run_tau_emit, t);
		free(path);
		if (ret)
			return ret;
	}
	return 0;
}

int ktau_model_write_pprof(const struct ktau_model *m, const char *path)
{
	return write_file(m, KTAU_FORMAT_PPROF, path);
}

int ktau_model_write_callgrind(const struct ktau_model *m, const char *path)
{
	return write_file(m, KTAU_FORMAT_CALLGRIND, path);
}

int ktau_model_write_folded(const struct ktau_model *m, const char *path)
{
	return write_file(m, KTAU_FORMAT_FOLDED, path);
}

int ktau_model_write_json(const struct ktau_model *m, const char *path)
{
	return write_file(m, KTAU_FORMAT_JSON, path);
}

int ktau_model_write(const struct ktau_model *m, enum ktau_model_format format,
		     const char *path)
{
	if (format == KTAU_FORMAT_TAU)
		return ktau_model_write_tau(m, path);
	return write_file(m, format, path);
}
