// SPDX-License-Identifier: GPL-2.0-or-later
/* DTrace stack()/ustack() aggregations as dtrace prints them. */
#include "stacks_test.h"

static const char dtrace_text[] =
	"dtrace: description 'profile-997 ' matched 1 probe\n"
	"\n"
	"\n"
	"              unix`mutex_delay_default+0x7\n"
	"              unix`mutex_vector_enter+0x99\n"
	"              genunix`cv_wait+0x2b\n"
	"              unix`thread_start+0x8\n"
	"                1\n"
	"\n"
	"              unix`i86_mwait+0xd\n"
	"              unix`cpu_idle_mwait+0xf1\n"
	"              unix`idle+0x114\n"
	"              unix`thread_start+0x8\n"
	"             1234\n"
	"\n"
	"              libc.so.1`_write+0x15\n"
	"              a.out`main+0x17\n"
	"              a.out`0x8050A7C\n"
	"              0xfeffb2c4\n"
	"               42\n"
	"\n"
	"              genunix`fop_lookup+0x10\n"
	"              genunix`lookuppn+0x20\n"
	"              genunix`fop_lookup+0x30\n"
	"              genunix`lookuppn+0x40\n"
	"              unix`sys_syscall+0x17\n"
	"                7\n"
	"\n"
	"                9\n";

TEST(stacks_dtrace_counts)
{
	struct ktau_stacks *s = ktau_stacks_parse(dtrace_text, strlen(dtrace_text),
						  KTAU_STACKS_AUTO, test_err());
	struct ktau_model *m = stacks_model(dtrace_text, KTAU_STACKS_DTRACE, test_err());

	ASSERT_NOT_NULL(s);
	ASSERT_NOT_NULL(m);
	ASSERT_EQ(KTAU_STACKS_DTRACE, ktau_stacks_format(s));
	ASSERT_EQ_U64(1284, ktau_stacks_samples(s));
	ASSERT_EQ_U64(9, ktau_stacks_empty_samples(s));
	ASSERT_EQ(4, ktau_stacks_count(s));
	ASSERT_ROUTINE(m, "thread_start", "unix", 1235, 0);
	ASSERT_ROUTINE(m, "i86_mwait", "unix", 1234, 1234);
	ASSERT_ROUTINE(m, "mutex_delay_default", "unix", 1, 1);
	ASSERT_ROUTINE(m, "cv_wait", "genunix", 1, 0);
	ASSERT_ROUTINE(m, "_write", "libc.so.1", 42, 42);
	ASSERT_ROUTINE(m, "0x8050a7c", "a.out", 42, 0);
	ASSERT_ROUTINE(m, "0xfeffb2c4", "unknown", 42, 0);
	ASSERT_ROUTINE(m, "fop_lookup", "genunix", 7, 7);
	ASSERT_ROUTINE(m, "lookuppn", "genunix", 7, 0);
	ASSERT_CALLPATH(m, "thread_start => idle => cpu_idle_mwait => i86_mwait", 1234, 1234);
	ASSERT_CALLPATH(m, "thread_start => cv_wait", 1, 0);
	ASSERT_CALLPATH(m, "0xfeffb2c4 => 0x8050a7c => main => _write", 42, 42);
	ASSERT_CALLPATH(m, "sys_syscall => lookuppn => fop_lookup => lookuppn => fop_lookup",
			7, 7);
	ktau_stacks_free(s);
	ktau_model_free(m);
}

TEST(stacks_dtrace_errors)
{
	ASSERT_STACKS_ERROR("  unix`\n 1\n", KTAU_STACKS_DTRACE, 1,
			    "frame 'unix`' lacks its module or its function");
	ASSERT_STACKS_ERROR("  `idle+0x114\n 1\n", KTAU_STACKS_DTRACE, 1,
			    "frame '`idle+0x114' lacks its module or its function");
	ASSERT_STACKS_ERROR("\n  CPU     ID    FUNCTION:NAME\n", KTAU_STACKS_DTRACE, 2,
			    "expected a frame 'module`function+0xoffset', an address or a "
			    "count, not 'CPU     ID    FUNCTION:NAME'");
	ASSERT_STACKS_ERROR("  unix`idle+0x114\n  unix`thread_st", KTAU_STACKS_DTRACE, 2,
			    "the stack from line 1 has no count line: the input ends early");
	ASSERT_STACKS_ERROR("  unix`idle+0x114\n  -3\n", KTAU_STACKS_DTRACE, 2,
			    "expected a frame 'module`function+0xoffset', an address or a "
			    "count, not '-3'");
}

/* Detection picks each format from its own lines; text no format has, or
 * one format's text forced through another's parser, fails. */
