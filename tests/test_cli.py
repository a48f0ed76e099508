#!/usr/bin/env python3
"""End-to-end checks of the vramest CLI (examples/cli/): job specs in,
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
        for word in ("--spec", "--model", "--precision", "--device", "--set", "--json", "--svg", "--compare",
                     "--compare-set", "--help", "--version", "options", "models", "gpus", "NO_COLOR",
                     "Exit status: 0 fits"):
            self.assertIn(word, out.stdout)
        out = run(["--version"])
        self.assertEqual(out.returncode, 0)
        self.assertTrue(out.stdout.startswith("vramest "), out.stdout)

    # ---- the terminal bar ----

    def test_bar_and_legend_under_the_table(self):
        out = run(["--model", PRESET, "--precision", "bf16", "--device", "A100-80GB"])
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertNotIn("\x1b[", out.stdout)  # not a terminal: no colour
        bar = [line for line in out.stdout.splitlines() if "\u2588" in line and line.endswith(" GiB")]
        self.assertEqual(len(bar), 1, out.stdout)
        self.assertIn("\u2502", bar[0])  # the device's end: it fits
        self.assertIn("weights 12.55", out.stdout)  # legend with GiB
        self.assertIn("free ", out.stdout)
        # Over the device: the bar runs past a capacity marker.
        out = run(["--model", PRESET, "--precision", "fp32", "--device", "RTX4090-24GB"])
        self.assertEqual(out.returncode, 1)
        self.assertIn("capacity 23.99 GiB (RTX4090-24GB) \u25b2", out.stdout)

    def test_bar_fits_the_width(self):
        for cols in ("40", "80", "200"):
            env = dict(os.environ, COLUMNS=cols)
            env.pop("NO_COLOR", None)
            out = subprocess.run([CLI, "--model", PRESET, "--device", "A100-80GB"], capture_output=True, text=True,
                                 env=env, timeout=60)
            self.assertEqual(out.returncode, 0, out.stderr)
            start = out.stdout.index("------------------\n")
            for line in out.stdout[start:].split("\n\nfits")[0].splitlines():
                if "\u2588" in line or "\u00b7" in line:
                    self.assertLessEqual(len(line), max(int(cols), 100), (cols, line))

    def test_colour_only_on_a_terminal_without_no_color(self):
        try:
            import pty
        except ImportError:
            self.skipTest("no pty module")

        def on_tty(env):
            master, slave = pty.openpty()
            proc = subprocess.run([CLI, "--model", PRESET, "--device", "A100-80GB"], stdout=slave,
                                  stderr=subprocess.PIPE, env=env, timeout=60)
            os.close(slave)
            data = b""
            while True:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                data += chunk
            os.close(master)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            return data.decode("utf-8", "replace")

        env = dict(os.environ, TERM="xterm")
        env.pop("NO_COLOR", None)
        self.assertIn("\x1b[34m", on_tty(env))  # weights in blue
        for value in ("1", ""):
            self.assertNotIn("\x1b[", on_tty(dict(env, NO_COLOR=value)))
        self.assertNotIn("\x1b[", on_tty(dict(env, TERM="dumb")))

    # ---- --compare / --compare-set ----

    def test_compare_precisions(self):
        out = run(["--model", PRESET, "--compare", "fp32,fp16,int8,nf4", "--device", "RTX4090-24GB"])
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)  # fp16, int8 and nf4 fit
        rows = {line.split()[0]: line.split()[1:] for line in out.stdout.splitlines()[2:] if line.startswith("  ")
                and len(line.split()) == 5}
        self.assertEqual(rows["fp32"] if "fp32" in rows else out.stdout.splitlines()[2].split(),
                         ["fp32", "fp16", "int8", "nf4"])
        weights = [float(v) for v in rows["weights"]]
        self.assertEqual(weights, sorted(weights, reverse=True))
        self.assertAlmostEqual(weights[1], 12.551, places=2)
        for row in ("peak_allocated", "peak_reserved", "device_total"):
            self.assertIn(row, rows)
        self.assertEqual(rows["fits"], ["NO", "yes", "yes", "yes"])
        self.assertIn("does not fit", out.stdout)  # the fp32 bar
        # Each column is exactly the single estimate with that preset.
        cmp = json.loads(run(["--model", PRESET, "--compare", "fp32,nf4", "--device", "RTX4090-24GB",
                              "--json"]).stdout)
        self.assertEqual(cmp["compare"], {"key": "precision", "values": ["fp32", "nf4"]})
        for value, plan in zip(cmp["compare"]["values"], cmp["plans"]):
            single = run(["--model", PRESET, "--precision", value, "--device", "RTX4090-24GB", "--json"])
            self.assertEqual(plan, json.loads(single.stdout))

    def test_compare_exit_status(self):
        # 13B parameters in fp32 or fp16 fit no 16 GB card: exit 1; JSON: 0.
        big = ["--model", "llama-2-13b", "--compare", "fp32,fp16", "--device", "V100-16GB"]
        self.assertEqual(run(big).returncode, 1)
        self.assertEqual(run(big + ["--json"]).returncode, 0)
        out = run(["--model", PRESET, "--compare", "fp16,nf4"])
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("no device given", out.stdout)

    def test_compare_set_and_precision_sets_still_apply(self):
        out = run(["--model", PRESET, "--precision", "bf16", "--set", "mode=infer", "--set", "prompt_len=512",
                   "--compare-set", "batch_size=1,4,16", "--device", "H100-80GB", "--json"])
        self.assertEqual(out.returncode, 0, out.stderr)
        cmp = json.loads(out.stdout)
        self.assertEqual(cmp["compare"]["key"], "batch_size")
        kv = [p["gpu"]["categories"]["kv_cache"] for p in cmp["plans"]]
        self.assertTrue(kv[0] < kv[1] < kv[2], kv)
        self.assertEqual([p["settings"]["workload"]["batch_size"] for p in cmp["plans"]], [1, 4, 16])
        # A --set precision option holds in every --compare column.
        cmp = json.loads(run(["--model", PRESET, "--set", "mode=infer", "--set", "precision.kv_cache=int8",
                              "--compare", "bf16,fp16", "--json"]).stdout)
        for plan in cmp["plans"]:
            self.assertEqual(plan["settings"]["precision"]["kv_cache"], "int8")
        # A column the library refuses names itself.
        self.assertBadInput(run(["--model", PRESET, "--set", "mode=infer", "--set", "precision.kv_cache=fp8",
                                 "--compare", "bf16,fp16"]), "column precision=bf16", "kv_cache")
        # From a spec too.
        path = spec_file({"model": PRESET, "workload": {"mode": "infer"}, "device": "A100-80GB"})
        try:
            out = run(["--spec", path, "--compare-set", "prompt_len=128,1024"])
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertIn("by prompt_len", out.stdout)
        finally:
            os.unlink(path)

    def test_compare_bad_input(self):
        self.assertBadInput(run(["--model", PRESET, "--compare", "fp16,nosuch"]), "nosuch")
        self.assertBadInput(run(["--model", PRESET, "--compare", "fp16,,nf4"]), "empty")
        self.assertBadInput(run(["--model", PRESET, "--precision", "fp16", "--compare", "fp16,nf4"]),
                            "--precision")
        self.assertBadInput(run(["--model", PRESET, "--compare", "fp16", "--compare-set", "batch_size=1,2"]),
                            "cannot be combined")
        self.assertBadInput(run(["--model", PRESET, "--compare-set", "batchsize=1,2"]), "batchsize")
        self.assertBadInput(run(["--model", PRESET, "--compare-set", "batch_size"]), "key=v1,v2")
        self.assertBadInput(run(["--model", PRESET, "--compare-set", "batch_size=1,0"]), "out of range")
        self.assertBadInput(run(["--model", PRESET, "--compare", ",".join(["fp16"] * 17)]), "at most 16")
        self.assertBadInput(run(["--compare", "fp16"]), "--model")
        self.assertBadInput(run(["models", "--compare", "fp16"]), "no other arguments")
        self.assertBadInput(self.spec({"model": PRESET, "solve": {"max": "batch_size"}}, "--compare", "fp16"),
                            "solve")

    def test_table_and_chart_describe_the_plan_of_a_solve_spec(self):
        # The plan is at the answer (the largest batch, the GPU layout found);
        # so are the table and the SVG.
        for spec in ({"model": PRESET, "precision": "bf16", "workload": {"mode": "train", "seq_len": 512},
                      "device": "A100-80GB", "solve": {"max": "batch_size"}},
                     {"model": "llama-2-13b", "precision": "bf16", "workload": {"mode": "train"},
                      "parallel": {"zero_stage": 3}, "device": "A100-40GB", "solve": {"max": "gpus"}}):
            plan = self.plan(spec)
            self.assertIsInstance(plan["solution"]["value"], int)
            out = self.spec(spec)
            self.assertRegex(out.stdout, r"device_total +%.3f " % (plan["gpu"]["device_total"] / 2**30))
            fd, svg = tempfile.mkstemp(suffix=".svg")
            os.close(fd)
            try:
                self.spec(spec, "--svg", svg)
                with open(svg, encoding="utf-8") as f:
                    self.assertIn("device_total %.2f GiB" % (plan["gpu"]["device_total"] / 2**30), f.read())
            finally:
                os.unlink(svg)

    def test_solution_and_advice_in_the_table(self):
        out = self.spec({"model": PRESET, "precision": "bf16", "workload": {"mode": "train", "seq_len": 512},
                         "device": "A100-80GB", "solve": {"max": "batch_size"}})
        self.assertIn(out.returncode, (0, 3), out.stderr)  # the answer's estimate fits
        self.assertRegex(out.stdout, r"solution: batch_size = \d+ \(the largest")
        out = self.spec({"model": PRESET, "precision": "fp32", "workload": {"mode": "train"},
                         "device": "A100-40GB", "solve": {"advice": True}})
        self.assertEqual(out.returncode, 1, out.stderr)
        self.assertIn("advice (cheapest change first):", out.stdout)
        self.assertIn("saves", out.stdout)


class Svg(unittest.TestCase):
    """--svg: a well-formed chart of the breakdown and the step timeline."""

    NS = {"s": "http://www.w3.org/2000/svg"}

    def write(self, *args):
        fd, path = tempfile.mkstemp(suffix=".svg")
        os.close(fd)
        self.addCleanup(os.unlink, path)
        out = run(list(args) + ["--svg", path])
        return out, path

    def parse(self, path):
        import xml.etree.ElementTree as ET
        root = ET.parse(path).getroot()  # raises on malformed XML
        self.assertEqual(root.tag, "{http://www.w3.org/2000/svg}svg")
        vb = [float(v) for v in root.get("viewBox").split()]
        self.assertEqual(vb[:2], [0, 0])
        self.assertGreater(vb[2], 100)
        self.assertGreater(vb[3], 100)
        self.assertTrue(root.find("s:title", self.NS).text)
        return root

    def test_training_chart(self):
        out, path = self.write("--model", PRESET, "--precision", "bf16", "--set", "mode=train", "--set",
                               "batch_size=2", "--set", "seq_len=1024", "--device", "A100-80GB")
        # 43 GiB estimated, 70 GiB at the training band's high end: fits only at the low end.
        self.assertEqual(out.returncode, 3, out.stderr)
        self.assertIn("fits: ONLY AT THE LOW END", out.stdout)  # the table is still printed
        root = self.parse(path)
        self.assertIn("llama-2-7b", root.find("s:title", self.NS).text)
        plan = json.loads(run(["--model", PRESET, "--precision", "bf16", "--set", "mode=train", "--set",
                               "batch_size=2", "--set", "seq_len=1024", "--device", "A100-80GB", "--json"]).stdout)
        # A rect per non-zero category, carrying the plan's exact bytes.
        rects = {r.get("data-category"): int(r.get("data-bytes"))
                 for r in root.iter("{http://www.w3.org/2000/svg}rect") if r.get("class") == "cat"}
        nonzero = {k: v for k, v in plan["gpu"]["categories"].items() if v}
        self.assertEqual(rects, nonzero)
        texts = " ".join("".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text"))
        for word in ("weights", "optimizer_states", "A100-80GB", "device_total", "forward", "backward",
                     "optimizer", "peak"):
            self.assertIn(word, texts)
        # The capacity line, and the timeline as a path through every point.
        lines = [e for e in root.iter("{http://www.w3.org/2000/svg}line") if e.get("class") == "capacity"]
        self.assertEqual(len(lines), 2)
        paths = [e for e in root.iter("{http://www.w3.org/2000/svg}path") if e.get("class") == "timeline"]
        self.assertEqual(len(paths), 1)
        self.assertEqual(paths[0].get("d").count("L") + 1, len(plan["timeline"]))
        phases = [e.get("data-phase") for e in root.iter("{http://www.w3.org/2000/svg}rect")
                  if e.get("class") == "phase"]
        self.assertEqual(phases, ["forward", "backward", "optimizer"])
        self.render(path)

    def test_inference_multi_gpu_and_compare_charts(self):
        out, path = self.write("--model", PRESET, "--set", "mode=infer", "--device", "A100-40GB")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.parse(path)
        out, path = self.write("--model", PRESET, "--precision", "bf16", "--set", "mode=train", "--set", "gpus=4",
                               "--set", "pp=2", "--device", "A100-80GB")
        self.assertIn(out.returncode, (0, 1, 3), out.stderr)
        root = self.parse(path)
        labels = " ".join("".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text"))
        self.assertIn("pp stage 0", labels)
        self.assertIn("pp stage 1", labels)
        out, path = self.write("--model", PRESET, "--set", "mode=train", "--compare-set", "batch_size=1,8",
                               "--device", "H100-80GB")
        self.assertIn(out.returncode, (0, 1, 3), out.stderr)
        root = self.parse(path)
        series = [e.get("data-series") for e in root.iter("{http://www.w3.org/2000/svg}path")
                  if e.get("class") == "timeline"]
        self.assertEqual(series, ["batch_size=1", "batch_size=8"])
        self.render(path)

    def test_svg_to_stdout_and_hostile_names(self):
        out = run(["--model", PRESET, "--svg", "-"])
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertTrue(out.stdout.startswith("<?xml"), out.stdout[:80])
        self.assertNotIn("parameters:", out.stdout)
        import xml.etree.ElementTree as ET
        ET.fromstring(out.stdout.encode())
        self.assertEqual(run(["--model", PRESET, "--svg", "-", "--json"]).returncode, 2)
        self.assertEqual(run(["--model", PRESET, "--svg", "/nonexistent/dir/x.svg"]).returncode, 2)
        # A model read from a file whose name needs escaping still gives valid XML.
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(os.environ.get("VRAMEST_TEST_DATA", os.path.join(os.path.dirname(
                os.path.abspath(__file__)), "data")), "models", "gpt2.json")
            odd = os.path.join(d, "a<b>&\"c'.json")
            with open(src, "rb") as f, open(odd, "wb") as g:
                g.write(f.read())
            out, path = self.write("--model", odd)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.parse(path)

    def render(self, path):
        """Render to PNG with rsvg-convert (librsvg2-bin) when the build found it."""
        rsvg = os.environ.get("VT_RSVG_CONVERT")
        if not rsvg:
            return
        png = path[:-4] + ".png"
        self.addCleanup(lambda: os.path.exists(png) and os.unlink(png))
        out = subprocess.run([rsvg, "-o", png, path], capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stderr, "")
        with open(png, "rb") as f:
            head = f.read(24)
        self.assertEqual(head[:8], b"\x89PNG\r\n\x1a\n")
        width, height = int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
        self.assertEqual(width, 960)
        self.assertGreater(height, 300)


if __name__ == "__main__":
    CLI = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
