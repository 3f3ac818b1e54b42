#!/bin/bash
# `make deb`: the Debian packages of the user space (debian/: libktau1,
# libktau-prof1, libktau-dev, ktau-tools) into $BUILD/deb/.
#
# dpkg-buildpackage writes its results into the parent directory of the
# tree it builds, so it builds a staging copy, $BUILD/deb-src/ktau-VERSION,
# of the files git knows (tracked, or untracked and not ignored; all files
# but build/ and .git when this is not a git tree).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
out=$BUILD/deb
stage=$BUILD/deb-src

die() {
	echo "deb: $*" >&2
	exit 1
}

for tool in dpkg-buildpackage dpkg-parsechangelog dh; do
	command -v "$tool" >/dev/null 2>&1 ||
		die "$tool is not installed (apt-get install dpkg-dev debhelper, or make deps)"
done

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

echo "==> dpkg-buildpackage -us -uc -b (log: $stage/build.log)"
# no -dbgsym packages: the three of debian/control
if ! (cd "$src" && DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:-noddebs}" \
		dpkg-buildpackage -us -uc -b) > "$stage/build.log" 2>&1; then
	tail -n 25 "$stage/build.log" >&2
	die "dpkg-buildpackage failed; the whole log is $stage/build.log"
fi

rm -f "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
mv "$stage"/*.deb "$stage"/*.changes "$stage"/*.buildinfo "$out"/
for deb in "$out"/*.deb; do
	echo "    $deb"
done
