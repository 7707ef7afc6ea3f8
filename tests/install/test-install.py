#!/usr/bin/env python3
"""test-install.py: installs this build tree as a user would and uses it.

  1. `meson install --destdir D` into a temporary directory;
  2. every installed tool answers --version (with the project's version) and
     --help, exit status 0;
  3. the tree is moved elsewhere and chime-cron still runs (its run path is
     relative to itself: any prefix works);
  4. chime.pc carries what users need only (no -I/usr/include/mariadb/);
  5. tests/install/installed-prog.c is compiled with
     `pkg-config --cflags --libs chime` against the installed tree and run;
  6. the headers, the static archive and the man pages are in place;
  7. chime as a meson subproject: a project with subprojects/chime (a
     symbolic link to this source tree) finds it with dependency('chime')
     (meson.override_dependency) and builds and runs installed-prog.c.

usage: test-install.py BUILD_DIR SOURCE_DIR VERSION CC [SANITIZE]
"""
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

BUILD, SOURCE, VERSION, CC = sys.argv[1:5]
SANITIZE = sys.argv[5] if len(sys.argv) > 5 else "none"
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=300, **kw)


def intro(what):
    import json
    p = run(["meson", "introspect", "--" + what, BUILD])
    return json.loads(p.stdout)


def main():
    opts = {o["name"]: o["value"] for o in intro("buildoptions")}
    prefix, libdir, bindir = opts["prefix"], opts["libdir"], opts["bindir"]
    work = tempfile.mkdtemp(prefix="chime-install-")
    try:
        dest = os.path.join(work, "dest")
        p = run(["meson", "install", "-C", BUILD, "--no-rebuild", "--quiet",
                 "--destdir", dest])
        check(p.returncode == 0, "meson install --destdir: " + p.stderr.strip()[-500:])
        if p.returncode != 0:
            return
        root = dest + prefix
        bin_dir = os.path.join(root, bindir)
        lib_dir = os.path.join(root, libdir)

        tools = sorted(os.listdir(bin_dir))
        check("chime-cron" in tools, "chime-cron installed (%s)" % tools)
        for tool in tools:
            exe = os.path.join(bin_dir, tool)
            p = run([exe, "--version"], env=dict(os.environ, LD_LIBRARY_PATH=""))
            check(p.returncode == 0 and VERSION in p.stdout,
                  "%s --version: %r %r" % (tool, p.stdout.strip(), p.stderr.strip()[-300:]))
            p = run([exe, "--help"])
            check(p.returncode == 0 and "usage:" in p.stdout,
                  "%s --help: exit %d" % (tool, p.returncode))

        # Tools that are built but not installed answer too.
        for rel in ("examples/chime-node", "bench/chime-bench"):
            exe = os.path.join(BUILD, rel)
            if os.path.exists(exe):
                p = run([exe, "--version"])
                check(p.returncode == 0 and VERSION in p.stdout,
                      "%s --version: %r" % (rel, p.stdout.strip()))
                p = run([exe, "--help"])
                check(p.returncode == 0 and "usage:" in p.stdout,
                      "%s --help: exit %d" % (rel, p.returncode))

        # Relocated: the run path is $ORIGIN-relative.
        moved = os.path.join(work, "elsewhere")
        shutil.copytree(root, moved, symlinks=True)
        p = run([os.path.join(moved, bindir, "chime-cron"), "--count", "1",
                 "--after", "0", "--format", "ms", "0 0 * * * ?"])
        check(p.returncode == 0 and p.stdout.strip() == "3600000",
              "relocated chime-cron runs: %r %r" % (p.stdout, p.stderr.strip()[-300:]))

        # chime.pc, read from where it was installed.
        pc_dir = os.path.join(lib_dir, "pkgconfig")
        env = dict(os.environ, PKG_CONFIG_PATH=pc_dir,
                   PKG_CONFIG_LIBDIR=pc_dir + ":/usr/lib/x86_64-linux-gnu/pkgconfig:"
                   "/usr/lib/pkgconfig:/usr/share/pkgconfig")
        pcflags = ["pkg-config", "--define-variable=prefix=" + root]
        p = run(pcflags + ["--cflags", "--libs", "chime"], env=env)
        check(p.returncode == 0, "pkg-config --cflags --libs chime: " + p.stderr.strip())
        flags = shlex.split(p.stdout)
        check(not any("mariadb" in f or "mysql" in f for f in flags),
              "no MariaDB flag in chime.pc's Cflags/Libs: %s" % p.stdout.strip())
        p = run(pcflags + ["--modversion", "chime"], env=env)
        check(p.stdout.strip() == VERSION, "pkg-config --modversion chime: " + p.stdout.strip())
        p = run(pcflags + ["--static", "--libs", "chime"], env=env)
        check(p.returncode == 0 and "-luv" in p.stdout,
              "pkg-config --static --libs chime: " + p.stdout.strip())

        # A user's program, built against the installed tree only.
        prog = os.path.join(work, "installed-prog")
        cmd = shlex.split(CC) + [os.path.join(SOURCE, "tests", "install", "installed-prog.c"),
                                 "-o", prog, "-Wall", "-Wextra", "-Werror", "-std=c17",
                                 "-pthread", "-Wl,-rpath," + lib_dir] + flags
        if SANITIZE not in ("", "none"):
            cmd += ["-fsanitize=" + SANITIZE]
        p = run(cmd)
        check(p.returncode == 0, "compile against chime.pc: " + " ".join(cmd) + "\n" + p.stderr)
        if p.returncode == 0:
            p = run([prog])
            check(p.returncode == 0 and "fired 1" in p.stdout,
                  "installed-prog runs: %r %r" % (p.stdout, p.stderr[-500:]))

        inc = os.path.join(root, opts["includedir"])
        for h in ("chime.h", "chime-uv.h", "chime-version.h"):
            check(os.path.isfile(os.path.join(inc, h)), "header %s installed" % h)
        check(os.path.isfile(os.path.join(lib_dir, "libchime.a")), "libchime.a installed")

        man = os.path.join(root, opts["mandir"])
        if os.path.isdir(os.path.join(SOURCE, "docs", "man")):
            pages = sorted(f for d in ("man1", "man3", "man5", "man7")
                           if os.path.isdir(os.path.join(man, d))
                           for f in os.listdir(os.path.join(man, d)))
            check("chime.3" in pages and "chime-cron.1" in pages,
                  "man pages installed: %s" % pages)
        subproject(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


SUBPROJECT_MESON = """project('user', 'c')
subproject('chime', default_options: ['tests=false', 'man=disabled',
                                      'mysql=disabled', 'werror=false'])
executable('prog', 'prog.c', dependencies: dependency('chime'))
"""


def subproject(work):
    top = os.path.join(work, "user")
    os.makedirs(os.path.join(top, "subprojects"))
    os.symlink(SOURCE, os.path.join(top, "subprojects", "chime"))
    with open(os.path.join(top, "meson.build"), "w") as f:
        f.write(SUBPROJECT_MESON)
    shutil.copy(os.path.join(SOURCE, "tests", "install", "installed-prog.c"),
                os.path.join(top, "prog.c"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("MESON")}
    p = run(["meson", "setup", os.path.join(top, "b"), top], env=env)
    check(p.returncode == 0, "subproject: meson setup with dependency('chime')"
          + ("" if p.returncode == 0 else ": " + (p.stdout + p.stderr)[-1500:]))
    if p.returncode:
        return
    p = run(["ninja", "-C", os.path.join(top, "b"), "prog"], env=env)
    check(p.returncode == 0, "subproject: ninja prog" +
          ("" if p.returncode == 0 else ": " + p.stdout[-1500:]))
    if p.returncode == 0:
        p = run([os.path.join(top, "b", "prog")])
        check(p.returncode == 0 and "fired 1" in p.stdout,
              "subproject: prog runs: %r %r" % (p.stdout, p.stderr[-300:]))


main()
if failures:
    print("test-install: %d failure(s)" % len(failures))
    sys.exit(1)
print("test-install: all passed")
