// SPDX-License-Identifier: GPL-2.0-or-later
/* The built library files: exports, soname link, pkg-config file. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "testutil.h"

static const char *libdir(void)
{
	const char *d = getenv("LIBKTAU_LIBDIR");

	return d ? d : "../../build/user/lib";
}

/*
 * The version node libktau.map lists sym under ("KTAU_0.1", ...), copied
 * into node; 0, or -1 when the map does not list it.
 */
static int map_node_of(const char *map, const char *sym, char *node, size_t size)
{
	const char *line = map, *current = NULL;
	size_t cur_len = 0, sym_len = strlen(sym);

	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);

		if (!strncmp(line, "KTAU_", 5)) {
			current = line;
			cur_len = strcspn(line, " {");
		} else if (current && len == sym_len + 3 && !strncmp(line, "\t\t", 2) &&
			   !strncmp(line + 2, sym, sym_len) && line[2 + sym_len] == ';') {
			snprintf(node, size, "%.*s", (int)cur_len, current);
			return 0;
		}
		line = end ? end + 1 : NULL;
	}
	return -1;
}

/* The -finstrument-functions hooks libktau-prof exports besides ktau_*. */
#define CYG_HOOK "__cyg_profile_func_"

/*
 * Every dynamic symbol of lib (in libdir) is ktau_* (or, where hooks is
 * set, a -finstrument-functions hook) at the version node of the map named
 * by $map_env, and each symbol of that map is there.
 */
static void check_exports(struct test_ctx *_t, const char *lib_name, const char *map_env,
			  bool hooks)
{
	char lib[4200], *argv[] = { "/usr/bin/nm", "-D", "--defined-only", lib, NULL };
	struct run_result r;
	const char *map_path = getenv(map_env);
	char *map, *line, *save = NULL;
	int n = 0, listed = 0;

	if (access("/usr/bin/nm", X_OK))
		FAIL("nm (binutils) is needed to check the exports");
	ASSERT_NOT_NULL(map_path);
	map = slurp(map_path, NULL);
	ASSERT_NOT_NULL(map);
	for (const char *p = map; (p = strstr(p, "\t\tktau_")); p++)
		listed++;
	for (const char *p = map; (p = strstr(p, "\t\t" CYG_HOOK)); p++)
		listed++;
	snprintf(lib, sizeof(lib), "%s/%s", libdir(), lib_name);
	ASSERT_EQ(0, run_program(argv, NULL, &r));
	ASSERT_EQ(0, r.status);
	for (line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *name = strrchr(line, ' '), *at;
		char sym[256], node[64];
		bool hook;

		name = name ? name + 1 : line;
		if (!strncmp(name, "KTAU_", 5))
			continue;	/* the version nodes themselves */
		at = strstr(name, "@@");
		hook = !strncmp(name, CYG_HOOK, strlen(CYG_HOOK));
		if ((strncmp(name, "ktau_", 5) && !(hooks && hook)) || !at)
			FAIL("%s: unexpected export %s", lib_name, name);
		snprintf(sym, sizeof(sym), "%.*s", (int)(at - name), name);
		if (map_node_of(map, sym, node, sizeof(node)) || strcmp(at + 2, node))
			FAIL("export %s: %s lists %s under %s", name, map_path, sym,
			     map_node_of(map, sym, node, sizeof(node)) ? "no node" : node);
		n++;
	}
	free(map);
	ASSERT_EQ(listed, n);
	run_result_free(&r);
}

TEST(shared_library_exports)
{
	check_exports(_t, "libktau.so.1", "LIBKTAU_MAP", false);
}

TEST(profiler_library_exports)
{
	check_exports(_t, "libktau-prof.so.1", "LIBKTAU_PROF_MAP", true);
}

/* The split's point: the reader needs neither libelf nor the profiler;
 * the profiler needs the reader. */
