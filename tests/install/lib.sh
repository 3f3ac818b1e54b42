# Helpers of tests/install/check-install.sh and check-deb.sh: PASS/FAIL
# lines, and the checks every installed tree gets (`make install` into a
# DESTDIR, or the Debian packages extracted).  Sourced after setting `top`.
# shellcheck shell=bash disable=SC2034,SC2154 # top: set, failed: read by the caller

here=$top/tests/install
failed=0
pass() { echo "PASS: $1"; }
fail() {
	echo "FAIL: $1: $2"
	failed=1
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

# check_manpage LABEL FILE: FILE is a man page (or a .gz of one) that formats without a
# warning and names its subject in NAME.
check_manpage() {
	local label=$1 file=$2 name out err
	name=$(basename "$file" .gz)
	name=${name%.*}
	if ! command -v man >/dev/null 2>&1; then
		if head -n 20 "$file" | grep -q "^\\.TH \"\\?${name^^}"; then
			pass "$label: man page $name (.TH; man not installed, not formatted)"
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
	elif ! printf '%s\n' "$out" | grep -A 2 '^NAME' | grep -q "$name"; then
		fail "$label: man page $name" "its NAME section does not name $name"
	else
		pass "$label: man page $name formats (man -l, no warnings)"
	fi
	rm -f "$err"
}

# check_help LABEL BIN: BIN --help exits 0 with its usage on stdout.
check_help() {
	local label=$1 bin=$2 name out rc
	name=$(basename "$bin")
	out=$("$bin" --help 2>/dev/null) && rc=0 || rc=$?
	if [ "$rc" -ne 0 ]; then
		fail "$label: $name --help" "exit status $rc"
	elif ! printf '%s\n' "$out" | head -n 1 | grep -q "^Usage: $name "; then
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
	elif ! readelf -d "$work/count-dyn" | grep -q 'NEEDED.*\[libktau\.so\.0\]'; then
		fail "$label: dynamic build with pkg-config" "not linked against libktau.so.0"
	elif ! LD_LIBRARY_PATH=$libdir ldd "$work/count-dyn" |
			grep -q "libktau\\.so\\.0 => $libdir/libktau\\.so\\.0"; then
		fail "$label: dynamic build with pkg-config" \
			"libktau.so.0 is not loaded from $libdir: $(LD_LIBRARY_PATH=$libdir ldd "$work/count-dyn" | grep ktau)"
	elif ! got=$(LD_LIBRARY_PATH=$libdir "$work/count-dyn" "$fixture" 2>&1); then
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
	elif readelf -d "$work/count-static" 2>/dev/null | grep -q NEEDED; then
		fail "$label: static build with pkg-config --static" "the program needs shared libraries"
	elif ! got=$(env -u LD_LIBRARY_PATH "$work/count-static" "$fixture" 2>&1); then
		fail "$label: static build with pkg-config --static" "ktau-count failed: $got"
	elif [ "$got" != "$want" ]; then
		fail "$label: static build with pkg-config --static" \
			"read $(oneline "$got") from system.ktau; the file has $(oneline "$want")"
	else
		pass "$label: static build with pkg-config --static --libs ktau reads a profile"
	fi
}
