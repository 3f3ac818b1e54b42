#!/bin/bash
# Boots the ktau kernel in QEMU (TCG, no KVM needed) with the test initramfs,
# captures the serial console and checks it.
#
#   tests/qemu/run-guest.sh [options]
#
#   -A, --arch ARCH      GUEST_ARCH  x86_64 (default) or arm64: the guest's
#                                 architecture; arm64 boots qemu-system-aarch64
#                                 -M virt -cpu max (one TCG thread, as x86) with
#                                 `make initramfs ARCH=arm64`'s root, and its
#                                 defaults below are build/user-arm64,
#                                 Image-qemu-arm64 and initramfs-arm64.cpio.gz
#   -b, --build DIR      USER_BUILD  user-space build dir (default <repo>/build/user;
#                                 the environment's BUILD, the top dir, is not used)
#   -k, --kernel FILE    KERNEL   kernel image (default BUILD/../bzImage)
#   -i, --initrd FILE    INITRD   initramfs (default BUILD/../initramfs.cpio.gz,
#                                 (re)built by mkinitramfs.sh when missing or stale)
#   -m, --mode MODE      MODE     check | demo | shell | bench | script (default check;
#                                 script runs SHARE/script.sh in the guest)
#   -t, --timeout SECS   TIMEOUT  hard limit for the whole run (default 120)
#   -s, --share DIR      SHARE    host dir shared over virtio-9p as `hostshare`
#                                 (guest: /mnt/host; gets results.txt, dmesg.txt)
#   -l, --log FILE       LOG      console log, CRs stripped (default BUILD/../qemu-MODE.log)
#   -a, --append ARGS    APPEND   extra kernel command line arguments, after
#                                 "console=ttyS0 panic=-1 tsc=reliable pci=noacpi no5lvl
#                                 ktaumode=MODE"
#   -c, --icount SHIFT   ICOUNT   deterministic guest clock: -icount shift=SHIFT
#                                 (0: the guest's TSC and clocks advance 1 ns per
#                                 executed instruction; `make bench` uses it)
#   -v, --verbose        VERBOSE=1  copy the console to stderr while it runs
#       --check-log FILE          only check an existing console log
#   Environment only: QEMU (qemu-system-x86_64), QEMU_CPU (max,vendor=GenuineIntel),
#   QEMU_MEM (512M), QEMU_SMP (2: N CPUs as N sockets; or a full -smp value),
#   QEMU_EXTRA (more QEMU arguments, word-split), QEMU_ACCEL (tcg,thread=single).
#
# Prints to stdout every `PASS: ...` / `FAIL: ...` / `SKIP: ...` line of the guest
# (SKIP: a check the guest could not run, naming what it lacks; and on arm64
# `X86-ONLY: test: why`, a test of an x86-only kernel path), then
#   PASS|FAIL: kernel-log-clean   no BUG:/WARNING:/Oops/panic/KASAN/UBSAN/lockdep splat,
#                                 RCU stall or hung task
#   PASS|FAIL: guest-completed    the guest reached KTAU-GUEST-DONE (no timeout/crash)
# and on stderr their counts, `N passed, N failed, N skipped`.
# Exit status: 0 when no FAIL line was printed, 1 otherwise, 2 on bad usage.
# In shell mode QEMU runs interactively on this terminal (Ctrl-A X quits) and
# nothing is checked.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)

usage() { sed -n '2,/^set -/{/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"; exit "${1:-2}"; }

GUEST_ARCH=${GUEST_ARCH:-x86_64}
BUILD=${USER_BUILD:-}
KERNEL=${KERNEL:-}
INITRD=${INITRD:-}
MODE=${MODE:-check}
TIMEOUT=${TIMEOUT:-120}
SHARE=${SHARE:-}
LOG=${LOG:-}
APPEND=${APPEND:-}
VERBOSE=${VERBOSE:-}
ICOUNT=${ICOUNT:-}
QEMU=${QEMU:-}
QEMU_CPU=${QEMU_CPU:-}
QEMU_MEM=${QEMU_MEM:-512M}
QEMU_SMP=${QEMU_SMP:-2}
QEMU_EXTRA=${QEMU_EXTRA:-}
CHECK_ONLY=

while [ $# -gt 0 ]; do
	case "$1" in
	-A|--arch) GUEST_ARCH=${2:?"missing value for $1"}; shift ;;
	-b|--build) BUILD=${2:?"missing value for $1"}; shift ;;
	-k|--kernel) KERNEL=${2:?"missing value for $1"}; shift ;;
	-i|--initrd) INITRD=${2:?"missing value for $1"}; shift ;;
	-m|--mode) MODE=${2:?"missing value for $1"}; shift ;;
	-t|--timeout) TIMEOUT=${2:?"missing value for $1"}; shift ;;
	-s|--share) SHARE=${2:?"missing value for $1"}; shift ;;
	-l|--log) LOG=${2:?"missing value for $1"}; shift ;;
	-a|--append) APPEND=${2:?"missing value for $1"}; shift ;;
	-c|--icount) ICOUNT=${2:?"missing value for $1"}; shift ;;
	-v|--verbose) VERBOSE=1 ;;
	--check-log) CHECK_ONLY=${2:?"missing value for $1"}; shift ;;
	-h|--help) usage 0 ;;
	*) echo "run-guest: unknown argument '$1'" >&2; usage 2 ;;
	esac
	shift || usage 2
