#!/usr/bin/env bash
# test-deb.sh DIR: the Debian packages in DIR (./dev deb) unpacked into a
# throwaway root and used as a user would: chime-cron, chimectl, chime-alert and
# chime-web answer --version and --help, chime-cron computes, a program
# compiled with `pkg-config --cflags --libs chime` (the root as
# pkg-config's sysroot) runs, the Python package runs a job, the man pages
# render.  Exits non-zero on
# the first failure.  (dpkg -x, not apt-get install: the test machine is
# shared; on a clean system `apt-get install ./build-deb/*.deb` does the
# same for real.)
set -euo pipefail
DIR=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(mktemp -d /tmp/chime-deb-root.XXXXXX)
trap 'rm -rf "$ROOT"' EXIT
fail() { printf 'FAIL %s\n' "$*"; exit 1; }
ok() { printf 'ok   %s\n' "$*"; }

for p in libchime0 libchime-dev chime-tools python3-chime; do
  deb=$(ls "$DIR"/${p}_*.deb 2>/dev/null | head -1)
  [ -n "$deb" ] || fail "no $p package in $DIR"
  dpkg-deb -x "$deb" "$ROOT"
  ok "unpacked $(basename "$deb")"
done

MULTIARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
LIBDIR="$ROOT/usr/lib/$MULTIARCH"
export LD_LIBRARY_PATH="$LIBDIR"

v=$("$ROOT/usr/bin/chime-cron" --version) || fail "chime-cron --version"
ok "chime-cron --version: $v"
"$ROOT/usr/bin/chime-cron" --help | grep -q '^usage:' || fail "chime-cron --help"
ok "chime-cron --help"
[ "$("$ROOT/usr/bin/chime-cron" --count 1 --after 0 --format ms '0 0 * * * ?')" = 3600000 ] ||
  fail "chime-cron computes"
ok "chime-cron computes a fire time"
for tool in chimectl chime-web chime-alert; do
  v=$("$ROOT/usr/bin/$tool" --version) || fail "$tool --version"
  ok "$tool --version: $v"
  "$ROOT/usr/bin/$tool" --help >/dev/null || fail "$tool --help"
  ok "$tool --help"
done

export PKG_CONFIG_SYSROOT_DIR="$ROOT"
export PKG_CONFIG_LIBDIR="$LIBDIR/pkgconfig:/usr/lib/$MULTIARCH/pkgconfig:/usr/share/pkgconfig"
flags=$(pkg-config --cflags --libs chime) || fail "pkg-config chime"
case "$flags" in *mariadb*) fail "chime.pc leaks MariaDB flags: $flags" ;; esac
ok "pkg-config --cflags --libs chime: $flags"
# shellcheck disable=SC2086
cc -std=c17 -Wall -Wextra -Werror -pthread "$HERE/../install/installed-prog.c" \
  -o "$ROOT/prog" $flags || fail "compiling against the packaged chime.pc"
"$ROOT/prog" || fail "the program built against the packages"
ok "a program built with pkg-config runs"

PYTHONPATH="$ROOT/usr/lib/python3/dist-packages" /usr/bin/python3 - <<'PY' || fail "python3-chime"
import threading
import chime
assert chime._lib.lib._name == "libchime.so.0", chime._lib.lib._name
ran = threading.Event()
with chime.Scheduler(url="memory:", log=False) as s:
    s.register("t", lambda ctx: ran.set())
    s.schedule(chime.Job("g", "j", "t"), chime.Simple(0, repeat=0))
    assert ran.wait(30)
print("python3-chime", chime.__version__, "ran a job")
PY
ok "python3-chime imports and runs a job"

for page in "$ROOT"/usr/share/man/man*/*; do
  w=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
  [ -z "$w" ] || fail "man $page: $w"
done
ok "every packaged man page renders without a warning"
echo "test-deb: all passed"
