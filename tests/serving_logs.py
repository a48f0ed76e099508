#!/usr/bin/env python3
"""The serving engines' formulas against the logs they were checked on.

tests/data/serving/logs.jsonl holds, per case, the job as the log ran it
("spec"), the figure the log printed ("metric", a dotted path into the
plan, as /work/shared/bin/accuracy reads it; "measured", bytes or a count),
its source, and "within": whether the estimate is expected within
"tolerance". Cases outside it are kept with their explanation in
docs/methodology.md ("Serving engines: what the logs show"): this test
fails when an expected case leaves its tolerance, and when a known miss
comes within it (so the methodology's list is updated).

usage: serving_logs.py CLI DATA.jsonl
"""
import json
import os
import subprocess
import sys
import tempfile

ALIASES = {"weights": "gpu.categories.weights", "device_total": "gpu.device_total"}


def pick(plan, metric):
    v = plan
    for key in ALIASES.get(metric, metric).split("."):
        v = v[key]
    return v


def main(cli, data):
    bad = 0
    n = 0
    with open(data) as f:
        for line in f:
            case = json.loads(line)
            n += 1
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as t:
                json.dump(case["spec"], t)
            try:
                out = subprocess.run([cli, "--spec", t.name, "--json"], capture_output=True, text=True, timeout=60)
            finally:
                os.unlink(t.name)
            if out.returncode != 0:
                print("FAIL %s: %s" % (case["id"], out.stderr.strip()))
                bad += 1
                continue
            est = pick(json.loads(out.stdout), case["metric"])
            err = (est - case["measured"]) / case["measured"]
            within = abs(err) <= case["tolerance"]
            print("%-4s %-55s %-32s %+7.1f%% (tol %g%%)" % ("ok" if within == case["within"] else "FAIL", case["id"],
                                                        case["metric"], 100 * err, 100 * case["tolerance"]))
            if within != case["within"]:
                bad += 1
    print("%d cases, %d unexpected" % (n, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
