// SPDX-License-Identifier: GPL-2.0
/*
 * tau — TAU's own runtime on this kernel: the guest half of make
 * check-tau (tests/tau/run-in-guest.sh, which make check-tau stages with
 * its TAU-instrumented program in /opt/ktau-tau; make initramfs packs it).
 * Its PASS/FAIL lines are relayed; without the overlay, a SKIP that says
 * how to get it.
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#define SCRIPT "/opt/ktau-tau/run-in-guest.sh"

int main(void)
{
	ktr_init("tau");
	if (access(SCRIPT, X_OK)) {
		ktr_skip("run-in-guest", "%s: %s (run make check-tau before make initramfs)",
			 SCRIPT, strerror(errno));
		return ktr_exit();
	}
	fflush(stdout);
	execl("/bin/sh", "sh", SCRIPT, (char *)NULL);
	ktr_fail("run-in-guest", "exec /bin/sh %s: %s", SCRIPT, strerror(errno));
	return ktr_exit();
}
