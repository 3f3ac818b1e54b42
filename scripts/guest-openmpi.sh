#!/bin/bash
# Copy the host's Open MPI runtime (Debian's openmpi-bin, libopenmpi3,
# libpmix2) into ROOT, an extra root for the test initramfs, so that the
# guest can run `mpirun -np 4` on MPI programs; and, when USER_BUILD has
# them, ktau's shared libraries and the MPI test program.
#
#   scripts/guest-openmpi.sh ROOT [USER_BUILD]
#   SYSROOT=DIR scripts/guest-openmpi.sh ROOT [USER_BUILD]
#
# SYSROOT: take Open MPI from DIR, an unpacked root of another
# architecture's packages (the arm64 guest's: scripts/arm64-deps.sh DIR
# mpi), not from the host: the libraries each file loads are then
# resolved through readelf in DIR, and the loader's cache made by DIR's
# own ldconfig under qemu-user (qemu-aarch64).
#
# ROOT is emptied first.  Into it go, at the host's own paths (Open MPI
# finds its plugins, help texts and configuration at compiled-in paths):
#   /usr/bin/orterun (+ mpirun, mpiexec links), /usr/bin/orted, the MCA
#   plugins of Open MPI and PMIx, every shared library that they, libmpi
#   and the programs below load (ldd of each, and the dynamic loader),
#   /etc/openmpi, /usr/share/openmpi and PMIx's help texts and parameters;
#   from USER_BUILD/lib: libktau.so.1 and libktau-prof.so.1, into
#   /usr/local/lib (where ktau-run --tau looks for libktau-prof);
#   from USER_BUILD/mpi: libktau-mpi.so.1 and its .so link (/usr/local/lib)
#   and mpi-ring (/usr/local/bin); each left out with a note when not built;
#   /etc/ld.so.cache for that tree (ldconfig -r), so that the guest's
#   loader finds every library by name, LD_PRELOAD=libktau-mpi.so too.
# Left out: the plugins of network hardware no QEMU guest has (UCX,
# libfabric, InfiniBand verbs, PSM); Open MPI does without them.
#
# Exit status: 0 when Open MPI was copied, 3 when it is not installed on
# this host (ROOT is then left empty, with a note), 1 on an error.
set -euo pipefail

usage() { sed -n '2,/^set -/{/^#/s/^# \{0,1\}//p}' "$0"; exit "${1:-2}"; }
case "${1:-}" in -h|--help) usage 0 ;; esac
[ $# -ge 1 ] && [ $# -le 2 ] || usage
die() { echo "guest-openmpi: $*" >&2; exit 1; }

root=$1
user_build=${2:-}
sysroot=${SYSROOT:-}
if [ -n "$sysroot" ]; then
	[ -d "$sysroot" ] || die "SYSROOT=$sysroot is not a directory"
	sysroot=$(cd "$sysroot" && pwd)
	multiarch=$(cd "$sysroot/usr/lib" 2>/dev/null && ls -d ./*-linux-gnu* 2>/dev/null | head -n 1 ||
		true)
	multiarch=${multiarch#./}
	[ -n "$multiarch" ] || die "SYSROOT=$sysroot has no usr/lib/<triplet>: not a root"
else
	multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
fi
ompi_lib=/usr/lib/$multiarch/openmpi/lib
pmix_dir=/usr/lib/$multiarch/pmix2
# plugins needing these drive network hardware (and pull in 10 MB of
# libraries): a guest has only loopback and shared memory
hardware_libs='libucp|libuct|libfabric|libibverbs|libpsm'

# ROOT is emptied: never the machine's own root
case "$root" in ''|/|/.|//) die "ROOT '$root' is the machine's root: give a build directory" ;; esac
rm -rf "$root"
mkdir -p "$root"
root=$(cd "$root" && pwd)

if [ -n "$sysroot" ]; then
	orterun=/usr/bin/orterun
	orted=/usr/bin/orted
	if [ -x "$sysroot$orterun" ]; then
		machine=$(readelf -h "$sysroot$orterun" 2>/dev/null |
			sed -n 's/.*Machine: *//p' || true)
		case "$machine" in
		AArch64) qemu_user=qemu-aarch64 ;;
		*) die "SYSROOT=$sysroot: no qemu-user known for '$machine' programs" ;;
		esac
		command -v "$qemu_user" >/dev/null ||
			die "no $qemu_user, for SYSROOT's ldconfig (apt-get install qemu-user)"
	else
		orterun=
	fi
