#!/usr/bin/env bash
# A long fuzzing campaign outside CI (issue #19): run.sh over TARGETs in
# slices of SLICE seconds, round after round, until every target has
# reached EXECS executions or DEADLINE (epoch seconds) passes. At low
# priority (nice 19), one process per call: start two calls for two lanes.
# Appends "round target execs exec/s crashes" lines to LOG (the totals are
# their sums); the corpus grows in BUILD_DIR/fuzz-corpus/<target>.
#
# usage: tests/fuzz/campaign.sh LOG SLICE EXECS DEADLINE TARGET...
set -uo pipefail
cd "$(dirname "$0")/../.."
log=$1 slice=$2 goal=$3 deadline=$4
shift 4
round=0
while [ "$(date +%s)" -lt "$deadline" ]; do
    round=$((round + 1))
    left=0
    for t in "$@"; do
        done_=$(awk -v t="$t" '$2 == t { n += $3 } END { print n + 0 }' "$log" 2>/dev/null || echo 0)
        [ "$done_" -ge "$goal" ] && continue
        left=1
        [ "$(date +%s)" -ge "$deadline" ] && break
        line=$(nice -n 19 tests/fuzz/run.sh -t "$slice" "$t" 2>&1 | awk -v t="$t" '$1 == t')
        [ -n "$line" ] && echo "$round $line" | awk '{ print $1, $2, $3, $4, $NF }' >>"$log"
    done
    [ "$left" -eq 0 ] && break
done
