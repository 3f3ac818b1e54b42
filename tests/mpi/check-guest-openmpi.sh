#!/bin/bash
# scripts/guest-openmpi.sh, the copy of Open MPI into a guest root:
#
#   tests/mpi/check-guest-openmpi.sh           bad input, then the host's
#                                              Open MPI with build/user
#   SYSROOT=DIR tests/mpi/check-guest-openmpi.sh
#                                              DIR's (arm64's: make
#                                              initramfs ARCH=arm64 unpacks
#                                              it) with build/user-arm64
#
# Bad input: no ROOT (usage, 2), the machine's root (1), a SYSROOT that
# is missing (1) or is not a root (1), one without Open MPI (3, ROOT
# empty).  A copied root: orterun of the right machine, every library
# each ELF file there loads found in the root's library directories (read
# with readelf, apart from the script's own walk), the loader's cache
# naming libmpi and ktau's libraries (read back by ldconfig -p, the
# root's own under qemu-user for a SYSROOT), no plugin of network
# hardware, the site's MCA parameters.  One PASS/FAIL line a check; a
# SKIP line without Open MPI on the host (host part only).
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$top/build}
# shellcheck source=tests/install/lib.sh
. "$top/tests/install/lib.sh"
script=$top/scripts/guest-openmpi.sh
sysroot=${SYSROOT:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# refused LABEL STATUS TEXT ENV... -- ARGS...: the script exits STATUS
# and says TEXT
refused() { refuses "$script" "guest-openmpi: $1" "${@:2}"; }

# check_root LABEL ROOT MACHINE LDCONFIG...: a copied root's contents
check_root() {
	local label=$1 root=$2 machine=$3 missing='' f need dir found cache
	shift 3
	found=$(readelf -h "$root/usr/bin/orterun" 2>/dev/null | sed -n 's/.*Machine: *//p')
	if [ "$found" = "$machine" ] && [ -L "$root/usr/bin/mpirun" ]; then
		pass "$label: orterun ($machine) and its mpirun link"
	else
		fail "$label: orterun" "machine '$found', want '$machine'; mpirun link: $(ls -l "$root/usr/bin/mpirun" 2>&1)"
	fi
	local dirs
	dirs=$(sed 's|^|'"$root"'|' "$root/etc/ld.so.conf" 2>/dev/null)
	dirs="$dirs $(find "$root/usr/lib" -maxdepth 4 -type d -path '*openmpi/lib' -o \
		-maxdepth 4 -type d -path '*pmix2/lib') $root/lib $root/lib64 $root/usr/lib"
	while read -r f; do
		for need in $(readelf -d "$f" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			found=
			for dir in $dirs; do
				[ -e "$dir/$need" ] && { found=1; break; }
			done
			[ -n "$found" ] || missing="$missing $need(${f#"$root"/})"
		done
	done < <(find "$root" -type f \( -name '*.so*' -o -path '*/bin/*' \) -exec sh -c \
		'head -c 4 "$1" | grep -q ELF' _ {} \; -print)
	if [ -z "$missing" ]; then
		pass "$label: every library each program and plugin loads is in the root"
	else
		fail "$label: libraries" "not in the root:$missing"
	fi
	cache=$("$@" -C "$root/etc/ld.so.cache" -p 2>&1)
	missing=
	for f in libmpi.so.40 libktau.so.1 libktau-prof.so.1 libktau-mpi.so.1; do
		[[ $cache == *"$f "* ]] || missing="$missing $f"
	done
	if [ -z "$missing" ]; then
		pass "$label: the loader's cache names libmpi and ktau's libraries"
	else
		fail "$label: ld.so.cache" "does not name:$missing ($(echo "$cache" | head -n 1))"
	fi
	found=$(find "$root" -name 'mca_*.so' | grep -E 'ucx|ofi|openib|verbs|psm|uct' | tr '\n' ' ')
	if [ -z "$found" ]; then
		pass "$label: no plugin of network hardware"
	else
		fail "$label: plugins" "of network hardware: $found"
	fi
	if grep -qx 'plm = isolated' "$root/etc/openmpi/openmpi-mca-params.conf" &&
	   grep -qx 'btl = self,vader' "$root/etc/openmpi/openmpi-mca-params.conf"; then
		pass "$label: the guest's MCA parameters (plm isolated, btl self,vader)"
	else
		fail "$label: MCA parameters" "no plm/btl lines in etc/openmpi/openmpi-mca-params.conf"
	fi
	[ -x "$root/usr/local/bin/mpi-ring" ] && [ -L "$root/usr/local/lib/libktau-mpi.so" ] &&
		pass "$label: mpi-ring and libktau-mpi.so, as LD_PRELOAD names it" ||
		fail "$label: ktau's files" "$(ls "$root/usr/local/bin" "$root/usr/local/lib" 2>&1 | tr '\n' ' ')"
}

if [ -n "$sysroot" ]; then
	label="guest-openmpi (SYSROOT ${sysroot##*/})"
	ldconfig=$sysroot/sbin/ldconfig
	if ! out=$(SYSROOT="$sysroot" bash "$script" "$tmp/root" "$BUILD/user-arm64" 2>&1); then
		fail "$label: copy" "$(echo "$out" | tail -n 3)"
	else
		pass "$label: copy: ${out##*: }"
		check_root "$label" "$tmp/root" AArch64 qemu-aarch64 "$ldconfig"
	fi
	exit "$failed"
fi

refused "no ROOT" 2 "guest-openmpi.sh ROOT [USER_BUILD]" --
refused "the machine's root" 1 "is the machine's root" -- /
refused "a SYSROOT that is missing" 1 "is not a directory" SYSROOT="$tmp/none" -- "$tmp/r"
mkdir -p "$tmp/notroot"
refused "a SYSROOT that is not a root" 1 "not a root" SYSROOT="$tmp/notroot" -- "$tmp/r"
mkdir -p "$tmp/nompi/usr/lib/aarch64-linux-gnu"
refused "a SYSROOT without Open MPI" 3 "has no Open MPI" SYSROOT="$tmp/nompi" -- "$tmp/r"
if [ -d "$tmp/r" ] && [ -z "$(ls -A "$tmp/r")" ]; then
	pass "guest-openmpi: a SYSROOT without Open MPI leaves ROOT empty"
else
	fail "guest-openmpi: ROOT after a SYSROOT without Open MPI" "$(ls -A "$tmp/r" 2>&1 | tr '\n' ' ')"
fi

have_tools guest-openmpi "make deps installs openmpi-bin libopenmpi-dev" orterun ||
	exit "$failed"
label="guest-openmpi (host)"
if ! out=$(bash "$script" "$tmp/root" "$BUILD/user" 2>&1); then
	fail "$label: copy" "$(echo "$out" | tail -n 3)"
else
	pass "$label: copy: ${out##*: }"
	machine=$(readelf -h "$(command -v orterun)" | sed -n 's/.*Machine: *//p')
	check_root "$label" "$tmp/root" "$machine" "$(command -v ldconfig || echo /sbin/ldconfig)"
fi
exit "$failed"
