#!/usr/bin/env bash
# A long fuzzing campaign outside CI (issue #19): LANES processes (default
# 2) at `nice -n NICE` (default 10) fuzz TARGETs in slices of SLICE seconds;
# each slice goes to the target with the fewest executions that is below
# EXECS and not being fuzzed by another lane, until every target reached
# EXECS or DEADLINE (epoch seconds) passes. The fuzzers are copied to
# BUILD_DIR/campaign-bin first, so a rebuild during the campaign does not
# change what it runs. Flags are run.sh's; the corpus grows in
# BUILD_DIR/fuzz-corpus/<target> and crashes go to
# BUILD_DIR/fuzz-artifacts/<target>/ (kept: a campaign reports them at the
# end). Appends one line per slice to LOG:
#   round target execs exec/s cov ft corpus_files crashes
# (cov / ft: libFuzzer's edge and feature counts at the slice's end).
# tests/fuzz/campaign_sum.sh LOG... sums logs per target for
# docs/security.md.
#
# MERGE=1 first minimizes each target's corpus with `-merge=1` (the files
# that add coverage or features, ~1/3 to 1/7 of a grown corpus): every slice
# starts by replaying its whole corpus, which on the grown corpora of
# session 4 cost 10-50 CPU seconds a slice. The old corpus is kept, moved
# to BUILD_DIR/fuzz-corpus/<target>.before-merge.<epoch>.
#
# PRIOR="LOG1 LOG2 ..." counts the slices of earlier campaigns' logs toward
# EXECS, so that a campaign continues where they stopped (the goal is then
# per target over all of them; LOG itself holds only this campaign's slices).
#
# usage: [LANES=2] [NICE=10] [BUILD_DIR=build-fuzz] [MERGE=0] [PRIOR=LOGS] \
#        tests/fuzz/campaign.sh LOG SLICE EXECS DEADLINE TARGET...
set -uo pipefail
cd "$(dirname "$0")/../.."
log=$(realpath -m "$1") slice=$2 goal=$3 deadline=$4
shift 4
targets=("$@")
lanes=${LANES:-2} niceness=${NICE:-10} build=${BUILD_DIR:-build-fuzz}
prior=()
for f in ${PRIOR:-}; do
    [ -r "$f" ] || { echo "campaign.sh: PRIOR log $f is not readable" >&2; exit 2; }
    prior+=("$(realpath "$f")")
done

# run.sh builds the targets and writes the dictionary (a 1 s run of one).
tests/fuzz/run.sh -t 1 -b "$build" "${targets[0]}" >/dev/null || true
bin="$build/campaign-bin"
mkdir -p "$bin"
for t in "${targets[@]}"; do cp -f "$build/tests/fuzz/fuzz_$t" "$bin/"; done
cp -f "$build/fuzz.dict" "$bin/"
touch "$log"

if [ "${MERGE:-0}" = 1 ]; then
    for t in "${targets[@]}"; do
        c="$build/fuzz-corpus/$t"
        [ -d "$c" ] || continue
        rm -rf "$c.merged"
        mkdir -p "$c.merged"
        if ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 nice -n "$niceness" "$bin/fuzz_$t" -merge=1 \
            -entropic=0 -timeout=10 -rss_limit_mb=2048 "$c.merged" "$c" >"$build/campaign-merge-$t.log" 2>&1; then
            mv "$c" "$c.before-merge.$(date +%s)"
            mv "$c.merged" "$c"
            echo "merged $t: $(find "$c" -type f | wc -l) files"
        else
            echo "merging $t failed ($build/campaign-merge-$t.log); its corpus is unchanged"
            rm -rf "$c.merged"
        fi
    done
fi
lock="$log.lock"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1
export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1

# The target a lane fuzzes next (under the lock): fewest executions, below
# the goal, not busy; marks it busy. Prints nothing when none is left.
pick() {
    awk -v goal="$goal" -v busy="$(cat "$log.busy" 2>/dev/null)" -v list="${targets[*]}" '
        { n[$2] += $3 }
        END {
            split(list, t, " "); split(busy, b, " ")
            for (i in b) inuse[b[i]] = 1
            best = ""
            for (i = 1; i in t; i++)
                if (!(t[i] in inuse) && n[t[i]] + 0 < goal && (best == "" || n[t[i]] + 0 < n[best] + 0)) best = t[i]
            print best
        }' "${prior[@]}" "$log"
}

lane() {
    local round=0 t out execs rate cov ft now crashes
    while [ "$(date +%s)" -lt "$deadline" ]; do
        round=$((round + 1))
        t=$(flock "$lock" bash -c "$(declare -f pick); $(declare -p goal log targets prior); t=\$(pick); [ -n \"\$t\" ] && echo \"\$t\" >>\"$log.busy\"; echo \"\$t\"")
        [ -n "$t" ] || break
        # never past the deadline
        local left=$((deadline - $(date +%s)))
        [ "$left" -gt "$slice" ] && left=$slice
        [ "$left" -lt 10 ] && left=10
        mkdir -p "$build/fuzz-corpus/$t" "$build/fuzz-artifacts/$t"
        out="$build/campaign-$t.$round.$BASHPID.log"
        nice -n "$niceness" "$bin/fuzz_$t" -max_total_time="$left" -timeout=10 -rss_limit_mb=2048 \
            -print_final_stats=1 -entropic=0 -dict="$bin/fuzz.dict" -artifact_prefix="$build/fuzz-artifacts/$t/" \
            "$build/fuzz-corpus/$t" "tests/fuzz/corpus/$t" "tests/data/regress/$t" >"$out" 2>&1
        execs=$(awk '/stat::number_of_executed_units/ { print $NF }' "$out")
        rate=$((${execs:-0} / left))
        cov=$(grep -o 'cov: [0-9]*' "$out" | tail -1 | awk '{ print $2 }')
        ft=$(grep -o 'ft: [0-9]*' "$out" | tail -1 | awk '{ print $2 }')
        now=$(find "$build/fuzz-corpus/$t" -type f | wc -l)
        crashes=$(find "$build/fuzz-artifacts/$t" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
            -o -name 'oom-*' \) | wc -l)
        flock "$lock" bash -c "echo '$round $t ${execs:-0} $rate ${cov:-0} ${ft:-0} $now $crashes' >>'$log'; \
            grep -vx '$t' '$log.busy' >'$log.busy.new'; mv -f '$log.busy.new' '$log.busy'"
        [ "$crashes" -eq 0 ] && rm -f "$out"
    done
}

: >"$log.busy"
for ((i = 0; i < lanes; i++)); do lane & done
wait
awk '{ n[$2] += $3; c[$2] = $8; cov[$2] = $5; f[$2] = $7 }
     END { for (t in n) printf "total %s execs %d crashes %d cov %d corpus %d\n", t, n[t], c[t], cov[t], f[t] }' "$log"
