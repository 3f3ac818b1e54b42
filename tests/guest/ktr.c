// SPDX-License-Identifier: GPL-2.0
/* ktr — the guest tests' own reader of the ktau /proc format v1. See ktr.h. */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *ktr_test = "?";
int ktr_failed;

void ktr_init(const char *test)
{
	ktr_test = test;
	setvbuf(stdout, NULL, _IOLBF, 0);
	setvbuf(stderr, NULL, _IONBF, 0);
}

int ktr_exit(void)
{
	fflush(stdout);
	return ktr_failed ? 1 : 0;
}

void ktr_pass(const char *check)
{
	printf("PASS: %s/%s\n", ktr_test, check);
}

static void vfail(const char *check, const char *fmt, va_list ap)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* one line per check, whatever the reason contains */
	for (char *c = msg; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	printf("FAIL: %s/%s: %s\n", ktr_test, check, msg);
	ktr_failed++;
}

void ktr_fail(const char *check, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(check, fmt, ap);
	va_end(ap);
}

int ktr_check(int cond, const char *check, const char *fmt, ...)
{
	va_list ap;

	if (cond) {
		ktr_pass(check);
		return 1;
	}
	va_start(ap, fmt);
	vfail(check, fmt, ap);
	va_end(ap);
	return 0;
}

