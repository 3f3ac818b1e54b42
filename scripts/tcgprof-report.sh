#!/bin/bash
# Where a guest's instructions went, per kernel function, from the counts
# of bench/tcgprof (a QEMU TCG plugin; docs/benchmark.md, "Where the
# instructions go").
#
#   scripts/tcgprof-report.sh [-n DIVISOR] [-t TOP] MAP COUNTS [MAP2 COUNTS2]
#
# MAP      the kernel's System.map (build/kernel-NAME/System.map) of the
#          image that ran
# COUNTS   the plugin's out= file, or one of its .snapN snapshots, or
#          FROM:TO, two snapshots of one boot: what ran between them (a
#          run of a guest that marks each run, e.g. a bench workload's)
# With one pair: each function's instructions in COUNTS, most first.
# With two: COUNTS2's minus COUNTS's per function (each named through
# its own map, so two kernels can be compared), largest differences
# first; two snapshots of one boot give what ran between them, two
# FROM:TO pairs what one run ran more than another (e.g. ktau on and
# off, in one boot or two).
#   -n DIVISOR  divide every figure (e.g. by the runs, for a figure per run)
#   -t TOP      print the TOP first functions (default 40; 0: all)
# Blocks below the kernel's first text symbol are "(user)", those past
# _etext "(after _etext)" (modules, BPF, trampolines). The first line
# is the total.
set -uo pipefail

usage() {
	sed -n '2,/^set -/{/^#/s/^# \{0,1\}//p}' "$0" >&2
	exit 2
}
die() { printf 'tcgprof-report: error: %s\n' "$*" >&2; exit 1; }

divisor=1 top=40
while getopts n:t:h opt; do
	case $opt in
	n) divisor=$OPTARG ;;
	t) top=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || [ $# -eq 4 ] || usage
case $divisor in '' | *[!0-9]* | 0) die "-n $divisor: a positive whole number" ;; esac
case $top in '' | *[!0-9]*) die "-t $top: a whole number" ;; esac
for f in "$@"; do
	case $f in
	*:*)
		[ -r "${f%%:*}" ] || die "cannot read ${f%%:*}"
		[ -r "${f#*:}" ] || die "cannot read ${f#*:}"
		;;
	*) [ -r "$f" ] || die "cannot read $f" ;;
	esac
done

# per_function MAP COUNTS: "NAME INSTRUCTIONS" lines. Addresses are
# compared as 16-digit hex strings (awk's numbers hold 53 bits): the map's
# text symbols and the counts sorted together, each block named by the
# symbol at or before it.
per_function() {
	{
		awk 'function hex16(s) { s = tolower(s); while (length(s) < 16) s = "0" s; return s }
		     $2 ~ /^[tTwW]$/ && $3 != "_etext" { print hex16($1), 0, $3 }
		     $3 == "_etext" { print hex16($1), 0, "(after _etext)" }' "$1"
		awk 'function hex16(s) { s = tolower(s); while (length(s) < 16) s = "0" s; return s }
		     NF == 3 && $1 ~ /^[0-9a-fA-F]+$/ && length($1) <= 16 && $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ {
			print hex16($1), 1, $2, $3; next }
		     NF { printf "tcgprof-report: %s: bad line %d: %s\n", FILENAME, NR, $0 > "/dev/stderr"; bad = 1 }
		     END { exit bad }' "$2" || echo BAD
	} | LC_ALL=C sort -k1,1 -k2,2n | awk '
		$1 == "BAD" { bad = 1; next }
		$2 == 0 { name = $3; for (i = 4; i <= NF; i++) name = name " " $i; next }
		{ sum[name == "" ? "(user)" : name] += $3 * $4 }
		END { for (n in sum) printf "%s\t%.0f\n", n, sum[n]; exit bad }'
}

# counts_of MAP COUNTS: per_function's lines, of FROM:TO the differences
counts_of() {
	case $2 in
	*:*)
		from=$(per_function "$1" "${2%%:*}") || return 1
		to=$(per_function "$1" "${2#*:}") || return 1
		{
			printf '%s\n' "$from" | sed 's/^/a\t/'
			printf '%s\n' "$to" | sed 's/^/b\t/'
		} | awk -F'\t' '$1 == "a" { v[$2] -= $3 } $1 == "b" { v[$2] += $3 }
			END { for (n in v) if (v[n] != 0) printf "%s\t%.0f\n", n, v[n] }'
		;;
	*) per_function "$1" "$2" ;;
	esac
}

a=$(counts_of "$1" "$2") || die "$2 is not tcgprof's output"
if [ $# -eq 2 ]; then
	printf '%s\n' "$a" | awk -F'\t' -v d="$divisor" -v top="$top" '
		{ v[$1] = $2 / d; t += $2 / d }
		END {
			printf "%14.0f  total\n", t
			n = 0
			for (k in v) order[++n] = k
			# most first (an insertion sort: a few thousand names)
			for (i = 2; i <= n; i++) {
				k = order[i]
				for (j = i - 1; j > 0 && (v[order[j]] < v[k] ||
				     (v[order[j]] == v[k] && order[j] > k)); j--)
					order[j + 1] = order[j]
				order[j + 1] = k
			}
			for (i = 1; i <= n && (top == 0 || i <= top); i++)
				printf "%14.0f  %s\n", v[order[i]], order[i]
		}'
	exit 0
fi
b=$(counts_of "$3" "$4") || die "$4 is not tcgprof's output"
{
	printf '%s\n' "$a" | sed 's/^/a\t/'
	printf '%s\n' "$b" | sed 's/^/b\t/'
} | awk -F'\t' -v d="$divisor" -v top="$top" '
	function abs(x) { return x < 0 ? -x : x }
	$1 == "a" { v[$2] -= $3 / d; t -= $3 / d }
	$1 == "b" { v[$2] += $3 / d; t += $3 / d }
	END {
		printf "%+14.0f  total\n", t
		n = 0
		for (k in v) if (v[k] != 0) order[++n] = k
		for (i = 2; i <= n; i++) {
			k = order[i]
			for (j = i - 1; j > 0 && (abs(v[order[j]]) < abs(v[k]) ||
			     (abs(v[order[j]]) == abs(v[k]) && order[j] > k)); j--)
				order[j + 1] = order[j]
			order[j + 1] = k
		}
		for (i = 1; i <= n && (top == 0 || i <= top); i++)
			printf "%+14.0f  %s\n", v[order[i]], order[i]
	}'
