#!/bin/sh
# libktau-papi on a ktau kernel: the guest half of tests/papi/check-papi.sh.
# Run in a guest booted on a ktau kernel with the overlay `make papi`
# stages (build/user/papi/guest: /opt/ktau-papi/); on the host:
#
#   make papi
#   EXTRA="$PWD/build/user/rootfs-extra $PWD/build/user/papi/guest" make initramfs
#   make boot            # then, in the guest:
#   /opt/ktau-papi/run-in-guest.sh
#
# It prints PASS:/FAIL: lines and "N passed, N failed"; exit 1 when one
# failed:
#   - papi_native_avail, with libktau-papi preloaded, lists the ktau:: events;
#   - papi_command_line adds and reads sde:::ktau::syscall_calls,
#     syscall_cycles and kernel_cycles (its own thread's, between its
#     PAPI_start and PAPI_stop), without libktau-papi's "read 0" message;
#   - ktau-papi-check: PAPI_read of the ktau:: events around 1000 getpid()
#     calls counts exactly 1000 system calls, and every event no more than
#     the thread's /proc/self/task/TID/ktau grew by (its own PASS/FAIL lines);
#   - ktau-ctl counters (when on PATH): the area against /proc directly.
set -u
d=/opt/ktau-papi
export LD_LIBRARY_PATH=$d/lib
preload=$d/lib/libktau-papi.so.1
failed=0 passed=0
pass() { echo "PASS: $1"; passed=$((passed + 1)); }
fail() { echo "FAIL: $1: $2"; failed=$((failed + 1)); }

out=$(LD_PRELOAD=$preload "$d/bin/papi_native_avail" 2>&1)
n=$(echo "$out" | grep -c 'sde:::ktau::')
if [ "$n" -eq 12 ]; then
	pass "papi guest: papi_native_avail lists the 12 ktau:: events"
else
	fail "papi guest: papi_native_avail" "$n ktau:: events listed: $(echo "$out" | tail -n 3 | tr '\n' ' ')"
fi

out=$(LD_PRELOAD=$preload "$d/bin/papi_command_line" sde:::ktau::syscall_calls \
	sde:::ktau::syscall_cycles sde:::ktau::kernel_cycles 2>&1)
echo "$out" | grep 'sde:::ktau::.* : '
if echo "$out" | grep -q 'Successfully added: sde:::ktau::kernel_cycles' &&
	! echo "$out" | grep -q 'ktau-papi: the ktau:: events read 0'; then
	pass "papi guest: papi_command_line reads sde:::ktau::syscall_calls, syscall_cycles, kernel_cycles"
else
	fail "papi guest: papi_command_line" "$(echo "$out" | grep -E 'ktau-papi:|Failed|: *[0-9]' | tr '\n' ' ')"
fi

out=$("$d/bin/ktau-papi-check" 1000 2>&1)
status=$?
echo "$out" | grep -v '^PASS:\|^FAIL:'
passed=$((passed + $(echo "$out" | grep -c '^PASS:')))
failed=$((failed + $(echo "$out" | grep -c '^FAIL:')))
echo "$out" | grep '^PASS:\|^FAIL:'
[ "$status" -eq 0 ] || [ "$(echo "$out" | grep -c '^FAIL:')" -gt 0 ] ||
	fail "papi guest: ktau-papi-check" "exit status $status"

if command -v ktau-ctl >/dev/null 2>&1; then
	out=$(ktau-ctl counters getpid group:syscall group:exception all 2>&1)
	status=$?
	echo "$out"
	if [ "$status" -eq 0 ]; then
		pass "papi guest: ktau-ctl counters: the area agrees with /proc"
	else
		fail "papi guest: ktau-ctl counters" "exit status $status"
	fi
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