char *ktr_slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 1 << 16, n = 0;
	char *buf;

	if (fd < 0)
		return NULL;
	buf = malloc(cap + 1);
	if (!buf)
		goto fail;
	for (;;) {
		ssize_t r;

		if (n == cap) {
			char *nb = realloc(buf, 2 * cap + 1);

			if (!nb)
				goto fail;
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
fail:;
	int e = errno;

	free(buf);
	close(fd);
	errno = e;
	return NULL;
}

char *ktr_read_once(const char *path, size_t cap, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf;
	ssize_t r;

	if (fd < 0)
		return NULL;
	buf = malloc(cap + 1);
	if (!buf) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	r = read(fd, buf, cap);
	if (r < 0) {
		int e = errno;

		free(buf);
		close(fd);
		errno = e;
		return NULL;
	}
	close(fd);
	buf[r] = '\0';
	if (len)
		*len = (size_t)r;
	return buf;
}

/* ---- tokenising ---- */

#define MAXTOK 32

static int split(char *line, char **tok)
{
	int n = 0;
	char *s = line;

	while (*s) {
		while (*s == ' ')
			s++;
		if (!*s)
			break;
		if (n == MAXTOK)
			return -1;
		tok[n++] = s;
		while (*s && *s != ' ')
			s++;
		if (*s)
			*s++ = '\0';
	}
	return n;
}

static int num(const char *s, uint64_t *v)
{
	uint64_t x = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		if (x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = x;
	return 0;
}

static int copyname(char *dst, size_t cap, const char *src)
{
	size_t l = strlen(src);

	if (l == 0 || l >= cap)
		return -1;
	memcpy(dst, src, l + 1);
	return 0;
}

/* Column layouts: index of each field within the record (after the keyword). */
enum { C_CTX, C_PFID, C_PARENT, C_FID, C_NAME, C_GROUP, C_CALLS, C_INCL, C_EXCL, C_N };
static const char *const colnames[C_N] = {
	"ctx", "parent_fid", "parent", "fid", "name", "group",
	"calls", "incl_cycles", "excl_cycles",
};

struct layout {
	int idx[C_N];	/* -1: field absent */
	int nfields;
};

static void layout_default(struct layout *l, int edge)
{
	for (int i = 0; i < C_N; i++)
		l->idx[i] = -1;
	if (edge) {
		/* ctx parent_fid parent fid name calls incl_cycles excl_cycles */
		l->idx[C_CTX] = 0; l->idx[C_PFID] = 1; l->idx[C_PARENT] = 2;
		l->idx[C_FID] = 3; l->idx[C_NAME] = 4; l->idx[C_CALLS] = 5;
		l->idx[C_INCL] = 6; l->idx[C_EXCL] = 7;
		l->nfields = 8;
	} else {
		/* ctx fid name group calls incl_cycles excl_cycles */
		l->idx[C_CTX] = 0; l->idx[C_FID] = 1; l->idx[C_NAME] = 2;
		l->idx[C_GROUP] = 3; l->idx[C_CALLS] = 4; l->idx[C_INCL] = 5;
		l->idx[C_EXCL] = 6;
		l->nfields = 7;
	}
}

static void layout_from_columns(struct layout *l, char **tok, int ntok)
{
	for (int i = 0; i < C_N; i++)
		l->idx[i] = -1;
	l->nfields = ntok - 2;
	for (int f = 2; f < ntok; f++)
		for (int i = 0; i < C_N; i++)
			if (!strcmp(tok[f], colnames[i]))
				l->idx[i] = f - 2;
}

static int grow(void **arr, size_t *cap, size_t n, size_t sz)
{
	if (n < *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 16;
	void *na = realloc(*arr, nc * sz);

	if (!na)
		return -1;
	*arr = na;
	*cap = nc;
	return 0;
}

static int parse_rec(struct ktr_rec *r, const struct layout *l, char **tok,
		     int ntok, int edge, char *err, size_t errlen, int lineno)
{
	const char *what = edge ? "edge" : "func";
	static const int need_func[] = { C_CTX, C_FID, C_NAME, C_GROUP, C_CALLS, C_INCL, C_EXCL };
	static const int need_edge[] = { C_CTX, C_PFID, C_PARENT, C_FID, C_NAME, C_CALLS, C_INCL, C_EXCL };
	const int *need = edge ? need_edge : need_func;
	size_t nneed = edge ? sizeof(need_edge) / sizeof(int) : sizeof(need_func) / sizeof(int);

	memset(r, 0, sizeof(*r));
	r->lineno = lineno;
	if (ntok - 1 < l->nfields) {
		snprintf(err, errlen, "line %d: %s line has %d fields, columns say %d",
			 lineno, what, ntok - 1, l->nfields);
		return -1;
	}
	for (size_t i = 0; i < nneed; i++) {
		int c = need[i], ix = l->idx[c];
		const char *v;

		if (ix < 0) {
			snprintf(err, errlen, "line %d: %s columns lack field %s",
				 lineno, what, colnames[c]);
			return -1;
		}
		v = tok[1 + ix];
		switch (c) {
		case C_PARENT:
		case C_NAME:
		case C_GROUP: {
			char *dst = c == C_PARENT ? r->parent : c == C_NAME ? r->name : r->group;

			if (copyname(dst, KTR_NAME_MAX, v)) {
				snprintf(err, errlen, "line %d: bad %s '%s'", lineno, colnames[c], v);
				return -1;
			}
			break;
		}
		default: {
			uint64_t x;

			if (num(v, &x)) {
				snprintf(err, errlen, "line %d: %s field %s is not a decimal number: '%s'",
					 lineno, what, colnames[c], v);
				return -1;
			}
			switch (c) {
			case C_CTX: r->ctx = x; break;
			case C_PFID: r->parent_fid = x; break;
			case C_FID: r->fid = x; break;
			case C_CALLS: r->calls = x; break;
			case C_INCL: r->incl = x; break;
			case C_EXCL: r->excl = x; break;
			}
		}
		}
	}
	return 0;
}

static int parse_task(struct ktr_block *b, char **tok, int ntok, char *err,
		      size_t errlen, int lineno)
{
	int have_kind = 0, have_pid = 0, have_tid = 0;

	memset(b, 0, sizeof(*b));
	b->lineno = lineno;
	b->threads = b->exited_threads = b->processes = b->dropped = -1;
	for (int i = 1; i < ntok; i++) {
		char *eq = strchr(tok[i], '=');
		uint64_t x;

		if (!eq) {
			snprintf(err, errlen, "line %d: task field '%s' is not key=value", lineno, tok[i]);
			return -1;
		}
		*eq = '\0';
		const char *k = tok[i], *v = eq + 1;

		if (!strcmp(k, "kind")) {
			if (copyname(b->kind, sizeof(b->kind), v))
				goto bad;
			have_kind = 1;
		} else if (!strcmp(k, "comm")) {
			if (copyname(b->comm, sizeof(b->comm), v))
				goto bad;
		} else if (!strcmp(k, "pid") || !strcmp(k, "tid") || !strcmp(k, "threads") ||
			   !strcmp(k, "exited_threads") || !strcmp(k, "processes") ||
			   !strcmp(k, "dropped")) {
			if (num(v, &x))
				goto bad;
			if (!strcmp(k, "pid")) { b->pid = (long)x; have_pid = 1; }
			else if (!strcmp(k, "tid")) { b->tid = (long)x; have_tid = 1; }
			else if (!strcmp(k, "threads")) b->threads = (long)x;
			else if (!strcmp(k, "exited_threads")) b->exited_threads = (long)x;
			else if (!strcmp(k, "processes")) b->processes = (long)x;
			else b->dropped = (long)x;
		} /* unknown keys are skipped, as the format says */
		continue;
bad:
		snprintf(err, errlen, "line %d: bad task field %s='%s'", lineno, k, v);
		return -1;
	}
	if (!have_kind || !have_pid || !have_tid) {
		snprintf(err, errlen, "line %d: task line lacks kind/pid/tid", lineno);
		return -1;
	}
	if (strcmp(b->kind, "thread") && strcmp(b->kind, "process") &&
	    strcmp(b->kind, "exited") && strcmp(b->kind, "children")) {
		snprintf(err, errlen, "line %d: unknown task kind '%s'", lineno, b->kind);
		return -1;
	}
	return 0;
}

int ktr_parse(const char *text, size_t len, struct ktr_profile *p, char *err, size_t errlen)
{
	struct layout lf, le;
	char *copy, *line, *next;
	int lineno = 0, rc = -1;
	struct ktr_block *cur = NULL;

	memset(p, 0, sizeof(*p));
	layout_default(&lf, 0);
	layout_default(&le, 1);
	snprintf(err, errlen, "internal error");
	if (len == 0) {
		snprintf(err, errlen, "empty file");
		return -1;
	}
	if (memchr(text, '\0', len)) {
		snprintf(err, errlen, "NUL byte at offset %zu", (size_t)((const char *)memchr(text, '\0', len) - text));
		return -1;
	}
	if (text[len - 1] != '\n') {
		snprintf(err, errlen, "file does not end with a newline (truncated?)");
		return -1;
	}
	copy = malloc(len + 1);
	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(copy, text, len);
	copy[len] = '\0';

	for (line = copy; *line; line = next) {
		char *tok[MAXTOK];
		int ntok;

		next = strchr(line, '\n');
		*next++ = '\0';
		lineno++;
		if (lineno == 1)
			snprintf(p->first_line, sizeof(p->first_line), "%s", line);
		snprintf(p->last_line, sizeof(p->last_line), "%s", line);
		for (char *c = line; *c; c++)
			if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f) {
				snprintf(err, errlen, "line %d: non-printable byte 0x%02x",
					 lineno, (unsigned char)*c);
				goto out;
			}
		if (p->have_end) {
			snprintf(err, errlen, "line %d: text after 'end': '%.60s'", lineno, line);
			goto out;
		}
		ntok = split(line, tok);
		if (ntok < 0) {
			snprintf(err, errlen, "line %d: too many fields", lineno);
			goto out;
		}
		if (ntok == 0) {
			snprintf(err, errlen, "line %d: empty line", lineno);
			goto out;
		}
		if (lineno == 1) {
			uint64_t v;

			if (ntok != 2 || strcmp(tok[0], "ktau-profile") || num(tok[1], &v)) {
				snprintf(err, errlen, "line 1 is '%.60s', expected 'ktau-profile 1'",
					 p->first_line);
				goto out;
			}
			p->version = (int)v;
			if (v != 1) {
				snprintf(err, errlen, "format version %d, this reader knows 1", p->version);
				goto out;
			}
			continue;
		}
		if (!strcmp(tok[0], "end")) {
			if (ntok != 1) {
				snprintf(err, errlen, "line %d: 'end' with fields", lineno);
				goto out;
			}
			p->have_end = 1;
		} else if (!strcmp(tok[0], "tsc_khz")) {
			if (cur || ntok != 2 || num(tok[1], &p->tsc_khz)) {
				snprintf(err, errlen, "line %d: bad tsc_khz line", lineno);
				goto out;
			}
			p->have_tsc_khz = 1;
		} else if (!strcmp(tok[0], "scope")) {
			if (cur || ntok != 2 || copyname(p->scope, sizeof(p->scope), tok[1])) {
				snprintf(err, errlen, "line %d: bad scope line", lineno);
				goto out;
			}
		} else if (!strcmp(tok[0], "columns")) {
			if (cur || ntok < 2) {
				snprintf(err, errlen, "line %d: bad columns line", lineno);
				goto out;
			}
			if (!strcmp(tok[1], "func"))
				layout_from_columns(&lf, tok, ntok);
			else if (!strcmp(tok[1], "edge"))
				layout_from_columns(&le, tok, ntok);
		} else if (!strcmp(tok[0], "task")) {
			if (grow((void **)&p->blocks, &p->capblocks, p->nblocks, sizeof(*p->blocks))) {
				snprintf(err, errlen, "out of memory");
				goto out;
			}
			cur = &p->blocks[p->nblocks];
			if (parse_task(cur, tok, ntok, err, errlen, lineno))
				goto out;
			p->nblocks++;
		} else if (!strcmp(tok[0], "func") || !strcmp(tok[0], "edge")) {
			int edge = tok[0][0] == 'e';
			struct ktr_rec r;

			if (!cur) {
				snprintf(err, errlen, "line %d: %s line before any task line", lineno, tok[0]);
				goto out;
			}
			if (parse_rec(&r, edge ? &le : &lf, tok, ntok, edge, err, errlen, lineno))
				goto out;
			if (edge) {
				if (grow((void **)&cur->edges, &cur->capedges, cur->nedges, sizeof(r)))
					goto oom;
				cur->edges[cur->nedges++] = r;
			} else {
				if (grow((void **)&cur->funcs, &cur->capfuncs, cur->nfuncs, sizeof(r)))
					goto oom;
				cur->funcs[cur->nfuncs++] = r;
			}
		} else if (!strcmp(tok[0], "event")) {
			if (!cur) {
				snprintf(err, errlen, "line %d: event line before any task line", lineno);
				goto out;
			}
			struct ktr_event ev = { .lineno = lineno };

			if (ntok != 9 || num(tok[1], &ev.ctx) || num(tok[2], &ev.fid) ||
			    copyname(ev.name, sizeof(ev.name), tok[3]) ||
			    num(tok[4], &ev.count) || num(tok[5], &ev.min) ||
			    num(tok[6], &ev.max) || num(tok[7], &ev.sum) ||
			    num(tok[8], &ev.sumsq)) {
				snprintf(err, errlen, "line %d: bad event line (want: event ctx fid name count min max sum sumsq)", lineno);
				goto out;
			}
			if (!ev.count || ev.min > ev.max) {
				snprintf(err, errlen, "line %d: event with count 0 or min > max", lineno);
				goto out;
			}
			if (grow((void **)&cur->events, &cur->capevents, cur->nevents, sizeof(ev)))
				goto oom;
			cur->events[cur->nevents++] = ev;
		}
		/* other first words: skipped (forward compatibility) */
	}
	p->nlines = lineno;
	if (!p->have_end) {
		snprintf(err, errlen, "no 'end' line (truncated file); last line '%.60s'", p->last_line);
		goto out;
	}
	if (!p->have_tsc_khz) {
		snprintf(err, errlen, "no tsc_khz line in the header");
		goto out;
	}
	if (!p->scope[0]) {
		snprintf(err, errlen, "no scope line in the header");
		goto out;
	}
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
out:
	free(copy);
	if (rc)
		ktr_free(p);
	return rc;
}

void ktr_free(struct ktr_profile *p)
{
	for (size_t i = 0; i < p->nblocks; i++) {
		free(p->blocks[i].funcs);
		free(p->blocks[i].edges);
		free(p->blocks[i].events);
	}
	free(p->blocks);
	p->blocks = NULL;
	p->nblocks = p->capblocks = 0;
}

struct ktr_block *ktr_block_kind(struct ktr_profile *p, const char *kind, int n)
{
	for (size_t i = 0; i < p->nblocks; i++)
		if (!strcmp(p->blocks[i].kind, kind) && n-- == 0)
			return &p->blocks[i];
	return NULL;
}

int ktr_func(const struct ktr_block *b, const char *name, uint64_t *calls,
	     uint64_t *incl, uint64_t *excl)
{
	uint64_t c = 0, i = 0, e = 0;
	int found = 0;

	for (size_t k = 0; b && k < b->nfuncs; k++)
		if (!strcmp(b->funcs[k].name, name)) {
			c += b->funcs[k].calls;
			i += b->funcs[k].incl;
			e += b->funcs[k].excl;
			found++;
		}
	if (calls)
		*calls = c;
	if (incl)
		*incl = i;
	if (excl)
		*excl = e;
	return found;
}

/* ---- /proc/ktau/functions ---- */

int ktr_parse_functions(const char *text, size_t len, struct ktr_fmap *m, char *err, size_t errlen)
{
	char *copy, *line, *next;
	int lineno = 0, rc = -1;
	int ifid = 0, igroup = 1, iname = 2, nfields = 3;

	memset(m, 0, sizeof(*m));
	if (len == 0 || text[len - 1] != '\n' || memchr(text, '\0', len)) {
		snprintf(err, errlen, len ? "file does not end with a newline or has NUL bytes"
					  : "empty file");
		return -1;
	}
	copy = malloc(len + 1);
	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(copy, text, len);
	copy[len] = '\0';
	for (line = copy; *line; line = next) {
		char *tok[MAXTOK];
		int ntok;
		struct ktr_fmap_ent e;

		next = strchr(line, '\n');
		*next++ = '\0';
		lineno++;
		if (lineno == 1) {
			snprintf(m->first_line, sizeof(m->first_line), "%s", line);
			if (strcmp(line, "ktau-functions 1")) {
				snprintf(err, errlen, "line 1 is '%.60s', expected 'ktau-functions 1'", line);
				goto out;
			}
			continue;
		}
		ntok = split(line, tok);
		if (ntok <= 0) {
			snprintf(err, errlen, "line %d: empty or overlong line", lineno);
			goto out;
		}
		if (!strcmp(tok[0], "columns")) {
			ifid = igroup = iname = -1;
			nfields = ntok - 1;
			for (int f = 1; f < ntok; f++) {
				if (!strcmp(tok[f], "fid"))
					ifid = f - 1;
				else if (!strcmp(tok[f], "group"))
					igroup = f - 1;
				else if (!strcmp(tok[f], "name"))
					iname = f - 1;
			}
			if (ifid < 0 || igroup < 0 || iname < 0) {
				snprintf(err, errlen, "line %d: columns line lacks fid/group/name", lineno);
				goto out;
			}
			continue;
		}
		if (tok[0][0] < '0' || tok[0][0] > '9')
			continue;	/* unknown keyword: skipped */
		if (ntok < nfields || num(tok[ifid], &e.fid) ||
		    copyname(e.group, sizeof(e.group), tok[igroup]) ||
		    copyname(e.name, sizeof(e.name), tok[iname])) {
			snprintf(err, errlen, "line %d: bad function line", lineno);
			goto out;
		}
		if (grow((void **)&m->ents, &m->cap, m->n, sizeof(e))) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		m->ents[m->n++] = e;
	}
	if (lineno == 0) {
		snprintf(err, errlen, "empty file");
		goto out;
	}
	rc = 0;
out:
	free(copy);
	if (rc)
		ktr_fmap_free(m);
	return rc;
}

const struct ktr_fmap_ent *ktr_fmap_name(const struct ktr_fmap *m, const char *name)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->ents[i].name, name))
			return &m->ents[i];
	return NULL;
}

