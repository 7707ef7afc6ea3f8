#!/usr/bin/env python3
"""contracts.py: every public function states its contract (CONTRIBUTING.md).

Each CHIME_EXTERN declaration in include/*.h must have, in the comments
above it, the lines
    Returns:    what it returns, which error codes (not for a void function)
    Thread:     which thread may call it
    Ownership:  who frees what, how long a borrowed pointer lives
The comments above a declaration are those of its paragraph: the lines from
the last blank line (outside a comment) down to the declaration.  So one
comment may cover a group of declarations written without blank lines
between them (the setters of an object), and a short note beside one of them
adds to the group's comment.

Usage: contracts.py [HEADER...]   (default: include/*.h)
Prints FILE:LINE: what is missing, for each function; exits 1 when one is.
"""
import glob
import os
import re
import sys

from sources import ROOT

TAGS = ["Returns:", "Thread:", "Ownership:"]

COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)
DECL = re.compile(r"^[ \t]*CHIME_EXTERN\b([^;{]*?)\b([A-Za-z_]\w*)\s*\(", re.MULTILINE)
BLANK = re.compile(r"\n[ \t]*\n")


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def check_header(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        text = f.read()
    comments = [(m.start(), m.end()) for m in COMMENT.finditer(text)]

    def in_comment(pos):
        return any(a <= pos < b for a, b in comments)

    blanks = [m.start() for m in BLANK.finditer(text) if not in_comment(m.start())]
    problems = []
    decls = 0
    for m in DECL.finditer(text):
        if in_comment(m.start()):
            continue
        decls += 1
        ret_type, name = " ".join(m.group(1).split()), m.group(2)
        para = max([b for b in blanks if b < m.start()], default=0)
        above = " ".join(text[a:b] for a, b in comments if a >= para and b <= m.start())
        needed = [t for t in TAGS if not (t == "Returns:" and ret_type == "void")]
        missing = [t for t in needed if t not in above]
        if missing:
            problems.append("%s:%d: %s: its comment lacks %s" % (
                path, line_of(text, m.start()), name, ", ".join(missing)))
    return decls, problems


def main():
    headers = [os.path.relpath(os.path.abspath(h), ROOT) for h in sys.argv[1:]]
    headers = headers or sorted(
        os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "include", "*.h")))
    problems = []
    total = 0
    for h in headers:
        n, p = check_header(h)
        total += n
        problems += p
    for p in problems:
        print(p)
    if problems:
        print("contracts.py: %d of %d public functions lack contract lines "
              "(Returns:, Thread:, Ownership:; CONTRIBUTING.md)" % (len(problems), total))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