TEST(stacks_detect_and_forced_formats)
{
	const char *junk = "hello\nworld\n";

	ASSERT_EQ(KTAU_STACKS_DTRACE, ktau_stacks_detect(dtrace_text, strlen(dtrace_text)));
	ASSERT_EQ(-EPROTO, ktau_stacks_detect(junk, strlen(junk)));
	ASSERT_EQ(-EPROTO, ktau_stacks_detect("", 0));
	ASSERT_EQ(-EPROTO, ktau_stacks_detect(NULL, 0));
	ASSERT_NULL(ktau_stacks_parse(junk, strlen(junk), KTAU_STACKS_AUTO, test_err()));
	ASSERT_EQ(EPROTO, errno);
	ASSERT_EQ(0, ERR_LINE);
	ASSERT_STREQ("not perf script, SystemTap or DTrace stack output (no line says "
		     "which): name the format", ERR_MSG);
	ASSERT_STACKS_ERROR("!\n 0xffffffff81 : f [k]\n 1\n", KTAU_STACKS_DTRACE, 1,
			    "expected a frame 'module`function+0xoffset', an address or a "
			    "count, not '!'");
	ASSERT_STACKS_ERROR(dtrace_text, KTAU_STACKS_STAP, 1,
			    "expected a frame ' 0xADDRESS : SYMBOL+0xOFFSET/0xSIZE [MODULE]', "
			    "a count or '!', not 'dtrace: description 'profile-997 ' match'");
	ASSERT_NULL(ktau_stacks_parse("x", 1, (enum ktau_stacks_format)9, test_err()));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_NULL(ktau_stacks_parse(NULL, 3, KTAU_STACKS_PERF, test_err()));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_NULL(load_stacks("/nonexistent/stacks", KTAU_STACKS_AUTO, test_err()));
	ASSERT_EQ(ENOENT, errno);
	ASSERT_STREQ("/nonexistent/stacks: No such file or directory", ERR_MSG);
	{
		KTAU_OPTS(ktau_load_opts, none);

		ASSERT_NULL(ktau_stacks_load(&none, KTAU_STACKS_AUTO, test_err()));
		ASSERT_EQ(EINVAL, errno);
	}
	ASSERT_EQ(KTAU_STACKS_STAP, ktau_stacks_format_from_name("stap"));
	ASSERT_EQ(-EINVAL, ktau_stacks_format_from_name("auto"));
	ASSERT_EQ(-EINVAL, ktau_stacks_format_from_name(NULL));
	ASSERT_STREQ("dtrace", ktau_stacks_format_name(KTAU_STACKS_DTRACE));
	ASSERT_NULL(ktau_stacks_format_name(KTAU_STACKS_AUTO));
	/* an empty input of a named format: no stacks, no error */
	{
		struct ktau_stacks *s = ktau_stacks_parse("", 0, KTAU_STACKS_PERF, test_err());

		ASSERT_NOT_NULL(s);
		ASSERT_EQ_U64(0, ktau_stacks_samples(s));
		ktau_stacks_free(s);
	}
}

/* A sample model and a time model do not mix; a failed add leaves the
 * model as it was. */
TEST(stacks_model_rules)
{
	struct ktau_stacks *s = ktau_stacks_parse(dtrace_text, strlen(dtrace_text),
						  KTAU_STACKS_AUTO, NULL);
	struct ktau_profile *p = load_profile(test_fixture("thread.ktau"), NULL);
	struct ktau_model *timed = ktau_model_new(), *m = ktau_model_new();
	const struct ktau_model_thread *t;

	ASSERT_NOT_NULL(s);
	ASSERT_NOT_NULL(p);
	ASSERT_NOT_NULL(timed);
	ASSERT_NOT_NULL(m);
	ASSERT_NOT_NULL(ktau_model_add_block(timed, p, 0, 0, 0, 0));
	ASSERT_NULL(ktau_model_add_stacks(timed, s, 0, 0, 1, NULL));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(1, ktau_model_thread_count(timed));
	t = ktau_model_add_stacks(m, s, 0, 0, 0, NULL);
	ASSERT_NOT_NULL(t);
	ASSERT_EQ(KTAU_METRIC_SAMPLES, ktau_model_get_metric(m));
	ASSERT_STREQ("dtrace samples", ktau_model_thread_label(t));
	ASSERT_STREQ("stacks source", ktau_model_metadata(t, 0)->name);
	ASSERT_STREQ("DTrace", ktau_model_metadata(t, 0)->value);
	ASSERT_STREQ("1284", ktau_model_metadata(t, 1)->value);
	ASSERT_STREQ("9", ktau_model_metadata(t, 2)->value);
	ASSERT_STREQ("4", ktau_model_metadata(t, 3)->value);
	ASSERT_NULL(ktau_model_add_stacks(m, s, 0, 0, 0, "again"));
	ASSERT_EQ(EEXIST, errno);
	ASSERT_NOT_NULL(ktau_model_add_stacks(m, s, 0, 0, 1, "second"));
	ASSERT_EQ(2, ktau_model_thread_count(m));
	ASSERT_NULL(ktau_model_add_stacks(NULL, s, 0, 0, 0, NULL));
	ASSERT_EQ(EINVAL, errno);
	ktau_profile_free(p);
	ktau_stacks_free(s);
	ktau_model_free(timed);
	ktau_model_free(m);
}