const struct ktr_fmap_ent *ktr_fmap_fid(const struct ktr_fmap *m, uint64_t fid)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->ents[i].fid == fid)
			return &m->ents[i];
	return NULL;
}

void ktr_fmap_free(struct ktr_fmap *m)
{
	free(m->ents);
	m->ents = NULL;
	m->n = m->cap = 0;
}

int ktr_load(const char *path, int once, struct ktr_profile *p, const char *check)
{
	char err[256];
	size_t len;
	char *text = once ? ktr_read_once(path, 1 << 20, &len) : ktr_slurp(path, &len);

	memset(p, 0, sizeof(*p));
	if (!text) {
		ktr_fail(check, "%s: cannot read: %s", path, strerror(errno));
		return -1;
	}
	if (ktr_parse(text, len, p, err, sizeof(err))) {
		ktr_fail(check, "%s: not a valid v1 profile (%zu bytes): %s", path, len, err);
		free(text);
		return -1;
	}
	free(text);
	return 0;
}

void ktr_info(const char *what, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (char *c = msg; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	printf("INFO: %s/%s: %s\n", ktr_test, what, msg);
}

/* ---- additions for the softirq/irq/fault/sched/control tests ---- */

int ktr_edge(const struct ktr_block *b, const char *parent, const char *name,
	     uint64_t *calls, uint64_t *incl, uint64_t *excl)
{
	uint64_t c = 0, i = 0, e = 0;
	int found = 0;

	for (size_t k = 0; b && k < b->nedges; k++)
		if (!strcmp(b->edges[k].name, name) &&
		    (!parent || !strcmp(b->edges[k].parent, parent))) {
			c += b->edges[k].calls;
			i += b->edges[k].incl;
			e += b->edges[k].excl;
			found++;
		}
	if (calls)
		*calls = c;
	if (incl)
		*incl = i;
	if (excl)
		*excl = e;
	return found;
}

uint64_t ktr_toplevel(const struct ktr_block *b, const char *name)
{
	uint64_t f = 0, e = 0;

	ktr_func(b, name, &f, NULL, NULL);
	ktr_edge(b, NULL, name, &e, NULL, NULL);
	return f > e ? f - e : 0;
}

const char *ktr_func_group(const struct ktr_block *b, const char *name)
{
	for (size_t k = 0; b && k < b->nfuncs; k++)
		if (!strcmp(b->funcs[k].name, name))
			return b->funcs[k].group;
	return NULL;
}

uint64_t ktr_group_calls(const struct ktr_block *b, const char *group)
{
	uint64_t c = 0;

	for (size_t k = 0; b && k < b->nfuncs; k++)
		if (!strcmp(b->funcs[k].group, group))
			c += b->funcs[k].calls;
	return c;
}

int ktr_load_buf(const char *path, char *buf, size_t cap, struct ktr_profile *p,
		 const char *check)
{
	char err[256];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	memset(p, 0, sizeof(*p));
	if (fd < 0) {
		ktr_fail(check, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	r = read(fd, buf, cap - 1);
	if (r < 0) {
		ktr_fail(check, "%s: cannot read: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	buf[r] = '\0';
	if (ktr_parse(buf, (size_t)r, p, err, sizeof(err))) {
		ktr_fail(check, "%s: not a valid v1 profile (%zd bytes): %s", path, r, err);
		return -1;
	}
	return 0;
}

int ktr_ctl_write(const char *cmd, size_t len)
{
	int fd = open(KTR_CONTROL, O_WRONLY | O_CLOEXEC);
	ssize_t r;
	int e;

	if (fd < 0)
		return errno ? errno : EIO;
	r = write(fd, cmd, len);
	e = errno;
	close(fd);
	if (r < 0)
		return e ? e : EIO;
	return (size_t)r == len ? 0 : EIO;
}

int ktr_ctl(const char *cmd)
{
	return ktr_ctl_write(cmd, strlen(cmd));
}

char *ktr_ctl_read(void)
{
	return ktr_slurp(KTR_CONTROL, NULL);
}

int ktr_ctl_field(const char *text, const char *key, char *out, size_t len)
{
	size_t kl = strlen(key);
	const char *l = text;

	while (l && *l) {
		const char *nl = strchr(l, '\n');
		size_t ll = nl ? (size_t)(nl - l) : strlen(l);

		if (ll >= kl && !strncmp(l, key, kl) && (ll == kl || l[kl] == ' ')) {
			const char *v = l + kl;
			size_t n = 0;

			while (v < l + ll && *v == ' ')
				v++;
			/* copy, collapsing runs of blanks */
			for (; v < l + ll && n + 1 < len; v++) {
				if (*v == ' ' && (n == 0 || out[n - 1] == ' '))
					continue;
				out[n++] = *v;
			}
			while (n > 0 && out[n - 1] == ' ')
				n--;
			if (len)
				out[n] = '\0';
			return 0;
		}
		l = nl ? nl + 1 : NULL;
	}
	if (len)
		out[0] = '\0';
	return -1;
}

int ktr_event_find(const struct ktr_block *b, const char *name,
		   struct ktr_event *out)
{
	int found = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < b->nevents; i++) {
		const struct ktr_event *e = &b->events[i];

		if (strcmp(e->name, name))
			continue;
		if (!found || e->min < out->min)
			out->min = e->min;
		if (!found || e->max > out->max)
			out->max = e->max;
		out->count += e->count;
		out->sum += e->sum;
		out->sumsq += e->sumsq;
		found++;
	}
	return found;
}
