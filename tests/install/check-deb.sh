#!/bin/bash
# `make deb`, then checks of the packages without installing them on this
# machine: lintian without errors, the three packages and their files, and,
# extracted with dpkg-deb -x into a temporary root, the tools' --help and a
# program built with pkg-config against libktau-dev.  One PASS/FAIL line a
# check; a single SKIP line when the Debian packaging tools are missing.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$top/build}
# shellcheck source=tests/install/lib.sh
. "$top/tests/install/lib.sh"

for tool in dpkg-buildpackage dh lintian; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "SKIP: deb: $tool not installed (make deps installs dpkg-dev, debhelper, lintian)"
		exit 0
	fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
mkdir -p "$root" "$tmp/work"

if ! out=$(make -s -C "$top" deb BUILD="$BUILD" 2>&1); then
	fail "deb: make deb" "$(printf '%s\n' "$out" | tail -n 8)"
	exit 1
fi
debs=("$BUILD"/deb/*.deb)
names=$(for d in "${debs[@]}"; do dpkg-deb -f "$d" Package; done | sort | tr '\n' ' ')
if [ "$names" != "ktau-tools libktau-dev libktau-prof1 libktau1 " ]; then
	fail "deb: make deb builds libktau1, libktau-prof1, libktau-dev, ktau-tools" "it built: $names"
	exit 1
fi
pass "deb: make deb builds libktau1, libktau-prof1, libktau-dev, ktau-tools"

# lintian: no error (E:) tags; the warnings are shown in the log
lint=$(lintian "$BUILD"/deb/*.changes 2>&1 || true)
printf '%s\n' "$lint" | grep -v '^running with root' | sed 's/^/    lintian: /' || true
errors=$(printf '%s\n' "$lint" | grep -c '^E: ' || true)
if [ "$errors" -ne 0 ]; then
	fail "deb: lintian reports no errors" "$(printf '%s\n' "$lint" | grep '^E: ' | head -n 5 | tr '\n' ';')"
else
	pass "deb: lintian reports no errors ($(printf '%s\n' "$lint" | grep -c '^W: ' || true) warnings)"
fi

pkgfile() { printf '%s\n' "${debs[@]}" | grep "/$1_"; }
dep=$(dpkg-deb -f "$(pkgfile ktau-tools)" Depends)
if ! printf '%s\n' "$dep" | grep 'libktau1' >/dev/null; then
	fail "deb: ktau-tools depends on libktau1" "Depends: $dep"
else
	pass "deb: ktau-tools depends on libktau1 (its tools link libktau.so.1)"
fi

for d in "${debs[@]}"; do
	dpkg-deb -x "$d" "$root"
done
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
libdir=$root/usr/lib/$multiarch

# every file of make install, in the multiarch directory, man pages
# compressed; besides them only the packages' documentation
mapfile -t expected < <(expected_files "lib/$multiarch" .gz)
check_files deb "$root/usr" '^share/doc/(libktau1|libktau-prof1|libktau-dev|ktau-tools)/' "${expected[@]}"

# the tools load the extracted libktau.so.1, not one installed on this machine
check_programs deb "$root/usr" .gz "$libdir"
check_pkgconfig_build deb "$root" "$libdir/pkgconfig" "$tmp/work"
check_prof_build deb "$root" "$libdir/pkgconfig" "$tmp/work"
exit "$failed"
