#!/usr/bin/env python3
"""ABI check of libvramest.so.1 against the committed baseline (docs/abi-policy.md).

  check.py dump LIB VERSION_HEADER OUT          write LIB's ABI (abidw) to OUT
  check.py check LIB VERSION_HEADER BASELINE    fail on any change but additions
  check.py self-test LIB VERSION_HEADER         show the verdicts on mutated ABIs

Only what the public headers declare counts: abidw reads include/vramest and
the generated version header, drops private types and non-exported
interfaces, and leaves out source locations and build paths, so the baseline
changes only when the ABI does.

Verdict from abidiff's exit status (a bit field): 1 = error, 2 = usage error,
4 = the ABI changed, 8 = the change is incompatible. 8 fails. 4 passes only
when every change is an addition: abidiff's summaries must show 0 Removed
and 0 Changed (harmless changes it filters out by default, such as
enumerators appended to an enum, do not count).
"""
import os
import re
import subprocess
import sys
import tempfile

SRC = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def dump(lib, version_header, out):
    cmd = ["abidw", "--headers-dir", os.path.join(SRC, "include", "vramest"), "--header-file", version_header,
           "--drop-private-types", "--exported-interfaces-only", "--no-corpus-path", "--no-comp-dir-path",
           "--no-show-locs", "--type-id-style", "hash", "--out-file", out, lib]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"abidw failed ({r.returncode}): {' '.join(cmd)}\n{r.stdout}{r.stderr}")
    with open(out, encoding="utf-8") as f:
        text = f.read()
    if "<function-decl name='vramest_" not in text:
        sys.exit(f"{lib}: abidw found no public function with debug info (build with -g; meson's default "
                 "buildtype debugoptimized has it)")


def verdict(old, new):
    """(ok, exit status, report) of abidiff old new."""
    r = subprocess.run(["abidiff", old, new], capture_output=True, text=True)
    report = r.stdout + r.stderr
    rc = r.returncode
    if rc & 3:
        return False, rc, report + f"\nabidiff could not compare (exit {rc})"
    if rc & 8:
        return False, rc, report + f"\nincompatible ABI change (abidiff exit {rc}: bit 8)"
    if rc & 4:
        bad = [m.group(0) for m in re.finditer(r"(\d+) (Removed|Changed)", report) if int(m.group(1))]
        if bad:
            return False, rc, report + f"\nABI change that is not only additions ({', '.join(bad)})"
        return True, rc, report + "\nonly additions: compatible"
    return True, rc, report


def check(lib, version_header, baseline):
    with tempfile.TemporaryDirectory() as tmp:
        cur = os.path.join(tmp, "current.abi")
        dump(lib, version_header, cur)
        ok, rc, report = verdict(baseline, cur)
    print(report.strip())
    if not ok:
        print(f"\nFAIL: {lib} is not ABI-compatible with {os.path.relpath(baseline, SRC)}.\n"
              "If the change is intended, follow docs/abi-policy.md (bump the SONAME for a break; "
              "regenerate the baseline with tests/abi/update.sh).")
        return 1
    print(f"ok: {lib} is compatible with {os.path.relpath(baseline, SRC)} (abidiff exit {rc})")
    return 0


# ---- self-test: mutate an ABI dump the way real changes would -------------------

def decl(text, name):
    m = re.search(r"\n( *)<function-decl name='%s'.*?\n\1</function-decl>" % re.escape(name), text, re.S)
    if not m:
        sys.exit(f"self-test: no function-decl {name}")
    return m


def type_id(text, pattern):
    m = re.search(pattern, text)
    if not m:
        sys.exit(f"self-test: no type matching {pattern}")
    return m.group(1)


def remove_function(text, name):
    text = text.replace(decl(text, name).group(0), "")
    return re.sub(r"\n *<elf-symbol name='%s' [^\n]*/>" % re.escape(name), "", text)


def self_test(lib, version_header):
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        cur = os.path.join(tmp, "current.abi")
        dump(lib, version_header, cur)
        with open(cur, encoding="utf-8") as f:
            base = f.read()

        # 1. A parameter changes type: vramest_config_set_i64(cfg, key, int64_t) -> (cfg, key, double).
        d = decl(base, "vramest_config_set_i64").group(0)
        i64 = type_id(base, r"<typedef-decl name='int64_t' [^>]*id='([^']+)'")
        dbl = type_id(base, r"<type-decl name='double' [^>]*id='([^']+)'")
        params = re.findall(r"<parameter type-id='%s'[^>]*/>" % re.escape(i64), d)
        if not params:
            sys.exit("self-test: vramest_config_set_i64 has no int64_t parameter")
        sig = base.replace(d, d.replace(params[-1], params[-1].replace(i64, dbl)))
        # 2. A function is removed.
        removed = remove_function(base, "vramest_clear_error")
        # 3. A parameter is added: vramest_result_free(res) -> (res, size_t).
        d = decl(base, "vramest_result_free").group(0)
        size_t = type_id(base, r"<typedef-decl name='size_t' [^>]*id='([^']+)'")
        first = re.search(r"\n( *)<parameter [^\n]*/>", d)
        added_param = base.replace(d, d.replace(first.group(0), first.group(0) +
                                                 f"\n{first.group(1)}<parameter type-id='{size_t}'/>"))
        # 4. A function is added (the baseline lacks one the library has): compatible.
        older = remove_function(base, "vramest_clear_error")

        cases = [("parameter type int64_t -> double", base, sig, False),
                 ("function removed", base, removed, False),
                 ("parameter added", base, added_param, False),
                 ("function added", older, base, True),
                 ("no change", base, base, True)]
        for name, old, new, want in cases:
            po, pn = os.path.join(tmp, "old.abi"), os.path.join(tmp, "new.abi")
            with open(po, "w", encoding="utf-8") as f:
                f.write(old)
            with open(pn, "w", encoding="utf-8") as f:
                f.write(new)
            ok, rc, report = verdict(po, pn)
            status = "passes" if ok else "fails"
            good = ok == want
            failures += not good
            print(f"{'ok' if good else 'WRONG'}: {name}: the check {status} (abidiff exit {rc})")
            if not good or not want:
                print("    " + "\n    ".join(line for line in report.strip().splitlines()[-12:]))
    return 1 if failures else 0


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "dump" and len(args) == 3:
        dump(*args)
        return 0
    if cmd == "check" and len(args) == 3:
        return check(*args)
    if cmd == "self-test" and len(args) == 2:
        return self_test(*args)
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
