#!/usr/bin/env python3
"""transcripts.py: the shell examples of the documentation run, and print
what the page says they print.

A fenced block whose info string is "console" (README.md, CONTRIBUTING.md,
docs/*.md) and the EXAMPLES blocks of docs/man/*.scd whose every command
is chime-cron's are transcripts: each line "$ COMMAND" (a line ending in a
backslash continues it) is run with bash from the source directory, and
the lines up to the next "$ " are the output it must print (its standard
output, then its standard error).  In the expected text a line "..."
matches any number of lines, and "..." inside a line any text.  Commands
find chime-cron, chimectl and chime-hello of the build tree on PATH, and
"build/" at the start of a word means this build tree.  The exit status
is not compared: the text is.

A transcript that needs the database is marked by the line
"<!-- transcript: db -->" just before its fence: it runs with CHIME_URL
naming the throwaway MariaDB (CHIME_TEST_MYSQL_URL) with the table prefix
chime_tr_, on a database whose chime_tr_ tables were dropped first.  With
no CHIME_TEST_MYSQL_URL, or a server that does not answer, it FAILS.

Every other shell example ("sh" blocks, the other man page EXAMPLES) of
chimectl, chime-cron and ./dev is checked, not run (it names the
reader's cluster): a chimectl command must be one of `chimectl --help`,
a chime-cron option one of `chime-cron --help`, and a ./dev command one
./dev documents; the ./dev commands too heavy for the suite are listed in
NOT_RUN below and printed as not run.

usage: transcripts.py SOURCE_DIR BUILD_DIR
"""
import glob
import os
import re
import shlex
import subprocess
import sys
import urllib.parse

