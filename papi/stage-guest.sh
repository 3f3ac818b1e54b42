#!/bin/bash
# A root overlay for the test guest (tests/qemu/mkinitramfs.sh's EXTRA),
# whose initramfs has no Debian shared libraries of its own: PAPI's
# papi_command_line, papi_native_avail and papi_component_avail, ktau's
# ktau-papi-check, libktau-papi and every shared library they load, under
# /opt/ktau-papi/{bin,lib}, the dynamic loader at the path the programs
# name (/lib64/ld-linux-x86-64.so.2), and run-in-guest.sh.
#
#   papi/stage-guest.sh PAPI_BUILD DEST     (make -C papi guest does it)
#   SYSROOT=DIR papi/stage-guest.sh PAPI_BUILD DEST
#
# SYSROOT: PAPI's tools and every library from DIR, an unpacked root of
# another architecture's packages (the arm64 guest's, scripts/arm64-deps.sh
# DIR papi, which make papi ARCH=arm64 passes), not from the host; the
# libraries each program loads found through readelf in DIR
# (scripts/elf-needed.bash), as ldd cannot run them.
#
# The programs find their libraries through LD_LIBRARY_PATH, which
# run-in-guest.sh sets: nothing else in the guest's root is touched, so it
# works with or without rootfs-mpi's copy of the C library.
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 PAPI_BUILD DEST" >&2; exit 2; }
die() { echo "stage-guest: $*" >&2; exit 1; }
papi_build=$1 dest=$2
here=$(cd "$(dirname "$0")" && pwd)
opt=$dest/opt/ktau-papi
sysroot=${SYSROOT:-}
if [ -n "$sysroot" ]; then
	[ -d "$sysroot/usr/lib" ] || die "SYSROOT=$sysroot is not an unpacked root (scripts/arm64-deps.sh DIR papi)"
	sysroot=$(cd "$sysroot" && pwd)
	# shellcheck source=scripts/elf-needed.bash
	. "$here/../scripts/elf-needed.bash"
	multiarch=$(cd "$sysroot/usr/lib" && ls -d ./*-linux-gnu* 2>/dev/null | head -n 1 || true)
	multiarch=${multiarch#./}
	[ -n "$multiarch" ] || die "SYSROOT=$sysroot has no usr/lib/<triplet>: not a root"
	elf_needed_init "$sysroot" "" "/lib/$multiarch /usr/lib/$multiarch /lib /usr/lib"
fi
for f in "$papi_build/ktau-papi-check" "$papi_build/libktau-papi.so.1"; do
	[ -e "$f" ] || die "no $f (make papi builds it)"
done

rm -rf "$dest"
mkdir -p "$opt/bin" "$opt/lib"
programs=()
for tool in papi_command_line papi_native_avail papi_component_avail; do
	if [ -n "$sysroot" ]; then
		[ -x "$sysroot/usr/bin/$tool" ] || die "SYSROOT=$sysroot has no usr/bin/$tool (papi-tools)"
		path=$(elf_real_path "/usr/bin/$tool")
	else
		path=$(command -v "$tool") || die "no $tool (apt-get install papi-tools)"
	fi
	programs+=("$path")
done
programs+=("$papi_build/ktau-papi-check")
for prog in "${programs[@]}"; do
	install -m 755 "$prog" "$opt/bin/"
done
install -m 755 "$(readlink -f "$papi_build/libktau-papi.so.1")" "$opt/lib/libktau-papi.so.1"

if [ -n "$sysroot" ]; then
	# every library, by its soname; the loader also at its own path
	elf_needed "${programs[@]}" "$opt/lib/libktau-papi.so.1"
	absent=
	for lib in "${elf_needed_libs[@]}"; do
		case "$lib" in
		missing:libktau-papi.so.1) ;;
		missing:*) absent="$absent ${lib#missing:}" ;;
		*) [ -e "$(elf_real_path "$lib")" ] || absent="$absent $lib" ;;
		esac
	done
	[ -z "$absent" ] ||
		die "PAPI's tools and libktau-papi need$absent, which SYSROOT ($sysroot) has not"
	for lib in "${elf_needed_libs[@]}"; do
		case "$lib" in
		missing:*) ;;
		# (libc's own need of the loader: the loader is loaded already)
		"/lib/$multiarch/"ld-linux* | "/usr/lib/$multiarch/"ld-linux*) ;;
		*/ld-linux*) install -D -m 755 "$(elf_real_path "$lib")" "$dest$lib" ;;
		*) install -m 755 "$(elf_real_path "$lib")" "$opt/lib/${lib##*/}" ;;
		esac
	done
else
	# every library the programs and libktau-papi load, by its soname, and
	# the loader (ldd prints "name => path" for the first, "\tpath" for the
	# last)
	LD_LIBRARY_PATH=$papi_build ldd "${programs[@]}" "$opt/lib/libktau-papi.so.1" |
		awk '/^\t/ && $2 == "=>" && $3 ~ /^\// { print $1, $3 } /^\t\// { print "loader", $1 }' |
		sort -u | while read -r name path; do
			case "$name" in
			loader) install -D -m 755 "$(readlink -f "$path")" "$dest$path" ;;
			libktau-papi.so.1) ;;
			*) install -m 755 "$(readlink -f "$path")" "$opt/lib/$name" ;;
			esac
		done
fi
install -m 755 "$here/run-in-guest.sh" "$opt/run-in-guest.sh"
echo "stage-guest: $dest: $(cd "$opt/bin" && echo *) and $(find "$opt/lib" -type f | wc -l) libraries," \
	"$(du -sk "$dest" | cut -f1) KiB"
