#!/bin/sh
# Debian's arm64 packages the arm64 guest needs, fetched with apt-get
# download and unpacked (never installed) into one root:
#
#   scripts/arm64-deps.sh DIR
#
# DIR/root gets busybox-static (the guest's shell, DIR/root/bin/busybox)
# and, for the static arm64 builds of libktau-prof and the programs that
# link it, libelf-dev and zlib1g-dev (DIR/root/usr/include,
# DIR/root/usr/lib/aarch64-linux-gnu/lib{elf,z}.a).  A package already
# unpacked is not fetched again.  apt must know the arm64 architecture
# (make deps-arm64 adds it: dpkg --add-architecture arm64, apt-get update).
set -eu

[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
dir=$1
mkdir -p "$dir/root"
# package, and the file that shows it is unpacked
for pkg in busybox-static:bin/busybox libelf-dev:usr/lib/aarch64-linux-gnu/libelf.a \
	   zlib1g-dev:usr/lib/aarch64-linux-gnu/libz.a; do
	name=${pkg%%:*}
	[ -e "$dir/root/${pkg#*:}" ] && continue
	rm -f "$dir/${name}"_*_arm64.deb
	(cd "$dir" && apt-get download "$name:arm64" >/dev/null 2>&1) || {
		echo "arm64-deps: cannot fetch $name:arm64 (make deps-arm64, or as root:" \
			"dpkg --add-architecture arm64 && apt-get update)" >&2
		exit 1
	}
	dpkg-deb -x "$dir/${name}"_*_arm64.deb "$dir/root"
done
