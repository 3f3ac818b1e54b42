# Helpers of tests/install/check-install.sh and check-deb.sh: PASS/FAIL
# lines, and the checks every installed tree gets (`make install` into a
# DESTDIR, or the Debian packages extracted).  Sourced after setting `top`.
# Under pipefail, a pipe into grep lets grep read it all (no -q), and
# nothing reads only the head of a pipe (head -n 1 exits early): a writer
# cut off by an early exit would fail the pipe, as bash's printf, which
# writes a line at a time, did under load.
# shellcheck shell=bash disable=SC2034,SC2154 # top: set, failed: read by the caller

here=$top/tests/install
failed=0
pass() { echo "PASS: $1"; }
fail() {
	echo "FAIL: $1: $2"
	failed=1
}

# have_tools LABEL HINT TOOL...: true when every TOOL is installed; else
# prints one SKIP line naming the first missing one, and HINT.
have_tools() {
	local label=$1 hint=$2 tool
	shift 2
	for tool in "$@"; do
		if ! command -v "$tool" >/dev/null 2>&1; then
			echo "SKIP: $label: $tool not installed ($hint)"
			return 1
		fi
	done
}

# refuses SCRIPT LABEL STATUS TEXT ENV... -- ARGS...: bash SCRIPT ARGS,
# with the environment ENV..., exits STATUS and says TEXT (bad input)
refuses() {
	local script=$1 label=$2 want=$3 text=$4 envs=() out status
	shift 4
	while [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	shift
	out=$(env "${envs[@]}" bash "$script" "$@" 2>&1)
	status=$?
	if [ "$status" -eq "$want" ] && [[ $out == *"$text"* ]]; then
		pass "$label: exit $want, '$text'"
	else
		fail "$label" "exit $status (want $want), said: $(printf '%s\n' "$out" | tail -n 2)"
	fi
}

# The tools: every tools/*.c and paraprof-export/*.c that has a main(),
# found from the sources rather than from the makefiles' lists.
source_tools() {
	grep -l '^int main(' "$top"/tools/*.c "$top"/paraprof-export/*.c |
		sed 's|.*/||; s|\.c$||' | sort
}

# The man pages: every page in the source tree.
source_manpages() {
	find "$top/tools" "$top/paraprof-export" "$top/libktau" "$top/docs" \
		-name '*.[1-8]' -printf '%f\n' | sort
}

# expected_files LIB MANEXT: the paths under /usr of the files ktau
# installs: headers, the library files in LIB (lib, lib/x86_64-linux-gnu;
# each shared object named after the release, with its soname's link and
# the .so link), the tools, and the man pages with MANEXT ("", ".gz") after
# their names.
expected_files() {
	local lib=$1 manext=$2 v f
	v=$("$top/scripts/version.sh")
	for f in "$top"/libktau/include/*.h; do
		echo "include/${f##*/}"
	done
	for f in libktau.a libktau.so libktau.so.1 "libktau.so.$v" pkgconfig/ktau.pc \
		libktau-prof.a libktau-prof.so libktau-prof.so.1 "libktau-prof.so.$v" \
		pkgconfig/ktau-prof.pc; do
		echo "$lib/$f"
	done
	source_tools | sed 's|^|bin/|'
	source_manpages | sed -E "s|^(.*)\\.([1-8])\$|share/man/man\\2/\\1.\\2$manext|"
}

# check_files LABEL USR IGNORE EXPECTED...: each EXPECTED path is under USR,
# and nothing else is but paths matching the extended regex IGNORE.
check_files() {
	local label=$1 usr=$2 ignore=$3 missing='' extra f
	shift 3
	for f in "$@"; do
		[ -e "$usr/$f" ] || missing="$missing $f"
	done
	if [ -n "$missing" ]; then
		fail "$label: every file is there" "missing under /usr:$missing"
	else
		pass "$label: every file is there ($(source_tools | wc -l) tools, $(source_manpages | wc -l) man pages, headers, .pc files, .a, .so)"
	fi
	extra=$(comm -13 <(printf '%s\n' "$@" | sort) \
		<(cd "$usr" && find . ! -type d | sed 's|^\./||' | sort) |
		grep -Ev "$ignore" | tr '\n' ' ' || true)
	if [ -n "$extra" ]; then
		fail "$label: nothing else is there" "also under /usr: $extra"
	else
		pass "$label: nothing else is there"
	fi
}

