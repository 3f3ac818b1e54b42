# shellcheck shell=bash
# Sourced by the check scripts: summary RESULTS LOG prints the failed
# checks of RESULTS (PASS:/FAIL: lines), the log's name and the last line
# "N passed, N failed"; its status is 0 when nothing failed.
summary() {
	local passed failed
	passed=$(grep -c '^PASS: ' "$1")
	failed=$(grep -c '^FAIL: ' "$1")
	if [ "$failed" -gt 0 ]; then
		echo
		echo "failed:"
		grep '^FAIL: ' "$1" | sed 's/^/  /'
	fi
	echo "full log: $2"
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
