#!/bin/bash
# `make bench` (issue 7): ktau's overhead, deterministic, in one table.
#
# Builds three kernels from the same tree (tests/configs/bench-nokt: ktau
# compiled out; qemu: ktau; bench-trace: ktau plus ftrace, kprobes, perf
# events and BPF, with BTF for bpftrace), the benchmark programs of bench/
# and an initramfs with them (plus Debian's strace and perf with their
# libraries, when installed; the tracing kernel's initramfs also has
# bpftrace, with LLVM and clang: about 200 MB more), boots each kernel
# once under `qemu-system-x86_64 -icount shift=0` (one CPU; the guest
# clock advances 1 ns per instruction, so every number is an instruction
# count and repeats exactly; norandmaps lays out every run's memory the
# same way), and prints the table of
# scripts/bench-table.sh: every issue-7 goal with its measured value and
# "met" or "NOT met".
#
# A goal that is not met does not fail: this is a benchmark, not a test.
# Exit status: 0 the table was printed; 1 a build or a guest run failed
# (its log is named).
#
# --quick: only the per-call rows (system calls, round trip, fault) of the
# bench-nokt and qemu kernels, printed raw with the differences: a few
# minutes, for work on the hooks.
#
# Whole programs (issue 35): each of the three guests then also runs real
# programs to completion on fixed inputs (scripts/bench-inputs.sh packs
# them into the bench initramfs: busybox tar/gzip, sort, md5sum, a busybox
# sh script of 1 000 execs, ScaLAPACK's xdlu under Open MPI), timed by
# bench/progtime, after its per-call rows in the same boot; the table's
# "Whole programs" section.
#
# --role ROLE: only the kernel and guest run of one role (nokt: ktau
# compiled out; ktau; trace: the tracing kernel and the peers; quick: the
# per-call rows on the ktau kernel; read: the /proc/ktau/profile reads
# alone; programs: the whole programs alone, on all three kernels, one
# boot each, then the table's "Whole programs" section; programs-nokt,
# programs-ktau, programs-trace: those of one kernel), printed as the
# guest's raw BENCH lines, for work on one part of the table.
#
# Environment: BUILD (default build/), JOBS (kernel make jobs, default
# nproc), BENCH_TIMEOUT (seconds per guest run, default 1800), QEMU_MEM
# (guest memory; default 1G, 2G for the trace role, whose initramfs holds
# bpftrace).  Logs and the guests' raw BENCH lines are kept in BUILD/bench/.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
JOBS=${JOBS:-$(nproc)}
BENCH_TIMEOUT=${BENCH_TIMEOUT:-1800}
out=$BUILD/bench
root=$out/rootfs
initrd=$out/initramfs.cpio.gz
initrd_trace=$out/initramfs-trace.cpio.gz
mkdir -p "$out"
usage() { printf 'usage: scripts/bench.sh [--quick | --role nokt|ktau|trace|quick|read|programs|programs-nokt|programs-ktau|programs-trace]\n' >&2; exit 2; }
kernel_of() {	# kernel_of ROLE: the config (tests/configs/NAME.config) of its kernel
	case $1 in
	nokt | programs-nokt) echo bench-nokt ;;
	ktau | quick | read | programs-ktau) echo qemu ;;
	trace | programs-trace) echo bench-trace ;;
	programs) echo bench-nokt qemu bench-trace ;;
	esac
}
quick=
only=
case ${1:-} in
--quick) quick=1 ;;
--role)
	only=${2:-}
	[ -n "$(kernel_of "$only")" ] || usage
	;;
'') ;;
*) usage ;;
esac
kernels="bench-nokt qemu bench-trace"
roles="nokt ktau trace"
[ -z "$quick" ] || { kernels="bench-nokt qemu"; roles="nokt ktau"; }
[ -z "$only" ] || { kernels=$(kernel_of "$only"); roles=$only; }
[ "$only" != programs ] || roles="programs-nokt programs-ktau programs-trace"
# the whole programs: after each kernel's own rows in the full run
programs=
[ -n "$quick" ] || case "$only" in '' | programs | programs-*) programs=1 ;; esac

say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'bench: error: %s\n' "$*" >&2; exit 1; }
start=$(date +%s)

say "building libktau and the benchmark programs"
make -s -C "$top" bench-programs >"$out/programs.log" 2>&1 ||
	die "building the benchmark programs failed (see $out/programs.log)"
# libktau-mpi for the MPI workload's merged row (Open MPI's mpicc needed)
if [ -n "$programs" ] && command -v mpicc >/dev/null; then
	make -s -C "$top" mpi >>"$out/programs.log" 2>&1 ||
		die "building libktau-mpi failed (see $out/programs.log)"
fi

for k in $kernels; do
	say "building kernel $k (log: $out/kernel-$k.log)"
	JOBS=$JOBS BUILD=$BUILD "$top/scripts/build-kernel.sh" "$k" >"$out/kernel-$k.log" 2>&1 ||
		die "building kernel $k failed: $(tail -n 3 "$out/kernel-$k.log")"
