#!/usr/bin/env python3
"""The headline bands, calibrated on measured runs (docs/methodology.md, "Bands").

A band says where the real figure of a job lands: for each kind of job
(load, infer, serve, train) the ratio measured / estimated of every published
measurement of peak_allocated, peak_reserved or device_total that the CLI can
express, and the band is [the ratio at the 5th percentile, the ratio at the
95th] times the estimate (order statistics: the k-th smallest and largest,
k = floor(0.05 n), so at least 90% of the measured runs of the kind fall
inside their band). A kind with fewer than MIN_RUNS runs takes the band of
its parent (serve -> inference).

    bands.py collect FILE.jsonl ... [-o tests/data/bands/measured.jsonl]
        keep the headline-metric cases of validation files (id, source, spec,
        metric, measured_bytes) as the fixture the other commands read
    bands.py table [--cli build/examples/vramest] [FIXTURE]
        print the ratios per kind, the rows of lib/result/bands.c and the
        table of docs/methodology.md
    bands.py check [--cli build/examples/vramest] [--min-coverage 0.8] [FIXTURE]
        (meson test `bands`) every case the CLI can run: is the measured
        figure inside the plan's band? Fails when the coverage of a kind with
        MIN_RUNS runs or more falls below --min-coverage: the estimator moved
        and the table must be regenerated (`table`).
Standard library only.
"""
import argparse
import json
import math
import os
import subprocess
import sys

HEADLINES = ("peak_allocated", "peak_reserved", "device_total")
KINDS = ("load", "infer", "serve", "train")
PARENT = {"serve": "infer"}
MIN_RUNS = 5
HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "data", "bands", "measured.jsonl")


def read(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                yield json.loads(line)


def plan_of(cli, spec):
    out = subprocess.run([cli, "--spec", "-", "--json"], input=json.dumps(spec), capture_output=True, text=True,
                         timeout=60)
    if out.returncode != 0:
        return None, (out.stderr.strip().splitlines() or ["exit %d" % out.returncode])[-1]
    return json.loads(out.stdout), None


def kind_of(plan):
    basis = plan["gpu"].get("band_basis")
    if basis:
        return basis["kind"]
    mode = plan["settings"]["workload"]["mode"]
    fw = plan["settings"]["runtime"].get("framework")
    return "serve" if mode == "infer" and fw in ("vllm", "llama.cpp") else mode


def runs(cli, fixture):
    """(case, plan, ratio) for every case the CLI can run; skipped ones on stderr."""
    for case in read(fixture):
        plan, why = plan_of(cli, case["spec"])
        if plan is None:
            print("skipped %s: %s" % (case["id"], why), file=sys.stderr)
            continue
        yield case, plan, case["measured_bytes"] / plan["gpu"][case["metric"]]


def band(ratios):
    """The k-th smallest and largest ratio, rounded outwards to the 3 decimals
    the C table keeps (rounding inwards would put the extreme runs outside)."""
    r = sorted(ratios)
    k = int(0.05 * len(r))
    return math.floor(r[k] * 1000) / 1000, math.ceil(r[len(r) - 1 - k] * 1000) / 1000


def cmd_collect(args):
    kept = 0
    with open(args.out, "w", encoding="utf-8") as out:
        for path in args.files:
            for case in read(path):
                if case.get("metric") not in HEADLINES:
                    continue
                keep = {k: case[k] for k in ("id", "source", "spec", "metric", "measured_bytes") if k in case}
                out.write(json.dumps(keep, sort_keys=True) + "\n")
                kept += 1
    print("collect: %d cases -> %s" % (kept, args.out))
    return 0


def cmd_table(args):
    by_kind = {k: [] for k in KINDS}
    for case, plan, ratio in runs(args.cli, args.fixture):
        by_kind[kind_of(plan)].append((ratio, case["id"], case["metric"]))
    rows = {}
    for kind in KINDS:
        own = [r for r, _, _ in by_kind[kind]]
        pool = own + ([r for r, _, _ in by_kind[PARENT[kind]]] if kind in PARENT else [])
        use = own if len(own) >= MIN_RUNS or kind not in PARENT else pool
        if not use:
            continue
        lo, hi = band(use)
        rows[kind] = (lo, hi, len(use), len(own))
        print("%-6s %3d runs (%d own)  band x%.3f .. x%.3f   ratios: %s" % (
            kind, len(use), len(own), lo, hi, " ".join("%.2f" % r for r in sorted(own))))
    # Out of sample: each run against the band made without it.
    for kind in KINDS:
        own = [r for r, _, _ in by_kind[kind]]
        if len(own) < MIN_RUNS:
            continue
        hits = 0
        for i, r in enumerate(own):
            lo, hi = band(own[:i] + own[i + 1:])
            hits += min(lo, 1.0) <= r <= max(hi, 1.0)
        print("%-6s leave-one-out: %d of %d runs inside the band made without them (%.0f%%)"
              % (kind, hits, len(own), 100.0 * hits / len(own)))
    print("\n/* lib/result/bands.c rows (generated by tests/bands.py table) */")
    for kind in KINDS:
        if kind in rows:
            lo, hi, n, _ = rows[kind]
            print("    [VX_BAND_%s] = {\"%s\", %.3f, %.3f, %d}," % (kind.upper(), kind, lo, hi, n))
    print("\n| kind | measured runs | band (x estimate) | ratios measured / estimated |")
    print("|---|---|---|---|")
    for kind in KINDS:
        if kind in rows:
            lo, hi, n, own = rows[kind]
            note = "" if n == own else " (with the %s runs)" % PARENT[kind]
            print("| %s | %d%s | %.3f .. %.3f | %s |" % (kind, n, note, lo, hi,
                                                       ", ".join("%.2f" % r for r, _, _ in sorted(by_kind[kind]))))
    return 0


def cmd_check(args):
    inside = {k: [0, 0] for k in KINDS}
    for case, plan, _ in runs(args.cli, args.fixture):
        lo, hi = plan["gpu"][case["metric"] + "_band"]
        kind = kind_of(plan)
        inside[kind][1] += 1
        if lo <= case["measured_bytes"] <= hi:
            inside[kind][0] += 1
        else:
            print("outside: %-55s %-14s measured %.2f GiB, band %.2f .. %.2f GiB" % (
                case["id"], case["metric"], case["measured_bytes"] / 2**30, lo / 2**30, hi / 2**30))
    bad = 0
    for kind in KINDS:
        k, n = inside[kind]
        if not n:
            continue
        cov = k / n
        print("%-6s %d of %d measured runs inside their band (%.0f%%)" % (kind, k, n, 100 * cov))
        if n >= MIN_RUNS and cov < args.min_coverage:
            print("FAIL: %s coverage %.0f%% < %.0f%%: regenerate lib/result/bands.c with `tests/bands.py table`"
                  % (kind, 100 * cov, 100 * args.min_coverage))
            bad = 1
    total = sum(n for _, n in inside.values())
    if total == 0:
        print("FAIL: no case could be run")
        return 1
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("files", nargs="+")
    c.add_argument("-o", "--out", default=FIXTURE)
    for name in ("table", "check"):
        s = sub.add_parser(name)
        s.add_argument("--cli", default="build/examples/vramest")
        s.add_argument("fixture", nargs="?", default=FIXTURE)
        if name == "check":
            s.add_argument("--min-coverage", type=float, default=0.8)
    args = ap.parse_args()
    return {"collect": cmd_collect, "table": cmd_table, "check": cmd_check}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
