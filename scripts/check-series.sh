#!/bin/bash
# The generated series (`make series`), as PASS/FAIL lines: it is made,
# `git am` applies it to the pristine files in order, the tree it gives
# is the tree `quilt push -a` of patches/ over kernel-ext/ gives (the
# one `make kernel` builds and `make check` boots), and each patch
# passes checkpatch --strict.  Building every prefix is
# scripts/check-series-prefixes.sh's (slow: make check-long runs it,
# make check does not).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
tarball=${KTARBALL:-/usr/src/linux-source-6.12.tar.xz}
checkpatch=${CHECKPATCH:-$BUILD/linux/scripts/checkpatch.pl}

fail() { echo "FAIL: series/$1: $2"; }

for tool in git quilt python3; do
	command -v "$tool" >/dev/null || { fail tools "$tool is not installed (run 'make deps')"; exit 0; }
done
[ -f "$tarball" ] || [ -n "${KSRC:-}" ] || { fail source "no kernel source ($tarball missing)"; exit 0; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if ! out=$("$top/scripts/make-series.sh" "$work/series" 2>&1); then
	fail make "$(printf '%s' "$out" | tail -n 3 | tr '\n' ' ')"
	exit 0
fi
echo "PASS: series/make: $(printf '%s' "$out" | tail -n 1 | sed "s|$work/||")"
patches=$(cd "$work/series" && find . -name '[0-9]*.patch' ! -name '0000-*' |
	sed 's|^\./||' | sort)
n=$(printf '%s\n' "$patches" | wc -l)
expected=$(($(sed '/^#/d; /^$/d' "$top/patches/series" | wc -l) + 1))
if [ "$n" -eq "$expected" ]; then
	echo "PASS: series/count: $n patches (patches/series and the core)"
else
	fail count "$n patches, expected $expected (patches/series and the core)"
fi

# The pristine files every patch touches, from the tarball.
# shellcheck disable=SC2086 # one argument per patch
files=$(cd "$work/series" && sed -n 's|^--- a/||p' $patches | sort -u)
extract() {
	mkdir -p "$1"
	if [ -n "${KSRC:-}" ]; then
		# shellcheck disable=SC2086 # one argument per file
		(cd "$KSRC" && tar cf - $files) | tar xf - -C "$1"
	else
		local prefix
		prefix=$(tar tf "$tarball" | head -n 1 | cut -d/ -f1) || true
		# shellcheck disable=SC2046,SC2086 # one argument per file
		tar xf "$tarball" -C "$1" --strip-components=1 $(printf "$prefix/%s " $files)
	fi
}

# git am, on a tree that has only the pristine files
extract "$work/am"
git -C "$work/am" init -q
git -C "$work/am" add -f -A
git -C "$work/am" -c user.name=ktau -c user.email=ktau@localhost commit -q -m base
applied=0
for p in $patches; do
	if ! out=$(git -C "$work/am" -c user.name=ktau -c user.email=ktau@localhost \
		   am -q "$work/series/$p" 2>&1); then
		fail git-am "$p does not apply: $(printf '%s' "$out" | head -n 2 | tr '\n' ' ')"
		break
	fi
	applied=$((applied + 1))
done
[ "$applied" -eq "$n" ] && echo "PASS: series/git-am: all $n patches apply in order"

# the same tree as quilt's: kernel-ext copied in, patches/ pushed
extract "$work/quilt"
(cd "$top/kernel-ext" && tar cf - .) | tar xf - -C "$work/quilt"
if ! out=$(cd "$work/quilt" && QUILT_PATCHES="$top/patches" QUILT_PC="$work/pc" quilt push -a 2>&1); then
	fail same-tree "quilt push -a of patches/: $(printf '%s' "$out" | tail -n 2 | tr '\n' ' ')"
elif [ "$applied" -eq "$n" ]; then
	rm -rf "$work/am/.git"
	# MAINTAINERS: the series adds the KTAU entry, which patches/ leaves out
	if ! out=$(diff -r -x MAINTAINERS "$work/quilt" "$work/am" 2>&1); then
		fail same-tree "$(printf '%s' "$out" | head -n 3 | sed "s|$work/||g" | tr '\n' ' ')"
	elif diff "$work/quilt/MAINTAINERS" "$work/am/MAINTAINERS" | grep -q '^<' ||
	     ! grep -q '^KTAU ' "$work/am/MAINTAINERS"; then
		fail same-tree "MAINTAINERS: the series changes more than adding the KTAU entry"
	else
		echo "PASS: series/same-tree: git am of the series gives quilt's tree of patches/ and kernel-ext/ (and a MAINTAINERS entry)"
	fi
fi

# checkpatch --strict on each patch.  One CHECK is wrong, as in
# scripts/check-kernel-style.sh: the register operand of an exception
# table entry, "_ASM_EXTABLE_TYPE_REG(..., %[value])", read as a modulo.
if [ ! -f "$checkpatch" ]; then
	fail checkpatch "$checkpatch missing (run 'make kernel' first, or set CHECKPATCH=)"
	exit 0
fi
for p in $patches; do
	f=$work/series/$p
	out=$(perl "$checkpatch" --no-tree --strict --terse --show-types "$f" 2>&1 |
		grep -E ': (ERROR|WARNING|CHECK):' |
		while IFS= read -r line; do
			l=$(printf '%s\n' "$line" | cut -d: -f2)
			if printf '%s\n' "$line" | grep -q "CHECK:SPACING: spaces preferred around that '%'" &&
			   sed -n "${l}p" "$f" | grep -q '_ASM_EXTABLE_TYPE_REG(.*%\['; then
				continue
			fi
			printf '%s\n' "$line"
		done)
	if [ -z "$out" ]; then
		echo "PASS: series/checkpatch/$p"
	else
		fail "checkpatch/$p" "$(printf '%s' "$out" | head -n 3 | sed "s|$work/series/||" | tr '\n' ' ')"
	fi
done
