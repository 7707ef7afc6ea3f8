#!/usr/bin/env python3
"""alert_rules.py: checks docs/prometheus/chime-alerts.rules.yml: it parses
as Prometheus rule groups (each rule an alert with an expr, a severity and
a summary), and every metric its expressions name is one that chime
exports, taken from the real expositions: a node's (the library's
chime_metrics_to_prometheus, through the Python binding) and the
cluster's (`chimectl metrics` on a throwaway schema; chime-web's
chime_store_up, which it writes before those).  And docs/observability.md
points at the file.

usage: alert_rules.py SOURCE_ROOT BUILD_ROOT CC SANITIZE
"""
import os
import re
import shlex
import subprocess
import sys

try:
    import yaml  # Debian's python3-yaml (./dev setup installs it)
except ImportError:
    sys.path.append("/usr/lib/python3/dist-packages")
    import yaml

SOURCE, BUILD, CC, SANITIZE = sys.argv[1:5]
RULES = os.path.join(SOURCE, "docs", "prometheus", "chime-alerts.rules.yml")
failures = 0
passed = 0


def check(name, cond, detail=""):
    global failures, passed
    if cond:
        passed += 1
        print(f"ok   {name}")
    else:
        failures += 1
        print(f"FAIL {name} {detail}")


def families(text):
    """The names a query reads of an exposition's families (its # TYPE
    lines, with or without samples): a counter's F_total (format 0.0.4:
    the family F, the samples F_total), a gauge's or histogram's F."""
    return {name + "_total" if kind == "counter" else name
            for name, kind in re.findall(r"^# TYPE (\S+) (\S+)$", text, re.M)}


NODE_SCRIPT = """
import chime
with chime.Scheduler(url="memory:", log=False) as s:
    print(s.metrics_text())
"""


def node_families():
    env = dict(os.environ)
    env["CHIME_LIB"] = os.path.join(BUILD, "libchime.so")
    env["CHIME_LIB_ONLY"] = "1"
    env["PYTHONPATH"] = os.path.join(SOURCE, "bindings", "python")
    if "address" in SANITIZE:
        rt = subprocess.run(shlex.split(CC) + ["-print-file-name=libasan.so"],
                            capture_output=True, text=True).stdout.strip()
        env["LD_PRELOAD"] = rt
        env["ASAN_OPTIONS"] = "detect_leaks=0"
    p = subprocess.run([sys.executable, "-c", NODE_SCRIPT], capture_output=True,
                       text=True, timeout=60, env=env)
    check("a node's exposition", p.returncode == 0, p.stderr)
    return families(p.stdout)


def cluster_families():
    base = os.environ.get("CHIME_TEST_MYSQL_URL")
    if not base:
        check("CHIME_TEST_MYSQL_URL is set (./dev db-up): a missing database "
              "is never a skip", False)
        return set()
    prefix = "rules%d_" % os.getpid()
    url = base + ("&" if "?" in base else "?") + "prefix=" + prefix
    ctl = os.path.join(BUILD, "tools", "chimectl", "chimectl")
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
    run = lambda *a: subprocess.run([ctl, "--url", url] + list(a),
                                    capture_output=True, text=True, timeout=60,
                                    env=env)
    p = run("schema", "init")
    check("chimectl schema init", p.returncode == 0, p.stderr)
    p = run("metrics")
    check("chimectl metrics", p.returncode == 0, p.stderr)
    out = families(p.stdout)
    drop_tables(base, prefix)
    with open(os.path.join(SOURCE, "tools", "chime-web", "web_api.c")) as f:
        if '"chime_store_up %d\\n"' in f.read():  # chime-web, before those
            out.add("chime_store_up")
    return out


def drop_tables(base, prefix):
    import urllib.parse
    db = urllib.parse.urlsplit(base)
    args = ["mysql", "-h", db.hostname, "-P", str(db.port or 3306), "-u",
            urllib.parse.unquote(db.username), "-N", "-B", db.path.lstrip("/")]
    env = dict(os.environ, MYSQL_PWD=urllib.parse.unquote(db.password or ""))
    p = subprocess.run(args + ["-e", f"SHOW TABLES LIKE '{prefix}%'"],
                       capture_output=True, text=True, env=env)
    tables = p.stdout.split()
    if tables:
        subprocess.run(args + ["-e", "DROP TABLE " + ", ".join(tables)],
                       capture_output=True, env=env)


def metric_names(expr):
    """The chime_ metric names an expression reads: label matchers,
    strings and grouping lists left out; a histogram's _bucket, _sum and
    _count are its family."""
    e = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    e = re.sub(r"\{[^}]*\}", "", e)
    e = re.sub(r"\b(by|without|on|ignoring)\s*\([^)]*\)", "", e)
    names = set()
    for n in re.findall(r"\b(chime_[a-zA-Z0-9_]*)\b(?!\s*\()", e):
        names.add(re.sub(r"_(bucket|sum|count)$", "", n)
                  if n.endswith(("_bucket", "_sum", "_count")) else n)
    return names


def main():
    with open(RULES) as f:
        doc = yaml.safe_load(f)
    groups = doc.get("groups") if isinstance(doc, dict) else None
    check("the rules file has groups", isinstance(groups, list) and groups)
    known = node_families() | cluster_families()
    check("the expositions name metrics", len(known) > 15, sorted(known))
    seen_alerts = set()
    used = set()
    for g in groups or []:
        check(f"group {g.get('name')} has rules",
              isinstance(g.get("name"), str) and isinstance(g.get("rules"), list))
        for r in g.get("rules") or []:
            a = r.get("alert")
            ok = (isinstance(a, str) and a not in seen_alerts
                  and isinstance(r.get("expr"), str)
                  and r.get("labels", {}).get("severity") in
                  ("critical", "warning", "info")
                  and isinstance(r.get("annotations", {}).get("summary"), str)
                  and set(r) <= {"alert", "expr", "for", "labels",
                                 "annotations", "keep_firing_for"})
            check(f"rule {a} is well-formed", ok, r)
            seen_alerts.add(a)
            names = metric_names(r.get("expr", ""))
            unknown = sorted(n for n in names if n not in known)
            check(f"rule {a} names only exported metrics ({', '.join(sorted(names))})",
                  names and not unknown, f"unknown: {unknown}")
            used |= names
            if "for" in r:
                check(f"rule {a}: 'for' is a duration",
                      re.fullmatch(r"\d+[smhd]", str(r["for"])) is not None)
    with open(os.path.join(SOURCE, "docs", "observability.md")) as f:
        obs = f.read()
    check("observability.md points at the rules file",
          "## Alerts that arrive" in obs and "chime-alerts.rules.yml" in obs)
    print(f"{passed} passed, {failures} failed")
    return 1 if failures else 0


sys.exit(main())
