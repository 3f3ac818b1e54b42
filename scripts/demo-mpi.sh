#!/bin/bash
# `make demo-mpi`: boot the ktau kernel under QEMU, run the MPI test program
# (tests/mpi/mpi-ring) as a 4-rank Open MPI job under libktau-mpi in the
# guest (tests/qemu/demo-mpi-guest.sh), and print its job report here
# (ktau-report --job of the guest's files).
# Results land in ktau-demo-mpi/ (DEMO_MPI_OUT): tau/ is the ParaProf
# experiment, every rank's merged user/kernel profile.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
out=${DEMO_MPI_OUT:-$top/ktau-demo-mpi}
mkdir -p "$out"
rm -f "$out/report.txt"
# the guest runs the share's script.sh (/init's script mode)
install -m 755 "$top/tests/qemu/demo-mpi-guest.sh" "$out/script.sh"

echo "==> booting the ktau kernel under QEMU: a 4-rank Open MPI job (software emulation; under a minute)"
if ! "$top/tests/qemu/run-guest.sh" --mode script --share "$out" \
	--kernel "$BUILD/bzImage" --initrd "$BUILD/initramfs.cpio.gz" \
	--timeout 300 --log "$BUILD/qemu-demo-mpi.log" > "$BUILD/demo-mpi-run.txt" 2>&1; then
	echo "demo-mpi: the guest run failed; console log: $BUILD/qemu-demo-mpi.log" >&2
	tail -n 20 "$BUILD/demo-mpi-run.txt" >&2
	exit 1
fi
rm -f "$out/script.sh"
if [ ! -s "$out/report.txt" ]; then
	echo "demo-mpi: the guest wrote no report; console log: $BUILD/qemu-demo-mpi.log" >&2
	exit 1
fi
if [ ! -d "$out/tau" ] || ! ls "$out/tau"/profile.* >/dev/null 2>&1; then
	cat "$out/report.txt" >&2
	echo "demo-mpi: the job wrote no profiles; console log: $BUILD/qemu-demo-mpi.log" >&2
	exit 1
fi
# the job report, here: the guest's files read on the host
{
	echo
	echo "Job report (ktau-report --job $out/tau):"
	"$BUILD/user/bin/ktau-report" --job "$out/tau"
} >>"$out/report.txt" 2>&1
echo
cat "$out/report.txt"
echo
echo "==> results in $out/:"
echo "    tau/         every rank's profile.<rank>.0.<thread>, MPI routines with the kernel"
echo "                 time under them: paraprof $out/tau (one experiment, $(ls "$out/tau" | wc -l) files)"
echo "    report.txt   the report above: $BUILD/user/bin/ktau-report --job $out/tau"
echo "    mpirun.txt   what mpirun and the ranks printed"
