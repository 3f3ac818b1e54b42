// SPDX-License-Identifier: GPL-2.0-or-later
/* SystemTap print_stack()/print_ubacktrace() output with '!' and counts. */
#include "stacks_test.h"

/* The seed's stack (its truncated "[kernel" mended), an idle stack with
 * an inexact frame, a user backtrace with an unresolved frame, an empty
 * backtrace, and recursion. */
static const char stap_text[] =
	"!\n"
	" 0xffffffff814cde75 : net_rx_action+0x105/0x2b0 [kernel]\n"
	" 0xffffffff81066247 : __do_softirq+0xd7/0x240 [kernel]\n"
	" 0xffffffff815a1ddc : call_softirq+0x1c/0x30 [kernel]\n"
	" 0xffffffff810174b5 : do_softirq+0x65/0xa0 [kernel]\n"
	" 0xffffffff8106602d : irq_exit+0xbd/0xe0 [kernel]\n"
	" 0xffffffff815a2a26 : do_IRQ+0x66/0xe0 [kernel]\n"
	" 0xffffffff815983ad : ret_from_intr+0x0/0x15 [kernel]\n"
	"        1\n"
	"!\n"
	" 0xffffffff8100abcd : native_safe_halt+0x6/0x10 [kernel]\n"
	" 0xffffffff81023456 : default_idle+0x1e/0x100 [kernel] (inexact)\n"
	" 0xffffffffa01234f0 : ext4_sync_fs+0x20/0x300 [ext4]\n"
	"\t17\n"
	"!\n"
	" 0x00007f1a2b3c4d5e : __libc_read+0x10/0x90 [/usr/lib64/libc-2.28.so]\n"
	" 0x0000000000400a12 : main+0x22/0x40 [/tmp/a.out]\n"
	" 0x00007f1a2b300000\n"
	"\t3\n"
	"!\n"
	"\t5\n"
	"!\n"
	" 0xffffffff81300010 : walk+0x10/0x80 [kernel]\n"
	" 0xffffffff81300020 : walk+0x20/0x80 [kernel]\n"
	" 0xffffffff81300030 : walk+0x30/0x80 [kernel]\n"
	" 0xffffffff81400000 : start+0x0/0x40 [kernel]\n"
	"\t4\n"
	"!\n";

TEST(stacks_stap_counts)
{
	struct ktau_stacks *s = ktau_stacks_parse(stap_text, strlen(stap_text),
						  KTAU_STACKS_AUTO, test_err());
	struct ktau_model *m = stacks_model(stap_text, KTAU_STACKS_STAP, test_err());

	ASSERT_NOT_NULL(s);
	ASSERT_NOT_NULL(m);
	ASSERT_EQ(KTAU_STACKS_STAP, ktau_stacks_format(s));
	ASSERT_EQ_U64(25, ktau_stacks_samples(s));
	ASSERT_EQ_U64(5, ktau_stacks_empty_samples(s));
	ASSERT_EQ(4, ktau_stacks_count(s));
	ASSERT_ROUTINE(m, "net_rx_action", "kernel", 1, 1);
	ASSERT_ROUTINE(m, "ret_from_intr", "kernel", 1, 0);
	ASSERT_ROUTINE(m, "native_safe_halt", "kernel", 17, 17);
	ASSERT_ROUTINE(m, "default_idle", "kernel", 17, 0);
	ASSERT_ROUTINE(m, "ext4_sync_fs", "ext4", 17, 0);
	ASSERT_ROUTINE(m, "__libc_read", "libc-2.28.so", 3, 3);
	ASSERT_ROUTINE(m, "main", "a.out", 3, 0);
	ASSERT_ROUTINE(m, "0x7f1a2b300000", "unknown", 3, 0);
	ASSERT_ROUTINE(m, "walk", "kernel", 4, 4);
	ASSERT_ROUTINE(m, "start", "kernel", 4, 0);
	ASSERT_CALLPATH(m, "ret_from_intr => do_IRQ => irq_exit => do_softirq => call_softirq "
			"=> __do_softirq => net_rx_action", 1, 1);
	ASSERT_CALLPATH(m, "ext4_sync_fs => default_idle => native_safe_halt", 17, 17);
	ASSERT_CALLPATH(m, "0x7f1a2b300000 => main", 3, 0);
	ASSERT_CALLPATH(m, "start => walk => walk => walk", 4, 4);
	ASSERT_CALLPATH(m, "start => walk => walk", 4, 0);
	ktau_stacks_free(s);
	ktau_model_free(m);
}

