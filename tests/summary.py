#!/usr/bin/env python3
"""One closing line for a whole ./dev test run.

Adds up the "N passed, N failed" line every CUnit runner prints (tests/harness.c)
and the "Ran N tests" of Python's unittest across the meson build trees given as
arguments; a test that prints neither counts as one.  A runner that failed
without saying so itself (a crash, a timeout) counts as one failure.
Usage: summary.py BUILD_DIR...
"""
import json
import re
import sys

COUNTS = re.compile(r"^(\d+) passed, (\d+) failed$", re.M)
UNITTEST_RAN = re.compile(r"^Ran (\d+) tests? in ", re.M)
UNITTEST_BAD = re.compile(r"^FAILED \((.*)\)$", re.M)


def counts(run):
    """(passed, failed) that one meson test reported, or None."""
    out = (run.get("stdout") or "") + (run.get("stderr") or "")
    found = COUNTS.findall(out)
    if found:
        return (sum(int(p) for p, _ in found), sum(int(f) for _, f in found))
    ran = UNITTEST_RAN.findall(out)
    if ran:
        bad = sum(int(n) for m in UNITTEST_BAD.findall(out)
                  for n in re.findall(r"(?:failures|errors)=(\d+)", m))
        return (sum(int(n) for n in ran) - bad, bad)
    return None


def main(dirs):
    passed = failed = 0
    for d in dirs:
        lines = []
        for name in ("testlog.json", "valgrind-valgrind.json"):
            try:
                with open(d + "/meson-logs/" + name) as log:
                    lines += log.readlines()
            except FileNotFoundError:
                if name == "testlog.json":
                    failed += 1
        for line in lines:
            run = json.loads(line)
            ok = run.get("result") == "OK"
            reported = counts(run)
            if reported is None:
                reported = (1, 0) if ok else (0, 1)
            elif not ok and reported[1] == 0:
                reported = (reported[0], 1)
            passed += reported[0]
            failed += reported[1]
    print(f"chime: {passed} passed, {failed} failed")


if __name__ == "__main__":
    main(sys.argv[1:])
