#!/bin/sh
# TAU's own runtime on the ktau kernel: the guest half of `make check-tau`
# (the host half builds everything, tests/tau/check-tau.sh).  Run as root in
# a guest booted on a ktau kernel, with ktau-ctl and the TAU-instrumented
# program of tests/tau/prog.c (built by make check-tau, statically, against
# TAU configured with -ktau -ktau_shctr).  make check-tau leaves a root
# overlay with both scripts and the program in build/check-tau/guest
# (/opt/ktau-tau/); on the host:
#
#   make check-tau
#   EXTRA="$PWD/build/user/rootfs-extra $PWD/build/user/rootfs-mpi $PWD/build/check-tau/guest" \
#       make initramfs
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
#   - its sys_getpid() shows the program's 1000 calls exactly, sys_read() its
#     500 and the few read()s of the layer's own first /proc read (the line
#     says how many: 500 + k, k small);
#   - with TAU_METRICS=TIME:KTAU_INCL_sys_read:KTAU_NUM_sys_read, TAU's
#     MULTI__KTAU_NUM_sys_read profile has the routine io with its 500
#     read()s: exactly 500 where the kernel has the shared counter area
#     (ktau-ctl counters says whether it has: the layer's reads are loads
#     then), 500 + the layer's own few /proc reads where it has not
#     (docs/tau.md).
# Copy WORKDIR back to the host and run ../shared/tools/tau-check/check.sh
# on WORKDIR/plain/Kprofile.0.0.perprocess (ParaProf's reader).
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
	if [ "${g:-0}" = 1000 ]; then
		pass "tau guest: sys_getpid() 1000 calls"
	else
		fail "tau guest: sys_getpid()" "calls ${g:-none}, expected 1000"
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

(cd "$work/shctr" && TAU_METRICS=TIME:KTAU_INCL_sys_read:KTAU_NUM_sys_read "$prog" >out 2>&1)
n=$(calls "$work/shctr/MULTI__KTAU_NUM_sys_read/profile.0.0.0" "io")
# TAU's profile line: "io" calls subrs excl incl ...: the metric's incl is field 5
io=$(grep -F '"io" ' "$work/shctr/MULTI__KTAU_NUM_sys_read/profile.0.0.0" 2>/dev/null | awk '{print $5}')
# the kernel's counter area: exit 1 of ktau-ctl counters is a kernel without it
"$ctl" counters --calls 1 all >/dev/null 2>&1
if [ $? -ne 1 ]; then
	if [ -n "$n" ] && [ "$io" = 500 ]; then
		pass "tau guest: -ktau_shctr: io has KTAU_NUM_sys_read 500 exactly (read from the kernel's counter area: no read() of the layer's own)"
	else
		fail "tau guest: -ktau_shctr (counter area)" "io's KTAU_NUM_sys_read is '${io:-none}', expected exactly 500: $(tail -n 3 "$work/shctr/out")"
	fi
elif [ -n "$n" ] && awk -v v="$io" 'BEGIN { exit !(v >= 500 && v <= 520) }'; then
	pass "tau guest: -ktau_shctr: io has KTAU_NUM_sys_read $io (no counter area in this kernel: 500 read()s + the layer's own /proc reads)"
else
	fail "tau guest: -ktau_shctr" "io's KTAU_NUM_sys_read is '${io:-none}', expected 500 + a few: $(tail -n 3 "$work/shctr/out")"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