done

case "$GUEST_ARCH" in
x86|x86_64)
	GUEST_ARCH=x86_64
	BUILD=${BUILD:-$repo/build/user}
	QEMU=${QEMU:-qemu-system-x86_64}
	# TCG's `max` CPU says AuthenticAMD without invtsc: Linux then marks the TSC
	# unstable on SMP.  As GenuineIntel family 15 it gets constant_tsc and the
	# TSC clocksource (TCG's TSC follows the host clock, synchronised across CPUs).
	QEMU_CPU=${QEMU_CPU:-max,vendor=GenuineIntel}
	;;
arm64|aarch64)
	GUEST_ARCH=arm64
	BUILD=${BUILD:-$repo/build/user-arm64}
	QEMU=${QEMU:-qemu-system-aarch64}
	QEMU_CPU=${QEMU_CPU:-max}
	;;
*) echo "run-guest: unknown architecture '$GUEST_ARCH' (x86_64, arm64)" >&2; exit 2 ;;
esac

# Splats that make a run fail (matched anywhere in a line).
BAD_RE='BUG:|WARNING:|Oops|Kernel panic|KASAN|UBSAN|possible circular locking|inconsistent lock state|sleeping function called from invalid context|general protection fault|detected stall|self-detected stall|blocked for more than'
# arm64's report of a bad kernel access comes before its Oops line
[ "$GUEST_ARCH" = arm64 ] && BAD_RE="$BAD_RE|Unable to handle kernel|SError Interrupt"
DONE_MARK=KTAU-GUEST-DONE

nfail=0
npass=0
nskip=0
nx86=0
result() {	# result PASS|FAIL|SKIP|X86-ONLY line...
	echo "$*"
	case "$1" in
	PASS:) npass=$((npass + 1)) ;;
	FAIL:) nfail=$((nfail + 1)) ;;
	SKIP:) nskip=$((nskip + 1)) ;;
	X86-ONLY:) nx86=$((nx86 + 1)) ;;
	esac
}
# the counts of the last line; on arm64 with the x86-only tests
counts() {
	printf '%s passed, %s failed, %s skipped' "$npass" "$nfail" "$nskip"
	[ "$GUEST_ARCH" = arm64 ] && printf ', %s x86-only' "$nx86"
	printf '\n'
}

# report_excerpt LOG: the first report's 80 lines, from its first line
report_excerpt() {
	grep -aE -m1 -A80 "$BAD_RE" "$1" | tr -d '\r'
}

# report_after LOG: the last guest result before the first report: the
# test that was running then, or the one before it
report_after() {
	awk -v re="$BAD_RE" '$0 ~ re { exit } /(PASS|FAIL|SKIP): / { last = $0 }
		END { sub(/.*(PASS|FAIL|SKIP): /, "", last); print (last == "" ? "the start" : last) }' "$1"
}

# report_gist LOG: of the first report, the access it names (addr, size,
# task) and its call trace's first 12 frames, on one line
report_gist() {
	report_excerpt "$1" | awk '
		/(Read|Write) of size|at addr|CPU: [0-9]+ .*(PID|UID)|RIP: / && n < 3 {
			sub(/^\[[ 0-9.]*\] */, ""); gsub(/  +/, " "); what[++n] = $0 }
		/Call Trace:/ { trace = 1; next }
		trace && /[A-Za-z_][A-Za-z0-9_.]*\+0x[0-9a-f]+\/0x[0-9a-f]+/ && frames < 12 {
			match($0, /[A-Za-z_][A-Za-z0-9_.]*\+0x[0-9a-f]+\/0x[0-9a-f]+/)
			f = f (frames++ ? " < " : "") substr($0, RSTART, RLENGTH) }
		END {
			for (i = 1; i <= n; i++) printf "%s; ", what[i]
			printf "trace: %s", (frames ? f : "none") }'
}

