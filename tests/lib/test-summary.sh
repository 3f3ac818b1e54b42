#!/bin/bash
# summary() of scripts/summary.sh on made-up results, whole output compared:
# the counts of PASS, FAIL and SKIP lines, the "failed:" and "skipped:"
# lists, the last two lines (`N passed, N failed, N skipped`, then the CI
# contract's `N passed, N failed`), the status (a skip alone passes), and
# KTAU_CHECK_NO_SKIP=1 turning every skip into a failure; that .ci/run sets
# it and runs make check; and run-guest.sh counting the guest's SKIP lines
# with its PASS and FAIL lines (--check-log, on a made-up console log).
#
# Prints PASS/FAIL lines (check group "summary"); exits 1 when one failed.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
check_group=summary
# shellcheck source=tests/lib/check.sh
. "$top/tests/lib/check.sh"
# shellcheck source=scripts/summary.sh
. "$top/scripts/summary.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The CI contract: the plain closing line a CI parser reads.
contract='^[0-9]+ passed, [0-9]+ failed$'

# expect NAME NO_SKIP RESULTS STATUS OUTPUT: summary of RESULTS (the log
# named LOG), with KTAU_CHECK_NO_SKIP=NO_SKIP ("": unset), prints exactly
# OUTPUT, ends on the contract's line and returns STATUS.
expect() {
	local name=$1 no_skip=$2 want_status=$4 want=$5 out status last
	printf '%s' "$3" > "$tmp/results"
	out=$(
		if [ -n "$no_skip" ]; then
			export KTAU_CHECK_NO_SKIP=$no_skip
		else
			unset KTAU_CHECK_NO_SKIP
		fi
		summary "$tmp/results" LOG
	)
	status=$?
	last=${out##*$'\n'}
	if [ "$out" != "$want" ]; then
		check "$name" 1 "the output differs from the expected one (- expected, + printed):"
		diff <(printf '%s\n' "$want") <(printf '%s\n' "$out") | sed 's/^/    /'
	elif [ "$status" -ne "$want_status" ]; then
		check "$name" 1 "status $status, expected $want_status"
	elif ! [[ $last =~ $contract ]]; then
		check "$name" 1 "the last line '$last' is not 'N passed, N failed'"
	else
		check "$name" 0 ""
	fi
}

mixed='==> a phase
PASS: unit/one
INFO: not a check
PASS: unit/two
FAIL: deb/lintian: E: some-tag
  PASS: indented, not counted
SKIP: otf2-read: otf2-print not installed (Debian package otf2-tools)
xSKIP: glued, not counted
SKIP: guest/mpi: Open MPI is not in this initramfs
PASS: install/help
'

expect counts-and-lists "" "$mixed" 1 '
failed:
  FAIL: deb/lintian: E: some-tag

skipped:
  SKIP: otf2-read: otf2-print not installed (Debian package otf2-tools)
  SKIP: guest/mpi: Open MPI is not in this initramfs
full log: LOG
3 passed, 1 failed, 2 skipped
3 passed, 1 failed'

skips='PASS: a
SKIP: b: go not installed (Debian package golang-go)
PASS: c
'

expect skip-alone-passes "" "$skips" 0 '
skipped:
  SKIP: b: go not installed (Debian package golang-go)
full log: LOG
2 passed, 0 failed, 1 skipped
2 passed, 0 failed'

expect no-skip-0-is-off 0 "$skips" 0 '
skipped:
  SKIP: b: go not installed (Debian package golang-go)
full log: LOG
2 passed, 0 failed, 1 skipped
2 passed, 0 failed'

expect ci-skip-is-a-failure 1 "$skips" 1 '
failed:
  FAIL: skipped in CI: b: go not installed (Debian package golang-go)
full log: LOG
2 passed, 1 failed, 0 skipped
2 passed, 1 failed'

expect ci-mixed 1 "$mixed" 1 '
failed:
  FAIL: deb/lintian: E: some-tag
  FAIL: skipped in CI: otf2-read: otf2-print not installed (Debian package otf2-tools)
  FAIL: skipped in CI: guest/mpi: Open MPI is not in this initramfs
full log: LOG
3 passed, 3 failed, 0 skipped
3 passed, 3 failed'

expect all-passed 1 'PASS: a
PASS: b
' 0 'full log: LOG
2 passed, 0 failed, 0 skipped
2 passed, 0 failed'

expect nothing "" '' 0 'full log: LOG
0 passed, 0 failed, 0 skipped
0 passed, 0 failed'

# .ci/run: make check with every skip a failure
ci=$top/.ci/run
grep -qx 'export KTAU_CHECK_NO_SKIP=1' "$ci"
check ci-run-no-skip $? "$ci does not export KTAU_CHECK_NO_SKIP=1"
[ "$(grep -v '^[[:space:]]*\(#\|$\)' "$ci" | tail -n 1)" = "make check" ]
check ci-run-make-check $? "the last command of $ci is not 'make check'"

# run-guest.sh counts the guest's SKIP lines with its PASS and FAIL lines
# and forwards them in their order (the console glues codes in front)
printf '%s\n' 'booting' 'PASS: counts/getpid' $'\e[0mSKIP: mpi/openmpi: no Open MPI' \
	'INFO: guest tests: 1 passed, 0 failed, 1 skipped' 'FAIL: udp/lo-up: no lo' \
	'KTAU-GUEST-DONE' > "$tmp/console.log"
out=$("$top/tests/qemu/run-guest.sh" --check-log "$tmp/console.log" 2> "$tmp/err")
status=$?
want='PASS: counts/getpid
SKIP: mpi/openmpi: no Open MPI
FAIL: udp/lo-up: no lo
PASS: kernel-log-clean
PASS: guest-completed'
counted=$(grep -c '3 passed, 1 failed, 1 skipped$' "$tmp/err")
if [ "$out" != "$want" ] || [ "$status" -ne 1 ] || [ "$counted" -ne 1 ]; then
	check run-guest-counts-skips 1 "status $status; stdout and stderr:"
	printf '%s\n' "$out" "$(cat "$tmp/err")" | sed 's/^/    /'
else
	check run-guest-counts-skips 0 ""
fi

# a guest that only skips has given results
printf '%s\n' 'SKIP: mpi/openmpi: no Open MPI' 'KTAU-GUEST-DONE' > "$tmp/console.log"
out=$("$top/tests/qemu/run-guest.sh" --check-log "$tmp/console.log" 2> "$tmp/err")
status=$?
[ "$status" -eq 0 ] && ! printf '%s\n' "$out" | grep -q 'guest-results'
check run-guest-skips-are-results $? "status $status: $(printf '%s\n' "$out" | grep -m 1 '^FAIL')"

exit "$fail"
