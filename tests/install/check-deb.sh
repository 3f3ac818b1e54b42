#!/bin/bash
# `make deb`, then checks of the packages without installing them on this
# machine: lintian without errors, the three packages and their files, and,
# extracted with dpkg-deb -x into a temporary root, the tools' --help and a
# program built with pkg-config against libktau-dev.  One PASS/FAIL line a
# check; a single SKIP line when the Debian packaging tools are missing.
#
# DEB_ARCH=arm64: the same checks of the arm64 packages, cross-built (make
# deb ARCH=arm64: dpkg-buildpackage -a arm64), their lines named deb-arm64:
# every ELF file is arm64's, the program is built with
# aarch64-linux-gnu-gcc, and the packages' programs and it run under
# qemu-aarch64 (qemu-user, make deps-deb-arm64).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$top/build}
# shellcheck source=tests/install/lib.sh
. "$top/tests/install/lib.sh"

arch=${DEB_ARCH:-}
[ "$arch" != "$(dpkg --print-architecture)" ] || arch=
label=deb
debdir=$BUILD/deb
logdir=$BUILD/deb-src
nm='nm'
required=(dpkg-buildpackage dh lintian)
if [ -n "$arch" ]; then
	label=deb-$arch
	debdir=$BUILD/deb-$arch
	logdir=$BUILD/deb-src-$arch
	gnu=$(dpkg-architecture -a "$arch" -qDEB_HOST_GNU_TYPE 2>/dev/null)
	nm=$gnu-nm
	# the C compiler of check_pkgconfig_build and check_prof_build, and
	# QEMU's user mode, which run_prog runs the programs with
	export CC=$gnu-gcc
	export QEMU_USER=qemu-${gnu%%-*}
	required+=("$CC" "$QEMU_USER")
fi
for tool in "${required[@]}"; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "SKIP: $label: $tool not installed (make deps installs dpkg-dev, debhelper, lintian${arch:+; make deps-deb-$arch the cross compiler and qemu-user})"
		exit 0
	fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
mkdir -p "$root" "$tmp/work"

if ! out=$(make -s -C "$top" deb BUILD="$BUILD" ${arch:+ARCH="$arch"} 2>&1); then
	fail "$label: make deb${arch:+ ARCH=$arch}" "$(printf '%s\n' "$out" | tail -n 8)"
	exit 1
