"""The binding feels like Python (issue 20, item 7): readable reprs, as_dict
with real bools and phase names, a GiB helper, keyword options on every
entry point, help generated from the library's option table, did-you-mean,
and messages without C jargon."""
import pydoc
import re

import pytest

import vramest
from vramest import _options

JOB = {"model": "llama-3.1-8b", "workload": {"mode": "train", "batch_size": 4, "seq_len": 2048},
       "device": "H100-80GB"}
GIB = 2 ** 30


# ---------------------------------------------------------------- repr


def test_model_repr_names_the_model_family_and_size():
    text = repr(vramest.Model("llama-3.1-8b"))
    assert text.startswith("<vramest.Model 'llama-3.1-8b': llama, 8.03B parameters")
    assert "32 layers" in text and "hidden_size 4096" in text
    moe = repr(vramest.Model("mixtral-8x7b"))
    assert "mixtral" in moe and "46.70B parameters (12.88B active)" in moe
    built = vramest.Model(model_type="llama", hidden_size=512, num_hidden_layers=2, num_attention_heads=8,
                          vocab_size=1000)
    assert repr(built).startswith("<vramest.Model llama (incomplete: ") and "intermediate_size" in repr(built)
    built.set("intermediate_size", 1024)
    assert repr(built).startswith("<vramest.Model llama, ") and "2 layers" in repr(built)
    assert repr(vramest.Model()).startswith("<vramest.Model no model_type (incomplete: ")  # never raises
    closed = vramest.Model("gpt2")
    closed.close()
    assert repr(closed) == "<vramest.Model (closed)>"


def test_config_and_precision_repr_round_trip():
    cfg = vramest.Config(mode="train", batch_size=4, seq_len=4096, device="H100-80GB",
                         lora_targets=["q_proj", "v_proj"], gradient_checkpointing="full")
    text = repr(cfg)
    assert text.startswith("vramest.Config(mode='train', batch_size=4, seq_len=4096")
    assert "device='H100-80GB'" in text and "optimizer" not in text  # defaults are left out
    again = eval(text, {"vramest": vramest})
    assert again.changed() == cfg.changed()
    assert repr(vramest.Config()) == "vramest.Config()"
    prec = vramest.Precision("bf16", kv_cache="fp8")
    assert repr(prec) == "vramest.Precision(weights='bf16', compute='bf16', kv_cache='fp8_e4m3')"
    assert eval(repr(prec), {"vramest": vramest}).changed() == prec.changed()


def test_result_repr_says_peak_phase_and_verdict():
    r = vramest.run(JOB)
    text = repr(r)
    assert text.startswith("<vramest.Result peak_allocated ") and " GiB" in text
    assert "(peak in %s)" % r.peak_phase in text
    assert ("does not fit 79.65 GiB (short by" in text) == (r.fits is False)
    fits = vramest.run("llama-3.1-8b", mode="load", device="H100-80GB")
    assert "fits 79.65 GiB (margin " in repr(fits)
    assert repr(vramest.run("gpt2")).endswith(": no device given>")


# ---------------------------------------------------------------- as_dict


def test_as_dict_has_real_bools_phase_names_and_bytes():
    r = vramest.run(JOB)
    d = r.as_dict()
    assert d["fits"] is False and isinstance(d["fits"], bool)
    assert d["peak_phase"] in vramest.PHASES and isinstance(d["peak_phase"], str)
    plan = vramest.estimate(JOB)
    assert d["gpu"] == plan["gpu"]["categories"]
    for name in ("peak_allocated", "peak_reserved", "device_total"):
        assert d[name] == plan["gpu"][name] and type(d[name]) is int
    assert d["peak_phase"] == plan["gpu"]["peak_phase"]
    assert d["fits"] == plan["fits"]
    assert isinstance(d["warnings"], list)
    no_device = vramest.run("gpt2").as_dict()
    assert no_device["fits"] is None and no_device["device_capacity"] == 0
    assert vramest.run("llama-3.1-8b", mode="load", device="H100-80GB").as_dict()["fits"] is True