# The release the installed man pages name (.TH date and source): ktau.h's
# number (scripts/version.sh) and the top Makefile's KTAU_DATE.
release_th() {
	local v d
	v=$("$top/scripts/version.sh")
	d=$(sed -n 's/^KTAU_DATE := *//p' "$top/Makefile")
	printf '%s "ktau %s"' "$d" "$v"
}

# check_manpage LABEL FILE: FILE is a man page (or a .gz of one) whose .TH
# line names the release, that formats without a warning and names its
# subject in NAME.
check_manpage() {
	local label=$1 file=$2 name out err th
	name=$(basename "$file" .gz)
	name=${name%.*}
	th=$(zcat -f "$file" | grep -m 1 '^\.TH ' || true)
	if [[ $th != ".TH ${name^^} "[1-8]" $(release_th) "* ]]; then
		fail "$label: man page $name names the release ($(release_th))" "${th:-no .TH line}"
		return
	fi
	if ! command -v man >/dev/null 2>&1; then
		if zcat -f "$file" | grep "^\\.TH \"\\?${name^^} " >/dev/null; then
			echo "SKIP: $label: man page $name formats: man not installed (Debian package man-db)"
		else
			fail "$label: man page $name" "no .TH ${name^^} line"
		fi
		return
	fi
	err=$(mktemp)
	if ! out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -P cat -l "$file" 2>"$err"); then
		fail "$label: man page $name" "man -l failed: $(head -n 3 "$err")"
	elif [ -s "$err" ]; then
		fail "$label: man page $name" "groff warnings: $(head -n 3 "$err")"
	elif ! printf '%s\n' "$out" | grep -A 2 '^NAME' | grep "$name" >/dev/null; then
		fail "$label: man page $name" "its NAME section does not name $name"
	else
		pass "$label: man page $name formats (man -l, no warnings; .TH $(release_th))"
	fi
	rm -f "$err"
}

