#!/bin/sh
# TAU's own runtime on the ktau kernel: the guest half of `make check-tau`
# (the host half builds everything, tests/tau/check-tau.sh).  Run as root in
# a guest booted on a ktau kernel, with ktau-ctl and the TAU-instrumented
# program of tests/tau/prog.c (built by make check-tau, statically, against
# TAU configured with -ktau -ktau_shctr).  make check-tau leaves a root
# overlay with this script and the program in build/user/rootfs-tau
# (/opt/ktau-tau/; ARCH=arm64: build/user-arm64/rootfs-tau), which make
# initramfs packs; make check's guest test t_tau runs it.  By hand, on the host:
#
#   make check-tau initramfs
#   make boot            # then, in the guest:
#   /opt/ktau-tau/run-in-guest.sh
#
#   run-in-guest.sh [PROG KTAU_CTL MAP WORKDIR]
#
# defaults: /opt/ktau-tau/prog, ktau-ctl, the path in /opt/ktau-tau/map-path,
# /tmp/ktau-tau.  MAP is the -ktausym= path TAU was configured with
# (compiled into TAU: the host's build/check-tau/System.map-ktau); the
# script writes the map of this kernel there first.  It prints PASS/FAIL
# lines:
#   - TAU writes Kprofile.0.0.perprocess/ with the program's thread as
#     profile.<tid>.0.1;
#   - its sys_getpid() shows the program's 1000 calls and the two of TAU's
#     own runtime (RtsLayer::getPid(), validate_thread(): 1000 + k, k <= 4),
#     sys_read() its 500 and the read()s of the layer's own first /proc read
#     (the line says how many: 500 + k, k small);
#   - with TAU_METRICS=TIME:KTAU_INCL_sys_read:KTAU_NUM_sys_read (the
#     kernel's shared counter area: no system call per read), TAU's
#     MULTI__KTAU_NUM_sys_read profile has the routine io with its 500
#     read()s exactly, and MULTI__KTAU_INCL_sys_read io's kernel read time
#     (microseconds: TAU divides the cycles by the MHz it measures, right
#     with TAU configured -useropt=-DTAU_x86_64, or on arm64 the MHz the
#     layer reads from /proc, TAU configured -useropt=-DTAU_mips:
#     docs/tau.md) within 1 % of what
#     the thread's /proc file records for the same calls, at its tsc_khz
#     (the program writes that, KTAU_TAU_READ_DELTA: tests/tau/prog.c).
# With the 9p share of make check mounted at /mnt/host, it copies
# WORKDIR/plain/Kprofile.0.0.perprocess there (tau-kprofile/), which
# tests/tau/check-guest-kprofile.sh reads on the host with ParaProf's
# reader; else copy it back by hand and run
# ../shared/tools/tau-check/check.sh on it.
set -u
if [ $# -eq 0 ]; then
	set -- /opt/ktau-tau/prog ktau-ctl "$(cat /opt/ktau-tau/map-path 2>/dev/null)" /tmp/ktau-tau
fi
[ $# -eq 4 ] && [ -n "$3" ] || { echo "usage: $0 [PROG KTAU_CTL MAP WORKDIR]" >&2; exit 2; }
prog=$1 ctl=$2 map=$3 work=$4
failed=0 passed=0
pass() { echo "PASS: $1"; passed=$((passed + 1)); }
fail() { echo "FAIL: $1: $2"; failed=$((failed + 1)); }

mkdir -p "$(dirname "$map")" "$work"
if "$ctl" --system-map "$map"; then
	pass "tau guest: ktau-ctl --system-map $map"
else
	fail "tau guest: ktau-ctl --system-map" "see above"
fi
"$ctl" start >/dev/null 2>&1

# the number in the second field of the line of routine $2 in file $1
calls() {
	grep -F "\"$2\" " "$1" 2>/dev/null | head -n 1 | awk '{print $2}'
}

rm -rf "$work/plain" "$work/shctr"
mkdir -p "$work/plain" "$work/shctr"
(cd "$work/plain" && "$prog" >out 2>&1)
k=$(ls -d "$work"/plain/Kprofile.0.0.perprocess 2>/dev/null)
own=$(ls "$k"/profile.*.0.1 2>/dev/null | head -n 1)
if [ -n "$own" ]; then
	pass "tau guest: TAU writes Kprofile.0.0.perprocess with the program's thread ($(basename "$own"))"
	g=$(calls "$own" "sys_getpid()")
	r=$(calls "$own" "sys_read()")
	if [ "${g:-0}" -ge 1000 ] && [ "${g:-0}" -le 1004 ]; then
		pass "tau guest: sys_getpid() $g calls (1000 + $((g - 1000)) of TAU's own runtime)"
	else
		fail "tau guest: sys_getpid()" "calls ${g:-none}, expected 1000 + TAU's own few"
	fi
	if [ "${r:-0}" -ge 500 ] && [ "${r:-0}" -le 520 ]; then
		pass "tau guest: sys_read() $r calls (500 + $((r - 500)) of the layer's own /proc read)"
	else
		fail "tau guest: sys_read()" "calls ${r:-none}, expected 500 + a few"
	fi
	grep -q 'GROUP="TAU_KERNEL_MERGE | KTAU_SYSCALL | KTAU_IO"' "$own" &&
		pass "tau guest: sys_read() in TAU's groups KTAU_SYSCALL, KTAU_IO" ||
		fail "tau guest: groups" "no KTAU_IO line in $own"
else
	fail "tau guest: Kprofile" "no $work/plain/Kprofile.0.0.perprocess/profile.*.0.1: $(tail -n 3 "$work/plain/out")"
fi

(cd "$work/shctr" && KTAU_TAU_READ_DELTA=$work/shctr/delta \
	TAU_METRICS=TIME:KTAU_INCL_sys_read:KTAU_NUM_sys_read "$prog" >out 2>&1)
# TAU's profile line: "io" calls subrs excl incl ...: the metric's incl is field 5
metric() {
	grep -F '"io" ' "$work/shctr/MULTI__KTAU_$1_sys_read/profile.0.0.0" 2>/dev/null |
		awk '{print $5}'
}
n=$(metric NUM)
t=$(metric INCL)
# "read CALLS INCL_CYCLES TSC_KHZ": the thread's /proc file across io
set -- $(cat "$work/shctr/delta" 2>/dev/null)
dcalls=${2:-none} dincl=${3:-none} khz=${4:-0}
if [ "$dcalls" = 500 ] && awk -v v="$n" 'BEGIN { exit !(v == 500) }'; then
	pass "tau guest: -ktau_shctr: io has KTAU_NUM_sys_read 500, as /proc/self/task/TID/ktau records"
else
	fail "tau guest: -ktau_shctr calls" "io's KTAU_NUM_sys_read is '${n:-none}', /proc's read() calls across io $dcalls, expected 500 both: $(tail -n 3 "$work/shctr/out")"
fi
us=$(awk -v c="$dincl" -v k="$khz" 'BEGIN { if (k > 0 && c != "none") printf "%.3f", c * 1000 / k }')
if [ -n "$us" ] && awk -v v="${t:-x}" -v w="$us" \
	'BEGIN { d = v - w; if (d < 0) d = -d; exit !(w > 0 && v != "x" && d <= w / 100) }'; then
	pass "tau guest: -ktau_shctr: io's KTAU_INCL_sys_read $t us, /proc's $dincl cycles at $khz kHz $us us: within 1 %"
else
	fail "tau guest: -ktau_shctr time" "io's KTAU_INCL_sys_read is '${t:-none}' us, /proc's read() inclusive cycles across io '$dincl' at $khz kHz: '${us:-none}' us, not within 1 %; TAU's line: $(grep -F '"io" ' "$work/shctr/MULTI__KTAU_INCL_sys_read/profile.0.0.0" 2>&1)"
fi
# the Kprofile for ParaProf's reader on the host (tests/tau/check-guest-kprofile.sh)
if [ -n "${own:-}" ] && grep -qs ' /mnt/host ' /proc/mounts; then
	rm -rf /mnt/host/tau-kprofile
	mkdir -p /mnt/host/tau-kprofile &&
		cp -r "$work/plain/Kprofile.0.0.perprocess" /mnt/host/tau-kprofile/ &&
		pass "tau guest: Kprofile copied to the host share" ||
		fail "tau guest: share" "could not copy the Kprofile to /mnt/host/tau-kprofile"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
