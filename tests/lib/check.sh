# The PASS/FAIL lines of the host-side check scripts, sourced after setting
# check_group (the name before the slash).  `fail` ends up 1 when a check
# failed: the script's exit status.
# shellcheck shell=sh disable=SC2034,SC2154 # fail: read by the caller, check_group: set by it
fail=0

# check NAME STATUS WHY: PASS when STATUS is 0, else FAIL with WHY
check() {
	if [ "$2" -eq 0 ]; then
		echo "PASS: $check_group/$1"
	else
		echo "FAIL: $check_group/$1: $3"
		fail=1
	fi
}
