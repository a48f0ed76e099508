#!/usr/bin/env python3
"""Both example schedulers agree with the serving engines (issue #18 item 1):
jobs the engine would refuse to start are rejected with the engine's reason
(vLLM whose pool cannot hold max_model_len, vLLM with no memory left for KV
blocks, SGLang whose weights exceed mem_fraction_static, Ollama whose
scheduler offloads more layers than its runner can hold), by the C and the
Python scheduler alike, and print the same decision. Controls that start
are accepted.

usage: test_scheduler_serving.py SCHEDULER_EXE SCHEDULER_PY
(environment: VRAMEST_LIBRARY and PYTHONPATH for the Python one)."""
import json
import os
import subprocess
import sys

L31 = {"model": "llama-3.1-8b", "precision": "bf16", "workload": {"mode": "infer"},
       "device": {"memory_gib": 23.58}}
REFUSED = {
    "vllm-29k": (dict(L31, runtime={"framework": "vllm", "framework_version": "0.6.4", "max_model_len": 29000}),
                 "max seq len (29000)"),
    "vllm-no-blocks": ({"model": "llama-2-13b", "precision": "fp16", "workload": {"mode": "infer"},
                        "device": "RTX4090-24GB", "runtime": {"framework": "vllm"}}, "no available memory"),
    "sglang-13b-24g": ({"model": "llama-2-13b", "precision": "fp16", "workload": {"mode": "infer"},
                        "device": "RTX4090-24GB", "runtime": {"framework": "sglang"}}, "mem-fraction-static"),
    "ollama-dsv3": ({"model": "deepseek-v3", "precision": {"weights": "q4_k_m"},
                     "workload": {"mode": "infer", "attention": "eager"}, "device": {"memory_gib": 23.3},
                     "runtime": {"framework": "ollama", "framework_version": "0.5.5", "num_ctx": 2048,
                                 "n_batch": 512}}, "Ollama would fail to load"),
}
ACCEPTED = {
    "vllm-20k": dict(L31, runtime={"framework": "vllm", "framework_version": "0.6.4", "max_model_len": 20000}),
    "sglang-8b-h100": {"model": "llama-3-8b", "precision": "bf16", "workload": {"mode": "infer"},
                       "device": "H100-80GB", "runtime": {"framework": "sglang"}},
}


def run(cmd, jobs, env):
    p = subprocess.run(cmd, input=jobs, capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, (cmd, p.returncode, p.stderr)
    return dict((line.split()[1], line) for line in p.stdout.splitlines() if line.strip().startswith(("accept", "reject")))


def main():
    sched_c, sched_py = sys.argv[1], sys.argv[2]
    lines = [json.dumps({"id": k, "spec": v[0]}) for k, v in REFUSED.items()]
    lines += [json.dumps({"id": k, "spec": v}) for k, v in ACCEPTED.items()]
    text = "\n".join(lines) + "\n"
    seen = {}
    for name, cmd in (("C", [sched_c]), ("Python", [sys.executable, sched_py])):
        verdicts = run(cmd, text, dict(os.environ))
        for job, (_, reason) in REFUSED.items():
            v = verdicts.get(job, "(no verdict)")
            assert v.startswith("reject ") and "does_not_fit" in v and reason in v, "%s scheduler: %s" % (name, v)
        for job in ACCEPTED:
            v = verdicts.get(job, "(no verdict)")
            assert v.startswith("accept "), "%s scheduler: %s" % (name, v)
        seen[name] = verdicts
        for v in verdicts.values():
            print("%s scheduler: %s" % (name, v))
    assert seen["C"] == seen["Python"], "the schedulers disagree"
    print("ok: both schedulers reject what the engines refuse, with the engines' reasons")


if __name__ == "__main__":
    main()
