// SPDX-License-Identifier: GPL-2.0
/*
 * tau — TAU's own runtime on this kernel: the guest half of make
 * check-tau, tests/tau/run-in-guest.sh, which make check-tau stages with
 * its TAU-instrumented program in /opt/ktau-tau (build/user/rootfs-tau,
 * which make initramfs packs; build/user-arm64/rootfs-tau on arm64).
 */
#include "ktr.h"

/* what stages the overlay for this guest's architecture */
#ifdef __aarch64__
#define TAU_STAGED_BY "make check-tau ARCH=arm64"
#else
#define TAU_STAGED_BY "make check-tau"
#endif

int main(void)
{
	ktr_init("tau");
	return ktr_run_overlay("/opt/ktau-tau/run-in-guest.sh", TAU_STAGED_BY);
}
