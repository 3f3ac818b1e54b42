#!/bin/bash
# The host half of the guest test t_tau: the Kprofile TAU wrote in the
# guest, on the ktau kernel (tests/tau/run-in-guest.sh copies it to the 9p
# share as tau-kprofile/Kprofile.0.0.perprocess), loaded by ParaProf's
# reader and TAU's pprof (../shared/tools/tau-check), with the program's
# 1000 getpid() in it (and the few of TAU's own runtime: 1000 + k, k <= 4).
#
#   tests/tau/check-guest-kprofile.sh SHARE_DIR
#
# Prints PASS:/FAIL:/SKIP: lines; exits 1 when a check failed.
# Environment: TAU_CHECK_DIR (default ../shared/tools/tau-check).
set -u
share=${1:?usage: check-guest-kprofile.sh SHARE_DIR}
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/shared-dir.sh
. "$top/tests/lib/shared-dir.sh"
shared=$(ktau_shared_dir "$top") || shared=$top/../shared
TAU_CHECK_DIR=${TAU_CHECK_DIR:-$shared/tools/tau-check}
k=$share/tau-kprofile/Kprofile.0.0.perprocess

if [ ! -d "$k" ]; then
	echo "FAIL: tau guest kprofile: no $k: did the guest run t_tau with the share mounted?"
	exit 1
fi
own=$(ls "$k"/profile.*.0.1 2>/dev/null | head -n 1)
g=$(grep -F '"sys_getpid()" ' "${own:-/dev/null}" 2>/dev/null | head -n 1 | awk '{print $2}')
if [ -n "$g" ] && [ "$g" -ge 1000 ] && [ "$g" -le 1004 ]; then
	echo "PASS: tau guest kprofile: $(basename "$own") has sys_getpid() with $g calls (1000 + TAU's own)"
else
	echo "FAIL: tau guest kprofile: sys_getpid() has '${g:-no}' calls in ${own:-$k/profile.*.0.1}, expected 1000 + TAU's own few"
	exit 1
fi
if [ ! -x "$TAU_CHECK_DIR/check.sh" ]; then
	echo "SKIP: tau guest kprofile: ParaProf's reader: no $TAU_CHECK_DIR (TAU_CHECK_DIR=)"
	exit 0
fi
out=$("$TAU_CHECK_DIR/check.sh" "$k" 2>&1)
if printf '%s\n' "$out" | grep -q '^RESULT: OK' &&
	! printf '%s\n' "$out" | grep -qE 'pprof -f exit status|/profile\.[0-9.]+: pprof said|pprof stopped early'; then
	echo "PASS: tau guest kprofile: ParaProf's reader and pprof load the guest's Kprofile"
else
	echo "FAIL: tau guest kprofile: ParaProf's reader: $(printf '%s\n' "$out" | grep -E 'RESULT|PPROF|FAIL' | head -n 3 | tr '\n' ' ')"
	exit 1
fi
