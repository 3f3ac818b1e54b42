#!/bin/sh
# Debian's arm64 packages the arm64 guest needs, fetched with apt-get
# download and unpacked (never installed) into one root per use:
#
#   scripts/arm64-deps.sh DIR        the static builds' root
#   scripts/arm64-deps.sh DIR mpi    Open MPI's root
#   scripts/arm64-deps.sh DIR papi   PAPI's root
#
# DIR/root gets busybox-static (the guest's shell, DIR/root/bin/busybox)
# and, for the static arm64 builds of libktau-prof and the programs that
# link it, libelf-dev and zlib1g-dev (DIR/root/usr/include,
# DIR/root/usr/lib/aarch64-linux-gnu/lib{elf,z}.a), and for the shared
# builds (libktau-mpi's) the shared libraries of libelf1 and zlib1g.
# DIR/mpi-root gets Open MPI's arm64 runtime and headers (openmpi-bin,
# libopenmpi3, libopenmpi-dev, openmpi-common, PMIx) with every library
# they load, glibc and its ldconfig, and libelf and zlib's shared
# libraries: the root that scripts/guest-openmpi.sh (SYSROOT=) copies
# into the arm64 guest and that libktau-mpi and mpi-ring are cross-built
# against.  Only Open MPI's dependencies for network hardware (UCX,
# libfabric, verbs, PSM) are left out, as the guest leaves out their
# plugins (a library some copied file loads and no package brought fails
# guest-openmpi.sh, named).
# DIR/papi-root gets PAPI 7.0 (libpapi7.0, libsde1, libpfm4, papi-tools,
# libpapi-dev) and glibc: the root libktau-papi is cross-built against and
# papi/stage-guest.sh (SYSROOT=) copies PAPI's tools from.
# A package already unpacked is not fetched again.
# apt must know the arm64 architecture (make deps-arm64 adds it: dpkg
# --add-architecture arm64, apt-get update).
set -eu

[ $# -eq 1 ] || { [ $# -eq 2 ] && { [ "$2" = mpi ] || [ "$2" = papi ]; }; } ||
	{ echo "usage: $0 DIR [mpi|papi]" >&2; exit 2; }
dir=$1
set=${2:-static}

fetch() {	# fetch ROOT NAME:FILE...: each package unless FILE is there
	root=$1
	shift
	mkdir -p "$root"
	for pkg in "$@"; do
		name=${pkg%%:*}
		[ -e "$root/${pkg#*:}" ] && continue
		rm -f "$dir/${name}"_*_arm64.deb "$dir/${name}"_*_all.deb
		# (an Architecture: all package has no :arm64 of its own)
		(cd "$dir" && { apt-get download "$name:arm64" || apt-get download "$name"; } \
			>/dev/null 2>&1) || {
			echo "arm64-deps: cannot fetch $name:arm64 (make deps-arm64, or as root:" \
				"dpkg --add-architecture arm64 && apt-get update)" >&2
			exit 1
		}
		dpkg-deb -x "$(ls "$dir/${name}"_*_arm64.deb "$dir/${name}"_*_all.deb \
			2>/dev/null | head -n 1)" "$root"
	done
}

if [ "$set" = static ]; then
	# package, and the file that shows it is unpacked
	fetch "$dir/root" busybox-static:bin/busybox \
		libelf-dev:usr/lib/aarch64-linux-gnu/libelf.a \
		zlib1g-dev:usr/lib/aarch64-linux-gnu/libz.a \
		libelf1:usr/lib/aarch64-linux-gnu/libelf.so.1 \
		zlib1g:lib/aarch64-linux-gnu/libz.so.1
	exit 0
fi

lib=usr/lib/aarch64-linux-gnu
if [ "$set" = papi ]; then
	fetch "$dir/papi-root" libc6:lib/ld-linux-aarch64.so.1 \
		libpapi7.0:$lib/libpapi.so.7.0 libsde1:$lib/libsde.so.1 libpfm4:$lib/libpfm.so.4 \
		papi-tools:usr/bin/papi_command_line libpapi-dev:usr/include/sde_lib.h
	exit 0
fi
fetch "$dir/mpi-root" \
	libc6:lib/ld-linux-aarch64.so.1 libc-bin:sbin/ldconfig libgcc-s1:lib/aarch64-linux-gnu/libgcc_s.so.1 \
	openmpi-bin:usr/bin/orterun openmpi-common:usr/share/openmpi/help-orterun.txt \
	libopenmpi3:$lib/libmpi.so.40 libopenmpi-dev:$lib/openmpi/include/mpi.h \
	libpmix2:$lib/libpmix.so.2 libhwloc15:$lib/libhwloc.so.15 \
	libevent-core-2.1-7:$lib/libevent_core-2.1.so.7 \
	libevent-pthreads-2.1-7:$lib/libevent_pthreads-2.1.so.7 \
	libudev1:$lib/libudev.so.1 libltdl7:$lib/libltdl.so.7 zlib1g:lib/aarch64-linux-gnu/libz.so.1 \
	libelf1:$lib/libelf.so.1 libgfortran5:$lib/libgfortran.so.5 \
	libstdc++6:$lib/libstdc++.so.6 libnuma1:$lib/libnuma.so.1 \
	libxml2:$lib/libxml2.so.2 libicu72:$lib/libicuuc.so.72 liblzma5:lib/aarch64-linux-gnu/liblzma.so.5 \
	libnl-3-200:lib/aarch64-linux-gnu/libnl-3.so.200 libnl-route-3-200:$lib/libnl-route-3.so.200 \
	libpciaccess0:$lib/libpciaccess.so.0 libcap2:lib/aarch64-linux-gnu/libcap.so.2 \
	libatomic1:$lib/libatomic.so.1 libmunge2:$lib/libmunge.so.2
