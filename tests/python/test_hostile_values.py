"""Values ctypes would silently change (issue 19, item 4): integers beyond 64
bits are refused with their real value, never wrapped; text with a NUL is
refused, never cut; at every setter, getter, path and spec entry point."""
import math
import pathlib

import pytest

import vramest

HANDLES = {vramest.HANDLE_MODEL: vramest.Model, vramest.HANDLE_PRECISION: vramest.Precision,
           vramest.HANDLE_CONFIG: vramest.Config}
HUGE = [2 ** 64 + 1, 2 ** 64 + 5, 2 ** 70, 2 ** 63, -2 ** 63 - 1, -2 ** 64 + 1]


def _of_type(*types):
    return [o for o in vramest.options() if o.type in types]


@pytest.mark.parametrize("value", HUGE)
def test_every_integer_option_refuses_values_beyond_64_bits(value):
    for opt in _of_type(vramest.TYPE_I64):
        h = HANDLES[opt.handle]()
        with pytest.raises(vramest.OutOfRange) as e:
            h.set(opt.name, value)
        assert isinstance(e.value, ValueError)
        assert str(value) in str(e.value) and opt.name in str(e.value)


def test_the_reported_cases():
    with pytest.raises(ValueError, match="18446744073709551617 does not fit"):
        vramest.Config(batch_size=2 ** 64 + 1)
    with pytest.raises(ValueError, match="18446744073709551621 does not fit"):
        vramest.Model(hidden_size=2 ** 64 + 5)
    with pytest.raises(ValueError) as e:
        vramest.Config(batch_size=2 ** 70)
    assert str(2 ** 70) in str(e.value) and "0 is out of range" not in str(e.value)
    # At the edge: int64's own bounds reach C and get the option's bounds.
    with pytest.raises(vramest.OutOfRange, match=r"9223372036854775807 is out of range \[1, 1000000000\]"):
        vramest.Config(batch_size=2 ** 63 - 1)


def test_floats_and_bools_refuse_what_would_be_mangled():
    for opt in _of_type(vramest.TYPE_F64):
        h = HANDLES[opt.handle]()
        for value in (2 ** 1100, math.nan, math.inf, -math.inf):
            with pytest.raises(vramest.OutOfRange) as e:
                h.set(opt.name, value)
            assert opt.name in str(e.value)
    for opt in _of_type(vramest.TYPE_BOOL):
        h = HANDLES[opt.handle]()
        for value in (2 ** 64, 2 ** 64 + 1, 2, -1):
            with pytest.raises(vramest.WrongType):
                h.set(opt.name, value)
    cfg = vramest.Config(mode="train")
    with pytest.raises(vramest.WrongType):  # True is not the enum value 1 (train)
        cfg.set("mode", True)


@pytest.mark.parametrize("value", HUGE)
def test_spec_dicts_and_keywords_refuse_values_beyond_64_bits(value):
    for call in (lambda: vramest.estimate({"model": "gpt2", "workload": {"batch_size": value}}),
                 lambda: vramest.estimate({"model": "gpt2", "workload": {"batch_size": value}}, cache=None),
                 lambda: vramest.run({"model": "gpt2", "workload": {"batch_size": value}}),
                 lambda: vramest.estimate("gpt2", batch_size=value),
                 lambda: vramest.run("gpt2", batch_size=value),
                 lambda: vramest.run("gpt2", workload={"batch_size": value}),
                 lambda: vramest.check_fit("gpt2", device="T4", seq_len=value),
                 lambda: vramest.parse_spec({"model": "gpt2", "parallel": {"gpus": value}}),
                 lambda: vramest.estimate({"model": {"arch": {"model_type": "llama", "hidden_size": value}}}),
                 lambda: vramest.solve_min_gpus("gpt2", max_gpus=value, device="T4"),
                 lambda: vramest.solve_max("gpt2", key="batch_size", device="T4", mode="train",
                                           seq_len=value)):
        with pytest.raises(ValueError) as e:
            call()
        assert str(value) in str(e.value)
    with pytest.raises(ValueError, match=r"spec: workload.seq_len: nan is not a finite number"):
        vramest.estimate({"model": "gpt2", "workload": {"seq_len": math.nan}})


NUL = ["H100-80GB\x00junk", "\x00", "llama\x00evil"]


@pytest.mark.parametrize("text", NUL)
def test_every_text_option_refuses_nul(text):
    for opt in _of_type(vramest.TYPE_STRING, vramest.TYPE_ENUM):
        h = HANDLES[opt.handle]()
        with pytest.raises(vramest.InvalidArgument) as e:
            h.set(opt.name, text)
        assert isinstance(e.value, ValueError) and "NUL" in str(e.value) and opt.name in str(e.value)
    cfg = vramest.Config()
    with pytest.raises(ValueError):
        cfg.set("lora_targets", ["q_proj", text])


