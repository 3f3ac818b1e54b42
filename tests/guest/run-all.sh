#!/bin/sh
# Runs every guest test (t_* next to this script) and relays its lines:
#   PASS: <test>/<check>
#   FAIL: <test>/<check>: <reason>
#   SKIP: <test>/<check>: <what is missing>   (could not run here)
#   INFO: ...            (not a check)
#   X86-ONLY: <test>: <why>   (a test of an x86-only kernel path, on another
#                         architecture: the file x86-only next to this script)
# A test that exits non-zero without a FAIL line, prints no result line, or
# runs longer than TEST_TIMEOUT seconds gets a FAIL line of its own.
# busybox sh compatible.  Usage: run-all.sh [TEST...]   (names without t_)

dir=$(cd "$(dirname "$0")" && pwd)
TEST_TIMEOUT=${TEST_TIMEOUT:-240}
tmp=${TMPDIR:-/tmp}
pass=0
fail=0
skip=0
x86only=0

# x86_only NAME: the reason NAME is x86's alone, if the x86-only file
# (installed for other architectures only) lists it
x86_only() {
	[ -f "$dir/x86-only" ] && sed -n "s/^$1 //p" "$dir/x86-only"
}

if [ $# -gt 0 ]; then
	tests=
	for n in "$@"; do tests="$tests $dir/t_${n#t_}"; done
else
	# t_kmod spends every function id of the boot at its end, and
	# t_ktau_ctl and t_control switch recording off and on: they run last,
	# so that a failure of their clean-up cannot spoil the other tests
	tests=$(ls "$dir"/t_* 2>/dev/null |
		grep -v -e '/t_control$' -e '/t_kmod$' -e '/t_ktau_ctl$')
	for last in t_kmod t_ktau_ctl t_control; do
		[ -e "$dir/$last" ] && tests="$tests $dir/$last"
	done
	if [ -f "$dir/x86-only" ]; then
		for n in $(sed 's/ .*//' "$dir/x86-only"); do tests="$tests $dir/t_$n"; done
	fi
fi

for t in $tests; do
	name=${t##*/}
	name=${name#t_}
	why=$(x86_only "$name")
	if [ -n "$why" ] && [ ! -e "$t" ]; then
		echo "X86-ONLY: $name: $why"
		x86only=$((x86only + 1))
		continue
	fi
	if [ ! -x "$t" ]; then
		echo "FAIL: $name/present: $t is missing or not executable"
		fail=$((fail + 1))
		continue
	fi
	out=$tmp/ktau-guest.$name.out
	limit=$TEST_TIMEOUT
	# t_hostile's two attacks (100 threads, then 4000) take 4-6 minutes
	# on the KASAN kernel under TCG, 12.8 on a host with two other jobs
	[ "$name" = hostile ] && limit=$((TEST_TIMEOUT * 4))
	# t_fair's last part, 1000 threads x 200 new contexts, took over 240 s
	# there on a host with two other jobs
	[ "$name" = fair ] && limit=$((TEST_TIMEOUT * 2))
	# t_stress's two exact phases took 180 s on arm64's KASAN kernel
	# (make check-long), its allocation failures after them past 240
	[ "$name" = stress ] && limit=$((TEST_TIMEOUT * 2))
	# t_release's rounds go on until one had a slow child: up to 32, and
	# 64 with cpu.max, about 230 s on arm64's check kernel when few had
	[ "$name" = release ] && limit=$((TEST_TIMEOUT * 2))
	# t_mpi's two jobs take 90-110 s each on the KASAN kernel of a slow
	# host (MPI_Init of 4 ranks), each up to its own 400 s limit
	[ "$name" = mpi ] && limit=$((TEST_TIMEOUT * 4))
	started=$(date +%s)
	# run from a neutral directory; stdin from /dev/null
	(cd / && exec timeout "$limit" "$t") </dev/null >"$out" 2>&1
	rc=$?
	cat "$out"
	# where a run's time goes (the guest's clock: real time under TCG)
	echo "INFO: $name: $(($(date +%s) - started)) s"
	np=$(grep -c '^PASS: ' "$out")
	nf=$(grep -c '^FAIL: ' "$out")
	ns=$(grep -c '^SKIP: ' "$out")
	if [ "$rc" -ne 0 ] && [ "$nf" -eq 0 ]; then
		if [ "$rc" -ge 124 ] && [ "$rc" -le 143 ] && [ "$rc" -ne 134 ] && [ "$rc" -ne 139 ]; then
			why="killed or timed out after ${limit}s? (exit status $rc)"
		else
			why="exit status $rc without a FAIL line (crashed?)"
		fi
		echo "FAIL: $name/exit: $why"
		nf=$((nf + 1))
	elif [ $((np + nf + ns)) -eq 0 ]; then
		echo "FAIL: $name/output: no PASS/FAIL/SKIP line (exit status $rc)"
		nf=1
	fi
	pass=$((pass + np))
	fail=$((fail + nf))
	skip=$((skip + ns))
	rm -f "$out"
done
if [ -f "$dir/x86-only" ]; then
	echo "INFO: guest tests: $pass passed, $fail failed, $skip skipped, $x86only x86-only"
else
	echo "INFO: guest tests: $pass passed, $fail failed, $skip skipped"
fi
[ "$fail" -eq 0 ]
