"""The Python examples (bindings/python/examples) run as a user would run
them: as subprocesses, with a small job spec or JSON Lines on stdin. Where
meson passes the C twins (VRAMEST_LAUNCHER, VRAMEST_SCHEDULER), the output
must be the same line for line."""
import json
import os
import subprocess
import sys

import pytest

import vramest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
EXAMPLES = os.path.join(ROOT, "bindings", "python", "examples")
GIB = 1024.0 ** 3


def env():
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join([os.path.join(ROOT, "bindings", "python")] +
                                      ([e["PYTHONPATH"]] if e.get("PYTHONPATH") else []))
    return e


def run(script, args=(), stdin=None):
    return subprocess.run([sys.executable, os.path.join(EXAMPLES, script)] + list(args), input=stdin,
                          capture_output=True, text=True, env=env(), timeout=120)


JOB = {"model": "llama-2-7b", "precision": "bf16",
       "workload": {"mode": "train", "batch_size": 64, "seq_len": 1024, "gradient_checkpointing": "full"},
       "device": "A100-80GB"}


@pytest.fixture
def job_file(tmp_path):
    def write(spec):
        path = tmp_path / "job.json"
        path.write_text(json.dumps(spec))
        return str(path)
    return write


# ---------------------------------------------------------------- launcher


def test_launcher_picks_the_solver_answer_and_runs_the_command(job_file):
    best, _ = vramest.solve_max(*vramest.parse_spec(JOB), key="batch_size")
    assert 1 <= best < 64
    probe = "import os, sys; print('child', os.environ['MICRO_BATCH_SIZE'], sys.argv[1])"
    out = run("launcher.py", ["--spec", job_file(JOB), "--", sys.executable, "-c", probe, "{}"])
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("micro-batch %d: the largest that fits is %d" % (best, best))
    assert "does not fit, using the largest" in lines[0]
    assert lines[1] == "child %d %d" % (best, best)


def test_launcher_keeps_a_batch_that_fits_and_passes_the_exit_status(job_file):
    spec = dict(JOB, workload=dict(JOB["workload"], batch_size=2))
    out = run("launcher.py", ["--spec", job_file(spec), "--", sys.executable, "-c", "raise SystemExit(7)"])
    assert out.returncode == 7, out.stderr
    assert out.stdout.startswith("micro-batch 2: ")
    # From stdin, without a command.
    out = run("launcher.py", ["--spec", "-"], stdin=json.dumps(spec))
    assert out.returncode == 0 and out.stdout.startswith("micro-batch 2: ")


def test_launcher_refusals(job_file):
    out = run("launcher.py", ["--spec", job_file({"model": "llama-3.1-70b", "workload": {"mode": "train"},
                                                  "device": "A100-40GB"})])
    assert out.returncode == 1
    assert "does not fit even at batch_size 1" in out.stderr
    out = run("launcher.py", ["--spec", job_file({"model": "llama-2-7b", "workload": {"batchsize": 2}})])
    assert out.returncode == 2 and "batch_size" in out.stderr  # the library's "did you mean"
    out = run("launcher.py", ["--spec", job_file({"model": "llama-2-7b"})])
    assert out.returncode == 2 and "device" in out.stderr
    assert run("launcher.py", []).returncode == 2
    assert run("launcher.py", ["--spec", "/nonexistent.json"]).returncode == 2


def test_launcher_matches_the_c_launcher(job_file):
    c = os.environ.get("VRAMEST_LAUNCHER")
    if not c:
        pytest.skip("VRAMEST_LAUNCHER not set (meson sets it)")
    path = job_file(JOB)
    py = run("launcher.py", ["--spec", path])
    cc = subprocess.run([c, "--spec", path], capture_output=True, text=True, timeout=60)
    assert (py.returncode, py.stdout) == (cc.returncode, cc.stdout)


# ---------------------------------------------------------------- scheduler

ARCH = {"model_type": "llama", "hidden_size": 512, "num_hidden_layers": 4, "num_attention_heads": 8,
        "intermediate_size": 1024, "vocab_size": 1000}
