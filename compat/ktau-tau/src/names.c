// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ktau routines as TAU names them: addresses, indexes, symbol names and
 * the System.map (names.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"

unsigned long ktau_tau_fid_addr(uint32_t fid)
{
	return KTAU_TAU_ADDR_BASE + KTAU_TAU_ADDR_STEP * (unsigned long)fid;
}

int ktau_tau_addr_fid(unsigned long addr, uint32_t *fid)
{
	unsigned long off;

	if (addr < KTAU_TAU_ADDR_BASE || addr >= KTAU_TAU_ADDR_ETEXT)
		return -EINVAL;
	off = addr - KTAU_TAU_ADDR_BASE;
	if (off % KTAU_TAU_ADDR_STEP)
		return -EINVAL;
	*fid = (uint32_t)(off / KTAU_TAU_ADDR_STEP);
	return 0;
}

/*
 * TAU writes entries whose index is 300-399 as user events and all others
 * as routines: routines skip that range, events take it.
 */
unsigned int ktau_tau_fid_index(uint32_t fid, bool event)
{
	if (event)
		return 300 + fid % 100;
	return fid < 300 ? fid : fid + 100;
}

bool ktau_tau_group_is_event(const char *group)
{
	return group && !strcmp(group, "event");
}

static int put(char *buf, size_t size, const char *prefix, const char *name, bool lower)
{
	size_t lp = strlen(prefix), ln = strlen(name), i;

	if (lp + ln + 1 > size || lp + ln + 1 > KTAU_TAU_NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(buf, prefix, lp);
	for (i = 0; i < ln; i++) {
		unsigned char c = (unsigned char)name[i];

		/* TAU's map reader splits on blanks: none reach it */
		if (!isgraph(c))
			c = '_';
		buf[lp + i] = (char)(lower ? tolower(c) : c);
	}
	buf[lp + ln] = '\0';
	return 0;
}

/*
 * TAU's grouping (TauKtau.cpp), first match wins: "schedule" scheduling,
 * "page_fault" exception, "IRQ" interrupt, "run_timers"/"workqueue"/
 * "tasklet"/"softirq" bottom half, "sys_" system call (with "sock", "read",
 * "write", "send", "recv" sub-groups), "tcp", "icmp", "sock", else default.
 *   syscall   sys_NAME (the kernel's own name: sys_read, sys_ni_syscall)
 *   softirq   softirq_name in lower case (softirq_timer, softirq_net_rx:
 *             IRQ_POLL would otherwise match "IRQ")
 *   irq       do_IRQ (TAU looks for upper-case IRQ; do_IRQ is the name
 *             KTAU showed)
 *   sched     the name when it says "schedule" (schedule_vol,
 *             schedule_invol), else schedule_NAME
 *   exception the name (page_fault)
 *   others    the name (run-time ids: TAU's default group unless their
 *             name has one of the words above; events: their name)
 */
int ktau_tau_symbol_name(const char *group, const char *name, char *buf, size_t size)
{
	if (!group || !name || !*name)
		return -EINVAL;
	if (!strcmp(group, "syscall"))
		return put(buf, size, "sys_", name, false);
	if (!strcmp(group, "softirq"))
		return put(buf, size, "softirq_", name, true);
	if (!strcmp(group, "irq") && !strcmp(name, "irq"))
		return put(buf, size, "do_IRQ", "", false);
	if (!strcmp(group, "irq") && !strstr(name, "IRQ"))
		return put(buf, size, "IRQ_", name, false);
	if (!strcmp(group, "sched") && !strstr(name, "schedule"))
		return put(buf, size, "schedule_", name, false);
	return put(buf, size, "", name, false);
}

int ktau_tau_unregistered_name(uint32_t fid, char *buf, size_t size)
{
	int n = snprintf(buf, size, "ktau_fid_%u", (unsigned int)fid);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int ktau_tau_write_system_map(FILE *out, const struct ktau_functions *map)
{
	size_t count = ktau_functions_count(map), i;
	const struct ktau_function **names;
	char name[KTAU_TAU_NAME_MAX];
	uint32_t fid;
	int ret = 0;

	names = calloc(KTAU_TAU_MAX_FIDS, sizeof(*names));
	if (!names)
		return -ENOMEM;
	for (i = 0; i < count; i++) {
		const struct ktau_function *f = ktau_functions_get(map, i);

		if (f->fid >= KTAU_TAU_MAX_FIDS) {
			ret = -ERANGE;
			goto out;
		}
		names[f->fid] = f;
	}
	for (fid = 0; fid < KTAU_TAU_MAX_FIDS; fid++) {
		const struct ktau_function *f = names[fid];

		if (f)
			ret = ktau_tau_symbol_name(f->group, f->name, name, sizeof(name));
		else
			ret = ktau_tau_unregistered_name(fid, name, sizeof(name));
		/* a name too long for TAU: the placeholder, still unique */
		if (ret)
			ret = ktau_tau_unregistered_name(fid, name, sizeof(name));
		if (ret)
			goto out;
		if (fprintf(out, "%08lx T %s\n", ktau_tau_fid_addr(fid), name) < 0) {
			ret = -EIO;
			goto out;
		}
	}
	/* not T: TAU's reader stops at _etext only when it is not a T/t line */
	if (fprintf(out, "%08lx A _etext\n", KTAU_TAU_ADDR_ETEXT) < 0)
		ret = -EIO;
out:
	free(names);
	return ret;
}
