#!/bin/sh
# Install the Debian packages that building and testing ktau need.
# A no-op when everything is there; uses sudo when not root.
set -eu

# Build: the kernel's own build dependencies, plus the tarball.
# Test: QEMU, a static busybox for the guest, checkers of our output
# (golang-go for `go tool pprof`; libxml2-utils for xmllint, which reads
# the SVG flame graph back as XML), clang and its libFuzzer runtime for the
# parsers' fuzz targets.
# Bench: strace and perf, copied into the make bench guest with their libraries;
# bpftrace too (rows 5f, 5g), and dwarves for pahole, which the bench's
# tracing kernel needs to build its BTF (bpftrace reads /sys/kernel/btf/vmlinux).
# Neither is needed to build or install ktau.
# Debian's kernel config (linux-config-6.12), which make check compiles ktau under.
# Install: pkg-config, to build a program against the installed tree; man;
# debhelper and lintian for make deb (dpkg-dev comes with build-essential);
# rsync for make deb-kernel (the kernel's headers_install, linux-libc-dev).
# OTF2: libotf2-trace-dev for the optional ktau-export -f otf2 writer (built
# only when it is there), otf2-tools for the test harness, whose otf2-print
# reads the archive back; the core build never needs them.
# MPI: Open MPI (openmpi-bin, libopenmpi-dev; gfortran for its Fortran
# bindings' test) for the optional libktau-mpi and its tests (tests/mpi/);
# the core build never needs it. make initramfs copies Open MPI's runtime
# into the test guest (scripts/guest-openmpi.sh).
pkgs="build-essential bc bison flex libelf-dev libssl-dev cpio xz-utils kmod
linux-source-6.12 qemu-system-x86 busybox-static quilt sparse valgrind protobuf-compiler libc6-dev
golang-go libxml2-utils clang libclang-rt-14-dev strace linux-perf bpftrace dwarves linux-config-6.12
pkg-config man-db debhelper lintian rsync
libotf2-trace-dev otf2-tools
openmpi-bin libopenmpi-dev gfortran"

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing="$missing $p"
done
if [ -z "$missing" ]; then
	echo "==> dependencies: all installed"
	exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
	sudo=
elif command -v sudo >/dev/null 2>&1; then
	sudo=sudo
else
	echo "deps: need root (or sudo) to install:$missing" >&2
	exit 1
fi
echo "==> installing:$missing"
$sudo apt-get update -q
# shellcheck disable=SC2086 # a list of package names
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends $missing
