#!/bin/sh
# Runs every guest test (t_* next to this script) and relays its lines:
#   PASS: <test>/<check>
#   FAIL: <test>/<check>: <reason>
#   SKIP: <test>/<check>: <what is missing>   (could not run here)
#   INFO: ...            (not a check)
# A test that exits non-zero without a FAIL line, prints no result line, or
# runs longer than TEST_TIMEOUT seconds gets a FAIL line of its own.
# busybox sh compatible.  Usage: run-all.sh [TEST...]   (names without t_)

dir=$(cd "$(dirname "$0")" && pwd)
TEST_TIMEOUT=${TEST_TIMEOUT:-240}
tmp=${TMPDIR:-/tmp}
pass=0
fail=0
skip=0

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
fi

for t in $tests; do
	name=${t##*/}
	name=${name#t_}
	if [ ! -x "$t" ]; then
		echo "FAIL: $name/present: $t is missing or not executable"
		fail=$((fail + 1))
		continue
	fi
	out=$tmp/ktau-guest.$name.out
	limit=$TEST_TIMEOUT
	# t_hostile's two attacks (100 threads, then 4000) take 4-6 minutes
	# on the KASAN kernel under TCG
	[ "$name" = hostile ] && limit=$((TEST_TIMEOUT * 3))
	# run from a neutral directory; stdin from /dev/null
	(cd / && exec timeout "$limit" "$t") </dev/null >"$out" 2>&1
	rc=$?
	cat "$out"
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
echo "INFO: guest tests: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
