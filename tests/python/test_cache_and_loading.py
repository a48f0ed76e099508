"""Reusing parsed models and specs (vramest.Cache), and finding the library
(VRAMEST_LIBRARY, LD_LIBRARY_PATH, pkg-config), each checked in a fresh
interpreter so that the search really runs."""
import json
import os
import shutil
import subprocess
import sys
import threading

import pytest

import vramest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

SPECS = [
    {"model": "llama-2-7b", "workload": {"mode": "load"}},
    {"model": "llama-3.1-8b", "precision": "bf16", "workload": {"mode": "train", "batch_size": 2},
     "device": "H100-80GB"},
    {"model": "mixtral-8x7b", "precision": "nf4", "workload": {"mode": "infer", "prompt_len": 512,
                                                              "gen_len": 128}, "device": "A100-80GB"},
    {"model": {"arch": {"model_type": "llama", "hidden_size": 512, "num_hidden_layers": 4,
                        "num_attention_heads": 8, "intermediate_size": 1024, "vocab_size": 1000}},
     "workload": {"mode": "train", "finetune": "lora"}, "parallel": {"gpus": 2, "zero_stage": 2}},
    {"model": "gpt2", "runtime": {"framework": "vllm"}, "workload": {"mode": "infer"}, "device": "T4"},
]


@pytest.mark.parametrize("spec", SPECS)
def test_cached_plans_equal_uncached_ones(spec):
    cache = vramest.Cache()
    first = vramest.estimate(spec, cache=cache)
    assert first == vramest.estimate(spec, cache=None)
    assert vramest.estimate(spec, cache=cache) == first  # from the cache
    assert cache.hits >= 1
    assert vramest.run(spec, cache=cache).as_array() == vramest.run(spec, cache=None).as_array()


def test_cache_is_bounded_and_skips_files(tmp_path):
    cache = vramest.Cache(models=2, specs=3)
    for preset in ("gpt2", "llama-2-7b", "llama-3.1-8b", "mixtral-8x7b"):
        for batch in (1, 2, 3, 4):
            vramest.run({"model": preset, "workload": {"batch_size": batch}}, cache=cache)
    assert len(cache) == 2 and len(cache._specs) == 3
    # A model read from a file is kept by the library's cache under the
    # file's identity and times: a file changed just now is read again.
    cfg = {"model_type": "gpt2", "n_embd": 64, "n_layer": 1, "n_head": 2, "vocab_size": 100, "n_positions": 64}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    spec = {"model": {"hf_config_file": str(path)}}
    before = vramest.estimate(spec, cache=cache)["params"]["total"]
    path.write_text(json.dumps(dict(cfg, n_layer=2)))
    assert vramest.estimate(spec, cache=cache)["params"]["total"] > before
    # A model that fails is not cached: the error comes every time.
    for _ in range(2):
        with pytest.raises(vramest.UnknownName):
            vramest.estimate({"model": "no-such-model"}, cache=cache)
    with pytest.raises(vramest.InvalidArgument):
        vramest.Cache(models=-1)
    assert "models" in repr(cache)


def _c_stats(cache):
    import ctypes
    from vramest import _lib
    from vramest._errors import _L
    hits, misses, models = ctypes.c_uint64(), ctypes.c_uint64(), ctypes.c_uint64()
    assert _L.vramest_cache_stats(cache.c_cache(), ctypes.byref(hits), ctypes.byref(misses),
                                  ctypes.byref(models)) == 0
    del _lib
    return hits.value, misses.value, models.value


def test_models_from_files_go_to_the_librarys_cache(tmp_path):
    cfg = {"model_type": "gpt2", "n_embd": 64, "n_layer": 1, "n_head": 2, "vocab_size": 100, "n_positions": 64}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    old = os.stat(path).st_mtime - 10
    os.utime(path, (old, old))  # the cache keeps no model of a file changed in the last 2 s
    cache = vramest.Cache()
    spec = {"model": {"hf_config_file": str(path)}, "workload": {"mode": "train"}}
    first = vramest.run(spec, cache=cache).as_dict()
    for _ in range(3):
        assert vramest.run(spec, cache=cache).as_dict() == first
        assert vramest.estimate(spec, cache=cache)["params"] == vramest.estimate(spec, cache=None)["params"]
    hits, misses, models = _c_stats(cache)
    assert (misses, models) == (1, 1) and hits == 6
    # Edited: never the old model.
    path.write_text(json.dumps(dict(cfg, n_layer=2)))
    assert vramest.run(spec, cache=cache).as_dict() != first
    cache.clear()
    assert _c_stats(cache)[2] == 0


