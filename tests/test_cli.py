#!/usr/bin/env python3
"""End-to-end checks of the vramest CLI (examples/vramest.c): job specs in,
the plan JSON out (the contract shared/bin/accuracy reads), exit codes, and
the listing subcommands. Standard library only.

usage: test_cli.py PATH/TO/vramest
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

CLI = None
PRESET = "llama-2-7b"


def run(args, stdin=None):
    return subprocess.run([CLI] + args, input=stdin, capture_output=True, text=True, timeout=60)


def spec_file(spec):
    f = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    f.write(spec if isinstance(spec, str) else json.dumps(spec))
    f.close()
    return f.name


class Cli(unittest.TestCase):
    def spec(self, spec, *extra):
        path = spec_file(spec)
        try:
            return run(["--spec", path] + list(extra))
        finally:
            os.unlink(path)

    def plan(self, spec):
        out = self.spec(spec, "--json")
        self.assertEqual(out.returncode, 0, out.stderr)
        return json.loads(out.stdout)

    def assertBadInput(self, out, *words):
        self.assertEqual(out.returncode, 2, out.stdout + out.stderr)
        self.assertTrue(out.stderr.startswith("vramest: "), out.stderr)
        for w in words:
            self.assertIn(w, out.stderr)

    # ---- the plan contract (design.md §6) ----

    def test_json_has_contract_fields(self):
        plan = self.plan({"model": PRESET, "precision": "bf16", "device": "A100-80GB"})
        self.assertGreater(plan["params"]["total"], 6_000_000_000)
        self.assertIn("trainable", plan["params"])
        gpu = plan["gpu"]
        for cat in ("weights", "master_weights", "gradients", "optimizer_states", "activations", "kv_cache",
                    "logits", "adapter", "workspace", "framework", "allocator"):
            self.assertIn(cat, gpu["categories"])
        for k in ("peak_allocated", "peak_reserved", "device_total"):
            self.assertIsInstance(gpu[k], int)
        self.assertLessEqual(gpu["peak_allocated"], gpu["peak_reserved"])
        self.assertLessEqual(gpu["peak_reserved"], gpu["device_total"])
        self.assertIn("host", plan)
        self.assertIs(plan["fits"], True)
        # bf16 weights of a 6.74B model.
        self.assertEqual(gpu["categories"]["weights"], 2 * plan["params"]["total"])

    def test_model_only_spec(self):
        plan = self.plan({"model": PRESET})
        self.assertGreater(plan["gpu"]["peak_allocated"], 0)

    def test_hf_config_spec_matches_preset(self):
        cfg = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
               "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 32,
               "intermediate_size": 11008, "vocab_size": 32000, "max_position_embeddings": 4096,
               "hidden_act": "silu", "rms_norm_eps": 1e-05, "tie_word_embeddings": False, "torch_dtype": "float16"}
        a = self.plan({"model": {"hf_config": cfg}, "precision": "fp16"})
        b = self.plan({"model": PRESET, "precision": "fp16"})
        self.assertEqual(a["params"]["total"], 6738415616)
        self.assertEqual(a["params"], b["params"])
        self.assertEqual(a["gpu"]["categories"]["weights"], b["gpu"]["categories"]["weights"])

    def test_stdin_spec(self):
        out = run(["--spec", "-", "--json"], stdin=json.dumps({"model": PRESET}))
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("gpu", json.loads(out.stdout))

    def test_spec_and_flags_give_the_same_plan(self):
        a = self.spec({"model": PRESET, "precision": "bf16", "workload": {"mode": "train", "batch_size": 2,
                       "seq_len": 512, "kv_cache": False}, "device": "H100-80GB"}, "--json")
        b = run(["--model", PRESET, "--precision", "bf16", "--set", "mode=train", "--set", "batch_size=2",
                 "--set", "seq_len=512", "--set", "workload.kv_cache=false", "--device", "H100-80GB", "--json"])
        self.assertEqual(a.returncode, b.returncode, a.stderr + b.stderr)
        self.assertEqual(json.loads(a.stdout), json.loads(b.stdout))

    # ---- exit codes ----

    def test_exit_0_when_it_fits_or_no_device(self):
        out = self.spec({"model": PRESET, "precision": "bf16", "device": "A100-80GB"})
        self.assertEqual(out.returncode, 0, out.stderr)
        for word in ("weights", "peak_allocated", "peak_reserved", "device_total", "fits: yes", "GiB", "MiB"):
            self.assertIn(word, out.stdout)
        out = self.spec({"model": PRESET})
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("no device", out.stdout)

    def test_exit_1_when_it_does_not_fit(self):
        # 6.7B parameters in fp32 are 25 GiB of weights alone.
        spec = {"model": PRESET, "precision": "fp32", "workload": {"mode": "load"}, "device": "V100-16GB"}
        out = self.spec(spec)
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        self.assertIn("fits: NO", out.stdout)
        out = run(["--model", PRESET, "--precision", "fp32", "--device", "RTX4090-24GB"])
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        # The JSON carries the verdict; a printed plan is a successful run.
        plan = self.plan(spec)
        self.assertIs(plan["fits"], False)

    def test_exit_2_on_bad_input(self):
        self.assertBadInput(self.spec({"model": PRESET, "workload": {"batchsize": 4}}),
                            "unknown option", "batchsize", "batch_size")
        self.assertBadInput(self.spec({"model": PRESET, "workload": {"batch_size": "4"}}, "--json"),
                            "wrong value type", "batch_size")
        self.assertBadInput(self.spec('{"model": "%s",, }' % PRESET), "parse error", "byte")
        self.assertBadInput(self.spec({"workload": {}}), "model")
        self.assertBadInput(self.spec({"model": "no-such-model"}), "unknown name")
        self.assertBadInput(run(["--spec", "/nonexistent/spec.json"]), "cannot open")
        self.assertBadInput(run(["--model", PRESET, "--set", "batchsize=4"]), "batchsize")
        self.assertBadInput(run(["--model", PRESET, "--set", "batch_size=four"]), "batch_size")
        self.assertBadInput(run(["--model", PRESET, "--set", "batch_size=0"]), "out of range")
        self.assertBadInput(run(["--model", PRESET, "--set", "kv_cache=true"]), "ambiguous",
                            "precision.kv_cache", "workload.kv_cache")
        self.assertBadInput(run(["--model", PRESET, "--set", "mode"]), "key=value")
        self.assertBadInput(run(["--model", "/nonexistent/model.gguf"]))
        self.assertBadInput(run(["--spec"]))
        self.assertBadInput(run(["--bogus"]), "--bogus")
        self.assertBadInput(run([]))
        self.assertBadInput(run(["--spec", "x.json", "--model", PRESET]), "cannot be combined")

    def test_solve_is_not_dropped(self):
        spec = {"model": PRESET, "device": "A100-80GB", "solve": {"max": "batch_size"}}
        for extra in ([], ["--json"]):
            out = self.spec(spec, *extra)
            if out.returncode == 2:
                self.assertIn("solve", out.stderr)
            else:  # once the solvers exist, the plan must answer
                self.assertIn("solution", out.stdout)

    # ---- listings ----

    def test_options(self):
        out = run(["options"])
        self.assertEqual(out.returncode, 0, out.stderr)
        for word in ("batch_size", "workload", "zero_stage", "parallel", "memory_gib", "cuda_context_mib",
                     "hidden_size", "weights", "adamw", "default", "range"):
            self.assertIn(word, out.stdout)

    def test_models(self):
        out = run(["models"])
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn(PRESET, out.stdout)

    def test_gpus(self):
        out = run(["gpus"])
        self.assertEqual(out.returncode, 0, out.stderr)
        for gpu in ("A100-80GB", "H100-80GB", "V100-16GB"):
            self.assertIn(gpu, out.stdout)

    def test_help_and_version(self):
        out = run(["--help"])
        self.assertEqual(out.returncode, 0)
        self.assertIn("--spec", out.stdout)
        out = run(["--version"])
        self.assertEqual(out.returncode, 0)
        self.assertTrue(out.stdout.startswith("vramest "), out.stdout)


if __name__ == "__main__":
    CLI = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
