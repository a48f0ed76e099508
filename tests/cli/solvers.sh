#!/usr/bin/env bash
# The solvers behind flags (issue #20 item 3): --max KEY, --min gpus,
# --advice, --smallest-device, --spec with --set on top, and the headroom
# they all honour.
# usage: solvers.sh PATH/TO/vramest
. "$(dirname "$0")/lib.sh"
TRAIN=(--model llama-2-7b --precision bf16 --set mode=train --set seq_len=1024 --device H100-80GB)

# --max batch_size: the answer fits, the answer + 1 does not.
run "${TRAIN[@]}" --max batch_size --json
expect_rc 0 "--max batch_size --json"
b=$(json_get solution.value)
expect_json settings.workload.batch_size "$b" "the plan is at the answer"
safe=$(json_get solution.safe_value)
run "${TRAIN[@]}" --set batch_size="$b" --json
expect_json fits true "batch_size=$b (the answer) fits"
run "${TRAIN[@]}" --set batch_size=$((b + 1)) --json
expect_json fits false "batch_size=$((b + 1)) does not fit"
[ "$safe" = null ] || [ "$safe" -le "$b" ] || fail "safe_value $safe > value $b"
run "${TRAIN[@]}" --max batch_size
case "$rc" in 0 | 3) ;; *) fail "--max batch_size table: exit $rc" ;; esac
expect_out "solution: batch_size = $b" "--max batch_size table"
expect_out "at the band's high end" "--max batch_size names the safe value"

# Each searchable key, in the mode it belongs to.
check_max() { # KEY ARGS...
    local key=$1
    shift
    run "$@" --max "$key" --json
    expect_rc 0 "--max $key"
    local v
    v=$(json_get solution.value)
    case "$v" in '' | null | *[!0-9]*) fail "--max $key: no value ($v)" ;; esac
}
check_max seq_len "${TRAIN[@]}"
check_max prompt_len --model llama-2-7b --set mode=infer --device RTX4090-24GB
check_max gen_len --model llama-2-7b --set mode=infer --set batch_size=8 --set prompt_len=256 --device RTX4090-24GB
check_max n_ctx --model llama-2-7b --precision q4_k_m --set mode=infer --set framework=llama.cpp --device RTX3060-12GB
check_max n_gpu_layers --model llama-2-13b --set mode=infer --set framework=llama.cpp --device RTX3060-12GB
ngl=$(json_get solution.value)
[ "$ngl" -ge 1 ] && [ "$ngl" -le 41 ] || fail "n_gpu_layers $ngl outside 1..layers+1 (41)"
# Everything fits on a big GPU: the answer is every layer and the output layer, not the option's bound.
check_max n_gpu_layers --model llama-2-7b --set mode=infer --set framework=llama.cpp --device H100-80GB
expect_json solution.value 33 "n_gpu_layers on a big GPU: all 32 layers + output"

# The headroom: the answer leaves at least that much free.
run "${TRAIN[@]}" --set headroom_gib=10 --max batch_size --json
expect_rc 0 "--max with headroom"
bh=$(json_get solution.value)
[ "$bh" -lt "$b" ] || fail "headroom 10 GiB: batch $bh, not below $b"
cap=$(json_get gpu.capacity) total=$(json_get gpu.device_total)
[ $((cap - total)) -ge $((10 * 1073741824)) ] || fail "headroom 10 GiB: only $(((cap - total) >> 20)) MiB free"

# --min gpus: the smallest world size, with its layout in the plan.
MIN=(--model llama-2-13b --precision bf16 --set mode=train --set zero_stage=3 --device A100-40GB)
run "${MIN[@]}" --min gpus --json
expect_rc 0 "--min gpus"
g=$(json_get solution.value)
expect_json settings.parallel.gpus "$g" "the plan is at the smallest GPU count"
run "${MIN[@]}" --set gpus="$g" --json
expect_json fits true "gpus=$g fits"
run "${MIN[@]}" --set gpus=$((g - 1)) --json
expect_json fits false "gpus=$((g - 1)) does not fit"
run "${MIN[@]}" --min gpus
expect_out "solution: gpus = $g (the smallest" "--min gpus table"
# Without sharding, tensor parallelism stays inside a node (gpus_per_node)
# and pipeline stages of that tp span nodes: a 70B full fine-tune on H100s
# is tp 8 x pp k, not tp 32.
for node in 8 4; do
    run --model llama-3.1-70b --set mode=train --device H100 --set gpus_per_node=$node --min gpus --json
    g=$(json_get solution.value) tp=$(json_get settings.parallel.tp) pp=$(json_get settings.parallel.pp)
    [ -n "$g" ] && [ "$g" != null ] || fail "70B --min gpus (node $node): no answer"
    [ "$tp" -le "$node" ] || fail "70B --min gpus: tp $tp spans nodes of $node GPUs"
    [ $((tp * pp)) -eq "$g" ] || fail "70B --min gpus: tp $tp x pp $pp is not $g GPUs"
    [ "$pp" -gt 1 ] || fail "70B --min gpus (node $node): one node's tp was enough?"
