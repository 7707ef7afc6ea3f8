#!/usr/bin/env python3
"""guides.py: the guides' code compiles and runs (as curl does with the
examples of its documentation).

Every fenced block of README.md, CONTRIBUTING.md and docs/*.md whose info
string is exactly "c" or "python", and every C block of a man page's
EXAMPLE section (docs/man/*.scd, a fenced block with "int main"), is a
complete program: it is written to a temporary directory,
a C block compiled against this build (its include directories and
libchime.so, with libuv from pkg-config, -Wall -Wextra -Werror), and each
program is run with a 120 s limit; it must exit 0.  Blocks that are not
meant to run use another info string (sh, text, ...).

usage: guides.py SOURCE_DIR BUILD_DIR CC SANITIZE
"""
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile

SOURCE, BUILD, CC, SANITIZE = sys.argv[1:5]
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```\s*$", re.M | re.S)


def pages():
    yield os.path.join(SOURCE, "README.md")
    yield os.path.join(SOURCE, "CONTRIBUTING.md")
    yield from sorted(glob.glob(os.path.join(SOURCE, "docs", "*.md")))


def blocks():
    for path in pages():
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for m in FENCE.finditer(text):
            lang = m.group(1).strip()
            if lang in ("c", "python"):
                line = text.count("\n", 0, m.start()) + 1
                yield os.path.relpath(path, SOURCE), line, lang, m.group(2)
    # The man pages' examples: scdoc's fenced blocks have no info string;
    # in an EXAMPLE section, one with a main() is a complete C program.
    for path in sorted(glob.glob(os.path.join(SOURCE, "docs", "man", "*.scd"))):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        start = text.find("\n# EXAMPLE")
        if start < 0:
            continue
        end = text.find("\n# ", start + 1)
        section = text[start:end if end > 0 else len(text)]
        for m in FENCE.finditer(section):
            if "int main" in m.group(2):
                line = text.count("\n", 0, start + m.start()) + 1
                yield os.path.relpath(path, SOURCE), line, "c", m.group(2)


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=120, **kw)


def main():
    found = list(blocks())
    failures = 0
    work = tempfile.mkdtemp(prefix="chime-guides-")
    uv = shlex.split(run(["pkg-config", "--cflags", "--libs", "libuv"]).stdout)
    san = [] if SANITIZE in ("", "none") else ["-fsanitize=" + SANITIZE]
    env = dict(os.environ)
    env["CHIME_LIB"] = os.path.join(BUILD, "libchime.so")
    env["CHIME_LIB_ONLY"] = "1"
    env["PYTHONPATH"] = os.path.join(SOURCE, "bindings", "python")
    env.pop("CHIME_URL", None)
    py_env = dict(env)
    if "address" in SANITIZE:
        rt = run(shlex.split(CC) + ["-print-file-name=libasan.so"]).stdout.strip()
        py_env["LD_PRELOAD"] = rt
        py_env["ASAN_OPTIONS"] = "detect_leaks=0"
    for n, (doc, line, lang, code) in enumerate(found):
        where = "%s:%d (%s)" % (doc, line, lang)
        if lang == "c":
            src = os.path.join(work, "guide%d.c" % n)
            exe = os.path.join(work, "guide%d" % n)
            with open(src, "w") as f:
                f.write(code)
            cmd = (shlex.split(CC) + ["-std=gnu17", "-Wall", "-Wextra", "-Werror",
                                      "-pthread", src, "-o", exe,
                                      "-I" + os.path.join(SOURCE, "include"),
                                      "-I" + os.path.join(BUILD, "include"),
                                      "-L" + BUILD, "-lchime",
                                      "-Wl,-rpath," + BUILD] + uv + san)
            p = run(cmd)
            if p.returncode != 0:
                print("FAIL %s does not compile:\n%s" % (where, p.stderr))
                failures += 1
                continue
            p = run([exe], env=env)
        else:
            src = os.path.join(work, "guide%d.py" % n)
            with open(src, "w") as f:
                f.write(code)
            p = run([sys.executable, src], env=py_env, cwd=work)
        if p.returncode != 0:
            print("FAIL %s exits %d:\n%s%s" % (where, p.returncode, p.stdout[-2000:],
                                              p.stderr[-3000:]))
            failures += 1
        else:
            print("ok   %s" % where)
    if len(found) < 2:
        print("FAIL only %d runnable block(s) found in the docs" % len(found))
        failures += 1
    print("guides: %d block(s), %d failure(s)" % (len(found), failures))
    return 1 if failures else 0


sys.exit(main())