# run_prog [VAR=VALUE...] PROG [ARG...]: PROG with the VARs in its
# environment.  Under QEMU_USER (check-deb.sh with DEB_ARCH=arm64:
# qemu-aarch64, for the programs of another architecture) through it,
# the VARs given to the program alone (-E), not to QEMU itself.
run_prog() {
	local -a vars=() opts=()
	local v
	while [ $# -gt 0 ] && [[ $1 == [A-Z_]*=* ]]; do
		vars+=("$1")
		shift
	done
	if [ -n "${QEMU_USER:-}" ]; then
		for v in "${vars[@]}"; do
			opts+=(-E "$v")
		done
		"$QEMU_USER" "${opts[@]}" "$@"
	else
		env "${vars[@]}" "$@"
	fi
}

# loaded_libs [VAR=VALUE...] PROG: the shared objects the dynamic loader
# loads for PROG, listed as ldd lists them (ldd sets LD_TRACE_LOADED_OBJECTS)
loaded_libs() { run_prog LD_TRACE_LOADED_OBJECTS=1 "$@"; }

# check_help LABEL BIN [VAR=VALUE...]: BIN --help (with those variables)
# exits 0 with its usage on stdout.
check_help() {
	local label=$1 bin=$2 name out rc
	name=$(basename "$bin")
	out=$(run_prog "${@:3}" "$bin" --help 2>/dev/null </dev/null) && rc=0 || rc=$?
	if [ "$rc" -ne 0 ]; then
		fail "$label: $name --help" "exit status $rc"
	elif [[ ${out%%$'\n'*} != "Usage: $name "* ]]; then
		fail "$label: $name --help" "stdout does not start with 'Usage: $name'"
	else
		pass "$label: $name --help"
	fi
}

# check_no_runpath LABEL FILE: an ELF file without RPATH or RUNPATH.
check_no_runpath() {
	local label=$1 file=$2 paths
	paths=$(readelf -d "$file" 2>/dev/null | grep -E '\((RPATH|RUNPATH)\)' || true)
	if [ -n "$paths" ]; then
		fail "$label: $(basename "$file") has no RPATH/RUNPATH" "$paths"
	else
		pass "$label: $(basename "$file") has no RPATH/RUNPATH"
	fi
}

# oneline TEXT: TEXT's lines joined by ", "
oneline() { printf '%s\n' "$1" | paste -sd, - | sed 's/,/, /g'; }

# check_programs LABEL USR MANEXT LIBDIR: every man page under USR (its
# name + MANEXT) formats; every tool has no RPATH/RUNPATH and answers
# --help, and one linked against libktau.so.1 loads it from LIBDIR.
check_programs() {
	local label=$1 usr=$2 manext=$3 libdir=$4 p t loaded
	local -a pages tools
	mapfile -t pages < <(source_manpages)
	mapfile -t tools < <(source_tools)
	for p in "${pages[@]}"; do
		check_manpage "$label" "$usr/share/man/man${p##*.}/$p$manext"
	done
	for t in "${tools[@]}"; do
		check_no_runpath "$label" "$usr/bin/$t"
		if readelf -d "$usr/bin/$t" | grep 'NEEDED.*\[libktau' >/dev/null; then
			loaded=$(loaded_libs LD_LIBRARY_PATH="$libdir" "$usr/bin/$t" | grep libktau || true)
			if [[ $loaded != *"libktau.so.1 => $libdir/libktau.so.1 "* ]]; then
				fail "$label: $t loads $libdir/libktau.so.1" "ldd: ${loaded:-no libktau}"
				continue
			fi
		fi
		check_help "$label" "$usr/bin/$t" LD_LIBRARY_PATH="$libdir"
	done
}

# expected_counts PROFILE: what ktau-count prints after its version line,
# counted from the lines of a saved version-1 profile text.
expected_counts() {
	awk '$1 == "ktau-profile" { v = $2 } $1 == "tsc_khz" { t = $2 }
	     $1 == "task" { b++ } $1 == "func" { f++ } $1 == "edge" { e++ }
	     $1 == "event" { ev++ }
	     END { printf "profile %d\ntsc_khz %s\nblocks %d\nfuncs %d\nedges %d\nevents %d\n",
	                  v, t, b, f, e, ev }' "$1"
}

# check_pkgconfig_build LABEL ROOT PCDIR WORK: build tests/install/ktau-count.c
# against the tree installed under ROOT (its ktau.pc in PCDIR) with
# pkg-config only, dynamically and statically (`pkg-config --static`),
# run both on a saved profile and compare with the profile's own lines.
check_pkgconfig_build() {
	local label=$1 root=$2 pcdir=$3 work=$4
	local fixture=$top/tests/unit/fixtures/system.ktau
	local cc=${CC:-cc} cflags libs slibs modversion libdir want got flag
	local pc=(env PKG_CONFIG_SYSROOT_DIR="$root" PKG_CONFIG_LIBDIR="$pcdir"
		PKG_CONFIG_PATH= PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1
		PKG_CONFIG_ALLOW_SYSTEM_LIBS=1 pkg-config)

	if ! command -v pkg-config >/dev/null 2>&1; then
		fail "$label: pkg-config build" "pkg-config is not installed (run 'make deps')"
		return
	fi
	if ! modversion=$("${pc[@]}" --modversion ktau 2>&1); then
		fail "$label: pkg-config finds ktau.pc in $pcdir" "$modversion"
		return
	fi
	cflags=$("${pc[@]}" --cflags ktau)
	libs=$("${pc[@]}" --libs ktau)
	slibs=$("${pc[@]}" --static --libs ktau)
	# pkgconf puts the sysroot in front of variables too, pkg-config does not
	libdir=$("${pc[@]}" --variable=libdir ktau)
	[ "${libdir:0:${#root}}" = "$root" ] || libdir=$root$libdir
	for flag in $cflags $libs; do
		case $flag in
		-I* | -L*)
			if [ "${flag:2:${#root}}" != "$root" ] || [ ! -d "${flag:2}" ]; then
				fail "$label: ktau.pc's paths are the install paths" \
					"$flag is not a directory under $root"
				return
			fi
			;;
		esac
	done
	pass "$label: ktau.pc's -I and -L paths are the install paths"
	want=$(printf 'version %s\n' "$modversion"; expected_counts "$fixture")

	# shellcheck disable=SC2086 # pkg-config's flags are word lists
	if ! got=$("$cc" -std=c11 -Wall -Wextra -Werror $cflags -o "$work/count-dyn" \
			"$here/ktau-count.c" $libs 2>&1); then
		fail "$label: dynamic build with pkg-config" "$got"
	elif ! readelf -d "$work/count-dyn" | grep 'NEEDED.*\[libktau\.so\.1\]' >/dev/null; then
		fail "$label: dynamic build with pkg-config" "not linked against libktau.so.1"
	elif readelf -d "$work/count-dyn" | grep 'NEEDED.*\[libktau-prof' >/dev/null; then
		fail "$label: dynamic build with pkg-config" "a reader is linked against the profiler"
	elif ! loaded_libs LD_LIBRARY_PATH="$libdir" "$work/count-dyn" |
			grep "libktau\\.so\\.1 => $libdir/libktau\\.so\\.1" >/dev/null; then
		fail "$label: dynamic build with pkg-config" \
			"libktau.so.1 is not loaded from $libdir: $(loaded_libs LD_LIBRARY_PATH="$libdir" "$work/count-dyn" | grep ktau)"
	elif ! got=$(run_prog LD_LIBRARY_PATH="$libdir" "$work/count-dyn" "$fixture" 2>&1); then
		fail "$label: dynamic build with pkg-config" "ktau-count failed: $got"
	elif [ "$got" != "$want" ]; then
		fail "$label: dynamic build with pkg-config" \
			"read $(oneline "$got") from system.ktau; the file has $(oneline "$want")"
	else
		pass "$label: dynamic build with pkg-config --cflags --libs ktau reads a profile ($(oneline "$got"))"
	fi

	# shellcheck disable=SC2086
	if ! got=$("$cc" -static -std=c11 -Wall -Wextra -Werror $cflags \
			-o "$work/count-static" "$here/ktau-count.c" $slibs 2>&1); then
		fail "$label: static build with pkg-config --static" "$got"
	elif readelf -d "$work/count-static" 2>/dev/null | grep NEEDED >/dev/null; then
		fail "$label: static build with pkg-config --static" "the program needs shared libraries"
	elif ! got=$(unset LD_LIBRARY_PATH; run_prog "$work/count-static" "$fixture" 2>&1); then
		fail "$label: static build with pkg-config --static" "ktau-count failed: $got"
	elif [ "$got" != "$want" ]; then
		fail "$label: static build with pkg-config --static" \
			"read $(oneline "$got") from system.ktau; the file has $(oneline "$want")"
	else
		pass "$label: static build with pkg-config --static --libs ktau reads a profile"
	fi
}

