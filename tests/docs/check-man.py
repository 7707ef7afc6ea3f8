#!/usr/bin/env python3
"""check-man.py: the man pages' checks.

  check-man.py coverage SOURCE_DIR
      every public function (each CHIME_EXTERN declaration of include/*.h)
      is named in a page source docs/man/*.scd;
  check-man.py render PAGE...
      `man --warnings -l PAGE` at 80 columns prints no warning and no error
      for each built page, and each page has a NAME and a SEE ALSO section.
  check-man.py missing
      fails, saying scdoc is needed (the man pages were not built).
"""
import glob
import os
import re
import subprocess
import sys

DECL = re.compile(r"^CHIME_EXTERN\s[^;]*?\b(chime_[a-z0-9_]+)\s*\(", re.M | re.S)


def coverage(root):
    names = []
    for h in sorted(glob.glob(os.path.join(root, "include", "*.h"))):
        with open(h, encoding="utf-8") as f:
            names += DECL.findall(f.read())
    text = ""
    for page in sorted(glob.glob(os.path.join(root, "docs", "man", "*.scd"))):
        with open(page, encoding="utf-8") as f:
            text += f.read()
    words = set(re.findall(r"chime_[a-z0-9_]+", text.replace("\\_", "_")))
    missing = [n for n in names if n not in words]
    print("%d public functions, %d named in no man page" % (len(names), len(missing)))
    for n in missing:
        print("docs/man: %s is in no page (add it to the page of its area)" % n)
    if len(names) < 100:
        print("too few CHIME_EXTERN declarations found: is the pattern right?")
        return 1
    return 1 if missing else 0


def render(pages):
    env = dict(os.environ, MANWIDTH="80", LC_ALL="C.UTF-8")
    bad = 0
    for page in pages:
        p = subprocess.run(["man", "--warnings", "-l", page], capture_output=True,
                           text=True, env=env, timeout=60)
        name = os.path.basename(page)
        out = re.sub(r".\x08", "", p.stdout)  # bold and underline overstrikes
        problems = []
        if p.returncode != 0:
            problems.append("man exited %d" % p.returncode)
        if p.stderr.strip():
            problems.append("warnings:\n" + p.stderr.strip())
        if "NAME" not in out or "SEE ALSO" not in out:
            problems.append("no NAME or SEE ALSO section")
        print(("ok   " if not problems else "FAIL ") + name)
        for q in problems:
            print("     " + q)
        bad += bool(problems)
    if not pages:
        print("no page given")
        return 1
    return 1 if bad else 0


def main():
    mode = sys.argv[1]
    if mode == "coverage":
        return coverage(sys.argv[2])
    if mode == "render":
        return render(sys.argv[2:])
    print("the man pages were not built: scdoc is missing (./dev setup "
          "installs it; or configure with -Dman=disabled)")
    return 1


sys.exit(main())
