#!/bin/bash
# Print the `make bench` table from the guests' "BENCH KEY VALUE" lines
# (bench/guest-bench.sh), with each goal (the first targets, per call
# and per event, a shared node's, the shared counters', the third
# round's, trace mode's), its measured value and
# "met" or "NOT met", and each peer's
# added cost as a multiple of ktau's.  A missing value prints as "-" and
# its goal as "NOT measured"; the table never fails on a goal.  When the
# run has whole programs (issue 35: "BENCH prog.WORKLOAD.ROW" lines), the
# section "Whole programs" follows: each row as % over its base, the
# counts per million instructions, and its goals.
#
#   scripts/bench-table.sh [--arch arm64] [--programs] RESULTS
#
# --programs: the section "Whole programs" alone (scripts/bench.sh --role
# programs).
# --arch arm64: the table of `make bench ARCH=arm64` (issue 36): its
# per-call rows and the arm64 goals (ktau on <= +60 per system call, in
# and off <= +4); what is x86-only for now is named, not printed as
# "NOT measured".
set -euo pipefail

only_programs=0
arch=x86_64
if [ "${1:-}" = --arch ]; then
	case ${2:-} in
	arm64) arch=arm64 ;;
	x86_64) ;;
	*) echo "bench-table: --arch x86_64 or arm64" >&2; exit 2 ;;
	esac
	shift 2
fi
if [ "${1:-}" = --programs ]; then
	only_programs=1
	shift
fi
results=${1:?usage: bench-table.sh [--arch arm64] [--programs] RESULTS}
[ -r "$results" ] || { echo "bench-table: cannot read $results" >&2; exit 1; }

