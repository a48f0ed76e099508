#!/usr/bin/env bash
# Defaults a user would choose, said aloud (issue #20 item 1): a training step
# without a precision is mixed precision (bf16 autocast over fp32 weights,
# fp32 AdamW states; DeepSpeed / Megatron: bf16 weights + fp32 master and
# states), QLoRA without weights is a 4-bit NF4 base, and the README's first
# command is such a job, whose header states what it assumes.
# usage: defaults.sh PATH/TO/vramest
. "$(dirname "$0")/lib.sh"
README="$(dirname "$0")/../../README.md"

# The README's first command, as written there (the vramest part of it).
cmd=$(grep -m1 -o '\./build/examples/vramest --model [^`]*' "$README")
[ -n "$cmd" ] || fail "no vramest command in README.md's first block"
read -r -a args <<<"${cmd#./build/examples/vramest }"
run "${args[@]}"
expect_rc 0 "README's first command"
expect_out "assumes: weights fp32; compute bf16 (autocast); gradients fp32; optimizer adamw" "README: mixed-precision AdamW, said in the header"
expect_out "fits: yes" "README: a verdict"
expect_out "no precision given: training assumed in mixed precision" "README: the assumption is also a warning"

run --model llama-2-7b --set mode=train --json
expect_json settings.precision.weights fp32 "default training: fp32 weights"
expect_json settings.precision.compute bf16 "default training: bf16 compute"
expect_json settings.precision.amp true "default training: autocast"
expect_json settings.precision.optimizer_states fp32 "default training: fp32 AdamW states"
run --model llama-2-7b --set mode=train --set framework=deepspeed --json
expect_json settings.precision.weights bf16 "DeepSpeed: bf16 weights"
expect_json settings.precision.master_weights fp32 "DeepSpeed: fp32 master weights"
# The header names the framework with its version, the one the plan echoes.
run --model llama-2-7b --set mode=train --set framework=deepspeed --set framework_version=0.14.4
expect_out "; framework deepspeed 0.14.4;" "header: the framework's version beside its name"
refute_out "; framework 0.14.4" "header: a bare framework version reads as a second framework"
run --model llama-2-7b --set mode=train --set finetune=qlora --json
expect_json settings.precision.weights nf4 "qlora: NF4 base"
expect_json settings.precision.double_quant true "qlora: double quantization"
case "$(json_get warnings)" in *"base assumed 4-bit NF4"*) ;; *) fail "qlora: the assumption is not said" ;; esac

# A precision that is given is kept, and so are inference and LoRA.
run --model llama-2-7b --precision fp16 --set mode=train --json
expect_json settings.precision.compute fp16 "explicit fp16 kept"
case "$(json_get warnings)" in *"no precision given"*) fail "explicit precision: no assumption to say" ;; esac
run --model llama-2-7b --set mode=train --set finetune=qlora --set precision.weights=int8 --json
expect_json settings.precision.weights int8 "qlora with int8 weights kept"
run --model llama-2-7b --set mode=infer --json
expect_json settings.precision.amp false "inference keeps the checkpoint's dtype"
run --model llama-2-7b --set mode=train --set finetune=lora --json
expect_json settings.precision.weights auto "LoRA keeps the checkpoint's dtype for the base"

finish
