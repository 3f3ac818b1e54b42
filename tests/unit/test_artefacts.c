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

/* Every dynamic symbol is ktau_* at version KTAU_0.1 or KTAU_0.2, and each public
 * function of libktau.map is there. */
TEST(shared_library_exports)
{
	char lib[4200], *argv[] = { "/usr/bin/nm", "-D", "--defined-only", lib, NULL };
	struct run_result r;
	const char *map_path = getenv("LIBKTAU_MAP");
	char *map, *line, *save = NULL;
	int n = 0;

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
		if (strncmp(name, "ktau_", 5) ||
		    (!strstr(name, "@@KTAU_0.1") && !strstr(name, "@@KTAU_0.2")))
			FAIL("unexpected export %s", name);
		n++;
	}
	ASSERT_NOT_NULL(map_path);
	map = slurp(map_path, NULL);
	ASSERT_NOT_NULL(map);
	{
		int listed = 0;
		char *p = map;

		while ((p = strstr(p, "\t\tktau_"))) {
			listed++;
			p++;
		}
		free(map);
		ASSERT_EQ(listed, n);
	}
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
	ASSERT_CONTAINS(pc, "Version: 0.1");
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
