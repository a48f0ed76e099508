#!/usr/bin/env python3
"""The headline bands, calibrated on measurements (docs/methodology.md,
"Bands of the headline figures").

Each kind of job (load, infer, serve, train) gets two calibrations:

- the estimator's error on `peak_allocated`: the ratios measured / estimated
  of the trustworthy measurements of that figure (confidence high or medium;
  for training also every run of the CPU torch harness, tests/data/harness),
  and the band is the narrowest range of ratios that holds at least
  ALLOC_COVERAGE of them;
- the caching allocator's fragmentation: (reserved - allocated) / allocated
  of the published pairs measured in one run (tests/data/bands/
  fragmentation.jsonl), the narrowest range holding at least FRAG_COVERAGE.

peak_reserved's band is the allocated band plus the fragmentation band (the
allocator term's own formula band where a kind has no measured pairs) and
device_total's adds the framework term's band. A kind with fewer than
MIN_RUNS runs of its own takes its parent's runs with it.

    bands.py collect FILE.jsonl ... [-o tests/data/bands/measured.jsonl]
        keep the headline-metric cases of validation files (id, source,
        confidence, spec, metric, measured_bytes); a case already in the
        fixture keeps its spec there (edited to name the stack it was
        measured on)
    bands.py table --cli CLI --harness TEST_BINARY [FIXTURE]
        print the ratios, the rows of lib/result/bands.c and the tables of
        docs/methodology.md
    bands.py check --cli CLI --harness TEST_BINARY [--min-coverage 0.8] [FIXTURE]
        (meson test `bands`) is each trustworthy measurement inside the band
        the plan gives it? Coverage per kind and figure; fails when the
        allocated coverage of a kind with MIN_RUNS runs or more falls below
        --min-coverage (the estimator moved: regenerate with `table`).
Standard library only.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys

HEADLINES = ("peak_allocated", "peak_reserved", "device_total")
KINDS = ("load", "infer", "serve", "train")
PARENT = {"serve": "infer", "load": "infer"}
TRUSTED = ("high", "medium")
MIN_RUNS = 5
ALLOC_COVERAGE = 0.90
FRAG_COVERAGE = 0.85
HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "data", "bands", "measured.jsonl")
FRAGMENTATION = os.path.join(HERE, "data", "bands", "fragmentation.jsonl")
HARNESS_LINE = re.compile(r"^(--.*?)\s+est\s+(\d+)\s+want\s+(\d+)")


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
    return plan["gpu"]["band_basis"]["kind"]


def measured_runs(cli, fixture):
    """(case, plan) of every trustworthy case the CLI can run."""
    for case in read(fixture):
        if case.get("confidence") not in TRUSTED:
            continue
        plan, why = plan_of(cli, case["spec"])
        if plan is None:
            print("skipped %s: %s" % (case["id"], why), file=sys.stderr)
            continue
        yield case, plan


def harness_runs(binary):
    """(name, estimated, measured) of every torch-harness training run."""
    env = dict(os.environ)
    env.setdefault("VRAMEST_TEST_DATA", os.path.join(HERE, "data"))
    out = subprocess.run([binary], capture_output=True, text=True, timeout=600, env=env)
    for line in (out.stderr + out.stdout).splitlines():
        m = HARNESS_LINE.match(line.strip())
        if m:
            yield m.group(1), int(m.group(2)), int(m.group(3))


def rounded(lo, hi):
    """Outwards to the 3 decimals the C table keeps (inwards would put the
    extreme runs kept outside)."""
    return math.floor(lo * 1000) / 1000, math.ceil(hi * 1000) / 1000


def trimmed(values, coverage):
    """The range left when the same share of runs is cut from each end:
    k = floor(n (1 - coverage) / 2) per end, so at least `coverage` of the
    runs lie inside and at most half the rest above it (a scheduler's risk
    is the upper tail)."""
    v = sorted(values)
    k = int(len(v) * (1 - coverage) / 2)
    return rounded(v[k], v[len(v) - 1 - k])


def narrowest(values, coverage):
    """The narrowest range of consecutive sorted values holding at least
    `coverage` of them (few values: trimming both ends would cut none)."""
    v = sorted(values)
    n = len(v)
    need = max(1, math.ceil(coverage * n - 1e-9))
    lo, hi = min(((v[i], v[i + need - 1]) for i in range(n - need + 1)), key=lambda p: p[1] - p[0])
    return rounded(lo, hi)


def alloc_ratios(cli, harness, fixture):
    """Per kind, the GPU runs' ratios and the harness runs' (training only):
    two populations, calibrated apart (the harness measures CPU tensor bytes
    of small models exactly; GPU runs carry what it cannot see)."""
    gpu = {k: [] for k in KINDS}
    cpu = {k: [] for k in KINDS}
    for case, plan in measured_runs(cli, fixture):
        if case["metric"] == "peak_allocated":
            gpu[kind_of(plan)].append((case["measured_bytes"] / plan["gpu"]["peak_allocated"], case["id"]))
    for name, est, want in harness_runs(harness):
        cpu["train"].append((want / est, "harness " + name))
    return gpu, cpu


def calibrate(values, coverage):
    """Trimmed ends with enough runs to cut any, else the narrowest range."""
    if int(len(values) * (1 - coverage) / 2) >= 1:
        return trimmed(values, coverage)
    return narrowest(values, coverage)


def frag_ratios(path):
    by_kind = {k: [] for k in KINDS}
    for p in read(path):
        by_kind[p["kind"]].append((p["reserved"] / p["allocated"] - 1, p["id"]))
    return by_kind


def pooled(by_kind, kind):
    own = by_kind[kind]
    if len(own) >= MIN_RUNS or kind not in PARENT:
        return own
    return own + by_kind[PARENT[kind]]


def cmd_collect(args):
    # A spec already in the fixture may have been edited to name the stack
    # its run was measured on (runtime.*_version): keep it.
    edited = {c["id"]: c["spec"] for c in read(args.out)} if os.path.exists(args.out) else {}
    kept = 0
    with open(args.out, "w", encoding="utf-8") as out:
        for path in args.files:
            for case in read(path):
                if case.get("metric") not in HEADLINES:
                    continue
                keep = {k: case[k] for k in ("id", "source", "confidence", "spec", "metric", "measured_bytes")
                        if k in case}
                keep["spec"] = edited.get(case["id"], keep["spec"])
                out.write(json.dumps(keep, sort_keys=True) + "\n")
                kept += 1
    print("collect: %d cases -> %s" % (kept, args.out))
    return 0


def cmd_table(args):
    gpu, cpu = alloc_ratios(args.cli, args.harness, args.fixture)
    frag = frag_ratios(args.fragmentation)
    rows = {}
    for kind in KINDS:
        g = pooled(gpu, kind)
        c = cpu[kind]
        f = frag[kind]  # the allocator term's own band where nothing was measured
        if not g and not c:
            continue
        # The band holds each population's calibrated range: the union.
        parts = [calibrate([r for r, _ in pop], ALLOC_COVERAGE) for pop in (g, c) if pop]
        alo, ahi = min(p[0] for p in parts), max(p[1] for p in parts)
        flo, fhi = narrowest([r for r, _ in f], FRAG_COVERAGE) if f else (0.0, 0.0)
        in_g = sum(alo <= r <= ahi for r, _ in g)
        in_c = sum(alo <= r <= ahi for r, _ in c)
        in_f = sum(flo <= r <= fhi for r, _ in f)
        rows[kind] = (alo, ahi, len(g) + len(c), in_g, len(g), len(gpu[kind]), in_c, len(c), flo, fhi, in_f, len(f))
        print("%-6s allocated x%.3f..x%.3f holds %d of %d GPU runs (%d own) and %d of %d harness runs; "
              "fragmentation %.3f..%.3f holds %d of %d" % (kind, alo, ahi, in_g, len(g), len(gpu[kind]), in_c, len(c),
                                                          flo, fhi, in_f, len(f)))
        outside = [i for r, i in g + c if not alo <= r <= ahi] + [i for r, i in f if not flo <= r <= fhi]
        if outside:
            print("       outside: " + ", ".join(outside))
    print("\n/* lib/result/bands.c rows (generated by tests/bands.py table) */")
    for kind in KINDS:
        if kind in rows:
            alo, ahi, n, *_, flo, fhi, _, nf = rows[kind]
            print("    [VX_BAND_%s] = {\"%s\", %.3f, %.3f, %d, %.3f, %.3f, %d}," % (kind.upper(), kind, alo, ahi, n,
                                                                             flo, fhi, nf))
    print("\n| kind | peak_allocated: measured / estimated | GPU runs inside | harness runs inside | "
          "fragmentation (reserved − allocated) / allocated | pairs inside |")
    print("|---|---|---|---|---|---|")
    for kind in KINDS:
        if kind in rows:
            alo, ahi, _, in_g, ng, own, in_c, nc, flo, fhi, in_f, nf = rows[kind]
            note = "" if ng == own else " (with the %s runs)" % PARENT[kind]
            frag_cell = "%.3f .. %.3f" % (flo, fhi) if nf else "the allocator term's own band (no pairs measured)"
            print("| %s | %.3f .. %.3f | %d of %d%s | %s | %s | %s |" % (
                kind, alo, ahi, in_g, ng, note, "%d of %d" % (in_c, nc) if nc else "—", frag_cell,
                "%d of %d" % (in_f, nf) if nf else "—"))
    return 0


def cmd_check(args):
    cells = {}
    for case, plan in measured_runs(args.cli, args.fixture):
        lo, hi = plan["gpu"][case["metric"] + "_band"]
        key = (kind_of(plan), case["metric"])
        c = cells.setdefault(key, [0, 0])
        c[1] += 1
        if lo <= case["measured_bytes"] <= hi:
            c[0] += 1
        else:
            print("outside: %-55s %-14s measured %.3f GiB, band %.3f .. %.3f GiB" % (
                case["id"], case["metric"], case["measured_bytes"] / 2**30, lo / 2**30, hi / 2**30))
    # The harness measures CPU tensor bytes: the band of its allocated figure.
    basis = None
    for case, plan in measured_runs(args.cli, args.fixture):
        if kind_of(plan) == "train":
            basis = plan["gpu"]["band_basis"]
            break
    if basis:
        c = cells.setdefault(("train", "peak_allocated (harness)"), [0, 0])
        for name, est, want in harness_runs(args.harness):
            c[1] += 1
            lo = min(est, math.floor(est * basis["low"]))
            hi = max(est, math.ceil(est * basis["high"]))
            c[0] += lo <= want <= hi
    bad = 0
    for (kind, metric), (k, n) in sorted(cells.items()):
        cov = k / n
        print("%-6s %-26s %3d of %3d measured runs inside their band (%.0f%%)" % (kind, metric, k, n, 100 * cov))
        if metric.startswith("peak_allocated") and n >= MIN_RUNS and cov < args.min_coverage:
            print("FAIL: %s %s coverage %.0f%% < %.0f%%: regenerate lib/result/bands.c with `tests/bands.py table`"
                  % (kind, metric, 100 * cov, 100 * args.min_coverage))
            bad = 1
    if not cells:
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
        s.add_argument("--harness", default="build/tests/test_train_harness")
        s.add_argument("--fragmentation", default=FRAGMENTATION)
        s.add_argument("fixture", nargs="?", default=FIXTURE)
        if name == "check":
            s.add_argument("--min-coverage", type=float, default=0.8)
    args = ap.parse_args()
    return {"collect": cmd_collect, "table": cmd_table, "check": cmd_check}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
