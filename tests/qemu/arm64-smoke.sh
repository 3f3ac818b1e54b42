#!/bin/bash
# The arm64 boot smoke test: boots the arm64 KTAU kernel under
# qemu-system-aarch64 (-M virt -cpu max, one TCG thread) with a tiny
# initramfs (an arm64 static busybox and guest tests cross-built static)
# and checks real outcomes in the guest:
#   - /proc/ktau exists and the guest is aarch64;
#   - counts: exactly 1000 getpid() and 500 read() in /proc/self/ktau
#     (tests/guest/t_counts.c, unchanged);
#   - fault: user page faults and read => page_fault (t_fault.c);
#   - inclexcl: excl <= incl in every profile read (t_inclexcl.c);
#   - renumber: a call a ptrace tracer renumbers counts under the number
#     that ran, one it skips nowhere (t_renumber.c);
#   - counts-aarch32: t_counts.c built for AArch32 (arm-linux-gnueabihf-gcc,
#     when installed) counts exactly through the compat entry, on a kernel
#     with CONFIG_COMPAT (SKIP on one without);
#   - the system profile has irq and softirq records with calls, user
#     page faults, and no line with excl > incl.
# Prints PASS/FAIL lines, then "N passed, N failed"; exit status 1 when
# anything failed.
#
# usage: tests/qemu/arm64-smoke.sh
# environment:
#   BUILD     build directory (default: build/ in the repository)
#   KERNEL    the arm64 image (default BUILD/Image-qemu-arm64: make kernel ARCH=arm64)
#   BUSYBOX   an arm64 static busybox (default: Debian's busybox-static:arm64,
#             fetched into BUILD/arm64-deps with apt-get download)
#   CROSS_COMPILE  (default aarch64-linux-gnu-)
#   CROSS_COMPILE32  the AArch32 one (default arm-linux-gnueabihf-)
#   QEMU (qemu-system-aarch64), QEMU_CPU (max), QEMU_SMP (2), TIMEOUT (600 s)
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$repo/build}
KERNEL=${KERNEL:-$BUILD/Image-qemu-arm64}
CROSS_COMPILE=${CROSS_COMPILE:-aarch64-linux-gnu-}
CROSS_COMPILE32=${CROSS_COMPILE32:-arm-linux-gnueabihf-}
QEMU=${QEMU:-qemu-system-aarch64}
QEMU_CPU=${QEMU_CPU:-max}
QEMU_SMP=${QEMU_SMP:-2}
TIMEOUT=${TIMEOUT:-600}
out=$BUILD/arm64-smoke
deps=$BUILD/arm64-deps
cc=${CROSS_COMPILE}gcc

passed=0
failed=0
pass() { echo "PASS: arm64-smoke/$1"; passed=$((passed + 1)); }
fail() { echo "FAIL: arm64-smoke/$1: $2"; failed=$((failed + 1)); }
finish() { echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit $?; }

for t in "$cc" "$QEMU" cpio gzip; do
	command -v "$t" >/dev/null ||
		{ fail tools "$t not found (apt-get install gcc-aarch64-linux-gnu qemu-system-arm cpio)"; finish; }
done
[ -f "$KERNEL" ] || { fail kernel "no $KERNEL (make kernel ARCH=arm64)"; finish; }

# an arm64 static busybox: Debian's, unpacked (never installed)
if [ -z "${BUSYBOX:-}" ]; then
	BUSYBOX=$deps/root/bin/busybox
	msg=$("$repo/scripts/arm64-deps.sh" "$deps" 2>&1) || { fail busybox "$msg"; finish; }
fi
[ -x "$BUSYBOX" ] || { fail busybox "no arm64 busybox at $BUSYBOX"; finish; }

# the guest tests, cross-built static, as tests/guest/Makefile builds them
mkdir -p "$out/root/guest" "$out/root/bin"
tests="t_counts t_fault t_inclexcl t_renumber"
for t in $tests; do
	if ! msg=$("$cc" -O2 -std=c11 -Wall -Wextra -Werror -o "$out/root/guest/$t" \
		   "$repo/tests/guest/$t.c" "$repo/tests/guest/ktr.c" -static -pthread 2>&1); then
		fail "build/$t" "$(printf '%s' "$msg" | head -n 3 | tr '\n' ' ')"
		finish
	fi
done
pass "build: $tests cross-built static for aarch64"
rm -f "$out/root/guest/t_counts_aarch32"
if command -v "${CROSS_COMPILE32}gcc" >/dev/null; then
	if msg=$("${CROSS_COMPILE32}gcc" -O2 -std=c11 -Wall -Wextra -Werror \
		 -o "$out/root/guest/t_counts_aarch32" "$repo/tests/guest/t_counts.c" \
		 "$repo/tests/guest/ktr.c" -static -pthread 2>&1); then
		pass "build: t_counts cross-built static for AArch32"
	else
		fail "build/t_counts_aarch32" "$(printf '%s' "$msg" | head -n 3 | tr '\n' ' ')"
	fi