else
	orterun=$(command -v orterun || true)
	orted=$(command -v orted || true)
fi
if [ -z "$orterun" ] || [ ! -d "$sysroot$ompi_lib/openmpi3" ]; then
	if [ -n "$sysroot" ]; then
		echo "guest-openmpi: SYSROOT=$sysroot has no Open MPI" \
			"(scripts/arm64-deps.sh DIR mpi): the guest gets no MPI," \
			"its MPI test is skipped"
	else
		echo "guest-openmpi: Open MPI is not installed on this host" \
			"(apt-get install openmpi-bin libopenmpi-dev): the guest gets no MPI," \
			"its MPI test is skipped"
	fi
	exit 3
fi
[ -n "$sysroot" ] || command -v ldconfig >/dev/null || [ -x /sbin/ldconfig ] || die "no ldconfig"

# shellcheck source=scripts/elf-needed.bash
. "$(dirname "$0")/elf-needed.bash"

# a path of SYSROOT's, its links followed inside SYSROOT; the host's own
# path without one
real_path() {
	if [ -n "$sysroot" ]; then elf_real_path "$1"; else readlink -f "$1"; fi
}

copy_file() {	# copy_file PATH: to the same path under root (links followed)
	local src
	[ -e "$root$1" ] && return 0
	src=$(real_path "$1")
	install -D -m "$( [ -x "$src" ] && echo 755 || echo 644)" "$src" "$root$1"
}

# SYSROOT's libraries as the guest's loader finds them (a library already
# in ROOT, ktau's, from there): the directories of its cache (below) and
# Open MPI's and PMIx's own
elf_needed_init "$sysroot" "$root" \
	"/usr/local/lib /lib/$multiarch /usr/lib/$multiarch $ompi_lib $pmix_dir/lib /lib /usr/lib"

copy_libs() {	# copy_libs ELF...: every library they load, and the loader
	local lib
	if [ -n "$sysroot" ]; then
		elf_needed "$@"
		for lib in "${elf_needed_libs[@]}"; do
			case "$lib" in
			missing:*) die "$*: needs ${lib#missing:}, which SYSROOT ($sysroot) has not" ;;
			esac
			copy_file "$lib"
		done
		return
	fi
	ldd "$@" 2>/dev/null | awk '/=> \// { print $3 } /^\t\// { print $1 }' | sort -u |
	while read -r lib; do
		copy_file "$lib"
	done
}

# loaded: what ELF loads, as text (the host's ldd, or SYSROOT's readelf:
# the libraries of network hardware are not in SYSROOT, only named); set,
# not printed, so that elf_needed keeps what it learnt
loads() {
	if [ -n "$sysroot" ]; then
		elf_needed "$1"
		loaded="${elf_needed_libs[*]}"
	else
		loaded=$(ldd "$1")
	fi
}

copy_tree() {	# copy_tree DIR: a directory of data files, links followed
	[ -d "$sysroot$1" ] || return 0
	mkdir -p "$root$1"
	cp -rL "$sysroot$1/." "$root$1/"
}

# the launcher and the daemon it starts on each node
copy_file "$orterun"
ln -sf orterun "$root/usr/bin/mpirun"
ln -sf orterun "$root/usr/bin/mpiexec"
copy_file "$orted"
copy_libs "$orterun" "$orted" "/usr/lib/$multiarch/libmpi.so.40"