# check_log LOG QEMU_STATUS ELAPSED
check_log() {
	local log=$1 qrc=${2:-0} elapsed=${3:-?} line bad why
	# the guest's result lines, counted, in their order (unanchored: the
	# console may glue escape codes in front)
	while IFS= read -r line; do
		result "${line%% *}" "${line#* }"
	done < <(grep -aoE '(PASS|FAIL|SKIP|X86-ONLY): .*' "$log")
	grep -aoE 'INFO: .*' "$log" >&2
	if [ "$MODE" = check ] && [ $((npass + nfail + nskip)) -eq 0 ]; then
		result FAIL: "guest-results: no PASS/FAIL/SKIP line from the guest tests"
	fi

	bad=$(grep -aE -m1 "$BAD_RE" "$log")
	if [ -n "$bad" ]; then
		# the report in full on stderr (the log), its gist on the FAIL
		# line: CI shows only the end of the output, where the failed
		# checks are listed again
		report_excerpt "$log" >&2
		result FAIL: "kernel-log-clean: $bad [$(report_gist "$log"); after: $(report_after "$log")]"
	else
		result PASS: kernel-log-clean
	fi

	if grep -aq "$DONE_MARK" "$log"; then
		result PASS: guest-completed
	else
		if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
			why="timeout after ${TIMEOUT} s"
		elif [ "$qrc" = none ]; then
			why="no $DONE_MARK in the log"
		else
			why="QEMU exited with status $qrc after ${elapsed} s without $DONE_MARK (crash, panic or init died?)"
		fi
		result FAIL: "guest-completed: $why"
		echo "run-guest: last 20 lines of $log:" >&2
		tail -n 20 "$log" | sed 's/^/  | /' >&2
	fi
}

if [ -n "$CHECK_ONLY" ]; then
	[ -r "$CHECK_ONLY" ] || { echo "run-guest: cannot read $CHECK_ONLY" >&2; exit 2; }
	check_log "$CHECK_ONLY" none
	echo "run-guest: $CHECK_ONLY: $(counts)" >&2
	[ "$nfail" -eq 0 ]
	exit
fi

case "$MODE" in check|demo|shell|bench|script) ;; *) echo "run-guest: unknown mode '$MODE'" >&2; exit 2 ;; esac
case "$TIMEOUT" in ''|*[!0-9]*) echo "run-guest: bad timeout '$TIMEOUT'" >&2; exit 2 ;; esac
case "$ICOUNT" in *[!0-9]*) echo "run-guest: bad icount shift '$ICOUNT'" >&2; exit 2 ;; esac
if [ "$GUEST_ARCH" = arm64 ]; then
	KERNEL=${KERNEL:-$BUILD/../Image-qemu-arm64}
else
	KERNEL=${KERNEL:-$BUILD/../bzImage}
fi
LOG=${LOG:-$BUILD/../qemu-$MODE.log}

if [ ! -r "$KERNEL" ]; then
	result FAIL: "guest-boot: no kernel image at $KERNEL (make kernel)"
	exit 1
fi
command -v "$QEMU" >/dev/null || { result FAIL: "guest-boot: $QEMU not found (apt-get install qemu-system-x86 qemu-system-arm)"; exit 1; }

if [ -z "$INITRD" ]; then
	INITRD=$BUILD/../initramfs.cpio.gz
	if [ "$GUEST_ARCH" = arm64 ]; then
		INITRD=$BUILD/../initramfs-arm64.cpio.gz
		# scripts/arm64-deps.sh's (make initramfs ARCH=arm64)
		export BUSYBOX=${BUSYBOX:-$BUILD/../arm64-deps/root/bin/busybox}
	fi
	stale=
	if [ ! -e "$INITRD" ]; then
		stale=1
	else
		for src in "$BUILD/bin" "$BUILD/guest" "$BUILD/demo.sh" "$BUILD/rootfs-extra" \
			"$BUILD/rootfs-mpi" "$BUILD/rootfs-tau" "$BUILD/papi/guest" "$here/init.sh" "$here/mkinitramfs.sh"; do
			[ -e "$src" ] || continue
			if [ -n "$(find "$src" -newer "$INITRD" -print -quit)" ]; then
				stale=1
				break
			fi
		done
	fi
	if [ -n "$stale" ]; then
		"$here/mkinitramfs.sh" "$BUILD" "$INITRD" "$MODE" ||
			{ result FAIL: "guest-boot: building the initramfs failed"; exit 1; }
	fi
fi
[ -r "$INITRD" ] || { result FAIL: "guest-boot: no initramfs at $INITRD"; exit 1; }

