#!/usr/bin/env bash
# Serving engines' own spellings on the command line: SGLang's
# `--tp 8 --dp 8 --enable-dp-attention` is 8 GPUs (dp attention groups
# inside the tp group), not 64; the same numbers for vLLM are replicas and
# need 64 GPUs.
# usage: serving.sh PATH/TO/vramest
. "$(dirname "$0")/lib.sh"

DPA=(--model qwen3-30b-a3b --precision bf16 --device H100-80GB --set mode=infer --set gpus=8 --set tp=8
     --set dp=8 --set enable_dp_attention=true)
run "${DPA[@]}" --set framework=sglang --json
expect_rc 0 "SGLang --tp 8 --dp 8 --enable-dp-attention on 8 GPUs"
expect_json ranks.0.label "all 8 ranks (tp 8 attention dp 8)" "the layout names the attention groups"
expect_json verdict fits "30B-A3B bf16 on 8 H100s"
run "${DPA[@]}" --set framework=sglang
expect_rc 0 "the table"
refute_out "replicas of the model" "attention groups are not replicas"
run "${DPA[@]}" --set framework=sglang --set dp=3
expect_rc 2 "dp 3 on tp 8"
expect_err "dp 3 does not divide tp 8" "SGLang's groups must tile tp"
run "${DPA[@]}" --set framework=vllm
expect_rc 2 "vLLM's dp is replicas"
expect_err "gpus 8 != tp 8 * pp 1 * dp 8" "vLLM keeps the product rule"
finish
