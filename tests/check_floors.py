#!/usr/bin/env python3
"""The floors of lib/ point down (docs/architecture.md).

Reads every `#include "..."` under lib/, maps each file to its floor and
fails, naming the file and the line, on
  - an include from a lower floor to a higher one;
  - an include of a file that is not under lib/ nor the public header;
  - a file in no floor (a new folder must be placed in FLOORS);
  - a circle of includes among modules. A module is a source file and its
    header taken together (lib/model/model.c and lib/model/model.h): a
    circle through them is a circle between jobs, even when no header
    includes itself.

Usage: check_floors.py LIBDIR       (exit 0 = the floors hold)
       check_floors.py --self-test  (a small tree with one of each fault
                                     must be refused, naming each one)
"""
import os
import re
import sys

# Lowest first. A file belongs to the longest entry its path starts with; it
# may include files of its own floor and of the floors listed before it.
# Sub-folders of estimate/ are floors of their own, in the order the step is
# assembled.
FLOORS = [
    "common",             # errors, checked arithmetic, strings, the option registry, dtypes, JSON, the memo slot
    "model",              # families, config.json keys, the tensor inventory, presets
    "precision",          # the precision handle, policies, GGUF mixes
    "runtime",            # the workload config, GPU presets, the runtime table
    "result",             # the result the estimator fills, its getters and its JSON plan
    "estimate/context",   # what an estimator reads and writes; device and runtime terms
    "estimate/parallel",  # how a rank splits tensors and categories
    "estimate/params",    # the parameters on a rank: weights, gradients, optimizer states, adapters
    "estimate/graph",     # the symbolic autograd tape and the programs run on it
    "estimate/step",      # a training step's values and their composition
    "estimate/cache",     # compiled programs and steps (the speed layer)
    "estimate/train",     # the training estimate: rank groups, the step's result
    "estimate/infer",     # inference: KV caches, forward transients, serving engines
    "estimate/rl",        # RL post-training: rollout, scoring, training phases (issue #23)
    "estimate",           # the entry point: one estimate, per mode; load
    "io",                 # file readers: safetensors, GGUF, config.json files
    "spec",               # the JSON job spec, read into handles
    "solve",              # fit, max batch / sequence, min GPUs, advice
    "api",                # entry points that glue the floors together
]

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
PUBLIC = ("vramest/",)


def floor_of(rel):
    best = None
    for i, f in enumerate(FLOORS):
        if rel == f or rel.startswith(f + "/"):
            if best is None or len(f) > len(FLOORS[best]):
                best = i
    return best


def module_of(rel):
    return os.path.splitext(rel)[0]


def self_test(prog):
    """A tree that breaks each rule once must fail with each fault named."""
    import subprocess
    import tempfile
    tree = {
        "common/a.h": '#include "model/p.h"\n',           # upward, and a circle with the next line
        "model/p.h": '#include "common/a.h"\n',           # down: fine on its own
        "model/m.c": '#include "model/m.h"\n#include "model/n.h"\n',
        "model/m.h": "\n",
        "model/n.h": '#include "model/m.h"\n',            # circle m <-> n inside a floor
        "model/o.c": '#include "nowhere/x.h"\n',          # not a file under lib/
        "elsewhere/e.c": "\n",                            # in no floor
    }
    want = ['lib/common/a.h:1: includes "model/p.h"', "include circle among modules: common/a -> model/p",
            "include circle among modules: model/m -> model/n", 'lib/model/o.c:1: includes "nowhere/x.h"',
            "lib/elsewhere/e.c: in no floor"]
    with tempfile.TemporaryDirectory() as d:
        for rel, text in tree.items():
            os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
            with open(os.path.join(d, rel), "w", encoding="utf-8") as f:
                f.write(text)
        r = subprocess.run([sys.executable, prog, d], capture_output=True, text=True)
    missing = [w for w in want if w not in r.stdout]
    if r.returncode != 1 or missing:
        print(r.stdout)
        print(f"self-test: exit {r.returncode}, not reported: {missing}")
        return 1
    print(f"self-test: all {len(want)} faults reported")
    return 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test(argv[0])
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    lib = argv[1]
    files = []
    for root, _, names in os.walk(lib):
        for n in names:
            if n.endswith((".c", ".h")):
                files.append(os.path.relpath(os.path.join(root, n), lib).replace(os.sep, "/"))
    files.sort()
    known = set(files)
    errors = []
    edges = {}  # module -> {module: (file, line)}
    for rel in files:
        fl = floor_of(rel)
        if fl is None:
            errors.append(f"lib/{rel}: in no floor (add its folder to FLOORS in {argv[0]})")
            continue
        with open(os.path.join(lib, rel), encoding="utf-8") as f:
            for no, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                inc = m.group(1)
                if inc.startswith(PUBLIC):
                    continue
                if inc not in known:
                    errors.append(f"lib/{rel}:{no}: includes \"{inc}\", which is not a file under lib/ "
                                  "(includes are written from lib/, e.g. \"model/model.h\")")
                    continue
                to = floor_of(inc)
                if to is not None and to > fl:
                    errors.append(f"lib/{rel}:{no}: includes \"{inc}\": floor {FLOORS[fl]} must not include "
                                  f"floor {FLOORS[to]} above it")
                a, b = module_of(rel), module_of(inc)
                if a != b:
                    edges.setdefault(a, {}).setdefault(b, (rel, no))
    for cyc, comp in cycles(edges):
        path = " -> ".join(cyc + [cyc[0]])
        where = "; ".join(f"lib/{edges[cyc[i]][cyc[(i + 1) % len(cyc)]][0]}:"
                          f"{edges[cyc[i]][cyc[(i + 1) % len(cyc)]][1]}" for i in range(len(cyc)))
        rest = sorted(comp - set(cyc))
        also = f"; also in circles with them: {', '.join(rest)}" if rest else ""
        errors.append(f"include circle among modules: {path} (at {where}){also}")
    for e in errors:
        print(e)
    print(f"{len(files)} files, {sum(len(v) for v in edges.values())} module includes, {len(errors)} problems")
    return 1 if errors else 0


def cycles(edges):
    """One shortest circle per strongly connected component (Tarjan), with
    the component."""
    index, low, on, stack, comps = {}, {}, set(), [], []
    counter = [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, {})):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(set(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            strong(v)
    out = []
    for comp in comps:
        start = min(comp)
        # breadth-first back to `start` inside the component
        prev, frontier, seen = {}, [start], {start}
        found = None
        while frontier and not found:
            nxt = []
            for v in frontier:
                for w in sorted(edges.get(v, {})):
                    if w not in comp:
                        continue
                    if w == start:
                        found = v
                        break
                    if w not in seen:
                        seen.add(w)
                        prev[w] = v
                        nxt.append(w)
                if found:
                    break
            frontier = nxt
        cyc = [found]
        while cyc[-1] != start:
            cyc.append(prev[cyc[-1]])
        out.append((list(reversed(cyc)), comp))
    return out


if __name__ == "__main__":
    sys.exit(main(sys.argv))
