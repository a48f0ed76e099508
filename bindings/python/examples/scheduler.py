#!/usr/bin/env python3
"""A scheduler admission filter (the Python twin of examples/scheduler.c):
job specs as JSON Lines on stdin, one decision per job on stdout,

    accept <id> fits: needs 13.04 GiB (band 13.03-14.24) of 80.00 GiB, margin 66.96 GiB
    accept <id> fits_low_end: <why>
    reject <id> does_not_fit: <why>
    reject <id> error: <reason>

where <why> is the plan's sentence (what the job needs against the usable
memory, the dominant categories, the one change that makes it fit). A job
that fits only at the low end of its band is accepted unless --strict is
given; --json prints one JSON object per decision (see scheduler.c), byte
for byte what the C scheduler prints.

A line is a job spec, or {"id": "...", "spec": {...}}; blank lines and lines
starting with '#' are skipped. Parsed models are cached by the text of their
"model" member (a preset name, an inline config.json, a path), so a stream of
jobs on a few models parses each model once; each job then reads only its
precision and workload (vramest.parse_spec(..., model=False)) and is
estimated against the cached Model handle. A model that fails to parse is
cached as its error. At the end it prints jobs per second on stderr.
Exit status 0, or 2 on I/O errors. Standard library only.
"""
import argparse
import collections
import json
import sys
import time

import vramest

GIB = 1024.0 ** 3
CACHE_SLOTS = 64


class ModelCache:
    """Model handles (or the error of parsing them) by model spec text, LRU."""

    def __init__(self, slots=CACHE_SLOTS):
        self.slots = slots
        self.entries = collections.OrderedDict()
        self.parsed = 0

    def get(self, model_member):
        key = json.dumps(model_member, sort_keys=True, separators=(",", ":"))
        if key in self.entries:
            self.entries.move_to_end(key)
            return self.entries[key]
        self.parsed += 1
        try:
            model, precision, config = vramest.parse_spec({"model": model_member})
            precision.close()
            config.close()
            entry = (model, None)
        except vramest.Error as e:
            entry = (None, e.message)
        self.entries[key] = entry
        if len(self.entries) > self.slots:
            _, (old, _err) = self.entries.popitem(last=False)
            if old is not None:
                old.close()
        return entry


def plan_of(model, precision, config):
    """The job's plan (vramest_plan_json: what vramest.estimate() gives for
    the spec, its "why" and fix included) from the handles."""
    # The binding's own route; a public vramest.plan(model, precision, config)
    # would replace this line.
    from vramest import _api
    return _api._plan(_api._Job(model, precision, config))


def decide(opts, job_id, plan=None, error=None):
    verdict = plan.get("verdict") if plan else None
    if plan is not None and error is None and verdict is None:
        error = "no device in the spec: cannot admit a job without a GPU size"
    accept = error is None and (verdict == "fits" or (verdict == "fits_low_end" and not opts.strict))
    why = (plan or {}).get("why") or {}
    if error is None:
        gpu = plan["gpu"]
        needed, (lo, hi) = gpu["device_total"], gpu["device_total_band"]
        usable = max(gpu["capacity"] - plan["headroom_bytes"], 0)
        text = why.get("text") or "needs %.2f GiB (band %.2f-%.2f) of %.2f GiB, margin %.2f GiB" % (
            needed / GIB, lo / GIB, hi / GIB, usable / GIB, (usable - needed) / GIB if usable >= needed else 0.0)
    else:
        text = error
    decision = "accept" if accept else "reject"
    if not opts.json:
        return "%s %s %s: %s" % (decision, job_id, "error" if error else verdict, text)
    out = {"id": job_id, "decision": decision, "verdict": None if error else verdict,
           "needed_bytes": None, "band": None, "usable_bytes": None, "fix": None, "text": text, "error": error}
    if error is None:
        out.update(needed_bytes=needed, band=[lo, hi], usable_bytes=usable)
        fix = why.get("fix")
        if fix:
            out["fix"] = {"text": fix["text"], "verdict": fix["verdict"], "device_total": fix["device_total"]}
    return json.dumps(out, separators=(",", ":"), ensure_ascii=False)


def judge(opts, cache, line, lineno):
    job_id = "line-%d" % lineno
    try:
        root = json.loads(line)
    except ValueError:
        return decide(opts, job_id, error="malformed JSON line")
    if not isinstance(root, dict):
        return decide(opts, job_id, error="malformed JSON line")
    spec = root
    if "spec" in root:
        spec = root["spec"]
        if "id" in root:
            job_id = root["id"] if isinstance(root["id"], str) else json.dumps(root["id"])
    if not isinstance(spec, dict) or "model" not in spec:
        return decide(opts, job_id, error='the job spec has no "model"')

    model, error = cache.get(spec["model"])
    if model is None:
        return decide(opts, job_id, error="model: %s" % error)
    try:
        _, precision, config = vramest.parse_spec(spec, model=False)
        with precision, config:
            plan = plan_of(model, precision, config)
    except vramest.Error as e:
        return decide(opts, job_id, error=str(e))
    return decide(opts, job_id, plan)


def main(argv):
    parser = argparse.ArgumentParser(description="JSON Lines job specs in, one decision per job out.")
    parser.add_argument("--json", action="store_true", help="one JSON object per decision")
    parser.add_argument("--strict", action="store_true",
                        help="reject jobs that fit only at the low end of their band")
    opts = parser.parse_args(argv)
    cache = ModelCache()
    jobs = 0
    start = time.monotonic()
    try:
        for line in sys.stdin:
            if not line.strip() or line.startswith("#"):
                continue
            jobs += 1
            print(judge(opts, cache, line, jobs))
        sys.stdout.flush()
    except (OSError, UnicodeDecodeError) as e:
        print("scheduler: %s" % e, file=sys.stderr)
        return 2
    secs = time.monotonic() - start
    print("scheduler: %d jobs, %d models parsed, in %.3f s (%.0f jobs/s)"
          % (jobs, cache.parsed, secs, jobs / secs if secs > 0 else 0.0), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