def test_cache_eviction_under_threads_is_safe():
    """One slot, many threads, alternating models: entries are evicted while
    other threads still estimate with them, which must stay correct."""
    cache = vramest.Cache(models=1, specs=1)
    want = {p: vramest.run({"model": p}, cache=None).as_array() for p in ("gpt2", "llama-2-7b")}
    errors = []

    def work(i):
        for k in range(300):
            preset = ("gpt2", "llama-2-7b")[(i + k) % 2]
            if vramest.run({"model": preset}, cache=cache).as_array() != want[preset]:
                errors.append(preset)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


# ---------------------------------------------------------------- loading


def _library():
    path = os.environ.get("VRAMEST_LIBRARY") or os.path.join(ROOT, "build", "lib", "libvramest.so")
    return os.path.realpath(path)


def _import(env_changes, cwd):
    env = {k: v for k, v in os.environ.items()
           if k not in ("VRAMEST_LIBRARY", "LD_LIBRARY_PATH", "PKG_CONFIG_PATH", "PKG_CONFIG_LIBDIR")}
    env.update(env_changes)
    env["PYTHONPATH"] = os.path.join(ROOT, "bindings", "python")
    probe = "import vramest; print(vramest.LIBRARY_PATH); print(vramest.version())"
    return subprocess.run([sys.executable, "-c", probe], env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=60)


def _system_copy():
    out = _import({"PKG_CONFIG_LIBDIR": "/nonexistent"}, "/")
    return out.returncode == 0


def test_vramest_library_wins_and_a_wrong_one_is_an_error(tmp_path):
    out = _import({"VRAMEST_LIBRARY": _library()}, str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0] == _library()
    out = _import({"VRAMEST_LIBRARY": str(tmp_path / "libvramest.so.1")}, str(tmp_path))
    assert out.returncode != 0
    assert "ImportError: VRAMEST_LIBRARY=%s cannot be loaded" % (tmp_path / "libvramest.so.1") in out.stderr


def test_found_through_ld_library_path(tmp_path):
    libdir = os.path.dirname(_library())
    if not os.path.exists(os.path.join(libdir, "libvramest.so.1")):
        pytest.skip("no libvramest.so.1 next to %s" % _library())
    out = _import({"LD_LIBRARY_PATH": libdir}, str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert os.path.realpath(out.stdout.splitlines()[0]).startswith(libdir) or \
        out.stdout.splitlines()[0] == "libvramest.so.1"


def test_found_through_pkg_config(tmp_path):
    """After `meson install` to a prefix the loader does not search (no
    ldconfig run yet), pkg-config's libdir finds it."""
    if not shutil.which("pkg-config"):
        pytest.skip("pkg-config is not installed")
    if _system_copy():
        pytest.skip("a libvramest is installed on this machine: the search would stop there")
    libdir = os.path.dirname(_library())
    if not os.path.exists(os.path.join(libdir, "libvramest.so.1")):
        pytest.skip("no libvramest.so.1 next to %s" % _library())
    (tmp_path / "vramest.pc").write_text(
        "libdir=%s\nName: vramest\nDescription: test\nVersion: %s\nLibs: -L${libdir} -lvramest\n"
        % (libdir, vramest.version()))
    out = _import({"PKG_CONFIG_PATH": str(tmp_path), "PKG_CONFIG_LIBDIR": str(tmp_path)}, str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0] == os.path.join(libdir, "libvramest.so.1")


def test_not_found_says_what_to_do(tmp_path):
    if _system_copy():
        pytest.skip("a libvramest is installed on this machine")
    out = _import({"PKG_CONFIG_LIBDIR": "/nonexistent"}, str(tmp_path))
    assert out.returncode != 0
    assert "libvramest was not found" in out.stderr and "VRAMEST_LIBRARY" in out.stderr
    assert "ldconfig" in out.stderr and "LD_LIBRARY_PATH" in out.stderr
