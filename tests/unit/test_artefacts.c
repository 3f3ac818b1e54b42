// SPDX-License-Identifier: GPL-2.0-or-later
/* The built library files: exports, soname link, pkg-config file. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
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

/* The -finstrument-functions hooks libktau exports besides ktau_*. */
#define CYG_HOOK "__cyg_profile_func_"

/* Every dynamic symbol is ktau_* (or a -finstrument-functions hook) at the
 * version node libktau.map lists it under, and each public function of
 * libktau.map is there. */
TEST(shared_library_exports)
{
	char lib[4200], *argv[] = { "/usr/bin/nm", "-D", "--defined-only", lib, NULL };
	struct run_result r;
	const char *map_path = getenv("LIBKTAU_MAP");
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
	snprintf(lib, sizeof(lib), "%s/libktau.so.0", libdir());
	ASSERT_EQ(0, run_program(argv, NULL, &r));
	ASSERT_EQ(0, r.status);
	for (line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *name = strrchr(line, ' '), *at;
		char sym[256], node[64];

		name = name ? name + 1 : line;
		if (!strncmp(name, "KTAU_", 5))
			continue;	/* the version nodes themselves */
		at = strstr(name, "@@");
		if ((strncmp(name, "ktau_", 5) && strncmp(name, CYG_HOOK, strlen(CYG_HOOK))) ||
		    !at)
			FAIL("unexpected export %s", name);
		snprintf(sym, sizeof(sym), "%.*s", (int)(at - name), name);
		if (map_node_of(map, sym, node, sizeof(node)) || strcmp(at + 2, node))
			FAIL("export %s: libktau.map lists %s under %s", name, sym,
			     map_node_of(map, sym, node, sizeof(node)) ? "no node" : node);
		n++;
	}
	free(map);
	ASSERT_EQ(listed, n);
	run_result_free(&r);
}

TEST(soname_link_and_pkgconfig)
{
	char path[4200], target[256];
	ssize_t n;
	char *pc;

	snprintf(path, sizeof(path), "%s/libktau.so", libdir());
	n = readlink(path, target, sizeof(target) - 1);
	ASSERT_TRUE(n > 0);
	target[n] = '\0';
	ASSERT_STREQ("libktau.so.0", target);
	snprintf(path, sizeof(path), "%s/libktau.a", libdir());
	ASSERT_EQ(0, access(path, R_OK));
	snprintf(path, sizeof(path), "%s/pkgconfig/ktau.pc", libdir());
	pc = slurp(path, NULL);
	ASSERT_NOT_NULL(pc);
	ASSERT_CONTAINS(pc, "Name: ktau");
	ASSERT_CONTAINS(pc, "Libs: -L${libdir} -lktau");
	ASSERT_CONTAINS(pc, "Cflags: -I${includedir}");
	ASSERT_CONTAINS(pc, "Version: 0.3");
	ASSERT_CONTAINS(pc, "Libs.private: -lelf -lz -lm -pthread");
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
