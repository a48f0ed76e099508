#!/usr/bin/env python3
"""A model family is one description (docs/adding-a-family.md): no file of
lib/ outside the family rows names a family.

Fails, naming the file and line, on a VX_FAM_<NAME> constant (or a
`->family ==` / `s->family` comparison against one) anywhere in lib/ but:
  - lib/model/families/   the rows, the list, the registry
  - lib/model/model.h     the enum the list expands into
and the uses of the enum's bounds (VX_FAM_UNSET, VX_FAM_END_), which name
no family.

Usage: check_families.py LIBDIR      (exit 0 = no consumer names a family)
       check_families.py --self-test
"""
import os
import re
import sys

ALLOWED_DIRS = ("model/families/",)
ALLOWED_FILES = ("model/model.h",)
BOUNDS = {"VX_FAM_UNSET", "VX_FAM_END_"}
NAMED = re.compile(r"\bVX_FAM_[A-Z0-9_]+\b")


def problems(libdir):
    out = []
    for root, _, files in os.walk(libdir):
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, libdir).replace(os.sep, "/")
            if rel.startswith(ALLOWED_DIRS) or rel in ALLOWED_FILES:
                continue
            with open(path, encoding="utf-8", errors="replace") as fh:
                for n, line in enumerate(fh, 1):
                    names = [m for m in NAMED.findall(line) if m not in BOUNDS]
                    if names:
                        out.append(f"lib/{rel}:{n}: names a family ({', '.join(names)}): read its row "
                                   "(model/family.h) instead")
    return out


def self_test():
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        files = {
            "model/families/decoders.c": "const vx_family vx_fam_llama = {.id = VX_FAM_LLAMA};\n",
            "model/model.h": "enum { VX_FAM_UNSET = 0, VX_FAM_LLAMA = 1, VX_FAM_END_ };\n",
            "model/shape.c": "if (a->model_type == VX_FAM_UNSET) return 1;\n",
            "estimate/infer/infer.c": "int x;\nif (s->family == VX_FAM_GPT2) x = 1;\n",
        }
        for rel, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
            with open(os.path.join(d, rel), "w") as fh:
                fh.write(text)
        got = problems(d)
        want = ["lib/estimate/infer/infer.c:2: names a family (VX_FAM_GPT2)"]
        ok = len(got) == 1 and got[0].startswith(want[0])
        print("\n".join(got) or "(nothing found)")
        return 0 if ok else 1


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    found = problems(sys.argv[1])
    for p in found:
        print(p)
    print(f"{len(found)} places name a family outside lib/model/families/")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
