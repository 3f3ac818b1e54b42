#!/bin/bash
# `make demo`: boot the ktau kernel under QEMU, run a small workload in the
# guest, and print its kernel profile here.  Results land in ktau-demo/.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
out=${DEMO_OUT:-$top/ktau-demo}
mkdir -p "$out"
rm -f "$out/report.txt"

echo "==> booting the ktau kernel under QEMU (software emulation; about 20 s)"
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
echo "==> results in $out/:"
echo "    report.txt   the report above"
echo "    tau/         the merged user/kernel TAU profile: paraprof $out/tau"
echo "    kernel.svg   its flame graph, user routines with the kernel under them: open it in a browser"
echo "    run/         ktau-run's saved profiles: build/user/bin/ktau-report --diff $out/run/before.ktau $out/run/after.ktau"
echo "    demo.ktar    every task of the guest: build/user/bin/ktau-report --top 5 $out/demo.ktar"
echo "    demo.ktt     the trace of a second run: build/user/bin/ktau-report --noise $out/demo.ktt"
echo "    demo-trace.json  its timeline, user routines and the kernel work under them:"
echo "                 open it in https://ui.perfetto.dev (Open trace file) or chrome://tracing"
