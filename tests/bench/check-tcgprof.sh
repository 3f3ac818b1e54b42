#!/bin/bash
# bench/tcgprof (a QEMU TCG plugin counting a guest's instructions per
# translated block) and scripts/tcgprof-report.sh (the blocks named from
# System.map, summed per function):
#   - the plugin builds (-std=c11 -Wall -Wextra -Werror) and refuses bad
#     arguments;
#   - the report's sums on hand-made counts and map: user blocks, two
#     blocks of one function, a static function, blocks past _etext, the
#     difference of two runs, a run between two snapshots (FROM:TO) and
#     the difference of two such runs, a divisor, bad lines refused;
#   - with a kernel (KERNEL=, default BUILD/bzImage): Debian's QEMU loads
#     the plugin and boots the kernel to its panic for want of an init;
#     the counts name start_kernel, and a mark at kernel_init' address
#     writes a snapshot whose total is below the final one's.
#
#   tests/bench/check-tcgprof.sh
#
# Prints PASS:/FAIL: lines; exits 1 when a check failed.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$top/build}
KERNEL=${KERNEL:-$BUILD/bzImage}
report=$top/scripts/tcgprof-report.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check_group=tcgprof
# shellcheck source=tests/lib/check.sh
. "$top/tests/lib/check.sh"

msg=$(make -s -C "$top/bench" BUILD="$tmp" "$tmp/bench/tcgprof.so" 2>&1)
check plugin-builds $? "$(printf '%s' "$msg" | head -n 3 | tr '\n' ' ')"
plugin=$tmp/bench/tcgprof.so

cat >"$tmp/map" <<'EOF'
0000000000000000 D __per_cpu_start
ffffffff81000000 T _stext
ffffffff81000100 T foo
ffffffff81000200 t bar
ffffffff81000240 W weak_one
ffffffff81000300 T _etext
ffffffff82000000 D some_data
EOF
cat >"$tmp/a" <<'EOF'
400000 5 10
ffffffff81000100 3 7
ffffffff81000180 2 4
ffffffff81000200 4 1
ffffffff81000240 1 6
ffffffff81000400 1 9
EOF
cat >"$tmp/b" <<'EOF'
400000 5 10
FFFFFFFF81000100 3 7
ffffffff81000200 4 4
ffffffff81000400 1 19
EOF
# user 50, foo 21 + 8, bar 4, weak_one 6, past _etext 9: 98
out=$("$report" -t 0 "$tmp/map" "$tmp/a")
want=$(printf '%14d  total\n%14d  (user)\n%14d  foo\n%14d  (after _etext)\n%14d  weak_one\n%14d  bar' \
	98 50 29 9 6 4)
[ "$out" = "$want" ]
check report-sums $? "got: $(printf '%s' "$out" | tr '\n' '|')"
out=$("$report" -t 2 "$tmp/map" "$tmp/a")
[ "$out" = "$(printf '%s\n' "$want" | head -n 3)" ]
check report-top $? "-t 2 gave: $(printf '%s' "$out" | tr '\n' '|')"
# b - a: foo 21 - 29, bar 16 - 4, weak_one -6, past _etext +10; user 0 (not listed)
out=$("$report" -t 0 "$tmp/map" "$tmp/a" "$tmp/map" "$tmp/b")
want=$(printf '%+14d  total\n%+14d  bar\n%+14d  (after _etext)\n%+14d  foo\n%+14d  weak_one' \
	8 12 10 -8 -6)
[ "$out" = "$want" ]
check report-difference $? "got: $(printf '%s' "$out" | tr '\n' '|')"
out=$("$report" -n 2 -t 1 "$tmp/map" "$tmp/a" "$tmp/map" "$tmp/b")
[ "$out" = "$(printf '%+14d  total\n%+14d  bar' 4 6)" ]
check report-divisor $? "-n 2 gave: $(printf '%s' "$out" | tr '\n' '|')"
# snapshots of one boot: a (above), then c, then d.  a:c ran foo
# 3 x 3 + 2 x 1, user 5 x 2, bar 4 x 2, past _etext 1 x 3 (weak_one
# nothing: not listed); c:d foo 3 x 1, bar 4 x 5, weak_one 1 x 2
cat >"$tmp/c" <<'EOF'
400000 5 12
ffffffff81000100 3 10
ffffffff81000180 2 5
ffffffff81000200 4 3
ffffffff81000240 1 6
ffffffff81000400 1 12
EOF
cat >"$tmp/d" <<'EOF'
400000 5 12
ffffffff81000100 3 11
ffffffff81000180 2 5
ffffffff81000200 4 8
ffffffff81000240 1 8
ffffffff81000400 1 12
EOF
out=$("$report" -t 0 "$tmp/map" "$tmp/a:$tmp/c")
want=$(printf '%14d  total\n%14d  foo\n%14d  (user)\n%14d  bar\n%14d  (after _etext)' \
	32 11 10 8 3)
