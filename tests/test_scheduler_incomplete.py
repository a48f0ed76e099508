#!/usr/bin/env python3
"""Both example schedulers reject jobs whose model files hold less than the
model (issue #19 item 1): a 70B config.json beside a safetensors file with
only the embedding or a single 16-element tensor, and a GGUF with 70B
metadata and one tiny tensor, on a 16 GiB GPU. Before the fix both
accepted them ("needs 0.44 GiB of 15 GiB"). A control job that fits is
accepted, so a scheduler that rejects everything fails too.

usage: test_scheduler_incomplete.py SCHEDULER_EXE SCHEDULER_PY
(environment: VRAMEST_LIBRARY and PYTHONPATH for the Python one; meson sets
them). Standard library only; the model files are sparse."""
import json
import os
import struct
import subprocess
import sys
import tempfile

# tests/data/models/llama-3.1-70b.json's architecture.
HIDDEN, LAYERS, FFN, HEADS, KV_HEADS, VOCAB = 8192, 80, 28672, 64, 8, 128256
CONFIG_70B = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "models", "llama-3.1-70b.json")


def write_safetensors(path, tensors):
    """tensors: (name, dtype, shape, bytes per element); data left as a hole."""
    header, off = {}, 0
    for name, dtype, shape, size in tensors:
        n = size
        for d in shape:
            n *= d
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [off, off + n]}
        off += n
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        f.truncate(8 + len(text) + off)


def gguf_string(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def write_gguf(path, tensor_name, elements):
    """GGUF v3 (ggml/docs/gguf.md): 70B llama metadata, one f32 tensor."""
    kvs = [("general.architecture", 8, "llama"), ("llama.block_count", 4, LAYERS),
           ("llama.context_length", 4, 8192), ("llama.embedding_length", 4, HIDDEN),
           ("llama.feed_forward_length", 4, FFN), ("llama.attention.head_count", 4, HEADS),
           ("llama.attention.head_count_kv", 4, KV_HEADS), ("llama.vocab_size", 4, VOCAB)]
    out = b"GGUF" + struct.pack("<IQQ", 3, 1, len(kvs))
    for key, kind, value in kvs:
        out += gguf_string(key) + struct.pack("<I", kind)
        out += gguf_string(value) if kind == 8 else struct.pack("<I", value)
    out += gguf_string(tensor_name) + struct.pack("<IQIQ", 1, elements, 0, 0)
    out += b"\0" * (-len(out) % 32)
    with open(path, "wb") as f:
        f.write(out)
        f.truncate(len(out) + (elements * 4 + 31) // 32 * 32)


def model_dir(root, name, tensors):
    d = os.path.join(root, name)
    os.mkdir(d)
    with open(CONFIG_70B, "rb") as src, open(os.path.join(d, "config.json"), "wb") as dst:
        dst.write(src.read())
    write_safetensors(os.path.join(d, "model.safetensors"), tensors)
    return d


def run(cmd, jobs, env):
    p = subprocess.run(cmd, input=jobs, capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, (cmd, p.returncode, p.stderr)
    return dict((line.split()[1], line) for line in p.stdout.splitlines() if line.strip())


def main():
    sched_c, sched_py = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory(prefix="vt_sched_") as root:
        jobs = {
            "embedding-only": model_dir(root, "embedding-only",
                                        [("model.embed_tokens.weight", "BF16", [VOCAB, HIDDEN], 2)]),
            "one-16-element-tensor": model_dir(root, "one-tensor", [("x", "F32", [16], 4)]),
            "one-final-norm": model_dir(root, "one-norm", [("model.norm.weight", "F32", [16], 4)]),
        }
        gguf = os.path.join(root, "tiny-70b.gguf")
        write_gguf(gguf, "x", 16)
        jobs["gguf-one-tiny-tensor"] = gguf
        lines = [json.dumps({"id": k, "spec": {"model": {"path": v}, "device": {"memory_gib": 16}}})
                 for k, v in jobs.items()]
        lines.append(json.dumps({"id": "control-gpt2", "spec": {"model": "gpt2", "device": {"memory_gib": 16}}}))
        text = "\n".join(lines) + "\n"
        env = dict(os.environ)
        for name, cmd in (("C", [sched_c]), ("Python", [sys.executable, sched_py])):
            verdicts = run(cmd, text, env)
            for job in jobs:
                v = verdicts.get(job, "(no verdict)")
                assert v.startswith("reject "), "%s scheduler: %s" % (name, v)
                print("%s scheduler: %s" % (name, v))
            assert verdicts.get("control-gpt2", "").startswith("accept "), verdicts.get("control-gpt2")
    print("ok: both schedulers reject the incomplete-weights jobs on 16 GiB")


if __name__ == "__main__":
    main()