TEST(shared_library_dependencies)
{
	char lib[4200], *argv[] = { "/usr/bin/readelf", "-d", lib, NULL };
	struct run_result r;

	snprintf(lib, sizeof(lib), "%s/libktau.so.1", libdir());
	ASSERT_EQ(0, run_program(argv, NULL, &r));
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.out, "Library soname: [libktau.so.1]");
	ASSERT_NOT_CONTAINS(r.out, "libelf");
	run_result_free(&r);
	snprintf(lib, sizeof(lib), "%s/libktau-prof.so.1", libdir());
	ASSERT_EQ(0, run_program(argv, NULL, &r));
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.out, "Library soname: [libktau-prof.so.1]");
	ASSERT_CONTAINS(r.out, "Shared library: [libktau.so.1]");
	ASSERT_CONTAINS(r.out, "Shared library: [libelf.so.1]");
	run_result_free(&r);
}

/* In libdir, from is a symbolic link to the name to. */
static void check_link(struct test_ctx *_t, const char *from, const char *to)
{
	char path[4200], target[256];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", libdir(), from);
	n = readlink(path, target, sizeof(target) - 1);
	ASSERT_TRUE(n > 0);
	target[n] = '\0';
	ASSERT_STREQ(to, target);
}

/* lib -> lib.1 -> lib.1.6.0 (the release, ktau.h), a file, in libdir */
static void check_soname_link(struct test_ctx *_t, const char *lib)
{
	char soname[256], file[256], path[4200];
	struct stat st;

	snprintf(soname, sizeof(soname), "%s.%d", lib, KTAU_VERSION_MAJOR);
	snprintf(file, sizeof(file), "%s.%s", lib, KTAU_VERSION_STRING);
	check_link(_t, lib, soname);
	if (_t->failed)
		return;
	check_link(_t, soname, file);
	if (_t->failed)
		return;
	snprintf(path, sizeof(path), "%s/%s", libdir(), file);
	ASSERT_EQ(0, lstat(path, &st));
	ASSERT_TRUE(S_ISREG(st.st_mode));
}

TEST(soname_link_and_pkgconfig)
{
	char path[4200];
	char *pc;

	check_soname_link(_t, "libktau.so");
	if (_t->failed)
		return;
	check_soname_link(_t, "libktau-prof.so");
	if (_t->failed)
		return;
	snprintf(path, sizeof(path), "%s/libktau.a", libdir());
	ASSERT_EQ(0, access(path, R_OK));
	snprintf(path, sizeof(path), "%s/libktau-prof.a", libdir());
	ASSERT_EQ(0, access(path, R_OK));
	snprintf(path, sizeof(path), "%s/pkgconfig/ktau.pc", libdir());
	pc = slurp(path, NULL);
	ASSERT_NOT_NULL(pc);
	ASSERT_CONTAINS(pc, "Name: ktau\n");
	ASSERT_CONTAINS(pc, "Libs: -L${libdir} -lktau\n");
	ASSERT_CONTAINS(pc, "Cflags: -I${includedir}");
	ASSERT_CONTAINS(pc, "Version: " KTAU_VERSION_STRING "\n");
	ASSERT_CONTAINS(pc, "Libs.private: -lm -pthread");
	ASSERT_NOT_CONTAINS(pc, "@");
	free(pc);
	snprintf(path, sizeof(path), "%s/pkgconfig/ktau-prof.pc", libdir());
	pc = slurp(path, NULL);
	ASSERT_NOT_NULL(pc);
	ASSERT_CONTAINS(pc, "Name: ktau-prof\n");
	ASSERT_CONTAINS(pc, "Version: " KTAU_VERSION_STRING "\n");
	ASSERT_CONTAINS(pc, "Requires: ktau = " KTAU_VERSION_STRING "\n");
	ASSERT_CONTAINS(pc, "Libs: -L${libdir} -lktau-prof\n");
	ASSERT_CONTAINS(pc, "Libs.private: -lelf -lz -pthread");
	ASSERT_NOT_CONTAINS(pc, "@");
	free(pc);
}

TEST(ktau_dump_is_static)
{
	const char *dump = getenv("KTAU_DUMP");
	char *elf;
	size_t len;

	ASSERT_NOT_NULL(dump);
	elf = slurp(dump, &len);
	ASSERT_NOT_NULL(elf);
	/* a dynamically linked program names its interpreter */
	ASSERT_TRUE(memmem(elf, len, "/lib64/ld-linux-x86-64.so.2", 27) == NULL);
	free(elf);
}
