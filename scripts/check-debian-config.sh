#!/bin/bash
# ktau under Debian's own 6.12 kernel config (package linux-config-6.12),
# through the route docs/install.md gives users: `make kernel
# KBASE=<config> KCONFIG=debian` (tests/configs/debian.config: ktau plus
# what the QEMU guest needs built in).
#
# usage: scripts/check-debian-config.sh [--objects]
#   --objects  compile only what the patch series touches (every patched
#              .c file and kernel/ktau/) under Debian's config: a few
#              minutes once the tree is prepared; `make check` runs this
#   (default)  build bzImage (vmlinux only, not Debian's thousands of
#              modules; about an hour on 2 cores from scratch), then the
#              test initramfs with the test module built against it, and
#              run the guest suite on it in QEMU (`make check-debian`)
#
# Prints PASS/FAIL lines; exit status 0 when nothing failed.
# environment: BUILD (default build/), JOBS, GUEST_TIMEOUT (1500),
#              QEMU_SMP (2), DEBIAN_CONFIG (the flavour's config file)
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
objects=0
case "${1:-}" in
--objects) objects=1 ;;
"") ;;
-h | --help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
*) echo "check-debian-config: unknown argument '$1' (try --help)" >&2; exit 2 ;;
esac

packaged=/usr/src/linux-config-6.12/config.amd64_none_amd64.xz
config=$BUILD/config-debian-6.12-amd64
mkdir -p "$BUILD"
if [ -n "${DEBIAN_CONFIG:-}" ]; then
	cp "$DEBIAN_CONFIG" "$config.tmp" || exit 1
elif [ -f "$packaged" ]; then
	xz -dc "$packaged" > "$config.tmp" || exit 1
else
	echo "FAIL: debian-config: no $packaged (apt-get install linux-config-6.12, or make deps)"
	exit 1
fi
# rewrite only when it changed, so that the kernel build stays incremental
cmp -s "$config.tmp" "$config" || mv "$config.tmp" "$config"
rm -f "$config.tmp"

# The .c files the series patches, as objects (x86's and the generic
# ones: Debian's config here is amd64's), and ktau's own directory.
objects_of_series() {
	sed '/^#/d; /^$/d' "$top/patches/series" | while read -r p; do
		sed -n 's|^+++ b/\(.*\)\.c$|\1.o|p' "$top/patches/$p"
	done | awk -F/ '$1 != "arch" || $2 == "x86"' | sort -u
	echo kernel/ktau/
}

log=$BUILD/debian-config.log
start=$(date +%s)
if [ $objects -eq 1 ]; then
	targets=$(objects_of_series | tr '\n' ' ')
	# build-kernel.sh itself: `make kernel` would point build/bzImage at
	# an image this does not build
	if KTARGETS="$targets" KBASE="$config" KMODULES=test BUILD="$BUILD" \
		"$top/scripts/build-kernel.sh" debian > "$log" 2>&1; then
		echo "PASS: debian-config-objects: $(echo "$targets" | wc -w) targets compile under Debian's config ($(( $(date +%s) - start )) s)"
	else
		echo "FAIL: debian-config-objects: $(grep -m 3 -E 'error|Error' "$log" | tr '\n' ' ') (log: $log)"
		exit 1
	fi
	exit 0
fi

if make -s -C "$top" kernel KBASE="$config" KCONFIG=debian KMODULES=test > "$log" 2>&1; then
	echo "PASS: debian-config-build: bzImage with Debian's config and ktau in $(( $(date +%s) - start )) s"
else
	echo "FAIL: debian-config-build: $(grep -m 3 -E 'error|Error' "$log" | tr '\n' ' ') (log: $log)"
	exit 1
fi
if grep -q 'objtool' "$log"; then
	echo "FAIL: debian-config-objtool: objtool warnings: $(grep -m 3 objtool "$log" | tr '\n' ' ')"
else
	echo "PASS: debian-config-objtool: no objtool warning in the build"
fi

initrd=$BUILD/initramfs-debian.cpio.gz
if ! make -s -C "$top" initramfs KCONFIG=debian INITRAMFS="$initrd" >> "$log" 2>&1; then
	echo "FAIL: debian-config-initramfs: see $log"
	exit 1
fi
share=$BUILD/guest-share-debian
rm -rf "$share"
mkdir -p "$share"
QEMU_MEM=${QEMU_MEM:-1G} "$top/tests/qemu/run-guest.sh" --mode check \
	--kernel "$BUILD/bzImage-debian" --initrd "$initrd" \
	--timeout "${GUEST_TIMEOUT:-1500}" --log "$BUILD/qemu-debian.log" --share "$share" |
	sed 's/^\(PASS\|FAIL\|SKIP\): /\1: debian\//'
