#!/bin/bash
# The documentation's shape and links, on the host:
#   - every relative link and image of README.md, CONTRIBUTING.md and
#     docs/**/*.md names a file or directory of the tree, and a link with
#     an anchor (FILE.md#anchor, #anchor) names a heading of that page
#     (GitHub's anchors: lower case, punctuation dropped, spaces to
#     hyphens, -1, -2... for repeats); links in code are not links;
#   - README.md is at most 220 lines, and its first 40 give `make demo`
#     and `make check` (a newcomer's first screen).
#
#   tests/lib/check-doc-links.sh [FILE.md...]   (default: the files above)
#
# Prints PASS:/FAIL: lines; exits 1 when a check failed.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
check_group=doc-links
# shellcheck source=tests/lib/check.sh
. "$top/tests/lib/check.sh"
cd "$top" || exit 1

readme_max=220
readme_screen=40

if [ $# -gt 0 ]; then
	files=("$@")
else
	files=(README.md CONTRIBUTING.md)
	while IFS= read -r f; do
		files+=("$f")
	done < <(find docs -name '*.md' | LC_ALL=C sort)
fi

# Every page's links (L FILE LINE TARGET) and heading anchors (H FILE
# ANCHOR), outside fenced code blocks and code spans.
# shellcheck disable=SC2016 # awk's program
scan='
FNR == 1 { fence = ""; delete seen }
# a fence opens with ``` or ~~~ (up to 3 spaces in) and closes with the same
match($0, /^ ? ? ?(```+|~~~+)/) {
	mark = substr($0, RSTART, RLENGTH); sub(/^ +/, "", mark)
	if (fence == "") { fence = mark; next }
	# a closing fence: the same character, at least as long, nothing after
	if (substr(mark, 1, 1) == substr(fence, 1, 1) && length(mark) >= length(fence) &&
	    substr($0, RSTART + RLENGTH) ~ /^[ \t]*$/) { fence = ""; next }
}
fence != "" { next }
{
	line = $0
	# code spans are not links
	gsub(/`[^`]*`/, "", line)
}
/^#+[ \t]/ {
	# the heading as written: code spans keep their text, links their text
	h = $0
	sub(/^#+[ \t]+/, "", h); sub(/[ \t]+#+[ \t]*$/, "", h)
	while (match(h, /\[[^]]*\]\([^)]*\)/)) {
		t = substr(h, RSTART, RLENGTH); sub(/^\[/, "", t); sub(/\]\(.*$/, "", t)
		h = substr(h, 1, RSTART - 1) t substr(h, RSTART + RLENGTH)
	}
	a = tolower(h)
	gsub(/[^a-z0-9 _-]/, "", a)
	gsub(/ /, "-", a)
	n = seen[a]++
	print "H\t" FILENAME "\t" (n ? a "-" n : a)
}
{
	rest = line
	while (match(rest, /\]\([^) \t]+([ \t]+"[^"]*")?\)/)) {
		t = substr(rest, RSTART + 2, RLENGTH - 3)
		sub(/[ \t].*$/, "", t)
		sub(/^</, "", t); sub(/>$/, "", t)
		print "L\t" FILENAME "\t" FNR "\t" t
		rest = substr(rest, RSTART + RLENGTH)
	}
	# reference definitions: [name]: target
	if (match(line, /^ ? ? ?\[[^]]+\]:[ \t]+[^ \t]+/)) {
		t = line
		sub(/^ ? ? ?\[[^]]+\]:[ \t]+/, "", t); sub(/[ \t].*$/, "", t)
		sub(/^</, "", t); sub(/>$/, "", t)
		print "L\t" FILENAME "\t" FNR "\t" t
	}
}
'

declare -A anchors=()
links=()
missing_files=0
for f in "${files[@]}"; do
	[ -f "$f" ] || { check "$f" 1 "no such file"; missing_files=1; }
done
[ "$missing_files" -eq 0 ] || exit 1

# the anchors of every page a link may name, not only of the pages checked
all_md=()
while IFS= read -r f; do
	all_md+=("$f")
done < <(find . -name '*.md' -not -path './build/*' -not -path './.git/*' | sed 's|^\./||' | LC_ALL=C sort)

while IFS=$'\t' read -r kind file a b; do
	case "$kind" in
	H) anchors["$file#$a"]=1 ;;
	L) links+=("$file"$'\t'"$a"$'\t'"$b") ;;
	esac
done < <(LC_ALL=C awk "$scan" "${all_md[@]}")

declare -A checked=()
for f in "${files[@]}"; do
	checked["$f"]=1
done

declare -A nlinks=() bad=()
for entry in "${links[@]}"; do
	IFS=$'\t' read -r file line target <<<"$entry"
	[ -n "${checked[$file]:-}" ] || continue
	nlinks[$file]=$(( ${nlinks[$file]:-0} + 1 ))
	case "$target" in
	[a-zA-Z]*:*) continue ;;	# a scheme: http:, https:, mailto:
	esac
	path=${target%%#*}
	anchor=
	[ "$path" = "$target" ] || anchor=${target#*#}
	if [ -z "$path" ]; then
		dest=$file
	elif [ "${path#/}" != "$path" ]; then
		dest=${path#/}
	else
		dest=$(dirname "$file")/$path
	fi
	dest=$(realpath -m --relative-to="$top" "$top/$dest")
	why=
	if [ ! -e "$dest" ]; then
		why="no such file or directory: $dest"
	elif [ -n "$anchor" ]; then
		case "$dest" in
		*.md) [ -n "${anchors[$dest#$anchor]:-}" ] || why="$dest has no heading #$anchor" ;;
		esac
	fi
	if [ -n "$why" ]; then
		echo "FAIL: $check_group/$file:$line: ($target): $why"
		fail=1
		bad[$file]=1
	fi
done
for f in "${files[@]}"; do
	[ -n "${bad[$f]:-}" ] || echo "PASS: $check_group/$f: ${nlinks[$f]:-0} links resolve"
done

# README.md: short, the two commands on its first screen
if [ $# -eq 0 ]; then
	n=$(wc -l <README.md)
	[ "$n" -le "$readme_max" ]
	check readme-length $? "README.md has $n lines, more than $readme_max: move the detail to docs/"
	head -n "$readme_screen" README.md | grep -q 'make demo' &&
		head -n "$readme_screen" README.md | grep -q 'make check'
	check readme-first-screen $? "README.md's first $readme_screen lines lack 'make demo' or 'make check'"
fi
exit "$fail"
