#!/bin/sh
# The guest side of `make bench` (issue 7): run by /init in mode `bench`
# (tests/qemu/init.sh), under `qemu -icount shift=0`.  What it measures
# depends on the kernel, named on the command line as ktaubench=ROLE:
#   nokt    CONFIG_KTAU=n: the baseline system calls, faults, round trips
#   ktau    ktau off at run time, on, on with a user context; memory per
#           task; profile reads with 1 000 and 10 000 tasks; user timers
#   trace   the tracing kernel: ktau off, then ftrace raw_syscalls events,
#           a kprobe, the function profiler, strace -c -f, perf trace -s,
#           bpftrace counting and summing latencies per (pid, syscall)
#   quick   either kernel: the per-call rows alone (nokt, or off/on/ctx),
#           in a minute, for working on the hooks (scripts/bench.sh --quick)
#   read    the ktau kernel: the profile reads alone, with 1 000 and 10 000
#           tasks (scripts/bench.sh --role read)
# Every result is a line "BENCH KEY VALUE" on the console (scripts/bench.sh
# collects them); "BENCH KEY.unavailable REASON" says why one is missing.
B=/bench
role=${ktaubench:-}
if [ -z "$role" ]; then
	for w in $(cat /proc/cmdline); do
		case "$w" in ktaubench=*) role=${w#ktaubench=} ;; esac
	done
fi
echo "BENCH role $role"
echo "BENCH kernel $(uname -r)"
$B/syscost --calibrate

control() {	# control COMMAND: write it to /proc/ktau/control, or say why not
	echo "$1" >/proc/ktau/control || echo "BENCH control.unavailable '$1' failed"
}

# Row 3 of the issue: these groups on; "sysonly" the system calls alone
# (a pipe round trip's cost before its switches are timed); "all" adds
# the kernel and event groups (read() then also records its read_bytes
# event).  The user context rows run last: "ctx" with a word registered,
# "ctxother" in a task without a word while another process's word holds
# the context key on, "ctxgone" once the last registered word is gone and
# the key, which lingers a second, has turned off (system calls back to
# row "on").  "counters": a shared counter area of 4 counters registered
# (the "on" groups).
ON_GROUPS='syscall softirq irq sched exception'
ktau_rows() {	# off, on, sysonly, all, ctx, ctxother, ctxgone, traceonly, traceprof, counters
	control 'disable all'
	$B/syscost off
	control "enable $ON_GROUPS"
	$B/syscost on
	control 'disable all'
	control 'enable syscall'
	$B/syscost sysonly
	control 'enable all'
	$B/syscost all
	control 'disable all'
	control "enable $ON_GROUPS"
	$B/syscost ctx --context || echo "BENCH ctx.unavailable the kernel refused the user context word"
	$B/syscost ctxother --context-other ||
		echo "BENCH ctxother.unavailable the kernel refused the user context word"
	$B/syscost ctxgone --context-gone ||
		echo "BENCH ctxgone.unavailable the kernel refused the user context word"
	trace_rows
	control 'disable all'
	control "enable $ON_GROUPS"
	# last: the counters key lingers a second after the area is gone
	$B/syscost counters --counters ||
		echo "BENCH counters.unavailable the kernel refused the shared counter area"
	control 'enable all'
}

# Trace mode (issue 18): the trace alone (recording stopped), then with
# the profile of the "on" groups.  Each row's events fit the buffer (an
# event that finds it full costs less than one kept), and it is drained
# after each row; the events lost are printed.
trace_rows() {
	if ! [ -r /proc/ktau/trace ]; then
		echo "BENCH traceonly.unavailable no /proc/ktau/trace in this kernel"
		echo "BENCH traceprof.unavailable no /proc/ktau/trace in this kernel"
		return
	fi
	control 'stop'
	control 'trace size 16384'
	control 'trace on'
	$B/syscost traceonly
	cat /proc/ktau/trace >/tmp/trace.bin
	echo "BENCH traceonly.drained_bytes $(wc -c </tmp/trace.bin)"
	control 'start'
	$B/syscost traceprof
	cat /proc/ktau/trace >/tmp/trace.bin
	echo "BENCH traceprof.drained_bytes $(wc -c </tmp/trace.bin)"
	echo "BENCH trace.lost $(sed -n 's/^trace on .* lost=//p' /proc/ktau/control)"
	control 'trace off'
	trace_drain
}

# ktau-trace drains while 300 000 getpid() calls make events as fast as
# they can (the profile on, 1 MiB per CPU, the kernel's default): its
# summary says how many it saved and how many were lost.
trace_drain() {
	$B/ktau-trace -o /tmp/drain.ktt -- $B/trace_load 300000 2>/tmp/drain.err
	sed 's/^/INFO: ktau-trace: /' /tmp/drain.err
	sed -n 's/^ktau-trace: .*: \([0-9]*\) events (.*/BENCH tracedrain.events \1/p' /tmp/drain.err
	sed -n 's/^ktau-trace: .* bytes, \([0-9]*\) lost (.*/BENCH tracedrain.lost \1/p' /tmp/drain.err
}

profile_reads() {	# /proc/ktau/profile read whole with 1 000 and 10 000 tasks
	# the default limit of a 1 GiB guest is about 8 000 threads
	echo 30000 >/proc/sys/kernel/threads-max
	$B/profile_read 1000 10000
}

tracefs=/sys/kernel/tracing
tracer() {	# tracer LABEL FILE ON OFF: syscost with FILE holding ON, then OFF
	if [ -w "$tracefs/$2" ]; then
		echo "$3" >"$tracefs/$2" && $B/syscost "$1"
		echo "$4" >"$tracefs/$2"
	else
		echo "BENCH $1.unavailable no $tracefs/$2 in this kernel"
	fi
}

# bpftrace_row LABEL PROGRAM: syscost LABEL while `bpftrace -e PROGRAM`
# runs in the background; then SIGINT makes bpftrace print its maps: its
# first line and the last lines of map @ (sorted by value: syscost's system
# calls) are shown.  bpftrace prints "Attaching N probes..." before it
# attaches them: a second (10^9 instructions) more lets it finish.
BPFTRACE_WAIT=600	# seconds (of instructions) for LLVM to compile a program
bpftrace_row() {
	out=/tmp/$1.txt
	if ! command -v bpftrace >/dev/null; then
		echo "BENCH $1.unavailable bpftrace is not in the initramfs"
		return
	fi
	bpftrace -e "$2" >"$out" 2>&1 &
	bt=$!
	n=0
	while ! grep -q '^Attaching ' "$out"; do
		if ! kill -0 "$bt" 2>/dev/null || [ "$n" -ge "$BPFTRACE_WAIT" ]; then
			kill -INT "$bt" 2>/dev/null
			wait "$bt"
			echo "BENCH $1.unavailable bpftrace did not attach: $(grep ERROR "$out" | tail -n 1 | grep . || tail -n 1 "$out")"
			sed "s/^/INFO: bpftrace $1: /" "$out" | head -n 8
			return
		fi
		sleep 1
		n=$((n + 1))
	done
	sleep 1
	echo "INFO: bpftrace $1: attached after about $n s"
	$B/syscost "$1" || echo "BENCH $1.unavailable syscost failed under bpftrace"
	kill -INT "$bt"
	wait "$bt"
	{ grep -m 1 . "$out"; grep '^@\[' "$out" | tail -n 6; } | sed "s/^/INFO: bpftrace $1: /"
}

case "$role" in
quick)
	if [ -e /proc/ktau ]; then
		ktau_rows
	else
		$B/syscost nokt
	fi
	;;