/* Without '!' separators (a count ends each stack), CRLF, no final newline. */
TEST(stacks_stap_without_separators)
{
	static const char text[] =
		" 0xffffffff8100abcd : native_safe_halt+0x6/0x10 [kernel]\r\n"
		" 0xffffffff81023456 : default_idle+0x1e/0x100 [kernel]\r\n"
		"\t2\r\n"
		" 0xffffffff8100abcd : native_safe_halt+0x6/0x10 [kernel]\r\n"
		" 0xffffffff81023456 : default_idle+0x1e/0x100 [kernel]\r\n"
		"\t40";
	struct ktau_model *m = stacks_model(text, KTAU_STACKS_AUTO, NULL);

	ASSERT_NOT_NULL(m);
	ASSERT_ROUTINE(m, "native_safe_halt", "kernel", 42, 42);
	ASSERT_CALLPATH(m, "default_idle => native_safe_halt", 42, 42);
	ktau_model_free(m);
}

TEST(stacks_stap_errors)
{
	/* the seed as published: one module name cut short */
	ASSERT_STACKS_ERROR("!\n"
			    " 0xffffffff810174b5 : do_softirq+0x65/0xa0 [kernel]\n"
			    " 0xffffffff8106602d : irq_exit+0xbd/0xe0 [kernel\n"
			    " 0xffffffff815a2a26 : do_IRQ+0x66/0xe0 [kernel]\n"
			    "        1\n", KTAU_STACKS_STAP, 3,
			    "frame without '[MODULE]' at its end: a truncated line?");
	ASSERT_STACKS_ERROR("!\n 0xffffffff810174b5 : do_softirq+0x65/0xa0 [kernel]\n!\n",
			    KTAU_STACKS_STAP, 3,
			    "the stack from line 2 has no count line before this '!'");
	ASSERT_STACKS_ERROR("!\n 0xffffffff810174b5 : do_softirq+0x65/0xa0 [kernel]\n"
			    " 0xffffffff81",
			    KTAU_STACKS_STAP, 3,
			    "the stack from line 2 has no count line: the input ends early");
	ASSERT_STACKS_ERROR("!\nhello world\n", KTAU_STACKS_STAP, 2,
			    "expected a frame ' 0xADDRESS : SYMBOL+0xOFFSET/0xSIZE [MODULE]', "
			    "a count or '!', not 'hello world'");
	ASSERT_STACKS_ERROR(" 0xffffffff81 foo\n", KTAU_STACKS_STAP, 1,
			    "expected ' : ' after the frame's address, not 'foo'");
	ASSERT_STACKS_ERROR(" 0xffffffff8106602g : f+0x1/0x2 [kernel]\n1\n", KTAU_STACKS_STAP, 1,
			    "address '0xffffffff8106602g' is not a 64-bit hex number");
	ASSERT_STACKS_ERROR(" 0xffffffff81 : f [k]\n\t99999999999999999999\n", KTAU_STACKS_STAP, 2,
			    "count '99999999999999999999' does not fit in 64 bits");
	{
		const char *text = " 0xffffffff81 : f [k]\n\t18446744073709551615\n"
				   " 0xffffffff82 : g [k]\n\t1\n";

		ASSERT_NULL(ktau_stacks_parse(text, strlen(text), KTAU_STACKS_STAP, test_err()));
		ASSERT_EQ(EOVERFLOW, errno);
		ASSERT_EQ(4, ERR_LINE);
		ASSERT_STREQ("the sample counts add up to more than 2^64", ERR_MSG);
	}
}
