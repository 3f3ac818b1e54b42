#!/bin/bash
# `make check-tau`: TAU's own runtime against ktau, on the host.
#
#   1. ktau-ctl --system-map writes the System.map of a fake /proc tree's
#      function ids (TAU's -ktausym=);
#   2. TAU from TAU_SHARED's tarball (default ../shared/tau beside the repo)
#      is configured -ktau -ktau_shctr with -ktauinc=/-ktauincuser= the
#      compatibility layer's headers, -ktaulib= its library and -ktausym= that
#      map, and built with its stock sources (build-tau.sh; the time is
#      printed: 142 s on 2 idle cores);
#   3. tests/tau/prog.c, built with TAU's tau_cc.sh, runs with KTAU_PROCFS on
#      a fake /proc tree that shows, between TAU's two reads of the system
#      profile, what a ktau kernel records for its 1000 getpid() and 500
#      read() calls: TAU's Kprofile.0.0.perprocess/ must show them exactly,
#      every routine under its TAU group, and load in ParaProf's reader
#      (../shared/tools/tau-check, when there);
#   4. the same program with TAU_METRICS=TIME:KTAU_INCL_sys_read (-ktau_shctr)
#      writes its MULTI__ directories; a metric naming no routine says so.
# The guest run on a ktau kernel: tests/tau/run-in-guest.sh.
#
#   check-tau.sh [--arch arm64]
#
# --arch arm64 (make check-tau ARCH=arm64): the same for the arm64 guest.
# The layer and ktau-ctl are cross-built (build/user-arm64), TAU is
# cross-configured for aarch64 (-arch=arm64_linux -host=aarch64-linux-gnu:
# TAU's own cross build, CROSS_PREFIX, needs Debian's g++-aarch64-linux-gnu)
# with -useropt=-DTAU_mips (why: step 2), the host's checks run the arm64
# programs under qemu-aarch64 (qemu-user), and the overlay goes to
# build/user-arm64/rootfs-tau, which make initramfs ARCH=arm64 packs.
#
# Prints PASS/FAIL/SKIP lines like every phase of make check.
# Environment: BUILD (the build directory, default build/), TAU_SHARED (the
# directory with build-tau.sh and TAU's tarball), TAU_CHECK_DIR
# (../shared/tools/tau-check).
set -uo pipefail

arch=x86_64
case "$*" in
"") ;;
"--arch arm64" | "--arch x86_64") arch=$2 ;;
*)
	echo "usage: $0 [--arch arm64]" >&2
	exit 2
	;;
esac

top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$top/build}
# shellcheck source=tests/lib/shared-dir.sh
. "$top/tests/lib/shared-dir.sh"
shared=$(ktau_shared_dir "$top") || shared=$top/../shared
TAU_SHARED=${TAU_SHARED:-$shared/tau}
TAU_CHECK_DIR=${TAU_CHECK_DIR:-$shared/tools/tau-check}
work=$BUILD/check-tau
user=$BUILD/user
# x86_64: the host runs what TAU builds; arm64: qemu-aarch64 runs it
tag=tau
make_arch=()
run_on=()
cc=gcc
if [ "$arch" = arm64 ]; then
	work=$BUILD/check-tau-arm64
	user=$BUILD/user-arm64
	tag="tau (arm64)"
	make_arch=(ARCH=arm64)
	# tau_cc.sh's program loads the arm64 libstdc++ and libc of Debian's
	# cross toolchain (libstdc++6-arm64-cross, libc6-arm64-cross)
	run_on=(qemu-aarch64 -L /usr/aarch64-linux-gnu)
	cc=aarch64-linux-gnu-gcc
fi
compat_inc=$top/compat/ktau-tau/include
compat_lib=$user/ktau-tau/lib
map=$work/System.map-ktau
fake=$work/proc

passed=0
failed=0
pass() { echo "PASS: $tag: $1"; passed=$((passed + 1)); }
fail() { echo "FAIL: $tag: $1: $2"; failed=$((failed + 1)); }
# the closing count; non-zero status when anything failed
finish() {
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}

