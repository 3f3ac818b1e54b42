#!/bin/bash
# `make deb-kernel`: the patched kernel as Debian packages, built by the
# kernel's own `make bindeb-pkg` (scripts/package/builddeb), into
# $BUILD/deb-kernel/:
#
#   linux-image-RELEASE    /boot/vmlinuz-RELEASE, System.map-RELEASE,
#                          config-RELEASE, the modules in /lib/modules
#   linux-headers-RELEASE  what external modules build against; only when
#                          the config has CONFIG_MODULES=y (6.12's
#                          mkdebian leaves the package out otherwise, and
#                          the image then holds only modules.builtin*)
#   linux-libc-dev         the user-space API headers (always built)
#   linux-image-RELEASE-dbg  only when the config has CONFIG_DEBUG_INFO
#
# RELEASE is the kernel version plus the config's CONFIG_LOCALVERSION plus
# LOCALVERSION (default -ktau), e.g. 6.12.43-ktau; the package version is
# KDEB_PKGVERSION (default KERNELVERSION+ktauVERSION-1, VERSION the
# project's, from the top Makefile).
#
# usage: scripts/deb-kernel.sh [NAME]
#   NAME   config fragment tests/configs/NAME.config (default: qemu), merged
#          onto KBASE as scripts/build-kernel.sh does (KSRC=, KBASE= work as
#          there); a site's kernel: KBASE=/boot/config-$(uname -r) NAME=ktau
# environment: BUILD, JOBS, KSRC, KBASE, LOCALVERSION, KDEB_PKGVERSION,
#   DPKG_FLAGS (more dpkg-buildpackage options, e.g.
#   -Ppkg.linux-ktau.nokernelheaders)
#
# The build has its own object directory, BUILD/kernel-deb-NAME (the
# release differs from the other kernels'); when `make kernel KCONFIG=NAME`
# has built BUILD/kernel-NAME, it starts as a copy of that (again whenever
# that is rebuilt), so that only what the release touches is rebuilt.  bindeb-pkg
# writes its results next to the object directory, into BUILD/; they are
# moved to BUILD/deb-kernel/ (which holds the last build's only).  Run one
# kernel build at a time: they share the source tree BUILD/linux.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
name=${1:-qemu}
BUILD=${BUILD:-$top/build}
JOBS=${JOBS:-$(nproc)}
export LOCALVERSION=${LOCALVERSION:--ktau}
objdir=$BUILD/kernel-deb-$name
seed=$BUILD/kernel-$name
out=$BUILD/deb-kernel
log=$BUILD/deb-kernel-$name.log
sourcename=linux-ktau

die() {
	echo "deb-kernel: $*" >&2
	exit 1
}

for tool in dpkg-buildpackage dh bc flex bison rsync; do
	command -v "$tool" >/dev/null 2>&1 ||
		die "$tool is not installed (make deps installs what the kernel build and dpkg-buildpackage need)"
done

version=$("$top/scripts/version.sh") || die "no release in libktau/include/ktau.h"

# A finished build of the same fragment is a good start (see above): the
# object directory is a fresh copy of it whenever it was rebuilt since.
seed_id() { stat -c '%s:%Y' "$seed/vmlinux" "$seed/.ktau-config" | tr '\n' ' '; }
if [ -f "$seed/vmlinux" ] && [ -f "$seed/.ktau-config" ] &&
	[ "$(cat "$objdir/.ktau-seed" 2>/dev/null)" != "$(seed_id)" ]; then
	echo "==> starting $objdir as a copy of $seed"
	rm -rf "$objdir" "$objdir.tmp"
	cp -a "$seed" "$objdir.tmp"
	seed_id > "$objdir.tmp/.ktau-seed"
	mv "$objdir.tmp" "$objdir"
fi

# the source tree and the configuration, as for `make kernel`
KOBJDIR=$objdir KPREPARE=1 BUILD=$BUILD "$top/scripts/build-kernel.sh" "$name"

kmake() { make -s -C "$BUILD/linux" O="$objdir" "$@"; }
kver=$(kmake kernelversion)
release=$(kmake kernelrelease)
export KDEB_PKGVERSION=${KDEB_PKGVERSION:-$kver+ktau$version-1}
export KDEB_SOURCENAME=$sourcename
arch=$(dpkg --print-architecture)
changes=$BUILD/${sourcename}_${KDEB_PKGVERSION}_$arch.changes

echo "==> make bindeb-pkg: $release, version $KDEB_PKGVERSION ($JOBS jobs; log: $log)"
rm -f "$changes"
start=$(date +%s)
# (the kernel's make reads DPKG_FLAGS from the environment)
if ! kmake -j"$JOBS" bindeb-pkg > "$log" 2>&1; then
	tail -n 25 "$log" >&2
	die "make bindeb-pkg failed; the whole log is $log"
fi
[ -f "$changes" ] || die "make bindeb-pkg wrote no $changes (log: $log)"

# the files of the build: the .changes file's list, the .changes itself
mapfile -t files < <(sed -n '/^Files:/,/^[^ ]/s/^ [0-9a-f]\{32\} [0-9]* [^ ]* [^ ]* \(.*\)$/\1/p' "$changes")
[ ${#files[@]} -gt 0 ] || die "$changes lists no files"
mkdir -p "$out"
rm -f "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
for f in "${files[@]}"; do
	mv "$BUILD/$f" "$out/"
done
mv "$changes" "$out/"
echo "==> kernel packages in $out ($(($(date +%s) - start)) s):"
for f in "$out"/*.deb; do
	echo "    $f"
done
