#!/usr/bin/env python3
"""A scheduler admission filter (the Python twin of examples/scheduler.c):
job specs as JSON Lines on stdin, one verdict per job on stdout,

    accept <id> needs <GiB> of <GiB> (margin <GiB>)
    reject <id> <reason>

A line is a job spec, or {"id": "...", "spec": {...}}; blank lines and lines
starting with '#' are skipped. Parsed models are cached by the text of their
"model" member (a preset name, an inline config.json, a path), so a stream of
jobs on a few models parses each model once; each job then reads only its
precision and workload (vramest.parse_spec(..., model=False)) and is
estimated against the cached Model handle. A model that fails to parse is
cached as its error. At the end it prints jobs per second on stderr.
Exit status 0, or 2 on I/O errors. Standard library only.
"""
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


def judge(cache, line, lineno):
    job_id = "line-%d" % lineno
    try:
        root = json.loads(line)
    except ValueError:
        return "reject %s malformed JSON line" % job_id
    if not isinstance(root, dict):
        return "reject %s malformed JSON line" % job_id
    spec = root
    if "spec" in root:
        spec = root["spec"]
        if "id" in root:
            job_id = root["id"] if isinstance(root["id"], str) else json.dumps(root["id"])
    if not isinstance(spec, dict) or "model" not in spec:
        return 'reject %s the job spec has no "model"' % job_id

    model, error = cache.get(spec["model"])
    if model is None:
        return "reject %s model: %s" % (job_id, error)
    try:
        _, precision, config = vramest.parse_spec(spec, model=False)
        with precision, config, vramest.run(model, precision, config) as result:
            total = result.device_total
            capacity = result.value("device_capacity")
    except vramest.Error as e:
        return "reject %s %s" % (job_id, e)
    if not capacity:
        return "reject %s no device in the spec: cannot admit a job without a GPU size" % job_id
    if total <= capacity:
        return "accept %s needs %.2f GiB of %.2f GiB (margin %.2f GiB)" % (
            job_id, total / GIB, capacity / GIB, (capacity - total) / GIB)
    return "reject %s needs %.2f GiB per GPU, the device has %.2f GiB (short by %.2f GiB)" % (
        job_id, total / GIB, capacity / GIB, (total - capacity) / GIB)


def main():
    cache = ModelCache()
    jobs = 0
    start = time.monotonic()
    try:
        for line in sys.stdin:
            if not line.strip() or line.startswith("#"):
                continue
            jobs += 1
            print(judge(cache, line, jobs))
        sys.stdout.flush()
    except (OSError, UnicodeDecodeError) as e:
        print("scheduler: %s" % e, file=sys.stderr)
        return 2
    secs = time.monotonic() - start
    print("scheduler: %d jobs, %d models parsed, in %.3f s (%.0f jobs/s)"
          % (jobs, cache.parsed, secs, jobs / secs if secs > 0 else 0.0), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