if [ ! -x "$TAU_SHARED/build-tau.sh" ]; then
	echo "SKIP: tau build: no TAU source at $TAU_SHARED (TAU_SHARED=: the directory with build-tau.sh and TAU's tarball)"
	exit 0
fi

if [ "$arch" = arm64 ]; then
	for tool in qemu-aarch64 aarch64-linux-gnu-gcc aarch64-linux-gnu-g++; do
		command -v "$tool" >/dev/null 2>&1 || {
			echo "FAIL: $tag: no $tool (make deps-arm64: Debian's qemu-user, g++-aarch64-linux-gnu)"
			exit 1
		}
	done
fi

rm -rf "$work"
mkdir -p "$fake/ktau" "$work/run"

# the layer, ktau-ctl
if ! make -s -C "$top" tau-compat tools ${make_arch[@]+"${make_arch[@]}"} BUILD="$BUILD" \
	>"$work/make.log" 2>&1; then
	fail "compat build" "make tau-compat tools failed (log $work/make.log)"
	finish
fi

# 1. the fake kernel's function ids and TAU's System.map of them
cat >"$fake/ktau/functions" <<'FUNCS'
ktau-functions 1
columns fid group name
0 syscall read
1 syscall write
39 syscall getpid
463 syscall ia32_waitpid
464 syscall ni_syscall
466 softirq TIMER
467 softirq NET_RX
473 softirq IRQ_POLL
475 irq irq
476 exception page_fault
477 sched schedule_vol
478 sched schedule_invol
479 event read_bytes
612 kernel nfs_io
end
FUNCS
if KTAU_PROCFS=$fake ${run_on[@]+"${run_on[@]}"} "$user/bin/ktau-ctl" --system-map "$map" 2>"$work/map.err" &&
	[ "$(tail -n 1 "$map")" = "c1020000 A _etext" ]; then
	pass "ktau-ctl --system-map writes TAU's System.map"
else
	fail "ktau-ctl --system-map" "$(head -n 3 "$work/map.err")"
	finish
fi

# 2. TAU, stock sources, against the layer.  -DTAU_x86_64: TAU's configure
# names this machine "default", and without it TAU's KTAU clock
# (include/Profile/ktau_timer.h) reads the TSC with a 32-bit rdtsc, whose
# wrap during its 1 s calibration (every other run at 2 GHz) makes its MHz
# 2^64 / 10^6 and every KTAU_INCL_/KTAU_ time 0 (docs/tau.md).
# arm64: ktau_timer.h has no arm64 counter: without TAU_x86_64 (or PowerPC's
# or BG/L's defines) it compiles x86's rdtsc, an asm aarch64 g++ refuses
# ("impossible constraint in 'asm'", RtsLayer.cpp's KTauGetMHz()).
# TAU_mips, which TAU tests nowhere else, makes KTauGetMHz() ask the KTAU
# library, ktau_get_tsc(), for the counter's rate instead of measuring it:
# the layer returns the kernel's own (tsc_khz of /proc), so TAU's MHz is
# exact.  -noplugins: TAU's plugin examples are built with the host's g++
# (they ignore TAU's CROSS_PREFIX) and cannot link the arm64 library.
tau_opts=(-useropt=-DTAU_x86_64)
if [ "$arch" = arm64 ]; then
	tau_opts=(-arch=arm64_linux -host=aarch64-linux-gnu -noplugins -useropt=-DTAU_mips)
fi
start=$(date +%s)
if TAU_SRC=$work/tau.src "$TAU_SHARED/build-tau.sh" "$work/tau" -ktau -ktau_shctr \
	-ktauinc="$compat_inc" -ktauincuser="$compat_inc" -ktaulib="$compat_lib" \
	-ktausym="$map" "${tau_opts[@]}" >"$work/tau-build.log" 2>&1; then
	secs=$(($(date +%s) - start))
	pass "TAU configured -ktau -ktau_shctr builds with its stock sources ($secs s)"
else
	fail "TAU build -ktau -ktau_shctr" "$(tail -n 5 "$work/tau-build.log" | tr '\n' ' ') (log $work/tau.src/make.log)"
	finish
