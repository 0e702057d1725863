#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run libFuzzer targets for a fixed time each:
#   run.sh OUTDIR SEEDDIR SECONDS TARGET...
# Each target starts from its committed seeds (SEEDDIR/TARGET) plus what
# earlier runs found (OUTDIR/corpus/TARGET, not committed).  A crash, a
# sanitizer report or a broken property fails the target; the input is kept
# in OUTDIR/artifacts/TARGET/.  Prints KTAP and "N passed, N failed" last.
set -u

out=$1 seeds=$2 secs=$3
shift 3
passed=0 failed=0 n=0

echo "KTAP version 1"
echo "1..$#"
for t in "$@"; do
	n=$((n + 1))
	bin=$out/fuzz_$t
	corpus=$out/corpus/$t
	art=$out/artifacts/$t
	log=$out/logs/$t.log
	mkdir -p "$corpus" "$art" "$out/logs"
	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$art/" \
		"$corpus" "$seeds/$t" >"$log" 2>&1
	rc=$?
	runs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$log" | tail -n 1)
	cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -n 1)
	if [ $rc -eq 0 ]; then
		passed=$((passed + 1))
		echo "ok $n fuzz_$t # ${runs:-?} inputs in ${secs}s, ${cov:-cov: ?}"
	else
		failed=$((failed + 1))
		echo "not ok $n fuzz_$t # exit $rc, see $log and $art/"
		grep -E 'ERROR: |runtime error|property broken|WARNING at|BUG at|SUMMARY' "$log" \
			| head -n 8 | sed 's/^/# /'
	fi
done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
