// SPDX-License-Identifier: GPL-2.0-or-later
/* Every way a profile can be malformed: errno, line number and message. */
#include <errno.h>
#include <stdlib.h>

#include "harness.h"
#include "testutil.h"

#define HEADER "ktau-profile 1\ntsc_khz 1000\nscope process\n"
#define TASK "task kind=process pid=1 tid=1 comm=init threads=1 exited_threads=0 dropped=0\n"

/*
 * Parses text expecting failure with error (positive errno) at line, with
 * msg in the message. Returns NULL when so, else what went differently.
 */
static const char *parse_fails(const char *text, size_t len, int error,
			       unsigned int line, const char *msg)
{
	static char why[600];
	struct ktau_profile *p;

	errno = 0;
	p = ktau_profile_parse(text, len, test_err());
	if (p) {
		ktau_profile_free(p);
		return "parsed successfully";
	}
	if (errno != error || ERR_CODE != -error || ERR_LINE != line ||
	    !strstr(ERR_MSG, msg)) {
		snprintf(why, sizeof(why),
			 "errno %d code %d line %u message \"%s\"; wanted %d at line %u with \"%s\"",
			 errno, ERR_CODE, ERR_LINE, ERR_MSG, error, line, msg);
		return why;
	}
	/* the same failure with err NULL must not crash */
	errno = 0;
	if (ktau_profile_parse(text, len, NULL) || errno != error)
		return "different result with err NULL";
	return NULL;
}

#define ASSERT_PARSE_FAILS(text, error, line, msg)				\
	do {									\
		const char *why_ = parse_fails(text, strlen(text), error, line, msg); \
		if (why_)							\
			FAIL("%s", why_);					\
	} while (0)

TEST(error_empty_input)
{
	ASSERT_PARSE_FAILS("", EPROTO, 0, "empty input");
}

TEST(error_truncated_no_end)
{
	ASSERT_PARSE_FAILS(HEADER TASK "func 0 39 getpid syscall 1000 231000 231000\n",
			   EPROTO, 5, "truncated");
}

TEST(error_truncated_mid_line)
{
	/* a short read that cut a record: still no end line */
	ASSERT_PARSE_FAILS(HEADER TASK "func 0 39 getpid sysc", EPROTO, 5, "");
}

TEST(error_truncated_doc_example)
{
	size_t len;
	char *text = slurp(test_fixture("doc-example.ktau"), &len);
	const char *why;

	ASSERT_NOT_NULL(text);
	/* drop "end\n" */
	why = parse_fails(text, len - 4, EPROTO, 12, "truncated: no 'end' line");
	free(text);
	if (why)
		FAIL("%s", why);
}

TEST(error_bad_number)
{
	ASSERT_PARSE_FAILS(HEADER TASK "func 0 39 getpid syscall 10x0 231000 231000\nend\n",
			   EPROTO, 5, "field 'calls' is not an unsigned 64-bit decimal: '10x0'");
}

TEST(error_negative_number)
{
	ASSERT_PARSE_FAILS(HEADER TASK "func 0 39 getpid syscall -5 231000 231000\nend\n",
			   EPROTO, 5, "'calls'");
}

TEST(error_plus_sign)
{
	ASSERT_PARSE_FAILS(HEADER TASK "func 0 39 getpid syscall +5 231000 231000\nend\n",
			   EPROTO, 5, "'calls'");
}

TEST(error_number_overflows_u64)
{
	ASSERT_PARSE_FAILS(HEADER TASK
			   "func 0 39 getpid syscall 1 18446744073709551616 1\nend\n",
			   EPROTO, 5, "'incl_cycles'");
}

TEST(error_fid_out_of_range)
{
	ASSERT_PARSE_FAILS(HEADER TASK "func 0 4294967296 f g 1 1 1\nend\n",
			   EPROTO, 5, "function id 4294967296 out of range");
}

TEST(error_bad_event_and_edge_numbers)
{
	ASSERT_PARSE_FAILS(HEADER TASK "edge 0 x read 470 page_fault 2 8500 8500\nend\n",
			   EPROTO, 5, "edge: field 'parent_fid'");
	ASSERT_PARSE_FAILS(HEADER TASK "event 0 480 read_bytes 500 16 16 8000 1e5\nend\n",
			   EPROTO, 5, "event: field 'sumsq'");
}

TEST(error_unknown_version)
{
	ASSERT_PARSE_FAILS("ktau-profile 3\ntsc_khz 1\nscope thread\nend\n",
			   EPROTONOSUPPORT, 1, "format version 3 is not supported");
	ASSERT_PARSE_FAILS("ktau-profile 0\ntsc_khz 1\nscope thread\nend\n",
			   EPROTONOSUPPORT, 1, "format version 0 is not supported");
}

