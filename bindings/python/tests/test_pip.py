#!/usr/bin/env python3
"""test_pip.py: the binding installs with pip, offline, as a user installs it,
and the installed package runs a job.

  1. a venv (python3 -m venv --system-site-packages, Debian's python3 so
     that Debian's setuptools and wheel build the package);
  2. pip install --no-build-isolation --no-index of a copy of
     bindings/python (a copy: building writes into the source directory);
  3. in the venv: the distribution's version is the C library's, py.typed is
     installed, and a memory-store job runs, with the library found
       a. through CHIME_LIB, and
       b. as an installed library: the build tree installed with
          `meson install --destdir`, found on LD_LIBRARY_PATH, CHIME_LIB
          unset.

usage: test_pip.py BUILD_DIR VERSION
"""
import os
import shutil
import subprocess
import sys
import tempfile

BUILD, VERSION = sys.argv[1], sys.argv[2]
HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.dirname(HERE)
failures = []

PROGRAM = r'''
import importlib.metadata, os, sys, threading
import chime
dist = importlib.metadata.version("chime")
assert dist == sys.argv[1], (dist, sys.argv[1])
assert chime.__version__ == sys.argv[1], chime.__version__
here = os.path.dirname(chime.__file__)
assert os.path.isfile(os.path.join(here, "py.typed"))
assert not here.startswith(sys.argv[2]), "imported from the source tree"
ran = threading.Event()
with chime.Scheduler(url="memory:", workers=2) as s:
    @s.job("ping")
    def ping(ctx):
        ran.set()
    s.schedule(chime.Job("g", "ping", "ping"), chime.Simple(0, repeat=0))
    assert ran.wait(30), "the job did not run within 30 s"
    assert s.state == chime.SchedulerState.STARTED
print("ran a job with chime", chime.__version__, "from", chime._lib.lib._name)
'''


def check(ok, what, detail=""):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        print(detail)
        failures.append(what)


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=600, **kw)


def main():
    # Debian's interpreter has Debian's setuptools and wheel.
    py = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    work = tempfile.mkdtemp(prefix="chime-pip-")
    try:
        venv = os.path.join(work, "venv")
        p = run([py, "-m", "venv", "--system-site-packages", venv])
        check(p.returncode == 0, "python3 -m venv --system-site-packages", p.stderr)
        if p.returncode:
            return
        vpy = os.path.join(venv, "bin", "python")
        src = os.path.join(work, "src")
        shutil.copytree(PKG, src, ignore=shutil.ignore_patterns(
            "tests", "__pycache__", "build", "*.egg-info"))
        env = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONPATH", "CHIME_LIB", "CHIME_LIB_ONLY",
                            "PYTHONHOME")}
        env["PIP_NO_INDEX"] = "1"
        env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
        p = run([vpy, "-m", "pip", "install", "--no-build-isolation",
                 "--no-index", src], env=env, cwd=work)
        check(p.returncode == 0, "pip install --no-build-isolation --no-index",
              p.stdout[-2000:] + p.stderr[-2000:])
        if p.returncode:
            return

        lib = os.path.join(BUILD, "libchime.so")
        p = run([vpy, "-c", PROGRAM, VERSION, PKG],
                env=dict(env, CHIME_LIB=lib, CHIME_LIB_ONLY="1"), cwd=work)
        check(p.returncode == 0, "installed package runs a job (CHIME_LIB)",
              p.stdout + p.stderr[-2000:])

        dest = os.path.join(work, "dest")
        p = run(["meson", "install", "-C", BUILD, "--no-rebuild", "--quiet",
                 "--destdir", dest])
        check(p.returncode == 0, "meson install --destdir", p.stderr[-1000:])
        libdirs = sorted({os.path.dirname(os.path.join(d, f))
                          for d, _, fs in os.walk(dest) for f in fs
                          if f.startswith("libchime.so.0")})
        check(len(libdirs) == 1, "one installed libchime.so.0", str(libdirs))
        if len(libdirs) == 1:
            p = run([vpy, "-c", PROGRAM, VERSION, PKG],
                    env=dict(env, LD_LIBRARY_PATH=libdirs[0]), cwd=work)
            check(p.returncode == 0 and "from libchime.so.0" in p.stdout,
                  "installed package runs a job (installed libchime.so.0)",
                  p.stdout + p.stderr[-2000:])
    finally:
        shutil.rmtree(work, ignore_errors=True)


main()
if failures:
    print("test_pip: %d failure(s)" % len(failures))
    sys.exit(1)
print("test_pip: all passed")