awk -v only_programs="$only_programs" -v arch="$arch" '
$1 == "BENCH" {
	key = $2
	$1 = ""; $2 = ""
	sub(/^ +/, "")
	v[key] = $0
}
function has(k) { return (k in v) && v[k] != "" }
# a signed whole number; never "-0"
function signed(x,    s) {
	s = sprintf("%+.0f", x)
	return s == "-0" ? "+0" : s
}
function num(k) { return v[k] + 0 }
# the cell of op in row r: its instructions, and what it adds over base
function cell(r, op, base,    s) {
	if (!has(r "." op))
		return "-"
	s = sprintf("%.0f", num(r "." op))
	if (base != "" && has(base "." op))
		s = s " (" signed(num(r "." op) - num(base "." op)) ")"
	return s
}
function row(label, r, base,    i, line) {
	if (has(r ".unavailable")) {
		printf "%-50s not measured: %s\n", label, v[r ".unavailable"]
		return
	}
	line = sprintf("%-50s", label)
	for (i = 1; i <= nops; i++)
		line = line sprintf(" %17s", cell(r, ops[i], base))
	print line
}
# the largest added instructions over the plain system calls, and each
function added(r, base,    i, m, d, op) {
	m = ""
	each = ""
	for (i = 1; i <= 3; i++) {
		op = ops[i]
		if (!has(r "." op) || !has(base "." op))
			return ""
		d = num(r "." op) - num(base "." op)
		if (m == "" || d > m)
			m = d
		each = each (i > 1 ? ", " : "") names[i] " " signed(d)
	}
	return m
}
# the added instructions of op in row r over base; "" when not measured
function delta(r, base, op) {
	if (!has(r "." op) || !has(base "." op))
		return ""
	return num(r "." op) - num(base "." op)
}
# Each peer: its added cost per system call (summed over getpid, read and
# close) as a multiple of that of ktau on (row 3), for the same per-call
# accounting.
function ratios(    i, k, n, peer, pk, pl, d, kd, sp, sk, line) {
	n = split("ftrace_syscalls kprobe_getpid function_profiler strace perf_trace bpftrace_count bpftrace_latency", pk, " ")
	split("ftrace raw_syscalls events|kprobe on getpid (getpid only)|ftrace function profiler|strace -c -f|perf trace -s|bpftrace count|bpftrace latency sum", pl, "|")
	line = ""
	for (i = 1; i <= n; i++) {
		peer = pk[i]
		sp = 0; sk = 0
		for (k = 1; k <= 3; k++) {
			if (peer == "kprobe_getpid" && k > 1)
				break
			d = delta(peer, "trace_base", ops[k])
			kd = delta("on", "nokt", ops[k])
			if (d == "" || kd == "") {
				sp = ""
				break
			}
			sp += d; sk += kd
		}
		if (sp == "" || sk <= 0)
			continue
		line = line sprintf("%s%s: %.0fx ktau", line == "" ? "" : ", ", pl[i], sp / sk)
	}
	if (line != "")
		print "added cost per system call over ktau on (row 3): " line
}
function goal(text, measured, ok) {
	printf "%-52s %-50s %s\n", text, measured, ok == "" ? "NOT measured" : (ok ? "met" : "NOT met")
}
# the goal of row r: at most limit added over row 1 on each system call
function syscall_goal(text, r, limit,    a) {
	a = added(r, "nokt")
	goal(text, a == "" ? "-" : each, a == "" ? "" : a <= limit)
}
# --- whole programs (issue 35) ---
# what run r of workload w adds over its base row, in % (exact enough to
# print); "" when either is missing
function ppct(w, r, base) {
	if (!has("prog." w "." r) || !has("prog." w "." base) || num("prog." w "." base) <= 0)
		return ""
	return (num("prog." w "." r) - num("prog." w "." base)) * 100 / num("prog." w "." base)
}
# whether row r of workload w is within pct % of its base, compared in
# whole numbers so that a goal is met at exactly its edge; "" not measured
function pwithin(w, r, base, pct) {
	if (ppct(w, r, base) == "")
		return ""
	return (num("prog." w "." r) - num("prog." w "." base)) * 1000 <= pct * 10 * num("prog." w "." base)
}
# the cell of row r of workload w: its % over base, its reason when not
# measured (a footnote), or its instruction count when it is a base
function pcell(w, r, base,    k, x) {
	k = "prog." w "." r
	if (has(k ".unavailable")) {
		if (v[k ".unavailable"] ~ /^n\/a/)
			return v[k ".unavailable"]
		notes[r] = notes[r] (notes[r] == "" ? "" : "; ") pwname[w] ": " v[k ".unavailable"]
		return "unavailable"
	}
	if (!has(k))
		return "-"
	if (base == "")
		return sprintf("%.0f", num(k))
	x = ppct(w, r, base)
	return x == "" ? "-" : sprintf("%+.2f %%", x)
}
function prow(label, r, base,    i, line) {
	line = sprintf("%-50s", label)
	for (i = 1; i <= npw; i++)
		line = line sprintf(" %14s", pcell(pw[i], r, base))
	print line
}
# a count of the row 3 run per million of its instructions
function pper(w, what) {
	if (!has("prog." w ".on." what) || !has("prog." w ".on") || num("prog." w ".on") <= 0)
		return "-"
	return sprintf("%.1f", num("prog." w ".on." what) * 1e6 / num("prog." w ".on"))
}
# a count of the row 3 run itself
function pcount(w, what) {
	return has("prog." w ".on." what) ? v["prog." w ".on." what] : "-"
}
# What the events of the row 3 run of workload w cost at the per-call
# rows of the ktau kernel (row r: "on" or "traceprof"), in % of that run:
# its system calls at the mean added cost of the three calls, its page
# faults at that of the page fault, and for "on" its context switches at
# that of a blocking switch (row 3 over row 3s, per switch; the trace
# rows have no such split, so those count none).  The least a row of
# ktau can add however cheap its records, folds and forks become; "-"
# when the run lacks a count or a per-call row.
function pfloor(w, r,    k, i, d, sc, ds, df, dsw, n) {
	k = "prog." w ".on"
	if (!has(k) || num(k) <= 0 || !has(k ".syscalls") || !has(k ".faults"))
		return "-"
	ds = 0
	for (i = 1; i <= 3; i++) {
		d = delta(r, "nokt", ops[i])
		if (d == "")
			return "-"
		ds += d / 3
	}
	df = delta(r, "nokt", "page_fault")
	if (df == "")
		return "-"
	n = num(k ".syscalls") * ds + num(k ".faults") * df
	if (r == "on") {
		d = delta("on", "nokt", "pipe_rtt")
		sc = delta("sysonly", "nokt", "pipe_rtt")
		if (d == "" || sc == "" || !has(k ".ctxsw"))
			return "-"
		dsw = (d - sc) / 2
		n += num(k ".ctxsw") * dsw
	}
	return sprintf("%.2f %%", n * 100 / num(k))
}
# the spread of the runs of row r of workload w, in %
function pspread(w, r,    k) {
	k = "prog." w "." r
	if (!has(k) || !has(k ".max") || num(k) <= 0)
		return "-"
	return sprintf("%.2f %%", (num(k ".max") - num(k)) * 100 / num(k))
}
# goal over workloads (each "" = all): row r within pct % of base
function pgoal(text, r, base, pct, which,    i, w, ok, line, x) {
	ok = 1; line = ""
	for (i = 1; i <= npw; i++) {
		w = pw[i]
		if (which != "" && w != which)
			continue
		x = ppct(w, r, base)
		line = line (line == "" ? "" : ", ") pwname[w] " " (x == "" ? "-" : sprintf("%+.2f %%", x))
		if (x == "")
			ok = ""
		else if (ok != "" && !pwithin(w, r, base, pct))
			ok = 0
	}
	goal(text, line, ok)
}
function programs(    i, j, r, w, peers, npeer, missing, why, line, same, first, n, rows, rowno) {
	npw = split("tree text proc mpi", pw, " ")
	pwname["tree"] = "file tree"; pwname["text"] = "text"; pwname["proc"] = "process"; pwname["mpi"] = "mpi"
	print "Whole programs: instructions of a whole run, % over its base (make bench; scripts/bench.sh --role programs)"
	print "(minimum of 3 runs, 5 for mpi; rows 2 to 6a over row 1, ktau compiled out; rows 5a to 5g over row 5, the"
	print "tracing kernel with ktau off, as in the table above)"
	print ""
	printf "%-50s %14s %14s %14s %14s\n", "", "file tree", "text", "process", "mpi (xdlu)"
	prow("1 ktau compiled out (instructions)", "nokt", "")
	prow("2 ktau in, all groups off (vs 1)", "off", "nokt")
	prow("3 ktau on (vs 1)", "on", "nokt")
	prow("4 merged: libktau-mpi preloaded (vs 1)", "merged", "nokt")
	prow("6a trace + profile: ktau-trace -- CMD (vs 1)", "traceprof", "nokt")
	prow("5 tracing kernel, ktau off (instructions)", "trace_base", "")
	prow("5a ftrace raw_syscalls events (vs 5)", "ftrace_syscalls", "trace_base")
	prow("5d strace -c -f (vs 5)", "strace", "trace_base")
	prow("5e perf trace -s (vs 5)", "perf_trace", "trace_base")
	prow("5f bpftrace count per (pid, syscall) (vs 5)", "bpftrace_count", "trace_base")
	prow("5g bpftrace latency sum per (pid, syscall) (vs 5)", "bpftrace_latency", "trace_base")
	n = split("nokt off on merged traceprof trace_base ftrace_syscalls strace perf_trace bpftrace_count bpftrace_latency", rows, " ")
	split("1 2 3 4 6a 5 5a 5d 5e 5f 5g", rowno, " ")
	for (i = 1; i <= n; i++)
		if (notes[rows[i]] != "")
			printf "  unavailable, row %s: %s\n", rowno[i], notes[rows[i]]
	print ""
	print "per million instructions of the row 3 run (ktau on; its system calls and page faults by ktau, context switches by /proc/stat):"
	printf "%-50s %14s %14s %14s %14s\n", "system calls", pper("tree", "syscalls"), pper("text", "syscalls"), pper("proc", "syscalls"), pper("mpi", "syscalls")
	printf "%-50s %14s %14s %14s %14s\n", "page faults", pper("tree", "faults"), pper("text", "faults"), pper("proc", "faults"), pper("mpi", "faults")
	printf "%-50s %14s %14s %14s %14s\n", "context switches", pper("tree", "ctxsw"), pper("text", "ctxsw"), pper("proc", "ctxsw"), pper("mpi", "ctxsw")
	printf "%-50s %14s %14s %14s %14s\n", "execve() calls in the run (not per million)", pcount("tree", "execve"), pcount("text", "execve"), pcount("proc", "execve"), pcount("mpi", "execve")
	print ""
	print "the events of the row 3 run at the per-call rows of the table above, % of the run: the least a row of ktau"
	print "can add, however cheap its records, folds and forks (calls at the mean of getpid, read and close):"
	printf "%-50s %14s %14s %14s %14s\n", "ktau on: calls, faults, switches at row 3", pfloor("tree", "on"), pfloor("text", "on"), pfloor("proc", "on"), pfloor("mpi", "on")
	printf "%-50s %14s %14s %14s %14s\n", "trace + profile: calls, faults at row 6a", pfloor("tree", "traceprof"), pfloor("text", "traceprof"), pfloor("proc", "traceprof"), pfloor("mpi", "traceprof")
	print ""
	print "spread of the runs of a row, (most - fewest) / fewest: a difference between rows below it is noise"
	printf "%-50s %14s %14s %14s %14s\n", "row 1, ktau compiled out", pspread("tree", "nokt"), pspread("text", "nokt"), pspread("proc", "nokt"), pspread("mpi", "nokt")
	printf "%-50s %14s %14s %14s %14s\n", "row 2, ktau in, all groups off", pspread("tree", "off"), pspread("text", "off"), pspread("proc", "off"), pspread("mpi", "off")
	printf "%-50s %14s %14s %14s %14s\n", "row 3, ktau on", pspread("tree", "on"), pspread("text", "on"), pspread("proc", "on"), pspread("mpi", "on")
	print ""
	printf "%-52s %-50s %s\n", "goal: whole programs", "measured", "result"
	pgoal("ktau on: <= 1 % on every workload", "on", "nokt", 1, "")
	pgoal("ktau on: <= 0.1 % on the MPI workload", "on", "nokt", 0.1, "mpi")
	pgoal("trace + profile: <= 3 % on every workload", "traceprof", "nokt", 3, "")
	# every peer row of every workload, or what is missing and why
	npeer = split("ftrace_syscalls strace perf_trace bpftrace_count bpftrace_latency", peers, " ")
	split("5a 5d 5e 5f 5g", peerno, " ")
	missing = ""
	for (i = 1; i <= npeer; i++) {
		# the reason of each workload; one for the row when they all agree
		line = ""; same = 1; first = ""
		for (j = 1; j <= npw; j++) {
			r = "prog." pw[j] "." peers[i]
			why = has(r) ? (has("prog." pw[j] ".trace_base") ? "" : "no row 5") : (has(r ".unavailable") ? v[r ".unavailable"] : "not in the run")
			if (j == 1)
				first = why
			else if (why != first)
				same = 0
			if (why != "")
				line = line (line == "" ? "" : ", ") pwname[pw[j]] ": " why
		}
		if (same && first != "")
			line = first
		if (line != "")
			missing = missing (missing == "" ? "" : "; ") peerno[i] " " line
	}
	goal("every peer row measured in the same run", missing == "" ? "yes (5a, 5d-5g, every workload)" : "no: " missing, missing == "")
}
# The title, the clock check (by the counter named), and the rows of the
# two kernels with ktau (compiled out and in), on every architecture
function ktau_rows(title, counter) {
	print title
	printf "clock check: a 2-instruction loop reads %s per iteration by %s, %s by clock_gettime\n",
		has("calibrate.rdtsc") ? v["calibrate.rdtsc"] : "-", counter,
		has("calibrate.clock_gettime") ? v["calibrate.clock_gettime"] : "-"
	print "(minimum of 15 runs of a fixed count, the empty loop subtracted; in parentheses: added over the row named)"
	print ""
	printf "%-50s %17s %17s %17s %17s %17s\n", "", "getpid()", "read(16 B)", "close(-1)", "pipe round trip", "page fault"
	row("1 ktau compiled out", "nokt", "")
	row("2 ktau in, all groups off (vs 1)", "off", "nokt")
	row("3 ktau on (vs 1)", "on", "nokt")
	row("3s ktau on, the syscall group alone (vs 1)", "sysonly", "nokt")
	row("3b ktau on, + kernel, event (vs 1)", "all", "nokt")
	row("4 ktau on + user context (vs 1)", "ctx", "nokt")
	row("4b ktau on, the last context word gone (vs 1)", "ctxgone", "nokt")
	row("4c ktau on, a task with no word, the key on (vs 1)", "ctxother", "nokt")
	row("4d ktau on + a shared counter area of 4 (vs 1)", "counters", "nokt")
	row("6 trace on, recording stopped (vs 1)", "traceonly", "nokt")
	row("6a trace on, with the profile of row 3 (vs 1)", "traceprof", "nokt")
}
# the libktau timer pair line; sets um, uu and us (the goal reads them)
function user_timer() {
	um = has("user_timer.merge") ? num("user_timer.merge") : ""
	uu = has("user_timer.nomerge") ? num("user_timer.nomerge") : ""
	us = has("user_timer.merge.syscalls") ? num("user_timer.merge.syscalls") : ""
	printf "libktau timer start/stop pair: %s instructions user-only, %s merged with the kernel%s; system calls per 1000 merged pairs: %s\n",
		uu == "" ? "-" : uu, um == "" ? "-" : um,
		has("user_timer.merge_refused") ? " (the kernel REFUSED the context word)" : "",
		us == "" ? "-" : us
}
# The arm64 table (make bench ARCH=arm64): the rows of the two arm64
# kernels, the goals of issue 36, and what only x86 measures so far.
function arm64(    a, d, o) {
	ktau_rows("ktau overhead on arm64: instructions per operation (make bench ARCH=arm64; qemu-system-aarch64 -icount shift=0, 1 CPU)",
		"CNTVCT_EL0 (scaled to ns)")
	print "x86-only for now, not run on arm64: rows 5-5g (the tracing kernel and the peers), the whole programs,"
	print "memory per task; the profile reads: scripts/bench.sh --role read"
	print ""
	user_timer()
	d = delta("on", "nokt", "page_fault")
	o = delta("off", "nokt", "page_fault")
	printf "page fault: %s with ktau on, %s in and off (no arm64 goal; x86 has +60 on)\n",
		d == "" ? "-" : signed(d), o == "" ? "-" : signed(o)
	print ""
	printf "%-52s %-50s %s\n", "goal: arm64 (issue 36)", "measured", "result"
	syscall_goal("ktau on: <= 60 added instructions per syscall", "on", 60)
	syscall_goal("ktau in and off: <= 4 added per syscall", "off", 4)
	syscall_goal("merged (user context word): <= 60 per syscall", "ctx", 60)
}
END {
	if (only_programs) {
		programs()
		exit
	}
	nops = split("getpid read16 close_ebadf pipe_rtt page_fault", ops, " ")
	split("getpid read close", names, " ")
	if (arch == "arm64") {
		arm64()
		exit
	}
	ktau_rows("ktau overhead: instructions per operation (make bench; qemu-system-x86_64 -icount shift=0, 1 CPU)", "rdtsc")
	row("5 tracing kernel, ktau off", "trace_base", "")
	row("5a ftrace raw_syscalls events (vs 5)", "ftrace_syscalls", "trace_base")
	row("5b kprobe on __x64_sys_getpid (vs 5)", "kprobe_getpid", "trace_base")
	row("5c ftrace function profiler (vs 5)", "function_profiler", "trace_base")
	row("5d strace -c -f (vs 5)", "strace", "trace_base")
	row("5e perf trace -s (vs 5)", "perf_trace", "trace_base")
	row("5f bpftrace count per (pid, syscall) (vs 5)", "bpftrace_count", "trace_base")
	row("5g bpftrace latency sum per (pid, syscall) (vs 5)", "bpftrace_latency", "trace_base")
	print ""
	ratios()

	mem = has("mem.typical_task") ? num("mem.typical_task") : ""
	printf "memory per task (the per-task part and its table): %s B for a busybox sleep, %s B for a task with 300 function ids (%s func lines), %s B on average over the %s tasks of the guest\n",
		has("mem.typical_task") ? v["mem.typical_task"] : "-",
		has("mem.fid300_task") ? v["mem.fid300_task"] : "-",
		has("mem.fid300_funcs") ? v["mem.fid300_funcs"] : "-",
		has("mem.avg_task") ? v["mem.avg_task"] : "-", has("mem.tasks") ? v["mem.tasks"] : "-"
	p1 = has("profile_read.1000") ? num("profile_read.1000") : ""
	p10 = has("profile_read.10000") ? num("profile_read.10000") : ""
	printf "/proc/ktau/profile read whole: %s instructions with %s tasks (%s bytes), %s with %s tasks (%s bytes)\n",
		p1 == "" ? "-" : p1, has("profile_read.1000.tasks") ? v["profile_read.1000.tasks"] : "1000",
		has("profile_read.1000.bytes") ? v["profile_read.1000.bytes"] : "-",
		p10 == "" ? "-" : p10, has("profile_read.10000.tasks") ? v["profile_read.10000.tasks"] : "10000",
		has("profile_read.10000.bytes") ? v["profile_read.10000.bytes"] : "-"
	user_timer()
	print ""

	printf "%-52s %-50s %s\n", "goal: the first targets", "measured", "result"
	a = added("on", "nokt")
	goal("ktau on: <= 60 added instructions per syscall", a == "" ? "-" : each, a == "" ? "" : a <= 60)
	b = added("on", "nokt")
	a = added("ctxgone", "nokt")
	goal("the last context word gone: within 2 of row 3 per syscall",
		a == "" ? "-" : each, (a == "" || b == "") ? "" : a <= b + 2)
	a = added("off", "nokt")
	goal("ktau off at run time: <= 4 added per syscall", a == "" ? "-" : each, a == "" ? "" : a <= 4)
	goal("memory: <= 1 KiB per typical task",
		mem == "" ? "-" : sprintf("%d B (busybox sleep)", mem), mem == "" ? "" : mem <= 1024)
	ok = (um == "" || uu == "" || us == "" || has("user_timer.merge_refused")) ? "" : (us == 0 && um <= 2 * uu)
	goal("merged user timer pair: no syscall, <= 2x user-only",
		um == "" ? "-" : sprintf("%.0f vs %.0f (%.2fx), %d syscalls/1000 pairs", um, uu, uu > 0 ? um / uu : 0, us), ok)
	r = (p1 == "" || p10 == "") ? "" : (p10 / num("profile_read.10000.tasks")) / (p1 / num("profile_read.1000.tasks"))
	goal("profile read: linear in tasks, no quadratic step",
		r == "" ? "-" : sprintf("%.0f vs %.0f per task (x%.2f for 10x tasks)", p1 / num("profile_read.1000.tasks"), p10 / num("profile_read.10000.tasks"), r),
		r == "" ? "" : r <= 1.5)

	print ""
	printf "%-52s %-50s %s\n", "goal: per call and per event", "measured", "result"
	syscall_goal("ktau on: <= +52 per syscall", "on", 52)
	syscall_goal("merged (user context word): <= +60 per syscall", "ctx", 60)
	d = delta("all", "nokt", "read16")
	goal("read with its read_bytes event: <= +75", d == "" ? "-" : "read " signed(d), d == "" ? "" : d <= 75)
	# the round trip with its system calls timed and not its switches
	# (row 3s) says what the switches add
	d = delta("on", "nokt", "pipe_rtt")
	s = delta("sysonly", "nokt", "pipe_rtt")
	goal("pipe round trip: <= +180", d == "" ? "-" : signed(d) (s == "" ? "" : " (4 system calls " signed(s) ", 2 switches " signed(d - s) ")"),
		d == "" ? "" : d <= 180)
	d = delta("on", "nokt", "page_fault")
	goal("page fault: <= +70", d == "" ? "-" : signed(d), d == "" ? "" : d <= 70)
	m = ""; line = ""
	for (i = 1; i <= nops; i++) {
		d = delta("off", "nokt", ops[i])
		if (d == "") { m = ""; break }
		if (m == "" || d > m) m = d
		line = line (i > 1 ? ", " : "") ops[i] " " signed(d)
	}
	goal("switched off: <= +4 on every row", m == "" ? "-" : line, m == "" ? "" : m <= 4)
	pt = (p10 == "") ? "" : p10 / num("profile_read.10000.tasks")
	goal("profile read: <= 5000 instructions per task",
		pt == "" ? "-" : sprintf("%.0f per task (10000 tasks)", pt), pt == "" ? "" : pt <= 5000)
	goal("memory: <= 1 KiB per typical task (keep)",
		mem == "" ? "-" : sprintf("%d B (busybox sleep)", mem), mem == "" ? "" : mem <= 1024)
	ok = has("bpftrace_count.getpid") && has("bpftrace_latency.getpid")
	goal("bpftrace measured in the same run", ok ? "yes (rows 5f, 5g)" : "no", ok)

	# a task without a word while the word of another task holds the
	# context key on (row 4c), and once the key has gone (row 4b): each
	# system call against row 3
	print ""
	printf "%-52s %-50s %s\n", "goal: a shared node (the context key)", "measured", "result"
	a = added("ctxother", "on")
	goal("a task with no word, the key on: within 4 of row 3",
		a == "" ? "-" : each " (vs row 3)", a == "" ? "" : a <= 4)
	a = added("ctxgone", "on")
	goal("the key gone with the last word: within 2 of row 3",
		a == "" ? "-" : each " (vs row 3)", a == "" ? "" : a <= 2)

	# a thread with a shared counter area of 4 counters (read, write,
	# the sched and exception groups): getpid() is a call it does not
	# count, read() one whose exit writes the area
	print ""
	printf "%-52s %-50s %s\n", "goal: shared counters (4 in the area)", "measured", "result"
	a = added("counters", "on")
	goal("a thread with 4 counters: <= +30 per syscall over row 3",
		a == "" ? "-" : each " (vs row 3)", a == "" ? "" : a <= 30)

	# the third round: each blocking switch of the round trip (two of
	# them, what row 3 adds over row 3s), and the page fault
	print ""
	printf "%-52s %-50s %s\n", "goal: performance, third round", "measured", "result"
	d = delta("on", "nokt", "pipe_rtt")
	s = delta("sysonly", "nokt", "pipe_rtt")
	ok = d != "" && s != ""
	goal("blocking switch: <= +80 each", ok ? sprintf("%+.0f each (2 in a round trip: %s)", (d - s) / 2, signed(d - s)) : "-",
		ok ? (d - s) / 2 <= 80 : "")
	goal("pipe round trip: <= +348", d == "" ? "-" : signed(d), d == "" ? "" : d <= 348)
	d = delta("on", "nokt", "page_fault")
	goal("page fault: <= +60", d == "" ? "-" : signed(d), d == "" ? "" : d <= 60)

	print ""
	printf "%-52s %-50s %s\n", "goal: trace mode", "measured", "result"
	a = added("traceprof", "nokt")
	lost = has("trace.lost") ? num("trace.lost") : ""
	goal("trace + profile on: <= +120 per syscall", a == "" ? "-" : each (lost == "" ? "" : ", " lost " lost"),
		(a == "" || lost == "") ? "" : a <= 120 && lost == 0)
	goal("bytes per event: <= 16", "16 (docs/trace-format.md: one 16-byte unit)", 1)
	# guest time under -icount shift=0: one instruction, one nanosecond
	ev = has("tracedrain.events") ? num("tracedrain.events") : ""
	ins = has("tracedrain.instructions") ? num("tracedrain.instructions") : ""
	dl = has("tracedrain.lost") ? num("tracedrain.lost") : ""
	ok = ev != "" && ins > 0 && dl != ""
	goal("events per second drained by ktau-trace without loss",
		ok ? sprintf("%.1f M/s (%d events, %d lost)", ev / ins * 1000, ev, dl) : "-",
		ok ? dl == 0 : "")

	# the whole programs, when the run has them
	for (k in v)
		if (k ~ /^prog\./) {
			print ""
			programs()
			break
		}
}' "$results"
