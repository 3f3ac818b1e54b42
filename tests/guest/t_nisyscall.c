// SPDX-License-Identifier: GPL-2.0
/*
 * nisyscall — system call numbers the x86_64 table does not have (1000:
 * beyond the table; 400: in the hole 336..423) return ENOSYS, do no harm, and
 * are counted exactly: as `ni_syscall`, or under entries of their own.
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static const struct { long nr; int n; } calls[] = { { 1000, 7 }, { 400, 5 } };

int main(void)
{
	struct ktr_profile base, after;
	struct ktr_block *b0, *b1;
	long pid = syscall(SYS_getpid), ret = 0;
	uint64_t ni0 = 0, ni1 = 0;
	int total = 0, have_base;
	char check[64];

	ktr_init("nisyscall");
	have_base = ktr_load("/proc/self/ktau", 1, &base, "baseline") == 0;

	for (size_t c = 0; c < sizeof(calls) / sizeof(calls[0]); c++) {
		int bad = 0, err = 0;

		for (int i = 0; i < calls[c].n; i++) {
			errno = 0;
			ret = syscall(calls[c].nr, 1, 2, 3, 4, 5, 6);
			if (ret != -1 || errno != ENOSYS) {
				bad++;
				err = errno;
			}
		}
		total += calls[c].n;
		snprintf(check, sizeof(check), "enosys-%ld", calls[c].nr);
		ktr_check(!bad, check, "%d of %d calls of syscall(%ld) did not fail with ENOSYS "
			  "(last: ret=%ld errno=%d %s)", bad, calls[c].n, calls[c].nr, ret, err,
			  strerror(err));
	}
	ktr_check(syscall(SYS_getpid) == pid, "harmless", "getpid() after the bad calls: %ld, before: %ld",
		  (long)syscall(SYS_getpid), pid);

	if (!have_base || ktr_load("/proc/self/ktau", 1, &after, "after") != 0)
		return ktr_exit();
	b0 = ktr_block_kind(&base, "process", 0);
	b1 = ktr_block_kind(&after, "process", 0);
	if (!b0 || !b1) {
		ktr_fail("counted", "no process block in /proc/self/ktau");
		return ktr_exit();
	}
	ktr_func(b0, "ni_syscall", &ni0, NULL, NULL);
	ktr_func(b1, "ni_syscall", &ni1, NULL, NULL);
	if (ni1 - ni0 == (uint64_t)total) {
		ktr_pass("counted");
	} else {
		/* entries of their own? every calls[] number must show up as one
		 * function whose count grew by exactly its n */
		char seen[512] = "";
		int own = 0;

		for (size_t c = 0; c < sizeof(calls) / sizeof(calls[0]); c++) {
			for (size_t k = 0; k < b1->nfuncs; k++) {
				struct ktr_rec *r = &b1->funcs[k];
				uint64_t before = 0;

				if (!strcmp(r->name, "ni_syscall") || !strcmp(r->name, "read") ||
				    !strcmp(r->name, "getpid"))
					continue;
				ktr_func(b0, r->name, &before, NULL, NULL);
				if (r->calls - before == (uint64_t)calls[c].n) {
					size_t l = strlen(seen);

					snprintf(seen + l, sizeof(seen) - l, " %s(fid %" PRIu64 ")+%d",
						 r->name, r->fid, calls[c].n);
					own++;
					break;
				}
			}
		}
		if (own == (int)(sizeof(calls) / sizeof(calls[0])) && ni1 == ni0)
			ktr_pass("counted");
		else
			ktr_fail("counted", "ni_syscall calls went from %" PRIu64 " to %" PRIu64
				 " (expected +%d); candidate own entries:%s", ni0, ni1, total,
				 seen[0] ? seen : " none");
	}
	return ktr_exit();
}
