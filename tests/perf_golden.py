#!/usr/bin/env python3
"""Golden corpus for speed work: optimisations must not change a single byte.

    perf_golden.py record DIR [--cli build-perf/examples/vramest]
    perf_golden.py check  DIR [--cli build-perf/examples/vramest]

`record` runs the CLI's `--spec - --json` over ~1000 varied specs (every
preset x mode with rotating precision / fine-tune / checkpointing / attention /
parallel layout / framework, a seeded random sample of the full cross product,
solve specs, and every spec of /work/shared/validation/visible.jsonl) and stores
the plans (or the error text and exit status) in DIR. `check` reruns them and
lists every spec whose output differs. The corpus is generated, not stored in
the repository: record it from the commit before a change, check after.
"""
import argparse
import concurrent.futures
import hashlib
import itertools
import json
import os
import random
import subprocess
import sys

VALIDATION = "/work/shared/validation/visible.jsonl"

PRECISIONS = ["fp32", "bf16", "amp_bf16", "nf4", "int8", "fp16", "amp_fp16"]
FINETUNES = ["full", "lora", "qlora", "full", "prefix", "freeze"]
CHECKPOINTS = ["none", "full", "selective"]
ATTENTIONS = ["eager", "sdpa", "flash"]
SHAPES = [(1, 512), (4, 2048), (2, 4096), (8, 1024), (1, 8192), (16, 128), (3, 777)]
PARALLEL = [
    {"gpus": 1},
    {"gpus": 2, "tp": 2},
    {"gpus": 4, "pp": 4},
    {"gpus": 8, "zero_stage": 1},
    {"gpus": 8, "zero_stage": 2},
    {"gpus": 8, "zero_stage": 3},
    {"gpus": 16, "fsdp": "full_shard"},
    {"gpus": 8, "fsdp": "shard_grad_op"},
    {"gpus": 64, "zero_stage": 3, "gpus_per_node": 8},
    {"gpus": 8, "tp": 2, "pp": 2, "sequence_parallel": True},
    {"gpus": 4, "zero_stage": 3, "offload_optimizer": "cpu", "offload_params": "cpu"},
    {"gpus": 16, "fsdp": "hybrid_shard"},
    {"gpus": 8, "tp": 4, "pp": 2, "pp_schedule": "interleaved", "virtual_stages": 2},
]
FRAMEWORKS = ["pytorch", "hf_trainer", "deepspeed", "megatron", "vllm", "llama.cpp"]
DEVICES = ["A100-80GB", "RTX4090-24GB", "H100-80GB", "V100-16GB", "", "A10"]
OPTIMIZERS = ["adamw", "sgd", "adafactor", "adamw_8bit", "lion", "paged_adamw_8bit"]


def presets(cli):
    out = subprocess.run([cli, "models"], capture_output=True, text=True, check=True).stdout
    return [l.split()[0] for l in out.splitlines()[1:] if l.strip()]


