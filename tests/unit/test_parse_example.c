// SPDX-License-Identifier: GPL-2.0-or-later
/* The example of docs/proc-format.md, field by field, from every source. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"
#include "testutil.h"

TEST(doc_example_header)
{
	struct ktau_profile *p = load_profile(test_fixture("doc-example.ktau"), test_err());

	ASSERT_NOT_NULL(p);
	ASSERT_EQ(0, ERR_CODE);
	ASSERT_EQ(1, ktau_profile_version(p));
	ASSERT_EQ_U64(2899999, ktau_profile_tsc_khz(p));
	ASSERT_EQ(KTAU_SCOPE_PROCESS, ktau_profile_scope(p));
	ASSERT_EQ(2, ktau_profile_block_count(p));
	ktau_profile_free(p);
}

TEST(doc_example_process_block)
{
	struct ktau_profile *p = load_profile(test_fixture("doc-example.ktau"), NULL);
	const struct ktau_block *b;

	ASSERT_NOT_NULL(p);
	b = ktau_profile_block(p, 0);
	ASSERT_NOT_NULL(b);
	ASSERT_EQ(KTAU_BLOCK_PROCESS, ktau_block_kind(b));
	ASSERT_EQ(412, ktau_block_pid(b));
	ASSERT_EQ(412, ktau_block_tid(b));
	ASSERT_STREQ("getpid_test", ktau_block_comm(b));
	ASSERT_EQ_U64(1, ktau_block_threads(b));
	ASSERT_EQ_U64(0, ktau_block_exited_threads(b));
	ASSERT_EQ_U64(0, ktau_block_processes(b));
	ASSERT_EQ_U64(0, ktau_block_dropped(b));
	ASSERT_EQ(2, ktau_block_func_count(b));
	ASSERT_EQ(1, ktau_block_edge_count(b));
	ASSERT_EQ(1, ktau_block_event_count(b));
	ktau_profile_free(p);
}

TEST(doc_example_funcs)
{
	struct ktau_profile *p = load_profile(test_fixture("doc-example.ktau"), NULL);
	const struct ktau_block *b;
	const struct ktau_func *f;

	ASSERT_NOT_NULL(p);
	b = ktau_profile_block(p, 0);
	f = ktau_block_func(b, 0);
	ASSERT_NOT_NULL(f);
	ASSERT_EQ_U64(0, f->ctx);
	ASSERT_EQ(39, f->fid);
	ASSERT_STREQ("getpid", f->name);
	ASSERT_STREQ("syscall", f->group);
	ASSERT_EQ_U64(1000, f->calls);
	ASSERT_EQ_U64(231000, f->incl_cycles);
	ASSERT_EQ_U64(231000, f->excl_cycles);
	f = ktau_block_func(b, 1);
	ASSERT_NOT_NULL(f);
	ASSERT_EQ_U64(0, f->ctx);
	ASSERT_EQ(0, f->fid);
	ASSERT_STREQ("read", f->name);
	ASSERT_STREQ("syscall", f->group);
	ASSERT_EQ_U64(500, f->calls);
	ASSERT_EQ_U64(180500, f->incl_cycles);
	ASSERT_EQ_U64(172000, f->excl_cycles);
	ktau_profile_free(p);
}

TEST(doc_example_edge)
{
	struct ktau_profile *p = load_profile(test_fixture("doc-example.ktau"), NULL);
	const struct ktau_edge *e;

	ASSERT_NOT_NULL(p);
	e = ktau_block_edge(ktau_profile_block(p, 0), 0);
	ASSERT_NOT_NULL(e);
	ASSERT_EQ_U64(0, e->ctx);
	ASSERT_EQ(0, e->parent_fid);
	ASSERT_STREQ("read", e->parent);
	ASSERT_EQ(470, e->fid);
	ASSERT_STREQ("page_fault", e->name);
	ASSERT_EQ_U64(2, e->calls);
	ASSERT_EQ_U64(8500, e->incl_cycles);
	ASSERT_EQ_U64(8500, e->excl_cycles);
	ktau_profile_free(p);
}

TEST(doc_example_event)
{
	struct ktau_profile *p = load_profile(test_fixture("doc-example.ktau"), NULL);
	const struct ktau_event *ev;

	ASSERT_NOT_NULL(p);
	ev = ktau_block_event(ktau_profile_block(p, 0), 0);
	ASSERT_NOT_NULL(ev);
	ASSERT_EQ_U64(0, ev->ctx);
	ASSERT_EQ(480, ev->fid);
	ASSERT_STREQ("read_bytes", ev->name);
	ASSERT_EQ_U64(500, ev->count);
	ASSERT_EQ_U64(16, ev->min);
	ASSERT_EQ_U64(16, ev->max);
	ASSERT_EQ_U64(8000, ev->sum);
	ASSERT_EQ_U64(128000, ev->sumsq);
	ktau_profile_free(p);
}

TEST(doc_example_children_block)
{
	struct ktau_profile *p = load_profile(test_fixture("doc-example.ktau"), NULL);
	const struct ktau_block *b;

	ASSERT_NOT_NULL(p);
	b = ktau_profile_block(p, 1);
	ASSERT_NOT_NULL(b);
	ASSERT_EQ(KTAU_BLOCK_CHILDREN, ktau_block_kind(b));
	ASSERT_EQ(412, ktau_block_pid(b));
	ASSERT_EQ(0, ktau_block_tid(b));
	ASSERT_STREQ("-", ktau_block_comm(b));
	ASSERT_EQ_U64(0, ktau_block_processes(b));
	ASSERT_EQ_U64(0, ktau_block_dropped(b));
	ASSERT_EQ(0, ktau_block_func_count(b));
	ASSERT_EQ(0, ktau_block_edge_count(b));
	ASSERT_EQ(0, ktau_block_event_count(b));
	ktau_profile_free(p);
}

TEST(lookups_by_key_and_name)
{
	struct ktau_profile *p = load_profile(test_fixture("doc-example.ktau"), NULL);
	const struct ktau_block *b;

	ASSERT_NOT_NULL(p);
	b = ktau_profile_find_block(p, KTAU_BLOCK_PROCESS, 412, 412);
	ASSERT_TRUE(b == ktau_profile_block(p, 0));
	ASSERT_TRUE(ktau_profile_find_block(p, KTAU_BLOCK_CHILDREN, 412, 0) ==
		    ktau_profile_block(p, 1));
	errno = 0;
	ASSERT_NULL(ktau_profile_find_block(p, KTAU_BLOCK_THREAD, 412, 412));
	ASSERT_EQ(ENOENT, errno);

	ASSERT_EQ_U64(500, ktau_block_find_func(b, 0, 0)->calls);
	ASSERT_EQ_U64(1000, ktau_block_find_func_by_name(b, 0, "getpid")->calls);
	errno = 0;
	ASSERT_NULL(ktau_block_find_func(b, 1, 39));	/* other ctx */
	ASSERT_EQ(ENOENT, errno);
	ASSERT_NULL(ktau_block_find_func_by_name(b, 0, "write"));
	ASSERT_EQ_U64(2, ktau_block_find_edge(b, 0, 0, 470)->calls);
	ASSERT_NULL(ktau_block_find_edge(b, 0, 470, 0));
	ASSERT_EQ_U64(500, ktau_block_find_event(b, 0, 480)->count);
	ASSERT_EQ_U64(8000, ktau_block_find_event_by_name(b, 0, "read_bytes")->sum);
	ASSERT_NULL(ktau_block_find_event(b, 0, 481));
	ASSERT_NULL(ktau_block_find_event_by_name(b, 0, "nope"));
	ktau_profile_free(p);
}

