#!/bin/bash
# Every prefix of patches/series builds: apply the patches one at a time
# to a fresh 6.12 tree (with kernel-ext/ copied in, as build-kernel.sh
# does) and build vmlinux after each, with the QEMU test config (whose
# KTAU options take effect once the series' last patch adds the
# Kconfig).  Prints one PASS/FAIL line per prefix.
#
# Slow (a full kernel build, then one incremental build per patch, some
# of them touching headers everything includes): run it before landing
# a change to the series, not in `make check`.
#
# usage: scripts/check-series-prefixes.sh [CONFIG]   (default: qemu)
# environment: BUILD (default build/), JOBS (default nproc)
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
JOBS=${JOBS:-$(nproc)}
name=${1:-qemu}
tarball=${KTARBALL:-/usr/src/linux-source-6.12.tar.xz}
work=$BUILD/prefixes
tree=$work/linux
obj=$work/obj
log=$work/build.log

die() { printf 'check-series-prefixes: %s\n' "$*" >&2; exit 1; }
[ -f "$tarball" ] || die "no kernel source: $tarball (run 'make deps')"
[ -f "$top/tests/configs/$name.config" ] || die "no tests/configs/$name.config"

rm -rf "$work"
mkdir -p "$tree" "$obj"
tar xf "$tarball" -C "$tree" --strip-components=1 || die "cannot extract $tarball"
(cd "$top/kernel-ext" && tar cf - .) | (cd "$tree" && tar xf -)

fragments=
for inc in $(sed -n 's/^#include \(.*\.config\)$/\1/p' "$top/tests/configs/$name.config"); do
	fragments="$fragments $top/tests/configs/$inc"
done
fragments="$fragments $top/tests/configs/$name.config"

configure() {
	make -s -C "$tree" O="$obj" tinyconfig >/dev/null &&
		(cd "$obj" && "$tree/scripts/kconfig/merge_config.sh" -m -O "$obj" \
			"$obj/.config" $fragments >/dev/null 2>&1) &&
		make -s -C "$tree" O="$obj" olddefconfig >/dev/null
}

failed=0
build() {
	local what=$1
	: > "$log"
	if configure >>"$log" 2>&1 &&
	   make -s -C "$tree" O="$obj" -j"$JOBS" vmlinux >>"$log" 2>&1; then
		echo "PASS: series prefix builds: $what"
	else
		echo "FAIL: series prefix builds: $what: $(grep -m 3 -E 'error|Error' "$log" | tr '\n' ' ')"
		failed=1
	fi
}

build "no patch"
n=0
while read -r p; do
	n=$((n + 1))
	patch -d "$tree" -p1 -s --batch < "$top/patches/$p" ||
		die "patches/$p does not apply"
	build "$(printf '%02d %s' "$n" "$p")"
done < <(sed '/^#/d; /^$/d' "$top/patches/series")
grep -q '^CONFIG_KTAU=y' "$obj/.config" ||
	{ echo "FAIL: series prefix builds: CONFIG_KTAU=y did not take effect with the whole series"; failed=1; }
exit $failed