def make_spec(model, mode, i, rng=None):
    pick = (lambda seq: rng.choice(seq)) if rng else (lambda seq: seq[(i * 7 + len(seq) // 2 + i // len(seq)) % len(seq)])
    pick_i = (lambda seq, k: seq[(i + k) % len(seq)]) if not rng else (lambda seq, k: rng.choice(seq))
    b, s = pick_i(SHAPES, 1)
    spec = {"model": model, "precision": pick_i(PRECISIONS, 2), "workload": {"mode": mode, "batch_size": b, "seq_len": s}}
    w = spec["workload"]
    if mode == "train":
        w["finetune"] = pick_i(FINETUNES, 3)
        w["gradient_checkpointing"] = pick_i(CHECKPOINTS, 4)
        w["attention"] = pick_i(ATTENTIONS, 5)
        w["optimizer"] = pick_i(OPTIMIZERS, 6)
        if w["finetune"] in ("lora", "qlora"):
            w["lora_rank"] = [8, 16, 64][i % 3]
            if i % 4 == 1:
                w["lora_targets"] = "all-linear"
        spec["parallel"] = dict(pick_i(PARALLEL, 7))
        spec["runtime"] = {"framework": pick_i(["pytorch", "hf_trainer", "deepspeed", "megatron"], 8)}
        if i % 5 == 2:
            w["grad_accum_steps"] = 4
    elif mode == "infer":
        w["attention"] = pick_i(ATTENTIONS, 5)
        w["prompt_len"] = s
        w["gen_len"] = [128, 1, 512][i % 3]
        if i % 4 == 3:
            w["beams"] = 4
        fw = pick_i(FRAMEWORKS, 8)
        spec["runtime"] = {"framework": fw}
        if fw in ("pytorch", "hf_trainer"):
            spec["parallel"] = dict(pick_i(PARALLEL[:3], 7))
        if fw == "llama.cpp":
            spec["precision"] = pick_i(["q4_k_m", "q8_0", "bf16", "q5_k_s"], 9)
    else:
        spec["parallel"] = dict(pick_i(PARALLEL[:3], 7))
    dev = pick_i(DEVICES, 10)
    if dev:
        spec["device"] = dev
    return spec


def corpus(cli):
    specs = []
    names = presets(cli)
    i = 0
    for model in names:
        for mode in ("load", "train", "infer"):
            specs.append((f"preset-{model}-{mode}-{i}", make_spec(model, mode, i)))
            i += 1
    # Systematic training cross product on two structurally different models.
    for model in ("llama-2-7b", "gpt2", "mixtral-8x7b", "t5-base", "bert-base-uncased", "falcon-7b"):
        for prec, ft, ck, att in itertools.product(["fp32", "bf16", "amp_bf16", "nf4", "int8"], ["full", "lora", "qlora"],
                                                   CHECKPOINTS, ATTENTIONS):
            if ft == "qlora" and prec not in ("nf4",):
                continue
            specs.append((f"x-{model}-{prec}-{ft}-{ck}-{att}", {
                "model": model, "precision": prec,
                "workload": {"mode": "train", "batch_size": 4, "seq_len": 1024, "finetune": ft,
                             "gradient_checkpointing": ck, "attention": att}}))
    rng = random.Random(20261122)
    for j in range(300):
        model = rng.choice(names)
        mode = rng.choice(["load", "train", "train", "infer"])
        specs.append((f"rand-{j}", make_spec(model, mode, j, rng)))
    for j, (model, key) in enumerate([("llama-2-7b", "batch_size"), ("llama-2-13b", "seq_len"), ("mistral-7b-v0.1", "lora_rank"),
                                      ("gpt2", "batch_size"), ("qwen2-7b", "gen_len")]):
        mode = "infer" if key == "gen_len" else "train"
        spec = {"model": model, "precision": "bf16", "device": "A100-80GB",
                "workload": {"mode": mode, "batch_size": 2, "seq_len": 2048, "finetune": "lora" if j % 2 == 0 else "full"},
                "solve": {"max": key}}
        specs.append((f"solve-{j}", spec))
        specs.append((f"advice-{j}", dict(spec, solve={"advice": True})))
    with open(VALIDATION) as f:
        for line in f:
            d = json.loads(line)
            specs.append((f"val-{d['id']}", d["spec"]))
    return specs


def run(cli, spec):
    p = subprocess.run([cli, "--spec", "-", "--json"], input=json.dumps(spec), capture_output=True, text=True,
                       env=dict(os.environ, COLUMNS="80", NO_COLOR="1"))
    return f"rc={p.returncode}\n--stdout--\n{p.stdout}\n--stderr--\n{p.stderr}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("action", choices=["record", "check"])
    ap.add_argument("dir")
    ap.add_argument("--cli", default="build-perf/examples/vramest")
    a = ap.parse_args()
    specs = corpus(a.cli)
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        outs = list(ex.map(lambda s: run(a.cli, s[1]), specs))
    os.makedirs(a.dir, exist_ok=True)
    bad = 0
    errors = 0
    for (name, spec), out in zip(specs, outs):
        fn = os.path.join(a.dir, hashlib.sha1(name.encode()).hexdigest()[:16] + ".txt")
        text = f"{name}\n{json.dumps(spec, sort_keys=True)}\n{out}"
        errors += not out.startswith("rc=0")
        if a.action == "record":
            with open(fn, "w") as f:
                f.write(text)
        else:
            try:
                with open(fn) as f:
                    old = f.read()
            except FileNotFoundError:
                old = None
            if old != text:
                bad += 1
                print(f"DIFF {name} ({fn})")
    print(f"{a.action}: {len(specs)} specs ({errors} not rc=0), {bad} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
