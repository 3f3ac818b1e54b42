#!/bin/sh
# Build a KTAU kernel: prepare a 6.12.y source tree (Debian's
# linux-source-6.12 tarball, or KSRC=), copy kernel-ext/ in, apply
# patches/series, merge a config fragment and build bzImage out of tree.
#
# usage: scripts/build-kernel.sh [NAME]
#   NAME     config fragment tests/configs/NAME.config (default: qemu, or
#            qemu-arm64 with ARCH=arm64); the image is written to
#            build/bzImage-NAME (x86-64) or build/Image-NAME (arm64)
# environment:
#   ARCH     x86_64 (default, also x86 or unset) or arm64, cross-built
#            with CROSS_COMPILE (default aarch64-linux-gnu-); an object
#            directory is configured for one architecture only
#   KSRC     a Linux 6.12.y source tree to use instead of the tarball
#   KBASE    base config: "tinyconfig" (default) or the path of a full
#            .config such as /boot/config-$(uname -r)
#   BUILD    build directory (default: build/ in the repository)
#   JOBS     parallel make jobs (default: nproc)
#   KMAKEFLAGS  extra make arguments for the kernel build (e.g. W=1 C=1)
#   KTARGETS    build only these kernel make targets (objects or
#               directories, e.g. "kernel/ktau/ kernel/softirq.o"), not
#               bzImage: a fast check that the patched files compile
#               under a config
#   KMODULES    "all" (default): the config's modules, then the test
#               module; "test": only the test module, against vmlinux's
#               symbols (a distribution config has thousands of modules)
#   KPREPARE    "1": prepare the tree and the configuration in the object
#               directory, build nothing (scripts/deb-kernel.sh builds then)
#   KOBJDIR     the object directory (default: BUILD/kernel-NAME); one
#               under BUILD/kernel-* is removed with the others when the
#               source changes (scripts/deb-kernel.sh: BUILD/kernel-deb-NAME)
#
# Everything is incremental: a second run with nothing changed only runs
# the kernel's make, which then has nothing to do.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
# The kernel's make reads ARCH from the environment: x86 builds run
# without it, as they always did; another architecture passes it.
karch=${ARCH:-x86_64}
unset ARCH
case $karch in
x86|x86_64)
	karch=x86
	kargs=
	image=bzImage
	defname=qemu
	;;
arm64|aarch64)
	karch=arm64
	kargs="ARCH=arm64 CROSS_COMPILE=${CROSS_COMPILE:-aarch64-linux-gnu-}"
	image=Image
	defname=qemu-arm64
	;;
*)
	printf 'build-kernel: error: ARCH=%s: x86_64 or arm64\n' "$karch" >&2
	exit 1
	;;
esac
name=${1:-$defname}
BUILD=${BUILD:-$top/build}
KSRC=${KSRC:-}
KBASE=${KBASE:-tinyconfig}
JOBS=${JOBS:-$(nproc)}
KMAKEFLAGS=${KMAKEFLAGS:-}
tarball=${KTARBALL:-/usr/src/linux-source-6.12.tar.xz}
fragment=$top/tests/configs/$name.config
tree=$BUILD/linux
objdir=${KOBJDIR:-$BUILD/kernel-$name}

say() { printf '==> %s\n' "$*"; }
die() { printf 'build-kernel: error: %s\n' "$*" >&2; exit 1; }

if [ "$karch" != x86 ]; then
	command -v "${CROSS_COMPILE:-aarch64-linux-gnu-}gcc" >/dev/null ||
		die "no ${CROSS_COMPILE:-aarch64-linux-gnu-}gcc (apt-get install gcc-aarch64-linux-gnu)"
fi
[ -f "$fragment" ] || die "no config fragment $fragment (NAME must be one of: $(cd "$top/tests/configs" && ls *.config | sed 's/\.config$//' | tr '\n' ' '))"

# --- source tree -----------------------------------------------------------
if [ -n "$KSRC" ]; then
	[ -d "$KSRC" ] || die "KSRC=$KSRC does not exist"
	[ -f "$KSRC/Makefile" ] && [ -d "$KSRC/kernel" ] ||
		die "KSRC=$KSRC is not a Linux source tree (no Makefile or kernel/)"
	source_id="dir:$(cd "$KSRC" && pwd)"
else
	[ -f "$tarball" ] ||
		die "no kernel source: $tarball is missing (run 'make deps', or give KSRC=/path/to/linux-6.12.y)"
	source_id="tarball:$tarball:$(stat -c %s:%Y "$tarball")"
fi

