#!/usr/bin/env bash
# Executions per CPU second of libFuzzer builds, side by side in one run
# (docs/performance.md, "Fuzz targets, session 4"). For each TARGET, each
# build in turn, at the same niceness, on its own fresh copy of the same
# corpus (mtimes kept, so libFuzzer's reload reads nothing twice):
#   1. `-runs=0`: the corpus replay alone (what every campaign slice pays
#      first), its executions and CPU seconds;
#   2. replay plus RUNS mutations (`-runs`), or with -t `-max_total_time`,
#      as run.sh fuzzes (on a loaded machine a fixed time gives each build
#      different CPU, and the mutation part too little of it to measure).
# Prints per build: replay execs and CPU s, total execs and CPU s, overall
# executions per CPU second, and the mutation loop's alone
# ((total - replay execs) / (total - replay CPU s)), which is what a long
# campaign runs at. CPU = user + sys of the fuzzer (GNU time), so the figures
# hold on a shared machine where wall-clock rates do not; `uptime` is
# printed before and after.
#
# usage: tests/fuzz/throughput.sh [-r RUNS | -t SECONDS] [-n NICE] [-d DICT] \
#            CORPUS_ROOT LABEL=DIR [LABEL=DIR ...] [-- TARGET ...]
#   CORPUS_ROOT/<target>/ holds each target's corpus (read, never written);
#   DIR holds the fuzz_<target> binaries of one build (e.g.
#   build-fuzz/tests/fuzz, or a copy of an older build's);
#   -r mutations after the replay (default 20000); -t seconds per fuzzing
#   run instead; -n niceness (default 0);
#   -d a dictionary (default build-fuzz/fuzz.dict when present).
#   TARGET: hf_config safetensors st_index gguf spec (default: all).
set -euo pipefail
runs=20000 secs= niceness=0 dict=build-fuzz/fuzz.dict
while getopts "r:t:n:d:" o; do
    case $o in
    r) runs=$OPTARG ;;
    t) secs=$OPTARG ;;
    n) niceness=$OPTARG ;;
    d) dict=$OPTARG ;;
    *) sed -n '18,26p' "$0"; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || { sed -n '18,26p' "$0"; exit 2; }
root=$1
shift
builds=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do builds+=("$1"); shift; done
if [ $# -gt 0 ]; then shift; fi
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(hf_config safetensors st_index gguf spec)
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (/usr/bin/time)"; exit 2; }
dflag=()
[ -f "$dict" ] && dflag=(-dict="$dict")

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1
export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run LOGNAME BIN ARGS...: the fuzzer on a fresh corpus copy; prints
# "execs cpu_seconds".
run() {
    local name=$1 bin=$2
    shift 2
    rm -rf "$tmp/corpus"
    cp -a "$root/$t" "$tmp/corpus"
    /usr/bin/time -f '%U %S' -o "$tmp/time" nice -n "$niceness" "$bin" -seed=1 -entropic=0 -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 "${dflag[@]}" "$@" "$tmp/corpus" >"$tmp/$name.log" 2>&1 || {
        echo "$bin failed (log follows)" >&2
        tail -20 "$tmp/$name.log" >&2
        exit 1
    }
    local execs
    execs=$(awk '/stat::number_of_executed_units/ { print $NF }' "$tmp/$name.log")
    echo "${execs:-0} $(awk '{ print $1 + $2 }' "$tmp/time")"
}

echo "start: $(uptime)"
echo "corpus $root, ${secs:+$secs s per fuzzing run}${secs:-$runs mutations after the replay}, nice $niceness," \
    "-seed=1 -entropic=0 ${dflag[*]}"
printf '%-12s %-10s %7s %9s %9s %9s %12s %12s\n' target build files replay "replay s" "total" "exec/cpu-s" "loop ex/cpu-s"
for t in "${targets[@]}"; do
    files=$(find "$root/$t" -type f | wc -l)
    for b in "${builds[@]}"; do
        label=${b%%=*} dir=${b#*=}
        bin="$dir/fuzz_$t"
        [ -x "$bin" ] || { echo "no $bin"; exit 2; }
        read -r rx rs < <(run replay "$bin" -runs=0)
        if [ -n "$secs" ]; then
            read -r tx ts < <(run fuzz "$bin" -max_total_time="$secs")
        else
            read -r tx ts < <(run fuzz "$bin" -runs=$((rx + runs)))
        fi
        [ -n "${rs:-}" ] && [ -n "${ts:-}" ] || { echo "$label $t: a run failed"; exit 1; }
        awk -v t="$t" -v l="$label" -v f="$files" -v rx="$rx" -v rs="$rs" -v tx="$tx" -v ts="$ts" 'BEGIN {
            loop = (ts > rs && tx > rx) ? (tx - rx) / (ts - rs) : 0
            printf "%-12s %-10s %7d %9d %9.1f %9d %12.0f %12.0f\n", t, l, f, rx, rs, tx, tx / ts, loop }'
    done
done
echo "end: $(uptime)"
