#!/bin/bash
# The kernel documentation of kernel-ext/Documentation, on the host:
#   - abi-validate: Documentation/ABI/testing/procfs-ktau, added to the 6.12
#     tree's Documentation/ABI (only that and scripts/get_abi.pl are
#     extracted, from KSRC or the source tarball, into a temporary
#     directory), makes `scripts/get_abi.pl validate` say nothing it did
#     not say without it, and `get_abi.pl search` finds every entry;
#   - abi-complete: the entries are the /proc files ktau makes, no more
#     and no fewer: /proc/ktau/NAME for every proc_create*("NAME") of
#     kernel-ext/kernel/ktau, and /proc/<pid>/ktau and
#     /proc/<pid>/task/<tid>/ktau for the patches' REG("ktau");
#   - admin-guide-commands: every control command the kernel's parser
#     takes is in Documentation/admin-guide/ktau.rst and the ABI entry,
#     and every group the kernel has is in the guide;
#   - admin-guide-bench: the guide's overhead rows are docs/benchmark.md's
#     (the figures of `make bench`): row, getpid(), read(16 B), page fault.
#
#   tests/lib/check-kernel-docs.sh   (KSRC=, KTARBALL= as scripts/build-kernel.sh)
#
# Prints PASS:/FAIL: lines; exits 1 when a check failed.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
check_group=kernel-docs
# shellcheck source=tests/lib/check.sh
. "$top/tests/lib/check.sh"
abi=$top/kernel-ext/Documentation/ABI/testing/procfs-ktau
guide=$top/kernel-ext/Documentation/admin-guide/ktau.rst
ktau=$top/kernel-ext/kernel/ktau
tarball=${KTARBALL:-/usr/src/linux-source-6.12.tar.xz}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# --- abi-validate ------------------------------------------------------------
tree=$tmp/linux
mkdir -p "$tree"
if [ -n "${KSRC:-}" ]; then
	(cd "$KSRC" && tar cf - Documentation/ABI scripts/get_abi.pl) | tar xf - -C "$tree"
elif [ -f "$tarball" ]; then
	prefix=$(tar tf "$tarball" | head -n 1 | cut -d/ -f1)
	tar xf "$tarball" -C "$tree" --strip-components=1 \
		"$prefix/Documentation/ABI" "$prefix/scripts/get_abi.pl"
fi
get_abi() { perl "$tree/scripts/get_abi.pl" --dir "$tree/Documentation/ABI" "$@" 2>&1; }
whats=$(sed -n 's/^What:[[:space:]]*//p' "$abi")
if [ ! -f "$tree/scripts/get_abi.pl" ] || [ ! -d "$tree/Documentation/ABI/testing" ]; then
	check abi-validate 1 "no scripts/get_abi.pl and Documentation/ABI from ${KSRC:-$tarball}"
else
	before=$(get_abi validate)
	cp "$abi" "$tree/Documentation/ABI/testing/"
	after=$(get_abi validate)
	new=$(diff <(printf '%s\n' "$before") <(printf '%s\n' "$after") | sed -n 's/^> //p')
	missing=
	while IFS= read -r w; do
		get_abi search "^$(printf '%s' "$w" | sed 's/[][\.*^$]/\\&/g')\$" |
			grep -qxF "$w" || missing="$missing $w"
	done <<<"$whats"
	[ -z "$new" ] && [ -z "$missing" ] && [ -n "$whats" ]
	check abi-validate $? "get_abi.pl validate: $(printf '%s' "$new" | head -n 3 | tr '\n' ' ')${missing:+; not found by get_abi.pl search:$missing}"
fi

# --- abi-complete -------------------------------------------------------------
made=$(grep -ho 'proc_create[a-z_]*("[^"]*"' "$ktau"/*.c | sed 's/.*("\(.*\)"/\/proc\/ktau\/\1/')
if grep -q 'REG("ktau"' "$top"/patches/*.patch; then
	made=$(printf '%s\n/proc/<pid>/ktau\n/proc/<pid>/task/<tid>/ktau\n' "$made")
fi
made=$(printf '%s\n' "$made" | LC_ALL=C sort -u)
documented=$(printf '%s\n' "$whats" | LC_ALL=C sort)
lacking=$(LC_ALL=C comm -23 <(echo "$made") <(echo "$documented") | tr '\n' ' ')
extra=$(LC_ALL=C comm -13 <(echo "$made") <(echo "$documented") | tr '\n' ' ')
[ -z "$lacking" ] && [ -z "$extra" ] && [ "$(printf '%s\n' "$whats" | sort | uniq -d)" = "" ]
check abi-complete $? "procfs-ktau lacks: ${lacking:-none}; has what ktau does not make: ${extra:-none}"

# --- admin-guide-commands -------------------------------------------------------
# the parser's words: the commands (its ops[] table), and the second words
# of limit and trace, function by function
commands=$(awk '
	/^static int ktau_parse_limit/ { pre = "limit " }
	/^static int ktau_parse_trace/ { pre = "trace " }
	/^int ktau_control_parse/ { pre = ""; ops = 1 }
	/^}/ { pre = ""; ops = 0 }
	pre != "" && match($0, /ktau_word_is\(&what, "[a-z-]+"\)/) {
		w = substr($0, RSTART, RLENGTH); sub(/.*, "/, "", w); sub(/".*/, "", w)
		print pre w
	}
	ops && match($0, /\{ "[a-z]+", KTAU_CONTROL_/) {
		w = substr($0, RSTART + 3); sub(/".*/, "", w)
		if (w != "limit" && w != "trace") print w
	}' "$ktau/control_parse.c")
groups=$(sed -n 's/^[[:space:]]*\[KTAU_GROUP_[A-Z]*\][[:space:]]*= "\([a-z]*\)",/\1/p' "$ktau/fid.c")
absent=
for c in $(printf '%s\n' "$commands" | tr ' ' '+'); do
	c=${c//+/ }
	grep -qE "\`\`$c( |\`\`)" "$guide" || absent="$absent '$c' (ktau.rst)"
	grep -qE "(^|[[:space:],])$c( |,|$)" "$abi" || absent="$absent '$c' (procfs-ktau)"
done
for g in $groups; do
	grep -qE "^\`\`$g\`\` " "$guide" || absent="$absent group '$g' (ktau.rst)"
done
[ -z "$absent" ] && [ "$(printf '%s\n' "$commands" | wc -l)" -ge 15 ] && [ -n "$groups" ]
check admin-guide-commands $? "not documented:${absent:- (no commands or groups found in the parser)}"

# --- admin-guide-bench ------------------------------------------------------------
# the guide's rows: "ROW  LABEL  GETPID  READ  FAULT"; the benchmark's:
# "ROW label  getpid read close pipe fault", each figure but the first
# row's with "(+N)" after it
rows=$(awk '/^Row  Kernel/ { t = 1; next } t && /^[0-9]+[a-z]? / { print $1, $(NF-2), $(NF-1), $NF }' "$guide")
differ=
while read -r row g r f; do
	bench=$(sed -e 's/ ([+-][0-9]*)//g' "$top/docs/benchmark.md" |
		awk -v row="$row" '$1 == row && $NF ~ /^[0-9]+$/ { print $(NF-4), $(NF-3), $NF; exit }')
	[ "$bench" = "$g $r $f" ] || differ="$differ row $row: ktau.rst $g $r $f, docs/benchmark.md ${bench:-none};"
done <<<"$rows"
[ -n "$rows" ] && [ -z "$differ" ]
check admin-guide-bench $? "${differ:-no overhead rows in ktau.rst}"

exit $fail