JOBS = [
    {"id": "a", "spec": {"model": "llama-2-7b", "precision": "bf16", "workload": {"mode": "infer"},
                         "device": "A100-80GB"}},
    {"model": "llama-2-7b", "precision": "fp32", "workload": {"mode": "train"}, "device": "A100-40GB"},
    "# a comment line",
    {"id": "c", "spec": {"model": "llama-2-7b", "precision": "nf4", "device": "RTX4090-24GB"}},
    {"id": "d", "spec": {"model": "gpt2", "workload": {"batch_size": 0}, "device": "A100-80GB"}},
    {"id": "e", "spec": {"model": "no-such-model", "device": "A100-80GB"}},
    {"id": "e2", "spec": {"model": "no-such-model", "device": "A100-80GB"}},
    {"id": "f", "spec": {"model": "gpt2"}},
    "not json",
    {"id": "h", "spec": {"precision": "bf16"}},
    {"id": "i", "spec": {"model": {"arch": ARCH}, "device": {"memory_gib": 1}}},
    {"id": "j", "spec": {"model": "gpt2", "workload": {"mode": "train", "batch_size": 8}, "device": "V100-16GB"}},
    # An unknown key, an unknown top-level member, a job far too big, one the engine refuses.
    {"id": "k", "spec": {"model": "gpt2", "workload": {"batchsize": 2}, "device": "T4"}},
    {"id": "u", "spec": {"model": "gpt2", "device": "T4", "color": "red"}},
    {"id": "big", "spec": {"model": "llama-3.1-405b", "workload": {"mode": "train"}, "device": "T4"}},
    {"id": "r", "spec": {"model": "llama-2-7b", "precision": {"preset": "bf16", "kv_cache": "fp8"},
                         "workload": {"mode": "infer"}, "device": "A100-80GB"}},
]
# Lines a lenient reader would take or read differently (json-c saturated
# 18446744073709551617 and took a trailing comma), and lines both schedulers
# must refuse alike: bytes, as a file would hold them.
STRICT_LINES = [
    b'{"id": "o", "spec": {"model": "gpt2", "workload": {"batch_size": 18446744073709551617}, "device": "T4"}}',
    b'{"id": "t", "spec": {"model": "gpt2", "device": "T4",}}',
    b'{"id": "dup", "spec": {"model": "gpt2", "device": "T4", "device": "A100-80GB"}}',
    b'{"id": "a", "id": "b", "spec": {"model": "gpt2", "device": "T4"}}',
    b'{"id": 17, "spec": {"model": "gpt2", "device": "T4"}}',
    b'{"id": "caf\\u00e9 \\ud83d\\ude00", "spec": {"model": "gpt2", "device": "T4"}}',
    b'{"id": "lone \\ud800", "spec": {"model": "gpt2", "device": "T4"}}',
    b'{"id": "bad \xc3", "spec": {"model": "gpt2", "device": "T4"}}',
    b'\xef\xbb\xbf{"model": "gpt2", "device": "T4"}',
    b'{"model": "gpt2", "device": "T4"} // comment',
    b'{"model": "gpt2", "workload": {"batch_size": NaN}, "device": "T4"}',
    b'{"model": "gpt2", "workload": {"batch_size": 1e20}, "device": "T4"}',
    b'{"model": "gpt2", "workload": {"batch_size": 01}, "device": "T4"}',
    b'{"model": "gp\\u0000t2", "device": "T4"}',
    b'{"model": "gpt2", "device": "T4", "x": ' + b'[' * 64 + b']' * 64 + b'}',
    b'{"model": "gpt2", "device": "T4", "x": ' + b'[' * 5000 + b']' * 5000 + b'}',
    b'{"sp\\u0065c": {"model": "gpt2", "device": "T4"}, "\\u0069d": "escaped keys"}',
    b'  \t ',
    b'[1, 2]',
]


def jsonl(jobs):
    return "".join((j if isinstance(j, str) else json.dumps(j)) + "\n" for j in jobs)


def test_scheduler_verdicts():
    out = run("scheduler.py", stdin=jsonl(JOBS))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 15
    verdict = {line.split()[1]: line for line in lines}
    assert verdict["a"].startswith("accept a fits: needs ")
    # A rejection says why and what to do: the dominant categories and the fix.
    assert verdict["line-2"].startswith("reject line-2 does_not_fit: needs ")
    assert "optimizer_states" in verdict["line-2"] and " brings it to " in verdict["line-2"]
    assert verdict["c"].startswith("accept c ")
    assert "out of range" in verdict["d"] and "batch_size" in verdict["d"]
    assert verdict["e"].startswith("reject e error: model: ") and "no-such-model" in verdict["e"]
    assert verdict["e2"].endswith(verdict["e"][len("reject e "):])  # the cached error
    assert "no device" in verdict["f"]
    assert verdict["line-8"] == "reject line-8 error: malformed JSON line"
    assert verdict["h"] == 'reject h error: the job spec has no "model"'
    assert verdict["i"].startswith("accept i ") and "of 1.00 GiB" in verdict["i"]
    assert verdict["j"].startswith("reject j ")
    assert 'unknown key "batchsize" in "workload" (did you mean "batch_size"?)' in verdict["k"]
    assert verdict["k"].startswith("reject k error: ")
    assert 'unknown key "color"' in verdict["u"]
    assert verdict["big"].startswith("reject big does_not_fit: needs ")
    assert verdict["r"].startswith("reject r error: unsupported: ") and "kv_cache" in verdict["r"]
    # The figures and the sentence are the library's.
    plan = vramest.estimate(JOBS[0]["spec"])
    assert "needs %.2f GiB" % (plan["gpu"]["device_total"] / GIB) in verdict["a"]
    plan = vramest.estimate(JOBS[1])
    assert verdict["line-2"].endswith(plan["why"]["text"])


