#!/bin/sh
# Install the Debian packages that one use of ktau needs, by profile.
# A no-op when everything is there; uses sudo when not root.
#
#   scripts/deps.sh [PROFILE...]         install (default: all)
#   scripts/deps.sh --list [PROFILE...]  print the packages, one a line;
#                                        install nothing
#
# Profiles (each includes what it builds on):
#   demo   `make demo`: build the kernel, the user space and the guest
#          root, boot it in QEMU
#   mpi    `make demo-mpi`: demo + Open MPI (libktau-mpi, the guest's job)
#   bench  `make bench`: demo + the tracers it compares ktau with, and
#          the whole programs' MPI workload (Open MPI, ScaLAPACK's tests)
#   deb    `make deb`, `make deb-kernel`: the kernel's build + packaging
#   arm64  `make kernel ARCH=arm64`, `make check-arm64-boot`,
#          `make bench ARCH=arm64` (no tracers: x86-only): the kernel's
#          build + the arm64 and AArch32 cross compilers and
#          qemu-system-aarch64, and qemu-user (the arm64 ldconfig of the
#          guest's Open MPI root); adds the arm64 architecture to dpkg, so
#          that the test can fetch Debian's arm64 busybox and Open MPI
#          (apt-get download, never installed)
#   deb-arm64  `make deb ARCH=arm64`: deb + arm64 + the arm64 build
#          dependencies of debian/control (libelf-dev:arm64,
#          zlib1g-dev:arm64), installed beside the host's, as
#          dpkg-buildpackage -a arm64 wants them, and qemu-user, which
#          runs the packages' programs for their test
#   check  `make check`, `check-long`, `check-debian`, `make fuzz`: demo,
#          mpi, deb, arm64 and deb-arm64 + every checker and reader the
#          tests use
#   all    every profile (CI, `make deps`)
#
# make check prints a SKIP line for a check whose tool is missing, and CI
# (.ci/run) fails on it: every such tool's package is in the check profile.
set -eu

# The kernel's own build dependencies and Debian's 6.12 source tarball.
# libelf-dev (with zlib1g-dev) also serves libktau-prof, which names
# -finstrument-functions addresses from the ELF symbol table.
kernel="build-essential bc bison flex libelf-dev libssl-dev cpio xz-utils kmod
linux-source-6.12"
# demo: the kernel, and QEMU and a static busybox for the guest. `make
# initramfs` copies Open MPI into the guest only when the host has it
# (scripts/guest-openmpi.sh).
demo="$kernel qemu-system-x86 busybox-static"
# mpi: Open MPI (openmpi-bin, libopenmpi-dev) for the optional libktau-mpi,
# its tests (tests/mpi/) and the guest's job; gfortran because Debian's
# libopenmpi-dev ships mpifort, with which mpi/Makefile builds the Fortran
# test program. The core build never needs MPI.
mpi="openmpi-bin libopenmpi-dev gfortran"
# bench: strace and perf, copied into the make bench guest with their
# libraries; bpftrace too (rows 5f, 5g), and dwarves for pahole, which the
# bench's tracing kernel needs to build its BTF (bpftrace reads
# /sys/kernel/btf/vmlinux). Neither is needed to build or install ktau.
# The whole-program rows' MPI workload: Open MPI (the guest's runtime;
# mpicc for libktau-mpi, its merged row) and ScaLAPACK's test programs
# (scalapack-mpi-test: xdlu, the LU factorization test the guest runs).
bench="strace linux-perf bpftrace dwarves openmpi-bin libopenmpi-dev scalapack-mpi-test"
# deb: debhelper and lintian for make deb (dpkg-dev comes with
# build-essential); rsync for make deb-kernel (the kernel's
# headers_install, linux-libc-dev); Debian's kernel config
# (linux-config-6.12), the base docs/install.md builds the packages from.
deb="debhelper lintian rsync linux-config-6.12"
# arm64: the cross compilers (the AArch32 one for the compat entry's test)
# with their C libraries (only recommended by the compilers, which
# --no-install-recommends leaves out: without them no guest program
# builds), QEMU's arm machines (qemu-system-aarch64), and qemu-user,
# whose qemu-aarch64 runs Debian's arm64 ldconfig on the guest's Open MPI
# root (scripts/guest-openmpi.sh with SYSROOT=: the host's ldconfig
# skips arm64 libraries) and the arm64 TAU program on the host (make
# check-tau ARCH=arm64), and the C++ cross compiler that TAU's arm64
# runtime is built with there
arm64="gcc-aarch64-linux-gnu g++-aarch64-linux-gnu gcc-arm-linux-gnueabihf
	libc6-dev-arm64-cross libc6-dev-armhf-cross qemu-system-arm qemu-user"
