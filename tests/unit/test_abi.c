// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The extensible ABI (docs/libktau-abi.md): library-allocated errors, the
 * options structs' size check, and the shared out-of-memory error.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "proc/proc.h"
#include "testutil.h"

/* What a program built against a later header might pass: the known
 * members, then one this library has never heard of. */
struct later_read_opts {
	size_t sz;
	pid_t pid;
	pid_t tid;
	unsigned int flags;
	unsigned int later;	/* lands in the known struct's tail padding */
	uint64_t later2;
};

/* A program built against an earlier header: only sz and pid. */
struct earlier_read_opts {
	size_t sz;
	pid_t pid;
};

static char *fake_root(void)
{
	char *root = make_tmpdir();

	if (root && (write_tree_file(root, "ktau/profile", "ktau-profile 1\ntsc_khz 1\n"
				     "scope system\nend\n") ||
		     write_tree_file(root, "7/ktau", "ktau-profile 1\ntsc_khz 2\n"
				     "scope process\nend\n"))) {
		remove_tree(root);
		free(root);
		return NULL;
	}
	return root;
}

TEST(abi_opts_macro_sets_sz_and_zeroes)
{
	KTAU_OPTS(ktau_read_opts, a);
	KTAU_OPTS(ktau_read_opts, b, .tid = 3);
	KTAU_OPTS(ktau_load_opts, c, .path = "x");

	ASSERT_EQ(sizeof(struct ktau_read_opts), a.sz);
	ASSERT_EQ(0, a.pid);
	ASSERT_EQ(0, a.tid);
	ASSERT_EQ(0, a.flags);
	ASSERT_EQ(3, b.tid);
	ASSERT_EQ(sizeof(struct ktau_load_opts), c.sz);
	ASSERT_NULL(c.stream);
}

TEST(abi_opts_sz_too_small_is_einval)
{
	char *root = fake_root();
	struct ktau_proc *proc = open_root(root);
	struct ktau_read_opts zero = { 0 };	/* not through KTAU_OPTS: sz 0 */
	struct ktau_proc_opts tiny = { .sz = 4 };

	ASSERT_NOT_NULL(proc);
	errno = 0;
	ASSERT_NULL(ktau_proc_read_profile(proc, &zero, test_err()));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-EINVAL, ERR_CODE);
	ASSERT_CONTAINS(ERR_MSG, "struct ktau_read_opts: sz 0 is too small");
	errno = 0;
	ASSERT_NULL(ktau_proc_open(&tiny, test_err()));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_CONTAINS(ERR_MSG, "struct ktau_proc_opts");
	ktau_proc_close(proc);
	remove_tree(root);
	free(root);
}

TEST(abi_opts_across_header_versions)
{
	char *root = fake_root();
	struct ktau_proc *proc = open_root(root);
	struct later_read_opts later;
	struct {
		struct earlier_read_opts o;
		unsigned int beyond_sz[2];	/* where flags would be */
	} earlier;
	struct ktau_profile *p;

	ASSERT_NOT_NULL(proc);
	memset(&later, 0, sizeof(later));
	later.sz = sizeof(later);
	later.pid = 7;
	/* larger, the extra bytes zero: the later members' defaults */
	p = ktau_proc_read_profile(proc, (struct ktau_read_opts *)&later, test_err());
	ASSERT_NOT_NULL(p);
	ASSERT_EQ(KTAU_SCOPE_PROCESS, ktau_profile_scope(p));
	ktau_profile_free(p);
	/* a member this library does not know is set: refused */
	later.later2 = 1;
	errno = 0;
	ASSERT_NULL(ktau_proc_read_profile(proc, (struct ktau_read_opts *)&later, test_err()));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-EINVAL, ERR_CODE);
	ASSERT_CONTAINS(ERR_MSG, "struct ktau_read_opts: byte");
	later.later2 = 0;
	later.later = 1;	/* in the known struct's padding: still unknown */
	errno = 0;
	ASSERT_NULL(ktau_proc_read_raw(proc, (struct ktau_read_opts *)&later, NULL, NULL));
	ASSERT_EQ(EINVAL, errno);
	/* an earlier header's struct: members beyond its sz get their
	 * defaults, whatever bytes follow it */
	memset(&earlier, 0xff, sizeof(earlier));
	/* what KTAU_OPTS of the earlier header did: its own sizeof zeroed */
	memset(&earlier.o, 0, sizeof(earlier.o));
	earlier.o.sz = sizeof(earlier.o);
	earlier.o.pid = 7;
	/* flags lie beyond sz: 0, not the bytes there (unknown flags, EINVAL) */
	p = ktau_proc_read_profile(proc, (struct ktau_read_opts *)&earlier, test_err());
	ASSERT_NOT_NULL(p);
	ASSERT_EQ_U64(2, ktau_profile_tsc_khz(p));
	ktau_profile_free(p);
	ktau_proc_close(proc);
	remove_tree(root);
	free(root);
}

