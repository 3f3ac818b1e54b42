#!/bin/sh
# The host half of the guest test t_report: the archive ktau-archive made in
# the guest (copied to the 9p share as guest-report.ktar) read on the host
# by ktau-report, with the exact counts of the guest's workload.
#
#   tests/qemu/check-guest-archive.sh SHARE_DIR KTAU_REPORT
#
# Prints PASS:/FAIL: lines; exits 1 when a check failed.
set -u
share=${1:?usage: check-guest-archive.sh SHARE_DIR KTAU_REPORT}
report=${2:?usage: check-guest-archive.sh SHARE_DIR KTAU_REPORT}
archive=$share/guest-report.ktar
check_group=host-archive
# shellcheck source=tests/lib/check.sh
. "$(dirname "$0")/../lib/check.sh"

if [ ! -f "$archive" ]; then
	check present 1 "no $archive: did the guest run t_report with the share mounted?"
	exit 1
fi
out=$("$report" --groups syscall "$archive" 2>&1)
check report-runs $? "$report $archive: $out"
# "getpid  syscall  1000 ...": name, group and calls of the row
row() { printf '%s\n' "$out" | awk -v n="$1" '$1 == n { print $1, $2, $3; exit }'; }
[ "$(row getpid)" = "getpid syscall 1000" ]
check getpid $? "getpid row '$(row getpid)', expected 1000 calls"
[ "$(row getppid)" = "getppid syscall 250" ]
check getppid $? "getppid row '$(row getppid)', expected 250 calls"
printf '%s\n' "$out" | grep -q '^# .*: archive of pids [0-9]*, host .*, kernel 6\.12'
check manifest $? "no archive line with the guest's kernel in: $(printf '%s\n' "$out" | head -n 1)"
exit $fail
