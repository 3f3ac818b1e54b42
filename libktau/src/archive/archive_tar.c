// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The archive's container: POSIX ustar (docs/archive-format.md). Only
 * what ktau archives need: regular files whose names fit the 100-byte name
 * field; directory entries (GNU tar adds them when re-packing an
 * extracted archive) are skipped on reading.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "archive/archive.h"

#define BLOCK 512
#define SIZE_FIELD_MAX ((uint64_t)077777777777)	/* 11 octal digits */

/* Field offsets and lengths of a ustar header. */
enum {
	NAME = 0, NAME_LEN = 100,
	MODE = 100, UID = 108, GID = 116,
	SIZE = 124, SIZE_LEN = 12,
	MTIME = 136,
	CHKSUM = 148, CHKSUM_LEN = 8,
	TYPEFLAG = 156,
	MAGIC = 257, VERSION = 263,
	PREFIX = 345, PREFIX_LEN = 155,
};

/* ---- writing ---- */

static unsigned int checksum(const unsigned char *h)
{
	unsigned int sum = 0;
	size_t i;

	for (i = 0; i < BLOCK; i++)
		sum += (i >= CHKSUM && i < CHKSUM + CHKSUM_LEN) ? ' ' : h[i];
	return sum;
}

static int put_header(FILE *out, const char *name, size_t size, time_t mtime)
{
	unsigned char h[BLOCK] = { 0 };
	char field[16];

	if ((uint64_t)size > SIZE_FIELD_MAX)
		return -EFBIG;
	memcpy(h + NAME, name, strlen(name));
	memcpy(h + MODE, "0000644", 8);
	memcpy(h + UID, "0000000", 8);
	memcpy(h + GID, "0000000", 8);
	snprintf(field, sizeof(field), "%011" PRIo64, (uint64_t)size);
	memcpy(h + SIZE, field, 12);
	snprintf(field, sizeof(field), "%011" PRIo64,
		 (uint64_t)(mtime > 0 ? mtime : 0) & SIZE_FIELD_MAX);
	memcpy(h + MTIME, field, 12);
	h[TYPEFLAG] = '0';
	memcpy(h + MAGIC, "ustar", 6);
	memcpy(h + VERSION, "00", 2);
	snprintf(field, sizeof(field), "%06o", checksum(h));
	memcpy(h + CHKSUM, field, 7);	/* six digits, NUL, and the space stays */
	h[CHKSUM + 7] = ' ';
	return fwrite(h, BLOCK, 1, out) == 1 ? 0 : -EIO;
}

static int put_member(FILE *out, const char *name, const char *data, size_t size,
		      time_t mtime)
{
	static const char zeros[BLOCK];
	size_t pad = (BLOCK - size % BLOCK) % BLOCK;
	int ret = put_header(out, name, size, mtime);

	if (ret)
		return ret;
	if ((size && fwrite(data, size, 1, out) != 1) ||
	    (pad && fwrite(zeros, pad, 1, out) != 1))
		return -EIO;
	return 0;
}

int ktau__archive_emit_tar(const struct ktau_archive *a, FILE *out)
{
	static const char zeros[2 * BLOCK];
	size_t i, len;
	char *manifest = ktau__archive_manifest(a, &len);
	int ret;

	if (!manifest)
		return -ENOMEM;
	ret = put_member(out, KTAU_ARCHIVE_MANIFEST, manifest, len, a->mtime);
	free(manifest);
	for (i = 0; i < a->nr_members && !ret; i++)
		ret = put_member(out, a->members[i].name, a->members[i].data,
				 a->members[i].size, a->mtime);
	if (!ret && fwrite(zeros, sizeof(zeros), 1, out) != 1)
		ret = -EIO;
	return ret;
}

/* ---- reading ---- */

struct tar_reader {
	const unsigned char *buf;
	size_t len, pos;
	char name[PREFIX_LEN + 1 + NAME_LEN + 1];	/* of the member being read */
	struct ktau_parse_error *err;
};

static int is_zero_block(const unsigned char *h)
{
	size_t i;

	for (i = 0; i < BLOCK; i++)
		if (h[i])
			return 0;
	return 1;
}

/* An octal field: optional leading blanks, digits, then NUL/blank padding. */
static int parse_octal(const unsigned char *f, size_t len, uint64_t *out)
{
	size_t i = 0;
	uint64_t v = 0;
	int digits = 0;

	while (i < len && f[i] == ' ')
		i++;
	for (; i < len && f[i] >= '0' && f[i] <= '7'; i++, digits++) {
		if (v > (UINT64_MAX >> 3))
			return -1;
		v = v * 8 + (uint64_t)(f[i] - '0');
	}
	for (; i < len; i++)
		if (f[i] != ' ' && f[i] != '\0')
			return -1;
	*out = v;
	return digits ? 0 : -1;
}

/* A NUL-padded field as a string (not NUL-terminated when it fills the field). */
static size_t field_len(const unsigned char *f, size_t len)
{
	const unsigned char *nul = memchr(f, '\0', len);

	return nul ? (size_t)(nul - f) : len;
}

