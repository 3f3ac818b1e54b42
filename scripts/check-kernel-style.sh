#!/bin/bash
# The kernel side's hygiene, as PASS/FAIL lines: checkpatch --strict on
# every kernel-ext source file, the test module and every patch, and a
# W=1 + sparse build of kernel/ktau/ and of the test module (needs a
# configured tree from `make kernel`).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
tree=$BUILD/linux
objdir=$BUILD/kernel-${KCONFIG:-qemu}
checkpatch=$tree/scripts/checkpatch.pl

if [ ! -f "$checkpatch" ]; then
	echo "FAIL: checkpatch: $checkpatch missing (run 'make kernel' first)"
	exit 0
fi

# Two CHECKs --strict cannot get right in kernel-ext, allowed where they
# are wrong: an asm operand outside a string, the register of an
# exception table entry ("_ASM_EXTABLE_TYPE_REG(..., %[value])", read as
# a modulo, as in upstream's futex.h and xen/page.h), and a __setup whose
# parameter a patch of the series documents in kernel-parameters.txt
# (checkpatch looks for it among the '+' lines of what it checks, and a
# kernel-ext file is checked alone).
label_lines() {
	grep -n '_ASM_EXTABLE_TYPE_REG(.*%\[' "$1" | cut -d: -f1
}

# The lines of FILE whose __setup's parameter the series documents: a
# patch adds a kernel-parameters.txt line that starts with it.
documented_setup_lines() {
	local l name
	grep -n '\b__setup("[^"]*"' "$1" | while IFS=: read -r l name; do
		name=$(printf '%s\n' "$name" | sed 's/.*__setup("\([^"]*\)".*/\1/')
		documented_parameter "$name" && echo "$l"
	done
}

# Whether a patch of the series adds NAME (e.g. "ktau=") to
# kernel-parameters.txt as the start of an entry.
documented_parameter() {
	awk -v name="$1" '
		/^\+\+\+ / { docs = ($2 ~ /Documentation\/admin-guide\/kernel-parameters\.txt$/) }
		docs && /^\+/ { sub(/^\+[ \t]*/, ""); if (index($0, name) == 1) found = 1 }
		END { exit !found }' "$top"/patches/*.patch
}

while read -r f; do
	out=$(perl "$checkpatch" --no-tree --strict --terse --show-types -f "$top/$f" 2>&1 |
		grep -E ': (ERROR|WARNING|CHECK):')
	# the SPACING exception holds only on those exception table lines
	for l in $(label_lines "$top/$f"); do
		out=$(printf '%s\n' "$out" | grep -v "^$top/$f:$l: CHECK:SPACING: spaces preferred around that '%'")
	done
	for l in $(documented_setup_lines "$top/$f"); do
		out=$(printf '%s\n' "$out" | grep -v "^$top/$f:$l: CHECK:UNDOCUMENTED_SETUP:")
	done
	out=$(printf '%s\n' "$out" | sed '/^$/d')
	if [ -z "$out" ]; then
		echo "PASS: checkpatch/$f"
	else
		echo "FAIL: checkpatch/$f: $(printf '%s' "$out" | head -n 3 | sed "s|$top/||" | tr '\n' ' ')"
	fi
done < <(cd "$top" && find kernel-ext tests/kmod -name '*.[ch]' | sort)

# Absolute paths on purpose: given the relative path of a file git tracks,
# checkpatch checked the commit that added the file (its text as '+' lines)
# instead of the patch in it, and reported context lines as errors.
while read -r p; do
	out=$(perl "$checkpatch" --no-tree --strict --terse --show-types "$top/patches/$p" 2>&1 |
		grep -E ': (ERROR|WARNING|CHECK):')
	if [ -z "$out" ]; then
		echo "PASS: checkpatch/patches/$p"
	else
		echo "FAIL: checkpatch/patches/$p: $(printf '%s' "$out" | head -n 3 | tr '\n' ' ')"
	fi
done < <(sed '/^#/d; /^$/d' "$top/patches/series")

if [ ! -f "$objdir/.config" ]; then
	echo "FAIL: kernel/ktau W=1 sparse: no configured kernel in $objdir (run 'make kernel')"
	exit 0
fi
if ! command -v sparse >/dev/null; then
	echo "FAIL: kernel/ktau W=1 sparse: sparse is not installed (run 'make deps')"
	exit 0
fi
# an arm64 object directory (KCONFIG=qemu-arm64) is cross-built
kargs=
if [ "$(cat "$objdir/.ktau-arch" 2>/dev/null)" = arm64 ]; then
	kargs="ARCH=arm64 CROSS_COMPILE=${CROSS_COMPILE:-aarch64-linux-gnu-}"
fi
# C=2 checks every file whether or not it needs rebuilding.  On arm64
# that includes its vDSO (prepare builds it), and sparse reads the u8
# and u16 cases of arm64's cmpxchg() of a u32 with a constant above
# 0xffff as truncations: upstream's warnings, not ktau's.
# shellcheck disable=SC2086 # kargs is a list of make arguments
out=$(make -s -C "$tree" O="$objdir" $kargs -j"${JOBS:-$(nproc)}" W=1 C=2 kernel/ktau/ 2>&1 |
	grep -E 'warning|error' | grep -v '^make' |
	{ if [ -n "$kargs" ]; then
		grep -vE '/arch/arm64/kernel/vdso/|/arch/arm64/include/asm/cmpxchg\.h:[0-9]+:[0-9]+: warning: cast truncates bits from constant value'
	  else cat; fi; })
if [ -z "$out" ]; then
	echo "PASS: kernel/ktau W=1 sparse"
else
	echo "FAIL: kernel/ktau W=1 sparse: $(printf '%s' "$out" | head -n 3 | tr '\n' ' ')"
fi

kmod=$BUILD/kmod-${KCONFIG:-qemu}
if [ -d "$kmod" ]; then
	# shellcheck disable=SC2086
	out=$(make -s -C "$objdir" M="$kmod" $kargs W=1 C=2 modules 2>&1 |
		grep -E 'warning|error' | grep -v '^make')
	if [ -z "$out" ]; then
		echo "PASS: tests/kmod W=1 sparse"
	else
		echo "FAIL: tests/kmod W=1 sparse: $(printf '%s' "$out" | head -n 3 | tr '\n' ' ')"
	fi
fi
