// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unpacked profiles: unpack_bindata(), the printers, aggr_many_profiles(),
 * ktau_diff_profiles() (ktau_proc_interface.h).  The packed data may come
 * from anywhere: every length is checked against the buffer before use.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"

KTAU_COMPAT_API void ktau_free_profiles(ktau_output *profiles, long no_profiles)
{
	long i;

	if (!profiles)
		return;
	for (i = 0; i < no_profiles; i++)
		free(profiles[i].ent_lst);
	free(profiles);
}

KTAU_COMPAT_API long unpack_bindata(int type, char *buffer, unsigned long size,
				    ktau_output **output)
{
	const unsigned char *p = (const unsigned char *)buffer;
	unsigned long left = size;
	ktau_output *out;
	uint32_t n, i;

	if (output)
		*output = NULL;
	if (!buffer || !output || type != KTAU_TYPE_PROFILE) {
		errno = type == KTAU_TYPE_TRACE ? ENOTSUP : EINVAL;
		return -1;
	}
	if (left < KTAU_PACKED_HEADER_BYTES)
		goto proto;
	memcpy(&n, p, 4);
	p += 4;
	left -= 4;
	/* every profile takes at least its 8-byte header */
	if (n > left / KTAU_PACKED_TASK_BYTES)
		goto proto;
	/* one element more, so that 0 profiles still give a pointer to free */
	out = calloc((size_t)n + 1, sizeof(*out));
	if (!out)
		return -1;
	for (i = 0; i < n; i++) {
		uint32_t pid, cnt;
		size_t bytes;

		if (left < KTAU_PACKED_TASK_BYTES)
			goto proto_free;
		memcpy(&pid, p, 4);
		memcpy(&cnt, p + 4, 4);
		p += 8;
		left -= 8;
		if (cnt > left / sizeof(o_ent))
			goto proto_free;
		bytes = (size_t)cnt * sizeof(o_ent);
		out[i].pid = (pid_t)pid;
		out[i].size = cnt;
		out[i].trace_lst = NULL;
		out[i].ent_lst = malloc(bytes ? bytes : 1);
		if (!out[i].ent_lst) {
			ktau_free_profiles(out, i);
			errno = ENOMEM;
			return -1;
		}
		if (bytes)
			memcpy(out[i].ent_lst, p, bytes);
		p += bytes;
		left -= bytes;
	}
	*output = out;
	return (long)n;
proto_free:
	ktau_free_profiles(out, i);
proto:
	errno = EPROTO;
	return -1;
}

static void print_o_ent(FILE *fp, const o_ent *e)
{
	fprintf(fp, "Entry %4u: addr %lx, count %4llu, incl %4llu, excl %4llu\n",
		e->index, e->entry.addr, e->entry.data.timer.count,
		e->entry.data.timer.incl, e->entry.data.timer.excl);
}

KTAU_COMPAT_API void print_ktau_output(int type, FILE *fp, const ktau_output *profile)
{
	unsigned int i;

	if (!fp || !profile || type != KTAU_TYPE_PROFILE)
		return;
	fprintf(fp, "PID: %d\t No Entries: %u\n", (int)profile->pid, profile->size);
	for (i = 0; i < profile->size && profile->ent_lst; i++)
		print_o_ent(fp, &profile->ent_lst[i]);
}

KTAU_COMPAT_API void print_many_profiles(int type, FILE *fp, const ktau_output *profiles,
					 unsigned int no_profiles)
{
	unsigned int i;

	if (!profiles)
		return;
	for (i = 0; i < no_profiles; i++)
		print_ktau_output(type, fp, &profiles[i]);
}

/* A sorted copy of a profile's entries (n 0: a non-NULL empty array). */
static o_ent *sorted_copy(const ktau_output *p)
{
	size_t n = p->ent_lst ? p->size : 0;
	o_ent *v = malloc(n ? n * sizeof(*v) : 1);

	if (!v)
		return NULL;
	if (n) {
		memcpy(v, p->ent_lst, n * sizeof(*v));
		qsort(v, n, sizeof(*v), ktc_cmp_ent);
	}
	return v;
}

static void timer_add(ktau_timer *dst, const ktau_timer *src, bool *overflow)
{
	dst->count = ktc_add(dst->count, src->count, overflow);
	dst->incl = ktc_add(dst->incl, src->incl, overflow);
	dst->excl = ktc_add(dst->excl, src->excl, overflow);
}