# SeaBIOS's MP table lists one CPU per socket; without ACPI that is all the
# kernel sees: give each CPU its own socket.
case "$QEMU_SMP" in
*,*) smp=$QEMU_SMP ;;
*) smp="$QEMU_SMP,sockets=$QEMU_SMP,cores=1,threads=1" ;;
esac
# tsc=reliable: TCG's TSC follows the host clock and is fine, but the kernel's
# clocksource watchdog compares it with jiffies (no HPET/ACPI PM timer in a
# tinyconfig kernel), which lose ticks under emulation, and would mark the TSC
# unstable a second after boot.
# pci=noacpi: PCI interrupts from the BIOS's routing table, not the ACPI
# _PRT method, which the slow (debug, emulated) kernel can time out in,
# leaving the virtio-9p share without an interrupt and its mount hung.
# no5lvl: 4-level paging, though -cpu max offers LA57.  With 5 levels,
# the KASAN kernel reported "wild-memory-access in rcu_is_watching" for a
# valid per-CPU address (ff11...: the 5-level direct map) when a device
# interrupt came in during identify_boot_cpu(): that clears and rebuilds
# boot_cpu_data's capabilities, and until alternatives are patched,
# pgtable_l5_enabled() reads them, so KASAN's idea of the kernel's
# address range shrank to 4-level's for that window (trace: identify_cpu
# < common_interrupt < irqentry_enter < trace_irq_disable <
# rcu_is_watching).  Nothing of ktau's is in that path.
cmdline="console=ttyS0 panic=-1 tsc=reliable pci=noacpi no5lvl ktaumode=$MODE${APPEND:+ $APPEND}"
# arm64: the virt machine's PL011 UART, its timer the generic counter
[ "$GUEST_ARCH" = arm64 ] && cmdline="console=ttyAMA0 panic=-1 ktaumode=$MODE${APPEND:+ $APPEND}"
# One TCG thread for all vCPUs: with QEMU 7.2's multi-threaded TCG, a vCPU
# executes a stale int3 after the kernel has finished patching a static
# branch (text_poke_bp) and synced every CPU: an "Oops: int3".  QEMU's, not
# ktau's: perf's stock static keys on a kernel built with CONFIG_KTAU=n hit
# it in 9 of 10 boots, never with one thread or -icount (QEMU translated
# without the page lock; fixed in 8.1 by "accel/tcg: Always lock pages
# before translation").  The guest still has QEMU_SMP CPUs, interleaved.
# arm64: -M virt (its CPUs are its own, no MP table: -smp N), the same
# single TCG thread
machine=pc
[ "$GUEST_ARCH" = arm64 ] && machine=virt smp=${QEMU_SMP%%,*}
qemu=("$QEMU" -nodefaults -no-user-config -nographic -no-reboot
	-accel "${QEMU_ACCEL:-tcg,thread=single}"
	-machine "$machine" -cpu "$QEMU_CPU" -m "$QEMU_MEM" -smp "$smp"
	-serial mon:stdio
	-kernel "$KERNEL" -initrd "$INITRD" -append "$cmdline")
[ -n "$ICOUNT" ] && qemu+=(-icount "shift=$ICOUNT")
if [ -n "$SHARE" ]; then
	mkdir -p "$SHARE" || exit 2
	if [ "$GUEST_ARCH" = arm64 ]; then
		# virtio-mmio, as the virt machine's kernel config has it (no PCI)
		qemu+=(-fsdev "local,path=$SHARE,security_model=none,id=hs"
			-device "virtio-9p-device,fsdev=hs,mount_tag=hostshare")
	else
		qemu+=(-virtfs "local,path=$SHARE,mount_tag=hostshare,security_model=none,id=hs")
	fi
fi
# shellcheck disable=SC2206
[ -n "$QEMU_EXTRA" ] && qemu+=($QEMU_EXTRA)

if [ "$MODE" = shell ]; then
	echo "run-guest: interactive shell; Ctrl-A X quits QEMU" >&2
	exec "${qemu[@]}"
fi

mkdir -p "$(dirname "$LOG")"
case "$MODE" in demo|script) VERBOSE=${VERBOSE:-1} ;; esac
start=$(date +%s)
# tr line-buffered: into a file it writes 4 KiB blocks, and a guest
# that printed little for minutes (t_hostile's attack) looked hung with
# its log cut mid-line
if [ -n "$VERBOSE" ]; then
	timeout --kill-after=5 "$TIMEOUT" "${qemu[@]}" </dev/null 2>&1 |
		stdbuf -oL tr -d '\r' | tee "$LOG" >&2
else
	timeout --kill-after=5 "$TIMEOUT" "${qemu[@]}" </dev/null 2>&1 |
		stdbuf -oL tr -d '\r' >"$LOG"
fi
qrc=${PIPESTATUS[0]}
elapsed=$(( $(date +%s) - start ))

check_log "$LOG" "$qrc" "$elapsed"
echo "run-guest: mode $MODE, ${elapsed} s, QEMU status $qrc: $(counts) (log: $LOG)" >&2
[ "$nfail" -eq 0 ]
