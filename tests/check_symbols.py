#!/usr/bin/env python3
"""The ABI in three places must agree.

  1. the dynamic symbols the built shared library defines (nm -D --defined-only),
  2. the global names of the linker version script (lib/vramest.map),
  3. the VRAMEST_API prototypes of the public headers (include/vramest/*.h).

Every name must start with "vramest_". Prints a diff and exits 1 on any
mismatch (after xkbcommon's symbols-leak-test).

usage: check_symbols.py --nm NM --lib libvramest.so --map vramest.map HEADER...
"""
import argparse
import re
import subprocess
import sys

PREFIX = "vramest_"


def strip_c_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def header_symbols(paths):
    names = set()
    for path in paths:
        with open(path, encoding="utf-8") as f:
            text = strip_c_comments(f.read())
        # Drop preprocessor lines (the VRAMEST_API definitions themselves),
        # honouring backslash continuations.
        text = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", " ", text, flags=re.M)
        # A declaration runs from VRAMEST_API to the first '('; the function
        # name is the identifier just before it.
        for decl in re.finditer(r"\bVRAMEST_API\b([^;{(]*)\(", text):
            m = re.search(r"([A-Za-z_]\w*)\s*$", decl.group(1))
            if not m:
                sys.exit(f"{path}: cannot find the name in 'VRAMEST_API{decl.group(1)}('")
            names.add(m.group(1))
    return names


def map_symbols(path):
    with open(path, encoding="utf-8") as f:
        text = strip_c_comments(f.read())
    text = re.sub(r"#[^\n]*", " ", text)
    names = set()
    # Each node: NAME { global: a; b; local: *; } [PARENT];
    for body in re.findall(r"\{(.*?)\}", text, flags=re.S):
        scope = None
        for tok in re.findall(r"[A-Za-z_*][\w*]*\s*:|[^;\s]+(?=\s*;)", body):
            tok = tok.strip()
            if tok.endswith(":"):
                scope = tok[:-1].strip()
            elif scope == "global":
                names.add(tok)
    return names


def library_symbols(nm, lib):
    out = subprocess.run([nm, "-D", "--defined-only", lib], check=True,
                         capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 3:
            continue
        kind, name = fields[-2], fields[-1]
        name = name.split("@", 1)[0]
        # Version nodes (VRAMEST_1.0) appear as absolute symbols.
        if kind == "A" and re.fullmatch(r"VRAMEST_\d+\.\d+", name):
            continue
        names.add(name)
    return names


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nm", default="nm")
    ap.add_argument("--lib", required=True)
    ap.add_argument("--map", required=True)
    ap.add_argument("headers", nargs="+")
    args = ap.parse_args()

    sets = {
        "header": header_symbols(args.headers),
        "map": map_symbols(args.map),
        "library": library_symbols(args.nm, args.lib),
    }
    ok = True
    for where, names in sets.items():
        if not names:
            print(f"error: no symbols found in the {where}")
            ok = False
        bad = sorted(n for n in names if not n.startswith(PREFIX))
        if bad:
            print(f"error: {where} symbols without the '{PREFIX}' prefix:")
            print("".join(f"    {n}\n" for n in bad), end="")
            ok = False

    order = list(sets)
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            only_a = sorted(sets[a] - sets[b])
            only_b = sorted(sets[b] - sets[a])
            if only_a or only_b:
                ok = False
                print(f"error: {a} and {b} differ:")
                print("".join(f"  - {n}   (in {a} only)\n" for n in only_a), end="")
                print("".join(f"  + {n}   (in {b} only)\n" for n in only_b), end="")

    if ok:
        print(f"ok: {len(sets['library'])} symbols agree across header, map and library")
        return 0
    print("hint: a public function needs VRAMEST_API in the header, a line in "
          "lib/vramest.map, and a definition in the library")
    return 1


if __name__ == "__main__":
    sys.exit(main())