TEST(index_past_the_end_is_erange)
{
	struct ktau_profile *p = load_profile(test_fixture("doc-example.ktau"), NULL);
	const struct ktau_block *b;

	ASSERT_NOT_NULL(p);
	b = ktau_profile_block(p, 0);
	errno = 0;
	ASSERT_NULL(ktau_profile_block(p, 2));
	ASSERT_EQ(ERANGE, errno);
	errno = 0;
	ASSERT_NULL(ktau_block_func(b, 2));
	ASSERT_EQ(ERANGE, errno);
	errno = 0;
	ASSERT_NULL(ktau_block_edge(b, 1));
	ASSERT_EQ(ERANGE, errno);
	errno = 0;
	ASSERT_NULL(ktau_block_event(b, 1));
	ASSERT_EQ(ERANGE, errno);
	ktau_profile_free(p);
}

/* The same bytes through the buffer, path and FILE * entry points. */
TEST(all_sources_agree)
{
	size_t len;
	char *text = slurp(test_fixture("doc-example.ktau"), &len);
	struct ktau_profile *a, *b, *c;
	FILE *mem;

	ASSERT_NOT_NULL(text);
	a = ktau_profile_parse(text, len, NULL);
	ASSERT_NOT_NULL(a);
	b = load_profile(test_fixture("doc-example.ktau"), NULL);
	ASSERT_NOT_NULL(b);
	mem = fmemopen(text, len, "r");
	ASSERT_NOT_NULL(mem);
	{
		KTAU_OPTS(ktau_load_opts, opts, .stream = mem);

		c = ktau_profile_load(&opts, NULL);
	}
	fclose(mem);
	ASSERT_NOT_NULL(c);
	ASSERT_EQ_U64(ktau_block_func(ktau_profile_block(a, 0), 1)->excl_cycles,
		      ktau_block_func(ktau_profile_block(b, 0), 1)->excl_cycles);
	ASSERT_EQ_U64(ktau_block_event(ktau_profile_block(a, 0), 0)->sumsq,
		      ktau_block_event(ktau_profile_block(c, 0), 0)->sumsq);
	ASSERT_EQ(ktau_profile_block_count(a), ktau_profile_block_count(c));
	ktau_profile_free(a);
	ktau_profile_free(b);
	ktau_profile_free(c);
	free(text);
}