static int fail_at(struct tar_reader *r, const char *what)
{
	return ktau__fail(r->err, EPROTO, 0, "corrupt archive: %s at byte %zu", what, r->pos);
}

/* Reads the header at r->pos into r->name, *type and *size. */
static int read_header(struct tar_reader *r, char *type, uint64_t *size)
{
	const unsigned char *h = r->buf + r->pos;
	uint64_t sum;
	size_t n, p;

	if (memcmp(h + MAGIC, "ustar", 5))
		return fail_at(r, "not a tar header (no ustar magic)");
	if (parse_octal(h + CHKSUM, CHKSUM_LEN, &sum) || sum != checksum(h))
		return fail_at(r, "header checksum mismatch");
	if (parse_octal(h + SIZE, SIZE_LEN, size))
		return fail_at(r, "bad size field");
	*type = (char)h[TYPEFLAG];
	/* POSIX ustar only: GNU's magic "ustar  " has no prefix field there */
	p = memcmp(h + MAGIC, "ustar\0", 6) ? 0 : field_len(h + PREFIX, PREFIX_LEN);
	n = field_len(h + NAME, NAME_LEN);
	memcpy(r->name, h + PREFIX, p);
	if (p)
		r->name[p++] = '/';
	memcpy(r->name + p, h + NAME, n);
	r->name[p + n] = '\0';
	if (strlen(r->name) != p + n || !n)
		return fail_at(r, "bad member name");
	return 0;
}

static int add_member(struct ktau_archive *a, struct tar_reader *r, const char *data,
		      size_t size)
{
	const char *name = r->name;
	int ret;

	while (!strncmp(name, "./", 2))	/* as `tar -C dir .` writes them */
		name += 2;
	if (!strcmp(name, KTAU_ARCHIVE_MANIFEST)) {
		if (a->manifest_read)
			return ktau__fail(r->err, EPROTO, 0, "corrupt archive: two "
					  "manifests ('%s' twice)", name);
		a->manifest_read = true;
		return ktau__archive_parse_manifest(a, data, size, r->err);
	}
	if (!a->manifest_read)
		return ktau__fail(r->err, EPROTO, 0, "not a ktau archive: the first member "
				  "is '%s', not '%s'", name, KTAU_ARCHIVE_MANIFEST);
	ret = ktau_archive_add(a, name, data, size);
	if (ret == -EEXIST)
		return ktau__fail(r->err, EPROTO, 0, "corrupt archive: member '%s' "
				  "appears twice", name);
	if (ret == -EINVAL)
		return ktau__fail(r->err, EPROTO, 0, "corrupt archive: bad member "
				  "name '%s'", name);
	if (ret)
		return ktau__fail(r->err, -ret, 0, "%s", ktau_strerror(ret));
	return 0;
}

/* One member at r->pos: 1 and past it, 0 at the end marker, or -errno. */
static int next_member(struct ktau_archive *a, struct tar_reader *r)
{
	size_t left = r->len - r->pos, padded;
	uint64_t size = 0;
	char type = 0;
	int ret;

	if (left < BLOCK)
		return ktau__fail(r->err, EPROTO, 0, "truncated archive: %zu bytes at "
				  "byte %zu where a header or the end marker should be",
				  left, r->pos);
	if (is_zero_block(r->buf + r->pos)) {
		if (left < 2 * BLOCK || !is_zero_block(r->buf + r->pos + BLOCK))
			return ktau__fail(r->err, EPROTO, 0, "truncated archive: "
					  "incomplete end marker at byte %zu", r->pos);
		return 0;
	}
	ret = read_header(r, &type, &size);
	if (ret)
		return ret;
	left -= BLOCK;
	if (size > left)
		return ktau__fail(r->err, EPROTO, 0, "truncated archive: member '%s' "
				  "has %" PRIu64 " bytes, only %zu left", r->name, size,
				  left);
	padded = (size_t)size + (BLOCK - (size_t)size % BLOCK) % BLOCK;
	if (type == '0' || type == '\0')
		ret = add_member(a, r, (const char *)r->buf + r->pos + BLOCK, (size_t)size);
	else if (type != '5')
		ret = ktau__fail(r->err, EPROTO, 0, "member '%s': tar entry type '%c' "
				 "is not a regular file", r->name, type);
	if (ret)
		return ret;
	r->pos += BLOCK + (padded < left ? padded : left);
	return 1;
}

int ktau__archive_parse_tar(struct ktau_archive *a, const char *buf, size_t len,
			    struct ktau_parse_error *err)
{
	struct tar_reader r = { (const unsigned char *)buf, len, 0, "", err };
	int ret;

	if (!ktau_archive_detect(buf, len))
		return ktau__fail(err, EPROTO, 0, "not a ktau archive: it does not start "
				  "with the '%s' member", KTAU_ARCHIVE_MANIFEST);
	while ((ret = next_member(a, &r)) > 0)
		;
	return ret;
}