# deb-arm64: debian/control's Build-Depends for the arm64 host
# architecture (dpkg-buildpackage -a arm64 checks them, the cross linker
# links libktau.so.1 against libelf.so.1 and dpkg-shlibdeps finds its
# package); they bring libc6-dev:arm64, Multi-Arch: same beside the
# host's, at the host's version.  qemu-user's qemu-aarch64 runs the
# packages' arm64 programs on the host for their test
# (tests/install/check-deb.sh with DEB_ARCH=arm64; without
# qemu-user-binfmt, nothing registers it for every arm64 program); the
# libraries they bring, libc6:arm64 and libelf1:arm64, are what the
# arm64 packages need to be installed on this host
# (tests/install/check-deb-host.sh with DEB_ARCH=arm64)
debarm64="libelf-dev:arm64 zlib1g-dev:arm64 qemu-user"
# check: quilt and sparse for the patch checks; readers of our output
# (valgrind's callgrind_annotate, protoc --decode, golang-go for `go tool
# pprof`, libxml2-utils for xmllint, which reads the SVG flame graph
# back as XML); clang and its libFuzzer runtime for the parsers' fuzz targets;
# pkg-config, to build a program against the installed tree; man; OTF2:
# libotf2-trace-dev for the optional ktau-export -f otf2 writer (built
# only when it is there), otf2-tools for the test harness, whose
# otf2-print reads the archive back; Debian's kernel config, which make
# check compiles ktau under; a JDK for ParaProf's reader of TAU's output
# (../shared/tools/tau-check), which make check-tau runs; PAPI's headers,
# libraries and tools (libpapi-dev, papi-tools) for the optional
# libktau-papi (make papi) and its check, papi_native_avail listing and
# papi_command_line reading its events (tests/papi/check-papi.sh).
check="quilt sparse valgrind protobuf-compiler libc6-dev
golang-go libxml2-utils clang libclang-rt-14-dev linux-config-6.12
pkg-config man-db
libotf2-trace-dev otf2-tools default-jdk-headless
libpapi-dev papi-tools"

usage() {
	sed -n '2,/^set -/{/^#/s/^# \{0,1\}//p}' "$0"
	exit "${1:-2}"
}

list=0
if [ "${1:-}" = --list ]; then
	list=1
	shift
fi
[ $# -gt 0 ] || set -- all

pkgs=
for profile in "$@"; do
	case "$profile" in
	demo) pkgs="$pkgs $demo" ;;
	mpi) pkgs="$pkgs $demo $mpi" ;;
	bench) pkgs="$pkgs $demo $bench" ;;
	deb) pkgs="$pkgs $kernel $deb" ;;
	arm64) pkgs="$pkgs $kernel $arm64" ;;
	deb-arm64) pkgs="$pkgs $kernel $deb $arm64 $debarm64" ;;
	check) pkgs="$pkgs $demo $mpi $deb $arm64 $debarm64 $check" ;;
	all) pkgs="$pkgs $demo $mpi $deb $arm64 $debarm64 $check $bench" ;;
	-h|--help) usage 0 ;;
	*) echo "deps: unknown profile '$profile' (demo, mpi, bench, deb, arm64, deb-arm64, check, all)" >&2
		usage >&2 ;;
	esac
done
# each package once, in the order first named
# shellcheck disable=SC2086 # a list of package names
pkgs=$(printf '%s\n' $pkgs | awk '!seen[$0]++')

if [ "$list" -eq 1 ]; then
	printf '%s\n' "$pkgs"
	exit 0
fi

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing="$missing $p"
done
# the arm64 test fetches Debian's arm64 busybox: dpkg must know the
# architecture and apt its package lists
# (pkgs is one name a line: match a line, not a blank-separated word)
foreign=
if printf '%s\n' "$pkgs" | grep -qx gcc-aarch64-linux-gnu; then
	apt-cache show busybox-static:arm64 >/dev/null 2>&1 || foreign=arm64
fi
if [ -z "$missing" ] && [ -z "$foreign" ]; then
	echo "==> dependencies ($*): all installed"
	exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
	sudo=
elif command -v sudo >/dev/null 2>&1; then
	sudo=sudo
else
	echo "deps: need root (or sudo) to install:$missing${foreign:+ (and dpkg --add-architecture $foreign)}" >&2
	exit 1
fi
if [ -n "$foreign" ]; then
	echo "==> adding the $foreign architecture to dpkg (Debian's arm64 busybox for the arm64 test)"
	dpkg --print-foreign-architectures | grep -qx "$foreign" ||
		$sudo dpkg --add-architecture "$foreign"
fi
echo "==> installing ($*):$missing"
$sudo apt-get update -q
[ -n "$missing" ] || exit 0
# shellcheck disable=SC2086 # a list of package names
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends $missing
