#!/usr/bin/env python3
"""Write the seed corpora of the fuzz targets into tests/fuzz/corpus/<target>/.

Seeds are small, real-shaped inputs: the config.json fixtures of
tests/data/models, safetensors headers and sharded indexes of tiny models of
several families and dtypes, GGUF v2/v3 headers (dense, quantized, MoE, MLA,
encoder), and job specs covering every spec form (presets, inline configs,
architectures, files, parallel layouts, serving, solve questions). The
fuzzer mutates from there; run from anywhere, output is deterministic.
usage: make_corpus.py [OUT_DIR]   (default: tests/fuzz/corpus next to this script)
"""
import json
import os
import shutil
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
MODELS = os.path.join(ROOT, "tests", "data", "models")


def write(out, target, name, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


# ---- safetensors --------------------------------------------------------------

ST_BITS = {"F32": 32, "F16": 16, "BF16": 16, "I8": 8, "U8": 8, "F8_E4M3": 8, "I64": 64, "F64": 64, "BOOL": 8,
           "I32": 32, "F4": 4}


def st_header(tensors, meta=None, data=False):
    """tensors: [(name, dtype, shape)] -> 8-byte length + JSON header (+ zero data)."""
    hdr = {}
    if meta is not None:
        hdr["__metadata__"] = meta
    off = 0
    for name, dt, shape in tensors:
        n = 1
        for s in shape:
            n *= s
        nbytes = n * ST_BITS[dt] // 8
        hdr[name] = {"dtype": dt, "shape": shape, "data_offsets": [off, off + nbytes]}
        off += nbytes
    body = json.dumps(hdr, separators=(",", ":")).encode()
    body += b" " * ((8 - len(body) % 8) % 8)
    return struct.pack("<Q", len(body)) + body + (b"\0" * off if data else b"")


def llama_tensors(layers, h, ffn, vocab, kv, dt="BF16", tied=False, prefix="model."):
    t = [(prefix + "embed_tokens.weight", dt, [vocab, h])]
    for i in range(layers):
        p = f"{prefix}layers.{i}."
        t += [
            (p + "input_layernorm.weight", dt, [h]),
            (p + "self_attn.q_proj.weight", dt, [h, h]),
            (p + "self_attn.k_proj.weight", dt, [kv, h]),
            (p + "self_attn.v_proj.weight", dt, [kv, h]),
            (p + "self_attn.o_proj.weight", dt, [h, h]),
            (p + "post_attention_layernorm.weight", dt, [h]),
            (p + "mlp.gate_proj.weight", dt, [ffn, h]),
            (p + "mlp.up_proj.weight", dt, [ffn, h]),
            (p + "mlp.down_proj.weight", dt, [h, ffn]),
        ]
    t.append((prefix + "norm.weight", dt, [h]))
    if not tied:
        t.append(("lm_head.weight", dt, [vocab, h]))
    return t


def mixtral_tensors(layers, h, ffn, vocab, experts):
    t = [("model.embed_tokens.weight", "BF16", [vocab, h])]
    for i in range(layers):
        p = f"model.layers.{i}."
        t += [(p + "input_layernorm.weight", "BF16", [h]),
              (p + "self_attn.q_proj.weight", "BF16", [h, h]),
              (p + "self_attn.k_proj.weight", "BF16", [h // 4, h]),
              (p + "self_attn.v_proj.weight", "BF16", [h // 4, h]),
              (p + "self_attn.o_proj.weight", "BF16", [h, h]),
              (p + "post_attention_layernorm.weight", "BF16", [h]),
              (p + "block_sparse_moe.gate.weight", "BF16", [experts, h])]
        for e in range(experts):
            q = f"{p}block_sparse_moe.experts.{e}."
            t += [(q + "w1.weight", "BF16", [ffn, h]), (q + "w2.weight", "BF16", [h, ffn]),
                  (q + "w3.weight", "BF16", [ffn, h])]
    t += [("model.norm.weight", "BF16", [h]), ("lm_head.weight", "BF16", [vocab, h])]
    return t


def gpt2_tensors(layers, h, vocab, pos):
    t = [("wte.weight", "F32", [vocab, h]), ("wpe.weight", "F32", [pos, h])]
    for i in range(layers):
        p = f"h.{i}."
        t += [(p + "ln_1.weight", "F32", [h]), (p + "ln_1.bias", "F32", [h]),
              (p + "attn.bias", "BOOL", [1, 1, pos, pos]),
              (p + "attn.c_attn.weight", "F32", [h, 3 * h]), (p + "attn.c_attn.bias", "F32", [3 * h]),
              (p + "attn.c_proj.weight", "F32", [h, h]), (p + "attn.c_proj.bias", "F32", [h]),
              (p + "ln_2.weight", "F32", [h]), (p + "ln_2.bias", "F32", [h]),
              (p + "mlp.c_fc.weight", "F32", [h, 4 * h]), (p + "mlp.c_fc.bias", "F32", [4 * h]),
              (p + "mlp.c_proj.weight", "F32", [4 * h, h]), (p + "mlp.c_proj.bias", "F32", [h])]
    t += [("ln_f.weight", "F32", [h]), ("ln_f.bias", "F32", [h])]
    return t


def bert_tensors(layers, h, vocab):
    t = [("bert.embeddings.word_embeddings.weight", "F32", [vocab, h]),
         ("bert.embeddings.position_embeddings.weight", "F32", [64, h]),
         ("bert.embeddings.token_type_embeddings.weight", "F32", [2, h]),
         ("bert.embeddings.LayerNorm.weight", "F32", [h]), ("bert.embeddings.LayerNorm.bias", "F32", [h])]
    for i in range(layers):
        p = f"bert.encoder.layer.{i}."
        for m in ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"):
            t += [(p + m + ".weight", "F32", [h, h]), (p + m + ".bias", "F32", [h])]
        t += [(p + "attention.output.LayerNorm.weight", "F32", [h]),
              (p + "intermediate.dense.weight", "F32", [4 * h, h]), (p + "intermediate.dense.bias", "F32", [4 * h]),
              (p + "output.dense.weight", "F32", [h, 4 * h]), (p + "output.dense.bias", "F32", [h]),
              (p + "output.LayerNorm.weight", "F32", [h])]
    return t


def safetensors_seeds(out):
    write(out, "safetensors", "llama-2l-bf16.safetensors", st_header(llama_tensors(2, 64, 176, 128, 32)))
    write(out, "safetensors", "llama-tied-f16-meta.safetensors",
          st_header(llama_tensors(1, 32, 64, 64, 32, dt="F16", tied=True), meta={"format": "pt"}))
    write(out, "safetensors", "llama-fp8.safetensors", st_header(llama_tensors(1, 64, 128, 64, 64, dt="F8_E4M3")))
    write(out, "safetensors", "llama-shard-layers.safetensors",
          st_header([t for t in llama_tensors(3, 32, 64, 64, 32) if ".layers.1." in t[0]]))
    write(out, "safetensors", "mixtral-2e.safetensors", st_header(mixtral_tensors(1, 32, 64, 64, 2)))
    write(out, "safetensors", "gpt2-2l-f32.safetensors", st_header(gpt2_tensors(2, 32, 64, 16)))
    write(out, "safetensors", "bert-1l.safetensors", st_header(bert_tensors(1, 32, 64)))
    write(out, "safetensors", "mixed-dtypes.safetensors",
          st_header([("a.weight", "I8", [4, 4]), ("b.bias", "I64", [3]), ("c", "F64", []), ("d", "U8", [0, 7]),
                     ("e", "I32", [2, 3, 4, 5]), ("f", "F4", [2, 8])]))
    write(out, "safetensors", "empty.safetensors", st_header([]))
    # A whole file (header and data), which job specs in the spec corpus name.
    write(out, "safetensors", "tiny-llama-full.safetensors", st_header(llama_tensors(2, 16, 32, 32, 8), data=True))


def index_seeds(out):
    def index(tensors, shards, total=None):
        wm = {}
        for i, (name, _, _) in enumerate(tensors):
            wm[name] = "model-%05d-of-%05d.safetensors" % (i * shards // len(tensors) + 1, shards)
        doc = {"metadata": {"total_size": total if total is not None else 123456}, "weight_map": wm}
        return json.dumps(doc, indent=2)
    write(out, "st_index", "llama-2l.index.json", index(llama_tensors(2, 64, 176, 128, 32), 2))
    write(out, "st_index", "mixtral.index.json", index(mixtral_tensors(2, 32, 64, 64, 4), 3))
    write(out, "st_index", "gpt2.index.json", index(gpt2_tensors(2, 32, 64, 16), 1, total=None))
    write(out, "st_index", "bert-null-total.index.json",
          json.dumps({"metadata": {"total_size": None, "format": "pt"},
                      "weight_map": {t[0]: "model.safetensors" for t in bert_tensors(1, 32, 64)}}))
    write(out, "st_index", "minimal.index.json", '{"weight_map":{"model.layers.0.mlp.up_proj.weight":"a.safetensors"}}')


# ---- GGUF ------------------------------------------------------------------------

G_U8, G_I8, G_U16, G_I16, G_U32, G_I32, G_F32, G_BOOL, G_STR, G_ARR, G_U64, G_I64, G_F64 = range(13)
GT_F32, GT_F16, GT_Q4_0, GT_Q8_0, GT_Q4_K, GT_Q6_K = 0, 1, 2, 8, 12, 14
GT_BLOCK = {GT_F32: (1, 4), GT_F16: (1, 2), GT_Q4_0: (32, 18), GT_Q8_0: (32, 34), GT_Q4_K: (256, 144),
            GT_Q6_K: (256, 210)}


def g_str(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def kv(key, typ, val):
    b = g_str(key) + struct.pack("<I", typ)
    if typ == G_STR:
        return b + g_str(val)
    if typ == G_U32:
        return b + struct.pack("<I", val)
    if typ == G_F32:
        return b + struct.pack("<f", val)
    if typ == G_U64:
        return b + struct.pack("<Q", val)
    if typ == G_BOOL:
        return b + struct.pack("<B", val)
    if typ == G_ARR:
        et, items = val
        b += struct.pack("<IQ", et, len(items))
        for it in items:
            if et == G_STR:
                b += g_str(it)
            elif et == G_I32:
                b += struct.pack("<i", it)
            elif et == G_F32:
                b += struct.pack("<f", it)
            elif et == G_U8:
                b += struct.pack("<B", it)
        return b
    raise ValueError(typ)


def gguf(kvs, tensors, version=3, align=32, data=False):
    """kvs: [bytes]; tensors: [(name, type, ne)] -> header (+ padding and zero data)."""
    b = b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(kvs)) + b"".join(kvs)
    off = 0
    for name, typ, ne in tensors:
        b += g_str(name) + struct.pack("<I", len(ne)) + b"".join(struct.pack("<Q", n) for n in ne)
        b += struct.pack("<IQ", typ, off)
        elems = 1
        for n in ne:
            elems *= n
        be, bb = GT_BLOCK[typ]
        off += (elems // be * bb + align - 1) // align * align
    if data:
        b += b"\0" * ((align - len(b) % align) % align) + b"\0" * off
    return b


def gguf_llama(arch="llama", layers=2, h=256, ffn=512, vocab=32, kvh=2, heads=4, quant=True, tied=False, extra=(),
               small=False):
    q = GT_Q4_K if quant else GT_F16
    q8 = GT_F16 if small else GT_Q8_0
    q40 = GT_F16 if small else GT_Q4_0
    k = [kv("general.architecture", G_STR, arch), kv("general.name", G_STR, "tiny-" + arch),
         kv("general.alignment", G_U32, 32), kv(f"{arch}.block_count", G_U32, layers),
         kv(f"{arch}.context_length", G_U32, 512), kv(f"{arch}.embedding_length", G_U32, h),
         kv(f"{arch}.feed_forward_length", G_U32, ffn), kv(f"{arch}.attention.head_count", G_U32, heads),
         kv(f"{arch}.attention.head_count_kv", G_U32, kvh),
         kv(f"{arch}.rope.freq_base", G_F32, 10000.0), kv("general.file_type", G_U32, 15),
         kv("tokenizer.ggml.model", G_STR, "llama"),
         kv("tokenizer.ggml.tokens", G_ARR, (G_STR, ["<t%d>" % i for i in range(vocab)])),
         kv("tokenizer.ggml.token_type", G_ARR, (G_I32, [1] * vocab))] + list(extra)
    kvd = h * kvh // heads
    t = [("token_embd.weight", q8, [h, vocab])]
    for i in range(layers):
        t += [(f"blk.{i}.attn_norm.weight", GT_F32, [h]), (f"blk.{i}.attn_q.weight", q, [h, h]),
              (f"blk.{i}.attn_k.weight", q40, [h, kvd]), (f"blk.{i}.attn_v.weight", q8, [h, kvd]),
              (f"blk.{i}.attn_output.weight", GT_Q6_K if quant else GT_F16, [h, h]),
              (f"blk.{i}.ffn_norm.weight", GT_F32, [h]), (f"blk.{i}.ffn_gate.weight", q, [h, ffn]),
              (f"blk.{i}.ffn_up.weight", q, [h, ffn]), (f"blk.{i}.ffn_down.weight", GT_Q6_K if quant else GT_F16,
                                                        [ffn, h])]
    t.append(("output_norm.weight", GT_F32, [h]))
    if not tied:
        t.append(("output.weight", GT_Q6_K if quant else GT_F16, [h, vocab]))
    return k, t


def gguf_seeds(out):
    k, t = gguf_llama()
    write(out, "gguf", "llama-q4km-v3.gguf", gguf(k, t))
    write(out, "gguf", "llama-f16-v2-tied.gguf", gguf(*gguf_llama(quant=False, tied=True), version=2))
    # A whole file (header, padding and data), which job specs in the spec corpus name.
    write(out, "gguf", "tiny-llama-full.gguf",
          gguf(*gguf_llama(h=32, ffn=64, vocab=16, quant=False, small=True, heads=2, kvh=1), data=True))
    k, t = gguf_llama(arch="qwen2", layers=1, extra=[kv("qwen2.attention.sliding_window", G_U32, 0)])
    write(out, "gguf", "qwen2-1l.gguf", gguf(k, t))
    # Mixtral-style: experts stacked in one 3-D tensor per projection.
    h, ffn, e = 256, 256, 4
    k = [kv("general.architecture", G_STR, "llama"), kv("llama.block_count", G_U32, 1),
         kv("llama.embedding_length", G_U32, h), kv("llama.feed_forward_length", G_U32, ffn),
         kv("llama.attention.head_count", G_U32, 4), kv("llama.attention.head_count_kv", G_U32, 4),
         kv("llama.expert_count", G_U32, e), kv("llama.expert_used_count", G_U32, 2),
         kv("llama.vocab_size", G_U32, 32), kv("llama.context_length", G_U32, 1024)]
    t = [("token_embd.weight", GT_F16, [h, 32]), ("blk.0.attn_norm.weight", GT_F32, [h]),
         ("blk.0.attn_q.weight", GT_F16, [h, h]), ("blk.0.attn_k.weight", GT_F16, [h, h]),
         ("blk.0.attn_v.weight", GT_F16, [h, h]), ("blk.0.attn_output.weight", GT_F16, [h, h]),
         ("blk.0.ffn_norm.weight", GT_F32, [h]), ("blk.0.ffn_gate_inp.weight", GT_F32, [h, e]),
         ("blk.0.ffn_gate_exps.weight", GT_Q4_K, [h, ffn, e]), ("blk.0.ffn_up_exps.weight", GT_Q4_K, [h, ffn, e]),
         ("blk.0.ffn_down_exps.weight", GT_Q6_K, [ffn, h, e]), ("output_norm.weight", GT_F32, [h]),
         ("output.weight", GT_Q6_K, [h, 32])]
    write(out, "gguf", "mixtral-exps.gguf", gguf(k, t))
    # DeepSeek-V2 MLA.
    h, kvr, qr, rope, nope, vd, heads = 256, 64, 0, 32, 64, 64, 2
    k = [kv("general.architecture", G_STR, "deepseek2"), kv("deepseek2.block_count", G_U32, 1),
         kv("deepseek2.embedding_length", G_U32, h), kv("deepseek2.feed_forward_length", G_U32, 512),
         kv("deepseek2.attention.head_count", G_U32, heads), kv("deepseek2.attention.head_count_kv", G_U32, 1),
         kv("deepseek2.attention.kv_lora_rank", G_U32, kvr), kv("deepseek2.attention.key_length", G_U32, nope + rope),
         kv("deepseek2.attention.value_length", G_U32, vd), kv("deepseek2.rope.dimension_count", G_U32, rope),
         kv("deepseek2.vocab_size", G_U32, 32), kv("deepseek2.context_length", G_U32, 4096)]
    t = [("token_embd.weight", GT_F16, [h, 32]), ("blk.0.attn_norm.weight", GT_F32, [h]),
         ("blk.0.attn_q.weight", GT_F16, [h, heads * (nope + rope)]),
         ("blk.0.attn_kv_a_mqa.weight", GT_F16, [h, kvr + rope]), ("blk.0.attn_kv_a_norm.weight", GT_F32, [kvr]),
         ("blk.0.attn_kv_b.weight", GT_F16, [kvr, heads * (nope + vd)]),
         ("blk.0.attn_output.weight", GT_F16, [heads * vd, h]), ("blk.0.ffn_norm.weight", GT_F32, [h]),
         ("blk.0.ffn_gate.weight", GT_F16, [h, 512]), ("blk.0.ffn_up.weight", GT_F16, [h, 512]),
         ("blk.0.ffn_down.weight", GT_F16, [512, h]), ("output_norm.weight", GT_F32, [h]),
         ("output.weight", GT_F16, [h, 32])]
    write(out, "gguf", "deepseek2-mla.gguf", gguf(k, t))
    # BERT (encoder-only) and a header with only metadata.
    k = [kv("general.architecture", G_STR, "bert"), kv("bert.block_count", G_U32, 1),
         kv("bert.embedding_length", G_U32, 32), kv("bert.feed_forward_length", G_U32, 128),
         kv("bert.attention.head_count", G_U32, 2), kv("bert.context_length", G_U32, 64),
         kv("tokenizer.ggml.tokens", G_ARR, (G_STR, ["a", "b", "c", "d"]))]
    t = [("token_embd.weight", GT_F32, [32, 4]), ("position_embd.weight", GT_F32, [32, 64]),
         ("token_types.weight", GT_F32, [32, 2]), ("token_embd_norm.weight", GT_F32, [32]),
         ("blk.0.attn_q.weight", GT_F32, [32, 32]), ("blk.0.attn_k.weight", GT_F32, [32, 32]),
         ("blk.0.attn_v.weight", GT_F32, [32, 32]), ("blk.0.attn_output.weight", GT_F32, [32, 32]),
         ("blk.0.attn_output_norm.weight", GT_F32, [32]), ("blk.0.ffn_up.weight", GT_F32, [32, 128]),
         ("blk.0.ffn_down.weight", GT_F32, [128, 32]), ("blk.0.layer_output_norm.weight", GT_F32, [32])]
    write(out, "gguf", "bert-1l.gguf", gguf(k, t))
    write(out, "gguf", "metadata-only.gguf",
          gguf([kv("general.architecture", G_STR, "gemma2"), kv("gemma2.block_count", G_U32, 2),
                kv("gemma2.final_logit_softcapping", G_F32, 30.0), kv("split.count", G_U64, 2),
                kv("test.nested", G_ARR, (G_U8, [1, 2, 3]))], []))


# ---- job specs ---------------------------------------------------------------------


def spec_seeds(out):
    specs = {
        "preset-train": {"model": "llama-2-7b", "precision": "bf16",
                         "workload": {"mode": "train", "batch_size": 8, "seq_len": 2048, "optimizer": "adamw"},
                         "parallel": {"gpus": 8, "zero_stage": 3}, "device": "H100-80GB",
                         "runtime": {"framework": "deepspeed", "cuda_context_mib": 500}},
        "preset-only": {"model": "gpt2"},
        "qlora": {"model": "mistral-7b-v0.1", "precision": {"preset": "nf4", "kv_cache": "fp8",
                                                           "skip_modules": ["lm_head"]},
                  "workload": {"mode": "train", "finetune": "qlora", "lora_rank": 16,
                               "lora_targets": ["q_proj", "v_proj"], "gradient_checkpointing": "full"},
                  "device": {"name": "A100-80GB", "memory_gib": 79.15}},
        "infer-beams": {"model": "llama-3-8b", "workload": {"mode": "infer", "prompt_len": 512, "gen_len": 128,
                                                            "beams": 4}, "device": "L40S-48GB"},
        "vllm": {"model": "qwen2-7b", "precision": "fp16", "workload": {"mode": "infer"},
                 "runtime": {"framework": "vllm", "gpu_memory_utilization": 0.9, "block_size": 16,
                             "max_model_len": 8192, "max_num_seqs": 128, "enforce_eager": False},
                 "device": "A100-40GB"},
        "llamacpp": {"model": "llama-2-13b", "precision": {"weights": "q4_k_m"},
                     "workload": {"mode": "infer"},
                     "runtime": {"framework": "llama.cpp", "n_gpu_layers": 20, "n_ctx": 4096, "n_batch": 512,
                                 "n_ubatch": 256}, "device": "RTX4090-24GB"},
        "megatron": {"model": "llama-3.1-70b", "precision": "mixed_bf16",
                     "workload": {"mode": "train", "batch_size": 1, "seq_len": 8192,
                                  "gradient_checkpointing": "selective"},
                     "parallel": {"gpus": 512, "tp": 8, "pp": 8, "sequence_parallel": True, "cp": 2,
                                  "pp_schedule": "interleaved", "virtual_stages": 2},
                     "runtime": {"framework": "megatron"}},
        "fsdp-offload": {"model": "mixtral-8x7b", "workload": {"mode": "train", "batch_size": 2},
                         "parallel": {"gpus": 16, "fsdp": "hybrid_shard", "gpus_per_node": 8, "ep": 2,
                                      "offload_params": "cpu", "offload_optimizer": "cpu"}},
        "zero-infinity": {"model": "llama-2-70b", "workload": {"mode": "train"},
                          "parallel": {"gpus": 8, "zero_stage": 3, "offload_params": "nvme",
                                       "offload_optimizer": "nvme", "offload_pin_memory": True}},
        "device-map": {"model": "llama-2-70b", "precision": "int8", "workload": {"mode": "infer"},
                       "parallel": {"gpus": 4, "device_map": "balanced_low_0",
                                    "max_memory": "0:10GiB,1:20GiB,cpu:30GiB"}},
        "arch": {"model": {"arch": {"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
                                    "num_attention_heads": 32, "num_key_value_heads": 8,
                                    "intermediate_size": 14336, "vocab_size": 128256,
                                    "max_position_embeddings": 8192}},
                 "workload": {"mode": "train", "finetune": "lora"}},
        "arch-deepseek": {"model": {"arch": {"model_type": "deepseek_v2", "hidden_size": 2048,
                                             "num_hidden_layers": 4, "num_attention_heads": 16,
                                             "intermediate_size": 10944, "moe_intermediate_size": 1408,
                                             "n_routed_experts": 64, "num_experts_per_tok": 6,
                                             "n_shared_experts": 2, "first_k_dense_replace": 1,
                                             "kv_lora_rank": 512, "qk_rope_head_dim": 64,
                                             "qk_nope_head_dim": 128, "v_head_dim": 128, "vocab_size": 102400,
                                             "max_position_embeddings": 163840}},
                          "workload": {"mode": "infer", "prompt_len": 100000}},
        "hf-config-file": {"model": {"hf_config_file": "tests/data/models/gpt2.json"},
                           "workload": {"mode": "train", "attention": "eager"}},
        "path-config": {"model": {"path": "tests/data/models/t5-base.json"}, "workload": {"mode": "train"}},
        "safetensors-file": {"model": {"safetensors": "tests/fuzz/corpus/safetensors/tiny-llama-full.safetensors"}},
        "gguf-file": {"model": {"gguf": "tests/fuzz/corpus/gguf/tiny-llama-full.gguf"},
                      "runtime": {"framework": "llama.cpp"}},
        "solve-max": {"model": "llama-2-7b", "device": "A100-80GB", "workload": {"mode": "train"},
                      "solve": {"max": "batch_size"}},
        "solve-gpus": {"model": "llama-3.1-405b", "device": "H100-80GB", "workload": {"mode": "infer"},
                       "solve": {"max": "gpus"}},
        "solve-advice": {"model": "llama-2-13b", "device": "RTX4090-24GB", "workload": {"mode": "train"},
                         "solve": {"advice": True}},
        "seq-cls": {"model": "bert-base-uncased", "workload": {"mode": "train", "head": "seq_cls",
                                                               "num_labels": 5}},
        "rl-verl-colocated": {"model": "qwen2-0.5b", "precision": "bf16", "device": "H100-80GB",
                              "runtime": {"framework": "verl"},
                              "workload": {"mode": "rl", "finetune": "lora", "num_generations": 5,
                                           "rollout_batch_size": 16, "prompt_len": 512, "gen_len": 1024,
                                           "gradient_checkpointing": "full"},
                              "parallel": {"gpus": 2, "fsdp": "full_shard", "offload_params": "cpu",
                                           "offload_optimizer": "cpu"},
                              "rl": {"critic": None, "rollout": {"engine": "vllm", "gpu_memory_utilization": 0.25,
                                                                 "sleep_mode": True}}},
        "rl-trl-dpo": {"model": "qwen2-0.5b", "precision": "bf16", "device": "A100-80GB",
                       "runtime": {"framework": "trl"},
                       "workload": {"mode": "rl", "algorithm": "dpo", "batch_size": 4, "seq_len": 1024},
                       "rl": {"reference": "copy", "critic": None}},
        "huge": {"model": "llama-3.1-405b", "workload": {"mode": "train", "batch_size": 1000000000,
                                                         "seq_len": 1048576}, "parallel": {"gpus": 100000}},
    }
    for name, spec in specs.items():
        write(out, "spec", name + ".json", json.dumps(spec, indent=1))
    for f in sorted(os.listdir(MODELS)):
        if f in ("gpt2.json", "deepseek-v2-lite.json", "mixtral-8x7b-v0.1.json", "t5-base.json",
                 "chatglm2-6b.json", "gemma-3-1b.json"):
            with open(os.path.join(MODELS, f), encoding="utf-8") as fh:
                cfg = json.load(fh)
            write(out, "spec", "inline-" + f, json.dumps({"model": {"hf_config": cfg}, "workload": {"mode": "train"}}))
    write(out, "spec", "bom-min.json", b"\xef\xbb\xbf{\"model\":\"opt-350m\"}")


def zoo_seeds(out):
    """Real multimodal, encoder and speech configs of the zoo files (towers,
    text_config, WhisperConfig and DeBERTa keys), one seed each."""
    want = ("vision_config", "encoder_layers", "relative_attention", "position_embedding_type")
    for name in ("zoo.jsonl", "zoo2.jsonl", "zoo_mm.jsonl"):
        with open(os.path.join(ROOT, "tests", "data", name)) as fh:
            for line in fh:
                case = json.loads(line)
                cfg = case["spec"]["model"].get("hf_config", {})
                if any(k in cfg for k in want):
                    write(out, "hf_config", case["id"] + ".json", json.dumps(cfg, sort_keys=True).encode())


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "corpus")
    for t in ("hf_config", "safetensors", "st_index", "gguf", "spec"):
        shutil.rmtree(os.path.join(out, t), ignore_errors=True)
    for f in sorted(os.listdir(MODELS)):
        if f.endswith(".json"):
            with open(os.path.join(MODELS, f), "rb") as fh:
                write(out, "hf_config", f, fh.read())
    zoo_seeds(out)
    safetensors_seeds(out)
    index_seeds(out)
    gguf_seeds(out)
    spec_seeds(out)


if __name__ == "__main__":
    main()
