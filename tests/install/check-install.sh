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

# what must be there, from the source tree
mapfile -t tools < <(source_tools)
mapfile -t pages < <(source_manpages)
expected=(lib/libktau.a lib/libktau.so lib/libktau.so.0 lib/pkgconfig/ktau.pc)
for h in "$top"/libktau/include/*.h; do expected+=("include/${h##*/}"); done
for t in "${tools[@]}"; do expected+=("bin/$t"); done
for p in "${pages[@]}"; do expected+=("share/man/man${p##*.}/$p"); done

missing=
for f in "${expected[@]}"; do
	[ -e "$usr/$f" ] || missing="$missing $f"
done
if [ -n "$missing" ]; then
	fail "install: every file is installed" "missing under /usr:$missing"
else
	pass "install: every file is installed (${#tools[@]} tools, ${#pages[@]} man pages, header, ktau.pc, .a, .so)"
fi
extra=$(comm -13 <(printf '%s\n' "${expected[@]}" | sort) \
	<(cd "$usr" && find . ! -type d | sed 's|^\./||' | sort) | tr '\n' ' ')
if [ -n "$extra" ] || [ "$(find "$dest" -mindepth 1 -maxdepth 1)" != "$usr" ]; then
	fail "install: nothing else is installed" "also: $extra$(find "$dest" -mindepth 1 -maxdepth 1 ! -path "$usr")"
else
	pass "install: nothing else is installed"
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

for p in "${pages[@]}"; do
	check_manpage install "$usr/share/man/man${p##*.}/$p"
done
for t in "${tools[@]}"; do
	check_no_runpath install "$usr/bin/$t"
	check_help install "$usr/bin/$t"
done

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
