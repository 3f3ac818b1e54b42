#!/bin/sh
# Runs libFuzzer targets for a bounded time each and prints one line per
# target, as the unit tests do:
#   PASS: fuzz_stacks_perf: 123456 executions in 10 s, no findings
#   FAIL: fuzz_stacks_perf: <the sanitizer's summary> -- input <file>, log <file>
# usage: run-fuzz.sh SECONDS WORKDIR FUZZER:SEED_DIR...
# New inputs go to WORKDIR/<fuzzer>/corpus (kept between runs, so the
# search resumes where it stopped), never into the seed directories.
set -u

secs=$1
work=$2
shift 2
status=0
for spec; do
	fuzzer=${spec%%:*}
	seeds=${spec#*:}
	base=$(basename "$fuzzer")
	name=$(echo "$base" | tr - _)
	dir=$work/$base
	log=$dir/log
	mkdir -p "$dir/corpus" "$dir/findings"
	if "$fuzzer" -max_total_time="$secs" -max_len=8192 -rss_limit_mb=2048 -timeout=10 \
		-print_final_stats=1 -artifact_prefix="$dir/findings/" \
		"$dir/corpus" "$seeds" >"$log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
		echo "PASS: $name: ${runs:-?} executions in $secs s, no findings"
	else
		finding=$(ls -t "$dir/findings" | head -n 1)
		why=$(grep -m 1 -E 'SUMMARY|ERROR|deadly signal' "$log")
		echo "FAIL: $name: ${why:-exited with an error} -- input $dir/findings/$finding, log $log"
		status=1
	fi
done
exit $status
