#!/bin/bash
# `make series`: write ktau as a `git am`-able series in which every file
# reaches the tree through a patch, for reviewers and for sites that
# carry patches in their own packaging (rpmbuild, debian/patches, Yocto).
#
# patches/ and kernel-ext/ stay the sources.  The series is patches/ in
# order, with kernel-ext/'s files added by the patches that need them:
#   - the first patch (the task fields) adds include/linux/ktau_types.h
#     and the MAINTAINERS entry;
#   - a new patch right after it adds the generic core
#     (include/linux/ktau.h, kernel/ktau/), which nothing builds until
#     the series' Kconfig patch sources kernel/ktau/Kconfig, with the
#     ktau= entry of kernel-parameters.txt (the Kconfig patch's in
#     patches/), beside the __setup() it documents;
#   - the patch that selects HAVE_ARCH_KTAU in an architecture's Kconfig
#     adds that architecture's part (kernel-ext/arch/ARCH/: asm/ktau.h);
#   - the Documentation patch adds the admin guide and the ABI entries,
#     the selftests patch tools/testing/selftests/ktau/.
# Each patch that adds files adds their MAINTAINERS lines.  Those
# patches are found by place (the first), by their hunks (ktau=,
# select HAVE_ARCH_KTAU) and by subject (`Documentation:`,
# `selftests:`), never by number, so that
# patches/ may be split or reordered; the others are taken as they are.
# From the core patch on, every prefix of the series has the code that
# the same prefix of patches/ has with kernel-ext/ copied in (the
# documentation and the selftests come with their own patches);
# scripts/check-series-prefixes.sh applies the series one patch at a
# time and builds every prefix.  0000-cover-letter.patch carries the
# design in short and the benchmark table.
#
# usage: scripts/make-series.sh [OUTDIR]     (default: build/series)
# environment: KTARBALL (Debian's linux-source-6.12 tarball) or KSRC (a
# 6.12 tree), BUILD
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
out=${1:-$BUILD/series}
tarball=${KTARBALL:-/usr/src/linux-source-6.12.tar.xz}
ident=(-c user.name="ktau developers" -c user.email=ktau@example.org
       -c core.autocrlf=false -c am.keepcr=false)

die() { printf 'make-series: %s\n' "$*" >&2; exit 1; }
case ${1:-} in -h|--help)
	sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'
	exit 0 ;;
