# shellcheck shell=bash
# Sourced by the check scripts (make check, make check-long):
#
#   summary RESULTS LOG
#
# RESULTS holds the checks' lines: `PASS: name`, `FAIL: name: why` and
# `SKIP: name: what is missing` (a check that could not run here: a tool,
# a package or a kernel feature it needs is missing, and the line says
# which).  summary prints the failed lines under "failed:", the skipped
# ones under "skipped:", the log's name, and then two lines:
#
#   N passed, N failed, N skipped
#   N passed, N failed
#
# The last line is the project's CI contract: `make check` ends with the
# line `N passed, N failed`, and a parser that reads exactly that shape on
# the last line must still find it.  So the count of skips comes on the
# line before, not appended to the last one.
#
# A skip alone does not fail: on a developer's machine without, say,
# otf2-tools, make check passes and lists what it could not check.  With
# KTAU_CHECK_NO_SKIP=1 (.ci/run sets it) every SKIP line counts as a
# failure instead: it is listed under "failed:" as
# `FAIL: skipped in CI: name: what is missing`, and the last line counts it.
#
# Status: 0 when nothing failed, 1 otherwise.
summary() {
	local lines counts passed failed skipped
	lines=$(grep -E '^(PASS|FAIL|SKIP): ' "$1" || true)
	if [ "${KTAU_CHECK_NO_SKIP:-0}" != 0 ]; then
		lines=$(printf '%s\n' "$lines" | sed 's/^SKIP: /FAIL: skipped in CI: /')
	fi
	counts=$(printf '%s\n' "$lines" | awk '/^PASS: /{p++} /^FAIL: /{f++} /^SKIP: /{s++}
		END {print p + 0, f + 0, s + 0}')
	read -r passed failed skipped <<< "$counts"
	if [ "$failed" -gt 0 ]; then
		echo
		echo "failed:"
		printf '%s\n' "$lines" | grep '^FAIL: ' | sed 's/^/  /'
	fi
	if [ "$skipped" -gt 0 ]; then
		echo
		echo "skipped:"
		printf '%s\n' "$lines" | grep '^SKIP: ' | sed 's/^/  /'
	fi
	echo "full log: $2"
	echo "$passed passed, $failed failed, $skipped skipped"
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
