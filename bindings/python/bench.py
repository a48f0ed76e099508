#!/usr/bin/env python3
"""What a Python call costs, path by path, measured side by side in one run.

    PYTHONPATH=bindings/python VRAMEST_LIBRARY=build/lib/libvramest.so \\
        python3 bindings/python/bench.py [--baseline DIR] [--seconds S]

DIR is another copy of the binding (the directory holding its ``vramest``
package, e.g. one exported with ``git archive``), imported beside this one
and timed on the same rows, against the same library. Each row is the best
of 5 repeats of a timed loop, in microseconds per call; the machine's load
is printed, since the figures move with it. Standard library only.
"""
import argparse
import importlib.util
import json
import os
import sys
import timeit

import vramest

SPEC = {"model": "llama-3.1-8b", "precision": "bf16",
        "workload": {"mode": "train", "batch_size": 4, "seq_len": 2048}, "device": "H100-80GB"}
KEYWORDS = dict(mode="train", batch_size=4, seq_len=2048, device="H100-80GB")


def best_us(fn, seconds):
    """Best of 5 repeats, each looping long enough to last ~seconds/5."""
    number = 1
    while True:
        elapsed = timeit.timeit(fn, number=number)
        if elapsed >= seconds / 25 or number >= 1 << 22:
            break
        number *= 4
    runs = timeit.repeat(fn, number=number, repeat=5)
    return min(runs) / number * 1e6


def import_copy(parent):
    """The vramest package under `parent`, imported as 'vramest_baseline'."""
    init = os.path.join(parent, "vramest", "__init__.py")
    spec = importlib.util.spec_from_file_location("vramest_baseline", init,
                                                  submodule_search_locations=[os.path.dirname(init)])
    module = importlib.util.module_from_spec(spec)
    sys.modules["vramest_baseline"] = module
    spec.loader.exec_module(module)
    return module


def varying(n=64):
    """Specs on one model whose workload changes every call."""
    specs = [dict(SPEC, workload=dict(SPEC["workload"], batch_size=b)) for b in range(1, n + 1)]
    state = {"i": 0}

    def next_spec():
        state["i"] = (state["i"] + 1) % n
        return specs[state["i"]]
    return next_spec


def rows(v, seconds):
    """(name, microseconds) for each path this copy of the binding has."""
    new = hasattr(v, "Cache")
    out = [("estimate(dict), default", best_us(lambda: v.estimate(SPEC), seconds))]
    if new:
        fresh = v.Cache(specs=0)
        nxt = varying()
        out += [
            ("estimate(dict), cache=None (model parsed each call)",
             best_us(lambda: v.estimate(SPEC, cache=None), seconds)),
            ("estimate(dict), model cached, new workload each call",
             best_us(lambda: v.estimate(nxt(), cache=fresh), seconds)),
            ("estimate(name, **keywords)", best_us(lambda: v.estimate("llama-3.1-8b", precision="bf16",
                                                                      **KEYWORDS), seconds)),
            ("run(dict) -> Result, repeated spec", best_us(lambda: v.run(SPEC), seconds)),
            ("run(dict) -> Result, model cached, new workload each call",
             best_us(lambda: v.run(nxt(), cache=fresh), seconds)),
            ("run(dict) -> Result, cache=None", best_us(lambda: v.run(SPEC, cache=None), seconds)),
            ("run(name, **keywords) -> Result", best_us(lambda: v.run("llama-3.1-8b", "bf16", **KEYWORDS),
                                                        seconds)),
        ]
    m, p, c = v.parse_spec(SPEC)
    out += [
        ("run(handles) -> Result", best_us(lambda: v.run(m, p, c), seconds)),
        ("run(handles).device_total", best_us(lambda: v.run(m, p, c).device_total, seconds)),
        ("Config(**4 options)", best_us(lambda: v.Config(**KEYWORDS), seconds)),
    ]
    return out


def components(seconds):
    """Where estimate(dict)'s time goes: the plan's JSON written in C and read by Python."""
    import ctypes
    lib = vramest._L
    text = json.dumps(SPEC).encode()
    buf = ctypes.create_string_buffer(1 << 16)
    need = ctypes.c_size_t()
    result = vramest.run(SPEC)
    plan = json.dumps(result.json()).encode()
    return [
        ("C vramest_spec_plan (parse + estimate + JSON)",
         best_us(lambda: lib.vramest_spec_plan(text, len(text), buf, len(buf), ctypes.byref(need)), seconds)),
        ("C vramest_result_json (%d bytes)" % len(plan),
         best_us(lambda: lib.vramest_result_json(result._ptr, buf, len(buf), ctypes.byref(need)), seconds)),
        ("Python json.loads of that plan", best_us(lambda: json.loads(plan), seconds)),
        ("Python json.dumps of the spec", best_us(lambda: json.dumps(SPEC), seconds)),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", help="directory holding another copy of the vramest package")
    ap.add_argument("--seconds", type=float, default=1.0, help="time per row (default 1)")
    args = ap.parse_args()
    base = import_copy(args.baseline) if args.baseline else None
    print("libvramest %s at %s; python %s; %d CPUs; load average %.2f %.2f %.2f"
          % ((vramest.version(), vramest.LIBRARY_PATH, sys.version.split()[0], os.cpu_count())
             + os.getloadavg()))
    this = rows(vramest, args.seconds)
    old = dict(rows(base, args.seconds)) if base else {}
    width = max(len(name) for name, _ in this) + 2
    print("%-*s %10s %10s" % (width, "path (us per call, best of 5)", "this", "baseline" if base else ""))
    for name, us in this:
        print("%-*s %10.2f %10s" % (width, name, us, "%.2f" % old[name] if name in old else ""))
    print("\nwhere estimate(dict) goes:")
    for name, us in components(args.seconds):
        print("%-*s %10.2f" % (width, name, us))


if __name__ == "__main__":
    main()
