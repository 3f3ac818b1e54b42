#!/bin/bash
# Every prefix of the series builds.  The series is the one `make series`
# writes (scripts/make-series.sh: patches/ with kernel-ext/'s files
# brought in by patches), applied with `git am` one patch at a time onto
# a whole 6.12 tree (Debian's tarball, committed as the base), and built
# after each patch with a test config: tinyconfig, then
# tests/configs/CONFIG.config with the fragments it #includes
# (merge_config.sh), then olddefconfig, again after every patch, since a
# patch may add Kconfig options (CONFIG_KTAU takes effect from the
# series' Kconfig patch on).
#
# By default, after each patch, it builds the objects of the .c and .S
# files the series has touched so far (tools/ and kernel/ktau/ aside),
# and kernel/ktau/ once CONFIG_KTAU is set; the base gets `make prepare`.
# With --full, it builds vmlinux after each patch and at the base (a
# full kernel build, then one incremental build per patch, some of them
# touching headers that most of the kernel includes).
#
# Prints one line per patch, `PASS: series prefix builds: NNNN-subject`
# or `FAIL: series prefix builds: NNNN-subject: ` and the build's first
# error lines, one for the base, and a FAIL if an option the config
# fragment sets did not take effect with the whole series; exits 0 with
# FAIL lines, as the checks of `make check` do.  Slow: the default mode
# took 10 minutes with JOBS=1 on 2 shared cores, --full takes far longer;
# `make check-long` runs the default mode, `make check` does not.  Logs
# and each step's time: BUILD/prefixes/logs/.
#
# usage: scripts/check-series-prefixes.sh [--full] [CONFIG]   (CONFIG: a
#        tests/configs/ name, default qemu)
# environment: BUILD (default build/), JOBS (default nproc), KTARBALL
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
JOBS=${JOBS:-$(nproc)}
tarball=${KTARBALL:-/usr/src/linux-source-6.12.tar.xz}
full=0
name=
while [ $# -gt 0 ]; do
	case $1 in
	--full) full=1 ;;
	-h | --help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "check-series-prefixes: unknown option '$1' (try --help)" >&2; exit 2 ;;
	*) [ -z "$name" ] || { echo "check-series-prefixes: one CONFIG only (try --help)" >&2; exit 2; }
	   name=$1 ;;
	esac
	shift
done
name=${name:-qemu}
fragment=$top/tests/configs/$name.config
work=$BUILD/prefixes
tree=$work/linux
obj=$work/obj
logs=$work/logs
ident=(-c user.name=ktau -c user.email=ktau@localhost)

fail() { echo "FAIL: series prefix builds: $*"; }
[ -f "$fragment" ] || { echo "check-series-prefixes: no tests/configs/$name.config" >&2; exit 2; }
[ -f "$tarball" ] || { fail "no kernel source: $tarball (run 'make deps')"; exit 0; }

fragments=()
while read -r inc; do
	[ -f "$top/tests/configs/$inc" ] ||
		{ echo "check-series-prefixes: $name.config includes $inc, which does not exist" >&2; exit 2; }
	fragments+=("$top/tests/configs/$inc")
done < <(sed -n 's/^#include \(.*\.config\)$/\1/p' "$fragment")
fragments+=("$fragment")

rm -rf "$work"
mkdir -p "$tree" "$obj" "$logs"
if ! out=$(BUILD=$BUILD KTARBALL=$tarball "$top/scripts/make-series.sh" "$work/series" 2>&1); then
	fail "make-series: $(printf '%s' "$out" | tail -n 2 | tr '\n' ' ')"
	exit 0
fi
patches=$(cd "$work/series" && find . -name '[0-9]*.patch' ! -name '0000-*' |
	sed 's|^\./||' | sort)
if ! tar xf "$tarball" -C "$tree" --strip-components=1; then
	fail "cannot extract $tarball"
	exit 0
fi
# Debian's source package ignores everything in its .gitignore.
if ! { git -C "$tree" init -q && git -C "$tree" add -f -A &&
	git "${ident[@]}" -C "$tree" commit -q -m "Linux 6.12" &&
	git -C "$tree" tag base; }; then
	fail "cannot commit the base tree"
	exit 0
fi

configure() {
	make -s -C "$tree" O="$obj" tinyconfig >/dev/null &&
		(cd "$obj" && "$tree/scripts/kconfig/merge_config.sh" -m -O "$obj" \
			"$obj/.config" "${fragments[@]}" >/dev/null 2>&1) &&
		make -s -C "$tree" O="$obj" olddefconfig >/dev/null
}

# targets: what to build at this prefix.  A single object or directory
# target makes `prepare` first; kbuild would build a list that mixes
# them with other targets one target at a time.
targets() {
	local t
	if [ $full = 1 ]; then
		echo vmlinux
		return
	fi
	t=$(git -C "$tree" diff --name-only base HEAD -- '*.c' '*.S' \
		':!tools/' ':!kernel/ktau/' | sed 's/\.[cS]$/.o/')
	if grep -q '^CONFIG_KTAU=y' "$obj/.config"; then
		t="$t kernel/ktau/"
	fi
	echo "${t:-prepare}"
}

# build WHAT: configure and build this prefix, a PASS or FAIL line
build() {
	local what=$1 log=$logs/${1%% *}.log start t ok=0
	start=$(date +%s)
	: > "$log"
	if configure >>"$log" 2>&1; then
		t=$(targets)
		echo "make $t" >> "$log"
		# -k: every target that breaks is in the log, not only the first
		# shellcheck disable=SC2086 # one argument per target
		make -k -s -C "$tree" O="$obj" -j"$JOBS" $t >>"$log" 2>&1 && ok=1
	fi
	if [ $ok = 1 ]; then
		echo "PASS: series prefix builds: $what"
	else
		fail "$what: $( (grep -m 3 -E 'error|Error' "$log" || tail -n 3 "$log") |
			tr '\n' ' ')"
	fi
	echo "$what: $(($(date +%s) - start)) s" >> "$logs/times"
}

build "base (Linux 6.12, no patch)"
skipped=
for p in $patches; do
	what=${p%.patch}
	if [ -n "$skipped" ]; then
		fail "$what: not tried ($skipped does not apply)"
		continue
	fi
	if ! out=$(git "${ident[@]}" -C "$tree" am -q "$work/series/$p" 2>&1); then
		fail "$what: git am: $(printf '%s' "$out" | head -n 2 | tr '\n' ' ')"
		git -C "$tree" am --abort >/dev/null 2>&1
		skipped=$what
		continue
	fi
	build "$what"
done

# The options the fragment sets, with the whole series (CONFIG_KTAU=y
# among them for qemu.config).
if [ -z "$skipped" ]; then
	missing=$(grep -E '^CONFIG_[A-Z0-9_]+=' "$fragment" | while read -r line; do
		grep -qxF "$line" "$obj/.config" || printf ' %s' "$line"
	done)
	[ -z "$missing" ] ||
		fail "options of $name.config that did not take effect with the whole series:$missing"
fi
exit 0
