#!/bin/bash
# `make check`: every test of the project, then the summary.
#
# Each phase prints `PASS: name` / `FAIL: name: why` lines, and `SKIP: name:
# what is missing` where a check cannot run here (a tool, a package or a
# kernel feature it needs is missing); a phase that cannot even build
# reports one FAIL for itself.  The whole log is kept in build/check.log.
# scripts/summary.sh counts the three and lists the failed and skipped
# checks; the last two lines are `N passed, N failed, N skipped` and
# `N passed, N failed`.  Exit status: 0 when nothing failed (a skip fails
# only under KTAU_CHECK_NO_SKIP=1, as .ci/run runs it).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
log=$BUILD/check.log
mkdir -p "$BUILD"
: > "$log"

results=$(mktemp)

# each phase's start, with the seconds since make check began: where
# CI's time goes
say() { printf '==> %s (at %d s)\n' "$*" "$SECONDS" | tee -a "$log"; }

# run NAME CMD...: run a phase, keep its PASS/FAIL/SKIP lines, fail it if the
# command fails without having reported a FAIL itself.
run() {
	local name=$1 out rc
	shift
	say "$name"
	out=$("$@" 2>&1)
	rc=$?
	printf '%s\n' "$out" >> "$log"
	printf '%s\n' "$out" | grep -E '^(PASS|FAIL|SKIP): ' | tee -a "$results"
	if [ $rc -ne 0 ] && ! printf '%s\n' "$out" | grep -q '^FAIL: '; then
		printf 'FAIL: %s: exited %d; last lines:\n' "$name" "$rc" | tee -a "$results"
		printf '%s\n' "$out" | tail -n 15 | sed 's/^/    /'
	fi
	return 0
}

