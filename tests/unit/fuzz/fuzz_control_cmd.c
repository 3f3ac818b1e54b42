// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the kernel's /proc/ktau/control command parser
 * (kernel-ext/kernel/ktau/control_parse.c, the same file the kernel
 * builds): it must never read past the buffer, and what it accepts must
 * be a known operation, with groups only for enable/disable and only
 * bits of known groups, limits, trace sizes and wake-up levels only
 * within their documented ranges, and trace pid sets of 1 to 16 positive ids.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "control_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const groups[] = {
	"syscall", "softirq", "irq", "sched", "exception", "kernel", "event",
};
#define NR_GROUPS (sizeof(groups) / sizeof(groups[0]))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ktau_control_cmd cmd;
	/* an exact-size copy, so that ASan sees any read past the end */
	char *buf = malloc(size ? size : 1);

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if (ktau_control_parse(buf, size, groups, NR_GROUPS, &cmd) == 0) {
		if (cmd.op > KTAU_CONTROL_TRACE_WAKEUP)
			abort();
		if (cmd.op == KTAU_CONTROL_TRACE_WAKEUP && cmd.value > KTAU_TRACE_WAKEUP_MAX)
			abort();
		if (cmd.op == KTAU_CONTROL_TRACE_SIZE &&
		    (cmd.value < KTAU_TRACE_KIB_MIN || cmd.value > KTAU_TRACE_KIB_MAX ||
		     (cmd.value & (cmd.value - 1))))
			abort();
		if (cmd.op == KTAU_CONTROL_TRACE_PIDS) {
			if (!cmd.nr_pids || cmd.nr_pids > KTAU_CONTROL_MAX_PIDS)
				abort();
			for (unsigned int i = 0; i < cmd.nr_pids; i++)
				if (cmd.pids[i] <= 0)
					abort();
		}
		if (cmd.op == KTAU_CONTROL_LIMIT_MEMORY &&
		    (cmd.value < KTAU_LIMIT_MEMORY_MIN || cmd.value > KTAU_LIMIT_MEMORY_MAX))
			abort();
		if (cmd.op == KTAU_CONTROL_LIMIT_RECORDS &&
		    (cmd.value < KTAU_LIMIT_RECORDS_MIN || cmd.value > KTAU_LIMIT_RECORDS_MAX))
			abort();
		if (cmd.op == KTAU_CONTROL_ENABLE || cmd.op == KTAU_CONTROL_DISABLE) {
			if (!cmd.groups || (cmd.groups & ~((1UL << NR_GROUPS) - 1)))
				abort();
		}
		if (size > KTAU_CONTROL_MAX_LEN)
			abort();
	}
	free(buf);
	return 0;
}
