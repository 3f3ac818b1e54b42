#!/bin/bash
# `make demo`'s guest run and what it leaves, checked: scripts/demo.sh
# boots the given kernel and guest root (ARCH=arm64: under
# qemu-system-aarch64) into a temporary directory; then
#   - the report: ktau-demo-app exited 0 under ktau-run, its kernel
#     profile and merged profile are there;
#   - the merged TAU profile of its main thread has the app's exact calls
#     under its user routines: main => io => sys_read() and sys_write()
#     256 each, main => net => sys_sendto() and sys_recvfrom() 200 each,
#     main => spawn => sys_wait4() once;
#   - ParaProf's reader and TAU's pprof load tau/ (tau-check, in the
#     project's shared folder);
#   - the host's ktau-report reads the guest's saved profiles, archive and
#     trace (an arm64 guest's too: the formats do not depend on the
#     architecture).
#
#   tests/qemu/check-demo.sh
#
# environment: ARCH (x86_64 or arm64), BUILD (build/), DEMO_KERNEL and
# DEMO_INITRD (scripts/demo.sh's defaults otherwise), KTAU_REPORT (the
# host's, BUILD/user/bin/ktau-report).  make check runs it on arm64 in its
# arm64 phase, with the arm64 suite's kernel and guest root.
# Prints PASS:/FAIL:/SKIP: lines; exits 1 when a check failed.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$top/build}
arch=${ARCH:-x86_64}
check_group=demo-$arch
report=${KTAU_REPORT:-$BUILD/user/bin/ktau-report}
# shellcheck source=tests/lib/check.sh
. "$top/tests/lib/check.sh"
# shellcheck source=tests/lib/shared-dir.sh
. "$top/tests/lib/shared-dir.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$tmp/demo

BUILD=$BUILD ARCH=$arch DEMO_OUT=$out "$top/scripts/demo.sh" >"$tmp/stdout" 2>&1
check runs $? "scripts/demo.sh failed: $(tail -n 5 "$tmp/stdout" | tr '\n' ';')"
if [ ! -s "$out/report.txt" ]; then
	check report 1 "no report.txt"
	exit 1
fi
grep -qx 'Kernel profile of ktau-demo-app and its children (ktau-run, exit status 0):' "$out/report.txt"
check app-exits-0 $? "report: $(head -n 1 "$out/report.txt")"
# the report shows the 3 kernel routines under io with the most inclusive
# time: which 3 depends on where the guest's timer ticks fell (a loaded
# host's TCG guest: an openat or fchmod with a tick in it outranked
# sys_read), so any of them shows the merged callpaths; the exact calls
# of main => io => sys_read() are merged-profile-exact-calls' below
grep -qE '^total +[0-9]+ +[0-9.]+ +100\.00$' "$out/report.txt" &&
	grep -qE '^main => io => sys_[a-z0-9_]+\(\) +[0-9]+ ' "$out/report.txt"
check report-has-both-profiles $? "no kernel profile total or merged callpaths in $out/report.txt"

# calls PATH: the calls of a callpath of the main thread's TAU profile
calls() {
	awk -F'"' -v p="$1" '$2 == p { split($3, f, " "); print f[1]; found = 1; exit }
		END { if (!found) print "none" }' "$out/tau/profile.0.0.0" 2>/dev/null
}
bad=
for want in 'main => io => sys_read()=256' 'main => io => sys_write()=256' \
	'main => net => sys_sendto()=200' 'main => net => sys_recvfrom()=200' \
	'main => spawn => sys_wait4()=1'; do
	got=$(calls "${want%=*}")
	[ "$got" = "${want##*=}" ] || bad="$bad ${want%=*}: $got calls, not ${want##*=};"
done
[ -z "$bad" ]
check merged-profile-exact-calls $? "$bad"

tau_check=$(ktau_shared_dir "$top")/tools/tau-check/check.sh
if [ ! -x "$tau_check" ]; then
	echo "SKIP: $check_group/paraprof-reads-tau: $tau_check not found (the project's shared/ folder: beside the clone, /work/shared or KTAU_SHARED=)"
else
	"$tau_check" "$out/tau" >"$tmp/tau-check" 2>&1
	check paraprof-reads-tau $? "$(grep -E 'FAIL|Error' "$tmp/tau-check" | head -n 3 | tr '\n' ';')"
fi

if [ ! -x "$report" ]; then
	check host-reads-files 1 "no host ktau-report at $report (make tools)"
	exit 1
fi
# the saved profiles: the app's reads between before and after
o=$("$report" --diff "$out/run/before.ktau" "$out/run/after.ktau" 2>&1) &&
	printf '%s\n' "$o" | grep -qE '^read +syscall +[0-9]+ +[0-9]+ +\+[0-9]+'
check host-reads-profiles $? "ktau-report --diff: $(printf '%s\n' "$o" | head -n 3 | tr '\n' ';')"
o=$("$report" --top 1 "$out/demo.ktar" 2>&1) &&
	printf '%s\n' "$o" | grep -q '^# .*: archive of pids all, .*kernel 6\.12'
check host-reads-archive $? "ktau-report demo.ktar: $(printf '%s\n' "$o" | head -n 2 | tr '\n' ';')"
o=$("$report" --noise "$out/demo.ktt" 2>&1) &&
	printf '%s\n' "$o" | grep -q '^# thread [0-9]* (ktau-demo-app)'
check host-reads-trace $? "ktau-report --noise demo.ktt: $(printf '%s\n' "$o" | head -n 2 | tr '\n' ';')"
exit "$fail"
