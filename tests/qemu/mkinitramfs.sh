#!/bin/bash
# Builds the ktau test initramfs (gzip'ed newc cpio); needs no root.
#
#   tests/qemu/mkinitramfs.sh BUILD OUT [MODE]
#
# BUILD  the user-space build dir (e.g. build/user): static programs from
#        BUILD/bin/ go to /usr/local/bin, BUILD/guest/ (guest tests +
#        run-all.sh) to /guest; either may be missing or empty.
# OUT    the initramfs file to write (e.g. build/initramfs.cpio.gz)
# MODE   default mode baked into /etc/ktau-mode (check|demo|shell|bench; default
#        check); the kernel command line `ktaumode=...` overrides it.
#
# Environment:
#   BUSYBOX  static busybox to install (default /bin/busybox)
#   DEMO     script installed as /demo.sh (default BUILD/demo.sh, if present)
#   EXTRA    directories copied verbatim over the root, blank-separated, in
#            order; missing ones are skipped (default BUILD/rootfs-extra,
#            BUILD/rootfs-mpi, the Open MPI runtime of scripts/guest-openmpi.sh,
#            BUILD/rootfs-tau, TAU's program that make check-tau stages, and
#            BUILD/papi/guest, PAPI's tools and libktau-papi that make papi stages)
#   KMOD     kernel modules (.ko) for the guest tests, installed in /guest;
#            they must be built against the kernel that boots
set -euo pipefail

usage() { sed -n '2,/^set -/{/^#/s/^# \{0,1\}//p}' "$0"; exit "${1:-2}"; }
case "${1:-}" in -h|--help) usage 0 ;; esac
[ $# -ge 2 ] && [ $# -le 3 ] || usage

BUILD=$1
OUT=$2
MODE=${3:-check}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
BUSYBOX=${BUSYBOX:-/bin/busybox}
DEMO=${DEMO:-$BUILD/demo.sh}
EXTRA=${EXTRA:-$BUILD/rootfs-extra $BUILD/rootfs-mpi $BUILD/rootfs-tau $BUILD/papi/guest}

die() { echo "mkinitramfs: $*" >&2; exit 1; }
warn() { echo "mkinitramfs: warning: $*" >&2; }

case "$MODE" in check|demo|shell|bench) ;; *) die "unknown mode '$MODE' (check, demo, shell, bench)" ;; esac
[ -x "$BUSYBOX" ] || die "no busybox at $BUSYBOX (apt-get install busybox-static)"
for t in cpio gzip find; do
	command -v "$t" >/dev/null || die "'$t' not found"
done

# a program that needs a dynamic loader cannot run in this initramfs
is_dynamic() {
	command -v readelf >/dev/null || return 1
	readelf -lW "$1" 2>/dev/null | grep -q 'Requesting program interpreter'
}
is_dynamic "$BUSYBOX" && die "$BUSYBOX is not static (apt-get install busybox-static)"

kmods=
for m in ${KMOD:-}; do
	[ -f "$m" ] || die "KMOD: no module $m (build the kernel first: make kernel)"
	kmods="$kmods $(cd "$(dirname "$m")" && pwd)/$(basename "$m")"
done

stage=$(mktemp -d "${TMPDIR:-/tmp}/ktau-initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT
cd "$stage"
mkdir -p bin sbin usr/bin usr/sbin usr/local/bin dev proc sys tmp root etc \
	mnt/host guest
chmod 1777 tmp
chmod 700 root

# busybox and its applets (symlinks made here: no --install needed at
# boot; a busybox of another architecture, which cannot list them here,
# has init make them: tests/qemu/init.sh)
cp "$BUSYBOX" bin/busybox
chmod 755 bin/busybox
if applets=$("$BUSYBOX" --list-full 2>/dev/null); then
	printf '%s\n' "$applets" | while read -r applet; do
		case "$applet" in ''|bin/busybox|linuxrc) continue ;; esac
		[ -e "$applet" ] || [ -L "$applet" ] || ln -s /bin/busybox "$applet"
	done
fi
[ -e bin/sh ] || ln -s /bin/busybox bin/sh

install -m 755 "$here/init.sh" init
echo "$MODE" >etc/ktau-mode
echo "root:x:0:0:root:/root:/bin/sh" >etc/passwd
echo "root:x:0:" >etc/group
echo "nobody:x:65534:65534:nobody:/:/bin/false" >>etc/passwd
echo "nogroup:x:65534:" >>etc/group

ntools=0
if [ -d "$BUILD/bin" ]; then
	for f in "$BUILD"/bin/*; do
		[ -f "$f" ] && [ -x "$f" ] || continue
		is_dynamic "$f" && warn "$f is dynamically linked: it will not run in the guest"
		install -m 755 "$f" usr/local/bin/
		ntools=$((ntools + 1))
	done
fi
ntests=0
if [ -d "$BUILD/guest" ]; then
	for f in "$BUILD"/guest/*; do
		[ -f "$f" ] || continue
		case "$f" in *.sh) ;; *) is_dynamic "$f" && warn "$f is dynamically linked: it will not run in the guest" ;; esac
		cp -p "$f" guest/
		case "${f##*/}" in t_*) ntests=$((ntests + 1)) ;; esac
	done
fi
for m in $kmods; do
	install -m 644 "$m" guest/
done
# t_setuid runs a copy of itself set-user-ID root (the archive is root's)
[ -f guest/t_setuid ] && install -m 4755 guest/t_setuid guest/setuid_helper
[ -f guest/run-all.sh ] || install -m 755 "$repo/tests/guest/run-all.sh" guest/run-all.sh
[ -f "$DEMO" ] && install -m 755 "$DEMO" demo.sh
for extra in $EXTRA; do
	[ -d "$extra" ] && cp -a "$extra"/. .
done

mkdir -p "$(dirname "$OUT")"
out_abs=$(cd "$(dirname "$OUT")" && pwd)/$(basename "$OUT")
find . -mindepth 1 | LC_ALL=C sort |
	cpio -o -H newc -R 0:0 --quiet | gzip -9n >"$out_abs.tmp"
mv "$out_abs.tmp" "$out_abs"
echo "mkinitramfs: $OUT: mode $MODE, $ntools tools, $ntests guest tests, $(du -k "$out_abs" | cut -f1) KiB" >&2
