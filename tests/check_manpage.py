#!/usr/bin/env python3
"""The man page docs/vramest.1: formats without a single groff warning, has
the sections a man page needs, documents exactly the options, subcommands
and exit statuses that `vramest --help` lists (so neither can drift), and
its JSON keeps its quotes when rendered.

usage: check_manpage.py docs/vramest.1 PATH/TO/vramest [PATH/TO/groff]
Without groff (Debian package groff-base) the formatting check is replaced by
a structural lint of the roff source. Standard library only.
"""
import os
import re
import subprocess
import sys

SECTIONS = ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "JOB SPEC", "EXIT STATUS", "EXAMPLES", "SEE ALSO")
SUBCOMMANDS = ("options", "models", "gpus")

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def render(groff, page):
    env = dict(os.environ, LC_ALL="C.UTF-8")
    out = subprocess.run([groff, "-man", "-Tutf8", "-ww", "-rLL=100n", page], capture_output=True, env=env)
    if out.returncode != 0:
        fail("groff exited with %d" % out.returncode)
    warnings = out.stderr.decode("utf-8", "replace").strip()
    if warnings:
        fail("groff -ww warnings:\n" + warnings)
    # Strip overstrike bold/underline (char BACKSPACE char) and SGR sequences.
    text = out.stdout.decode("utf-8", "replace")
    text = re.sub(r".\x08", "", text)
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def lint(source):
    """Without groff: the roff source is at least well-formed man(7)."""
    lines = source.splitlines()
    if not any(line.startswith(".TH ") for line in lines):
        fail("no .TH line")
    for n, line in enumerate(lines, 1):
        if line.startswith("'"):
            fail("line %d starts with a quote (a control line by accident)" % n)
        if line.rstrip() != line:
            fail("line %d has trailing whitespace" % n)
        if re.search(r"(?<!\\)-{2}", line) and not line.startswith('.\\"'):
            fail("line %d has an unescaped '--' (write \\-\\-)" % n)
    return re.sub(r"\\[-e]", lambda m: "-" if m.group(0) == "\\-" else "\\", source)


def section(text, name):
    """The body of one section of rendered text."""
    m = re.search(r"^%s\n(.*?)(?=^[A-Z][A-Z ]+\n|\Z)" % re.escape(name), text, re.S | re.M)
    return m.group(1) if m else ""


# JSON as the reader sees it: roff takes a '"' in a macro argument as an
# argument delimiter and drops it, so `.B {"max": "gpus"}` renders as
# {"max":gpus}. Quotes in arguments must be written \(dq.
BARE_KEY = re.compile(r'[{,]\s*([A-Za-z_][\w.-]*)\s*:')
BARE_VALUE = re.compile(r':\s*([A-Za-z_][\w.-]*)\s*[,}]')


def json_keeps_quotes(text):
    """Every key and every word value inside braces of the rendered page is quoted."""
    for n, line in enumerate(text.splitlines(), 1):
        if "{" not in line or ":" not in line:
            continue
        for m in BARE_KEY.finditer(line):
            fail("rendered line %d: JSON key %s lost its quotes: %s" % (n, m.group(1), line.strip()))
        for m in BARE_VALUE.finditer(line):
            if m.group(1) not in ("true", "false", "null"):
                fail("rendered line %d: JSON value %s lost its quotes: %s" % (n, m.group(1), line.strip()))


def main():
    page, cli = sys.argv[1], sys.argv[2]
    groff = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else None
    with open(page, encoding="utf-8") as f:
        source = f.read()
    sections = re.findall(r'^\.SH\s+"?([^"\n]+)"?', source, re.M)
    for s in SECTIONS:
        if s not in sections:
            fail("no section %s (has: %s)" % (s, ", ".join(sections)))

    if groff:
        text = render(groff, page)
    else:
        print("note: groff not found; linting the roff source instead of formatting it")
        text = lint(source)

    if groff:
        json_keeps_quotes(text)

    help_out = subprocess.run([cli, "--help"], capture_output=True, text=True)
    if help_out.returncode != 0:
        fail("vramest --help exited with %d" % help_out.returncode)
    help_opts = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", help_out.stdout))
    man_opts = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", section(text, "OPTIONS") if groff else text))
    for opt in sorted(help_opts - man_opts):
        fail("--help lists %s, the man page's OPTIONS do not" % opt)
    for opt in sorted(man_opts - help_opts):
        fail("the man page documents %s, --help does not" % opt)
    for cmd in SUBCOMMANDS:
        if not re.search(r"^\s+%s\s" % cmd, help_out.stdout, re.M):
            fail("--help does not list the subcommand %s" % cmd)
        if not re.search(r"\b%s\b" % cmd, section(text, "OPTIONS") if groff else text):
            fail("the man page does not document the subcommand %s" % cmd)

    status = section(text, "EXIT STATUS") if groff else text
    for code in ("0", "1", "2", "3"):
        if not re.search(r"^\s+%s\s" % code, status, re.M) and not re.search(r"^\.B %s$" % code, source, re.M):
            fail("EXIT STATUS does not describe %s" % code)
    for word in ("--json", "--compare"):
        if word not in status:
            fail("EXIT STATUS does not say how %s changes the status" % word)
    if "Exit status: 0 fits" not in help_out.stdout:
        fail("--help does not give the exit statuses")

    if failures:
        print("%d problem(s) in %s" % (len(failures), page))
        return 1
    print("ok: %s formats cleanly%s and matches vramest --help (%d options)"
          % (page, " with groff -ww" if groff else "", len(help_opts)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