done
run --model llama-3.1-70b --precision bf16 --set mode=infer --device H100 --min gpus --json
expect_json settings.parallel.tp 2 "70B inference: tp within a node when it fits"
# A key the mode does not use is refused as such, whether or not the job
# fits: gen_len of a training step (8B full fine-tune does not fit one H100).
for model in gpt2 llama-3.1-8b; do
    run --model $model --set mode=train --device H100 --max gen_len
    expect_rc 2 "--max gen_len in mode train ($model)"
    expect_err "gen_len does not change memory in mode train" "--max gen_len in mode train ($model)"
done
run "${MIN[@]}" --min batch_size
expect_rc 2 "--min batch_size"
expect_err "--min gpus" "--min batch_size points at --min gpus"
run "${MIN[@]}" --max gpus
expect_rc 2 "--max gpus"

# --advice: cheapest change first, each with its verdict.
run --model llama-2-7b --precision fp32 --set mode=train --device A100-40GB --advice
expect_rc 1 "--advice on a job that does not fit"
expect_out "advice (cheapest change first):" "--advice table"
expect_out "finetune=qlora precision=nf4" "--advice lists QLoRA"
run --model llama-2-7b --precision fp32 --set mode=train --device A100-40GB --advice --json
expect_rc 0 "--advice --json"
expect_json advice.0.change.precision bf16 "the cheapest change first"
expect_json advice.0.text precision=bf16 "an advice item says its change as text"
case "$(json_get advice.0.verdict)" in fits | fits_low_end | does_not_fit) ;; *) fail "advice item without a verdict" ;; esac

# --smallest-device: the least memory on which it fits.
run --model llama-2-7b --set mode=infer --smallest-device
expect_rc 0 "--smallest-device"
expect_out "<- smallest" "--smallest-device marks its pick"
pick=$(printf '%s\n' "$out" | awk '/<- smallest/ {print $1}')
run --model llama-2-7b --set mode=infer --smallest-device --json
expect_json settings.device.device "$pick" "--smallest-device --json is the plan on the pick"
expect_json verdict fits "--smallest-device picks a preset where it fits"
run --model llama-2-7b --set mode=infer --cheapest
expect_rc 2 "--cheapest"
expect_err "--smallest-device" "--cheapest points at --smallest-device"
run --model llama-2-7b --smallest-device --max batch_size
expect_rc 2 "two questions"

# --spec with flags: the flags win, a flag question replaces the spec's.
cat >"$tmp/job.json" <<'JSON'
{"model": "llama-2-7b", "precision": "bf16", "workload": {"mode": "train", "batch_size": 2, "seq_len": 512},
 "device": "A100-80GB", "solve": {"max": "batch_size"}}
JSON
run --spec "$tmp/job.json" --set batch_size=3 --set solve_free=1
expect_rc 2 "--spec with an unknown --set key"
run --spec "$tmp/job.json" --set seq_len=1024 --json
expect_rc 0 "--spec + --set"
expect_json settings.workload.seq_len 1024 "--set overrides the spec"
expect_json solution.key batch_size "the spec's question still asked"
run --spec "$tmp/job.json" --device h100 --precision fp16 --max seq_len --json
expect_json settings.device.device H100-80GB "--device overrides the spec"
expect_json settings.precision.compute fp16 "--precision replaces the spec's precision"
expect_json solution.key seq_len "--max replaces the spec's solve"
run --spec "$tmp/job.json" --model llama-2-7b
expect_rc 2 "--spec with --model"

finish