# the plugins, but those of network hardware
nplugins=0
nleft=0
for dir in "$ompi_lib/openmpi3" "$pmix_dir/lib/pmix"; do
	for plugin in "$sysroot$dir"/*.so; do
		plugin=${plugin#"$sysroot"}
		# (not ldd | grep -q: with pipefail, ldd's SIGPIPE would say no)
		loads "$plugin"
		if [[ $loaded =~ $hardware_libs ]]; then
			nleft=$((nleft + 1))
			continue
		fi
		copy_file "$plugin"
		copy_libs "$plugin"
		nplugins=$((nplugins + 1))
	done
done
copy_tree /etc/openmpi
# The guest is one node with no ssh or rsh, and loopback its only network:
# mpirun starts the ranks itself (plm isolated; the default, rsh, refuses to
# start without an agent) and they talk over shared memory (btl vader),
# copying through it: the test kernels lack CONFIG_CROSS_MEMORY_ATTACH, and
# vader's default single copy (process_vm_readv) fails with ENOSYS, noisily.
# The guest's site configuration, as an administrator would set it: the
# commands stay the ones users type.
params=$root/etc/openmpi/openmpi-mca-params.conf
sed -i -e '/^[[:space:]]*\(plm\|btl\|btl_vader_single_copy_mechanism\)[[:space:]]*=/d' \
	"$params"
printf '%s\n' '' '# ktau test guest (scripts/guest-openmpi.sh): one node, no ssh' \
	'plm = isolated' 'btl = self,vader' 'btl_vader_single_copy_mechanism = none' >>"$params"
copy_tree /usr/share/openmpi
copy_tree "$pmix_dir/share"

# ktau's libraries and the MPI test program, when built
ktau_libs=
note() { echo "guest-openmpi: $*"; }
if [ -n "$user_build" ]; then
	for lib in "$user_build/lib/libktau.so.1" "$user_build/lib/libktau-prof.so.1" \
		"$user_build/mpi/libktau-mpi.so.1"; do
		if [ -f "$lib" ]; then
			install -D -m 755 "$(readlink -f "$lib")" "$root/usr/local/lib/${lib##*/}"
			ktau_libs="$ktau_libs ${lib##*/}"
		else
			note "$lib is not built: the guest does without it"
		fi
	done
	# LD_PRELOAD=libktau-mpi.so, as users name it
	[ -f "$root/usr/local/lib/libktau-mpi.so.1" ] &&
		ln -s libktau-mpi.so.1 "$root/usr/local/lib/libktau-mpi.so"
	if [ -f "$user_build/mpi/mpi-ring" ]; then
		install -D -m 755 "$user_build/mpi/mpi-ring" "$root/usr/local/bin/mpi-ring"
		ktau_libs="$ktau_libs mpi-ring"
	else
		note "$user_build/mpi/mpi-ring is not built (make mpi): the guest's MPI test skips"
	fi
	# their own dependencies (libelf, ...); libktau.so.1 itself is in the tree
	for f in "$root/usr/local/lib/"* "$root/usr/local/bin/"*; do
		[ -f "$f" ] && copy_libs "$f"
	done
fi

# the loader's cache of that tree: the guest has no ldconfig of its own
mkdir -p "$root/etc"
printf '%s\n' /usr/local/lib "/lib/$multiarch" "/usr/lib/$multiarch" >"$root/etc/ld.so.conf"
if [ -n "$sysroot" ]; then
	"$qemu_user" "$(real_path /sbin/ldconfig)" -r "$root"
	version=$("$qemu_user" -L "$sysroot" "$sysroot$orterun" --version 2>/dev/null | head -n 1)
else
	"$(command -v ldconfig || echo /sbin/ldconfig)" -r "$root"
	version=$(orterun --version 2>/dev/null | head -n 1)
fi

echo "guest-openmpi: $root: Open MPI ${version##* }, $nplugins plugins ($nleft of network hardware left out)," \
	"ktau:${ktau_libs:- none}, $(du -sk "$root" | cut -f1) KiB"
