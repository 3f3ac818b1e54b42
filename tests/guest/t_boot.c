// SPDX-License-Identifier: GPL-2.0
/*
 * boot — what records from boot follows the ktau= kernel parameter (or
 * CONFIG_KTAU_DEFAULT_ON without one, as in the test kernels):
 *   (none)              running, every group
 *   ktau=off            stopped, every group enabled for a later start;
 *                       a getpid() loop records nothing
 *   ktau=on             running, every group
 *   ktau=G1,G2          running, only those groups: 100 getpid() are
 *                       counted exactly when syscall is among them, and
 *                       user page faults only when exception is
 * `make check` boots the test kernel once more with ktau=off and with
 * ktau=syscall,sched to run this test alone.
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *const all = "syscall softirq irq sched exception kernel event";

/* The value of ktau= on the command line, or NULL. */
static char *boot_param(char *buf, size_t len)
{
	char *cmdline = ktr_slurp("/proc/cmdline", &len), *p, *w;

	if (!cmdline)
		return NULL;
	for (w = strtok_r(cmdline, " \n", &p); w; w = strtok_r(NULL, " \n", &p)) {
		if (!strncmp(w, "ktau=", 5)) {
			snprintf(buf, 128, "%s", w + 5);
			free(cmdline);
			return buf;
		}
	}
	free(cmdline);
	return NULL;
}

static uint64_t own_calls(const char *name)
{
	struct ktr_profile p;
	struct ktr_block *b;
	uint64_t calls = 0;
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%ld/ktau", (long)syscall(SYS_gettid));
	if (ktr_load(path, 0, &p, "load"))
		return UINT64_MAX;
	b = ktr_block_kind(&p, "thread", 0);
	if (b)
		ktr_func(b, name, &calls, NULL, NULL);
	ktr_free(&p);
	return calls;
}

int main(void)
{
	char param[128], want_groups[128], state[64], groups[128], *text;
	uint64_t before, after, f0, f1;
	int want_running, syscall_on, exception_on;
	long pg = sysconf(_SC_PAGESIZE);
	char *mem;

	ktr_init("boot");
	if (!boot_param(param, sizeof(param))) {
		want_running = 1;
		snprintf(want_groups, sizeof(want_groups), "%s", all);
	} else if (!strcmp(param, "off")) {
		want_running = 0;
		snprintf(want_groups, sizeof(want_groups), "%s", all);
	} else if (!strcmp(param, "on")) {
		want_running = 1;
		snprintf(want_groups, sizeof(want_groups), "%s", all);
	} else {
		want_running = 1;
		snprintf(want_groups, sizeof(want_groups), "%s", param);
		for (char *c = want_groups; *c; c++)
			if (*c == ',')
				*c = ' ';
	}
	ktr_info("param", "ktau=%s", boot_param(param, sizeof(param)) ? param : "(none)");
	text = ktr_ctl_read();
	if (!ktr_check(text && !ktr_ctl_field(text, "state", state, sizeof(state)) &&
		       !ktr_ctl_field(text, "groups", groups, sizeof(groups)), "control",
		       "cannot read %s", KTR_CONTROL))
		return ktr_exit();
	free(text);
	ktr_check(!strcmp(state, want_running ? "running" : "stopped"), "state",
		  "state %s, expected %s", state, want_running ? "running" : "stopped");
	ktr_check(!strcmp(groups, want_groups), "groups", "groups '%s', expected '%s'",
		  groups, want_groups);

	syscall_on = want_running && strstr(want_groups, "syscall");
	exception_on = want_running && strstr(want_groups, "exception");
	before = own_calls("getpid");
	for (int i = 0; i < 100; i++)
		syscall(SYS_getpid);
	after = own_calls("getpid");
	ktr_check(after - before == (syscall_on ? 100 : 0), "getpid",
		  "100 getpid() added %" PRIu64 " calls, expected %d", after - before,
		  syscall_on ? 100 : 0);

	mem = mmap(NULL, 64 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		ktr_fail("mmap", "%s", strerror(errno));
		return ktr_exit();
	}
	f0 = own_calls("page_fault");
	for (int i = 0; i < 64; i++)
		mem[(long)i * pg] = 1;
	f1 = own_calls("page_fault");
	ktr_check(exception_on ? f1 - f0 >= 64 : f1 == f0, "page_fault",
		  "64 fresh pages touched: page_fault grew by %" PRIu64 ", expected %s",
		  f1 - f0, exception_on ? ">= 64" : "0");
	return ktr_exit();
}
