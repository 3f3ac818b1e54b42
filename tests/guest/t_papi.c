// SPDX-License-Identifier: GPL-2.0
/*
 * papi — libktau-papi on this kernel: PAPI's own tools list and read the
 * ktau:: events, and they equal what the thread's /proc file records
 * (papi/run-in-guest.sh, which make papi stages with PAPI's tools and
 * their libraries in /opt/ktau-papi: build/user/papi/guest, which make
 * initramfs packs).
 */
#include "ktr.h"

int main(void)
{
	ktr_init("papi");
	return ktr_run_overlay("/opt/ktau-papi/run-in-guest.sh", "make papi");
}