TEST(error_bad_version_word)
{
	ASSERT_PARSE_FAILS("ktau-profile one\n", EPROTO, 1, "bad format version");
	ASSERT_PARSE_FAILS("ktau-profile\n", EPROTO, 1, "bad format version");
}

TEST(error_missing_first_line)
{
	ASSERT_PARSE_FAILS("tsc_khz 1000\nscope process\nend\n", EPROTO, 1,
			   "not a ktau profile");
	ASSERT_PARSE_FAILS("\nktau-profile 1\n", EPROTO, 1, "not a ktau profile");
	ASSERT_PARSE_FAILS("ktau-functions 1\n0 syscall read\n", EPROTO, 1,
			   "not a ktau profile");
}

TEST(error_missing_tsc_khz)
{
	ASSERT_PARSE_FAILS("ktau-profile 1\nscope process\n" TASK "end\n", EPROTO, 3,
			   "missing 'tsc_khz'");
	ASSERT_PARSE_FAILS("ktau-profile 1\nscope process\nend\n", EPROTO, 3,
			   "missing 'tsc_khz'");
}

TEST(error_missing_scope)
{
	ASSERT_PARSE_FAILS("ktau-profile 1\ntsc_khz 5\n" TASK "end\n", EPROTO, 3,
			   "missing 'scope'");
}

TEST(error_bad_header_values)
{
	ASSERT_PARSE_FAILS("ktau-profile 1\ntsc_khz 2.9e6\n", EPROTO, 2, "tsc_khz");
	ASSERT_PARSE_FAILS("ktau-profile 1\ntsc_khz\n", EPROTO, 2, "without a value");
	ASSERT_PARSE_FAILS("ktau-profile 1\nscope galaxy\n", EPROTO, 2,
			   "unknown scope 'galaxy'");
	ASSERT_PARSE_FAILS("ktau-profile 1\ntsc_khz 1\ntsc_khz 2\n", EPROTO, 3,
			   "second 'tsc_khz'");
	ASSERT_PARSE_FAILS("ktau-profile 1\nscope thread\nscope thread\n", EPROTO, 3,
			   "second 'scope'");
}

TEST(error_header_after_task)
{
	ASSERT_PARSE_FAILS(HEADER TASK "tsc_khz 5\nend\n", EPROTO, 5,
			   "header line 'tsc_khz' after the first task line");
	ASSERT_PARSE_FAILS(HEADER TASK "columns func ctx fid name group calls "
			   "incl_cycles excl_cycles\nend\n", EPROTO, 5, "after the first task");
}

TEST(error_line_too_long)
{
	size_t n = 5000, i;
	char *text = malloc(strlen(HEADER TASK) + n + 16);
	const char *why;

	ASSERT_NOT_NULL(text);
	strcpy(text, HEADER TASK "func 0 1 ");
	for (i = strlen(text); i < n; i++)
		text[i] = 'a';
	strcpy(text + n, " g 1 1 1\nend\n");
	why = parse_fails(text, strlen(text), EPROTO, 5, "line too long");
	free(text);
	if (why)
		FAIL("%s", why);
}

TEST(longest_allowed_line_parses)
{
	/* exactly 4096 bytes before the newline */
	size_t prefix = strlen(HEADER TASK), i, line = 4096;
	char *text = malloc(prefix + line + 16);
	struct ktau_profile *p;
	const char *tail = " g 1 1 1";

	ASSERT_NOT_NULL(text);
	strcpy(text, HEADER TASK "func 0 1 ");
	for (i = strlen(text); i < prefix + line - strlen(tail); i++)
		text[i] = 'a';
	strcpy(text + prefix + line - strlen(tail), " g 1 1 1\nend\n");
	p = ktau_profile_parse(text, strlen(text), NULL);
	free(text);
	ASSERT_NOT_NULL(p);
	ASSERT_EQ(4096 - 9 - 8, strlen(ktau_block_func(ktau_profile_block(p, 0), 0)->name));
	ktau_profile_free(p);
}

TEST(error_nul_byte)
{
	static const char text[] = HEADER TASK "func 0 1 re\0ad g 1 1 1\nend\n";
	const char *why = parse_fails(text, sizeof(text) - 1, EPROTO, 5,
				      "byte 0x00 at column 12");

	if (why)
		FAIL("%s", why);
}

