#!/bin/bash
# `make demo`: boot the ktau kernel under QEMU, run a small workload in the
# guest (tests/qemu/demo-guest.sh), and print its kernel profile here.
# Results land in ktau-demo/.
#
# `make demo ARCH=arm64`: the same demo in the arm64 guest (the arm64
# kernel under qemu-system-aarch64 -M virt, one TCG thread, with `make
# initramfs ARCH=arm64`'s root); results in ktau-demo-arm64/.  Its files
# (profiles, archive, trace) are read on the host by the host's own tools
# (build/user/bin, `make tools`): the formats do not depend on the
# architecture.
#
# environment: ARCH (x86_64, default, or arm64), BUILD (build/),
# DEMO_KERNEL and DEMO_INITRD (the images booted: build/bzImage and
# build/initramfs.cpio.gz; arm64: build/Image-qemu-arm64 and
# build/initramfs-arm64.cpio.gz), DEMO_OUT (the results' directory)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
case ${ARCH:-x86_64} in
x86|x86_64)
	arch=x86_64 suffix='' emulator=QEMU
	kernel=${DEMO_KERNEL:-$BUILD/bzImage}
	initrd=${DEMO_INITRD:-$BUILD/initramfs.cpio.gz}
	;;
arm64|aarch64)
	arch=arm64 suffix=-arm64 emulator=qemu-system-aarch64
	kernel=${DEMO_KERNEL:-$BUILD/Image-qemu-arm64}
	initrd=${DEMO_INITRD:-$BUILD/initramfs-arm64.cpio.gz}
	;;
*)
	echo "demo: ARCH=$ARCH: x86_64 or arm64" >&2
	exit 2
	;;
esac
out=${DEMO_OUT:-$top/ktau-demo$suffix}
log=$BUILD/qemu-demo$suffix.log
mkdir -p "$out"
rm -f "$out/report.txt"

echo "==> booting the $arch ktau kernel under $emulator (software emulation; about 20 s)"
if ! "$top/tests/qemu/run-guest.sh" --arch "$arch" --mode demo --share "$out" \
	--kernel "$kernel" --initrd "$initrd" \
	--timeout 300 --log "$log" > "$BUILD/demo-run$suffix.txt" 2>&1; then
	echo "demo: the guest run failed; console log: $log" >&2
	tail -n 20 "$BUILD/demo-run$suffix.txt" >&2
	exit 1
fi
if [ ! -s "$out/report.txt" ]; then
	echo "demo: the guest wrote no report; console log: $log" >&2
	exit 1
fi
echo
cat "$out/report.txt"
echo
if [ "$arch" = arm64 ]; then
	# what differs from the x86 demo (docs/install.md, The demo)
	echo "==> arm64: every part of the x86 demo ran; none is x86-only.  The system calls"
	echo "    have arm64's names: its table has only the *at forms of some (unlinkat,"
	echo "    renameat, mkdirat, readlinkat where x86 shows unlink, rename, mkdir,"
	echo "    readlink) and no arch_prctl; tsc_khz in the profiles is CNTFRQ_EL0's rate."
fi
echo "==> results in $out/:"
echo "    report.txt   the report above"
echo "    tau/         the merged user/kernel TAU profile: paraprof $out/tau"
echo "    kernel.svg   its flame graph, user routines with the kernel under them: open it in a browser"
if [ "$arch" = arm64 ]; then
	echo "    (the arm64 guest's files, read here by the host's tools, build/user/bin: make tools)"
fi
echo "    run/         ktau-run's saved profiles: build/user/bin/ktau-report --diff $out/run/before.ktau $out/run/after.ktau"
echo "    demo.ktar    every task of the guest: build/user/bin/ktau-report --top 5 $out/demo.ktar"
echo "    demo.ktt     the trace of a second run: build/user/bin/ktau-report --noise $out/demo.ktt"
echo "    demo-trace.json  its timeline, user routines and the kernel work under them:"
echo "                 open it in https://ui.perfetto.dev (Open trace file) or chrome://tracing"
