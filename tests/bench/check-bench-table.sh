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
check_group=bench-table
# shellcheck source=tests/lib/check.sh
. "$top/tests/lib/check.sh"

# A run's lines as the guests print them: every op of the compiled-out
# kernel, ktau off, on, on with the system call group alone, in a task
# without a context word while another's holds the key on (row 3 + 4),
# and after the last word is gone (row 3 + 2).
{
	for row in "nokt 207 399 213 7612 5986" "off 207 399 213 7616 5990" \
		"on 253 445 259 8045 6054" "sysonly 253 445 259 7801 5990" \
		"ctxother 257 449 263 8049 6058" "ctxgone 255 447 261 8045 6054"; do
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
line() { printf '%s\n' "$out" | awk -v l="$1" 'index($0, l) == 1 { print; exit }' | tr -s ' '; }
# a goal line's verdict: met, NOT met or NOT measured
verdict() {
	case $(line "$1") in
	*" NOT met") echo "NOT met" ;;
	*" NOT measured") echo "NOT measured" ;;
	*" met") echo met ;;
	esac
}
# expect NAME LABEL LINE: the first line starting LABEL, spaces squeezed,
# reads LINE
expect() {
	[ "$(line "$2")" = "$3" ]
	check "$1" $? "'$(line "$2")', expected '$3'"
}
expect row-3s '3s ktau on, the syscall group alone' \
	"3s ktau on, the syscall group alone (vs 1) 253 (+46) 445 (+46) 259 (+46) 7801 (+189) 5990 (+4)"
expect pipe-split 'pipe round trip: <= +180' \
	"pipe round trip: <= +180 +433 (4 system calls +189, 2 switches +244) NOT met"
expect syscall-met 'ktau on: <= +52 per syscall' \
	"ktau on: <= +52 per syscall getpid +46, read +46, close +46 met"
expect fault-met 'page fault: <= +70' "page fault: <= +70 +68 met"
# the off row's worst op is the round trip's +4: still within the goal
[ "$(verdict 'switched off: <= +4 on every row')" = met ]
check off-met $? "off goal: '$(line 'switched off:')'"
# not in the run: a goal of its own is NOT measured, a row a dash
expect unmeasured-goal 'merged (user context word): <= +60' \
	"merged (user context word): <= +60 per syscall - NOT measured"
expect unmeasured-row '4 ktau on + user context' "4 ktau on + user context (vs 1) - - - - -"

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

# issue 32: row 4c within 4 of row 3 on each system call, row 4b within 2
expect row-4c '4c ktau on, a task with no word' \
	"4c ktau on, a task with no word, the key on (vs 1) 257 (+50) 449 (+50) 263 (+50) 8049 (+437) 6058 (+72)"
expect key-on-met 'a task with no word, the key on:' \
	"a task with no word, the key on: within 4 of row 3 getpid +4, read +4, close +4 (vs row 3) met"
expect key-gone-met 'the key gone with the last word:' \
	"the key gone with the last word: within 2 of row 3 getpid +2, read +2, close +2 (vs row 3) met"
with() {	# with KEY VALUE: the run with BENCH KEY's value replaced
	sed "s/^BENCH $1 .*/BENCH $1 $2/" "$tmp/run.txt" >"$tmp/with.txt"
	out=$("$table" "$tmp/with.txt" 2>&1)
}
with ctxother.read16 450
[ "$(verdict 'a task with no word, the key on:')" = "NOT met" ]
check key-on-5 $? "read at +5: '$(line 'a task with no word, the key on:')'"
with ctxother.close_ebadf 254
[ "$(verdict 'a task with no word, the key on:')" = met ]
check key-on-less $? "close at -5: '$(line 'a task with no word, the key on:')'"
with ctxgone.getpid 256
[ "$(verdict 'the key gone with the last word:')" = "NOT met" ]
check key-gone-3 $? "getpid at +3: '$(line 'the key gone with the last word:')'"
grep -v '^BENCH ctxother\.' "$tmp/run.txt" >"$tmp/noother.txt"
out=$("$table" "$tmp/noother.txt" 2>&1)
expect key-on-unmeasured 'a task with no word, the key on:' \
	"a task with no word, the key on: within 4 of row 3 - NOT measured"

# without row 3s the round trip is printed whole
grep -v '^BENCH sysonly\.' "$tmp/run.txt" >"$tmp/nosys.txt"
out=$("$table" "$tmp/nosys.txt" 2>&1)
expect pipe-whole 'pipe round trip: <= +180' "pipe round trip: <= +180 +433 NOT met"

# the third round: each of the round trip's two switches (row 3 over row
# 3s, halved) at most +80, the round trip +348, the page fault +60
out=$("$table" "$tmp/run.txt" 2>&1)
expect switch-each 'blocking switch: <= +80 each' \
	"blocking switch: <= +80 each +122 each (2 in a round trip: +244) NOT met"
expect rtt-348 'pipe round trip: <= +348' "pipe round trip: <= +348 +433 NOT met"
expect fault-60 'page fault: <= +60' "page fault: <= +60 +68 NOT met"
edge 7861	# row 3s adds 88 here: (249 - 88) / 2 = 80.5 a switch
[ "$(verdict 'blocking switch: <= +80 each')" = "NOT met" ]
check switch-80.5 $? "'$(line 'blocking switch:')'"
edge 7860
[ "$(verdict 'blocking switch: <= +80 each')" = met ]
check switch-80 $? "'$(line 'blocking switch:')'"
edge 7961
[ "$(verdict 'pipe round trip: <= +348')" = "NOT met" ]
check rtt-349 $? "'$(line 'pipe round trip: <= +348')'"
edge 7960
[ "$(verdict 'pipe round trip: <= +348')" = met ]
check rtt-348-met $? "'$(line 'pipe round trip: <= +348')'"
out=$("$table" "$tmp/nosys.txt" 2>&1)
expect switch-unmeasured 'blocking switch: <= +80 each' \
	"blocking switch: <= +80 each - NOT measured"
sed 's/^BENCH on.page_fault .*/BENCH on.page_fault 6046/' "$tmp/run.txt" >"$tmp/fault.txt"
out=$("$table" "$tmp/fault.txt" 2>&1)
[ "$(verdict 'page fault: <= +60')" = met ]
check fault-60-met $? "'$(line 'page fault: <= +60')'"

# a results file that cannot be read: a message and status 1
out=$("$table" "$tmp/absent.txt" 2>&1)
rc=$?
[ $rc -eq 1 ] && [ "$out" = "bench-table: cannot read $tmp/absent.txt" ]
check unreadable $? "status $rc, output '$out'"
exit $fail
