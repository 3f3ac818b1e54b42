#!/bin/bash
# The user-space packages of `make deb` (BUILD/deb/*.deb, built by
# check-deb.sh just before) installed on this machine for real: dpkg -i,
# every packaged tool's --help from /usr/bin (ktau-dump's among them), a
# program built with pkg-config against the installed ktau.pc and run
# against the installed library, then dpkg --purge, also when a check
# fails, and a check that nothing is left.  The package names come from
# the .debs' control fields.  Needs root: one SKIP line when not root,
# without dpkg, or when a package of that name is already installed (a
# site's own ktau is not touched).  One PASS/FAIL line a check.
#
# DEB_ARCH=arm64: the arm64 packages (make deb ARCH=arm64, BUILD/deb-arm64,
# built by check-deb.sh's DEB_ARCH=arm64 run) installed beside this
# machine's own architecture, as Debian's multiarch installs a foreign
# one (dpkg --add-architecture arm64 and libc6:arm64: make deps-deb-arm64),
# their lines named deb-host-arm64: the programs, arm64's, run under
# qemu-aarch64 from /usr/bin with the libraries dpkg put in
# /usr/lib/aarch64-linux-gnu, the pkg-config program is built with
# aarch64-linux-gnu-gcc.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$top/build}
# shellcheck source=tests/install/lib.sh
. "$top/tests/install/lib.sh"
label=deb-host
debdir=$BUILD/deb
arch=${DEB_ARCH:-}
[ "$arch" != "$(dpkg --print-architecture)" ] || arch=
# the installed programs find libktau where dpkg put it, or not at all
unset LD_LIBRARY_PATH

have_tools "$label" "make deps installs dpkg-dev" dpkg dpkg-deb dpkg-query dpkg-buildpackage || exit 0
if [ -n "$arch" ]; then
	label=deb-host-$arch
	debdir=$BUILD/deb-$arch
	gnu=$(dpkg-architecture -a "$arch" -qDEB_HOST_GNU_TYPE 2>/dev/null)
	export CC=$gnu-gcc
	export QEMU_USER=qemu-${gnu%%-*}
	have_tools "$label" "make deps-deb-$arch installs them" "$CC" "$QEMU_USER" || exit 0
	if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
		echo "SKIP: $label: dpkg does not install $arch packages here (make deps-deb-$arch adds the architecture)"
		exit 0
	fi
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: $label: not root (dpkg -i of the packages needs root; CI runs as root)"
	exit 0
fi
shopt -s nullglob
debs=("$debdir"/*.deb)
if [ ${#debs[@]} -eq 0 ]; then
	fail "$label: packages to install" "no $debdir/*.deb (make deb${arch:+ ARCH=$arch} failed?)"
	exit 1
fi

mapfile -t names < <(for d in "${debs[@]}"; do dpkg-deb -f "$d" Package; done | sed "s/\$/${arch:+:$arch}/")
installed_names() {
	local n s
	for n in "${names[@]}"; do
		s=$(dpkg-query -W -f='${db:Status-Status}' "$n" 2>/dev/null || true)
		[ -z "$s" ] || [ "$s" = not-installed ] || echo "$n"
	done
}
already=$(installed_names | tr '\n' ' ')
if [ -n "$already" ]; then
	echo "SKIP: $label: already installed on this machine, not touched: $already"
	exit 0
fi

# one installing check at a time on this machine (other trees' make check)
exec 9> /run/lock/ktau-deb-host.lock
flock -w 900 9 || { fail "$label: lock /run/lock/ktau-deb-host.lock" "held for 15 minutes"; exit 1; }

tmp=$(mktemp -d)
cleanup() {
	local left
	if ! dpkg --purge "${names[@]}" > "$tmp/purge.log" 2>&1; then
		fail "$label: dpkg --purge ${names[*]}" "$(tail -n 3 "$tmp/purge.log" | tr '\n' ' ')"
	fi
	left=$(installed_names | tr '\n' ' ')
	if [ -n "$left" ]; then
		fail "$label: dpkg --purge leaves the host clean" "still installed: $left"
	else
		# every regular file and link the packages shipped is gone
		left=$(for d in "${debs[@]}"; do dpkg-deb --fsys-tarfile "$d" | tar -t; done |
			sed -n 's|^\./|/|; /\/$/d; p' | while read -r f; do
				[ -e "$f" ] || [ -L "$f" ] && printf '%s ' "$f"
			done || true)
		if [ -n "$left" ]; then
			fail "$label: dpkg --purge leaves the host clean" "left: $left"
		else
			pass "$label: dpkg --purge ${names[*]} leaves the host clean"
		fi
	fi
	rm -rf "$tmp"
	exit "$failed"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
mkdir -p "$tmp/work"

if ! out=$(dpkg -i "${debs[@]}" 2>&1); then
	fail "$label: dpkg -i ${debs[*]##*/}" "$(printf '%s\n' "$out" | tail -n 6 | tr '\n' ' ')"
	exit 1
fi
pass "$label: dpkg -i installs ${names[*]}"

# the packaged programs, run from where dpkg put them (not a make install
# in /usr/local/bin), loading libktau from the system's library path
mapfile -t bins < <(for d in "${debs[@]}"; do dpkg-deb --fsys-tarfile "$d" | tar -t; done |
	sed -n 's|^\./usr/bin/\(.\+\)$|/usr/bin/\1|p' | sort -u)
case " ${bins[*]} " in
*" /usr/bin/ktau-dump "*) ;;
*) fail "$label: a package installs /usr/bin/ktau-dump" "the packages' programs: ${bins[*]:-none}" ;;
esac
for b in "${bins[@]}"; do
	if missing=$(loaded_libs "$b" 2>&1 | grep 'not found'); then
		fail "$label: ${b##*/} finds its libraries" "$missing"
		continue
	fi
	check_help "$label" "$b"
done

# pkg-config finds the installed ktau.pc; the program it builds runs
# against the installed library
multiarch=$(dpkg-architecture ${arch:+-a "$arch"} -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
check_pkgconfig_build "$label" "" "/usr/lib/$multiarch/pkgconfig" "$tmp/work"
