// SPDX-License-Identifier: GPL-2.0
/*
 * tau — TAU's own runtime on this kernel: the guest half of make
 * check-tau, tests/tau/run-in-guest.sh, which make check-tau stages with
 * its TAU-instrumented program in /opt/ktau-tau (build/user/rootfs-tau,
 * which make initramfs packs).
 */
#include "ktr.h"

int main(void)
{
	ktr_init("tau");
	return ktr_run_overlay("/opt/ktau-tau/run-in-guest.sh", "make check-tau");
}
