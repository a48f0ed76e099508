#!/usr/bin/env python3
"""Copy a Markdown page for Doxygen, keeping the source GitHub-friendly.

GitHub gives every heading an anchor (its text in lower case, punctuation
dropped, spaces as '-', repeats numbered -1, -2, ...); Doxygen 1.9 gives
none, so `[x](#anchor)` links fail ("unable to resolve reference"), and its
labels are global across pages. This writes a copy whose headings carry
explicit `{#page-anchor}` labels (the page's file stem as a prefix), the
page's first heading `{#page}`, and whose in-page links and links to the
other pages given on the command line point at those labels. An `@` outside
code is escaped: citations such as `repo@commit` are text on GitHub, but
Doxygen reads `@word` as a command and, with WARN_AS_ERROR, stops.

usage: md_for_doxygen.py OUT_DIR PAGE.md ...
"""
import os
import re
import sys

HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")


def slug(text):
    text = re.sub(r"`([^`]*)`", r"\1", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(lines):
    """GitHub's anchor of each heading line index."""
    seen, out, fenced = {}, {}, False
    for i, line in enumerate(lines):
        if FENCE.match(line):
            fenced = not fenced
            continue
        m = None if fenced else HEADING.match(line)
        if not m:
            continue
        s = slug(m.group(2))
        n = seen.get(s, 0)
        seen[s] = n + 1
        out[i] = s if n == 0 else "%s-%d" % (s, n)
    return out


CODE_SPAN = re.compile(r"(`+).*?\1|\]\([^)]*\)|<[a-z]+:[^>]*>|\\@")


def escape_at(line):
    """Escape "@" outside code spans, link targets and escapes (Doxygen commands)."""
    out, pos = [], 0
    for m in CODE_SPAN.finditer(line):
        out.append(line[pos:m.start()].replace("@", "\\@"))
        out.append(m.group(0))
        pos = m.end()
    out.append(line[pos:].replace("@", "\\@"))
    return "".join(out)


def convert(path, pages):
    stem = os.path.splitext(os.path.basename(path))[0]
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    where = anchors(lines)
    first = min(where) if where else None

    def link(m):
        text, target = m.group(1), m.group(2)
        page, _, frag = target.partition("#")
        if page and os.path.basename(page) in pages:
            other = os.path.splitext(os.path.basename(page))[0]
            return "[%s](#%s)" % (text, other + "-" + frag if frag else other)
        if not page and frag:
            return "[%s](#%s-%s)" % (text, stem, frag)
        return m.group(0)

    out, fenced = [], False
    for i, line in enumerate(lines):
        if FENCE.match(line):
            fenced = not fenced
        elif i in where:
            label = stem if i == first else "%s-%s" % (stem, where[i])
            line = "%s {#%s}" % (line.rstrip(), label)
        elif not fenced:
            line = escape_at(re.sub(r"\[([^\]]*)\]\(([^)\s]*)\)", link, line))
        out.append(line)
    return "\n".join(out)


def main():
    out_dir, paths = sys.argv[1], sys.argv[2:]
    pages = {os.path.basename(p) for p in paths}
    os.makedirs(out_dir, exist_ok=True)
    for p in paths:
        with open(os.path.join(out_dir, os.path.basename(p)), "w", encoding="utf-8") as f:
            f.write(convert(p, pages))
    return 0


if __name__ == "__main__":
    sys.exit(main())
