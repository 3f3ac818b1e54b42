#!/bin/bash
# The kernel must build with CONFIG_KTAU=n: every hook the patches add then
# compiles to nothing.  Builds, with the test config minus KTAU, every C
# and assembler file the patch series touches (each of them includes
# <linux/ktau.h> and calls the hooks, or calls the entry), in
# build/kernel-nokt.  Needs `make kernel` first (it
# reuses the patched tree).  Prints PASS/FAIL lines.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
JOBS=${JOBS:-$(nproc)}
tree=$BUILD/linux
objdir=$BUILD/kernel-nokt
base=$BUILD/kernel-${KCONFIG:-qemu}/.config

if [ ! -f "$base" ] || [ ! -f "$tree/.ktau-applied/series" ]; then
	echo "FAIL: ktau-off/config: no patched tree and $base (run make kernel)"
	exit 1
fi
mkdir -p "$objdir"
if ! cmp -s "$base" "$objdir/.config.base"; then
	cp "$base" "$objdir/.config"
	"$tree/scripts/config" --file "$objdir/.config" --disable KTAU
	make -s -C "$tree" O="$objdir" olddefconfig >/dev/null
	cp "$base" "$objdir/.config.base"
fi
if grep -q '^CONFIG_KTAU=y' "$objdir/.config"; then
	echo "FAIL: ktau-off/config: CONFIG_KTAU is still set in $objdir/.config"
	exit 1
fi

# kernel/entry/common.c: the user of the patched <linux/entry-common.h>;
# .S files too (entry_64.S calls do_syscall_64() directly without KTAU);
# x86's and the generic files: the config is x86's (another
# architecture's patched files are its own build's)
objs=$( (cat "$top"/patches/*.patch | sed -n 's|^+++ b/\(.*\)\.[cS]$|\1.o|p'
	echo kernel/entry/common.o) | awk -F/ '$1 != "arch" || $2 == "x86"' | sort -u)
if ! out=$(make -s -C "$tree" O="$objdir" -j"$JOBS" $objs 2>&1); then
	printf '%s\n' "$out" | tail -n 20
	echo "FAIL: ktau-off/build: the patched files do not build with CONFIG_KTAU=n"
	exit 1
fi
if printf '%s\n' "$out" | grep -q 'warning:'; then
	printf '%s\n' "$out" | grep 'warning:' | head
	echo "FAIL: ktau-off/warnings: warnings with CONFIG_KTAU=n"
	exit 1
fi
echo "PASS: ktau-off/build ($(echo $objs | wc -w) patched files build with CONFIG_KTAU=n)"
