#!/usr/bin/env python3
"""What a Python call costs, path by path, measured side by side in one run.

    PYTHONPATH=bindings/python VRAMEST_LIBRARY=build/lib/libvramest.so \\
        python3 bindings/python/bench.py [--baseline DIR] [--seconds S]

DIR is another copy of the binding (the directory holding its ``vramest``
package, e.g. one exported with ``git archive``), imported beside this one
and timed on the same rows, against the same library, taking turns with
this one. Each figure is the best of 5 timed loops, in microseconds per
call; the machine's load is printed, since the figures move with it. Standard library only.
"""
import argparse
import importlib.util
import json
import os
import sys
import time
import timeit

import vramest

SPEC = {"model": "llama-3.1-8b", "precision": "bf16",
        "workload": {"mode": "train", "batch_size": 4, "seq_len": 2048}, "device": "H100-80GB"}
KEYWORDS = dict(mode="train", batch_size=4, seq_len=2048, device="H100-80GB")


TIMER = timeit.default_timer


def loops(fn, seconds):
    """How many calls make one timed loop last about seconds/25."""
    number = 1
    while timeit.timeit(fn, number=number, timer=TIMER) < seconds / 25 and number < 1 << 22:
        number *= 4
    return number


def best_us(fns, seconds):
    """Best of 5 timed loops of each function, in microseconds per call. The
    functions take turns (ABAB...), so a change in the machine's load
    weighs on each alike."""
    numbers = [loops(fn, seconds) for fn in fns]
    best = [float("inf")] * len(fns)
    for _ in range(5):
        for i, (fn, number) in enumerate(zip(fns, numbers)):
            best[i] = min(best[i], timeit.timeit(fn, number=number, timer=TIMER) / number * 1e6)
    return best


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


def rows(v):
    """(name, function) for each path this copy of the binding has."""
    out = [("estimate(dict), default", lambda: v.estimate(SPEC))]
    if hasattr(v, "Cache"):
        fresh = v.Cache(specs=0)
        nxt = varying()
        out += [
            ("estimate(dict), cache=None (model parsed each call)", lambda: v.estimate(SPEC, cache=None)),
            ("estimate(dict), model cached, new workload each call", lambda: v.estimate(nxt(), cache=fresh)),
            ("estimate(name, **keywords)", lambda: v.estimate("llama-3.1-8b", precision="bf16", **KEYWORDS)),
            ("run(dict) -> Result, repeated spec", lambda: v.run(SPEC)),
            ("run(dict) -> Result, model cached, new workload each call", lambda: v.run(nxt(), cache=fresh)),
            ("run(dict) -> Result, cache=None", lambda: v.run(SPEC, cache=None)),
            ("run(name, **keywords) -> Result", lambda: v.run("llama-3.1-8b", "bf16", **KEYWORDS)),
        ]
    m, p, c = v.parse_spec(SPEC)
    out += [
        ("run(handles) -> Result", lambda: v.run(m, p, c)),
        ("run(handles).device_total", lambda: v.run(m, p, c).device_total),
        ("Config(**4 options)", lambda: v.Config(**KEYWORDS)),
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
    named = [
        ("C vramest_spec_plan (parse + estimate + JSON)",
         lambda: lib.vramest_spec_plan(text, len(text), buf, len(buf), ctypes.byref(need))),
        ("C vramest_result_json (%d bytes)" % len(plan),
         lambda: lib.vramest_result_json(result._ptr, buf, len(buf), ctypes.byref(need))),
        ("Python json.loads of that plan", lambda: json.loads(plan)),
        ("Python json.dumps of the spec", lambda: json.dumps(SPEC)),
    ]
    return [(name, best_us([fn], seconds)[0]) for name, fn in named]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", help="directory holding another copy of the vramest package")
    ap.add_argument("--seconds", type=float, default=1.0, help="time per row (default 1)")
    ap.add_argument("--timer", choices=("wall", "cpu"), default="wall",
                    help="wall clock (default), or this process's CPU time: steadier on a shared, loaded machine")
    args = ap.parse_args()
    global TIMER
    TIMER = time.process_time if args.timer == "cpu" else timeit.default_timer
    base = import_copy(args.baseline) if args.baseline else None
    print("libvramest %s at %s; python %s; %d CPUs; load average %.2f %.2f %.2f; %s time"
          % ((vramest.version(), vramest.LIBRARY_PATH, sys.version.split()[0], os.cpu_count())
             + os.getloadavg() + (args.timer,)))
    old = dict(rows(base)) if base else {}
    width = max(len(name) for name, _ in rows(vramest)) + 2
    print("%-*s %10s %10s" % (width, "path (us per call, best of 5)", "this", "baseline" if base else ""))
    for name, fn in rows(vramest):
        if name in old:
            us, base_us = best_us([fn, old[name]], args.seconds)
            print("%-*s %10.2f %10.2f" % (width, name, us, base_us))
        else:
            print("%-*s %10.2f" % (width, name, best_us([fn], args.seconds)[0]))
    print("\nwhere estimate(dict) goes:")
    for name, us in components(args.seconds):
        print("%-*s %10.2f" % (width, name, us))


if __name__ == "__main__":
    main()
