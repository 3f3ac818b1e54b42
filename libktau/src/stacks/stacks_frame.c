// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One naming rule for the frames of every stack format, so that the same
 * function sampled by perf, SystemTap or DTrace gets the same routine:
 *   - the symbol loses its offset and size ("func+0x105/0x2b0" -> "func");
 *   - a frame with no symbol ("[unknown]", nothing, or a bare "0x..." in
 *     the symbol's place) is named by its address: "0x" and lower-case hex
 *     digits without leading zeros;
 *   - the module loses brackets and directories, and the kernel's names
 *     for itself ("kernel.kallsyms", "vmlinux") become "kernel";
 *     "unknown" is no module;
 *   - the name is put in the model's normal form, "=>" (the callpath
 *     separator) becoming "=?".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stacks/stacks.h"

#define MAX_ADDRESS_DIGITS 16

static int starts_0x(const char *s, size_t len)
{
	return len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

/* "0x<hex>" exactly. */
static int is_address(const char *s, size_t len)
{
	return starts_0x(s, len) && ktau__all_hex(s + 2, len - 2);
}

/* Drops a trailing "+0x<hex>" or "+0x<hex>/0x<hex>". */
static void strip_offset(const char *s, size_t *len)
{
	const char *plus = NULL, *slash;
	size_t i, tail;

	for (i = *len; i-- > 0;) {
		if (s[i] == '+') {
			plus = s + i;
			break;
		}
	}
	if (!plus)
		return;
	tail = *len - (size_t)(plus - s) - 1;
	slash = memchr(plus, '/', tail + 1);
	if (slash) {
		size_t first = (size_t)(slash - plus) - 1;

		if (!is_address(plus + 1, first) ||
		    !is_address(slash + 1, tail - first - 1))
			return;
	} else if (!is_address(plus + 1, tail)) {
		return;
	}
	*len = (size_t)(plus - s);
}

/* The address's name into buf (>= MAX_ADDRESS_DIGITS + 3 bytes). */
static void address_name(const char *a, size_t len, char *buf)
{
	size_t n = 2;

	if (starts_0x(a, len)) {
		a += 2;
		len -= 2;
	}
	while (len > 1 && *a == '0') {
		a++;
		len--;
	}
	memcpy(buf, "0x", 2);
	for (; len; len--, a++)
		buf[n++] = (char)(*a >= 'A' && *a <= 'F' ? *a - 'A' + 'a' : *a);
	if (n == 2)
		buf[n++] = '0';
	buf[n] = '\0';
}

static int word_is(const char *s, size_t len, const char *lit)
{
	return strlen(lit) == len && !memcmp(s, lit, len);
}

static void module_name(const char **m, size_t *len)
{
	const char *slash;

	ktau__trim(m, len);
	if (!*len)
		return;
	if (*len >= 2 && (*m)[0] == '[' && (*m)[*len - 1] == ']') {
		(*m)++;
		*len -= 2;
	}
	while ((slash = memchr(*m, '/', *len))) {
		*len -= (size_t)(slash + 1 - *m);
		*m = slash + 1;
	}
	if (word_is(*m, *len, "kernel.kallsyms") || word_is(*m, *len, "vmlinux")) {
		*m = "kernel";
		*len = 6;
	} else if (word_is(*m, *len, "unknown")) {
		*len = 0;
	}
}

/* A normalised, interned copy; NULL (errno ENOMEM) on failure, "" allowed. */
static const char *intern(struct ktau_stacks *s, const char *text, size_t len)
{
	char *copy = malloc(len + 1), *n, *p;
	const char *out = NULL;

	if (!copy) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(copy, text, len);
	copy[len] = '\0';
	n = ktau__model_normalise(copy, true);
	free(copy);
	if (!n)
		return NULL;
	for (p = n; (p = strstr(p, "=>")); p++)
		p[1] = '?';
	out = ktau__strpool_add(&s->strings, n, strlen(n));
	free(n);
	if (!out)
		errno = ENOMEM;
	return out;
}

/* The frame index of name (interned), added with module when new. */
static int frame_index(struct ktau_stacks *s, const char *name, const char *module,
		       size_t module_len, uint32_t *index)
{
	size_t i = ktau__index_find(&s->frame_index, name);
	struct ktau_stack_frame *f;

	if (i != KTAU_INDEX_NONE) {
		*index = (uint32_t)i;
		return 0;
	}
	if (s->nr_frames >= UINT32_MAX - 1 ||
	    ktau__grow((void **)&s->frames, &s->cap_frames, s->nr_frames, sizeof(*f)))
		return -ENOMEM;
	f = &s->frames[s->nr_frames];
	f->name = name;
	f->module = NULL;
	if (module_len) {
		f->module = intern(s, module, module_len);
		if (!f->module)
			return -ENOMEM;
		if (!*f->module)
			f->module = NULL;
	}
	if (ktau__index_put(&s->frame_index, name, s->nr_frames))
		return -ENOMEM;
	*index = (uint32_t)s->nr_frames++;
	return 0;
}

/* The frame's name, interned; NULL with errno set (EPROTO: err filled). */
static const char *frame_name(struct ktau_stacks *s, const struct ktau_raw_frame *raw,
			      unsigned int line, struct ktau_parse_error *err)
{
	const char *sym = raw->symbol, *a = raw->address;
	size_t sym_len = raw->symbol_len, a_len = raw->address_len, digits;
	char addr[MAX_ADDRESS_DIGITS + 3];
	const char *name;

	ktau__trim(&sym, &sym_len);
	strip_offset(sym, &sym_len);
	if (!a_len && is_address(sym, sym_len)) {
		a = sym;	/* DTrace: "module`0x1234", or a bare address */
		a_len = sym_len;
	}
	digits = starts_0x(a, a_len) ? a_len - 2 : a_len;
	if (a_len && (!ktau__all_hex(a + a_len - digits, digits) ||
		      digits > MAX_ADDRESS_DIGITS)) {
		errno = -ktau__fail(err, EPROTO, line,
				    "address '%.*s' is not a 64-bit hex number",
				    KTAU_QUOTE(a, a_len));
		return NULL;
	}
	if (is_address(sym, sym_len) || word_is(sym, sym_len, "[unknown]"))
		sym_len = 0;
	if (sym_len) {
		name = intern(s, sym, sym_len);
		if (!name || *name)
			return name;
	}
	if (!a_len) {
		errno = -ktau__fail(err, EPROTO, line, "a frame with neither a symbol nor an address");
		return NULL;
	}
	address_name(a, a_len, addr);
	return intern(s, addr, strlen(addr));
}

int ktau__stacks_push_frame(struct ktau_stacks *s, const struct ktau_raw_frame *raw,
			    unsigned int line, struct ktau_parse_error *err)
{
	const char *module = raw->module, *name;
	size_t module_len = raw->module_len;
	uint32_t index;

	if (s->nr_pending >= KTAU_STACKS_MAX_DEPTH)
		return ktau__fail(err, EPROTO, line, "a stack deeper than %d frames (from line %u)",
				  KTAU_STACKS_MAX_DEPTH, s->pending_line);
	name = frame_name(s, raw, line, err);
	if (!name)
		return errno == EPROTO ? -EPROTO : ktau__fail(err, ENOMEM, line, "out of memory");
	module_name(&module, &module_len);
	if (frame_index(s, name, module, module_len, &index) ||
	    ktau__grow((void **)&s->pending, &s->cap_pending, s->nr_pending,
		       sizeof(*s->pending)))
		return ktau__fail(err, ENOMEM, line, "out of memory");
	if (!s->nr_pending)
		s->pending_line = line;
	s->pending[s->nr_pending++] = index;
	return 0;
}