def test_scheduler_json_and_strict():
    out = run("scheduler.py", ["--json"], stdin=jsonl(JOBS))
    assert out.returncode == 0, out.stderr
    rows = {r["id"]: r for r in map(json.loads, out.stdout.splitlines())}
    assert rows["a"]["decision"] == "accept" and rows["a"]["verdict"] == "fits"
    assert rows["line-2"]["verdict"] == "does_not_fit" and rows["line-2"]["fix"]["text"]
    assert rows["line-8"]["error"] == "malformed JSON line" and rows["line-8"]["verdict"] is None
    low = {"id": "low", "spec": {"model": "llama-2-7b", "precision": "bf16", "device": "A100-80GB",
                                 "workload": {"mode": "train", "batch_size": 2, "seq_len": 1024}}}
    assert vramest.estimate(low["spec"])["verdict"] == "fits_low_end"
    assert run("scheduler.py", stdin=jsonl([low])).stdout.startswith("accept low fits_low_end: ")
    assert run("scheduler.py", ["--strict"], stdin=jsonl([low])).stdout.startswith("reject low fits_low_end: ")


def test_scheduler_parses_each_model_once():
    jobs = [{"id": str(i), "spec": {"model": "llama-2-7b" if i % 2 else {"arch": ARCH},
                                    "workload": {"mode": "infer", "batch_size": 1 + i},
                                    "device": "A100-80GB"}} for i in range(40)]
    out = run("scheduler.py", stdin=jsonl(jobs))
    assert out.returncode == 0, out.stderr
    assert len(out.stdout.splitlines()) == 40
    assert all(line.startswith("accept ") for line in out.stdout.splitlines())
    assert "40 jobs, 2 models parsed" in out.stderr


def test_scheduler_matches_the_c_scheduler():
    c = os.environ.get("VRAMEST_SCHEDULER")
    if not c:
        pytest.skip("VRAMEST_SCHEDULER not set (meson sets it)")
    text = jsonl(JOBS)
    for flags in ([], ["--json"], ["--strict"]):
        py = run("scheduler.py", flags, stdin=text)
        cc = subprocess.run([c] + flags, input=text, capture_output=True, text=True, timeout=60)
        assert (py.returncode, py.stdout) == (cc.returncode, cc.stdout), flags


def test_scheduler_matches_the_c_scheduler_on_strict_lines():
    c = os.environ.get("VRAMEST_SCHEDULER")
    if not c:
        pytest.skip("VRAMEST_SCHEDULER not set (meson sets it)")
    data = b"".join(line + b"\n" for line in STRICT_LINES)
    py = subprocess.run([sys.executable, os.path.join(EXAMPLES, "scheduler.py")], input=data, capture_output=True,
                        env=env(), timeout=120)
    lines = py.stdout.decode("utf-8").splitlines()
    assert py.returncode == 0, py.stderr
    assert lines[:4] == [
        "reject o error: value out of range: spec: workload.batch_size: 18446744073709551617 is beyond 64-bit integers",
        "reject line-2 error: malformed JSON line",
        'reject dup error: parse error: spec: duplicate key "device" (first at byte 18) at byte 34 (line 1, column 35)',
        "reject line-4 error: malformed JSON line"]
    assert lines[4].startswith("accept 17 fits: ")
    assert lines[5].startswith("accept caf\u00e9 \U0001f600 fits: ")
    assert [l.split()[1] for l in lines if l.endswith(" error: malformed JSON line")] == [
        "line-2", "line-4", "line-7", "line-8", "line-9", "line-10", "line-13", "line-15", "line-16", "line-18"]
    assert "expected an integer, got NaN" in lines[10] and "1e20 is not an exact integer" in lines[11]
    assert lines[13].startswith("reject line-14 error: model: ") and "\\u0000" in lines[13]
    assert lines[16].startswith("accept escaped keys fits: ")
    assert len(lines) == 18  # the blank line is skipped
    for flags in ([], ["--json"]):
        py = subprocess.run([sys.executable, os.path.join(EXAMPLES, "scheduler.py")] + flags, input=data,
                            capture_output=True, env=env(), timeout=120)
        cc = subprocess.run([c] + flags, input=data, capture_output=True, timeout=60)
        assert (py.returncode, py.stdout) == (cc.returncode, cc.stdout), flags

def test_parse_spec_without_the_model():
    model, precision, config = vramest.parse_spec({"model": "llama-2-7b", "workload": {"batch_size": 3}},
                                                  model=False)
    assert model is None and config.get("batch_size") == 3
    with pytest.raises(vramest.IncompleteModel):
        vramest.parse_spec({"workload": {}}, model=False)  # "model" must still be there
