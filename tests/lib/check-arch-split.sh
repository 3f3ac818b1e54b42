#!/bin/bash
# The kernel core is generic C: everything an architecture provides is in
# its asm/ktau.h and its generated asm/ktau_syscall_*.h (the contract at
# the top of include/linux/ktau.h), so that another architecture adds
# files under arch/ and touches no generic one.  PASS/FAIL lines:
#   - no inline asm and no x86 or arm64 name in include/linux/ktau*.h or
#     kernel/ktau/, and no asm/ header but the contract's and
#     asm/unistd.h (every architecture has __NR_read);
#   - kernel/ktau/'s Makefile and Kconfig name no architecture;
#   - every ktau_arch_* the generic files use is defined in each
#     architecture's asm/ktau.h, and nothing else in it is used.
#
# usage: tests/lib/check-arch-split.sh [KERNEL_EXT_DIR]
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
ext=${1:-$top/kernel-ext}
cd "$ext" || { echo "FAIL: arch split: no $ext"; exit 0; }

generic=$(find include/linux -name 'ktau*.h'; find kernel/ktau -type f \
	! -name Kconfig ! -name Makefile ! -name '*.sh' | sort)
archs=$(find arch -path '*/include/asm/ktau.h' | cut -d/ -f2 | sort)

fail=0
report() {	# report NAME FINDINGS
	if [ -z "$2" ]; then
		echo "PASS: arch split: $1"
	else
		echo "FAIL: arch split: $1: $(printf '%s\n' "$2" | head -n 3 | tr '\n' ' ')"
		fail=1
	fi
}

# shellcheck disable=SC2086 # one argument per file
found=$(grep -nE '\basm[[:space:]]*(volatile[[:space:]]*|goto[[:space:]]*)?\(|__asm__' $generic)
report "no inline asm in the generic core" "$found"

# shellcheck disable=SC2086
found=$(grep -nE '\b(in_ia32_syscall|__X32_SYSCALL_BIT|CONFIG_X86[A-Z0-9_]*|X86_64|X86|rdtsc|rdtscp|tsc_khz|pcpu_hot|_ASM_[A-Z_]+|EX_TYPE_[A-Z_]+)\b|arch/x86' $generic |
	grep -vE '"tsc_khz |\.tsc_khz = |u64 tsc_khz;')
report "no x86 name in the generic core" "$found"

# shellcheck disable=SC2086
found=$(grep -nE '\b(CONFIG_ARM64[A-Z0-9_]*|ARM64|[Cc][Nn][Tt][Vv][Cc][Tt](_EL0)?|[Cc][Nn][Tt][Ff][Rr][Qq](_EL0)?|arch_timer_[a-z_]+|TIF_32BIT|is_compat_task)\b|arch/arm64' $generic)
report "no arm64 name in the generic core" "$found"

# shellcheck disable=SC2086
found=$(grep -nE '#include <asm/' $generic |
	grep -vE '<asm/(ktau|ktau_syscall_nr|ktau_syscall_names|unistd)\.h>')
report "the generic core includes only the contract's asm headers" "$found"

found=$(grep -nE 'arch/|X86|ARM64|x86|arm64' kernel/ktau/Makefile kernel/ktau/Kconfig)
report "kernel/ktau/Makefile and Kconfig name no architecture" "$found"

# shellcheck disable=SC2086
used=$(grep -ohE '\bktau_arch_[a-z0-9_]+|\bKTAU_ARCH_[A-Z0-9_]+' $generic | sort -u)
[ -n "$archs" ] || report "an architecture provides asm/ktau.h" "none under $ext/arch"
for a in $archs; do
	h=arch/$a/include/asm/ktau.h
	# inlines, macros and the prototypes of what its own code defines
	defined=$(grep -ohE '^(static __always_inline |static inline )?[a-z][a-z0-9_ ]*[ *]ktau_arch_[a-z0-9_]+\(|^#define KTAU_ARCH_[A-Z0-9_]+' "$h" |
		grep -oE '(ktau|KTAU)_(arch|ARCH)_[A-Za-z0-9_]+' | sort -u)
	# a KTAU_ARCH_ macro may be left out where its feature is (x32)
	missing=$(comm -23 <(printf '%s\n' "$used" | grep -v '^KTAU_ARCH_') \
		<(printf '%s\n' "$defined"))
	report "$a's asm/ktau.h provides every ktau_arch_ the core uses" "$missing"
	# what the architecture's own code uses (its entry) counts as used
	extra=$(comm -13 <(printf '%s\n' "$used") <(printf '%s\n' "$defined") |
		while read -r sym; do
			grep -rqw "$sym" "$top/patches" || echo "$sym"
		done)
	report "$a's asm/ktau.h defines nothing the core does not use" "$extra"
done
exit 0