SOURCE, BUILD = sys.argv[1:3]
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```\s*$", re.M | re.S)
DB_MARK = "<!-- transcript: db -->"
PREFIX = "chime_tr_"

# ./dev commands a page shows but the suite does not run, and why.
NOT_RUN = {
    "setup": "installs packages and configures build trees",
    "build": "builds both trees (the suite runs inside a build)",
    "test": "the whole suite itself (15+ minutes)",
    "demo": "a 15 s three-node demo; tests/cluster covers its nodes",
    "bench": "about 8 minutes of benchmarks",
    "soak": "minutes of a loaded cluster (./dev bench runs a 3-minute one)",
    "db-up": "starts the server the suite already runs on",
    "db-down": "would stop the suite's own server",
    "db-restart": "would restart the suite's own server",
    "db-shell": "interactive",
    "galera-up": "starts three MariaDB members (the galera suite does)",
    "galera-down": "stops the galera suite's members",
    "galera-url": "needs the galera members up",
    "galera-pid": "needs the galera members up",
    "galera-extra": "the hand-run Galera suite",
    "rolling-upgrade": "builds the previous release and runs a cluster test",
    "fuzz": "minutes of fuzzing with clang",
    "deb": "builds the Debian packages (./dev test does)",
    "deb-test": "builds and unpacks the packages (./dev test does)",
    "fmt": "rewrites the sources",
    "lint": "./dev test runs it first",
}


def pages():
    yield os.path.join(SOURCE, "README.md")
    yield os.path.join(SOURCE, "CONTRIBUTING.md")
    yield from sorted(glob.glob(os.path.join(SOURCE, "docs", "*.md")))


def man_examples():
    for path in sorted(glob.glob(os.path.join(SOURCE, "docs", "man", "*.scd"))):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        start = text.find("\n# EXAMPLE")
        if start < 0:
            continue
        end = text.find("\n# ", start + 1)
        section = text[start:end if end > 0 else len(text)]
        for m in FENCE.finditer(section):
            line = text.count("\n", 0, start + m.start()) + 1
            yield os.path.relpath(path, SOURCE), line, m.group(2)


def blocks():
    """(page, line, kind, text, needs_db): kind "console" or "sh"."""
    for path in pages():
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for m in FENCE.finditer(text):
            lang = m.group(1).strip()
            if lang not in ("console", "sh"):
                continue
            line = text.count("\n", 0, m.start()) + 1
            before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
            yield (os.path.relpath(path, SOURCE), line, lang, m.group(2),
                   before.strip() == DB_MARK)
    for page, line, body in man_examples():
        cmds = [c for c, _ in parse_transcript(body)]
        runnable = cmds and all(c.split()[0] == "chime-cron" for c in cmds)
        yield page, line, "console" if runnable else "sh", body, False


def parse_transcript(body):
    """[(command, [expected lines])] of a console block."""
    steps = []
    lines = body.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    i = 0
    while i < len(lines):
        ln = lines[i]
        if not ln.startswith("$ "):
            if steps:
                steps[-1][1].append(ln)
            i += 1
            continue
        cmd = ln[2:]
        while cmd.endswith("\\") and i + 1 < len(lines):
            i += 1
            cmd = cmd[:-1] + " " + lines[i].strip()
        steps.append((cmd, []))
        i += 1
    return steps


def line_matches(pattern, got):
    if "..." not in pattern:
        return pattern == got
    rx = ".*".join(re.escape(p) for p in pattern.split("..."))
    return re.fullmatch(rx, got) is not None


def matches(expected, got):
    """Whether lines got match the expected lines ("..." wildcards)."""
    if not expected:
        return not got
    head = expected[0]
    if head == "...":
        return any(matches(expected[1:], got[k:]) for k in range(len(got) + 1))
    return bool(got) and line_matches(head, got[0]) and matches(expected[1:],
                                                                 got[1:])


def localize(cmd):
    """The command with build/ meaning this build tree."""
    return re.sub(r"(^|[\s'\"=(])build/", lambda m: m.group(1) + BUILD + "/", cmd)


def db_url():
    base = os.environ.get("CHIME_TEST_MYSQL_URL")
    if not base:
        return None, ("CHIME_TEST_MYSQL_URL is not set: start the database "
                      "(./dev db-up) and export CHIME_TEST_MYSQL_URL=$(./dev db-url)")
    sep = "&" if "?" in base else "?"
    return base + sep + "prefix=" + PREFIX, None


def reset_db(base):
    """Drops the chime_tr_ tables.  Returns an error text or None."""
    u = urllib.parse.urlsplit(base)
    args = ["mariadb", "--protocol=TCP", "-h", u.hostname or "127.0.0.1",
            "-P", str(u.port or 3306), "-u", urllib.parse.unquote(u.username or ""),
            "-N", "-B", u.path.lstrip("/")]
    env = dict(os.environ, MYSQL_PWD=urllib.parse.unquote(u.password or ""))
    q = ("SELECT table_name FROM information_schema.tables WHERE "
         "table_schema = DATABASE() AND table_name LIKE '%s%%'"
         % PREFIX.replace("_", "\\_"))
    try:
        p = subprocess.run(args + ["-e", q], capture_output=True, text=True,
                           env=env, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return "cannot run the mariadb client: %s" % e
    if p.returncode != 0:
        return "the database does not answer: %s" % p.stderr.strip()
    tables = p.stdout.split()
    if tables:
        drop = "SET FOREIGN_KEY_CHECKS=0; DROP TABLE %s" % ", ".join(
            "`%s`" % t for t in tables)
        p = subprocess.run(args + ["-e", drop], capture_output=True, text=True,
                           env=env, timeout=60)
        if p.returncode != 0:
            return "cannot drop the %s tables: %s" % (PREFIX, p.stderr.strip())
    return None


def run_console(where, body, needs_db):
    env = dict(os.environ)
    tools = [os.path.join(BUILD, "tools", t) for t in ("chime-cron", "chimectl")]
    env["PATH"] = os.pathsep.join(tools + [os.path.join(BUILD, "examples"),
                                           env.get("PATH", "")])
    env["TZ"] = "UTC"
    for k in ("CHIME_URL", "CHIME_PASSWORD", "CHIME_SCHEDULER"):
        env.pop(k, None)
    if needs_db:
        url, why = db_url()
        if not url:
            return ["FAIL %s: needs the database: %s" % (where, why)]
        why = reset_db(os.environ["CHIME_TEST_MYSQL_URL"])
        if why:
            return ["FAIL %s: needs the database: %s" % (where, why)]
        env["CHIME_URL"] = url
    fails = []
    steps = parse_transcript(body)
    if not steps:
        return ["FAIL %s: a console block without a '$ ' command" % where]
    for cmd, expected in steps:
        try:
            p = subprocess.run(["bash", "-c", localize(cmd)], cwd=SOURCE,
                               env=env, capture_output=True, text=True,
                               timeout=120)
            out = p.stdout + p.stderr
        except subprocess.TimeoutExpired:
            fails.append("FAIL %s: $ %s: no end within 120 s" % (where, cmd))
            continue
        got = out.split("\n")
        if got and got[-1] == "":
            got.pop()
        if not matches(expected, got):
            fails.append("FAIL %s: $ %s\n--- the page says\n%s\n--- it prints\n%s"
                         % (where, cmd, "\n".join(expected), "\n".join(got)))
    return fails


def help_text(tool):
    p = subprocess.run([os.path.join(BUILD, "tools", tool, tool), "--help"],
                       capture_output=True, text=True, timeout=60)
    return p.stdout + p.stderr


def commands_of(body):
    """The shell commands of a block: comments cut, continuations joined,
    "$ " prompts dropped, output lines (of man page examples) skipped."""
    out = []
    prompt = any(ln.startswith("$ ") for ln in body.split("\n"))
    text = re.sub(r"\\\n\s*", " ", body)
    for ln in text.split("\n"):
        if prompt:
            if not ln.startswith("$ "):
                continue
            ln = ln[2:]
        ln = ln.strip()
        if not ln:
            continue
        try:
            words = shlex.split(ln, comments=True)
        except ValueError:
            words = ln.split()
        # One line may chain commands (a && b, a; b, a | b).
        cmd = []
        for w in words + [";"]:
            if w in ("&&", "||", ";", "|"):
                if cmd:
                    out.append(cmd)
                cmd = []
            else:
                cmd.append(w)
    return out


CTL_VALUE_OPTS = {"--url", "--password-file", "--scheduler", "--tz"}


def check_sh(where, body, ctl_help, cron_help, dev_cmds):
    """Checks the chimectl, chime-cron and ./dev commands of a block that is
    not run.  Returns (notes, failures)."""
    notes, fails = [], []
    ctl_cmds = set(re.findall(r"^  ([a-z]+)", ctl_help.split("Options:")[0], re.M))
    ctl_cmds |= {"pause", "resume", "lease"}  # "pause|resume ..." lines
    for words in commands_of(body):
        tool = os.path.basename(words[0])
        shown = " ".join(words)
        if tool == "chimectl":
            rest = words[1:]
            while rest and rest[0].startswith("--"):
                rest = rest[2:] if rest[0] in CTL_VALUE_OPTS else rest[1:]
            if rest and rest[0] not in ctl_cmds:
                fails.append("FAIL %s: chimectl has no command %r: %s"
                             % (where, rest[0], shown))
            else:
                notes.append("checked %s: %s (not run: the reader's cluster)"
                             % (where, shown))
        elif tool == "chime-cron":
            bad = [w for w in words[1:] if w.startswith("--")
                   and w.split("=")[0] not in cron_help]
            if bad:
                fails.append("FAIL %s: chime-cron has no option %s: %s"
                             % (where, ", ".join(bad), shown))
            else:
                notes.append("checked %s: %s" % (where, shown))
        elif words[0] == "./dev":
            sub = words[1] if len(words) > 1 else ""
            if sub not in dev_cmds:
                fails.append("FAIL %s: ./dev has no command %r" % (where, sub))
            elif sub in NOT_RUN:
                notes.append("not run %s: ./dev %s (%s)" % (where, sub, NOT_RUN[sub]))
            else:
                notes.append("checked %s: ./dev %s (a transcript runs it)"
                             % (where, sub))
    return notes, fails


def main():
    with open(os.path.join(SOURCE, "dev"), encoding="utf-8") as f:
        dev_cmds = set(re.findall(r"^#   \./dev ([a-z-]+)", f.read(), re.M))
    ctl_help = help_text("chimectl")
    cron_help = help_text("chime-cron")
    failures, ran, checked = [], 0, 0
    for page, line, kind, body, needs_db in blocks():
        where = "%s:%d" % (page, line)
        if kind == "console":
            fails = run_console(where, body, needs_db)
            ran += 1
            print(("ok   %s (transcript%s)" % (where, ", database" if needs_db else ""))
                  if not fails else "\n".join(fails))
            failures += fails
        else:
            notes, fails = check_sh(where, body, ctl_help, cron_help, dev_cmds)
            checked += len(notes)
            for n in notes:
                print(n)
            for f in fails:
                print(f)
            failures += fails
    if ran < 3:
        failures.append("FAIL only %d transcript(s) found" % ran)
        print(failures[-1])
    print("transcripts: %d run, %d command(s) checked, %d failure(s)"
          % (ran, checked, len(failures)))
    return 1 if failures else 0


sys.exit(main())
