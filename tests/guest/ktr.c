// SPDX-License-Identifier: GPL-2.0
/* ktr — the guest tests' own reader of the ktau /proc format v2. See ktr.h. */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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

/*
 * A task's state in /proc/PID/stat turns S before it reaches schedule(),
 * and on another CPU it may yet see what it waits for and not block.
 * /proc/PID/syscall says "running" unless the kernel found the task
 * switched out (wait_task_inactive()) in the same state before and after
 * it read the call: with state S or D, the task has blocked.
 */
int ktr_wait_sleeping(pid_t pid)
{
	char stat[64], call[64], buf[256], *state;

	snprintf(stat, sizeof(stat), "/proc/%d/stat", (int)pid);
	snprintf(call, sizeof(call), "/proc/%d/syscall", (int)pid);
	for (int i = 0; i < 5000; i++) {
		state = ktr_read_small(stat, buf, sizeof(buf)) > 0 ? strrchr(buf, ')') : NULL;
		if (state && state[1] == ' ' && (state[2] == 'S' || state[2] == 'D') &&
		    ktr_read_small(call, buf, sizeof(buf)) > 0 && strncmp(buf, "running", 7))
			return 0;
		usleep(1000);
	}
	return -1;
}

int ktr_reap(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
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
enum { C_CTX, C_FID, C_FIDS, C_TID, C_NAME, C_GROUP, C_CALLS, C_INCL, C_EXCL, C_N };
static const char *const colnames[C_N] = {
	"ctx", "fid", "fids", "tid", "name", "group",
	"calls", "incl_cycles", "excl_cycles",
};

enum rec_kind { R_FUNC, R_PATH, R_OPEN, R_KINDS };
static const char *const rec_word[R_KINDS] = { "func", "path", "open" };
/* the fields each record kind needs, in the default (documented) order */
static const int rec_need[R_KINDS][8] = {
	{ C_CTX, C_FID, C_NAME, C_GROUP, C_CALLS, C_INCL, C_EXCL, -1 },
	{ C_CTX, C_FIDS, C_NAME, C_GROUP, C_CALLS, C_INCL, C_EXCL, -1 },
	{ C_TID, C_CTX, C_FIDS, C_NAME, C_GROUP, C_INCL, C_EXCL, -1 },
};

struct layout {
	int idx[C_N];	/* -1: field absent */
	int nfields;
};

static void layout_default(struct layout *l, enum rec_kind kind)
{
	int n;

	for (int i = 0; i < C_N; i++)
		l->idx[i] = -1;
	for (n = 0; n < 8 && rec_need[kind][n] >= 0; n++)
		l->idx[rec_need[kind][n]] = n;
	l->nfields = n;
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

/* "1,470,469": 1 to KTR_MAX_DEPTH decimal ids */
static int parse_fids(const char *v, struct ktr_path *r)
{
	char buf[256];
	char *s, *comma;

	if (strlen(v) >= sizeof(buf))
		return -1;
	strcpy(buf, v);
	r->depth = 0;
	for (s = buf; ; s = comma + 1) {
		comma = strchr(s, ',');
		if (comma)
			*comma = '\0';
		if (r->depth == KTR_MAX_DEPTH || num(s, &r->fids[r->depth]))
			return -1;
		r->depth++;
		if (!comma)
			return 0;
	}
}

/* One func, path or open line into *r (a struct ktr_rec for func lines). */
static int parse_rec(void *out, enum rec_kind kind, const struct layout *l, char **tok,
		     int ntok, char *err, size_t errlen, int lineno)
{
	const char *what = rec_word[kind];
	struct ktr_rec *f = out;
	struct ktr_path *p = out;

	memset(out, 0, kind == R_FUNC ? sizeof(*f) : sizeof(*p));
	if (kind == R_FUNC)
		f->lineno = lineno;
	else
		p->lineno = lineno;
	if (ntok - 1 < l->nfields) {
		snprintf(err, errlen, "line %d: %s line has %d fields, columns say %d",
			 lineno, what, ntok - 1, l->nfields);
		return -1;
	}
	for (int i = 0; i < 8 && rec_need[kind][i] >= 0; i++) {
		int c = rec_need[kind][i], ix = l->idx[c];
		const char *v;
		uint64_t x;

		if (ix < 0) {
			snprintf(err, errlen, "line %d: %s columns lack field %s",
				 lineno, what, colnames[c]);
			return -1;
		}
		v = tok[1 + ix];
		if (c == C_NAME || c == C_GROUP) {
			char *dst = kind == R_FUNC ? (c == C_NAME ? f->name : f->group)
						   : (c == C_NAME ? p->name : p->group);

			if (copyname(dst, KTR_NAME_MAX, v)) {
				snprintf(err, errlen, "line %d: bad %s '%s'", lineno, colnames[c], v);
				return -1;
			}
			continue;
		}
		if (c == C_FIDS) {
			if (parse_fids(v, p)) {
				snprintf(err, errlen, "line %d: %s fids '%s' is not 1 to %d comma-separated ids",
					 lineno, what, v, KTR_MAX_DEPTH);
				return -1;
			}
			continue;
		}
		if (num(v, &x)) {
			snprintf(err, errlen, "line %d: %s field %s is not a decimal number: '%s'",
				 lineno, what, colnames[c], v);
			return -1;
		}
		if (kind == R_FUNC) {
			switch (c) {
			case C_CTX: f->ctx = x; break;
			case C_FID: f->fid = x; break;
			case C_CALLS: f->calls = x; break;
			case C_INCL: f->incl = x; break;
			case C_EXCL: f->excl = x; break;
			}
		} else {
			switch (c) {
			case C_TID: p->tid = x; break;
			case C_CTX: p->ctx = x; break;
			case C_CALLS: p->calls = x; break;
			case C_INCL: p->incl = x; break;
			case C_EXCL: p->excl = x; break;
			}
		}
	}
	return 0;
}

/* The path line of b with this ctx and fids[0..depth), or NULL. */
static const struct ktr_path *find_path(const struct ktr_block *b, uint64_t ctx,
					const uint64_t *fids, unsigned int depth)
{
	for (size_t k = 0; k < b->npaths; k++) {
		const struct ktr_path *q = &b->paths[k];

		if (q->ctx == ctx && q->depth == depth &&
		    !memcmp(q->fids, fids, depth * sizeof(*fids)))
			return q;
	}
	return NULL;
}

/* A path or open line's prefix must be a path line above it; names it. */
static int link_prefix(const struct ktr_block *b, struct ktr_path *r, const char *what,
		       char *err, size_t errlen)
{
	const struct ktr_path *q;
	unsigned int plen = r->depth - 1;

	if (!plen)
		return 0;
	q = find_path(b, r->ctx, r->fids, plen);
	if (!q) {
		snprintf(err, errlen, "line %d: %s line whose path prefix of depth %u is not a path line above it",
			 r->lineno, what, plen);
		return -1;
	}
	snprintf(r->parent, sizeof(r->parent), "%s", q->name);
	return 0;
}

static int parse_task(struct ktr_block *b, char **tok, int ntok, char *err,
		      size_t errlen, int lineno)
{
	int have_kind = 0, have_pid = 0, have_tid = 0;

	memset(b, 0, sizeof(*b));
	b->lineno = lineno;
	b->threads = b->exited_threads = b->processes = b->private_processes = b->dropped = -1;
	b->pending = -1;
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
			   !strcmp(k, "private") || !strcmp(k, "dropped") ||
			   !strcmp(k, "pending")) {
			if (num(v, &x))
				goto bad;
			if (!strcmp(k, "pid")) { b->pid = (long)x; have_pid = 1; }
			else if (!strcmp(k, "tid")) { b->tid = (long)x; have_tid = 1; }
			else if (!strcmp(k, "threads")) b->threads = (long)x;
			else if (!strcmp(k, "exited_threads")) b->exited_threads = (long)x;
			else if (!strcmp(k, "processes")) b->processes = (long)x;
			else if (!strcmp(k, "private")) b->private_processes = (long)x;
			else if (!strcmp(k, "pending")) b->pending = (long)x;
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
	struct layout lay[R_KINDS];
	char *copy, *line, *next;
	int lineno = 0, rc = -1;
	struct ktr_block *cur = NULL;

	memset(p, 0, sizeof(*p));
	for (int k = 0; k < R_KINDS; k++)
		layout_default(&lay[k], k);
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
				snprintf(err, errlen, "line 1 is '%.60s', expected 'ktau-profile 2'",
					 p->first_line);
				goto out;
			}
			p->version = (int)v;
			if (v != 2) {
				snprintf(err, errlen, "format version %d, this reader knows 2", p->version);
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
			for (int k = 0; k < R_KINDS; k++)
				if (!strcmp(tok[1], rec_word[k]))
					layout_from_columns(&lay[k], tok, ntok);
		} else if (!strcmp(tok[0], "task")) {
			if (grow((void **)&p->blocks, &p->capblocks, p->nblocks, sizeof(*p->blocks))) {
				snprintf(err, errlen, "out of memory");
				goto out;
			}
			cur = &p->blocks[p->nblocks];
			if (parse_task(cur, tok, ntok, err, errlen, lineno))
				goto out;
			p->nblocks++;
		} else if (!strcmp(tok[0], "func")) {
			struct ktr_rec r;

			if (!cur) {
				snprintf(err, errlen, "line %d: %s line before any task line", lineno, tok[0]);
				goto out;
			}
			if (parse_rec(&r, R_FUNC, &lay[R_FUNC], tok, ntok, err, errlen, lineno))
				goto out;
			if (grow((void **)&cur->funcs, &cur->capfuncs, cur->nfuncs, sizeof(r)))
				goto oom;
			cur->funcs[cur->nfuncs++] = r;
		} else if (!strcmp(tok[0], "path") || !strcmp(tok[0], "open")) {
			enum rec_kind kind = tok[0][0] == 'p' ? R_PATH : R_OPEN;
			struct ktr_path r;

			if (!cur) {
				snprintf(err, errlen, "line %d: %s line before any task line", lineno, tok[0]);
				goto out;
			}
			if (parse_rec(&r, kind, &lay[kind], tok, ntok, err, errlen, lineno) ||
			    link_prefix(cur, &r, tok[0], err, errlen))
				goto out;
			if (kind == R_PATH) {
				if (find_path(cur, r.ctx, r.fids, r.depth)) {
					snprintf(err, errlen, "line %d: a second path line of the same path", lineno);
					goto out;
				}
				if (grow((void **)&cur->paths, &cur->cappaths, cur->npaths, sizeof(r)))
					goto oom;
				cur->paths[cur->npaths++] = r;
			} else {
				if (grow((void **)&cur->opens, &cur->capopens, cur->nopens, sizeof(r)))
					goto oom;
				cur->opens[cur->nopens++] = r;
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
		free(p->blocks[i].paths);
		free(p->blocks[i].opens);
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

int ktr_load_functions(struct ktr_fmap *m, size_t *len, const char *check)
{
	char err[256];
	size_t n = 0;
	char *text = ktr_slurp("/proc/ktau/functions", &n);

	memset(m, 0, sizeof(*m));
	if (!text) {
		snprintf(err, sizeof(err), "%s", strerror(errno));
	} else if (ktr_parse_functions(text, n, m, err, sizeof(err))) {
		ktr_fmap_free(m);
	} else {
		free(text);
		if (len)
			*len = n;
		return 0;
	}
	free(text);
	if (check)
		ktr_fail(check, "/proc/ktau/functions: %s", err);
	return -1;
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
		ktr_fail(check, "%s: not a valid v2 profile (%zu bytes): %s", path, len, err);
		free(text);
		return -1;
	}
	free(text);
	return 0;
}

static long pending_folds(struct ktr_profile *p)
{
	long n = 0;

	for (size_t i = 0; i < p->nblocks; i++)
		if (p->blocks[i].pending > 0)
			n += p->blocks[i].pending;
	return n;
}

int ktr_load_settled(const char *path, struct ktr_profile *p, const char *check)
{
	for (int tries = 0;; tries++) {
		long n;

		if (ktr_load(path, 0, p, check))
			return -1;
		n = pending_folds(p);
		if (!n)
			return 0;
		if (tries == 1000) {
			ktr_fail(check, "%s: %ld folds still pending after 10 s", path, n);
			ktr_free(p);
			return -1;
		}
		ktr_free(p);
		usleep(10000);
	}
}

static void vnote(const char *kind, const char *what, const char *fmt, va_list ap)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	for (char *c = msg; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	printf("%s: %s/%s: %s\n", kind, ktr_test, what, msg);
}

void ktr_info(const char *what, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote("INFO", what, fmt, ap);
	va_end(ap);
}

void ktr_skip(const char *check, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote("SKIP", check, fmt, ap);
	va_end(ap);
}

int ktr_run_overlay(const char *script, const char *staged_by)
{
	if (access(script, X_OK)) {
		ktr_skip("run-in-guest", "%s: %s (%s stages it, before make initramfs)",
			 script, strerror(errno), staged_by);
		return ktr_exit();
	}
	fflush(stdout);
	execl("/bin/sh", "sh", script, (char *)NULL);
	ktr_fail("run-in-guest", "exec /bin/sh %s: %s", script, strerror(errno));
	return ktr_exit();
}

/* ---- additions for the softirq/irq/fault/sched/control tests ---- */

int ktr_edge(const struct ktr_block *b, const char *parent, const char *name,
	     uint64_t *calls, uint64_t *incl, uint64_t *excl)
{
	uint64_t c = 0, i = 0, e = 0;
	int found = 0;

	for (size_t k = 0; b && k < b->npaths; k++) {
		const struct ktr_path *q = &b->paths[k];

		if (q->depth >= 2 && !strcmp(q->name, name) &&
		    (!parent || !strcmp(q->parent, parent))) {
			c += q->calls;
			i += q->incl;
			e += q->excl;
			found++;
		}
	}
	if (calls)
		*calls = c;
	if (incl)
		*incl = i;
	if (excl)
		*excl = e;
	return found;
}

const char *ktr_path_elem(const struct ktr_block *b, const struct ktr_path *p,
			  unsigned int k)
{
	const struct ktr_path *q;

	if (k + 1 == p->depth)
		return p->name;
	q = k < p->depth ? find_path(b, p->ctx, p->fids, k + 1) : NULL;
	return q ? q->name : (k + 1 == p->depth ? p->name : "?");
}

int ktr_path_sum(const struct ktr_block *b, const char *const *names, unsigned int n,
		 uint64_t *calls, uint64_t *incl, uint64_t *excl)
{
	uint64_t c = 0, i = 0, e = 0;
	int found = 0;

	for (size_t k = 0; b && k < b->npaths; k++) {
		const struct ktr_path *q = &b->paths[k];
		unsigned int d;

		if (q->depth != n)
			continue;
		for (d = 0; d < n && !strcmp(ktr_path_elem(b, q, d), names[d]); d++)
			;
		if (d < n)
			continue;
		c += q->calls;
		i += q->incl;
		e += q->excl;
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
	uint64_t c = 0;

	ktr_path_sum(b, &name, 1, &c, NULL, NULL);
	return c;
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
		ktr_fail(check, "%s: not a valid v2 profile (%zd bytes): %s", path, r, err);
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

int ktr_write_file(const char *path, const char *text)
{
	size_t len = strlen(text);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t r;
	int e;

	if (fd < 0)
		return -1;
	r = write(fd, text, len);
	e = errno;
	close(fd);
	if (r == (ssize_t)len)
		return 0;
	errno = r < 0 ? e : EIO;
	return -1;
}

int ktr_ctl(const char *cmd)
{
	return ktr_ctl_write(cmd, strlen(cmd));
}

char *ktr_ctl_read(void)
{
	return ktr_slurp(KTR_CONTROL, NULL);
}

unsigned long ktr_ctl_number(const char *key, const char *field)
{
	char *text = ktr_ctl_read(), value[256], *p;
	unsigned long v = 0;

	if (text && !ktr_ctl_field(text, key, value, sizeof(value))) {
		if (!field) {
			v = strtoul(value, NULL, 10);
		} else {
			p = strstr(value, field);
			if (p)
				v = strtoul(p + strlen(field), NULL, 10);
		}
	}
	free(text);
	return v;
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

ssize_t ktr_read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 || !len ? -1 : read(fd, buf, len - 1);

	if (fd >= 0)
		close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

static void worker_process(int nthreads, void *(*fn)(void *), int ready, int go)
{
	pthread_t t[64];
	char c = 1;

	if (nthreads > (int)(sizeof(t) / sizeof(t[0])))
		_exit(2);
	for (int i = 0; i < nthreads; i++)
		if (pthread_create(&t[i], NULL, fn, NULL))
			_exit(2);
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	if (write(ready, &c, 1) != 1)
		_exit(3);
	while (read(go, &c, 1) > 0)
		;
	_exit(0);
}

pid_t ktr_worker_fork(int nthreads, void *(*fn)(void *), int *ready, int *go)
{
	int r[2], g[2];
	pid_t pid;

	if (pipe(r))
		return -1;
	if (pipe(g)) {
		close(r[0]);
		close(r[1]);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		close(r[0]);
		close(g[1]);
		worker_process(nthreads, fn, r[1], g[0]);
	}
	close(r[1]);
	close(g[0]);
	if (pid < 0) {
		close(r[0]);
		close(g[1]);
		return -1;
	}
	*ready = r[0];
	*go = g[1];
	return pid;
}
