#!/bin/bash
# libktau-papi on the host, which runs no ktau kernel (docs/papi.md):
# `make papi` builds it; papi_native_avail lists its 12 ktau:: events,
# through -sde FILE and through LD_PRELOAD; papi_command_line adds and
# reads them without crashing, reading 0 with libktau-papi's one-line
# message saying why (no counter area); ktau-papi-check refuses to run
# (exit 2) with that reason; the guest overlay (make -C papi guest) is
# self-contained: its programs run with its own loader and libraries
# alone, and, as root, its run-in-guest.sh runs in a chroot of the
# overlay and busybox, failing cleanly for want of the area.
# One PASS/FAIL line a check; one SKIP line without PAPI (libpapi-dev,
# papi-tools).
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$top/build}
# shellcheck source=tests/install/lib.sh
. "$top/tests/install/lib.sh"
label=papi

have_tools "$label" "make deps installs libpapi-dev papi-tools" \
	papi_native_avail papi_command_line || exit 0
if ! out=$(make -s -C "$top" papi BUILD="$BUILD" 2>&1); then
	fail "$label: make papi" "$(printf '%s\n' "$out" | tail -n 5)"
	exit 1
fi
pass "$label: make papi builds libktau-papi.so, ktau-papi-check and the guest overlay"

out_dir=$BUILD/user/papi
lib=$out_dir/libktau-papi.so.1
events="syscall_cycles syscall_calls softirq_cycles softirq_calls irq_cycles irq_calls
sched_cycles sched_calls exception_cycles exception_calls kernel_cycles kernel_calls"

# lists_events LABEL OUTPUT: every event in OUTPUT
lists_events() {
	local missing='' e
	for e in $events; do
		grep -q "sde:::ktau::$e " <<<"$2" || missing="$missing $e"
	done
	if [ -n "$missing" ]; then
		fail "$label: $1 lists the ktau:: events" "missing:$missing"
	else
		pass "$label: $1 lists the 12 ktau:: events"
	fi
}
lists_events "papi_native_avail -sde libktau-papi.so" "$(papi_native_avail -sde "$lib" 2>&1)"
lists_events "LD_PRELOAD=libktau-papi.so papi_native_avail" \
	"$(LD_PRELOAD=$lib papi_native_avail 2>&1)"
exported=$(nm -D --defined-only "$lib" | awk '{ print $3 }' | grep -v '^KTAU_PAPI' | tr '\n' ' ')
if [ "$exported" = "papi_sde_hook_list_events@@KTAU_PAPI_1.5 " ]; then
	pass "$label: libktau-papi exports papi_sde_hook_list_events alone"
else
	fail "$label: libktau-papi exports papi_sde_hook_list_events alone" "it exports $exported"
fi

# reading on this host: no area, a clean 0 and the reason, once
out=$(LD_PRELOAD=$lib papi_command_line sde:::ktau::syscall_calls sde:::ktau::kernel_cycles 2>&1)
status=$?
if [ "$status" -eq 0 ] && grep -q 'sde:::ktau::syscall_calls :[[:space:]]*0' <<<"$out" &&
	[ "$(grep -c 'ktau-papi: the ktau:: events read 0: this kernel has no ktau shared counter area' <<<"$out")" = 1 ]; then
	pass "$label: papi_command_line reads 0 on a kernel without the area, and says why once"
else
	fail "$label: papi_command_line without the area" "status $status: $(tr '\n' ' ' <<<"$out")"
fi

out=$("$out_dir/ktau-papi-check" 2>&1)
status=$?
if [ "$status" -eq 2 ] && grep -q '^FAIL: ktau-papi: this kernel has no ktau shared counter area' <<<"$out"; then
	pass "$label: ktau-papi-check refuses to run without the area (exit 2, says why)"
else
	fail "$label: ktau-papi-check without the area" "status $status: $(tr '\n' ' ' <<<"$out")"
fi

# the guest overlay: its programs load with its own loader and libraries
guest=$out_dir/guest
opt=$guest/opt/ktau-papi
out=$("$guest/lib64/ld-linux-x86-64.so.2" --inhibit-cache --library-path "$opt/lib" \
	--preload "$opt/lib/libktau-papi.so.1" "$opt/bin/papi_native_avail" 2>&1)
lists_events "the guest overlay's papi_native_avail, its own libraries alone" "$out"
# stage-guest.sh's bad input: exit STATUS and the reason
stage=$top/papi/stage-guest.sh
tmp=$(mktemp -d)
refused() { refuses "$stage" "$label: stage-guest.sh, $1" "${@:2}"; }
refused "no DEST" 2 "usage:" SYSROOT= -- "$out_dir"
refused "a PAPI_BUILD without libktau-papi" 1 "ktau-papi-check (make papi builds it)" SYSROOT= -- \
	"$tmp" "$tmp/dest"
mkdir -p "$tmp/notroot"
refused "a SYSROOT that is not a root" 1 "is not an unpacked root" SYSROOT="$tmp/notroot" -- \
	"$out_dir" "$tmp/dest"
mkdir -p "$tmp/nopapi/usr/lib/aarch64-linux-gnu"
refused "a SYSROOT without PAPI's tools" 1 "has no usr/bin/papi_command_line (papi-tools)" \
	SYSROOT="$tmp/nopapi" -- "$out_dir" "$tmp/dest"
# the host's tools in a root without their libraries: libpapi is named
mkdir -p "$tmp/nolibs/usr/lib/x86_64-linux-gnu" "$tmp/nolibs/usr/bin"
for tool in papi_command_line papi_native_avail papi_component_avail; do
	cp "$(command -v "$tool")" "$tmp/nolibs/usr/bin/"
done
refused "a SYSROOT without PAPI's libraries" 1 "libpapi.so.7.0" \
	SYSROOT="$tmp/nolibs" -- "$out_dir" "$tmp/dest"
rm -rf "$tmp"

if [ "$(id -u)" -ne 0 ] || ! command -v chroot >/dev/null || [ ! -x /bin/busybox ]; then
	echo "SKIP: $label: run-in-guest.sh in a chroot of the overlay needs root, chroot and busybox"
	exit "$failed"
fi
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
cp -a "$guest/." "$root/"
mkdir -p "$root/bin" "$root/proc"
cp /bin/busybox "$root/bin/busybox"
for applet in sh grep tail tr cat; do
	ln -s busybox "$root/bin/$applet"
done
out=$(env PATH=/bin "$(command -v chroot)" "$root" /opt/ktau-papi/run-in-guest.sh 2>&1)
status=$?
if [ "$status" -eq 1 ] && grep -q '^PASS: papi guest: papi_native_avail lists the 12 ktau:: events' <<<"$out" &&
	grep -q '^FAIL: papi guest: papi_command_line' <<<"$out" &&
	grep -q 'this kernel has no ktau shared counter area' <<<"$out"; then
	pass "$label: run-in-guest.sh runs in a chroot of the overlay alone (fails cleanly: no area here)"
else
	fail "$label: run-in-guest.sh in a chroot of the overlay" "status $status: $(tail -n 5 <<<"$out" | tr '\n' ' ')"
fi
exit "$failed"
