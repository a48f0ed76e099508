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

A line is a job spec, or {"id": "...", "spec": {...}} (one "id" and one
"spec" at most); blank lines and lines starting with '#' are skipped. A line
must be JSON (json.loads, nested at most 64 deep); the spec's own text, as
the line spells it, goes to the library, whose reader is strict (duplicate
keys, integers beyond 64 bits, ...), so both schedulers hand it the same
bytes. Parsed models are cached by the text of their "model" member (a
preset name, an inline config.json, a path), so a stream of jobs on a few
models parses each model once; each job then reads only its precision and
workload (vramest.parse_spec(..., model=False)) and is estimated against the
cached Model handle. A model that fails to parse is cached as its error. At
the end it prints jobs per second on stderr. Exit status 0, or 2 on I/O
errors. Standard library only.
"""
import argparse
import collections
import json
import re
import sys
import time

import vramest

GIB = 1024.0 ** 3
CACHE_SLOTS = 64


class ModelCache:
    """Model handles (or the error of parsing them) by the text of the
    "model" member, LRU."""

    def __init__(self, slots=CACHE_SLOTS):
        self.slots = slots
        self.entries = collections.OrderedDict()
        self.parsed = 0

    def get(self, model_text):
        if model_text in self.entries:
            self.entries.move_to_end(model_text)
            return self.entries[model_text]
        self.parsed += 1
        try:
            model, precision, config = vramest.parse_spec(('{"model":%s}' % model_text).encode("utf-8"))
            precision.close()
            config.close()
            entry = (model, None)
        except vramest.Error as e:
            entry = (None, e.message)
        self.entries[model_text] = entry
        if len(self.entries) > self.slots:
            _, (old, _err) = self.entries.popitem(last=False)
            if old is not None:
                old.close()
        return entry


class _Obj(list):
    """An object's (key, value) pairs as json.loads read them, duplicates kept."""


def _ignore(_literal):
    return None


# Only the structure matters here: numbers are the library's to read, from
# the line's own text (so no int or float conversion can refuse a line).
_DECODER = json.JSONDecoder(object_pairs_hook=_Obj, parse_int=_ignore, parse_float=_ignore,
                            parse_constant=_ignore)
_WS = re.compile(r"[ \t\n\r]*")
_NOT_C_TEXT = re.compile("[\x00\ud800-\udfff]")
MAX_DEPTH = 64


def _shallow(value, depth=1):
    """Whether no container in `value` is nested deeper than MAX_DEPTH (the
    library's reader's bound; the C scheduler's too)."""
    if isinstance(value, _Obj):
        items = [v for _, v in value]
    elif isinstance(value, list):
        items = value
    else:
        return True
    return depth <= MAX_DEPTH and all(_shallow(v, depth + 1) for v in items)


def members(text, i):
    """(key, start, end) of each member of the object at text[i], in a text
    _DECODER took: text[start:end] is the member's value as written."""
    i = _WS.match(text, i + 1).end()
    while text[i] != "}":
        key, i = json.decoder.scanstring(text, i + 1)
        start = _WS.match(text, _WS.match(text, i).end() + 1).end()
        end = _DECODER.raw_decode(text, start)[1]
        yield key, start, end
        i = _WS.match(text, end).end()
        if text[i] == ",":
            i = _WS.match(text, i + 1).end()


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


def judge(opts, cache, raw, lineno):
    job_id = "line-%d" % lineno
    malformed = dict(error="malformed JSON line")
    try:
        text = raw.decode("utf-8")
        root = _DECODER.decode(text)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return decide(opts, job_id, **malformed)
    if not isinstance(root, _Obj) or not _shallow(root):
        return decide(opts, job_id, **malformed)
    start = _WS.match(text).end()
    top = {}
    for key, a, b in members(text, start):
        top.setdefault(key, []).append(text[a:b])
    if "spec" in top:
        if len(top["spec"]) > 1 or len(top.get("id", ())) > 1:
            return decide(opts, job_id, **malformed)
        spec = top["spec"][0]
        if "id" in top:
            # A string id as it decodes (one C cannot print as the line means
            # it is refused), another value as the line writes it.
            job_id = top["id"][0]
            if job_id.startswith('"'):
                job_id = json.loads(job_id)
                if _NOT_C_TEXT.search(job_id):
                    return decide(opts, "line-%d" % lineno, **malformed)
    else:
        spec = text[start:len(text.rstrip(" \t\r\n"))]
    model_text = next((spec[a:b] for key, a, b in members(spec, 0) if key == "model"), None) \
        if spec.startswith("{") else None
    if model_text is None:
        return decide(opts, job_id, error='the job spec has no "model"')

    model, error = cache.get(model_text)
    if model is None:
        return decide(opts, job_id, error="model: %s" % error)
    try:
        _, precision, config = vramest.parse_spec(spec.encode("utf-8"), model=False)
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
    # Lines are bytes split at LF, as the C scheduler reads them; decisions
    # are UTF-8 whatever the locale.
    out = sys.stdout.buffer
    try:
        for line in sys.stdin.buffer:
            if not line.strip(b" \t\r\n") or line.startswith(b"#"):
                continue
            jobs += 1
            out.write(judge(opts, cache, line, jobs).encode("utf-8") + b"\n")
        out.flush()
    except OSError as e:
        print("scheduler: %s" % e, file=sys.stderr)
        return 2
    secs = time.monotonic() - start
    print("scheduler: %d jobs, %d models parsed, in %.3f s (%.0f jobs/s)"
          % (jobs, cache.parsed, secs, jobs / secs if secs > 0 else 0.0), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
