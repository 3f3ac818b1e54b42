#!/bin/bash
# scripts/deps.sh's profiles, on the host, installing nothing: `all` is
# every profile together; the demo's leaves out what only the tests, the
# benchmark, MPI, packaging and arm64 use; each builds on the demo's (deb on the
# kernel's build); an unknown profile is refused. And the Makefile: make
# demo (ARCH=arm64: the arm64 profile) and make demo-mpi install their
# profile before anything else, and build in a new make that reads the
# Makefile after the install (make -n).
#
#   tests/lib/check-deps-profiles.sh
#
# Prints PASS:/FAIL: lines; exits 1 when a check failed.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
deps=$top/scripts/deps.sh
check_group='deps-profiles'
# shellcheck source=tests/lib/check.sh
. "$top/tests/lib/check.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

list() { "$deps" --list "$@" | LC_ALL=C sort; }
for p in demo mpi bench deb arm64 deb-arm64 check all; do
	list "$p" >"$tmp/$p" || { check "list-$p" 1 "scripts/deps.sh --list $p failed"; exit 1; }
done

# all: the union of the others, nothing else
cat "$tmp/demo" "$tmp/mpi" "$tmp/bench" "$tmp/deb" "$tmp/arm64" "$tmp/deb-arm64" "$tmp/check" |
	LC_ALL=C sort -u >"$tmp/union"
cmp -s "$tmp/union" "$tmp/all"
check all-is-union $? "all differs from the union of the profiles: $(diff "$tmp/union" "$tmp/all" | grep '^[<>]' | tr '\n' ' ')"
[ "$(list)" = "$(cat "$tmp/all")" ]
check default-is-all $? "scripts/deps.sh without a profile is not all"

# each of them has the demo's packages (deb: those of the kernel build)
for p in mpi bench check all; do
	extra=$(LC_ALL=C comm -23 "$tmp/demo" "$tmp/$p" | tr '\n' ' ')
	[ -z "$extra" ]
	check "$p-has-demo" $? "$p lacks $extra"
done
# has PROFILE PKG...: those of the PKGs the profile lacks
has() {
	local p=$1 pkg
	shift
	for pkg; do
		grep -qx "$pkg" "$tmp/$p" || printf '%s ' "$pkg"
	done
}
# hasnt PROFILE PKG...: those of the PKGs the profile has
hasnt() {
	local p=$1 pkg
	shift
	for pkg; do
		! grep -qx "$pkg" "$tmp/$p" || printf '%s ' "$pkg"
	done
}
out=$(has demo build-essential linux-source-6.12 qemu-system-x86 busybox-static)
check demo-builds-and-boots "${#out}" "the demo profile lacks $out"
# the demo's: none of the tests', the benchmark's, MPI's, packaging's
out=$(hasnt demo golang-go clang bpftrace linux-perf dwarves openmpi-bin libopenmpi-dev \
	gfortran lintian debhelper libotf2-trace-dev quilt valgrind)
check demo-only-the-demo "${#out}" "the demo profile installs $out"
out=$(has mpi openmpi-bin libopenmpi-dev gfortran)
check mpi-has-openmpi "${#out}" "the mpi profile lacks $out"
out=$(has arm64 build-essential linux-source-6.12 gcc-aarch64-linux-gnu \
	gcc-arm-linux-gnueabihf qemu-system-arm)
check arm64-cross-builds-and-boots "${#out}" "the arm64 profile lacks $out"
out=$(hasnt demo gcc-aarch64-linux-gnu qemu-system-arm)
check demo-without-arm64 "${#out}" "the demo profile installs $out"
out=$(LC_ALL=C comm -23 "$tmp/arm64" "$tmp/check" | tr '\n' ' ')
check check-has-arm64 "${#out}" "the check profile lacks $out"
# deb-arm64: deb and arm64, and debian/control's Build-Depends for arm64
out=$(LC_ALL=C cat "$tmp/deb" "$tmp/arm64" | LC_ALL=C sort -u | LC_ALL=C comm -23 - "$tmp/deb-arm64" | tr '\n' ' ')
check deb-arm64-has-deb-and-arm64 "${#out}" "the deb-arm64 profile lacks $out"
out=$(has deb-arm64 libelf-dev:arm64 zlib1g-dev:arm64)
check deb-arm64-has-build-depends "${#out}" "the deb-arm64 profile lacks $out"
out=$(LC_ALL=C comm -23 "$tmp/deb-arm64" "$tmp/check" | tr '\n' ' ')
check check-has-deb-arm64 "${#out}" "the check profile lacks $out"
# nothing else installs arm64 packages on the host
out=$(grep -h ':arm64$' "$tmp/demo" "$tmp/mpi" "$tmp/bench" "$tmp/deb" "$tmp/arm64" | tr '\n' ' ')
check only-deb-arm64-installs-arm64 "${#out}" "other profiles install $out"
# the tests use none of the benchmark's tracers
out=$(hasnt check bpftrace linux-perf strace dwarves)
check check-without-tracers "${#out}" "the check profile installs $out"

"$deps" --list nonesuch >/dev/null 2>&1
[ $? -eq 2 ]
check unknown-refused $? "an unknown profile does not exit 2"

# the Makefile's order: the profile first, then a new make for the builds
for t in demo:demo demo-mpi:mpi bench:bench check:check; do
	target=${t%%:*} profile=${t#*:}
	make -n -s -C "$top" BUILD="$tmp/build" "$target" >"$tmp/n.$target" 2>"$tmp/err.$target"
	[ "$(head -n 1 "$tmp/n.$target")" = "scripts/deps.sh $profile" ]
	check "make-$target-installs-$profile" $? "make -n $target starts with '$(head -n 1 "$tmp/n.$target")'"
done
# make demo ARCH=arm64: the arm64 profile (cross compilers, qemu-system-aarch64)
make -n -s -C "$top" BUILD="$tmp/build" ARCH=arm64 demo >"$tmp/n.demo-arm64" 2>"$tmp/err.demo-arm64"
[ "$(head -n 1 "$tmp/n.demo-arm64")" = "scripts/deps.sh arm64" ]
check make-demo-arm64-installs-arm64 $? "make -n demo ARCH=arm64 starts with '$(head -n 1 "$tmp/n.demo-arm64")'"
# make bench ARCH=arm64: the arm64 profile too (no tracers: x86-only)
make -n -s -C "$top" BUILD="$tmp/build" ARCH=arm64 bench >"$tmp/n.bench-arm64" 2>"$tmp/err.bench-arm64"
[ "$(head -n 1 "$tmp/n.bench-arm64")" = "scripts/deps.sh arm64" ]
check make-bench-arm64-installs-arm64 $? "make -n bench ARCH=arm64 starts with '$(head -n 1 "$tmp/n.bench-arm64")'"
for target in demo demo-mpi demo-arm64; do
	sed -n 2p "$tmp/n.$target" | grep -q 'make.* kernel initramfs$'
	check "make-$target-builds-after-deps" $? "make -n $target: line 2 is '$(sed -n 2p "$tmp/n.$target")'"
done
exit "$fail"
