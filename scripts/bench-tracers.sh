#!/bin/bash
# Copy Debian's tracers (strace, perf, bpftrace), with the shared
# libraries ldd lists and the dynamic loader, into ROOT (the bench
# initramfs' extra root), so that `make bench` can run `strace -c -f`,
# `perf trace -s` and bpftrace in the guest.  A tool that is not installed
# is left out (the guest then says so).  bpftrace brings LLVM and clang
# (about 200 MB): scripts/bench.sh packs it only into the tracing
# kernel's initramfs.
#
#   scripts/bench-tracers.sh ROOT [TOOL...]   (default: strace perf bpftrace)
set -euo pipefail

root=${1:?usage: bench-tracers.sh ROOT [TOOL...]}
shift
[ $# -gt 0 ] || set -- strace perf bpftrace

copy_with_libs() {	# copy_with_libs BINARY: it and every library it loads
	local bin=$1 lib
	install -D -m 755 "$bin" "$root/usr/bin/${bin##*/}"
	for lib in $(ldd "$bin" | awk '/=> \// { print $3 } /^\t\// { print $1 }'); do
		[ -e "$root$lib" ] || install -D -m 755 "$(readlink -f "$lib")" "$root$lib"
	done
}

for tool in "$@"; do
	path=$(command -v "$tool" || true)
	if [ -z "$path" ]; then
		echo "bench-tracers: $tool is not installed (apt-get install ${tool/perf/linux-perf}): the bench skips it"
		continue
	fi
	copy_with_libs "$path"
	echo "bench-tracers: $path and its libraries copied"
done
