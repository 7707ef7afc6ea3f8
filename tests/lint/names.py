#!/usr/bin/env python3
"""names.py: every public function follows the header's one naming rule.

The rule (include/chime.h, "Names"; docs/stability.md):
  - a function is chime_<object>_<verb...>, where <object> is a type the
    public headers declare (chime_job, chime_mysql_tx, ...); the longest
    such prefix is the object;
  - a function that reads its object and hands back a value (it takes a
    const object, or returns neither int nor void) is a getter or a
    question: its verb starts with get_, is_, to_ or next (the next instant
    of a recurrence), is describe, or is named errmsg (after SQLite's
    sqlite3_errmsg); or it makes a new object from it (..._new);
  - the library's own functions have no object: those in LIBRARY.

Usage: names.py [HEADER...]   (default: include/*.h)
Prints FILE:LINE: the function and what the rule wants; exits 1 when one
breaks it.
"""
import glob
import os
import re
import sys

from sources import ROOT

# About the library itself, as libuv's uv_version and uv_strerror.
LIBRARY = {"chime_version", "chime_version_hex", "chime_strerror", "chime_err_name", "chime_free"}

READER_VERBS = re.compile(r"^(get_|is_|to_|next$|next_|describe$|errmsg$)|(^|_)new$")

COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)
TYPEDEF = re.compile(r"typedef\s+(?:struct|enum)\s+\w*\s*(?:\{[^}]*\})?\s*(chime_\w+)\s*;", re.DOTALL)
DECL = re.compile(r"CHIME_EXTERN\b([^;{]*?)\b(chime_\w+)\s*\(([^)]*)\)")


def blank_comments(text):
    """text with its comments replaced by spaces (line numbers kept)."""
    return COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def main():
    headers = [os.path.relpath(os.path.abspath(h), ROOT) for h in sys.argv[1:]]
    all_headers = sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "include", "*.h")))
    headers = headers or all_headers
    code = {h: blank_comments(open(os.path.join(ROOT, h), encoding="utf-8").read()) for h in all_headers}
    objects = set()
    for text in code.values():
        objects |= set(TYPEDEF.findall(text))
    problems = []
    total = 0
    for h in headers:
        text = code.get(h) or blank_comments(open(os.path.join(ROOT, h), encoding="utf-8").read())
        for m in DECL.finditer(text):
            total += 1
            ret, name, params = " ".join(m.group(1).split()), m.group(2), " ".join(m.group(3).split())
            where = "%s:%d: %s" % (h, text.count("\n", 0, m.start(2)) + 1, name)
            if name in LIBRARY:
                continue
            owners = [o for o in objects if name.startswith(o + "_")]
            if not owners:
                problems.append("%s: names no object (chime_<object>_<verb>, the object a type "
                                "the public headers declare)" % where)
                continue
            obj = max(owners, key=len)
            verb = name[len(obj) + 1:]
            reads = params.startswith("const %s *" % obj) or ret not in ("int", "void")
            if reads and not READER_VERBS.search(verb) and params.split(" ")[0] in ("const", obj):
                problems.append("%s: reads its %s: the verb is get_<attribute> (or is_<...> for "
                                "a question no setter sets)" % (where, obj))
    for p in problems:
        print(p)
    if problems:
        print("names.py: %d of %d public functions break the naming rule (include/chime.h, "
              "\"Names\")" % (len(problems), total))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