version_of() {
	sed -n 's/^VERSION = //p; s/^PATCHLEVEL = //p' "$1/Makefile" | tr '\n' '.' | sed 's/\.$//'
}

# One build at a time prepares the shared source tree (extracts it, copies
# kernel-ext, applies the series); builds of other configurations, each
# in its own object directory, may run beside one another (make check
# builds the arm64 kernel beside x86's).
mkdir -p "$BUILD"
exec 9>"$BUILD/.linux-tree.lock"
flock 9

if [ ! -f "$tree/.ktau-source" ] || [ "$(cat "$tree/.ktau-source")" != "$source_id" ]; then
	rm -rf "$tree" "$BUILD"/kernel-*
	mkdir -p "$tree"
	if [ -n "$KSRC" ]; then
		say "copying kernel source from $KSRC"
		(cd "$KSRC" && tar cf - --exclude=.git .) | (cd "$tree" && tar xf -)
		[ ! -f "$tree/.config" ] || die "KSRC=$KSRC has been configured in place; run 'make mrproper' there first"
	else
		say "extracting $tarball"
		tar xf "$tarball" -C "$tree" --strip-components=1
	fi
	echo "$source_id" > "$tree/.ktau-source"
fi
ver=$(version_of "$tree")
[ "$ver" = "6.12" ] || die "kernel source is Linux $ver; ktau's patches are for 6.12.y"

# --- kernel extension --------------------------------------------------------
# Copy only files whose contents changed, so make rebuilds only those.
(cd "$top/kernel-ext" && find . -type f ! -name '*~') | while read -r f; do
	dst="$tree/$f"
	if ! cmp -s "$top/kernel-ext/$f" "$dst"; then
		mkdir -p "$(dirname "$dst")"
		cp "$top/kernel-ext/$f" "$dst"
	fi
done

# --- patches -----------------------------------------------------------------
# The applied series is kept in the tree; when patches/ changes, the old
# series is reversed and the new one applied, touching only their files;
# a file that ends up as it was keeps its time, so that a series split or
# reworded differently rebuilds nothing.
applied=$tree/.ktau-applied
# series_files DIR: the files the series kept in DIR (series + patches) touch
series_files() {
	while read -r _ p; do
		sed -n 's|^+++ b/||p' "$1/$p"
	done < "$1/series" | sort -u
}
series_now=$(cd "$top/patches" && cat series | sed '/^#/d; /^$/d' | while read -r p; do
	[ -f "$p" ] || die "patches/series names $p, which does not exist"
	printf '%s %s\n' "$(sha1sum < "$p" | cut -c1-40)" "$p"
done)
if [ ! -f "$applied/series" ] || [ "$(cat "$applied/series")" != "$series_now" ]; then
	saved=$tree/.ktau-saved
	rm -rf "$saved"
	if [ -f "$applied/series" ]; then
		mkdir -p "$saved"
		(cd "$tree" && for f in $(series_files "$applied"); do
			if [ -f "$f" ]; then cp -p --parents "$f" "$saved/"; fi
		done)
		say "reversing the previously applied patches"
		tac "$applied/series" | while read -r _ p; do
			patch -d "$tree" -p1 -R -s --batch < "$applied/$p" >/dev/null ||
				die "cannot reverse $p in $tree; remove $tree to start afresh"
		done
	fi
	rm -rf "$applied"
	mkdir -p "$applied"
	echo "$series_now" | while read -r _ p; do
		say "applying patches/$p"
		if ! out=$(patch -d "$tree" -p1 -N --batch --dry-run < "$top/patches/$p" 2>&1); then
			printf '%s\n' "$out" >&2
			die "patch patches/$p does not apply to this kernel tree (hunks above)"
		fi
		patch -d "$tree" -p1 -N -s --batch < "$top/patches/$p"
		cp "$top/patches/$p" "$applied/$p"
		printf '%s %s\n' "$(sha1sum < "$top/patches/$p" | cut -c1-40)" "$p" >> "$applied/series.tmp"
	done
	mv "$applied/series.tmp" "$applied/series"
	if [ -d "$saved" ]; then
		(cd "$saved" && find . -type f) | while read -r f; do
			! cmp -s "$saved/$f" "$tree/$f" || touch -r "$saved/$f" "$tree/$f"
		done
		rm -rf "$saved"
	fi
fi

# the tree is ready: the next build may look at it
exec 9>&-

