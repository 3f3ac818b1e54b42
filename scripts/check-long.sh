#!/bin/bash
# `make check-long`: what `make check` leaves out for time (issue 15).
# Run it before landing changes to the kernel side; a little over an
# hour on 2 host cores from a built tree (the prefixes about 10 minutes).
#
#   smp4       the whole guest suite on the plain QEMU kernel
#              (tests/configs/qemu.config) with 4 CPUs;
#   stress     BOOTS boots each on 2 and 4 CPUs of the concurrency tests
#              (stress with 600 group switches, hotplug, stale, counts),
#              alternating free-running TCG and -icount shift=1 and 3, so
#              that each boot interleaves the CPUs differently;
#   distro     the distribution-shaped kernel (tests/configs/distro.config:
#              PREEMPT_DYNAMIC, NO_HZ_FULL, seccomp, audit, PTI, IBT,
#              retpolines and return thunks, paravirt, NUMA, cgroups, BPF,
#              ftrace, kprobes; objtool's noinstr validation): built with no
#              objtool warning, then the whole suite booted with
#              `preempt=full nohz_full=1 audit=1`, and the concurrency and
#              entry-work tests booted with preempt=voluntary and none;
#   arm64      the whole guest suite on the arm64 debug kernel
#              (tests/configs/qemu-arm64-debug.config: the arm64 suite's
#              kernel plus KASAN, lockdep, PROVE_RCU, UBSAN, KTAU_DEBUG,
#              the AArch32 compat entry) under qemu-system-aarch64, through
#              scripts/check-arm64.sh;
#   prefixes   every prefix of the `make series` series builds
#              (scripts/check-series-prefixes.sh: the objects of the files
#              the series touched so far after each patch, and kernel/ktau/
#              once CONFIG_KTAU is set; its own tree, under BUILD/prefixes).
#
# usage: scripts/check-long.sh [--boots N] [PART...]
#        (PART: smp4 stress distro arm64 prefixes; default: all five)
# Prints PASS/FAIL/SKIP lines, each prefixed with its run, then the summary
# of scripts/summary.sh (its last line "N passed, N failed").
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
boots=3
parts=
while [ $# -gt 0 ]; do
	case "$1" in
	--boots) boots=${2:?--boots needs a number}; shift ;;
	smp4 | stress | distro | arm64 | prefixes) parts="$parts $1" ;;
	-h | --help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "check-long: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
	shift
done
parts=${parts:-smp4 stress distro arm64 prefixes}
case "$boots" in '' | *[!0-9]*) echo "check-long: bad --boots '$boots'" >&2; exit 2 ;; esac

log=$BUILD/check-long.log
results=$(mktemp)
trap 'rm -f "$results"' EXIT
mkdir -p "$BUILD"
: > "$log"
say() { printf '==> %s\n' "$*" | tee -a "$log"; }

# build KCONFIG: the kernel and an initramfs of its own ($BUILD/initramfs-KCONFIG.cpio.gz)
build() {
	say "building the $1 kernel and its initramfs"
	if ! make -s -C "$top" kernel KCONFIG="$1" >> "$log" 2>&1 ||
	   ! make -s -C "$top" initramfs KCONFIG="$1" \
		INITRAMFS="$BUILD/initramfs-$1.cpio.gz" >> "$log" 2>&1; then
		echo "FAIL: $1: kernel or initramfs build (log: $log)" | tee -a "$results"
		return 1
	fi
}

# guest NAME KCONFIG SMP ICOUNT APPEND: one boot; its checks prefixed NAME/
guest() {
	local name=$1 kconfig=$2 smp=$3 icount=$4 append=$5 share out
	share=$BUILD/guest-share-long
	rm -rf "$share"
	mkdir -p "$share"
	say "$name: $smp CPUs${icount:+, -icount shift=$icount}${append:+, $append}"
	out=$(QEMU_SMP=$smp QEMU_MEM=1G "$top/tests/qemu/run-guest.sh" --mode check \
		--kernel "$BUILD/bzImage-$kconfig" --initrd "$BUILD/initramfs-$kconfig.cpio.gz" \
		--timeout 2400 --log "$BUILD/qemu-long-$name.log" --share "$share" \
		${icount:+--icount "$icount"} ${append:+--append "$append"} 2>&1)
	printf '%s\n' "$out" >> "$log"
	printf '%s\n' "$out" | sed -n "s#^\(PASS\|FAIL\|SKIP\): #\1: $name/#p" | tee -a "$results"
	printf '%s\n' "$out" | grep '^run-guest:' | tail -n 1
}

concurrency=ktautests=stress,hotplug,stale,counts,entrywork
for part in $parts; do
	case $part in
	smp4)
		build qemu && guest smp4 qemu 4 "" ""
		;;
	stress)
		build qemu || continue
		for i in $(seq 1 "$boots"); do
			for smp in 2 4; do
				case $((i % 3)) in 1) ic= ;; 2) ic=1 ;; 0) ic=3 ;; esac
				guest "stress-smp$smp-boot$i" qemu "$smp" "$ic" \
					"$concurrency KTAU_STRESS_SWITCHES=600"
			done
		done
		;;
	distro)
		build distro || continue
		if grep -E 'objtool: .*warning|warning: objtool' "$log" >/dev/null; then
			echo "FAIL: distro/objtool: $(grep -m 3 objtool "$log" | tr '\n' ' ')" |
				tee -a "$results"
		else
			echo "PASS: distro/objtool: no objtool warning (noinstr validation on)" |
				tee -a "$results"
		fi
		guest distro-full distro 2 "" "preempt=full nohz_full=1 audit=1"
		guest distro-voluntary distro 2 "" "preempt=voluntary $concurrency"
		guest distro-none distro 2 "" "preempt=none $concurrency"
		;;
	arm64)
		# KASAN under TCG: t_hostile's attacks alone take many minutes
		say "arm64: the whole guest suite on the arm64 debug kernel (qemu-arm64-debug)"
		out=$(BUILD=$BUILD KCONFIG=qemu-arm64-debug GUEST_TIMEOUT=7200 \
			"$top/scripts/check-arm64.sh" 2>&1)
		printf '%s\n' "$out" >> "$log"
		printf '%s\n' "$out" | sed -n 's#^\(PASS\|FAIL\|SKIP\): #\1: arm64-debug/#p' |
			tee -a "$results"
		;;
	prefixes)
		say "prefixes: every prefix of the series builds (objects)"
		out=$(BUILD=$BUILD "$top/scripts/check-series-prefixes.sh" 2>&1)
		printf '%s\n' "$out" >> "$log"
		printf '%s\n' "$out" | sed -n 's#^\(PASS\|FAIL\|SKIP\): #\1: prefixes/#p' |
			tee -a "$results"
		;;
	esac
done

# shellcheck source=scripts/summary.sh
. "$top/scripts/summary.sh"
summary "$results" "$log"
