#!/bin/sh
# The demo, run inside the guest by /init in demo mode: ktau-demo-app
# (examples/: compute, file I/O, UDP over loopback, a sleep, fork+exec;
# linked with libktau's user-level profiler) under ktau-run, then an
# archive of every task.  Results go to /mnt/host/ when the host shares a
# directory (else /tmp/ktau-demo):
#   report.txt   what ktau-run printed, and the merged profile's summary
#   run/         before.ktau, after.ktau, report.txt (ktau-run -o)
#   tau/         the app's merged user/kernel TAU profile (ParaProf)
#   kernel.svg   its flame graph: user routines with the kernel under them
#                (ktau-export -f svg; open it in a browser)
#   demo.ktar    ktau-archive --all (ktau-report reads it on any machine)
#   demo.ktt     ktau-trace of a second run: when each call happened
#   demo-trace.json  that trace for ui.perfetto.dev (ktau-export -f perfetto)
#   noise.txt    ktau-report --noise of that trace
out=/tmp/ktau-demo
[ -d /mnt/host ] && out=/mnt/host
mkdir -p "$out"
rm -rf "$out/run" "$out/tau" "$out/demo.ktar" "$out/report.txt" "$out/demo.ktt" \
	"$out/demo-trace.json" "$out/noise.txt" "$out/kernel.svg"

# the UDP phase sends over loopback
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up

echo "==> guest: ktau-run ktau-demo-app (compute, file I/O, UDP over loopback, sleep, fork+exec)"
KTAU_PROFILE_DIR=$out/tau ktau-run -o "$out/run" ktau-demo-app 2> "$out/run-stderr.txt"
status=$?
echo "==> guest: ktau-export -f svg of the merged profile (kernel.svg)"
ktau-export -f svg "$out/tau" -o "$out/kernel.svg"
echo "==> guest: ktau-archive of every task"
ktau-archive -o "$out/demo.ktar" --all
echo "==> guest: ktau-trace ktau-demo-app (a timeline of a second run)"
KTAU_PROFILE_DIR=/tmp/demo-trace-profiles ktau-trace -o "$out/demo.ktt" ktau-demo-app \
	> /dev/null 2> "$out/trace-stderr.txt"
ktau-export -f perfetto "$out/demo.ktt" -o "$out/demo-trace.json"
ktau-report --noise "$out/demo.ktt" > "$out/noise.txt"

{
	echo "Kernel profile of ktau-demo-app and its children (ktau-run, exit status $status):"
	cat "$out/run-stderr.txt"
	echo
	echo "Merged user/kernel profile of its main thread ($out/tau/profile.0.0.0):"
	echo "each user routine, then the 3 kernel routines under it with the most"
	echo "inclusive time (TAU callpaths; time in usec):"
	printf '%-44s %8s %12s %12s\n' callpath calls excl_usec incl_usec
	awk -F'"' '/^"main( => [a-z]+)?( => [^"]+)?"/ {
		split($3, f, " ")
		n = split($2, parts, " => ")
		if (n > 3) next
		key = parts[1] (n > 1 ? " => " parts[2] : "")
		printf "%s\t%d\t%s\t%d\t%.1f\t%.1f\n", key, n, $2, f[1], f[3], f[4]
	}' "$out/tau/profile.0.0.0" |
	sort -t '	' -k1,1 -k2,2n -k6,6gr |
	awk -F'	' '{ if ($2 < 3 || ++shown[$1] <= 3) printf "%-44s %8d %12.1f %12.1f\n", $3, $4, $5, $6 }'
	echo
	echo "Trace of a second run (ktau-trace; timeline in demo-trace.json):"
	tail -n 1 "$out/trace-stderr.txt"
	echo "What interrupted its main thread in user mode (ktau-report --noise):"
	awk '/^# thread/ { n++ } n == 1' "$out/noise.txt" | head -n 16
} > "$out/report.txt" 2>&1
cat "$out/report.txt"
