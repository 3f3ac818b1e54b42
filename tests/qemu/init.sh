#!/bin/sh
# /init of the ktau test initramfs (installed by tests/qemu/mkinitramfs.sh).
#
# Mode, from the kernel command line `ktaumode=check|demo|shell|bench` (an unknown
# parameter: the kernel passes it to init in the environment), else
# /etc/ktau-mode, else check:
#   check  run /guest/run-all.sh (every guest test, or those of
#          `ktautests=a,b`; PASS:/FAIL: lines)
#   demo   run /demo.sh
#   shell  an interactive shell on the console
#   bench  run /bench/guest-bench.sh (`make bench`; BENCH lines)
#   script run /mnt/host/script.sh from the 9p share (ad-hoc experiments:
#          tests/qemu/run-guest.sh --mode script --share DIR)
# Then print KTAU-GUEST-DONE and power off (reboot -f; QEMU runs with -no-reboot).
# A virtio-9p share tagged `hostshare`, if there is one, is mounted at
# /mnt/host; results.txt and dmesg.txt are copied there at the end.

export PATH=/usr/local/bin:/bin:/sbin:/usr/bin:/usr/sbin
export HOME=/root TERM="${TERM:-linux}"
umask 022
# a busybox the host could not run (another architecture's) came without
# its applets' links: make them now
[ -e /bin/mount ] || /bin/busybox --install -s

mount -t devtmpfs devtmpfs /dev 2>/dev/null
# stdio on the console, even if the kernel could not open one for us
[ -c /dev/console ] && exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t tmpfs -o mode=1777 tmpfs /tmp
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts 2>/dev/null
mount -t tmpfs -o mode=1777 tmpfs /dev/shm 2>/dev/null

# the kernel hands unknown name=value parameters to init as variables
mode=${ktaumode:-}
tests=$(echo "${ktautests:-}" | tr , ' ')
if [ -z "$mode" ]; then
	for w in $(cat /proc/cmdline); do
		case "$w" in ktaumode=*) mode=${w#ktaumode=} ;; esac
	done
fi
[ -z "$mode" ] && [ -r /etc/ktau-mode ] && mode=$(cat /etc/ktau-mode)
[ -z "$mode" ] && mode=check

share=
mkdir -p /mnt/host
if grep -qs '^hostshare$' /sys/bus/virtio/drivers/9pnet_virtio/virtio*/mount_tag 2>/dev/null ||
   grep -qs hostshare /sys/bus/virtio/devices/virtio*/mount_tag 2>/dev/null; then
	if mount -t 9p -o trans=virtio,version=9p2000.L hostshare /mnt/host 2>/dev/null; then
		share=/mnt/host
	else
		echo "INFO: init: 9p share 'hostshare' present but mount failed"
	fi
fi

echo "KTAU-GUEST-START mode=$mode kernel=$(uname -r) cpus=$(grep -c ^processor /proc/cpuinfo) share=${share:-none}"
echo "INFO: init: clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null), cpu flags:$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -xE 'tsc|constant_tsc|nonstop_tsc|tsc_reliable|tsc_known_freq' | tr '\n' ' ' | sed 's/^/ /')"
[ -r /proc/ktau/control ] && echo "INFO: init: /proc/ktau/control: $(head -n 1 /proc/ktau/control)"
# The console's interrupt stays on CPU 0, which no test takes offline:
# t_hotplug takes the others offline, and once (a CI run, x86, KASAN
# kernel) the console's output stopped mid-line during its rounds and
# never resumed, as a serial port does whose transmit interrupt was lost.
console_irq=$(awk -F: '/ttyS0|ttyAMA0/ { gsub(/ /, "", $1); print $1; exit }' /proc/interrupts)
if [ -n "$console_irq" ] && [ -w "/proc/irq/$console_irq/smp_affinity_list" ]; then
	echo 0 >"/proc/irq/$console_irq/smp_affinity_list" 2>/dev/null ||
		echo "INFO: init: the console's irq $console_irq stays where it is"
fi

rc=0
case "$mode" in
check)
	if [ -x /guest/run-all.sh ]; then
		# shellcheck disable=SC2086 # a list of test names
		/guest/run-all.sh ${tests:-} 2>&1 | tee /tmp/results.txt
		grep -q '^FAIL: ' /tmp/results.txt && rc=1
	else
		echo "FAIL: init/run-all: /guest/run-all.sh missing from the initramfs"
		rc=1
	fi
	# kernel splats that did not reach the console (low console loglevel)
	if dmesg >/tmp/dmesg.txt 2>/dev/null; then
		grep -E 'BUG:|WARNING:|Oops|Kernel panic|KASAN|UBSAN|possible circular locking|inconsistent lock state|sleeping function called from invalid context|general protection fault|detected stall|self-detected stall|blocked for more than' \
			/tmp/dmesg.txt | sed 's/^/KMSG: /'
	fi
	;;
demo)
	if [ -f /demo.sh ]; then
		sh /demo.sh
		rc=$?
	else
		echo "INFO: init: no /demo.sh in this initramfs"
		rc=1
	fi
	;;
bench)
	if [ -x /bench/guest-bench.sh ]; then
		/bench/guest-bench.sh
		rc=$?
	else
		echo "INFO: init: no /bench/guest-bench.sh in this initramfs"
		rc=1
	fi
	;;
script)
	if [ -n "$share" ] && [ -f "$share/script.sh" ]; then
		sh "$share/script.sh"
		rc=$?
	else
		echo "FAIL: init/script: no script.sh in the 9p share"
		rc=1
	fi
	;;
shell)
	echo "ktau test guest: busybox shell; 'exit' powers off"
	setsid cttyhack sh -l
	;;
*)
	echo "FAIL: init/mode: unknown ktaumode '$mode' (check, demo, shell, bench, script)"
	rc=1
	;;
esac

if [ -n "$share" ]; then
	[ -f /tmp/results.txt ] && cp /tmp/results.txt "$share/results.txt"
	dmesg >"$share/dmesg.txt" 2>/dev/null
	sync
	umount "$share" 2>/dev/null
fi
echo "KTAU-GUEST-DONE mode=$mode status=$rc"
sync
reboot -f
# not reached; never let init exit (that panics)
while :; do sleep 1; done
