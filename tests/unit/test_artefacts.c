// SPDX-License-Identifier: GPL-2.0-or-later
/* The built library files: exports, soname link, pkg-config file. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"
#include "testutil.h"

static const char *libdir(void)
{
	const char *d = getenv("LIBKTAU_LIBDIR");

	return d ? d : "../../build/user/lib";
}

/* An export is a ktau_* function, or one of the -finstrument-functions
 * hooks, at a version node of libktau.map. */
static bool expected_export(const char *name)
{
	const char *at = strstr(name, "@@KTAU_0.");

	if (!at || (strcmp(at, "@@KTAU_0.1") && strcmp(at, "@@KTAU_0.2")))
		return false;
	if (!strncmp(name, "ktau_", 5))
		return true;
	return !strcmp(name, "__cyg_profile_func_enter@@KTAU_0.2") ||
	       !strcmp(name, "__cyg_profile_func_exit@@KTAU_0.2");
}

/* Each map line "\t\tsymbol;" of a global: list. */
static int map_symbols(const char *map)
{
	const char *p = map;
	int listed = 0;

	while ((p = strstr(p, "\n\t\t"))) {
		p += 3;
		listed += strcspn(p, ";\n") > 0 && p[strcspn(p, ";\n")] == ';' &&
			  strncmp(p, "local", 5) && strncmp(p, "*", 1);
	}
	return listed;
}

/* Every dynamic symbol is expected, and each function of libktau.map is
 * there. */
TEST(shared_library_exports)
{
	char lib[4200], *argv[] = { "/usr/bin/nm", "-D", "--defined-only", lib, NULL };
	struct run_result r;
	const char *map_path = getenv("LIBKTAU_MAP");
	char *map, *line, *save = NULL;
	int n = 0, listed;

	if (access("/usr/bin/nm", X_OK))
		FAIL("nm (binutils) is needed to check the exports");
	snprintf(lib, sizeof(lib), "%s/libktau.so.0", libdir());
	ASSERT_EQ(0, run_program(argv, NULL, &r));
	ASSERT_EQ(0, r.status);
	for (line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *name = strrchr(line, ' ');

		name = name ? name + 1 : line;
		if (!strcmp(name, "KTAU_0.1") || !strcmp(name, "KTAU_0.2"))
			continue;
		if (!expected_export(name))
			FAIL("unexpected export %s", name);
		n++;
	}
	ASSERT_NOT_NULL(map_path);
	map = slurp(map_path, NULL);
	ASSERT_NOT_NULL(map);
	listed = map_symbols(map);
	free(map);
	ASSERT_EQ(listed, n);
	ASSERT_TRUE(n > 100);
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
	ASSERT_CONTAINS(pc, "Version: 0.2");
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
