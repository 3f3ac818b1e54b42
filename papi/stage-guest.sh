#!/bin/bash
# A root overlay for the test guest (tests/qemu/mkinitramfs.sh's EXTRA),
# whose initramfs has no Debian shared libraries of its own: PAPI's
# papi_command_line, papi_native_avail and papi_component_avail, ktau's
# ktau-papi-check, libktau-papi and every shared library they load, under
# /opt/ktau-papi/{bin,lib}, the dynamic loader at the path the programs
# name (/lib64/ld-linux-x86-64.so.2), and run-in-guest.sh.
#
#   papi/stage-guest.sh PAPI_BUILD DEST     (make -C papi guest does it)
#
# The programs find their libraries through LD_LIBRARY_PATH, which
# run-in-guest.sh sets: nothing else in the guest's root is touched, so it
# works with or without rootfs-mpi's copy of the C library.
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 PAPI_BUILD DEST" >&2; exit 2; }
papi_build=$1 dest=$2
here=$(cd "$(dirname "$0")" && pwd)
opt=$dest/opt/ktau-papi

rm -rf "$dest"
mkdir -p "$opt/bin" "$opt/lib"
programs=()
for tool in papi_command_line papi_native_avail papi_component_avail; do
	path=$(command -v "$tool") || { echo "stage-guest: no $tool (apt-get install papi-tools)" >&2; exit 1; }
	programs+=("$path")
done
programs+=("$papi_build/ktau-papi-check")
for prog in "${programs[@]}"; do
	install -m 755 "$prog" "$opt/bin/"
done
install -m 755 "$(readlink -f "$papi_build/libktau-papi.so.1")" "$opt/lib/libktau-papi.so.1"

# every library the programs and libktau-papi load, by its soname, and the
# loader (ldd prints "name => path" for the first, "\tpath" for the last)
LD_LIBRARY_PATH=$papi_build ldd "${programs[@]}" "$opt/lib/libktau-papi.so.1" |
	awk '/^\t/ && $2 == "=>" && $3 ~ /^\// { print $1, $3 } /^\t\// { print "loader", $1 }' | sort -u |
	while read -r name path; do
		case "$name" in
		loader) install -D -m 755 "$(readlink -f "$path")" "$dest$path" ;;
		libktau-papi.so.1) ;;
		*) install -m 755 "$(readlink -f "$path")" "$opt/lib/$name" ;;
		esac
	done
install -m 755 "$here/run-in-guest.sh" "$opt/run-in-guest.sh"
echo "stage-guest: $dest: $(cd "$opt/bin" && echo *) and $(find "$opt/lib" -type f | wc -l) libraries," \
	"$(du -sk "$dest" | cut -f1) KiB"
