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
# ARCH=arm64 (`make bench ARCH=arm64`, issue 36): the same per-call rows
# on arm64: kernels bench-nokt-arm64 (ktau compiled out) and qemu-arm64
# (ktau), cross-built, the programs cross-built statically
# (BUILD/user-arm64/bench), both booted under `qemu-system-aarch64
# -icount shift=0` (one CPU); the guest reads the virtual counter
# CNTVCT_EL0, scaled by its frequency, which under -icount counts
# instructions too (bench/icount.h).  Rows 1-4 and their companions,
# the page fault, the user timer; the arm64 goals (scripts/bench-table.sh
# --arch arm64).  x86-only for now, skipped and said so: the tracing
# kernel and the peers (rows 5-5g: Debian's strace, perf and bpftrace are
# the host's x86 builds), the whole programs, memory per task and the
# profile reads (--role read runs those).  Logs and results in
# BUILD/bench-arm64/.
#
# Environment: BUILD (default build/), JOBS (kernel make jobs, default
# nproc), BENCH_TIMEOUT (seconds per guest run, default 1800), QEMU_MEM
# (guest memory; default 1G, 2G for the trace role, whose initramfs holds
# bpftrace), ARCH (x86_64, the default, or arm64), BENCH_WORKLOADS (the
# whole programs to run, of: tree text proc mpi; default all four: for
# working on one, e.g. with bench/tcgprof).  Logs and the guests'
# raw BENCH lines are kept in BUILD/bench/.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
JOBS=${JOBS:-$(nproc)}
BENCH_TIMEOUT=${BENCH_TIMEOUT:-1800}
# the kernel's and make's ARCH: passed to them explicitly below
arch=${ARCH:-x86_64}
unset ARCH
case $arch in
x86 | x86_64) arch=x86_64 ;;
arm64 | aarch64) arch=arm64 ;;
*) printf 'bench: error: ARCH=%s: x86_64 or arm64\n' "$arch" >&2; exit 2 ;;
esac
out=$BUILD/bench
[ "$arch" = x86_64 ] || out=$BUILD/bench-arm64
root=$out/rootfs
initrd=$out/initramfs.cpio.gz
initrd_trace=$out/initramfs-trace.cpio.gz
mkdir -p "$out"
usage() { printf 'usage: scripts/bench.sh [--quick | --role nokt|ktau|trace|quick|read|programs|programs-nokt|programs-ktau|programs-trace]\n' >&2; exit 2; }
kernel_of() {	# kernel_of ROLE: the config (tests/configs/NAME.config) of its kernel
	if [ "$arch" = arm64 ]; then
		# the tracing kernel and the whole programs: x86-only for now
		case $1 in
		nokt) echo bench-nokt-arm64 ;;
		ktau | quick | read) echo qemu-arm64 ;;
		esac
		return
	fi
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
	if [ -z "$(kernel_of "$only")" ]; then
		[ "$arch" = arm64 ] && [ -n "$(arch=x86_64 kernel_of "$only")" ] &&
			{ printf 'bench: --role %s is x86-only for now (arm64: nokt, ktau, quick, read)\n' "$only" >&2; exit 2; }
		usage
	fi
	;;
'') ;;
*) usage ;;
esac
kernels="bench-nokt qemu bench-trace"
roles="nokt ktau trace"
[ -z "$quick" ] || { kernels="bench-nokt qemu"; roles="nokt ktau"; }
[ "$arch" = x86_64 ] || { kernels="bench-nokt-arm64 qemu-arm64"; roles="nokt ktau"; }
[ -z "$only" ] || { kernels=$(kernel_of "$only"); roles=$only; }
[ "$only" != programs ] || roles="programs-nokt programs-ktau programs-trace"
# the whole programs: after each kernel's own rows in the full run
programs=
[ -n "$quick" ] || [ "$arch" = arm64 ] || case "$only" in '' | programs | programs-*) programs=1 ;; esac

