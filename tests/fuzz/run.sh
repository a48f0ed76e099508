#!/usr/bin/env bash
# Build the libFuzzer targets with clang (ASan + UBSan) and fuzz each one for
# a bounded time; print executions, corpus size and crashes per target.
#
# usage: tests/fuzz/run.sh [-t SECONDS] [-j JOBS] [-b BUILD_DIR] [TARGET ...]
#   -t  seconds per target (default 60)
#   -j  parallel fuzzing processes per target (default 1; libFuzzer -fork)
#   -b  build directory (default build-fuzz)
#   TARGET: hf_config safetensors st_index gguf spec (default: all)
#
# The seed corpora (tests/fuzz/corpus/<target>) and the saved crashes
# (tests/data/regress/<target>) are read, never written: what the fuzzer
# learns goes to BUILD_DIR/fuzz-corpus/<target>, kept between runs, and
# crashing inputs to BUILD_DIR/fuzz-artifacts/<target>/. Exit status 1 when
# any target crashed (or leaked, timed out, ran out of memory). A crash
# becomes a regression test: copy the artifact to tests/data/regress/<target>/
# (tests/test_regress.c replays every file there).
set -euo pipefail
cd "$(dirname "$0")/../.."

secs=60
jobs=1
build=build-fuzz
while getopts "t:j:b:" o; do
    case $o in
    t) secs=$OPTARG ;;
    j) jobs=$OPTARG ;;
    b) build=$OPTARG ;;
    *) sed -n '2,9p' "$0"; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(hf_config safetensors st_index gguf spec)

if [ ! -f "$build/build.ninja" ]; then
    CC=clang meson setup "$build" -Dfuzz=true -Dwerror=true -Dtests=false -Ddocs=false \
        -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
fi
meson compile -C "$build" >/dev/null

# A dictionary of every option name and enum value (from the CLI, so it
# follows the library), JSON tokens, family and GGUF key names.
dict="$build/fuzz.dict"
# Written aside and moved, so that a run in parallel never reads half of it.
{
    printf '"%s"\n' '{' '}' '[' ']' ':' ',' 'true' 'false' 'null' '-0' '1e309' '0.5' '\"' '\\u0000' '\\ud800'
    ASAN_OPTIONS=detect_leaks=0 "$build/examples/vramest" options |
        awk '/^  [a-z_.0-9]+ / { print $1 } /values:/ { for (i = 2; i <= NF; i++) print $i } /^ {14}[a-z]/ { for (i = 1; i <= NF; i++) print $i }' |
        sort -u | sed 's/.*/"\\"&\\""/'
    printf '"%s"\n' model precision workload parallel device runtime solve hf_config hf_config_file safetensors \
        gguf path arch preset name memory_gib max advice weight_map metadata total_size __metadata__ dtype shape \
        data_offsets F32 F16 BF16 I8 U8 F8_E4M3 I64 F64 BOOL F4 GGUF general.architecture general.alignment \
        general.name block_count embedding_length feed_forward_length attention.head_count \
        attention.head_count_kv expert_count expert_used_count context_length vocab_size split.count \
        tokenizer.ggml.tokens attention.key_length attention.value_length rope.dimension_count \
        attention.kv_lora_rank expert_shared_count leading_dense_block_count token_embd.weight output.weight \
        blk.0.attn_q.weight blk.0.ffn_gate_exps.weight model.layers.0.self_attn.q_proj.weight lm_head.weight
} >"$dict.$$"
mv -f "$dict.$$" "$dict"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1
export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1

status=0
printf '%-12s %10s %8s %8s %12s %14s %8s\n' target execs exec/s seeds "seed bytes" "corpus now" crashes
for t in "${targets[@]}"; do
    bin="$build/tests/fuzz/fuzz_$t"
    [ -x "$bin" ] || { echo "no fuzz target '$t' ($bin)"; exit 2; }
    work="$build/fuzz-corpus/$t"
    art="$build/fuzz-artifacts/$t"
    rm -rf "$art"  # artifacts of an earlier run were reported by it
    mkdir -p "$work" "$art" "tests/data/regress/$t"
    log="$build/fuzz-$t.log"
    extra=()
    [ "$jobs" -gt 1 ] && extra=(-fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
    # -timeout / -rss_limit_mb turn "bounded time and memory per input"
    # (docs/security.md) into findings when broken.
    rc=0
    "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -entropic=0 \
        -dict="$dict" -artifact_prefix="$art/" "${extra[@]}" \
        "$work" "tests/fuzz/corpus/$t" "tests/data/regress/$t" >"$log" 2>&1 || rc=$?
    execs=$(awk '/stat::number_of_executed_units/ { n += $NF } END { print n + 0 }' "$log")
    if [ "$execs" -eq 0 ]; then
        # fork mode prints per-job lines: "#N ... exec/s"; take the last total.
        execs=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#')
        execs=${execs:-0}
    fi
    crashes=$(find "$art" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
    [ "$rc" -ne 0 ] && [ "$crashes" -eq 0 ] && crashes=1
    seeds=$(find "tests/fuzz/corpus/$t" -type f | wc -l)
    seed_bytes=$(find "tests/fuzz/corpus/$t" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
    now=$(find "$work" "tests/fuzz/corpus/$t" -type f | wc -l)
    printf '%-12s %10s %8s %8s %12s %14s %8s\n' "$t" "$execs" "$((execs / secs))" "$seeds" "$seed_bytes" "$now files" \
        "$crashes"
    if [ "$crashes" -ne 0 ]; then
        status=1
        echo "fuzz_$t crashed (exit $rc); artifacts in $art, log $log:"
        grep -E 'ERROR|runtime error|broken promise|SUMMARY' "$log" | head -20 || true
    fi
done
exit $status
