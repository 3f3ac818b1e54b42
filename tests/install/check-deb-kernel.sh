#!/bin/bash
# `make deb-kernel` (scripts/deb-kernel.sh: the kernel's bindeb-pkg) on
# the test kernel's config, then checks of the packages with dpkg-deb,
# without installing them: their names (linux-image-RELEASE with RELEASE
# ending in -ktau, linux-headers-RELEASE when the config has modules,
# linux-libc-dev), and that the image is a ktau kernel: its vmlinuz says
# RELEASE, its config has CONFIG_KTAU=y, its System.map ktau's symbols;
# the headers package carries ktau's header and exports for external
# modules.  One PASS/FAIL line a check; one SKIP line when the Debian
# packaging tools are missing.
#
# The config: DEB_KCONFIG, else KCONFIG (`make check` exports the one its
# kernel phase has just built, whose object directory the package build
# starts from: then only what the -ktau release touches is rebuilt), else
# qemu.  Run after that kernel phase, never beside another kernel build
# (they share BUILD/linux).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$top/build}
# shellcheck source=tests/install/lib.sh
. "$top/tests/install/lib.sh"
name=${DEB_KCONFIG:-${KCONFIG:-qemu}}
label=deb-kernel

have_tools "$label" "make deps installs dpkg-dev, debhelper" \
	dpkg-buildpackage dpkg-deb dh || exit 0

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$BUILD/deb-kernel

start=$(date +%s)
# gzip: quicker than dpkg-deb's default xz, and the packages are thrown away
if ! log=$(KDEB_COMPRESS=${KDEB_COMPRESS:-gzip} nice make -s -C "$top" deb-kernel \
		KCONFIG="$name" BUILD="$BUILD" JOBS="${JOBS:-$(nproc)}" 2>&1); then
	fail "$label: make deb-kernel KCONFIG=$name" "$(printf '%s\n' "$log" | tail -n 8)"
	exit 1
fi
seeded=
if printf '%s\n' "$log" | grep 'as a copy of' >/dev/null; then
	seeded=", from a copy of kernel-$name"
fi
pass "$label: make deb-kernel KCONFIG=$name in $(($(date +%s) - start)) s$seeded"

objdir=$BUILD/kernel-deb-$name
release=$(cat "$objdir/include/config/kernel.release")
shopt -s nullglob
debs=("$out"/*.deb)
names=$(for d in "${debs[@]}"; do dpkg-deb -f "$d" Package; done | sort | tr '\n' ' ')
wanted=(linux-image-"$release" linux-libc-dev)
if grep -qx 'CONFIG_MODULES=y' "$objdir/.config"; then
	wanted+=(linux-headers-"$release")
fi
if grep -qx 'CONFIG_DEBUG_INFO=y' "$objdir/.config"; then
	wanted+=(linux-image-"$release"-dbg)
fi
want=$(printf '%s\n' "${wanted[@]}" | sort | tr '\n' ' ')
if [[ $release != *-ktau ]]; then
	fail "$label: the release names ktau" "kernelrelease is $release"
elif [ "$names" != "$want" ]; then
	fail "$label: packages $want" "built: ${names:-none}"
else
	pass "$label: packages $names"
fi

deb_of() { printf '%s\n' "${debs[@]}" | grep "/$1_" || true; }
image=$(deb_of "linux-image-$release")
if [ -z "$image" ]; then
	fail "$label: linux-image-$release" "no such package in $out"
	exit 1
fi
root=$tmp/image
dpkg-deb -x "$image" "$root"
vmlinuz=$root/boot/vmlinuz-$release
if [ ! -s "$vmlinuz" ]; then
	fail "$label: the image holds /boot/vmlinuz-$release" "$(dpkg-deb -c "$image" | grep boot/ | tr '\n' ' ')"
elif ! grep -aqF "$release (" "$vmlinuz"; then
	# the bzImage's setup header carries "RELEASE (user@host) #N ..."
	fail "$label: /boot/vmlinuz-$release is kernel $release" "no '$release (' version string in it"
else
	pass "$label: the image holds /boot/vmlinuz-$release ($(($(stat -c %s "$vmlinuz") / 1024)) KiB, version string $release)"
fi
config=$root/boot/config-$release
if ! grep -qx 'CONFIG_KTAU=y' "$config" 2>/dev/null; then
	fail "$label: /boot/config-$release has CONFIG_KTAU=y" "$(grep KTAU "$config" 2>&1 | tr '\n' ' ')"
else
	pass "$label: /boot/config-$release has CONFIG_KTAU=y"
fi
# ktau's core and its kernel API (kernel-ext/kernel/ktau/)
map=$root/boot/System.map-$release
missing=
for sym in ktau_get_fid ktau_start_fid ktau_stop_fid; do
	grep -q " $sym\$" "$map" 2>/dev/null || missing="$missing $sym"
done
if [ -n "$missing" ]; then
	fail "$label: System.map-$release has ktau's symbols" "missing:$missing"
else
	pass "$label: System.map-$release has ktau's symbols ($(grep -c ' T ktau_\| t ktau_' "$map") ktau_ functions)"
fi

# the headers package: what an external module using ktau's API needs
headers=$(deb_of "linux-headers-$release")
if [ -n "$headers" ]; then
	hroot=$tmp/headers
	dpkg-deb -x "$headers" "$hroot"
	hdir=$hroot/usr/src/linux-headers-$release
	link=$(readlink "$hroot/lib/modules/$release/build" || true)
	missing=
	for f in include/linux/ktau.h include/config/auto.conf Module.symvers; do
		[ -f "$hdir/$f" ] || missing="$missing $f"
	done
	if [ -n "$missing" ]; then
		fail "$label: linux-headers-$release has ktau's header and the exports" "missing:$missing"
	elif ! grep -qx 'CONFIG_KTAU=y' "$hdir/include/config/auto.conf" ||
		! grep -q '	ktau_get_fid	vmlinux	EXPORT_SYMBOL_GPL' "$hdir/Module.symvers"; then
		fail "$label: linux-headers-$release has ktau's header and the exports" \
			"no CONFIG_KTAU=y in auto.conf or no ktau_get_fid in Module.symvers"
	elif [ "$link" != "/usr/src/linux-headers-$release" ]; then
		fail "$label: /lib/modules/$release/build points to the headers" "it points to '$link'"
	else
		pass "$label: linux-headers-$release has ktau's header, CONFIG_KTAU=y and ktau's exports"
	fi
fi
exit "$failed"
