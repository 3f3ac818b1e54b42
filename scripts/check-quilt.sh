#!/bin/bash
# Does patches/ work as a quilt series?  `quilt push -a` on the pristine
# files the series touches, as PASS/FAIL lines.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tarball=${KTARBALL:-/usr/src/linux-source-6.12.tar.xz}

if ! command -v quilt >/dev/null; then
	echo "FAIL: quilt push -a: quilt is not installed (run 'make deps')"
	exit 0
fi
if [ -n "${KSRC:-}" ]; then
	src=$KSRC
elif [ -f "$tarball" ]; then
	src=
else
	echo "FAIL: quilt push -a: no kernel source ($tarball missing)"
	exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
files=$(sed '/^#/d; /^$/d' "$top/patches/series" | while read -r p; do
	sed -n 's|^--- a/||p' "$top/patches/$p"
done | sort -u)
mkdir -p "$work/tree"
if [ -n "$src" ]; then
	(cd "$src" && tar cf - $files) | tar xf - -C "$work/tree"
else
	prefix=$(tar tf "$tarball" | head -n 1 | cut -d/ -f1)
	# shellcheck disable=SC2046 # one argument per file
	tar xf "$tarball" -C "$work/tree" --strip-components=1 $(printf "$prefix/%s " $files)
fi
(cd "$top/kernel-ext" && tar cf - .) | tar xf - -C "$work/tree"
if out=$(cd "$work/tree" && QUILT_PATCHES="$top/patches" QUILT_PC="$work/pc" quilt push -a 2>&1); then
	echo "PASS: quilt push -a ($(sed '/^#/d; /^$/d' "$top/patches/series" | wc -l) patches)"
else
	echo "FAIL: quilt push -a: $(printf '%s' "$out" | tail -n 3 | tr '\n' ' ')"
fi
