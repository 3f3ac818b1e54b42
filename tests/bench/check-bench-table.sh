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

# rows "ROW GETPID READ CLOSE PIPE_RTT FAULT"...: their BENCH lines
rows() {
	for row in "$@"; do
		# shellcheck disable=SC2086 # the words of the row
		set -- $row
		echo "BENCH $1.getpid $2"
		echo "BENCH $1.read16 $3"
		echo "BENCH $1.close_ebadf $4"
		echo "BENCH $1.pipe_rtt $5"
		echo "BENCH $1.page_fault $6"
	done
}
# A run's lines as the guests print them: every op of the compiled-out
# kernel, ktau off, on, on with the system call group alone, in a task
# without a context word while another's holds the key on (row 3 + 4),
# and after the last word is gone (row 3 + 2).
{
	rows "nokt 207 399 213 7612 5986" "off 207 399 213 7616 5990" \
		"on 253 445 259 8045 6054" "sysonly 253 445 259 7801 5990" \
		"ctxother 257 449 263 8049 6058" "ctxgone 255 447 261 8045 6054"
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
# first_line NAME TEXT: the table starts with TEXT
first_line() {
	case $(printf '%s\n' "$out" | head -n 1) in
	"$2"*) true ;;
	*) false ;;
	esac
	check "$1" $? "'$(printf '%s\n' "$out" | head -n 1)'"
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

# issue 35: the section "Whole programs", only when the run has them
out=$("$table" "$tmp/run.txt" 2>&1)
case $out in *"Whole programs"*) false ;; esac
check programs-absent $? "a run without whole programs printed the section"
# each workload of the ktau kernel at its goal's edge: row 3 exactly 1 %
# over row 1 (mpi exactly 0.1 %), trace + profile exactly 3 %; one peer
# row not measured (its reason), the static programs' merged row n/a
{
	for w in "tree 400000000" "text 200000000" "proc 300000000" "mpi 250000000"; do
		# shellcheck disable=SC2086 # the words of the workload
		set -- $w
		echo "BENCH prog.$1.nokt $2"
		echo "BENCH prog.$1.off $2"
		echo "BENCH prog.$1.on $(($2 + $2 / 100))"
		echo "BENCH prog.$1.traceprof $(($2 + 3 * $2 / 100))"
		echo "BENCH prog.$1.trace_base $(($2 + $2 / 20))"
		echo "BENCH prog.$1.ftrace_syscalls $(($2 + $2 / 10))"
		echo "BENCH prog.$1.strace $((2 * $2))"
		echo "BENCH prog.$1.perf_trace $((3 * $2))"
		echo "BENCH prog.$1.bpftrace_latency $(($2 + $2 / 5))"
		[ "$1" = mpi ] && echo "BENCH prog.$1.merged $(($2 + $2 / 25))" ||
			echo "BENCH prog.$1.merged.unavailable n/a (static)"
		echo "BENCH prog.$1.bpftrace_count.unavailable bpftrace did not attach: ERROR: no BTF"
	done
	echo "BENCH prog.tree.on.syscalls 60600"
	echo "BENCH prog.tree.on.faults 404"
	echo "BENCH prog.tree.on.ctxsw 8080"
	echo "BENCH prog.proc.on.execve 501"
} >"$tmp/prog.txt"
sed 's/^BENCH prog.mpi.on .*/BENCH prog.mpi.on 250250000/' "$tmp/prog.txt" >"$tmp/prog-edge.txt"
out=$("$table" --programs "$tmp/prog-edge.txt" 2>&1)
check programs-runs $? "$out"
first_line programs-only "Whole programs:"
expect programs-row-3 '3 ktau on (vs 1)' "3 ktau on (vs 1) +1.00 % +1.00 % +1.00 % +0.10 %"
expect programs-row-1 '1 ktau compiled out (instructions)' \
	"1 ktau compiled out (instructions) 400000000 200000000 300000000 250000000"
expect programs-merged '4 merged: libktau-mpi preloaded' \
	"4 merged: libktau-mpi preloaded (vs 1) n/a (static) n/a (static) n/a (static) +4.00 %"
expect programs-peer-base '5d strace -c -f (vs 5)' "5d strace -c -f (vs 5) +90.48 % +90.48 % +90.48 % +90.48 %"
expect programs-unavailable '5f bpftrace count' \
	"5f bpftrace count per (pid, syscall) (vs 5) unavailable unavailable unavailable unavailable"