fi
tau_makefile=$(tail -n 1 "$work/tau-build.log")
tau_bin=$(dirname "$(dirname "$tau_makefile")")/bin

# 3. the program, TAU's compiler script
cd "$work/run" || exit 1
if TAU_MAKEFILE=$tau_makefile "$tau_bin/tau_cc.sh" -optQuiet "$top/tests/tau/prog.c" \
	-o "$work/prog" >"$work/prog-build.log" 2>&1; then
	pass "tau_cc.sh builds the instrumented program against TAU -ktau"
	# the guest (tests/tau/run-in-guest.sh) has no shared libraries: the same
	# program linked statically, by hand (TAU's link line names -lgcc_s)
	tau_lib=$(basename "$tau_makefile" | sed 's/^Makefile\.tau/tau/')
	if "$cc" -static "$work/run/prog.o" -L"$(dirname "$tau_makefile")" -l"$tau_lib" \
		-L"$compat_lib" -lktau -lrt -ldl -lm -lstdc++ -lpthread \
		-o "$work/prog-static" >"$work/prog-static.log" 2>&1; then
		pass "the program linked statically for the guest ($work/prog-static)"
		# a root overlay for the guest, which make initramfs packs
		# (mkinitramfs.sh's EXTRA) and the guest test t_tau runs:
		# /opt/ktau-tau/{prog,run-in-guest.sh,map-path}
		rm -rf "$user/rootfs-tau"
		mkdir -p "$user/rootfs-tau/opt/ktau-tau"
		cp "$work/prog-static" "$user/rootfs-tau/opt/ktau-tau/prog"
		cp "$top/tests/tau/run-in-guest.sh" "$user/rootfs-tau/opt/ktau-tau/"
		echo "$map" >"$user/rootfs-tau/opt/ktau-tau/map-path"
	else
		fail "static link" "$(grep -v 'warning: Using' "$work/prog-static.log" | head -n 3 | tr '\n' ' ')"
	fi
else
	fail "tau_cc.sh" "$(tail -n 5 "$work/prog-build.log" | tr '\n' ' ')"
	finish
fi

# what the fake kernel shows: before, thread 1 only; after, thread 1 grown and
# the program's thread with its calls (cycles at 2 GHz)
profile_before() {
	cat <<PROF
ktau-profile 2
tsc_khz 2000000
scope system
task kind=thread pid=1 tid=1 comm=init dropped=0
func 0 0 read syscall 10 1000 1000
path 0 0 read syscall 10 1000 1000
task kind=exited pid=1 tid=0 comm=init exited_threads=0 dropped=0
end
PROF
}
profile_after() {
	cat <<PROF
ktau-profile 2
tsc_khz 2000000
scope system
task kind=thread pid=1 tid=1 comm=init dropped=0
func 0 0 read syscall 12 1400 1300
path 0 0 read syscall 12 1400 1300
task kind=thread pid=$1 tid=$2 comm=prog dropped=0
func 0 39 getpid syscall 1000 200000 200000
func 0 0 read syscall 500 1000000 900000
func 0 476 page_fault exception 3 9000 9000
func 0 475 irq irq 2 3000 3000
func 0 466 TIMER softirq 2 4000 4000
func 0 473 IRQ_POLL softirq 1 1000 1000
func 0 477 schedule_vol sched 1 50000 50000
func 0 612 nfs_io kernel 4 8000 8000
path 0 39 getpid syscall 1000 200000 200000
path 0 0 read syscall 500 1000000 900000
path 0 0,476 page_fault exception 3 9000 9000
path 0 0,477 schedule_vol sched 1 50000 50000
path 0 475 irq irq 2 3000 3000
path 0 475,466 TIMER softirq 2 4000 4000
path 0 473 IRQ_POLL softirq 1 1000 1000
path 0 612 nfs_io kernel 4 8000 8000
event 0 479 read_bytes 500 16 16 8000 128000
task kind=exited pid=1 tid=0 comm=init exited_threads=0 dropped=0
end
PROF
}
thread_profile() {
	cat <<PROF
ktau-profile 2
tsc_khz 2000000
scope thread
task kind=thread pid=$1 tid=$2 comm=prog dropped=0
func 0 0 read syscall 500 1000000 900000
path 0 0 read syscall 500 1000000 900000
end
PROF
}