esac
[ $# -le 1 ] || die "usage: scripts/make-series.sh [OUTDIR]"
command -v git >/dev/null || die "git is not installed"
if [ -z "${KSRC:-}" ] && [ ! -f "$tarball" ]; then
	die "no kernel source: $tarball (run 'make deps') or KSRC="
fi

series=$(sed '/^#/d; /^$/d' "$top/patches/series")
# The commit date of the core's newest change: the same sources give
# the same series.
date=$(git -C "$top" log -1 --format=%aD -- kernel-ext patches 2>/dev/null || true)
date=${date:-$(date -R)}
export GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
repo=$work/linux

# The base: only the files the series changes, plus MAINTAINERS.
files=$(for p in $series; do sed -n 's|^--- a/||p' "$top/patches/$p"; done |
	sort -u)
files="$files MAINTAINERS"
mkdir -p "$repo"
if [ -n "${KSRC:-}" ]; then
	# shellcheck disable=SC2086 # one argument per file
	(cd "$KSRC" && tar cf - $files) | tar xf - -C "$repo"
else
	# tar stops on the pipe's SIGPIPE once head has its line
	prefix=$(tar tf "$tarball" | head -n 1 | cut -d/ -f1) || true
	[ -n "$prefix" ] || die "cannot list $tarball"
	# shellcheck disable=SC2046,SC2086 # one argument per file
	tar xf "$tarball" -C "$repo" --strip-components=1 \
		$(printf "$prefix/%s " $files)
fi
git -C "$repo" init -q
git -C "$repo" add -f -A
git "${ident[@]}" -C "$repo" commit -q -m "Linux 6.12 (the files the series touches)"
git -C "$repo" tag base

# copy_ext PATH...: kernel-ext files into the tree, modes kept
copy_ext() {
	(cd "$top/kernel-ext" && tar cf - "$@") | tar xf - -C "$repo"
}

# maintainers PATTERN...: add F: lines to the KTAU entry, which the first
# call creates (before KTD253, in order); its F: lines stay sorted
maintainers() {
	python3 - "$repo/MAINTAINERS" "$@" <<'EOF'
import sys
path, pats = sys.argv[1], sys.argv[2:]
lines = open(path, encoding='utf-8').read().split('\n')
head = 'KTAU (KERNEL TAU) PER-TASK KERNEL PROFILES'
if head not in lines:
    at = lines.index('KTD253 BACKLIGHT DRIVER')
    lines[at:at] = [head, 'M:\tktau developers <ktau@example.org>',
                    'S:\tMaintained', '']
start = lines.index(head)
end = lines.index('', start)
entry = lines[start:end]
fs = sorted(set([l for l in entry if l.startswith('F:\t')] +
                ['F:\t' + p for p in pats]))
entry = [l for l in entry if not l.startswith('F:\t')] + fs
lines[start:end] = entry
open(path, 'w', encoding='utf-8').write('\n'.join(lines))
EOF
}

# The patch that documents ktau= in kernel-parameters.txt: that hunk goes
# into the core patch, beside the __setup() it documents.
params=Documentation/admin-guide/kernel-parameters.txt
params_patch=$(for p in $series; do
	awk -v f="+++ b/$params" '$0 == f { docs = 1; next } /^\+\+\+ / { docs = 0 }
		docs && /^\+[ \t]*ktau=/ { found = 1 } END { exit !found }' \
		"$top/patches/$p" && echo "$p"
done | head -n 1) || true
[ -n "$params_patch" ] || die "no patch documents ktau= in $params"

# selects_ktau PATCH ARCH: whether PATCH selects HAVE_ARCH_KTAU in
# arch/ARCH/Kconfig
selects_ktau() {
	awk -v f="+++ b/arch/$2/Kconfig" '$0 == f { k = 1; next } /^\+\+\+ / { k = 0 }
		k && /^\+[ \t]*select[ \t]+HAVE_ARCH_KTAU([ \t]|$)/ { found = 1 }
		END { exit !found }' "$1"
}

# am PATCH [git-am options]
am() {
	local p=$1
	shift
	git "${ident[@]}" -C "$repo" am -q --committer-date-is-author-date "$@" \
		"$top/patches/$p" || die "git am of $p failed"
}

# amend_add PATH...: put files into the last commit
amend_add() {
	git -C "$repo" add -f "$@"
	git "${ident[@]}" -C "$repo" commit -q --amend --no-edit
}

first=1
for p in $series; do
	if [ "$p" = "$params_patch" ]; then
		am "$p" --exclude="$params"
	else
		am "$p"
	fi
	if [ $first = 1 ]; then
		first=0
		copy_ext include/linux/ktau_types.h
		maintainers include/linux/ktau_types.h
		amend_add include/linux/ktau_types.h MAINTAINERS
		# the core, which builds from the Kconfig patch on
		core=$(cd "$top/kernel-ext" && find . -type f \
			! -path './Documentation/*' ! -path './tools/*' \
			! -path './arch/*' ! -path ./include/linux/ktau_types.h |
			sed 's|^\./||' | sort)
		# shellcheck disable=SC2086 # one argument per file
		copy_ext $core
		maintainers include/linux/ktau.h kernel/ktau/
		git -C "$repo" apply --include="$params" "$top/patches/$params_patch" ||
			die "cannot apply the $params part of $params_patch"
		# shellcheck disable=SC2086
		git -C "$repo" add -f $core MAINTAINERS "$params"
		git "${ident[@]}" -C "$repo" commit -q -F "$top/patches/core.msg"
		continue
	fi
	# an architecture's part, with the patch that lets KTAU be built there
	for a in $(cd "$top/kernel-ext" && find arch -mindepth 1 -maxdepth 1 -type d |
		   cut -d/ -f2 | sort); do
		selects_ktau "$top/patches/$p" "$a" || continue
		copy_ext "arch/$a"
		maintainers "arch/$a/include/asm/ktau.h"
		amend_add "arch/$a" MAINTAINERS
	done
	case $(sed -n 's/^Subject: \(\[PATCH[^]]*\] \)\{0,1\}//p' "$top/patches/$p") in
	Documentation:*)
		docs=$(cd "$top/kernel-ext" && find Documentation -type f | sort)
		# shellcheck disable=SC2086
		copy_ext $docs
		# shellcheck disable=SC2086
		maintainers $docs
		# shellcheck disable=SC2086
		amend_add $docs MAINTAINERS ;;
	selftests:*)
		copy_ext tools
		maintainers tools/testing/selftests/ktau/
		amend_add tools MAINTAINERS ;;
	esac
done

# Every kernel-ext file is in the series.
missing=$(cd "$top/kernel-ext" && find . -type f | sed 's|^\./||' | while read -r f; do
	git -C "$repo" cat-file -e "HEAD:$f" 2>/dev/null || echo "$f"
done)
[ -z "$missing" ] || die "kernel-ext files no patch adds: $missing"

rm -rf "$out"
mkdir -p "$out"
git "${ident[@]}" -C "$repo" format-patch -q --zero-commit --no-signature \
	--cover-letter -o "$out" base..HEAD

# The cover letter: patches/cover-letter.txt (its first line the subject)
# and the benchmark table of docs/benchmark.md, as written there.
cover=$out/0000-cover-letter.patch
python3 - "$cover" "$top/patches/cover-letter.txt" "$top/docs/benchmark.md" <<'EOF'
import sys, re
cover, tmpl, bench = sys.argv[1:4]
text = open(tmpl, encoding='utf-8').read().rstrip('\n').split('\n')
subject, body = text[0], '\n'.join(text[1:]).strip('\n')
b = open(bench, encoding='utf-8').read()
m = re.search(r'^## The table\n.*?^```\n(.*?)^```', b, re.S | re.M)
if not m:
    sys.exit('make-series: no table under "## The table" in docs/benchmark.md')
body = body.replace('@BENCH_TABLE@', m.group(1).rstrip('\n'))
c = open(cover, encoding='utf-8').read()
if '*** SUBJECT HERE ***' not in c or '*** BLURB HERE ***' not in c:
    sys.exit('make-series: unexpected cover letter from git format-patch')
c = c.replace('*** SUBJECT HERE ***', subject).replace('*** BLURB HERE ***', body)
open(cover, 'w', encoding='utf-8').write(c)
EOF
n=$(find "$out" -name '[0-9]*.patch' ! -name '0000-*' | wc -l)
echo "make-series: $n patches and a cover letter in $out"
