#!/usr/bin/env python3
"""log_steps.py: every step the engine reports a failed store call for
(chime__report_error(s, r, "STEP"), logged as "STEP: SENTENCE (CHIME_E...)")
is named in docs/operations.md's list of those steps, and the list names no
step the code does not report: an operator looks a log line up there.

usage: log_steps.py SOURCE_DIR
"""
import glob
import os
import re
import sys

SOURCE = sys.argv[1]
CALL = re.compile(r'chime__report_error\(\s*\w+,\s*\w+,\s*"([^"]+)"\)')
LIST = re.compile(r"`STEP: SENTENCE \(CHIME_E\.\.\.\)`, STEP one of (.*?) \|")

code = set()
for path in sorted(glob.glob(os.path.join(SOURCE, "engine", "*.c"))):
    with open(path, encoding="utf-8") as f:
        code.update(CALL.findall(f.read()))
with open(os.path.join(SOURCE, "docs", "operations.md"), encoding="utf-8") as f:
    m = LIST.search(f.read())
if not m:
    sys.exit("FAIL docs/operations.md: no line lists the steps of "
             "`STEP: SENTENCE (CHIME_E...)`")
page = set(re.findall(r"`([^`]+)`", m.group(1)))
failed = False
for step in sorted(code - page):
    print(f"FAIL docs/operations.md: the step {step!r} is reported "
          "(engine/) but not listed")
    failed = True
for step in sorted(page - code):
    print(f"FAIL docs/operations.md: the step {step!r} is listed but "
          "reported nowhere in engine/")
    failed = True
if not code:
    sys.exit("FAIL: no chime__report_error call found in engine/")
if failed:
    sys.exit(1)
print(f"{len(code)} steps, all listed")