# check_prof_build LABEL ROOT PCDIR WORK: build tests/install/ktau-timed.c
# against the installed libktau-prof with `pkg-config ktau-prof` only, run
# it, and find its timer with the exact call count in the TAU profile the
# profiler wrote at exit.
check_prof_build() {
	local label=$1 root=$2 pcdir=$3 work=$4
	local cc=${CC:-cc} cflags libs libdir got line
	local pc=(env PKG_CONFIG_SYSROOT_DIR="$root" PKG_CONFIG_LIBDIR="$pcdir"
		PKG_CONFIG_PATH= PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1
		PKG_CONFIG_ALLOW_SYSTEM_LIBS=1 pkg-config)

	if ! cflags=$("${pc[@]}" --cflags ktau-prof 2>&1) ||
			! libs=$("${pc[@]}" --libs ktau-prof 2>&1); then
		fail "$label: pkg-config finds ktau-prof.pc in $pcdir" "$cflags $libs"
		return
	fi
	libdir=$("${pc[@]}" --variable=libdir ktau-prof)
	[ "${libdir:0:${#root}}" = "$root" ] || libdir=$root$libdir
	mkdir -p "$work/prof-out"
	# shellcheck disable=SC2086 # pkg-config's flags are word lists
	if ! got=$("$cc" -std=c11 -Wall -Wextra -Werror $cflags -o "$work/timed" \
			"$here/ktau-timed.c" $libs 2>&1); then
		fail "$label: profiler build with pkg-config ktau-prof" "$got"
	elif ! readelf -d "$work/timed" | grep 'NEEDED.*\[libktau-prof\.so\.1\]' >/dev/null; then
		fail "$label: profiler build with pkg-config ktau-prof" "not linked against libktau-prof.so.1"
	elif ! got=$(run_prog LD_LIBRARY_PATH="$libdir" KTAU_KERNEL_MERGE=0 \
			KTAU_PROFILE_DIR="$work/prof-out" "$work/timed" 7 2>&1); then
		fail "$label: profiler build with pkg-config ktau-prof" "ktau-timed failed: $got"
	elif ! line=$(grep '^"install check" ' "$work/prof-out/profile.0.0.0" 2>&1); then
		fail "$label: profiler build with pkg-config ktau-prof" \
			"no \"install check\" line in profile.0.0.0: $line"
	elif [ "$(printf '%s\n' "$line" | sed 's/^"[^"]*" //' | awk '{ print $1 }')" != 7 ]; then
		fail "$label: profiler build with pkg-config ktau-prof" \
			"\"install check\" should have 7 calls: $line"
	else
		pass "$label: a program built with pkg-config ktau-prof writes its TAU profile (7 calls)"
	fi
}