[ "$out" = "$want" ]
check report-snapshot-run $? "got: $(printf '%s' "$out" | tr '\n' '|')"
# c:d - a:c: bar 20 - 8, user -10, foo 3 - 11, past _etext -3, weak_one +2
out=$("$report" -t 0 "$tmp/map" "$tmp/a:$tmp/c" "$tmp/map" "$tmp/c:$tmp/d")
want=$(printf '%+14d  total\n%+14d  bar\n%+14d  (user)\n%+14d  foo\n%+14d  (after _etext)\n%+14d  weak_one' \
	-7 12 -10 -8 -3 2)
[ "$out" = "$want" ]
check report-snapshot-runs-difference $? "got: $(printf '%s' "$out" | tr '\n' '|')"
"$report" "$tmp/map" "$tmp/a:$tmp/nonexistent" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "cannot read $tmp/nonexistent" "$tmp/err"
check report-snapshot-missing $? "a missing TO: $(cat "$tmp/err")"
printf 'ffffffff81000100 3\n' >"$tmp/bad"
"$report" "$tmp/map" "$tmp/bad" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q 'bad line 1' "$tmp/err"
check report-refuses-bad-lines $? "a line of two fields: $(cat "$tmp/err")"
"$report" -n 0 "$tmp/map" "$tmp/a" >/dev/null 2>&1
[ $? -eq 1 ]
check report-refuses-divisor-0 $? "-n 0 was taken"
"$report" "$tmp/map" >/dev/null 2>&1
[ $? -eq 2 ]
check report-usage $? "one argument did not exit 2"

# the plugin in Debian's QEMU, on a real boot
qemu=$(command -v qemu-system-x86_64)
map=$(dirname "$(readlink -f "$KERNEL")")/kernel-$(basename "$(readlink -f "$KERNEL")" | sed 's/^bzImage-//')/System.map
if [ -z "$qemu" ]; then
	echo "SKIP: $check_group/boot: no qemu-system-x86_64"
elif [ ! -f "$KERNEL" ] || [ ! -f "$map" ]; then
	echo "SKIP: $check_group/boot: no kernel $KERNEL with its System.map (make kernel)"
else
	"$qemu" -nodefaults -nographic -no-reboot -accel tcg,thread=single -m 256M \
		-plugin "$plugin,out=$tmp/bad,nonsense=1" -kernel "$KERNEL" >/dev/null 2>"$tmp/err"
	grep -q "unknown argument 'nonsense=1'" "$tmp/err"
	check plugin-refuses-arguments $? "QEMU said: $(head -n 2 "$tmp/err" | tr '\n' ' ')"
	mark=$(awk '$3 == "kernel_init" { print $1 }' "$map")
	timeout 300 "$qemu" -nodefaults -nographic -no-reboot -accel tcg,thread=single \
		-icount shift=0 -m 256M -serial none -kernel "$KERNEL" \
		-append "panic=-1 init=/nonexistent" \
		-plugin "$plugin,out=$tmp/boot,mark=$mark" >/dev/null 2>"$tmp/err"
	[ -s "$tmp/boot" ]
	check boot-counts $? "no counts written: $(head -n 2 "$tmp/err" | tr '\n' ' ')"
	"$report" -t 0 "$map" "$tmp/boot" >"$tmp/boot.txt" 2>"$tmp/err"
	grep -qE '^ +[0-9]+  start_kernel$' "$tmp/boot.txt"
	check boot-names-start-kernel $? "report: $(head -n 3 "$tmp/boot.txt" | tr '\n' '|') $(head -n 1 "$tmp/err")"
	if [ -f "$tmp/boot.snap0" ]; then
		total=$(awk 'NR == 1 { print $1 }' "$tmp/boot.txt")
		snap=$("$report" -t 1 "$map" "$tmp/boot.snap0" | awk 'NR == 1 { print $1 }')
		[ "$snap" -gt 0 ] && [ "$snap" -lt "$total" ]
		check boot-snapshot-at-mark $? "snapshot $snap, final $total"
	else
		check boot-snapshot-at-mark 1 "no snapshot at kernel_init ($mark)"
	fi
fi
exit "$fail"