else
	echo "SKIP: arm64-smoke/counts-aarch32: no ${CROSS_COMPILE32}gcc (apt-get install gcc-arm-linux-gnueabihf)"
fi

cp "$BUSYBOX" "$out/root/bin/busybox"
cat >"$out/root/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox mkdir -p /proc /sys /dev /tmp /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
echo "KTAU-ARM64-SMOKE-START"
check() {	# check NAME MESSAGE COMMAND...
	n=$1 m=$2
	shift 2
	if "$@"; then echo "PASS: arm64-smoke/$n"; else echo "FAIL: arm64-smoke/$n: $m"; fi
}
check machine "uname -m is $(uname -m)" [ "$(uname -m)" = aarch64 ]
check proc-ktau "no /proc/ktau" [ -d /proc/ktau ]
check proc-self-ktau "no /proc/self/ktau" [ -r /proc/self/ktau ]
cd /guest
for t in t_counts t_fault t_inclexcl t_renumber; do ./$t; done
# the compat entry: the same counts from an AArch32 program
if [ -x t_counts_aarch32 ]; then
	# without CONFIG_COMPAT the exec fails and sh reads it as a script
	./t_counts_aarch32 >/tmp/a32 2>&1
	if grep -qE '^(PASS|FAIL): counts/' /tmp/a32; then
		sed -e 's|^PASS: counts/|PASS: counts-aarch32/|' \
		    -e 's|^FAIL: counts/|FAIL: counts-aarch32/|' /tmp/a32
	else
		echo "SKIP: arm64-smoke/counts-aarch32: this kernel runs no AArch32 programs (CONFIG_COMPAT)"
	fi
fi
cd /
cat /proc/ktau/profile >/tmp/profile
records() {	# records GROUP [NAME]: func lines with calls
	awk -v g="$1" -v n="${2:-}" '$1 == "func" && $5 == g &&
		(n == "" || $4 == n) && $6 > 0 { c++ } END { exit !c }' /tmp/profile
}
check system-irq "no irq record with calls in /proc/ktau/profile" records irq
check system-softirq "no softirq record with calls in /proc/ktau/profile" records softirq
check system-page-fault "no page_fault record with calls in /proc/ktau/profile" records exception page_fault
check system-getpid "no getpid record in /proc/ktau/profile" records syscall getpid
check system-excl-le-incl "$(awk '($1 == "func" || $1 == "path") && $8 > $7' /tmp/profile | head -n 2 | tr '\n' ' ')" \
	awk '($1 == "func" || $1 == "path") && $8 > $7 { bad = 1 } END { exit bad }' /tmp/profile
echo "INFO: arm64-smoke: $(head -n 2 /tmp/profile | tr '\n' ' ')"
echo "KTAU-ARM64-SMOKE-DONE"
poweroff -f
EOF
chmod 755 "$out/root/init"
(cd "$out/root" && find . | cpio -o -H newc --quiet | gzip -9) >"$out/initramfs.cpio.gz" ||
	{ fail initramfs "cpio failed"; finish; }
pass "initramfs: $out/initramfs.cpio.gz"

log=$out/console.log
timeout "$TIMEOUT" "$QEMU" -M virt -cpu "$QEMU_CPU" -accel tcg,thread=single \
	-smp "$QEMU_SMP" -m 512M -nographic -no-reboot \
	-kernel "$KERNEL" -initrd "$out/initramfs.cpio.gz" \
	-append "console=ttyAMA0 panic=-1" </dev/null 2>&1 | stdbuf -oL tr -d '\r' >"$log"

grep -E '^(PASS|FAIL|SKIP): ' "$log" | while IFS= read -r line; do echo "$line"; done
passed=$((passed + $(grep -cE '^PASS: ' "$log")))
failed=$((failed + $(grep -cE '^FAIL: ' "$log")))
grep -q '^INFO: arm64-smoke' "$log" && grep '^INFO: arm64-smoke' "$log"
if grep -q '^KTAU-ARM64-SMOKE-DONE' "$log"; then
	pass "guest-completed"
else
	fail guest-completed "the guest did not finish within $TIMEOUT s (console: $log)"
fi
if splat=$(grep -E 'BUG:|WARNING:|Oops|Kernel panic|Unable to handle|RCU stall|hung_task' "$log"); then
	fail kernel-log-clean "$(printf '%s' "$splat" | head -n 2 | tr '\n' ' ')"
else
	pass kernel-log-clean
fi
# the counts must have been checked, not skipped
for c in counts/self-getpid counts/self-read renumber/recorded-as-run renumber/skipped-not-recorded; do
	grep -qE "^PASS: $c(:|$)" "$log" || fail "$c" "no PASS line for $c (console: $log)"
done
finish