def test_names_paths_and_specs_refuse_nul(tmp_path):
    (tmp_path / "config.json").write_text('{"model_type": "gpt2", "n_embd": 64, "n_layer": 1, "n_head": 2, '
                                          '"vocab_size": 100, "n_positions": 64}')
    ok = str(tmp_path / "config.json")
    assert vramest.Model.from_file(ok).num_parameters > 0
    for path in (ok + "\x00.json", "/etc/passwd\x00.json", pathlib.Path("/etc/passwd\x00.json"),
                 (ok + "\x00").encode()):
        with pytest.raises(vramest.InvalidArgument, match="NUL"):
            vramest.Model.from_file(path)
    calls = [lambda: vramest.Model("llama-2-7b\x00x"),
             lambda: vramest.Precision("bf16\x00x"),
             lambda: vramest.Config().get("batch_size\x00x"),
             lambda: vramest.Config().reset("batch_size\x00"),
             lambda: vramest.Config().set("batch_size\x00", 1),
             lambda: vramest.option("batch_size\x00x"),
             lambda: vramest.estimate({"model": "llama-2-7b\x00evil"}),
             lambda: vramest.estimate({"model": {"hf_config_file": ok + "\x00.json"}}),
             lambda: vramest.estimate({"model": {"arch": {"model_type": "llama\x00evil"}}}),
             lambda: vramest.estimate({"model": "gpt2", "workload": {"mode\x00x": "train"}}),
             lambda: vramest.estimate('{"model": "gpt2"}\x00'),
             lambda: vramest.estimate("gpt2", device="T4\x00x"),
             lambda: vramest.run("gpt2", device="T4\x00x"),
             lambda: vramest.run("gpt2\x00x"),
             lambda: vramest.parse_spec('{"model": "gpt2\x00"}'),
             lambda: vramest.solve_max("gpt2", key="batch_size\x00", device="T4"),
             lambda: vramest.Model.from_hf_config({"model_type": "llama\x00evil", "hidden_size": 64})]
    for call in calls:
        with pytest.raises(ValueError, match="NUL"):
            call()


def test_a_closed_handle_is_never_read_as_the_defaults():
    """NULL precision/config means "the defaults" to vramest_estimate: a
    closed handle must be an error, not a silent default."""
    prec, cfg = vramest.Precision("nf4"), vramest.Config(mode="train", device="T4")
    prec.close()
    cfg.close()
    for call in (lambda: vramest.run("gpt2", prec), lambda: vramest.run("gpt2", None, cfg),
                 lambda: vramest.check_fit("gpt2", None, cfg), lambda: cfg.get("mode"),
                 lambda: cfg.set("mode", "load"), lambda: cfg.clone()):
        with pytest.raises(vramest.InvalidArgument, match="was closed"):
            call()
    m = vramest.Model("gpt2")
    m.close()
    with pytest.raises(vramest.InvalidArgument, match="was closed"):
        vramest.run(m)


def test_getters_return_exact_values():
    cfg = vramest.Config(max_live_parameters=10 ** 13, reduce_bucket_size=2 ** 39)
    assert cfg.get("max_live_parameters") == 10 ** 13 and cfg.get("reduce_bucket_size") == 2 ** 39
    assert type(vramest.Config().get("kv_cache")) is bool
    assert vramest.Config(memory_gib=79.5).get("memory_gib") == 79.5


def test_from_file_external_links_flag(tmp_path):
    """allow_external_links reaches vramest_model_parse_path where the library
    has it, and is refused (not ignored) where it does not."""
    (tmp_path / "config.json").write_text('{"model_type": "gpt2", "n_embd": 64, "n_layer": 1, "n_head": 2, '
                                          '"vocab_size": 100, "n_positions": 64}')
    plain = vramest.Model.from_file(tmp_path).num_parameters
    if vramest._L.vramest_model_parse_path is None:
        with pytest.raises(vramest.Unsupported, match="vramest_model_parse_path"):
            vramest.Model.from_file(tmp_path, allow_external_links=True)
    else:
        assert vramest.Model.from_file(tmp_path, allow_external_links=True).num_parameters == plain
    with pytest.raises(vramest.InvalidArgument, match="NUL"):
        vramest.Model.from_file(str(tmp_path) + "\x00x", allow_external_links=True)


def test_result_indexes_are_checked_not_wrapped():
    r = vramest.run("gpt2")
    assert r[0] == r["weights"] and r.bytes(0, device=0) == r["weights"]
    for bad in (2 ** 32, 2 ** 64, -1, len(vramest.CATEGORIES)):
        with pytest.raises(vramest.UnknownCategory, match="index"):
            r.bytes(bad)
    with pytest.raises(vramest.UnknownCategory, match="did you mean 'kv_cache'"):
        r.bytes("kv_cach")
    with pytest.raises(vramest.UnknownCategory):
        r.band("weights", device=2 ** 32)
    with pytest.raises(vramest.UnknownCategory):
        r.value(2 ** 32)


def test_parse_source_is_checked():
    m = vramest.Model()
    for bad in ("gguff", 2 ** 32 + 4, -1, True):
        with pytest.raises(vramest.InvalidArgument, match="unknown source"):
            m.parse(b"{}", source=bad)
    with pytest.raises(vramest.NeedMoreData):
        m.parse(b"\x10\x00\x00", source=2)  # safetensors, by its number


def test_copies_never_share_a_pointer():
    """copy.copy would duplicate the C pointer (freed twice): handles copy as
    clones, results (immutable) as themselves, and pickling is refused."""
    import copy
    import gc
    import pickle
    cfg = vramest.Config(batch_size=4)
    for dup in (copy.copy(cfg), copy.deepcopy(cfg)):
        assert dup._ptr is not None and ctypes_address(dup) != ctypes_address(cfg)
        dup.set("batch_size", 8)
        assert cfg.get("batch_size") == 4
    model = vramest.Model("gpt2")
    assert copy.deepcopy(model).num_parameters == model.num_parameters
    r = vramest.run("gpt2")
    assert copy.copy(r) is r and copy.deepcopy(r) is r
    for obj in (cfg, model, r):
        with pytest.raises(TypeError, match="cannot be pickled"):
            pickle.dumps(obj)
    del cfg, model, r
    gc.collect()


def ctypes_address(handle):
    import ctypes
    return ctypes.addressof(handle._ptr.contents)
