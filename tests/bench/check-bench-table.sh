#!/bin/sh
# scripts/bench-table.sh on fixed BENCH lines: the rows with what each adds
# over its base, each goal's verdict from the values it is given, the pipe
# round trip split into its system calls (row 3s) and its switches, and
# "NOT measured" (never a failure) for what a run did not measure.
#
#   tests/bench/check-bench-table.sh
#
# Prints PASS:/FAIL: lines; exits 1 when a check failed.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
table=$top/scripts/bench-table.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

check() {	# check NAME CONDITION-STATUS WHY
	if [ "$2" -eq 0 ]; then
		echo "PASS: bench-table/$1"
	else
		echo "FAIL: bench-table/$1: $3"
		fail=1
	fi
}

# A run's lines as the guests print them: every op of the compiled-out
# kernel, ktau off, on, and on with the system call group alone.
{
	for row in "nokt 207 399 213 7612 5986" "off 207 399 213 7616 5990" \
		"on 253 445 259 8045 6054" "sysonly 253 445 259 7801 5990"; do
		# shellcheck disable=SC2086 # the words of the row
		set -- $row
		echo "BENCH $1.getpid $2"
		echo "BENCH $1.read16 $3"
		echo "BENCH $1.close_ebadf $4"
		echo "BENCH $1.pipe_rtt $5"
		echo "BENCH $1.page_fault $6"
	done
	echo "BENCH mem.typical_task 1016"
} >"$tmp/run.txt"

out=$("$table" "$tmp/run.txt" 2>&1)
check runs $? "$out"
# the label, then each op's value and what it adds over row 1
line() { printf '%s\n' "$out" | grep -F -- "$1" | head -n 1 | tr -s ' '; }
# a goal line's verdict: met, NOT met or NOT measured
verdict() {
	case $(line "$1") in
	*" NOT met") echo "NOT met" ;;
	*" NOT measured") echo "NOT measured" ;;
	*" met") echo met ;;
	esac
}
[ "$(line '3s ktau on, the syscall group alone')" = \
  "3s ktau on, the syscall group alone (vs 1) 253 (+46) 445 (+46) 259 (+46) 7801 (+189) 5990 (+4)" ]
check row-3s $? "row 3s: '$(line '3s ktau on')'"
[ "$(line 'pipe round trip: <= +180')" = \
  "pipe round trip: <= +180 +433 (4 system calls +189, 2 switches +244) NOT met" ]
check pipe-split $? "pipe goal: '$(line 'pipe round trip:')'"
[ "$(line 'ktau on: <= +52 per syscall')" = \
  "ktau on: <= +52 per syscall getpid +46, read +46, close +46 met" ]
check syscall-met $? "syscall goal: '$(line 'ktau on: <= +52')'"
[ "$(line 'page fault: <= +70')" = "page fault: <= +70 +68 met" ]
check fault-met $? "fault goal: '$(line 'page fault: <= +70')'"
# the off row's worst op is the round trip's +4: still within the goal
[ "$(verdict 'switched off: <= +4 on every row')" = met ]
check off-met $? "off goal: '$(line 'switched off:')'"
# not in the run: a goal of its own is NOT measured, a row a dash
[ "$(line 'merged (user context word): <= +60')" = \
  "merged (user context word): <= +60 per syscall - NOT measured" ]
check unmeasured-goal $? "merged goal: '$(line 'merged (user context')'"
[ "$(line '4 ktau on + user context')" = "4 ktau on + user context (vs 1) - - - - -" ]
check unmeasured-row $? "row 4: '$(line '4 ktau on + user')'"

# one more instruction in the round trip than +180 allows, then none
edge() {	# edge PIPE_RTT: the run with row 3's round trip at PIPE_RTT
	sed -e "s/^BENCH on.pipe_rtt .*/BENCH on.pipe_rtt $1/" \
		-e 's/^BENCH sysonly.pipe_rtt .*/BENCH sysonly.pipe_rtt 7700/' \
		"$tmp/run.txt" >"$tmp/edge.txt"
	out=$("$table" "$tmp/edge.txt" 2>&1)
}
edge 7793
[ "$(verdict 'pipe round trip: <= +180')" = "NOT met" ]
check pipe-181 $? "at +181: '$(line 'pipe round trip:')'"
edge 7792
[ "$(verdict 'pipe round trip: <= +180')" = met ]
check pipe-180 $? "at +180: '$(line 'pipe round trip:')'"

# without row 3s the round trip is printed whole
grep -v '^BENCH sysonly\.' "$tmp/run.txt" >"$tmp/nosys.txt"
out=$("$table" "$tmp/nosys.txt" 2>&1)
[ "$(line 'pipe round trip: <= +180')" = "pipe round trip: <= +180 +433 NOT met" ]
check pipe-whole $? "without row 3s: '$(line 'pipe round trip:')'"

# a results file that cannot be read: a message and status 1
out=$("$table" "$tmp/absent.txt" 2>&1)
rc=$?
[ $rc -eq 1 ] && [ "$out" = "bench-table: cannot read $tmp/absent.txt" ]
check unreadable $? "status $rc, output '$out'"
exit $fail