/* A closed stream's read error reaches the caller. */
TEST(unreadable_stream_is_ebadf)
{
	FILE *wronly = fopen("/dev/null", "w");
	KTAU_OPTS(ktau_load_opts, opts, .stream = wronly);

	ASSERT_NOT_NULL(wronly);
	errno = 0;
	ASSERT_NULL(ktau_profile_load(&opts, test_err()));
	fclose(wronly);
	ASSERT_EQ(EBADF, errno);
	ASSERT_EQ(-EBADF, ERR_CODE);
}

/* Exactly one of path and stream, and opts itself, are required. */
TEST(load_needs_one_source)
{
	KTAU_OPTS(ktau_load_opts, none);
	KTAU_OPTS(ktau_load_opts, both, .path = "/dev/null", .stream = stdin);

	errno = 0;
	ASSERT_NULL(ktau_profile_load(NULL, test_err()));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-EINVAL, ERR_CODE);
	ASSERT_CONTAINS(ERR_MSG, "NULL struct ktau_load_opts");
	errno = 0;
	ASSERT_NULL(ktau_profile_load(&none, test_err()));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_CONTAINS(ERR_MSG, "exactly one of path and stream");
	errno = 0;
	ASSERT_NULL(ktau_functions_load(&both, NULL));
	ASSERT_EQ(EINVAL, errno);
	errno = 0;
	ASSERT_NULL(ktau_archive_load(&none, NULL));
	ASSERT_EQ(EINVAL, errno);
	errno = 0;
	ASSERT_NULL(ktau_stacks_load(NULL, KTAU_STACKS_AUTO, NULL));
	ASSERT_EQ(EINVAL, errno);
	errno = 0;
	ASSERT_NULL(ktau_raw_load(&both, NULL, test_err()));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-EINVAL, ERR_CODE);
}

TEST(missing_file_is_enoent)
{
	errno = 0;
	ASSERT_NULL(load_profile("/nonexistent/ktau/profile", test_err()));
	ASSERT_EQ(ENOENT, errno);
	ASSERT_EQ(-ENOENT, ERR_CODE);
	ASSERT_CONTAINS(ERR_MSG, "/nonexistent/ktau/profile");
}

TEST(thread_scope_file)
{
	struct ktau_profile *p = load_profile(test_fixture("thread.ktau"), NULL);
	const struct ktau_block *b;

	ASSERT_NOT_NULL(p);
	ASSERT_EQ(KTAU_SCOPE_THREAD, ktau_profile_scope(p));
	ASSERT_EQ(1, ktau_profile_block_count(p));
	b = ktau_profile_block(p, 0);
	ASSERT_EQ(KTAU_BLOCK_THREAD, ktau_block_kind(b));
	ASSERT_EQ(500, ktau_block_pid(b));
	ASSERT_EQ(501, ktau_block_tid(b));
	ASSERT_STREQ("worker", ktau_block_comm(b));
	ASSERT_EQ_U64(40000, ktau_block_find_func_by_name(b, 0, "write")->excl_cycles);
	ASSERT_EQ(0, ktau_profile_validate(p, NULL));
	ktau_profile_free(p);
}