# --- configuration -----------------------------------------------------------
# A fragment may start from others: lines "#include NAME.config", which
# may include others in turn.  merge_config.sh gets them depth first, each
# once, an included file before its includer (a later one wins a clash).
fragments=
add_fragment() {	# add_fragment FILE CHAIN: FILE's includes, then FILE
	local inc
	case " $fragments " in *" $1 "*) return ;; esac
	for inc in $(sed -n 's/^#include \(.*\.config\)$/\1/p' "$1"); do
		[ -f "$top/tests/configs/$inc" ] || die "$1 includes $inc, which does not exist"
		case " $2 " in
		*" $top/tests/configs/$inc "*) die "$1 includes $inc, which includes it (a cycle)" ;;
		esac
		add_fragment "$top/tests/configs/$inc" "$2 $1"
	done
	fragments="$fragments $1"
}
add_fragment "$fragment" ""

mkdir -p "$objdir"
# never reconfigure one architecture's object directory for another
if [ -f "$objdir/.config" ] && [ "$(cat "$objdir/.ktau-arch" 2>/dev/null || echo x86)" != "$karch" ]; then
	die "$objdir was configured for $(cat "$objdir/.ktau-arch" 2>/dev/null || echo x86), not $karch (give KOBJDIR= or another NAME)"
fi
echo "$karch" > "$objdir/.ktau-arch"
config_id="$KBASE:$(cat $fragments | sha1sum | cut -c1-40)"
[ "$KBASE" = tinyconfig ] || config_id="$config_id:$(sha1sum < "$KBASE" | cut -c1-40)"
if [ ! -f "$objdir/.config" ] || [ "$(cat "$objdir/.ktau-config" 2>/dev/null)" != "$config_id" ]; then
	say "configuring ($KBASE + tests/configs/$name.config)"
	# shellcheck disable=SC2086 # kargs is a list of make arguments
	if [ "$KBASE" = tinyconfig ]; then
		make -s -C "$tree" O="$objdir" $kargs tinyconfig >/dev/null
	else
		[ -f "$KBASE" ] || die "KBASE=$KBASE: no such config file"
		cp "$KBASE" "$objdir/.config"
	fi
	(cd "$objdir" && env $kargs "$tree/scripts/kconfig/merge_config.sh" -m -O "$objdir" "$objdir/.config" $fragments >/dev/null)
	make -s -C "$tree" O="$objdir" $kargs olddefconfig >/dev/null
	missing=$(grep -E '^CONFIG_[A-Z0-9_]+=' "$fragment" | while read -r line; do
		grep -qxF "$line" "$objdir/.config" || printf ' %s' "$line"
	done)
	[ -z "$missing" ] || die "config options did not take effect (unmet dependencies?):$missing"
	echo "$config_id" > "$objdir/.ktau-config"
fi

# --- build -------------------------------------------------------------------
if [ "${KPREPARE:-0}" = 1 ]; then
	say "configured: $objdir"
	exit 0
fi
if [ -n "${KTARGETS:-}" ]; then
	say "building $KTARGETS ($name, $JOBS jobs) in $objdir"
	# shellcheck disable=SC2086 # lists of make arguments and targets
	make -s -C "$tree" O="$objdir" $kargs -j"$JOBS" $KMAKEFLAGS $KTARGETS
	say "built: $KTARGETS"
	exit 0
fi
say "building $image ($name, $JOBS jobs) in $objdir"
# shellcheck disable=SC2086 # KMAKEFLAGS and kargs are lists of make arguments
make -s -C "$tree" O="$objdir" $kargs -j"$JOBS" $KMAKEFLAGS $image
cp "$objdir/arch/$karch/boot/$image" "$BUILD/$image-$name"

# The guest tests' module (tests/kmod), built against this kernel when it
# has module support; the source is copied because kbuild writes next to it.
if grep -qx 'CONFIG_MODULES=y' "$objdir/.config"; then
	kmod=$BUILD/kmod-$name
	say "building the test module (tests/kmod) in $kmod"
	if [ "${KMODULES:-all}" != test ]; then
		make -s -C "$tree" O="$objdir" $kargs -j"$JOBS" $KMAKEFLAGS modules
	else
		make -s -C "$tree" O="$objdir" $kargs -j"$JOBS" $KMAKEFLAGS modules_prepare
		cp "$objdir/vmlinux.symvers" "$objdir/Module.symvers"
	fi
	mkdir -p "$kmod"
	for f in "$top"/tests/kmod/*; do
		cmp -s "$f" "$kmod/${f##*/}" || cp "$f" "$kmod/"
	done
	make -s -C "$objdir" M="$kmod" $kargs -j"$JOBS" $KMAKEFLAGS modules
fi
# shellcheck disable=SC2086
say "kernel ready: $BUILD/$image-$name ($(make -s -C "$tree" O="$objdir" $kargs kernelrelease))"