say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'bench: error: %s\n' "$*" >&2; exit 1; }
start=$(date +%s)
workloads=${BENCH_WORKLOADS:-tree text proc mpi}
progs_arg=
for w in $workloads; do
	case $w in tree | text | proc | mpi) ;; *) die "BENCH_WORKLOADS: '$w' is none of tree, text, proc, mpi" ;; esac
	progs_arg=${progs_arg:+$progs_arg,}$w
done
[ -n "$progs_arg" ] || die "BENCH_WORKLOADS: empty"

# arm64: the programs, libktau and ktau-trace of BUILD/user-arm64, and
# Debian's arm64 busybox for the guest (the Makefile's ARCH=arm64 build)
user=$BUILD/user
make_arch=
kimage=bzImage
if [ "$arch" = arm64 ]; then
	user=$BUILD/user-arm64
	make_arch=ARCH=arm64
	kimage=Image
	say "arm64: the tracing kernel, the peers (rows 5-5g), the whole programs and memory per task are x86-only for now: skipped; the profile reads: --role read"
fi
say "building libktau and the benchmark programs"
make -s -C "$top" $make_arch bench-programs >"$out/programs.log" 2>&1 ||
	die "building the benchmark programs failed (see $out/programs.log)"
# libktau-mpi for the MPI workload's merged row (Open MPI's mpicc needed)
if [ -n "$programs" ] && command -v mpicc >/dev/null; then
	make -s -C "$top" mpi >>"$out/programs.log" 2>&1 ||
		die "building libktau-mpi failed (see $out/programs.log)"
fi

for k in $kernels; do
	say "building kernel $k (log: $out/kernel-$k.log)"
	ARCH=$arch JOBS=$JOBS BUILD=$BUILD "$top/scripts/build-kernel.sh" "$k" >"$out/kernel-$k.log" 2>&1 ||
		die "building kernel $k failed: $(tail -n 3 "$out/kernel-$k.log")"
done
for k in bench-nokt bench-nokt-arm64; do
	case " $kernels " in
	*" $k "*)
		grep -q '^CONFIG_KTAU=y' "$BUILD/kernel-$k/.config" &&
			die "kernel $k has CONFIG_KTAU=y (tests/configs/$k.config)"
		;;
	esac
done

# The guest root: the programs, and the tracers with what they load;
# bpftrace (LLVM, clang) only in the tracing kernel's initramfs.
say "packing the bench initramfs"
rm -rf "$root"
mkdir -p "$root/bench"
cp "$user"/bench/* "$user/bin/ktau-trace" "$root/bench/"
# the host's strace and perf are x86 builds
[ "$arch" = arm64 ] || "$top/scripts/bench-tracers.sh" "$root" strace perf >&2
[ "$arch" = x86_64 ] || export BUSYBOX=$BUILD/arm64-deps/root/bin/busybox
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
	kernel=$BUILD/$kimage-$(kernel_of "$role")
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
	QEMU_SMP=1 QEMU_MEM=$mem GUEST_ARCH=$arch "$top/tests/qemu/run-guest.sh" \
		--mode bench --icount 0 --kernel "$kernel" --initrd "$rd" \
		--append "norandmaps ktaubench=$what ktauprogs=$progs_arg" --timeout "$BENCH_TIMEOUT" \
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
if [ "$arch" = arm64 ]; then
	cat "$out"/bench-nokt.txt "$out"/bench-ktau.txt >"$out/results.txt"
	say "done in $(( $(date +%s) - start )) s; raw results: $out/results.txt"
	"$top/scripts/bench-table.sh" --arch arm64 "$out/results.txt" | tee "$out/table.txt"
	exit 0
fi
cat "$out"/bench-nokt.txt "$out"/bench-ktau.txt "$out"/bench-trace.txt >"$out/results.txt"
say "done in $(( $(date +%s) - start )) s; raw results: $out/results.txt"
"$top/scripts/bench-table.sh" "$out/results.txt" | tee "$out/table.txt"