fi
debs=("$debdir"/*.deb)
names=$(for d in "${debs[@]}"; do dpkg-deb -f "$d" Package; done | sort | tr '\n' ' ')
if [ "$names" != "ktau-tools libktau-dev libktau-prof1 libktau1 " ]; then
	fail "$label: make deb${arch:+ ARCH=$arch} builds libktau1, libktau-prof1, libktau-dev, ktau-tools" "it built: $names"
	exit 1
fi
pass "$label: make deb${arch:+ ARCH=$arch} builds libktau1, libktau-prof1, libktau-dev, ktau-tools"
want_arch=${arch:-$(dpkg --print-architecture)}
archs=$(for d in "${debs[@]}"; do dpkg-deb -f "$d" Architecture; done | sort -u | tr '\n' ' ')
if [ "$archs" != "$want_arch " ]; then
	fail "$label: the packages are $want_arch's" "Architecture: $archs"
else
	pass "$label: the packages are $want_arch's"
fi

# lintian: no error (E:) tags; the warnings are shown in the log
lint=$(lintian "$debdir"/*.changes 2>&1 || true)
printf '%s\n' "$lint" | grep -v '^running with root' | sed 's/^/    lintian: /' || true
errors=$(printf '%s\n' "$lint" | grep -c '^E: ' || true)
if [ "$errors" -ne 0 ]; then
	fail "$label: lintian reports no errors" "$(printf '%s\n' "$lint" | grep '^E: ' | head -n 5 | tr '\n' ';')"
else
	pass "$label: lintian reports no errors ($(printf '%s\n' "$lint" | grep -c '^W: ' || true) warnings)"
fi

pkgfile() { printf '%s\n' "${debs[@]}" | grep "/$1_"; }
dep=$(dpkg-deb -f "$(pkgfile ktau-tools)" Depends)
if ! printf '%s\n' "$dep" | grep 'libktau1' >/dev/null; then
	fail "$label: ktau-tools depends on libktau1" "Depends: $dep"
else
	pass "$label: ktau-tools depends on libktau1 (its tools link libktau.so.1)"
fi

# dpkg-gensymbols lowers a symbol's version that is newer than the package's
# (debian/changelog) to it, with a warning, and the dependencies of what uses
# the symbol are then too weak; dpkg-shlibdeps warns of what it cannot place
warnings=$(grep -E '^dpkg-(gensymbols|shlibdeps): warning' "$logdir/build.log" || true)
if [ -n "$warnings" ]; then
	fail "$label: dpkg-gensymbols and dpkg-shlibdeps print no warning" \
		"$(printf '%s\n' "$warnings" | head -n 3 | tr '\n' ';') (log: $logdir/build.log)"
else
	pass "$label: dpkg-gensymbols and dpkg-shlibdeps print no warning"
fi

# Each package depends on libktau1 and libktau-prof1 at least at the release
# that added the newest symbol its ELF files take from them (debian/*.symbols,
# which tests/install/check-abi.sh checks), and whatever takes a KTAU_PRIVATE
# symbol is libktau-prof1 (docs/libktau-abi.md), pinned to this very release.
version=$("$top/scripts/version.sh")
for p in libktau1 libktau-prof1; do
	# "symbol@node package version template"
	awk -v pkg="$p" '/^ / { print $1, pkg, $2, ($3 == "" ? 0 : $3) }' "$top/debian/$p.symbols"
done > "$tmp/provided"
is_elf() { [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ]; }
# the machine of the architecture's ELF files, as readelf -h names it
case $want_arch in
amd64) machine='Advanced Micro Devices X86-64' ;;
arm64) machine=AArch64 ;;
*) machine= ;;
esac
other_machine=
# depends_at_least PKG DEP VERSION: PKG's Depends has DEP (>= V) or (= V), V >= VERSION
depends_at_least() {
	dpkg-deb -f "$(pkgfile "$1")" Depends | tr ',' '\n' |
		sed -n "s/^ *$2 (\(>=\|=\) \([^)]*\))\$/\2/p" |
		while read -r v; do dpkg --compare-versions "$v" ge "$3" && echo yes; done | grep yes >/dev/null
}
private_users=
for d in "${debs[@]}"; do
	p=$(dpkg-deb -f "$d" Package)
	mkdir -p "$tmp/pkg/$p"
	dpkg-deb -x "$d" "$tmp/pkg/$p"
	: > "$tmp/used"
	while IFS= read -r -d '' f; do
		is_elf "$f" || continue
		m=$(readelf -h "$f" | sed -n 's/^ *Machine: *//p')
		[ -z "$machine" ] || [ "$m" = "$machine" ] || other_machine="$other_machine ${f#"$tmp/pkg/"} ($m)"
		"$nm" -D --undefined-only "$f" | awk '$1 == "U" && $2 ~ /@KTAU_/ { print $2 }' >> "$tmp/used"
	done < <(find "$tmp/pkg/$p" -type f -print0)
	# "package version template" of each symbol used, from another package
	awk 'NR == FNR { prov[$1] = $2 " " $3 " " $4; next }
	     ($1 in prov) { print prov[$1] } !($1 in prov) { print "unknown", $1, 0 }' \
		"$tmp/provided" "$tmp/used" | sort -u | awk -v self="$p" '$1 != self' > "$tmp/needs"
	if grep '^unknown ' "$tmp/needs" >/dev/null; then
		fail "$label: $p uses only symbols the packages' symbols files list" \
			"$(grep '^unknown ' "$tmp/needs" | awk '{ print $2 }' | tr '\n' ' ')"
	fi
	for lib in libktau1 libktau-prof1; do
		need=$(awk -v l="$lib" '$1 == l { print $2 }' "$tmp/needs" | sort -V | tail -n 1)
		[ -n "$need" ] || continue
		if depends_at_least "$p" "$lib" "$need"; then
			pass "$label: $p depends on $lib >= $need, the newest release whose symbols it uses"
		else
			fail "$label: $p depends on $lib >= $need, the newest release whose symbols it uses" \
				"Depends: $(dpkg-deb -f "$d" Depends)"
		fi
	done
	if awk '$3 == 1' "$tmp/needs" | grep . >/dev/null; then
		private_users="$private_users $p"
		# KTAU_PRIVATE: exactly this release, (= V) or libktau1.symbols'
		# template 1, (>= V) with (<< the next patch release)
		deps=$(dpkg-deb -f "$d" Depends | tr ',' '\n' | sed 's/^ *//')
		IFS=. read -r major minor patch <<<"$version"
		if printf '%s\n' "$deps" | grep -x "libktau1 (= $version)" >/dev/null ||
			{ printf '%s\n' "$deps" | grep -x "libktau1 (>= $version)" >/dev/null &&
			  printf '%s\n' "$deps" | grep -x "libktau1 (<< $major.$minor.$((patch + 1))~)" >/dev/null; }; then
			pass "$label: $p, which uses KTAU_PRIVATE, depends on libktau1 $version exactly"
		else
			fail "$label: $p, which uses KTAU_PRIVATE, depends on libktau1 $version exactly" \
				"Depends: $(dpkg-deb -f "$d" Depends)"
		fi
	fi
done
if [ "$private_users" != " libktau-prof1" ]; then
	fail "$label: libktau-prof1 alone uses KTAU_PRIVATE" "used by:${private_users:- nothing}"
else
	pass "$label: libktau-prof1 alone uses KTAU_PRIVATE (ktau-tools: the public ABI only)"
fi
if [ -n "$other_machine" ]; then
	fail "$label: every ELF file is built for $machine" "$other_machine"
elif [ -n "$machine" ]; then
	pass "$label: every ELF file is built for $machine"
fi

for d in "${debs[@]}"; do
	dpkg-deb -x "$d" "$root"
done
multiarch=$(dpkg-architecture ${arch:+-a "$arch"} -qDEB_HOST_MULTIARCH 2>/dev/null)
libdir=$root/usr/lib/$multiarch

# every file of make install, in the multiarch directory, man pages
# compressed; besides them only the packages' documentation
mapfile -t expected < <(expected_files "lib/$multiarch" .gz)
check_files "$label" "$root/usr" '^share/doc/(libktau1|libktau-prof1|libktau-dev|ktau-tools)/' "${expected[@]}"

# the tools load the extracted libktau.so.1, not one installed on this machine
check_programs "$label" "$root/usr" .gz "$libdir"
check_pkgconfig_build "$label" "$root" "$libdir/pkgconfig" "$tmp/work"
check_prof_build "$label" "$root" "$libdir/pkgconfig" "$tmp/work"
exit "$failed"
