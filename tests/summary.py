#!/usr/bin/env python3
"""One closing line for a whole ./dev test run.

Adds up the "N passed, N failed" line every CUnit runner prints (tests/harness.c)
across the meson build trees given as arguments, and counts as failed any
runner that failed without saying so itself (a crash, a timeout).
Usage: summary.py BUILD_DIR...
"""
import json
import re
import sys

COUNTS = re.compile(r"^(\d+) passed, (\d+) failed$", re.M)


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
            counts = COUNTS.findall(run.get("stdout") or "")
            runner_failed = sum(int(f) for _, f in counts)
            passed += sum(int(p) for p, _ in counts)
            failed += runner_failed
            if run.get("result") != "OK" and runner_failed == 0:
                failed += 1
    print(f"chime: {passed} passed, {failed} failed")


if __name__ == "__main__":
    main(sys.argv[1:])