nokt)
	[ -e /proc/ktau ] && echo "BENCH nokt.unavailable this kernel has ktau"
	$B/syscost nokt
	;;
ktau)
	ktau_rows
	$B/user_timer
	$B/task_memory
	profile_reads
	;;
read)
	profile_reads
	;;
trace)
	control 'disable all'
	$B/syscost trace_base
	mount -t tracefs tracefs $tracefs 2>/dev/null
	tracer ftrace_syscalls events/raw_syscalls/enable 1 0
	if echo 'p:bench_getpid __x64_sys_getpid' >"$tracefs/kprobe_events" 2>/dev/null; then
		tracer kprobe_getpid events/kprobes/bench_getpid/enable 1 0
		echo '-:bench_getpid' >>"$tracefs/kprobe_events"
	else
		echo "BENCH kprobe_getpid.unavailable no kprobe events in this kernel"
	fi
	tracer function_profiler function_profile_enabled 1 0
	if command -v strace >/dev/null; then
		strace -c -f -o /tmp/strace.txt $B/syscost strace ||
			echo "BENCH strace.unavailable strace failed"
		sed 's/^/INFO: strace -c: /' /tmp/strace.txt | head -n 8
	else
		echo "BENCH strace.unavailable strace is not in the initramfs"
	fi
	if command -v perf >/dev/null; then
		perf trace -s -o /tmp/perf.txt $B/syscost perf_trace ||
			echo "BENCH perf_trace.unavailable perf trace failed"
		grep -m 8 . /tmp/perf.txt 2>/dev/null | sed 's/^/INFO: perf trace -s: /'
	else
		echo "BENCH perf_trace.unavailable perf is not in the initramfs"
	fi
	bpftrace_row bpftrace_count \
		'tracepoint:raw_syscalls:sys_enter { @[pid, args->id] = count(); }'
	bpftrace_row bpftrace_latency '
tracepoint:raw_syscalls:sys_enter { @start[tid] = nsecs; }
tracepoint:raw_syscalls:sys_exit {
	$s = @start[tid];
	if ($s != 0) {
		@[pid, args->id] = sum(nsecs - $s);
		delete(@start[tid]);
	}
}'
	;;
*)
	echo "BENCH role.unavailable unknown ktaubench '$role' (nokt, ktau, trace, quick, read)"
	exit 1
	;;
esac