TEST(error_non_ascii)
{
	ASSERT_PARSE_FAILS(HEADER TASK "func 0 1 r\xc3\xa9" "ad g 1 1 1\nend\n", EPROTO, 5,
			   "byte 0xc3");
	ASSERT_PARSE_FAILS(HEADER TASK "func 0 1 r\x1b" "ad g 1 1 1\nend\n", EPROTO, 5,
			   "byte 0x1b");
}

TEST(error_record_before_task)
{
	ASSERT_PARSE_FAILS(HEADER "func 0 39 getpid syscall 1 1 1\nend\n", EPROTO, 4,
			   "'func' record before the first task line");
	ASSERT_PARSE_FAILS(HEADER "event 0 480 x 1 1 1 1 1\nend\n", EPROTO, 4,
			   "'event' record before");
}

TEST(error_too_few_fields)
{
	ASSERT_PARSE_FAILS(HEADER TASK "func 0 39 getpid syscall 1000 231000\nend\n",
			   EPROTO, 5, "func: 6 fields, expected 7");
	ASSERT_PARSE_FAILS(HEADER TASK "edge 0 0 read 470 page_fault 2 8500\nend\n",
			   EPROTO, 5, "edge: 7 fields, expected 8");
	ASSERT_PARSE_FAILS(HEADER TASK "event 0 480\nend\n", EPROTO, 5,
			   "event: 2 fields, expected 8");
}

TEST(error_bad_task_lines)
{
	ASSERT_PARSE_FAILS(HEADER "task pid=1 tid=1 comm=x\nend\n", EPROTO, 4, "no kind=");
	ASSERT_PARSE_FAILS(HEADER "task kind=process tid=1 comm=x\nend\n", EPROTO, 4,
			   "no pid=");
	ASSERT_PARSE_FAILS(HEADER "task kind=process pid=1 comm=x\nend\n", EPROTO, 4,
			   "no tid=");
	ASSERT_PARSE_FAILS(HEADER "task kind=process pid=1 tid=1 comm=x oops\nend\n",
			   EPROTO, 4, "field 'oops' is not key=value");
	ASSERT_PARSE_FAILS(HEADER "task kind=process pid=1 tid=1 =3\nend\n",
			   EPROTO, 4, "is not key=value");
	ASSERT_PARSE_FAILS(HEADER "task kind=process pid=1 pid=2 tid=1\nend\n",
			   EPROTO, 4, "key 'pid' given twice");
	ASSERT_PARSE_FAILS(HEADER "task kind=process kind=thread pid=1 tid=1\nend\n",
			   EPROTO, 4, "key 'kind' given twice");
	ASSERT_PARSE_FAILS(HEADER "task kind=process pid=-1 tid=1\nend\n",
			   EPROTO, 4, "pid is not an unsigned");
	ASSERT_PARSE_FAILS(HEADER "task kind=process pid=1 tid=1 dropped=\nend\n",
			   EPROTO, 4, "dropped is not an unsigned");
	ASSERT_PARSE_FAILS(HEADER "task kind=process pid=2147483648 tid=1\nend\n",
			   EPROTO, 4, "pid or tid out of range");
}

TEST(error_data_after_end)
{
	ASSERT_PARSE_FAILS(HEADER TASK "end\nfunc 0 1 f g 1 1 1\n", EPROTO, 6,
			   "data after 'end'");
	ASSERT_PARSE_FAILS(HEADER TASK "end\nend\n", EPROTO, 6, "data after 'end'");
}

TEST(error_too_many_fields)
{
	char text[1024];
	size_t i;
	const char *why;

	strcpy(text, HEADER TASK "func 0 1 f g 1 1 1");
	for (i = 0; i < 60; i++)
		strcat(text, " 0");
	strcat(text, "\nend\n");
	why = parse_fails(text, strlen(text), EPROTO, 5, "more than 64 fields");
	if (why)
		FAIL("%s", why);
}

TEST(error_null_buffer)
{
	errno = 0;
	ASSERT_NULL(ktau_profile_parse(NULL, 10, test_err()));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-EINVAL, ERR_CODE);
	errno = 0;
	ASSERT_NULL(ktau_profile_parse(NULL, 0, test_err()));
	ASSERT_EQ(EPROTO, errno);
}

TEST(error_cleared_on_success)
{
	struct ktau_profile *p;

	ASSERT_NULL(parse_str("junk\n", test_err()));
	ASSERT_EQ(-EPROTO, ERR_CODE);
	p = parse_str(HEADER TASK "end\n", test_err());
	ASSERT_NOT_NULL(p);
	ASSERT_EQ(0, ERR_CODE);
	ASSERT_EQ(0, ERR_LINE);
	ASSERT_STREQ("", ERR_MSG);
	ktau_profile_free(p);
}