expect programs-reason '  unavailable, row 5f' \
	" unavailable, row 5f: file tree: bpftrace did not attach: ERROR: no BTF; text: bpftrace did not attach: ERROR: no BTF; process: bpftrace did not attach: ERROR: no BTF; mpi: bpftrace did not attach: ERROR: no BTF"
expect programs-per-m 'system calls' "system calls 150.0 - - -"
expect programs-execve 'execve() calls' "execve() calls in the run (not per million) - - 501 -"
expect programs-on-1 'ktau on: <= 1 % on every workload' \
	"ktau on: <= 1 % on every workload file tree +1.00 %, text +1.00 %, process +1.00 %, mpi +0.10 % met"
expect programs-mpi-0.1 'ktau on: <= 0.1 % on the MPI' "ktau on: <= 0.1 % on the MPI workload mpi +0.10 % met"
expect programs-trace-3 'trace + profile: <= 3 %' \
	"trace + profile: <= 3 % on every workload file tree +3.00 %, text +3.00 %, process +3.00 %, mpi +3.00 % met"
expect programs-peers 'every peer row measured' \
	"every peer row measured in the same run no: 5f bpftrace did not attach: ERROR: no BTF NOT met"
# the spread of a row's runs, from its most instructions (.max)
{ cat "$tmp/prog-edge.txt"; echo "BENCH prog.tree.on.max 424200000"; } >"$tmp/prog-max.txt"
out=$("$table" --programs "$tmp/prog-max.txt" 2>&1)
expect programs-spread 'row 3, ktau on' "row 3, ktau on 5.00 % - - -"
# one instruction over each edge
sed -e 's/^BENCH prog.mpi.on .*/BENCH prog.mpi.on 250250001/' \
	-e 's/^BENCH prog.text.on .*/BENCH prog.text.on 202000001/' \
	-e 's/^BENCH prog.proc.traceprof .*/BENCH prog.proc.traceprof 309000001/' \
	"$tmp/prog-edge.txt" >"$tmp/prog-over.txt"
out=$("$table" --programs "$tmp/prog-over.txt" 2>&1)
[ "$(verdict 'ktau on: <= 1 % on every workload')" = "NOT met" ]
check programs-on-over $? "'$(line 'ktau on: <= 1 %')'"
[ "$(verdict 'ktau on: <= 0.1 % on the MPI')" = "NOT met" ]
check programs-mpi-over $? "'$(line 'ktau on: <= 0.1 %')'"
[ "$(verdict 'trace + profile: <= 3 %')" = "NOT met" ]
check programs-trace-over $? "'$(line 'trace + profile: <= 3 %')'"
# the whole MPI workload not in the run: its cells a dash, goals on it
# NOT measured, and the peers' goal names what is missing
grep -v '^BENCH prog\.mpi\.' "$tmp/prog-edge.txt" >"$tmp/prog-nompi.txt"
out=$("$table" --programs "$tmp/prog-nompi.txt" 2>&1)
check programs-nompi-runs $? "$out"
expect programs-nompi-row '3 ktau on (vs 1)' "3 ktau on (vs 1) +1.00 % +1.00 % +1.00 % -"
[ "$(verdict 'ktau on: <= 0.1 % on the MPI')" = "NOT measured" ]
check programs-nompi-goal $? "'$(line 'ktau on: <= 0.1 %')'"
grep -v '^BENCH prog\..*bpftrace_count' "$tmp/prog-edge.txt" >"$tmp/prog-peers.txt"
out=$("$table" --programs "$tmp/prog-peers.txt" 2>&1)
expect programs-peers-met 'every peer row measured' \
	"every peer row measured in the same run no: 5f not in the run NOT met"
# the full table: the section after the others
cat "$tmp/run.txt" "$tmp/prog-edge.txt" >"$tmp/all.txt"
out=$("$table" "$tmp/all.txt" 2>&1)
expect programs-in-table '3 ktau on (vs 1)' "3 ktau on (vs 1) 253 (+46) 445 (+46) 259 (+46) 8045 (+433) 6054 (+68)"
[ "$(printf '%s\n' "$out" | grep -c '^Whole programs:')" = 1 ]
check programs-in-table-section $? "the full table has no 'Whole programs' section"
# the floor of each row: the file tree's 60 600 calls at +46, 404 faults
# at +68 and 8 080 switches at (433 - 189) / 2 = 122, in 404 M
# instructions, 0.94 %; with the trace, calls at +115 and faults at +164
# (no switches), 1.74 %; the workloads without counts a dash
expect programs-floor-on 'ktau on: calls, faults, switches' \
	"ktau on: calls, faults, switches at row 3 0.94 % - - -"
