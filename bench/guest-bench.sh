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
#   programs-nokt, programs-ktau, programs-trace
#           the whole-program rows of that kernel (see programs() below;
#           scripts/bench.sh --role programs boots the three kernels)
# Every result is a line "BENCH KEY VALUE" on the console (scripts/bench.sh
# collects them); "BENCH KEY.unavailable REASON" says why one is missing.
B=/bench
role=${ktaubench:-}
progs=${ktauprogs:-}
for w in $(cat /proc/cmdline); do
	case "$w" in
	ktaubench=*) [ -n "$role" ] || role=${w#ktaubench=} ;;
	ktauprogs=*) [ -n "$progs" ] || progs=${w#ktauprogs=} ;;
	esac
done
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

# `trace size` of the kernel as it booted (KiB per CPU), from its control
# file's `trace on|off size=KIB ...` line: the trace rows set it back
trace_kib_booted=$(sed -n 's/^trace .* size=\([0-9]*\).*/\1/p' /proc/ktau/control 2>/dev/null)
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
	echo "BENCH trace.lost $(sed -n 's/^trace on .* lost=\([0-9]*\).*/\1/p' /proc/ktau/control)"
	control 'trace off'
	# the kernel's default again: the drain row and the whole programs'
	# trace + profile rows after it use ktau-trace's default buffers
	if [ -n "$trace_kib_booted" ]; then
		control "trace size $trace_kib_booted"
	else
		echo "BENCH control.unavailable 'trace size' (no size= in /proc/ktau/control)"
	fi
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

# bpftrace_with UNAVAILABLE LABEL PROGRAM COMMAND...: COMMAND while
# `bpftrace -e PROGRAM` runs in the background; then SIGINT makes bpftrace
# print its maps: its first line and the last lines of map @ (sorted by
# value: the measured program's system calls) are shown.  bpftrace prints
# "Attaching N probes..." before it attaches them: a second (10^9
# instructions) more lets it finish.  When bpftrace cannot run, the
# function UNAVAILABLE is called with LABEL and the reason.
BPFTRACE_WAIT=600	# seconds (of instructions) for LLVM to compile a program
bpftrace_with() {
	unavailable=$1 label=$2 program=$3
	shift 3
	out=/tmp/$label.txt
	if ! command -v bpftrace >/dev/null; then
		$unavailable "$label" "bpftrace is not in the initramfs"
		return
	fi
	bpftrace -e "$program" >"$out" 2>&1 &
	bt=$!
	n=0
	while ! grep -q '^Attaching ' "$out"; do
		if ! kill -0 "$bt" 2>/dev/null || [ "$n" -ge "$BPFTRACE_WAIT" ]; then
			kill -INT "$bt" 2>/dev/null
			wait "$bt"
			$unavailable "$label" "bpftrace did not attach: $(grep ERROR "$out" | tail -n 1 | grep . || tail -n 1 "$out")"
			sed "s/^/INFO: bpftrace $label: /" "$out" | head -n 8
			return
		fi
		sleep 1
		n=$((n + 1))
	done
	sleep 1
	echo "INFO: bpftrace $label: attached after about $n s"
	"$@" || echo "BENCH $label.unavailable ${1##*/} failed under bpftrace"
	kill -INT "$bt"
	wait "$bt"
	{ grep -m 1 . "$out"; grep '^@\[' "$out" | tail -n 6; } | sed "s/^/INFO: bpftrace $label: /"
}
row_unavailable() {	# row_unavailable LABEL REASON
	echo "BENCH $1.unavailable $2"
}
# bpftrace_row LABEL PROGRAM: syscost LABEL under bpftrace_with
bpftrace_row() {
	bpftrace_with row_unavailable "$1" "$2" $B/syscost "$1"
}
BPFTRACE_COUNT='tracepoint:raw_syscalls:sys_enter { @[pid, args->id] = count(); }'
# shellcheck disable=SC2016 # bpftrace's variables, not the shell's
BPFTRACE_LATENCY='
tracepoint:raw_syscalls:sys_enter { @start[tid] = nsecs; }
tracepoint:raw_syscalls:sys_exit {
	$s = @start[tid];
	if ($s != 0) {
		@[pid, args->id] = sum(nsecs - $s);
		delete(@start[tid]);
	}
}'

# Whole programs (issue 35): real programs run to completion on fixed
# inputs (scripts/bench-inputs.sh put them in /bench/progs), each row the
# fewest instructions of PROG_RUNS runs (bench/progtime), with "BENCH
# prog.WORKLOAD.ROW N" lines:
#   tree  busybox tar and gzip of 2 000 small files, gunzip and tar x
#   text  busybox sort of 2 MiB of lines, md5sum of input and output
#   proc  a busybox sh script: 500 forks, each an execve of busybox
#   mpi   ScaLAPACK's LU test (Debian's xdlu), 2 ranks of Open MPI
# The row "on" also prints the run's system calls, page faults (ktau's
# children total) and context switches, as .syscalls, .faults, .ctxsw.
# Every boot first runs each workload once, unmeasured, so that no row
# pays a first run: on the bench-nokt kernel the MPI workload's first run
# of a boot took 290.3 M instructions, the next ones 280.8 M at least (the
# others' first runs are within 0.1 % of the next).
P=/bench/progs
PROG_RUNS=3
# MPI's runs vary most (its ranks spin, yielding the CPU, until a message
# comes): more of them
PROG_RUNS_MPI=5
# (ktauprogs=W,W... on the kernel's command line: scripts/bench.sh's
# BENCH_WORKLOADS)
PROG_WORKLOADS=$(echo "${progs:-tree,text,proc,mpi}" | tr , ' ')
XDLU=/usr/lib/x86_64-linux-gnu/scalapack/openmpi-tests/xdlu
# 2 ranks on the one CPU: a rank waiting in MPI yields it to the other
MPIRUN="/usr/bin/mpirun --oversubscribe -np 2 --mca mpi_yield_when_idle 1"
prog_command() {	# prog_command WORKLOAD [merged]: its command line
	case $1 in
	tree) echo "/bin/sh $P/tree.sh" ;;
	text) echo "/bin/sh $P/text.sh" ;;
	proc) echo "/bin/sh $P/execs.sh" ;;
	mpi)
		if [ "${2:-}" = merged ]; then
			echo "$MPIRUN -x LD_PRELOAD=libktau-mpi.so -x KTAU_PROFILE_DIR=/tmp/prog/ktau $XDLU"
		else
			echo "$MPIRUN $XDLU"
		fi
		;;
	esac
}
prog_mpi_missing() {	# why the MPI workload cannot run, or nothing
	[ -x /usr/bin/mpirun ] || { echo "no Open MPI in the initramfs (apt-get install openmpi-bin)"; return; }
	[ -x $XDLU ] || echo "no xdlu in the initramfs (apt-get install scalapack-mpi-test)"
}
# prog_one WORKLOAD ROW [WRAPPER...]: one row of one workload
prog_one() {
	w=$1 row=$2
	shift 2
	if [ "$w" = mpi ] && [ -n "$(prog_mpi_missing)" ]; then
		echo "BENCH prog.$w.$row.unavailable $(prog_mpi_missing)"
		return
	fi
	echo "INFO: programs: $w, row $row"
	counts=
	[ "$row" = on ] && counts=-c
	runs=$PROG_RUNS
	[ "$w" = mpi ] && runs=$PROG_RUNS_MPI
	[ "$row" = warmup ] && runs=1
	# shellcheck disable=SC2046 # the words of the command line
	$B/progtime -n $runs $counts -b 'rm -rf /tmp/prog; mkdir -p /tmp/prog' \
		"prog.$w.$row" "$@" $(prog_command "$w" "$row")
}
prog_row() {	# prog_row ROW [WRAPPER...]: the row of every workload
	for w in $PROG_WORKLOADS; do
		prog_one "$w" "$@"
	done
}
prog_unavailable() {	# prog_unavailable prog.ROW REASON: for every workload
	for w in $PROG_WORKLOADS; do
		echo "BENCH prog.$w.${1#prog.}.unavailable $2"
	done
}
prog_wrapped() {	# prog_wrapped ROW TOOL ARG...: each workload under TOOL ARGS
	row=$1 tool=$(command -v "$2")
	if [ -z "$tool" ]; then
		prog_unavailable "prog.$row" "$2 is not in the initramfs"
		return
	fi
	shift 2
	for w in $PROG_WORKLOADS; do
		# shellcheck disable=SC2046 # the tool's words, with the workload's name
		prog_one "$w" "$row" "$tool" $(echo "$@" | sed "s/@W@/$w/g")
		[ -f "/tmp/$row-$w.txt" ] && grep -m 6 . "/tmp/$row-$w.txt" | sed "s/^/INFO: $row $w: /"
	done
}
programs() {	# programs nokt|ktau|trace: the rows of that kernel
	echo "INFO: programs: $PROG_RUNS runs of each workload and row ($PROG_RUNS_MPI of mpi), after one unmeasured"
	cd $P || return
	# what Open MPI needs in this guest (tests/qemu/demo-mpi-guest.sh)
	ip link set lo up
	case "$(hostname)" in *[!A-Za-z0-9.-]*|'') hostname ktau-guest ;; esac
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	prog_row warmup
	case $1 in
	nokt)
		prog_row nokt
		;;
	ktau)
		control 'disable all'
		prog_row off
		control "enable $ON_GROUPS"
		prog_row on
		# libktau-mpi where the program loads libraries: busybox is static
		for w in $PROG_WORKLOADS; do
			case $w in
			mpi)
				# (a library the loader cannot find is skipped, with a warning)
				if [ -e /usr/local/lib/libktau-mpi.so ]; then
					prog_one mpi merged
				else
					echo "BENCH prog.mpi.merged.unavailable no libktau-mpi in the initramfs (make mpi: Open MPI's mpicc)"
				fi
				;;
			*) echo "BENCH prog.$w.merged.unavailable n/a (static)" ;;
			esac
		done
		if [ -r /proc/ktau/trace ]; then
			prog_row traceprof $B/ktau-trace -o /tmp/progtrace.ktt --
		else
			prog_unavailable prog.traceprof "no /proc/ktau/trace in this kernel"
		fi
		control 'enable all'
		;;
	trace)
		control 'disable all'
		prog_row trace_base
		mount -t tracefs tracefs $tracefs 2>/dev/null
		if [ -w $tracefs/events/raw_syscalls/enable ]; then
			echo 1 >$tracefs/events/raw_syscalls/enable
			prog_row ftrace_syscalls
			echo 0 >$tracefs/events/raw_syscalls/enable
		else
			prog_unavailable prog.ftrace_syscalls "no $tracefs/events/raw_syscalls in this kernel"
		fi
		prog_wrapped strace strace -c -f -o /tmp/strace-@W@.txt
		prog_wrapped perf_trace perf trace -s -o /tmp/perf_trace-@W@.txt
		bpftrace_with prog_unavailable prog.bpftrace_count "$BPFTRACE_COUNT" prog_row bpftrace_count
		bpftrace_with prog_unavailable prog.bpftrace_latency "$BPFTRACE_LATENCY" prog_row bpftrace_latency
		;;
	esac
	cd / || return
}

# ROLE may be a comma-separated list, run in order: `make bench` runs each
# kernel's whole-program rows after its own (nokt,programs-nokt), in the
# same boot
run_role() {
	case "$1" in
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
		# arm64 (make bench ARCH=arm64): the per-call rows and the user
		# timer; task_memory's list of calls is x86-64's, and the
		# profile reads' 10 000 tasks are left to --role read
		if [ "$(uname -m)" = aarch64 ]; then
			echo "BENCH mem.unavailable x86-only for now"
		else
			$B/task_memory
			profile_reads
		fi
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
		bpftrace_row bpftrace_count "$BPFTRACE_COUNT"
		bpftrace_row bpftrace_latency "$BPFTRACE_LATENCY"
		;;
	programs-nokt | programs-ktau | programs-trace)
		programs "${1#programs-}"
		;;
	*)
		echo "BENCH role.unavailable unknown ktaubench '$1' (nokt, ktau, trace, quick, read, programs-nokt, programs-ktau, programs-trace)"
		exit 1
		;;
	esac
}
for r in $(echo "$role" | tr , ' '); do
	run_role "$r"
done