# runs the program in $work/run/$1 with the fake kernel; extra env after
run_prog() {
	local dir=$work/run/$1 pid tid
	shift
	rm -rf "$dir"
	mkdir -p "$dir"
	profile_before >"$fake/ktau/profile"
	(cd "$dir" && env KTAU_PROCFS="$fake" KTAU_TAU_FAKE_PID_FILE="$dir/pid" \
		KTAU_TAU_FAKE_GO="$dir/go" "$@" ${run_on[@]+"${run_on[@]}"} "$work/prog" >"$dir/out" 2>&1; echo $? >"$dir/rc") &
	for _ in $(seq 600); do
		[ -s "$dir/pid" ] && break
		sleep 0.1
	done
	read -r pid tid <"$dir/pid" || { echo "no pid file"; return 1; }
	profile_after "$pid" "$tid" >"$fake/ktau/profile.new"
	mv "$fake/ktau/profile.new" "$fake/ktau/profile"
	mkdir -p "$fake/$pid/task/$tid"
	thread_profile "$pid" "$tid" >"$fake/$pid/task/$tid/ktau"
	: >"$dir/go"
	wait
	echo "$tid" >"$dir/tid"
	[ "$(cat "$dir/rc")" = 0 ] || { echo "exit status $(cat "$dir/rc"): $(tail -n 3 "$dir/out")"; return 1; }
}

# "NAME()" CALLS ... GROUP="..." in a TAU profile file
has_line() {
	grep -qF -- "$2" "$1"
}

if why=$(run_prog plain); then
	dir=$work/run/plain
	tid=$(cat "$dir/tid")
	k=$dir/Kprofile.0.0.perprocess
	f=$k/profile.$tid.0.1
	missing=
	for want in \
		'"sys_getpid()" 1000 0 ' \
		'"sys_read()" 500 0 ' \
		'GROUP="TAU_KERNEL_MERGE | KTAU_SYSCALL | KTAU_IO"' \
		'"page_fault()" 3 0 ' \
		'"do_IRQ()" 2 0 ' \
		'"softirq_timer()" 2 0 ' \
		'"softirq_irq_poll()" 1 0 ' \
		'"schedule_vol()" 1 0 ' \
		'"nfs_io()" 4 0 ' \
		'"Event_read_bytes()" 500 '; do
		[ -f "$f" ] && has_line "$f" "$want" || missing="$missing [$want]"
	done
	for want in 'sys_getpid()" 1000 0 [0-9.e+-]* [0-9.e+-]* 0 GROUP="TAU_KERNEL_MERGE | KTAU_SYSCALL"$' \
		'do_IRQ().*KTAU_IRQ"$' 'softirq_timer().*KTAU_BH"$' 'softirq_irq_poll().*KTAU_BH"$' \
		'page_fault().*KTAU_EXCEPTION"$' 'schedule_vol().*KTAU_SCHEDULE"$' \
		'nfs_io().*KTAU_DEFAULT"$'; do
		[ -f "$f" ] && grep -q -- "$want" "$f" || missing="$missing [$want]"
	done
	if [ -z "$missing" ]; then
		pass "TAU's Kprofile of the program: 1000 getpid, 500 read, each routine in its TAU group"
	else
		fail "TAU's Kprofile of the program" "missing in $f:$missing"
	fi
	# arm64: TAU's MHz is the kernel's counter rate that the layer reads
	# (TAU_mips, ktau_get_tsc()): the fake's read() cycles, 900000 exclusive
	# and 1000000 inclusive at tsc_khz 2000000, are 450 and 500 us
	if [ "$arch" = arm64 ]; then
		if grep -F '"sys_read()" ' "$f" 2>/dev/null | head -n 1 |
			awk '{ exit !($4 == 450 && $5 == 500) }'; then
			pass "TAU's MHz is the kernel's rate (ktau_get_tsc): sys_read() 450 us exclusive, 500 us inclusive"
		else
			fail "TAU's MHz (ktau_get_tsc)" "sys_read() in $f: $(grep -F '"sys_read()" ' "$f" 2>&1 | head -n 1), expected 450 us exclusive, 500 inclusive"
		fi
	fi
	# thread 1: the difference of TAU's two reads
	if has_line "$k/profile.1.0.0" '"sys_read()" 2 0 '; then
		pass "TAU's Kprofile is the difference of its two reads"
	else
		fail "Kprofile of thread 1" "$(head -n 4 "$k/profile.1.0.0" 2>&1 | tr '\n' ' ')"
	fi
	if [ -f "$dir/profile.0.0.0" ] && has_line "$dir/profile.0.0.0" '"io" 1 0 '; then
		pass "TAU's own profile of the program beside it"
	else
		fail "TAU's own profile" "no \"io\" timer in $dir/profile.0.0.0"
	fi
	# ParaProf's own reader (pprof's plain scan needs a profile.0.0.0, which
	# TAU's Kprofile naming, profile.<pid>.0.<context>, never has: it is
	# checked file by file, pprof -f)
	if [ ! -x "$TAU_CHECK_DIR/check.sh" ]; then
		echo "SKIP: $tag: ParaProf's reader on the Kprofile: no $TAU_CHECK_DIR (TAU_CHECK_DIR=)"
	elif ! command -v javac >/dev/null 2>&1; then
		echo "SKIP: $tag: ParaProf's reader on the Kprofile: javac is not installed (Debian package default-jdk-headless)"
	else
		out=$("$TAU_CHECK_DIR/check.sh" "$k" 2>&1)
		if printf '%s\n' "$out" | grep -q '^RESULT: OK' &&
			! printf '%s\n' "$out" | grep -qE 'pprof -f exit status|/profile\.[0-9.]+: pprof said|pprof stopped early'; then
			pass "ParaProf's reader loads the Kprofile (pprof -f reads each file)"
		else
			fail "ParaProf's reader on the Kprofile" "$(printf '%s\n' "$out" | grep -E 'RESULT|PPROF|FAIL' | head -n 3 | tr '\n' ' ')"
		fi
	fi
