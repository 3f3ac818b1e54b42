#!/bin/sh
# The demo workload, run inside the guest by /init in demo mode: a small
# program that reads, writes, sleeps and forks, then its kernel profile.
# Output goes to the console and, when the host shares a directory, to
# /mnt/host/ (report.txt, the raw profile).
out=/tmp/ktau-demo
[ -d /mnt/host ] && out=/mnt/host
mkdir -p "$out"

echo "==> guest: running the workload (dd, a pipe, sleep, fork+exec)"
sh -c '
	dd if=/dev/zero of=/tmp/file bs=4096 count=256 2>/dev/null
	cat /tmp/file | wc -c > /dev/null
	sleep 1
	ls -lR /proc/self/ > /dev/null 2>&1
	exec cat /proc/self/ktau > /dev/null
'

echo "==> guest: ktau-dump of the shell that ran the demo (its reaped children included)"
{
	echo "Kernel profile of the demo shell (pid $$), children included:"
	ktau-dump --children $$
	echo
	echo "Its caller => callee edges:"
	ktau-dump --callgraph $$ | sed -n '/=>/p'
} > "$out/report.txt" 2>&1
cat /proc/$$/ktau > "$out/demo-shell.ktau"
cat "$out/report.txt"
