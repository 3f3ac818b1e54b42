// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Function names for -finstrument-functions addresses, from the ELF symbol
 * table (.symtab, which has the static functions; .dynsym when the file is
 * stripped) of whichever object is mapped there. dl_iterate_phdr() gives
 * each object's load bias, so PIE executables and shared libraries
 * resolve like fixed-address ones. Each object's table is read once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prof/prof.h"

struct elf_func {
	uint64_t start, size;		/* link-time addresses */
	const char *name;
};

struct elf_object {
	uintptr_t bias;
	uintptr_t lo, hi;		/* mapped range (run-time addresses) */
	struct elf_func *funcs;		/* sorted by start */
	size_t nr_funcs;
	struct ktau_strpool names;
	struct elf_object *next;
};

/* Objects whose tables were read; process-wide, as the mappings are. */
static pthread_mutex_t objects_lock = PTHREAD_MUTEX_INITIALIZER;
static struct elf_object *objects;

struct found {
	uintptr_t addr;
	uintptr_t bias, lo, hi;
	char path[4096];
	bool hit;
};

static int find_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct found *f = arg;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	bool inside = false;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD)
			continue;
		inside |= f->addr >= start && f->addr < start + ph->p_memsz;
		lo = start < lo ? start : lo;
		hi = start + ph->p_memsz > hi ? start + ph->p_memsz : hi;
	}
	if (!inside)
		return 0;
	f->hit = true;
	f->bias = info->dlpi_addr;
	f->lo = lo;
	f->hi = hi;
	/* the main program has no name here */
	snprintf(f->path, sizeof(f->path), "%s",
		 info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "/proc/self/exe");
	return 1;
}

static int by_start(const void *a, const void *b)
{
	const struct elf_func *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The section of that type, or NULL. */
static Elf_Scn *section_of_type(Elf *e, Elf64_Word type, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, sh) && sh->sh_type == type)
			return scn;
	return NULL;
}

static int read_funcs(struct elf_object *o, Elf *e)
{
	GElf_Shdr sh;
	Elf_Scn *scn = section_of_type(e, SHT_SYMTAB, &sh);
	Elf_Data *data;
	size_t i, n, cap = 0;

	if (!scn)
		scn = section_of_type(e, SHT_DYNSYM, &sh);
	if (!scn || !sh.sh_entsize || !(data = elf_getdata(scn, NULL)))
		return -ENOENT;
	n = sh.sh_size / sh.sh_entsize;
	for (i = 0; i < n; i++) {
		GElf_Sym sym;
		const char *name;
		int type;

		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		name = elf_strptr(e, sh.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		if (ktau__grow((void **)&o->funcs, &cap, o->nr_funcs, sizeof(*o->funcs)))
			return -ENOMEM;
		o->funcs[o->nr_funcs].start = sym.st_value;
		o->funcs[o->nr_funcs].size = sym.st_size;
		o->funcs[o->nr_funcs].name = ktau__strpool_add(&o->names, name, strlen(name));
		if (!o->funcs[o->nr_funcs].name)
			return -ENOMEM;
		o->nr_funcs++;
	}
	qsort(o->funcs, o->nr_funcs, sizeof(*o->funcs), by_start);
	return 0;
}

static void object_free(struct elf_object *o)
{
	free(o->funcs);
	ktau__strpool_free(&o->names);
	free(o);
}

/* Reads the symbols of the object at f; NULL with errno. */
static struct elf_object *object_load(const struct found *f)
{
	struct elf_object *o = calloc(1, sizeof(*o));
	Elf *e = NULL;
	int fd = -1, ret = -ENOENT;

	if (!o) {
		errno = ENOMEM;
		return NULL;
	}
	o->bias = f->bias;
	o->lo = f->lo;
	o->hi = f->hi;
	if (elf_version(EV_CURRENT) == EV_NONE)
		goto out;
	fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto out;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e)
		ret = read_funcs(o, e);
out:
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	if (ret) {
		object_free(o);
		errno = -ret;
		return NULL;
	}
	return o;
}

static const char *lookup(const struct elf_object *o, uintptr_t addr)
{
	uint64_t off = addr - o->bias;
	size_t lo = 0, hi = o->nr_funcs;

	/* the last function starting at or before off */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->funcs[mid].start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	lo--;
	if (off >= o->funcs[lo].start + (o->funcs[lo].size ? o->funcs[lo].size : 1))
		return NULL;
	return o->funcs[lo].name;
}

int ktau__symbol_name(const void *addr, char *buf, size_t size)
{
	struct found f = { .addr = (uintptr_t)addr };
	struct elf_object *o;
	const char *name = NULL;
	int ret = 0;

	pthread_mutex_lock(&objects_lock);
	for (o = objects; o; o = o->next)
		if (f.addr >= o->lo && f.addr < o->hi)
			break;
	if (!o) {
		dl_iterate_phdr(find_object, &f);
		if (!f.hit || !(o = object_load(&f))) {
			ret = f.hit ? -errno : -ENOENT;
			goto out;
		}
		o->next = objects;
		objects = o;
	}
	name = lookup(o, f.addr);
	if (name)
		snprintf(buf, size, "%s", name);
	else
		ret = -ENOENT;
out:
	pthread_mutex_unlock(&objects_lock);
	return ret;
}
