#!/usr/bin/env python3
"""includes.py: every #include of a header of this tree must follow the layer
map of docs/architecture.md.  The map is the two tables below and nothing
else: change them here, and say why in docs/architecture.md.

A file belongs to the deepest folder of LAYERS that holds it.  It may include
  - its own folder's headers (private ones too);
  - the shared (not PRIVATE) headers of the folders and the single headers
    its LAYERS entry lists;
  - nothing from anywhere else.  ANYTHING (tests/, fuzz/) may include every
    header, private ones too: they test the inside.
And nobody includes a .c file: compile it, or move what is shared to a header.

A quoted include is looked up as the compiler does: next to the including
file, then from the top of the tree and include/ (meson's chime_inc), and for
tests/ also from tests/.  An angle include is checked only when it names a
file of the tree (#include <chime.h>); <uv.h> and friends are not ours.

Usage: includes.py [FILE...]   (default: every C source, tests/lint/sources.py)
Prints FILE:LINE: what and why, for each violation; exits 1 when there is one.
"""
import fnmatch
import os
import re
import sys

from sources import ROOT, c_sources

ANYTHING = "*"
LIBRARY = {"include", "core", "triggers", "model", "jobstore"}
TOOL = {"include", "config"}

# Folder -> what its files may include besides their own folder's headers:
# folders (their shared headers), single headers by path, and "config" (the
# build's chime-config.h).  Bottom-up order: library layers may only point
# down this list.
LAYERS = {
    # The public headers: each other and the C library, nothing else (but
    # the optional integration headers' own library: <uv.h> in chime-uv.h,
    # <mysql.h> in chime-mysql.h, angle includes this table does not see).
    "include": set(),
    "core": {"include", "config"},
    "triggers": {"include", "config", "core"},
    "model": {"include", "config", "core", "triggers"},
    "jobstore": {"include", "config", "core", "triggers", "model"},
    "jobstore/memory": LIBRARY | {"config"},
    "jobstore/mysql": LIBRARY | {"config"},
    "engine": LIBRARY | {"config"},
    # Users of the library.  The tools see the public headers only (they
    # link the shared library); a folder per tool, each over the tools' one
    # query library (tools/query/), never another tool's files.  chimectl's
    # test fixture, which fills a schema through the store's admin
    # interface, is a test (tests/tools/chimectl-test-setup.c).
    "tools/query": TOOL,
    "tools/chime-cron": TOOL | {"tools/query"},
    "tools/chimectl": TOOL | {"tools/query"},
    "tools/chime-web": TOOL | {"tools/query"},
    "tools/chime-alert": TOOL | {"tools/query"},
    # The benchmarks are users like any other: the public headers only,
    # linked with the shared library (issue 33).
    "bench": {"include"},
    "examples": {"include"},
    "bindings": {"include"},
    "fuzz": ANYTHING,
    "tests": ANYTHING,
}

# Headers private to their folder, whoever else the table above lets in.
# First match wins; None marks a header that is shared after all.
PRIVATE = [
    ("jobstore/mysql/admin.h", None),
    ("jobstore/mysql/*.h", "jobstore/mysql"),
    ("jobstore/memory/*.h", "jobstore/memory"),
    ("engine/*.h", "engine"),
    ("triggers/*_impl.h", "triggers"),
]

# Headers that are not files of the tree, and the layer they count as: those
# meson writes into the build directory ("config": chime-config.h), and a
# header that is planned but not written yet, so the edges to it are checked
# before it exists (harmless once it does).
NOT_IN_TREE = {
    "chime-config.h": "config",
    "chime-version.h": "include",
    "jobstore/mysql/admin.h": "jobstore/mysql",
}

# Where quoted includes are looked up, after the including file's folder.
SEARCH = ["", "include"]
# meson's include_directories: the tools' query library for every tool.
SEARCH_EXTRA = {"tests": ["tests"],
                "tools/chime-cron": ["tools/query"],
                "tools/chimectl": ["tools/query"],
                "tools/chime-web": ["tools/query"],
                "tools/chime-alert": ["tools/query"]}

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')


def layer_of(path):
    """The deepest LAYERS folder holding path, or None."""
    best = None
    for folder in LAYERS:
        if path.startswith(folder + "/") and (best is None or len(folder) > len(best)):
            best = folder
    return best


def private_owner(path):
    for pattern, owner in PRIVATE:
        if fnmatch.fnmatchcase(path, pattern):
            return owner
    return None


def resolve(src, kind, name):
    """The included file's path in the tree, or None when it is not ours."""
    layer = layer_of(src)
    dirs = [] if kind == "<" else [os.path.dirname(src)]
    dirs += SEARCH + SEARCH_EXTRA.get(layer, [])
    for d in dirs:
        path = os.path.normpath(os.path.join(d, name))
        if not path.startswith("..") and os.path.isfile(os.path.join(ROOT, path)):
            return path
    return None


def describe(layer):
    allowed = LAYERS[layer]
    if allowed == ANYTHING:
        return "anything"
    names = sorted(a if a.endswith(".h") else a + "/" for a in allowed if a != "config")
    own = "its own headers"
    return ", ".join([own] + names) if names else own


def check_edge(src, line, text, kind, name):
    """A list of messages for one include (empty when it is fine)."""
    where = "%s:%d: " % (src, line)
    if name.endswith(".c"):
        return [where + "includes %s: a .c file is compiled, not included "
                "(move what is shared to a header)" % text]
    layer = layer_of(src)
    if layer is None:
        return [where + "%s is in no folder of the layer map: add its folder "
                "to LAYERS in tests/lint/includes.py" % src]
    target = resolve(src, kind, name)
    if target is None:
        if kind == "<":
            return []  # a system or third-party header
        if name in NOT_IN_TREE:
            target_layer = NOT_IN_TREE[name]
            target = name
        else:
            return [where + "includes %s, which is not in the tree (a header "
                    "meson generates goes in NOT_IN_TREE)" % text]
    else:
        target_layer = layer_of(target)
    allowed = LAYERS[layer]
    if allowed == ANYTHING or target_layer == layer:
        return []
    owner = private_owner(target)
    if owner is not None:
        return [where + "includes %s, private to %s/ (%s/ may include %s)"
                % (text, owner, layer, describe(layer))]
    if target in allowed or target_layer in allowed:
        return []
    if target_layer is None:
        what = "outside the layer map"
    elif target_layer == "config":
        what = "a build-configuration header"
    else:
        what = "in %s/" % target_layer
    return [where + "includes %s, %s (%s/ may include %s)"
            % (text, what, layer, describe(layer))]


def check_file(src):
    problems = []
    with open(os.path.join(ROOT, src), encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m:
                kind, name = m.group(1), m.group(2)
                text = (kind + name + ('"' if kind == '"' else ">"))
                problems += check_edge(src, n, text, kind, name)
    return problems


def main():
    # Paths named on the command line are relative to the current directory.
    files = [os.path.relpath(os.path.abspath(f), ROOT) for f in sys.argv[1:]]
    problems = []
    for src in files or c_sources():
        problems += check_file(src)
    for p in problems:
        print(p)
    if problems:
        print("includes.py: %d include(s) break the layer map "
              "(docs/architecture.md, tests/lint/includes.py)" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
