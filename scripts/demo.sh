#!/bin/bash
# `make demo`: boot the ktau kernel under QEMU, run a small workload in the
# guest, and print its kernel profile here.  Results land in ktau-demo/.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
out=${DEMO_OUT:-$top/ktau-demo}
mkdir -p "$out"
rm -f "$out/report.txt"

echo "==> booting the ktau kernel under QEMU (software emulation; about 10 s)"
if ! "$top/tests/qemu/run-guest.sh" --mode demo --share "$out" \
	--kernel "$BUILD/bzImage" --initrd "$BUILD/initramfs.cpio.gz" \
	--timeout 300 --log "$BUILD/qemu-demo.log" > "$BUILD/demo-run.txt" 2>&1; then
	echo "demo: the guest run failed; console log: $BUILD/qemu-demo.log" >&2
	tail -n 20 "$BUILD/demo-run.txt" >&2
	exit 1
fi
if [ ! -s "$out/report.txt" ]; then
	echo "demo: the guest wrote no report; console log: $BUILD/qemu-demo.log" >&2
	exit 1
fi
echo
cat "$out/report.txt"
echo
echo "==> files in $out/: report.txt, demo-shell.ktau (the raw /proc profile)"
echo "    read a saved profile again with: build/user/bin/ktau-dump --input $out/demo-shell.ktau"