expect programs-floor-trace-missing 'trace + profile: calls, faults' \
	"trace + profile: calls, faults at row 6a - - - -"
{ cat "$tmp/all.txt"; rows "traceprof 322 514 328 8300 6150"; } >"$tmp/all-trace.txt"
out=$("$table" "$tmp/all-trace.txt" 2>&1)
expect programs-floor-trace 'trace + profile: calls, faults' \
	"trace + profile: calls, faults at row 6a 1.74 % - - -"

# issue 36, make bench ARCH=arm64: its rows and goals (on <= +60 per
# system call, in and off <= +4), each at its edge and one over; what is
# x86-only named, and none of the x86 goals
{
	rows "nokt 301 517 305 9120 7010" "off 305 521 309 9124 7014" \
		"on 361 577 365 9400 7070" "ctx 362 578 366 9404 7074"
	echo "BENCH calibrate.rdtsc 2.000"
} >"$tmp/arm64.txt"
arm64() {	# arm64 FILE: the arm64 table of FILE in $out
	out=$("$table" --arch arm64 "$1" 2>&1)
}
arm64 "$tmp/arm64.txt"
check arm64-runs $? "$out"
first_line arm64-title "ktau overhead on arm64: "
expect arm64-row-3 '3 ktau on (vs 1)' "3 ktau on (vs 1) 361 (+60) 577 (+60) 365 (+60) 9400 (+280) 7070 (+60)"
expect arm64-on-60 'ktau on: <= 60 added' \
	"ktau on: <= 60 added instructions per syscall getpid +60, read +60, close +60 met"
expect arm64-off-4 'ktau in and off: <= 4' "ktau in and off: <= 4 added per syscall getpid +4, read +4, close +4 met"
expect arm64-merged 'merged (user context word): <= 60' \
	"merged (user context word): <= 60 per syscall getpid +61, read +61, close +61 NOT met"
expect arm64-fault 'page fault:' "page fault: +60 with ktau on, +4 in and off (no arm64 goal; x86 has +60 on)"
expect arm64-clock 'clock check:' \
	"clock check: a 2-instruction loop reads 2.000 per iteration by CNTVCT_EL0 (scaled to ns), - by clock_gettime"
expect arm64-unmeasured-row '3s ktau on, the syscall group alone' "3s ktau on, the syscall group alone (vs 1) - - - - -"
case $out in *"x86-only for now, not run on arm64: rows 5-5g"*) true ;; *) false ;; esac
check arm64-x86-only-named $? "$out"
case $out in *"5 tracing kernel"* | *"goal: the first targets"* | *"NOT measured"*) false ;; esac
check arm64-no-x86-goals $? "$out"
sed -e 's/^BENCH on.read16 .*/BENCH on.read16 578/' -e 's/^BENCH off.close_ebadf .*/BENCH off.close_ebadf 310/' \
	"$tmp/arm64.txt" >"$tmp/arm64-over.txt"
arm64 "$tmp/arm64-over.txt"
[ "$(verdict 'ktau on: <= 60 added')" = "NOT met" ]
check arm64-on-61 $? "'$(line 'ktau on: <= 60 added')'"
[ "$(verdict 'ktau in and off: <= 4')" = "NOT met" ]
check arm64-off-5 $? "'$(line 'ktau in and off: <= 4')'"
grep -v '^BENCH off\.' "$tmp/arm64.txt" >"$tmp/arm64-nooff.txt"
arm64 "$tmp/arm64-nooff.txt"
expect arm64-off-unmeasured 'ktau in and off: <= 4' "ktau in and off: <= 4 added per syscall - NOT measured"
out=$("$table" --arch mips "$tmp/arm64.txt" 2>&1)
rc=$?
[ $rc -eq 2 ]
check arm64-bad-arch $? "--arch mips: status $rc, '$out'"

# a results file that cannot be read: a message and status 1
out=$("$table" "$tmp/absent.txt" 2>&1)
rc=$?
[ $rc -eq 1 ] && [ "$out" = "bench-table: cannot read $tmp/absent.txt" ]
check unreadable $? "status $rc, output '$out'"
exit $fail
