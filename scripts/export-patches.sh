#!/bin/sh
# Regenerate patches/ from a kernel git tree made by scripts/patch-tree.sh:
# one patch per commit since the tag ktau-base, and the quilt series.
#
# usage: scripts/export-patches.sh KERNEL_GIT_TREE
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 1 ] || { echo "usage: $0 KERNEL_GIT_TREE" >&2; exit 2; }
git -C "$1" rev-parse -q --verify ktau-base >/dev/null ||
	{ echo "export-patches: $1 has no ktau-base tag (make it with scripts/patch-tree.sh)" >&2; exit 1; }
rm -f "$top"/patches/*.patch
git -C "$1" format-patch -q --no-signature --zero-commit \
	-o "$top/patches" ktau-base..HEAD
(cd "$top/patches" && ls ./*.patch | sed 's|^\./||' > series)
echo "export-patches: $(wc -l < "$top/patches/series") patches written to patches/"