TEST(abi_opts_check_helper)
{
	struct ktau_parse_error pe;
	unsigned char buf[32];

	memset(buf, 0, sizeof(buf));
	*(size_t *)(void *)buf = 24;
	ASSERT_EQ(0, ktau__opts_check(NULL, 16, "t", &pe));
	ASSERT_EQ(0, ktau__opts_check(buf, 16, "t", &pe));	/* larger, zero */
	ASSERT_EQ(0, ktau__opts_check(buf, 32, "t", &pe));	/* smaller */
	buf[23] = 1;
	ASSERT_EQ(-EINVAL, ktau__opts_check(buf, 16, "t", &pe));
	ASSERT_STREQ("struct t: byte 23 is set, but this libktau knows only 16 bytes",
		     pe.message);
	ASSERT_EQ(0, ktau__opts_check(buf, 24, "t", &pe));	/* known: fine */
	*(size_t *)(void *)buf = sizeof(size_t) - 1;
	ASSERT_EQ(-EINVAL, ktau__opts_check(buf, 16, "t", NULL));
}

TEST(abi_error_accessors)
{
	struct ktau_error *err = (struct ktau_error *)1;
	struct ktau_profile *p;

	/* NULL: the accessors' neutral answers */
	ASSERT_EQ(0, ktau_error_code(NULL));
	ASSERT_EQ(0, ktau_error_line(NULL));
	ASSERT_STREQ("", ktau_error_message(NULL));
	ktau_error_free(NULL);
	errno = 0;
	p = parse_str("ktau-profile 1\ntsc_khz 1\nbogus\n", &err);
	ASSERT_NULL(p);
	ASSERT_EQ(EPROTO, errno);
	ASSERT_NOT_NULL(err);
	ASSERT_EQ(-EPROTO, ktau_error_code(err));
	ASSERT_EQ(3, ktau_error_line(err));
	ASSERT_TRUE(ktau_error_message(err)[0] != '\0');
	ASSERT_TRUE(!strchr(ktau_error_message(err), '\n'));
	/* freeing keeps errno: callers free, then report */
	errno = EPROTO;
	ktau_error_free(err);
	ASSERT_EQ(EPROTO, errno);
	/* success stores NULL */
	err = (struct ktau_error *)1;
	p = parse_str("ktau-profile 1\ntsc_khz 1\nscope system\nend\n", &err);
	ASSERT_NOT_NULL(p);
	ASSERT_NULL(err);
	ASSERT_EQ(0, ktau_profile_validate(p, &err));
	ASSERT_NULL(err);
	ktau_profile_free(p);
	/* err NULL: the return value and errno only */
	errno = 0;
	ASSERT_NULL(parse_str("nonsense\n", NULL));
	ASSERT_EQ(EPROTO, errno);
	ASSERT_EQ(-EINVAL, ktau_profile_validate(NULL, NULL));
	ASSERT_EQ(EINVAL, errno);
}

/* A message without details is ktau_strerror()'s. */
TEST(abi_error_without_details)
{
	struct ktau_parse_error pe = { 0, 0, "" };
	struct ktau_error *err;

	errno = 0;
	ASSERT_EQ(-ERANGE, ktau__ret_int(-ERANGE, &pe, &err));
	ASSERT_EQ(ERANGE, errno);
	ASSERT_EQ(-ERANGE, ktau_error_code(err));
	ASSERT_EQ(0, ktau_error_line(err));
	ASSERT_STREQ(ktau_strerror(ERANGE), ktau_error_message(err));
	ktau_error_free(err);
	/* pe about another failure is not this one's */
	pe.error = -EPROTO;
	pe.line = 9;
	strcpy(pe.message, "stale");
	errno = EACCES;
	ASSERT_NULL(ktau__ret_ptr(NULL, &pe, &err));
	ASSERT_EQ(EACCES, errno);
	ASSERT_EQ(-EACCES, ktau_error_code(err));
	ASSERT_EQ(0, ktau_error_line(err));
	ASSERT_STREQ(ktau_strerror(EACCES), ktau_error_message(err));
	ktau_error_free(err);
	ASSERT_EQ(0, ktau__ret_int(0, &pe, &err));
	ASSERT_NULL(err);
}

static void *no_memory(size_t size)
{
	(void)size;
	return NULL;
}

/* Out of memory, an error is still delivered: the shared static one. */
TEST(abi_enomem_error_is_static)
{
	struct ktau_error *a, *b;

	ktau__error_alloc = no_memory;
	errno = 0;
	ASSERT_NULL(parse_str("nonsense\n", &a));
	ASSERT_EQ(EPROTO, errno);	/* the failure itself is still EPROTO */
	ASSERT_NOT_NULL(a);
	ASSERT_EQ(-ENOMEM, ktau_error_code(a));
	ASSERT_STREQ("out of memory", ktau_error_message(a));
	ASSERT_EQ(0, ktau_error_line(a));
	ASSERT_NULL(parse_str("more nonsense\n", &b));
	ASSERT_TRUE(a == b);	/* one shared object */
	ktau_error_free(a);	/* ignored, however often: LeakSanitizer */
	ktau_error_free(b);	/* and ASan would catch a real free */
	ktau__error_alloc = malloc;
	/* an ENOMEM failure uses it without trying to allocate */
	errno = 0;
	ASSERT_NULL(ktau__ret_ptr(NULL, NULL, &a));
	ASSERT_EQ(EIO, errno);	/* NULL without errno: never a silent success */
	ktau_error_free(a);
	errno = ENOMEM;
	ASSERT_NULL(ktau__ret_ptr(NULL, NULL, &a));
	ASSERT_TRUE(a == b);
	ktau_error_free(a);
}
