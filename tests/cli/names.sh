#!/usr/bin/env bash
# Names that must not trap a user (issue #20 item 4): GPU names as people
# write them, an ambiguous one refused with its candidates, a missing path
# said to be missing, replicas said aloud, and "did you mean" for --set keys.
# usage: names.sh PATH/TO/vramest
. "$(dirname "$0")/lib.sh"
M=(--model llama-2-7b)

# Every form resolves to the preset, and the plan echoes the preset's name.
for pair in "4090:RTX4090-24GB" "rtx4090:RTX4090-24GB" "RTX 4090:RTX4090-24GB" \
            "NVIDIA GeForce RTX 4090:RTX4090-24GB" "h100:H100-80GB" "H100 SXM:H100-80GB" \
            "NVIDIA H100 80GB HBM3:H100-80GB" "a100-80gb:A100-80GB" "A100 80GB:A100-80GB" \
            "NVIDIA A100-SXM4-40GB:A100-40GB" "Tesla T4:T4" "l40s:L40S-48GB"; do
    name=${pair%%:*} want=${pair#*:}
    run "${M[@]}" --device "$name" --json
    expect_rc 0 "--device '$name'"
    expect_json settings.device.device "$want" "--device '$name' resolves"
done

# A name short of the memory size is two cards: refused, with both.
for pair in "A100:A100-40GB, A100-80GB" "v100:V100-16GB, V100-32GB"; do
    name=${pair%%:*} want=${pair#*:}
    run "${M[@]}" --device "$name"
    expect_rc 2 "--device $name"
    expect_err "ambiguous" "--device $name"
    expect_err "$want" "--device $name lists the candidates"
done
# ... in a spec too.
echo '{"model": "llama-2-7b", "device": "A100"}' >"$tmp/a100.json"
run --spec "$tmp/a100.json"
expect_rc 2 "spec device A100"
expect_err "A100-40GB, A100-80GB" "spec device A100 lists the candidates"
run "${M[@]}" --device "no-such-gpu"
expect_rc 2 "unknown GPU"
expect_err "close names" "unknown GPU"

# A path that does not exist is a missing file, not an unknown preset.
for path in ./missing.json "$tmp/missing/config.json" missing.gguf; do
    run --model "$path"
    expect_rc 2 "--model $path"
    expect_err "cannot open '$path': No such file or directory" "--model $path"
    case "$err" in *closest*) fail "--model $path suggests presets" ;; esac
done
run --model llama-2-7
expect_rc 2 "misspelt preset"
expect_err "llama-2-7b" "misspelt preset suggests the preset"

# gpus=2 without tp when serving: two replicas, said in the plan.
run "${M[@]}" --set mode=infer --set framework=vllm --set gpus=2 --device A100-80GB --json
expect_rc 0 "vllm gpus=2"
case "$(json_get warnings)" in *"2 replicas of the model"*) ;; *) fail "vllm gpus=2: no replica warning" ;; esac
run "${M[@]}" --set mode=infer --set framework=vllm --set gpus=2 --set tp=2 --device A100-80GB --json
case "$(json_get warnings)" in *replicas*) fail "vllm gpus=2 tp=2 warns of replicas" ;; esac

# Did you mean: option names, whole words and other tools' names.
for pair in "batchsze:batch_size" "mini_batch_size:batch_size" "tensor_parallel_size:tp" \
            "batch:batch_size" "zero:zero_stage" "max_new_tokens:gen_len" "attn:attention" \
            "hiden_size:hidden_size" "precision:--precision"; do
    key=${pair%%:*} want=${pair#*:}
    run "${M[@]}" --set "$key=2"
    expect_rc 2 "--set $key"
    expect_err "did you mean $want" "--set $key"
done
run "${M[@]}" --set lr=2
expect_rc 2 "--set lr"
case "$err" in *"did you mean"*) fail "--set lr suggests an unrelated option" ;; esac

finish