else
	fail "the instrumented program under TAU -ktau" "$why"
fi

# 4. -ktau_shctr: kernel counters as TAU metrics
# the static build runs too
if [ -x "$work/prog-static" ]; then
	if (cd "$work/run" && mkdir -p static && cd static &&
		KTAU_PROCFS=$fake ${run_on[@]+"${run_on[@]}"} "$work/prog-static" >out 2>&1) &&
		[ -d "$work/run/static/Kprofile.0.0.perprocess" ]; then
		pass "the static program writes its Kprofile"
	else
		fail "the static program" "$(tail -n 3 "$work/run/static/out" 2>&1 | tr '\n' ' ')"
	fi
fi

if why=$(run_prog shctr TAU_METRICS=TIME:KTAU_INCL_sys_read:KTAU_NUM_sys_read); then
	dir=$work/run/shctr
	if [ -f "$dir/MULTI__KTAU_INCL_sys_read/profile.0.0.0" ] &&
		[ -f "$dir/MULTI__KTAU_NUM_sys_read/profile.0.0.0" ] &&
		has_line "$dir/MULTI__KTAU_NUM_sys_read/profile.0.0.0" '"io" 1 0 '; then
		pass "TAU_METRICS=KTAU_INCL_sys_read:KTAU_NUM_sys_read (-ktau_shctr) writes its metrics"
	else
		fail "-ktau_shctr metrics" "no MULTI__KTAU_* profiles in $dir: $(ls "$dir" | tr '\n' ' ')"
	fi
else
	fail "the program with KTAU_ metrics" "$why"
fi
if run_prog badname TAU_METRICS=TIME:KTAU_sys_raed >/dev/null &&
	grep -q "names no ktau routine" "$work/run/badname/out"; then
	pass "a KTAU_ metric naming no routine is refused with a message"
else
	fail "a KTAU_ metric naming no routine" "$(head -n 3 "$work/run/badname/out" 2>&1 | tr '\n' ' ')"
fi
finish