KTAU_COMPAT_API int aggr_many_profiles(const ktau_output *inprofiles, unsigned int no_profiles,
				       unsigned int max_prof_entries, ktau_output *outprofile)
{
	o_ent *all = NULL, *v;
	size_t total = 0, n = 0, i;
	bool overflow = false;
	unsigned int k;

	if ((!inprofiles && no_profiles) || !outprofile ||
	    (max_prof_entries && !outprofile->ent_lst)) {
		errno = EINVAL;
		return -1;
	}
	for (k = 0; k < no_profiles; k++) {
		if (inprofiles[k].size && !inprofiles[k].ent_lst) {
			errno = EINVAL;
			return -1;
		}
		total += inprofiles[k].size;
	}
	all = malloc(total ? total * sizeof(*all) : 1);
	if (!all)
		return -1;
	for (k = 0, v = all; k < no_profiles; k++) {
		if (inprofiles[k].size)
			memcpy(v, inprofiles[k].ent_lst, inprofiles[k].size * sizeof(*v));
		v += inprofiles[k].size;
	}
	if (total)
		qsort(all, total, sizeof(*all), ktc_cmp_ent);
	/* sum runs of the same (index, address) in place */
	for (i = 0; i < total; i++) {
		if (n && !ktc_cmp_ent(&all[n - 1], &all[i])) {
			timer_add(&all[n - 1].entry.data.timer, &all[i].entry.data.timer, &overflow);
			continue;
		}
		all[n++] = all[i];
	}
	outprofile->pid = 0;
	outprofile->size = (unsigned int)(n < max_prof_entries ? n : max_prof_entries);
	if (outprofile->size)
		memcpy(outprofile->ent_lst, all, outprofile->size * sizeof(*all));
	free(all);
	if (n > max_prof_entries) {
		errno = ENOSPC;
		return -1;
	}
	if (overflow) {
		errno = EOVERFLOW;
		return -1;
	}
	return 0;
}

/* stop - start, entry by entry (both sorted); into out (room for both). */
static unsigned int diff_entries(const o_ent *a, size_t na, const o_ent *b, size_t nb,
				 o_ent *out)
{
	size_t i = 0, j;
	unsigned int n = 0;

	for (j = 0; j < nb; j++) {
		const ktau_timer *s, *t = &b[j].entry.data.timer;
		int c = 1;

		while (i < na && (c = ktc_cmp_ent(&a[i], &b[j])) < 0)
			i++;
		out[n] = b[j];
		if (i < na && !c) {
			s = &a[i].entry.data.timer;
			/* a count that went down: cleared in between; keep stop's */
			if (t->count >= s->count && t->incl >= s->incl && t->excl >= s->excl) {
				out[n].entry.data.timer.count = t->count - s->count;
				out[n].entry.data.timer.incl = t->incl - s->incl;
				out[n].entry.data.timer.excl = t->excl - s->excl;
			}
			i++;
		}
		n++;
	}
	return n;
}

static int cmp_output_ptr(const void *a, const void *b)
{
	const ktau_output *x = *(const ktau_output *const *)a;
	const ktau_output *y = *(const ktau_output *const *)b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x < y ? -1 : x > y;	/* stable: the first of a pid wins */
}

static const ktau_output **sorted_ptrs(const ktau_output *list, int n)
{
	const ktau_output **v = malloc(n ? (size_t)n * sizeof(*v) : 1);
	int i;

	if (!v)
		return NULL;
	for (i = 0; i < n; i++)
		v[i] = &list[i];
	if (n)
		qsort(v, (size_t)n, sizeof(*v), cmp_output_ptr);
	return v;
}

static bool valid_list(const ktau_output *list, int n)
{
	int i;

	if (n < 0 || (n && !list))
		return false;
	for (i = 0; i < n; i++)
		if (list[i].size && !list[i].ent_lst)
			return false;
	return true;
}

KTAU_COMPAT_API int ktau_diff_profiles(ktau_output *plist1, int size1, ktau_output *plist2,
				       int size2, ktau_output **outlist)
{
	const ktau_output **start = NULL, **stop = NULL;
	ktau_output *out = NULL;
	int i = 0, j, n = 0;

	if (!outlist || !valid_list(plist1, size1) || !valid_list(plist2, size2)) {
		errno = EINVAL;
		return -1;
	}
	start = sorted_ptrs(plist1, size1);
	stop = sorted_ptrs(plist2, size2);
	out = calloc((size_t)size2 + 1, sizeof(*out));
	if (!start || !stop || !out)
		goto nomem;
	for (j = 0; j < size2; j++) {
		const ktau_output *b = stop[j], *a = NULL;
		o_ent *sb, *sa = NULL;

		if (n && out[n - 1].pid == b->pid)
			continue;	/* a pid listed twice: the first */
		while (i < size1 && start[i]->pid < b->pid)
			i++;
		if (i < size1 && start[i]->pid == b->pid)
			a = start[i];
		sb = sorted_copy(b);
		if (a)
			sa = sorted_copy(a);
		if (!sb || (a && !sa)) {
			free(sb);
			free(sa);
			goto nomem;
		}
		if (a) {
			o_ent *d = malloc(b->size ? b->size * sizeof(*d) : 1);

			if (!d) {
				free(sb);
				free(sa);
				goto nomem;
			}
			out[n].size = diff_entries(sa, a->ent_lst ? a->size : 0, sb,
						   b->ent_lst ? b->size : 0, d);
			out[n].ent_lst = d;
			free(sb);
			free(sa);
		} else {
			out[n].size = b->ent_lst ? b->size : 0;
			out[n].ent_lst = sb;
		}
		out[n].pid = b->pid;
		out[n].trace_lst = NULL;
		n++;
	}
	free(start);
	free(stop);
	*outlist = out;
	return n;
nomem:
	free(start);
	free(stop);
	ktau_free_profiles(out, n);
	errno = ENOMEM;
	return -1;
}