TEST(system_scope_file)
{
	struct ktau_profile *p = load_profile(test_fixture("system.ktau"), NULL);
	static const struct {
		enum ktau_block_kind kind;
		int pid, tid;
		const char *comm;
		size_t funcs;
	} want[] = {
		{ KTAU_BLOCK_THREAD, 500, 500, "server", 2 },
		{ KTAU_BLOCK_THREAD, 500, 501, "worker", 3 },
		{ KTAU_BLOCK_EXITED, 500, 0, "server", 2 },
		{ KTAU_BLOCK_CHILDREN, 500, 0, "-", 1 },
		{ KTAU_BLOCK_THREAD, 600, 600, "idle_loop", 2 },
		{ KTAU_BLOCK_EXITED, 600, 0, "idle_loop", 0 },
		{ KTAU_BLOCK_CHILDREN, 600, 0, "-", 0 },
	};
	size_t i;

	ASSERT_NOT_NULL(p);
	ASSERT_EQ(KTAU_SCOPE_SYSTEM, ktau_profile_scope(p));
	ASSERT_EQ(7, ktau_profile_block_count(p));
	for (i = 0; i < 7; i++) {
		const struct ktau_block *b = ktau_profile_block(p, i);

		ASSERT_EQ(want[i].kind, ktau_block_kind(b));
		ASSERT_EQ(want[i].pid, ktau_block_pid(b));
		ASSERT_EQ(want[i].tid, ktau_block_tid(b));
		ASSERT_STREQ(want[i].comm, ktau_block_comm(b));
		ASSERT_EQ(want[i].funcs, ktau_block_func_count(b));
	}
	ASSERT_EQ_U64(1, ktau_block_dropped(ktau_profile_block(p, 1)));
	ASSERT_EQ_U64(2, ktau_block_processes(ktau_profile_block(p, 3)));
	ASSERT_EQ_U64(1, ktau_block_exited_threads(ktau_profile_block(p, 2)));
	ASSERT_EQ(0, ktau_profile_validate(p, NULL));
	ktau_profile_free(p);
}

TEST(max_u64_values_parse)
{
	struct ktau_profile *p = parse_str(
		"ktau-profile 1\ntsc_khz 18446744073709551615\nscope thread\n"
		"task kind=thread pid=2147483647 tid=2147483647 comm=x\n"
		"func 18446744073709551615 4294967295 f g 18446744073709551615 "
		"18446744073709551615 18446744073709551615\nend\n", NULL);
	const struct ktau_func *f;

	ASSERT_NOT_NULL(p);
	ASSERT_EQ_U64(UINT64_MAX, ktau_profile_tsc_khz(p));
	ASSERT_EQ(2147483647, ktau_block_pid(ktau_profile_block(p, 0)));
	f = ktau_block_func(ktau_profile_block(p, 0), 0);
	ASSERT_EQ_U64(UINT64_MAX, f->ctx);
	ASSERT_EQ_U64(UINT32_MAX, f->fid);
	ASSERT_EQ_U64(UINT64_MAX, f->calls);
	ASSERT_EQ_U64(UINT64_MAX, f->excl_cycles);
	ktau_profile_free(p);
}

TEST(empty_profile_is_valid)
{
	/* /proc/ktau/profile for a reader who may see no task */
	struct ktau_profile *p = parse_str("ktau-profile 1\ntsc_khz 1\nscope system\nend\n",
					   NULL);

	ASSERT_NOT_NULL(p);
	ASSERT_EQ(0, ktau_profile_block_count(p));
	ktau_profile_free(p);
}

TEST(empty_comm_and_missing_optional_keys)
{
	struct ktau_profile *p = parse_str("ktau-profile 1\ntsc_khz 1\nscope thread\n"
					   "task kind=thread pid=3 tid=4 comm=\nend\n", NULL);
	const struct ktau_block *b;

	ASSERT_NOT_NULL(p);
	b = ktau_profile_block(p, 0);
	ASSERT_STREQ("", ktau_block_comm(b));
	ASSERT_EQ_U64(0, ktau_block_dropped(b));
	ASSERT_EQ_U64(0, ktau_block_threads(b));
	ktau_profile_free(p);
}

TEST(names_and_kinds)
{
	ASSERT_STREQ("thread", ktau_scope_name(KTAU_SCOPE_THREAD));
	ASSERT_STREQ("process", ktau_scope_name(KTAU_SCOPE_PROCESS));
	ASSERT_STREQ("system", ktau_scope_name(KTAU_SCOPE_SYSTEM));
	ASSERT_STREQ("unknown", ktau_scope_name((enum ktau_scope)0));
	ASSERT_STREQ("thread", ktau_block_kind_name(KTAU_BLOCK_THREAD));
	ASSERT_STREQ("process", ktau_block_kind_name(KTAU_BLOCK_PROCESS));
	ASSERT_STREQ("exited", ktau_block_kind_name(KTAU_BLOCK_EXITED));
	ASSERT_STREQ("children", ktau_block_kind_name(KTAU_BLOCK_CHILDREN));
	ASSERT_STREQ("unknown", ktau_block_kind_name((enum ktau_block_kind)99));
}
