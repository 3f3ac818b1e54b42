#!/bin/bash
# `make check-arm64` (and `make check ARCH=arm64`): the whole guest suite
# on arm64.  Cross-builds the arm64 kernel (make kernel ARCH=arm64) and
# guest root (make initramfs ARCH=arm64: libktau, the tools, the
# exporters and the guest tests, static for aarch64, with Debian's arm64
# busybox), boots it under qemu-system-aarch64 -M virt -cpu max on one
# TCG thread with the runner of x86's make check (tests/qemu/run-guest.sh
# --arch arm64, tests/qemu/init.sh, tests/guest/run-all.sh), and reads
# the archive the guest's t_report wrote with the host's ktau-report.
#
# Prints the PASS/FAIL/SKIP lines, `X86-ONLY: test: why` for each test of
# an x86-only kernel path (tests/guest/x86-only), and last, as make check
# does, `N passed, N failed, N skipped` and `N passed, N failed`.
#
# environment: BUILD (build/), KCONFIG (qemu-arm64-check: the kernel's
# config fragment), TESTS (a comma-separated list of guest tests, as
# ktautests= takes them; default every one: x86's make check runs a
# phase of them on the plain arm64 kernel, see scripts/check.sh),
# GUEST_TIMEOUT (3600 s), QEMU_MEM (1G), QEMU_SMP (2), JOBS (the kernel
# build's), ARM64_TAU_STAGED (set: TAU's program for t_tau is staged
# already, make check-tau ARCH=arm64 is not run here)
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
KCONFIG=${KCONFIG:-qemu-arm64-check}
log=$BUILD/check-arm64.log
share=$BUILD/guest-share-arm64
mkdir -p "$BUILD"
: >"$log"
results=$(mktemp)
trap 'rm -f "$results"' EXIT

# step NAME CMD...: a build step, its output in the log; a FAIL line when it fails
step() {
	printf '==> %s (at %d s)\n' "$1" "$SECONDS" | tee -a "$log"
	"${@:2}" >>"$log" 2>&1 ||
		echo "FAIL: $1: exited $? (the end of $log says why)" | tee -a "$results"
}

step "arm64 kernel build ($KCONFIG)" make -s -C "$top" kernel ARCH=arm64 KCONFIG="$KCONFIG"
# TAU's runtime for t_tau, cross-built and staged before the root is
# packed (its PASS lines are results too); make check stages it while it
# builds the arm64 root beside its other phases (ARM64_TAU_STAGED=1)
case ",${TESTS:-t_tau}," in
*,t_tau,*)
	if [ -z "${ARM64_TAU_STAGED:-}" ]; then
		printf '==> TAU for the arm64 guest (make check-tau ARCH=arm64) (at %d s)\n' \
			"$SECONDS" | tee -a "$log"
		tau_out=$(BUILD=$BUILD "$top/tests/tau/check-tau.sh" --arch arm64 2>&1)
		printf '%s\n' "$tau_out" >>"$log"
		printf '%s\n' "$tau_out" | grep -E '^(PASS|FAIL|SKIP): ' | tee -a "$results"
	fi
	;;
esac
step "arm64 user space and guest root" make -s -C "$top" initramfs ARCH=arm64 KCONFIG="$KCONFIG"
# the host's own build (build/user), even under make check ARCH=arm64
step "host ktau-report (reads the guest's archive)" make -s -C "$top" tools ARCH=
printf '==> guest tests (qemu-system-aarch64) (at %d s)\n' "$SECONDS" | tee -a "$log"
rm -rf "$share"
QEMU_MEM=${QEMU_MEM:-1G} "$top/tests/qemu/run-guest.sh" --arch arm64 --mode check \
	--kernel "$BUILD/Image-$KCONFIG" --initrd "$BUILD/initramfs-arm64.cpio.gz" \
	--timeout "${GUEST_TIMEOUT:-3600}" --log "$BUILD/qemu-check-arm64.log" \
	--share "$share" ${TESTS:+--append "ktautests=$TESTS"} 2>>"$log" | tee -a "$results"
# the host half of t_report, when it ran
case ",${TESTS:-t_report}," in
*,t_report,*)
	"$top/tests/qemu/check-guest-archive.sh" "$share" "$BUILD/user/bin/ktau-report" \
		2>>"$log" | tee -a "$results"
	;;
esac
# and of t_tau, when TAU's program was in the guest (make check-tau
# ARCH=arm64 stages it): its Kprofile through ParaProf's reader
case ",${TESTS:-t_tau}," in
*,t_tau,*)
	if [ -d "$BUILD/user-arm64/rootfs-tau" ]; then
		"$top/tests/tau/check-guest-kprofile.sh" "$share" 2>>"$log" | tee -a "$results"
	fi
	;;
esac
printf '==> done (at %d s)\n' "$SECONDS" | tee -a "$log"

if grep -q '^X86-ONLY: ' "$results"; then
	echo
	echo "x86-only (tests/guest/x86-only):"
	grep '^X86-ONLY: ' "$results" | sed 's/^/  /'
	echo "$(grep -c '^X86-ONLY: ' "$results") x86-only"
fi
# shellcheck source=scripts/summary.sh
. "$top/scripts/summary.sh"
summary "$results" "$log"
