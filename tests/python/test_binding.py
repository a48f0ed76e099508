"""The ctypes binding end to end: every public function reached from Python,
errors mapped to exceptions with the library's message, handles freed, and
results identical to the CLI's JSON."""
import gc
import json
import os
import subprocess
import threading

import pytest

import vramest
from vramest import _lib


def test_every_exported_function_is_declared():
    """The binding's table covers the whole ABI (lib/vramest.map)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(root, "lib", "vramest.map")) as f:
        exported = {line.strip().rstrip(";") for line in f if line.strip().startswith("vramest_")}
    required = {name for name, *_ in _lib.FUNCTIONS}
    optional = {name for name, *_ in _lib.OPTIONAL}
    # Every export is declared; the optional ones may not be exported yet.
    assert exported - required - optional == set(), exported - required - optional
    assert required - exported == set(), required - exported
    for name in optional:
        assert (getattr(vramest._L, name) is None) == (name not in exported), name


def test_version_and_names():
    assert vramest.version() == vramest.__version__
    assert vramest._L.vramest_version_number() >= 10000
    cats = vramest.categories()
    assert cats[0] == "weights" and "kv_cache" in cats and "allocator" in cats
    for code in range(-20, 1):
        assert vramest._L.vramest_status_string(code)


def test_options_registry_drives_keywords():
    names = {o.name for o in vramest.options()}
    for required in ("batch_size", "seq_len", "optimizer", "weights", "hidden_size", "device", "zero_stage"):
        assert required in names
    assert vramest.option("n_embd").name == "hidden_size"  # alias
    with pytest.raises(vramest.UnknownOption) as e:
        vramest.option("batch_sise")
    assert "batch_size" in str(e.value)  # the library suggests the close name


def test_handles_set_get_reset_clone():
    cfg = vramest.Config(mode="train", batch_size=8, seq_len=1024, optimizer="adamw", lora_targets=["q_proj", "v_proj"])
    assert cfg.get("batch_size") == 8
    assert cfg.get("mode") == "train"
    assert cfg.get("lora_targets") == "q_proj,v_proj"
    # Same name, two handles: the workload switch and the precision dtype.
    assert vramest.Config(kv_cache=False).get("kv_cache") is False
    assert vramest.Precision(kv_cache="fp8").get("kv_cache") == "fp8_e4m3"
    c2 = cfg.clone()
    c2.set("batch_size", 2)
    assert cfg.get("batch_size") == 8 and c2.get("batch_size") == 2
    cfg.reset("batch_size")
    assert cfg.get("batch_size") == 1
    p = vramest.Precision("nf4")
    assert p.get("weights") == "nf4"
    m = vramest.Model("llama-2-7b")
    assert m.num_parameters == 6738415616
    assert m.get("num_key_value_heads") == 32


def test_errors_carry_status_and_message():
    with pytest.raises(vramest.OutOfRange) as e:
        vramest.Config(batch_size=-1)
    assert e.value.status == -9 and "batch_size" in e.value.message
    with pytest.raises(vramest.UnknownName):
        vramest.Config(optimizer="adamw9")
    with pytest.raises(vramest.UnknownName):
        vramest.Model("no-such-model")
    with pytest.raises(vramest.UnknownOption):
        vramest.Config(hidden_size=4096)  # a model option: not a config one
    with pytest.raises(vramest.ParseError):
        vramest.Model.from_hf_config('{"model_type": "llama", ')
    with pytest.raises(vramest.UnknownModelType):
        vramest.Model.from_hf_config({"model_type": "not-a-family"})
    with pytest.raises(vramest.WrongType):
        vramest.Config(batch_size=1.5)


def test_need_more_data_reports_bytes():
    m = vramest.Model()
    with pytest.raises(vramest.NeedMoreData) as e:
        m.parse(b"\x10\x00\x00", source="safetensors")
    assert e.value.needed == 8


def test_model_from_config_and_file(tmp_path):
    cfg = {"model_type": "llama", "hidden_size": 256, "intermediate_size": 688, "num_hidden_layers": 2,
           "num_attention_heads": 8, "num_key_value_heads": 2, "vocab_size": 1000, "tie_word_embeddings": False}
    m = vramest.Model.from_hf_config(cfg)
    expected = 2 * (256 * 1000) + 2 * (256 * 256 * 2 + 256 * 64 * 2 + 3 * 256 * 688 + 2 * 256) + 256
    assert m.num_parameters == expected
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    assert vramest.Model.from_file(path).num_parameters == expected


def test_estimate_load_one_liner():
    plan = vramest.estimate({"model": "llama-2-7b", "workload": {"mode": "load"}})
    assert plan["params"]["total"] == 6738415616
    assert plan["gpu"]["categories"]["weights"] > 12 * 2**30
    r = vramest.run("llama-2-7b", "fp16", {"mode": "load"})
    assert r["weights"] == plan["gpu"]["categories"]["weights"]
    d = r.as_dict()
    assert d["gpu"]["weights"] == r["weights"] and d["fits"] is None
    assert r.json()["params"]["total"] == 6738415616
    lo, hi = r.band("framework")
    assert lo <= r["framework"] <= hi


def test_fit_and_solvers():
    cfg = vramest.Config(mode="load", device="A100-80GB")
    fits, margin = vramest.check_fit("llama-2-7b", "fp16", cfg)
    assert fits and margin > 0
    fits, margin = vramest.check_fit("llama-2-7b", "fp32", vramest.Config(mode="load", device="T4"))
    assert not fits and margin < 0
    advice = vramest.advise("llama-2-7b", "fp32", vramest.Config(mode="load", device="T4"))
    assert advice and all(a["saves_bytes"] > 0 for a in advice)
    assert any(a["fits"] for a in advice)


def test_handles_are_freed_over_many_estimates():
    """100k estimates must not grow the process (finalizers free results)."""
    if "asan" in os.environ.get("LD_PRELOAD", ""):
        pytest.skip("ASan's quarantine holds freed memory; LeakSanitizer covers leaks in that build")
    m, p, c = vramest.Model("gpt2"), vramest.Precision("fp32"), vramest.Config(mode="load")

    def rss_kib():
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    for _ in range(2000):
        vramest.run(m, p, c)
    gc.collect()
    before = rss_kib()
    for _ in range(100000):
        vramest.run(m, p, c)
    gc.collect()
    after = rss_kib()
    # A leak of one result per call would be > 1 GiB here.
    assert after - before < 64 * 1024, (before, after)


def test_closed_handle_is_refused():
    c = vramest.Config()
    c.close()
    c.close()  # idempotent
    with pytest.raises(vramest.InvalidArgument):
        c.get("batch_size")


def test_threads_share_handles():
    m, p = vramest.Model("llama-2-7b"), vramest.Precision("bf16")
    c = vramest.Config(mode="load")
    want = vramest.run(m, p, c).as_array()
    errors = []

    def work():
        for _ in range(200):
            if vramest.run(m, p, c).as_array() != want:
                errors.append("mismatch")

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def _visible_cases():
    """The published measurements' specs and the real configs of the zoo,
    from the shared directory beside the checkout (or a worktree's parent)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for up in ("..", os.path.join("..", "..")):
        folder = os.path.join(root, up, "shared", "validation")
        if os.path.exists(os.path.join(folder, "visible.jsonl")):
            cases = []
            for name in ("visible.jsonl", "zoo.jsonl"):
                if os.path.exists(os.path.join(folder, name)):
                    with open(os.path.join(folder, name)) as f:
                        cases += [json.loads(line) for line in f if line.strip() and not line.startswith("#")]
            return cases
    return []


@pytest.mark.skipif(not os.environ.get("VRAMEST_CLI"), reason="VRAMEST_CLI not set")
def test_same_plan_as_cli(tmp_path):
    """For every visible and zoo case the Python plan equals the CLI's JSON
    (or both fail), with and without the cache."""
    cli = os.environ["VRAMEST_CLI"]
    cases = _visible_cases()
    if not cases:
        pytest.skip("no visible cases next to the checkout")
    compared = 0
    for case in cases:
        spec = tmp_path / "spec.json"
        spec.write_text(json.dumps(case["spec"]))
        out = subprocess.run([cli, "--spec", str(spec), "--json"], capture_output=True, text=True)
        try:
            plan = vramest.estimate(case["spec"])
        except vramest.Error:
            assert out.returncode == 2, case["id"]
            continue
        assert out.returncode in (0, 1), (case["id"], out.stderr)
        assert json.loads(out.stdout) == plan, case["id"]
        # The cached path (models and specs reused) gives the same plan.
        assert vramest.estimate(case["spec"], cache=None) == plan, case["id"]
        assert vramest.estimate(case["spec"]) == plan, case["id"]
        compared += 1
    assert compared > 0
