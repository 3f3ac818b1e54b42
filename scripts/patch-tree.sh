#!/bin/sh
# Make a kernel git tree for working on the patch set: the 6.12 source
# (Debian's tarball, or KSRC=) committed and tagged ktau-base, then each
# patch of patches/series as one commit.  Edit, commit (or rebase -i),
# and write the series back with scripts/export-patches.sh.
#
# usage: scripts/patch-tree.sh DIR
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
[ ! -e "$1" ] || { echo "patch-tree: $1 exists already" >&2; exit 1; }
tarball=${KTARBALL:-/usr/src/linux-source-6.12.tar.xz}
mkdir -p "$1"
if [ -n "${KSRC:-}" ]; then
	(cd "$KSRC" && tar cf - --exclude=.git .) | (cd "$1" && tar xf -)
else
	tar xf "$tarball" -C "$1" --strip-components=1
fi
cd "$1"
git init -q
# Debian's source package ignores everything in its .gitignore.
git add -f -A
git -c user.name=ktau -c user.email=ktau@localhost commit -q -m "Linux 6.12 base"
git tag ktau-base
(cd "$top/kernel-ext" && tar cf - .) | tar xf -
# The extension's files stay untracked: they live in kernel-ext/.
sed '/^#/d; /^$/d' "$top/patches/series" | while read -r p; do
	git am -q "$top/patches/$p"
done
echo "patch-tree: $1 ready, $(git rev-list --count ktau-base..HEAD) patches applied"
