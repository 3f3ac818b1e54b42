#!/bin/bash
# `make deb`: the Debian packages of the user space (debian/: libktau1,
# libktau-prof1, libktau-dev, ktau-tools) into $BUILD/deb/.
# `make deb ARCH=arm64` (DEB_ARCH=arm64): the arm64 packages, cross-built
# with dpkg-buildpackage -a arm64 (Debian's gcc-aarch64-linux-gnu, and
# debian/control's Build-Depends for arm64: make deps-deb-arm64), into
# $BUILD/deb-arm64/.
#
# dpkg-buildpackage writes its results into the parent directory of the
# tree it builds, so it builds a staging copy, $BUILD/deb-src/ktau-VERSION
# ($BUILD/deb-src-arm64/... for arm64), of the files git knows (tracked,
# or untracked and not ignored; all files but build/ and .git when this is
# not a git tree).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
native=$(dpkg --print-architecture)
# the Makefile's ARCH names (x86_64, arm64, aarch64) or Debian's
case ${DEB_ARCH:-} in
''|x86|x86_64|"$native") arch= ;;
aarch64) arch=arm64 ;;
*) arch=$DEB_ARCH ;;
esac
suffix=${arch:+-$arch}
out=$BUILD/deb$suffix
stage=$BUILD/deb-src$suffix

die() {
	echo "deb: $*" >&2
	exit 1
}

for tool in dpkg-buildpackage dpkg-parsechangelog dh; do
	command -v "$tool" >/dev/null 2>&1 ||
		die "$tool is not installed (apt-get install dpkg-dev debhelper, or make deps)"
done
if [ -n "$arch" ]; then
	case $arch in
	arm64) ;;
	*) die "DEB_ARCH=$arch: the packages cross-build for arm64 only (or $native, natively)" ;;
	esac
	gnu=$(dpkg-architecture -a "$arch" -qDEB_HOST_GNU_TYPE 2>/dev/null)
	command -v "$gnu-gcc" >/dev/null 2>&1 ||
		die "no $gnu-gcc, the $arch cross compiler (make deps-deb-arm64)"
	if ! missing=$(cd "$top" && dpkg-checkbuilddeps -a "$arch" 2>&1); then
		die "debian/control's build dependencies for $arch are missing (make deps-deb-arm64): ${missing##*: }"
	fi
fi

# the package version is the release (libktau/include/ktau.h)
version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
libversion=$("$top/scripts/version.sh") || die "no release in libktau/include/ktau.h"
[ "$version" = "$libversion" ] ||
	die "debian/changelog is at $version but the release (libktau/include/ktau.h) is $libversion: add a changelog entry (dch -v $libversion)"

src=$stage/ktau-$version
rm -rf "$stage"
mkdir -p "$src" "$out"
case $BUILD/ in
"$top"/*) inside=${BUILD#"$top"/}/ ;;
*) inside= ;;
esac
echo "==> copying the tree to $src"
if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	# files deleted but not yet committed are left out
	(cd "$top" && git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do
			[ -e "$f" ] || continue
			[ -n "$inside" ] && [ "${f#"$inside"}" != "$f" ] && continue
			printf '%s\0' "$f"
		done | tar --null -T - -cf -) | tar -C "$src" -xf -
else
	tar -C "$top" --exclude=./.git --exclude=./build ${inside:+--exclude="./${inside%/}"} \
		-cf - . | tar -C "$src" -xf -
fi

# no -dbgsym packages: the three of debian/control.  A cross build is
# also nocheck, with the cross and nocheck profiles, as Debian's cross
# builds are (debian/rules runs no test).  Nothing of the make that ran
# this reaches debian/rules' makes: neither its ARCH (the tree's own
# static arm64 build) nor its MAKEFLAGS (its variables).
options=${DEB_BUILD_OPTIONS:-noddebs}
cross=()
if [ -n "$arch" ]; then
	options="$options nocheck"
	cross=(-a "$arch" "--build-profiles=cross,nocheck")
fi
echo "==> dpkg-buildpackage -us -uc -b${cross[*]:+ ${cross[*]}} (log: $stage/build.log)"
if ! (cd "$src" && env -u ARCH -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		DEB_BUILD_OPTIONS="$options" \
		dpkg-buildpackage -us -uc -b "${cross[@]}") > "$stage/build.log" 2>&1; then
	tail -n 25 "$stage/build.log" >&2
	die "dpkg-buildpackage failed; the whole log is $stage/build.log"
fi

rm -f "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
mv "$stage"/*.deb "$stage"/*.changes "$stage"/*.buildinfo "$out"/
for deb in "$out"/*.deb; do
	echo "    $deb"
done
