#!/bin/bash
# `make install DESTDIR=tmp PREFIX=/usr`, then checks of the installed tree
# alone: every file there (and nothing else), man pages that format, each
# tool's --help, no RPATH/RUNPATH, and a program built with pkg-config only,
# dynamically and statically, that reads a saved profile; then
# `make uninstall` must leave no file behind.  One PASS/FAIL line a check.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$top/build}
# shellcheck source=tests/install/lib.sh
. "$top/tests/install/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/root
usr=$dest/usr
mkdir -p "$tmp/work"
make_dest() { make -s -C "$top" "$1" DESTDIR="$dest" PREFIX=/usr BUILD="$BUILD" 2>&1; }

if ! out=$(make_dest install); then
	fail "install: make install DESTDIR=\$tmp PREFIX=/usr" "$(printf '%s\n' "$out" | tail -n 5)"
	exit 1
fi
pass "install: make install DESTDIR=\$tmp PREFIX=/usr"

# what must be there, from the source tree, and nothing else; libktau-mpi
# where an MPI compiler wrapper is found (the top Makefile's rule)
mapfile -t expected < <(expected_files lib "")
mpi=
if command -v "${MPICC:-mpicc}" >/dev/null 2>&1; then
	mpi=libktau-mpi
	expected+=(lib/libktau-mpi.a lib/libktau-mpi.so lib/libktau-mpi.so.1
		"lib/libktau-mpi.so.$("$top/scripts/version.sh")" lib/pkgconfig/ktau-mpi.pc)
fi
check_files install "$usr" '^$' "${expected[@]}"
outside=$(find "$dest" -mindepth 1 -maxdepth 1 ! -path "$usr")
if [ -n "$outside" ]; then
	fail "install: nothing is installed outside PREFIX" "$outside"
else
	pass "install: nothing is installed outside PREFIX"
fi

# the shared libraries: each a file named after the release, its soname's
# link to it, and the development link to that
version=$("$top/scripts/version.sh")
for lib in libktau libktau-prof $mpi; do
	soname=$(readelf -d "$usr/lib/$lib.so.1" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
	link=$(readlink "$usr/lib/$lib.so" || true)
	file=$(readlink "$usr/lib/$lib.so.1" || true)
	if [ "$soname" != "$lib.so.1" ] || [ "$link" != "$lib.so.1" ] ||
		[ "$file" != "$lib.so.$version" ] || [ ! -f "$usr/lib/$file" ]; then
		fail "install: $lib.so -> $lib.so.1 -> $lib.so.$version (SONAME $lib.so.1)" \
			"SONAME '$soname', $lib.so -> '$link', $lib.so.1 -> '$file'"
	else
		pass "install: $lib.so -> $lib.so.1 -> $lib.so.$version (SONAME $lib.so.1)"
	fi
	check_no_runpath install "$usr/lib/$lib.so.1"
done

# libktau-mpi finds libktau-prof.so.1 beside it, with no RPATH
if [ -n "$mpi" ]; then
	resolved=$(LD_LIBRARY_PATH=$usr/lib ldd "$usr/lib/libktau-mpi.so.1" | grep 'libktau-prof' || true)
	case $resolved in
	*"=> $usr/lib/libktau-prof.so.1"*)
		pass "install: libktau-mpi.so.1 finds libktau-prof.so.1 in the same directory" ;;
	*)
		fail "install: libktau-mpi.so.1 finds libktau-prof.so.1 in the same directory" \
			"ldd says: ${resolved:-nothing}" ;;
	esac
fi

check_programs install "$usr" "" "$usr/lib"
check_pkgconfig_build install "$dest" "$usr/lib/pkgconfig" "$tmp/work"
check_prof_build install "$dest" "$usr/lib/pkgconfig" "$tmp/work"

if ! out=$(make_dest uninstall); then
	fail "install: make uninstall DESTDIR=\$tmp PREFIX=/usr" "$(printf '%s\n' "$out" | tail -n 5)"
else
	left=$(find "$dest" ! -type d | sed "s|^$dest||" | tr '\n' ' ')
	if [ -n "$left" ]; then
		fail "install: make uninstall removes every file" "left: $left"
	else
		pass "install: make uninstall removes every file"
	fi
fi
exit "$failed"