def test_gib_and_format_bytes():
    assert vramest.gib(GIB) == 1.0 and vramest.gib(3 * GIB // 2) == 1.5
    assert vramest.format_bytes(80 * GIB) == "80.00 GiB"
    assert vramest.format_bytes(512) == "512 B"
    assert vramest.format_bytes(1536) == "1.50 KiB"
    assert vramest.format_bytes(3 * 2 ** 20, digits=1) == "3.0 MiB"
    assert vramest.format_bytes(2 ** 41) == "2.00 TiB"
    assert vramest.format_bytes(-GIB) == "-1.00 GiB"
    plan = vramest.estimate(JOB)
    assert vramest.gib(plan["gpu"]["device_total"]) == plan["gpu"]["device_total"] / GIB


# ---------------------------------------------------------------- keywords


def test_estimate_takes_keywords_like_the_dict_form():
    by_keywords = vramest.estimate("llama-3.1-8b", mode="train", batch_size=4, seq_len=2048, device="H100-80GB")
    assert by_keywords == vramest.estimate(JOB)
    # Keywords win over the spec, as --set over --spec; the caller's dict is untouched.
    spec = {"model": "llama-3.1-8b", "workload": {"mode": "train", "batch_size": 1}}
    assert vramest.estimate(spec, batch_size=4, seq_len=2048, device="H100-80GB") == by_keywords
    assert spec == {"model": "llama-3.1-8b", "workload": {"mode": "train", "batch_size": 1}}
    # Group keywords merge into their object; precision options go to the precision object.
    assert vramest.estimate("llama-3.1-8b", workload={"mode": "train", "batch_size": 4},
                            device={"name": "H100-80GB"}) == by_keywords
    explicit = vramest.estimate({"model": "llama-2-7b", "precision": {"preset": "bf16", "kv_cache": "int8"},
                                 "workload": {"mode": "infer", "kv_cache": True}})
    assert vramest.estimate("llama-2-7b", precision="bf16", kv_cache="int8", mode="infer") == explicit
    assert vramest.estimate("llama-2-7b", precision="bf16", mode="infer", kv_cache=False) != explicit
    assert vramest.estimate(JOB, memory_gib=40)["gpu"]["capacity"] == 40 * GIB
    text = '{"model": "llama-3.1-8b", "workload": {"mode": "train"}}'
    assert vramest.estimate(text, batch_size=4, seq_len=2048, device="H100-80GB") == by_keywords


def test_run_and_solvers_take_keywords():
    model = vramest.Model("llama-3.1-8b")
    cfg = vramest.Config(mode="train", batch_size=4, seq_len=2048, device="H100-80GB")
    want = vramest.run(model, None, cfg).as_array()
    assert vramest.run("llama-3.1-8b", mode="train", batch_size=4, seq_len=2048,
                       device="H100-80GB").as_array() == want
    assert vramest.run(JOB).as_array() == want
    assert vramest.run(model, config={"mode": "train", "batch_size": 4, "seq_len": 2048,
                                      "device": "H100-80GB"}).as_array() == want
    # A keyword changes a copy: the caller's Config keeps batch_size 4.
    assert vramest.run(model, None, cfg, batch_size=1).as_array() != want
    assert cfg.get("batch_size") == 4

    # bf16 stated: the default training step (mixed precision) of an 8B model needs more than one H100.
    best, size = vramest.solve_max("llama-3.1-8b", "bf16", key="batch_size", mode="train", seq_len=2048,
                                   gradient_checkpointing="full", device="H100-80GB")
    assert (best, size) == vramest.solve_max(model, vramest.Precision("bf16"), vramest.Config(
        mode="train", seq_len=2048, gradient_checkpointing="full", device="H100-80GB"), "batch_size")
    assert best >= 1 and size <= vramest.gpus()["H100-80GB"]
    fits, margin = vramest.check_fit("llama-3.1-8b", "bf16", mode="load", device="H100-80GB")
    assert fits and margin > 0
    assert vramest.check_fit({"model": "llama-3.1-8b", "device": "H100-80GB"}) == \
        vramest.check_fit("llama-3.1-8b", device="H100-80GB")
    gpus = vramest.solve_min_gpus("llama-2-13b", "bf16", mode="train", zero_stage=3, device="A100-40GB")
    assert gpus == vramest.solve_min_gpus("llama-2-13b", "bf16", {"mode": "train", "zero_stage": 3,
                                                                  "device": "A100-40GB"})
    tips = vramest.advise("llama-2-7b", "fp32", mode="load", device="T4")
    assert tips and tips == vramest.advise("llama-2-7b", "fp32", {"mode": "load", "device": "T4"})


def test_keyword_mistakes_are_explained():
    with pytest.raises(vramest.UnknownOption, match="'hidden_size' is a model option"):
        vramest.run("llama-2-7b", hidden_size=4096)
    with pytest.raises(vramest.UnknownOption, match='unknown key "batch_size" in "parallel"'):
        vramest.run("llama-2-7b", parallel={"batch_size": 2})
    with pytest.raises(vramest.UnknownOption, match="'batch_size' belongs in workload, not in parallel"):
        vramest.run(vramest.Model("llama-2-7b"), parallel={"batch_size": 2})
    with pytest.raises(vramest.InvalidArgument, match="does not answer a spec's \"solve\""):
        vramest.run("llama-2-7b", solve={"max": "batch_size"})
    with pytest.raises(vramest.WrongType, match="solve= is not an option here"):
        vramest.run(vramest.Model("llama-2-7b"), solve={"max": "batch_size"})
    with pytest.raises(vramest.WrongType, match="a job spec carries its own precision"):
        vramest.run(JOB, "bf16")
    # kv_cache is a precision dtype and a workload switch: True/False is the switch.
    with pytest.raises(vramest.WrongType, match="precision.kv_cache: expected a name"):
        vramest.estimate("llama-2-7b", kv_cache=3)
    # A spec's solve question is answered by estimate() with keywords too.
    plan = vramest.estimate("llama-3.1-8b", mode="train", device="H100-80GB", solve={"max": "batch_size"})
    assert plan["solution"]["key"] == "batch_size"


# ---------------------------------------------------------------- help


def test_help_lists_every_option_with_bounds_from_the_library():
    for cls, handle in ((vramest.Model, vramest.HANDLE_MODEL), (vramest.Precision, vramest.HANDLE_PRECISION),
                        (vramest.Config, vramest.HANDLE_CONFIG)):
        doc = pydoc.render_doc(cls, renderer=pydoc.plaintext)
        for opt in vramest.options():
            if opt.handle == handle:
                assert "%s (%s; default " % (opt.name, opt.summary()) in doc, opt.name
                assert opt.description[:40] in doc
    doc = pydoc.render_doc(vramest.Config, renderer=pydoc.plaintext)
    assert "batch_size (integer from 1 to 1000000000; default 1)" in doc
    assert "mode (one of: load, train, infer, rl; default load)" in doc
    assert "kv_cache (True or False; default True)" in doc
    assert "memory_gib (number from 0 to 1048576; default 0)" in doc
    assert re.search(r"\n \|  workload:\n \|      mode \(", doc)  # indented like the docstring
    for fn in (vramest.run, vramest.estimate):
        assert "seq_len (integer" in fn.__doc__ and "kv_cache (one of: auto" in fn.__doc__
        assert "hidden_size (integer" not in fn.__doc__  # model options are the model's
    opt = vramest.option("optimizer")
    assert "adamw" in opt.values and opt.bounds().startswith("one of: ")
    assert "weights" in repr(vramest.option("weights")) and len(vramest.option("weights").values) > 16


# ---------------------------------------------------------------- did you mean


@pytest.mark.parametrize("make, wrong, right", [
    (lambda **kw: vramest.Config(**kw), "batch_sise", "batch_size"),
    (lambda **kw: vramest.Config(**kw), "seqlen", "seq_len"),
    (lambda **kw: vramest.Config(**kw), "gradient_checkpointng", "gradient_checkpointing"),
    (lambda **kw: vramest.Precision(**kw), "weight", "weights"),
    (lambda **kw: vramest.Model(**kw), "hiden_size", "hidden_size"),
    (lambda **kw: vramest.run("gpt2", **kw), "batchsize", "batch_size"),
    (lambda **kw: vramest.estimate("gpt2", **kw), "zero_stag", "zero_stage"),
    (lambda **kw: vramest.estimate("gpt2", **kw), "workloads", "workload"),
])
def test_did_you_mean(make, wrong, right):
    with pytest.raises(vramest.UnknownOption) as e:
        make(**{wrong: 1})
    assert "did you mean '%s'" % right in str(e.value)
    assert isinstance(e.value, ValueError)


def test_edit_distance():
    assert _options.edit_distance("batch_sise", "batch_size") == 1
    assert _options.edit_distance("abcd", "abdc") == 1  # a transposition is one edit
    assert _options.edit_distance("", "abc") == 3
    assert _options.close_names("xyzzy", ["batch_size", "seq_len"]) == []


# ---------------------------------------------------------------- messages

_JARGON = re.compile(r"_set_|_get_|\ba integer\b|\benum\b|\bNULL\b|vramest_|\bint64_t\b")


def _wrong_values(opt):
    """Values of the wrong type for an option, and values just out of bounds."""
    wrong = {vramest.TYPE_I64: ["4", 1.5, True, None, [1]],
             vramest.TYPE_F64: ["x", True, None, [1.0]],
             vramest.TYPE_BOOL: ["yes", 2, 0.5, None],
             vramest.TYPE_ENUM: [3, True, 1.5, None, "no-such-name"],
             vramest.TYPE_STRING: [5, True, None, [1, 2]]}[opt.type]
    if opt.type in (vramest.TYPE_I64, vramest.TYPE_F64):
        wrong += [int(opt.max) + 1 if opt.type == vramest.TYPE_I64 else opt.max * 2 + 1,
                  int(opt.min) - 1 if opt.type == vramest.TYPE_I64 else opt.min - 1]
    return wrong


def test_no_message_speaks_c():
    """Every option of every handle, given wrong types and out-of-range
    values: each refusal names the option and the value in plain English."""
    handles = {vramest.HANDLE_MODEL: vramest.Model, vramest.HANDLE_PRECISION: vramest.Precision,
               vramest.HANDLE_CONFIG: vramest.Config}
    checked = 0
    for opt in vramest.options():
        h = handles[opt.handle]()
        for value in _wrong_values(opt):
            try:
                h.set(opt.name, value)
                continue  # accepted (e.g. 2 for a bound that allows it)
            except vramest.Error as e:
                msg = str(e)
            assert not _JARGON.search(msg), msg
            assert opt.name in msg, msg
            checked += 1
    assert checked > 400
    for bad in ({"workload": {"batch_size": "4"}}, {"workload": {"mode": 3}}, {"device": 5},
                {"precision": {"weights": 3}}, {"workload": {"lora_targets": 3}}):
        with pytest.raises(vramest.Error) as e:
            vramest.estimate(dict(bad, model="gpt2"))
        assert not _JARGON.search(str(e.value)), str(e.value)


def test_errors_are_builtin_exceptions_too(tmp_path):
    with pytest.raises(ValueError):
        vramest.Config(batch_size=0)
    with pytest.raises(TypeError):
        vramest.Config(batch_size="4")
    with pytest.raises(OSError):
        vramest.Model.from_file(tmp_path / "missing.json")
    with pytest.raises(ValueError):
        vramest.Model("no-such-model")