done
case " $kernels " in
*" bench-nokt "*)
	grep -q '^CONFIG_KTAU=y' "$BUILD/kernel-bench-nokt/.config" &&
		die "kernel bench-nokt has CONFIG_KTAU=y (tests/configs/bench-nokt.config)"
	;;
esac

# The guest root: the programs, and the tracers with what they load;
# bpftrace (LLVM, clang) only in the tracing kernel's initramfs.
say "packing the bench initramfs"
rm -rf "$root"
mkdir -p "$root/bench"
cp "$BUILD"/user/bench/* "$BUILD/user/bin/ktau-trace" "$root/bench/"
"$top/scripts/bench-tracers.sh" "$root" strace perf >&2
if [ -n "$programs" ]; then
	say "writing the whole programs' inputs (scripts/bench-inputs.sh)"
	"$top/scripts/bench-inputs.sh" "$root" "$BUILD/user" ||
		die "writing the whole programs' inputs failed"
fi
if [ "$roles" != trace ] && [ "$roles" != programs-trace ]; then
	EXTRA=$root KMOD='' "$top/tests/qemu/mkinitramfs.sh" "$root" "$initrd" bench ||
		die "packing the initramfs failed"
fi
case " $roles " in
*" trace "* | *" programs-trace "*)
	say "packing the tracing kernel's initramfs (with bpftrace)"
	"$top/scripts/bench-tracers.sh" "$root" bpftrace >&2
	EXTRA=$root KMOD='' "$top/tests/qemu/mkinitramfs.sh" "$root" "$initrd_trace" bench ||
		die "packing the initramfs failed"
	;;
esac

# progress: the guest's "INFO: programs:" lines, as its log grows (a
# loop that looks every 5 s: it ends by its id, with nothing under it but
# a sleep)
follow() {	# follow LOG: in the background; its id: follower
	(
		seen=0
		while sleep 5; do
			n=$(grep -a -c '^INFO: programs:' "$1")
			[ "$n" -gt "$seen" ] || continue
			grep -a '^INFO: programs:' "$1" | sed -n "$((seen + 1)),${n}s/^INFO: programs: /==>   /p" >&2
			seen=$n
		done
	) &
	follower=$!
}
for role in $roles; do
	kernel=$BUILD/bzImage-$(kernel_of "$role")
	rd=$initrd mem=${QEMU_MEM:-1G}
	case $role in trace | programs-trace) rd=$initrd_trace mem=${QEMU_MEM:-2G} ;; esac
	what=$role
	[ -z "$quick" ] || what=quick
	# the whole programs in the same boot, after the role's own rows
	case $role in nokt | ktau | trace) [ -z "$programs" ] || what="$role,programs-$role" ;; esac
	say "guest run: $what ($kernel, log: $out/guest-$role.log)"
	: >"$out/guest-$role.log"
	follower=
	[ -z "$programs" ] || follow "$out/guest-$role.log"
	QEMU_SMP=1 QEMU_MEM=$mem "$top/tests/qemu/run-guest.sh" \
		--mode bench --icount 0 --kernel "$kernel" --initrd "$rd" \
		--append "norandmaps ktaubench=$what" --timeout "$BENCH_TIMEOUT" \
		--log "$out/guest-$role.log" >"$out/guest-$role.result" 2>&1
	status=$?
	[ -z "$follower" ] || { kill "$follower" 2>/dev/null; wait "$follower" 2>/dev/null; }
	[ $status -eq 0 ] || die "the $role guest run failed: $(grep FAIL "$out/guest-$role.result")"
	grep -aoE 'BENCH [^ ]+ .*' "$out/guest-$role.log" >"$out/bench-$role.txt"
done

if [ "$only" = programs ]; then
	cat "$out"/bench-programs-nokt.txt "$out"/bench-programs-ktau.txt \
		"$out"/bench-programs-trace.txt >"$out/bench-programs.txt"
	say "done in $(( $(date +%s) - start )) s; raw results: $out/bench-programs.txt"
	cat "$out/bench-programs.txt"
	echo
	"$top/scripts/bench-table.sh" --programs "$out/bench-programs.txt"
	exit 0
fi
if [ -n "$only" ]; then
	say "done in $(( $(date +%s) - start )) s; raw results: $out/bench-$only.txt"
	cat "$out/bench-$only.txt"
	exit 0
fi
if [ -n "$quick" ]; then
	awk '$2 ~ /^nokt\./ { split($2, k, "."); base[k[2]] = $3 }
	     $2 ~ /^(off|on|sysonly|all|ctx|ctxother|ctxgone|traceonly|traceprof)\./ { split($2, k, ".");
		printf "%-24s %12.1f  (%+.1f)\n", $2, $3, $3 - base[k[2]] }' \
		"$out"/bench-nokt.txt "$out"/bench-ktau.txt
	exit 0
fi
cat "$out"/bench-nokt.txt "$out"/bench-ktau.txt "$out"/bench-trace.txt >"$out/results.txt"
say "done in $(( $(date +%s) - start )) s; raw results: $out/results.txt"
"$top/scripts/bench-table.sh" "$out/results.txt" | tee "$out/table.txt"