/* The kernel guarantees excl <= incl; the parser still shows what it got. */
TEST(excl_greater_than_incl_parses)
{
	struct ktau_profile *p = parse_str(HEADER TASK "func 0 1 f g 1 10 20\nend\n", NULL);

	ASSERT_NOT_NULL(p);
	ASSERT_EQ_U64(20, ktau_block_func(ktau_profile_block(p, 0), 0)->excl_cycles);
	ktau_profile_free(p);
}

TEST(long_token_is_shortened_in_message)
{
	char text[512];

	snprintf(text, sizeof(text), HEADER TASK "func 0 1 f g %s 1 1\nend\n",
		 "1111111111222222222233333333334444444444x5555555555");
	ASSERT_NULL(parse_str(text, test_err()));
	ASSERT_CONTAINS(ERR_MSG, "'1111111111222222222233333333334444444444...'");
}

/* ---- version 2: path and open lines ---- */

#define HEADER2 "ktau-profile 2\ntsc_khz 1000\nscope process\n"

TEST(error_v2_bad_fids)
{
	ASSERT_PARSE_FAILS(HEADER2 TASK "path 0 0,,470 page_fault exception 1 2 2\nend\n",
			   EPROTO, 5, "path: empty function id in '0,,470'");
	ASSERT_PARSE_FAILS(HEADER2 TASK "path 0 0, read syscall 1 2 2\nend\n",
			   EPROTO, 5, "path: empty function id");
	ASSERT_PARSE_FAILS(HEADER2 TASK "path 0 ,0 read syscall 1 2 2\nend\n",
			   EPROTO, 5, "path: empty function id");
	ASSERT_PARSE_FAILS(HEADER2 TASK "path 0 1,2,3,4,5,6,7,8,9 x kernel 1 2 2\nend\n",
			   EPROTO, 5, "path: more than 8 function ids in '1,2,3,4,5,6,7,8,9'");
	ASSERT_PARSE_FAILS(HEADER2 TASK "path 0 0,x read syscall 1 2 2\nend\n",
			   EPROTO, 5, "path: bad function id in '0,x'");
	ASSERT_PARSE_FAILS(HEADER2 TASK "path 0 4294967296 read syscall 1 2 2\nend\n",
			   EPROTO, 5, "path: bad function id");
	ASSERT_PARSE_FAILS(HEADER2 TASK "open 1 0 0,-1 read syscall 2 2\nend\n",
			   EPROTO, 5, "open: bad function id in '0,-1'");
}

TEST(error_v2_bad_numbers_and_shapes)
{
	ASSERT_PARSE_FAILS(HEADER2 TASK "path x 0 read syscall 1 2 2\nend\n",
			   EPROTO, 5, "path: field 'ctx'");
	ASSERT_PARSE_FAILS(HEADER2 TASK "path 0 0 read syscall 1 2\nend\n",
			   EPROTO, 5, "path: 6 fields, expected 7");
	ASSERT_PARSE_FAILS(HEADER2 TASK "path 0 0 read syscall 1 2 -2\nend\n",
			   EPROTO, 5, "path: field 'excl_cycles'");
	ASSERT_PARSE_FAILS(HEADER2 TASK "open 2147483648 0 0 read syscall 2 2\nend\n",
			   EPROTO, 5, "open: tid 2147483648 out of range");
	ASSERT_PARSE_FAILS(HEADER2 TASK "open x 0 0 read syscall 2 2\nend\n",
			   EPROTO, 5, "open: field 'tid'");
	ASSERT_PARSE_FAILS(HEADER2 TASK "open 1 0 0 read syscall 2\nend\n",
			   EPROTO, 5, "open: 6 fields, expected 7");
	ASSERT_PARSE_FAILS(HEADER2 TASK "task kind=children pid=1 tid=0 private=x\nend\n",
			   EPROTO, 5, "task: private is not an unsigned 64-bit decimal");
	ASSERT_PARSE_FAILS(HEADER2 "columns path ctx name group calls incl_cycles excl_cycles\n",
			   EPROTO, 4, "columns line lacks field 'fids'");
}

TEST(error_v2_records_before_task)
{
	ASSERT_PARSE_FAILS(HEADER2 "open 1 0 0 read syscall 2 2\n" TASK "end\n",
			   EPROTO, 4, "'open' record before the first task line");
	ASSERT_PARSE_FAILS(HEADER2 "path 0 0 read syscall 1 2 2\n" TASK "end\n",
			   EPROTO, 4, "'path' record before the first task line");
}