# run_beside WHAT CMD...: CMD (which calls run()) in the background, its
# output kept apart until join_beside() adds it: host phases that need no
# kernel run while the guest tests keep one core busy (QEMU runs
# single-threaded).
beside_dir=$(mktemp -d)
trap 'rm -f "$results"; rm -rf "$beside_dir"' EXIT
beside_pids=()
run_beside() {
	local n=${#beside_pids[@]}
	( results=$beside_dir/$n.results log=$beside_dir/$n.log
	  : > "$results"; : > "$log"
	  "${@:2}" > "$beside_dir/$n.out" ) &
	beside_pids+=("$!")
	say "$1: started beside the next phases"
}

join_beside() {
	local i
	for i in "${!beside_pids[@]}"; do
		wait "${beside_pids[$i]}"
		say "joined: phases run beside the others ($i)"
		cat "$beside_dir/$i.log" >> "$log"
		cat "$beside_dir/$i.out"
		cat "$beside_dir/$i.results" >> "$results"
	done
	beside_pids=()
}

# arm64's kernel and guest root (the arm64 phase below boots them), built
# from the start beside everything else, one job at a time: the phases
# before the guest tests keep both cores busy only while a kernel builds
# (niced, this build got next to nothing then, and the arm64 phase waited
# for it).  Built in the host side, after the unit tests, they kept it
# running long after the x86 guest tests (CI took 2989 s with them there,
# 1864 s before the arm64 phase).  build-kernel.sh prepares the shared
# source tree for one build at a time; the arm64 builds write only their
# own directories.  The arm64 phase waits for them (the lock).
ARM64_KCONFIG=qemu-arm64-check
arm64_lock=$beside_dir/arm64-build.lock
arm64_build() {
	run "arm64 kernel build ($ARM64_KCONFIG, beside)" \
		env JOBS=1 make -s -C "$top" kernel ARCH=arm64 KCONFIG="$ARM64_KCONFIG"
	# TAU cross-built for t_tau and staged before the root is packed
	# (make check-tau ARCH=arm64: 30 s on 2 idle cores, its program run
	# under qemu-aarch64 on the fake /proc)
	run "TAU against ktau (arm64, make check-tau ARCH=arm64, beside)" \
		env BUILD="$BUILD" "$top/tests/tau/check-tau.sh" --arch arm64
	run "arm64 user space and guest root (beside)" \
		make -s -C "$top" initramfs ARCH=arm64 KCONFIG="$ARM64_KCONFIG"
	# Debian's arm64 Open MPI that root got, copied again and checked
	run "guest Open MPI root (arm64, beside)" env BUILD="$BUILD" \
		SYSROOT="$BUILD/arm64-deps/mpi-root" "$top/tests/mpi/check-guest-openmpi.sh"
}
# taken here, held by the builds' shell alone (fd 8) until it ends
exec 8>"$arm64_lock"
flock 8
run_beside "arm64 kernel and guest root" arm64_build
exec 8>&-

# summary() itself: what the last lines of this script say
run "check summary (host)" "$top/tests/lib/test-summary.sh"
run "install" "$top/tests/install/check-install.sh"
# one release number in ktau.h, the map, the changelog, the symbols files,
# the .pc files and the shared objects' names; KTAU_PRIVATE for libktau-prof
run "ABI metadata" "$top/tests/install/check-abi.sh"
# libktau-mpi under a real Open MPI, on the host (SKIP without mpicc/mpirun)
run "MPI library (host, Open MPI)" "$top/tests/mpi/check-mpi.sh"
# the copy of Open MPI into the guest root: bad input, the host's
run "guest Open MPI root (host)" "$top/tests/mpi/check-guest-openmpi.sh"
# libktau-papi through PAPI's own tools, on the host (no counter area here)
run "PAPI library (host)" "$top/tests/papi/check-papi.sh"
run "deb" "$top/tests/install/check-deb.sh"
# dpkg -i of those packages on this machine, then purge (root only)
run "deb installed on the host" "$top/tests/install/check-deb-host.sh"
run "guest reader self-test (host)" make -s -C "$top/tests/guest" BUILD="$BUILD/user" selftest
# the table `make bench` prints, on fixed figures: its rows and verdicts
run "bench table (host)" "$top/tests/bench/check-bench-table.sh"
# the docs' relative links resolve; the README is short, make demo and
# make check on its first screen
run "docs: links and README (host)" "$top/tests/lib/check-doc-links.sh"
# kernel-ext/Documentation: the ABI entries pass the 6.12 tree's
# scripts/get_abi.pl validate and name every /proc file ktau makes; the
# admin guide has every control command and group, and the overhead rows
# of docs/benchmark.md
run "kernel docs: ABI and admin guide (host)" "$top/tests/lib/check-kernel-docs.sh"
# the kernel core is generic C; x86's part is its asm/ktau.h, its entry
# patches and its generated syscall ids
run "kernel arch split (host)" "$top/tests/lib/check-arch-split.sh"
# scripts/deps.sh's profiles, and make demo/demo-mpi install theirs first
run "deps profiles (host)" "$top/tests/lib/check-deps-profiles.sh"
run "patch series applies with quilt" "$top/scripts/check-quilt.sh"
# The guest tests run on the debug kernel (tests/configs/debug.config: the
# QEMU kernel plus KASAN, KFENCE, lockdep, PROVE_RCU, atomic-sleep and
# preempt checks, DEBUG_OBJECTS, DEBUG_LIST, UBSAN, failslab): any report
# in its log fails the kernel-log-clean check.  KCONFIG=qemu tests the
# plain kernel instead.
KCONFIG=${KCONFIG:-debug}
export KCONFIG
run "kernel build ($KCONFIG)" make -s -C "$top" kernel KCONFIG="$KCONFIG"
# TAU built -ktau -ktau_shctr against the compatibility layer, a TAU program
# on a fake /proc, and the program staged for the guest (t_tau): before the
# initramfs is packed (make check-tau, about 3 minutes)
run "TAU against ktau (make check-tau)" env BUILD="$BUILD" "$top/tests/tau/check-tau.sh"
run "user build" make -s -C "$top" initramfs KCONFIG="$KCONFIG"
# beside the guest tests, which keep one core busy: the host unit tests,
# the kernel's static checks and other configs, arm64 (the arm64 kernel
# and guest root cross-built from the same tree, in their own
# directories, so no x86 build is touched, and a phase of the guest suite
# under qemu-system-aarch64: boot, counts, stress and permissions, as
# issue 36 asks, and their neighbours (t_hints: the slot arithmetic that
# differs by architecture), and an MPI job: 26 s), the
# kernel's packages and
# tcgprof.  Stop 44's CI (3 075 s) ran the static checks and configs
# before the guest tests, and the packages and tcgprof after them, with
# this side done some 960 s before the guest tests were.
ARM64_PHASE=t_boot,t_counts,t_aarch32,t_fault,t_inclexcl,t_renumber,t_entrywork,t_hints,t_stress,t_threads,t_perm,t_control,t_format,t_mpi,t_papi,t_tau
host_side() {
	# niced, as the arm64 build is from here on: the guest tests are the
	# longest path, one QEMU thread that a compiler or fuzzer beside it
	# must not slow (with the arm64 build still running, three jobs
	# shared two cores)
	renice -n 10 -p "$BASHPID" > /dev/null
	run "host unit tests" make -s -C "$top/tests/unit" BUILD="$BUILD/user" run
	# make deb ARCH=arm64: the arm64 packages, cross-built, checked as
	# the x86 ones are, their programs run under qemu-aarch64 (about 70 s;
	# first, while the arm64 build may still run)
	run "deb (arm64, cross-built)" env BUILD="$BUILD" DEB_ARCH=arm64 \
		"$top/tests/install/check-deb.sh"
	# and installed here beside the host's architecture (multiarch), their
	# programs run from /usr/bin under qemu-aarch64 (root only)
	run "deb (arm64) installed on the host" env BUILD="$BUILD" DEB_ARCH=arm64 \
		"$top/tests/install/check-deb-host.sh"
	# the kernel side's static checks and its other configs: each in an
	# object directory of its own (style's W=1 objects of kernel/ktau/ in
	# the $KCONFIG one, which the guest no longer needs), one job each,
	# beside the guest tests rather than before them
	run "kernel style (checkpatch --strict, W=1, sparse)" \
		env JOBS=1 "$top/scripts/check-kernel-style.sh"
	# the series for git am (make series): applies, gives the tree above, checkpatch
	run "generated series (make series)" "$top/scripts/check-series.sh"
	run "kernel builds with CONFIG_KTAU=n" env JOBS=1 "$top/scripts/check-ktau-off.sh"
	run "patched files compile under Debian's config" \
		env JOBS=1 "$top/scripts/check-debian-config.sh" --objects
	# the exactness phase of the arm64 guest suite, on the suite's own
	# arm64 kernel (failslab for t_stress; it covers the smoke test of
	# make check-arm64-boot, which make check no longer runs); its kernel
	# and guest root built above, so make finds them up to date
	exec 8>"$arm64_lock"
	flock 8
	run "arm64 guest tests: $ARM64_PHASE (make check-arm64)" \
		env ARM64_TAU_STAGED=1 make -s -C "$top" check-arm64 ARM64_TESTS="$ARM64_PHASE" \
		ARM64_CHECK_KCONFIG="$ARM64_KCONFIG"
	exec 8>&-
	# make demo ARCH=arm64's guest run on that kernel and guest root
	# (about 15 s): its exact merged callpaths, ParaProf's reader on its
	# tau/, the host's ktau-report on its files
	run "arm64 demo (make demo ARCH=arm64's guest run)" \
		env BUILD="$BUILD" ARCH=arm64 DEMO_KERNEL="$BUILD/Image-$ARM64_KCONFIG" \
		DEMO_INITRD="$BUILD/initramfs-arm64.cpio.gz" "$top/tests/qemu/check-demo.sh"
	# the kernel's Debian packages (bindeb-pkg) of the $KCONFIG kernel,
	# from a copy of its object directory, after style's W=1 objects:
	# after every other kernel build, not beside one
	run "kernel packages (make deb-kernel)" env JOBS=1 \
		"$top/tests/install/check-deb-kernel.sh"
	# the instruction profiler of docs/benchmark.md: its sums, and
	# Debian's QEMU loading it for a boot of the guests' kernel
	run "tcgprof: QEMU plugin and report (host)" \
		env BUILD="$BUILD" "$top/tests/bench/check-tcgprof.sh"
}
run_beside "host unit tests, arm64 guest phase" host_side

# renice_tree NICE PID: PID and every process under it, for the compilers
# a make starts later inherit its niceness (the parents from /proc/N/stat,
# after the command name's closing parenthesis)
renice_tree() {
	local stat line pid ppid p
	local -A parent=()
	local -a todo=("$2") tree=()

	for stat in /proc/[0-9]*/stat; do
		# a process may exit between the glob and the read
		read -r line 2> /dev/null < "$stat" || continue
		pid=${stat#/proc/}
		line=${line##*) }
		ppid=${line#* }
		parent[${pid%/stat}]=${ppid%% *}
	done
	while [ ${#todo[@]} -gt 0 ]; do
		p=${todo[0]}
		todo=("${todo[@]:1}")
		tree+=("$p")
		for pid in "${!parent[@]}"; do
			[ "${parent[$pid]}" = "$p" ] && todo+=("$pid")
		done
	done
	renice -n "$1" -p "${tree[@]}" > /dev/null 2>&1
}
# the arm64 build, when it still runs, yields to the guest tests as the
# host side does: it shared the cores with the kernel build before them
renice_tree 10 "${beside_pids[0]}"
if [ -f "$BUILD/bzImage" ] && [ -f "$BUILD/initramfs.cpio.gz" ]; then
	# the 9p share brings the guest's archive back (t_report)
	rm -rf "$BUILD/guest-share"
	# 1 GiB: the 4000-thread attack of t_hostile on the KASAN kernel
	export QEMU_MEM=${QEMU_MEM:-1G}
	run "guest tests (QEMU)" "$top/tests/qemu/run-guest.sh" --mode check \
		--kernel "$BUILD/bzImage" --initrd "$BUILD/initramfs.cpio.gz" \
		--timeout "${GUEST_TIMEOUT:-2400}" --log "$BUILD/qemu-check.log" \
		--share "$BUILD/guest-share"
	run "guest archive read on the host" "$top/tests/qemu/check-guest-archive.sh" \
		"$BUILD/guest-share" "$BUILD/user/bin/ktau-report"
	run "TAU's guest Kprofile read on the host" "$top/tests/tau/check-guest-kprofile.sh" \
		"$BUILD/guest-share"
else
	echo "FAIL: guest tests: no kernel or initramfs to boot" | tee -a "$results"
fi
join_beside

# shellcheck source=scripts/summary.sh
. "$top/scripts/summary.sh"
summary "$results" "$log"
