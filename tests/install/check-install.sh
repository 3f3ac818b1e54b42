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

# what must be there, from the source tree, and nothing else
mapfile -t expected < <(expected_files lib "")
check_files install "$usr" '^$' "${expected[@]}"
outside=$(find "$dest" -mindepth 1 -maxdepth 1 ! -path "$usr")
if [ -n "$outside" ]; then
	fail "install: nothing is installed outside PREFIX" "$outside"
else
	pass "install: nothing is installed outside PREFIX"
fi

# the shared library: its soname, and the development symlink to it
soname=$(readelf -d "$usr/lib/libktau.so.0" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
link=$(readlink "$usr/lib/libktau.so" || true)
if [ "$soname" != libktau.so.0 ] || [ "$link" != libktau.so.0 ]; then
	fail "install: libktau.so -> libktau.so.0 (SONAME libktau.so.0)" \
		"SONAME '$soname', libktau.so -> '$link'"
else
	pass "install: libktau.so -> libktau.so.0 (SONAME libktau.so.0)"
fi
check_no_runpath install "$usr/lib/libktau.so.0"

check_programs install "$usr" "" "$usr/lib"
check_pkgconfig_build install "$dest" "$usr/lib/pkgconfig" "$tmp/work"

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
