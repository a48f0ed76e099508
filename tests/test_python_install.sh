#!/usr/bin/env bash
# The Python binding as a user installs it, fully offline:
#   meson install (into a scratch DESTDIR) + pip install ./bindings/python
#   (into a venv with --system-site-packages, Debian's setuptools, no build
#   isolation, no index), then, from outside the source tree,
#   python3 -c "import vramest; print(vramest.estimate({...}))"
# must load the *installed* library: once through VRAMEST_LIBRARY, once
# through LD_LIBRARY_PATH alone (ctypes.util.find_library, then the soname).
# The installed CLI and man page are checked on the way.
#
# Environment (set by tests/meson.build):
#   MESON            the meson command running this build
#   VT_BUILD_ROOT    the build directory to install from
#   VT_SOURCE_ROOT   the source tree (bindings/python is copied from it)
#   VT_PYTHON        the python3 to build the venv with (see below)
#   VT_VERSION       the project version
#   CC, PKG_CONFIG, VT_EXTRA_CFLAGS
#                    to build the guide's C quick start (skipped without them)
#   VT_HOST_LD_PRELOAD, VT_HOST_ASAN_OPTIONS
#                    sanitizer runtimes for a python3 loading an
#                    instrumented library (empty in a plain build)
set -euo pipefail

: "${MESON:?}" "${VT_BUILD_ROOT:?}" "${VT_SOURCE_ROOT:?}" "${VT_PYTHON:?}" "${VT_VERSION:?}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vramest-pyinstall.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
destdir=$tmp/destdir

fail() { echo "FAIL: $*" >&2; exit 1; }

host_env=()
if [ -n "${VT_HOST_LD_PRELOAD:-}" ]; then host_env+=("LD_PRELOAD=$VT_HOST_LD_PRELOAD"); fi
if [ -n "${VT_HOST_ASAN_OPTIONS:-}" ]; then host_env+=("ASAN_OPTIONS=$VT_HOST_ASAN_OPTIONS"); fi

# --no-rebuild: meson builds what this test depends on (the library and the
# CLI) before it starts, and a second ninja running in the same build
# directory as the pkg-config install test would race with it.
# shellcheck disable=SC2086
$MESON install -C "$VT_BUILD_ROOT" --destdir "$destdir" --no-rebuild --quiet \
    || fail "meson install into $destdir"

so=$(find "$destdir" -name "libvramest.so.${VT_VERSION%%.*}" | head -n 1)
[ -n "$so" ] || fail "no libvramest.so.${VT_VERSION%%.*} installed under $destdir"
libdir=$(dirname "$so")
[ -e "$libdir/libvramest.so" ] || fail "no libvramest.so development link in $libdir"
cli=$(find "$destdir" -path '*/bin/vramest' | head -n 1)
[ -n "$cli" ] || fail "the vramest CLI is not installed"
man=$(find "$destdir" -path '*/man1/vramest.1*' | head -n 1)
[ -n "$man" ] || fail "the man page is not installed (install_man)"
LD_LIBRARY_PATH=$libdir "$cli" --version | grep -q "libvramest $VT_VERSION" \
    || fail "the installed CLI does not run against the installed library"

# An offline `pip install --no-build-isolation` builds with the setuptools and
# wheel already installed. Debian's python3-pip brings both; a python3 found
# earlier on PATH (pyenv, a venv) may lack wheel, so fall back to Debian's.
python=
for cand in "$VT_PYTHON" /usr/bin/python3; do
    if [ -x "$cand" ] && "$cand" -c "import venv, ensurepip, setuptools, wheel, pip" 2>/dev/null; then
        python=$cand
        break
    fi
done
[ -n "$python" ] || fail "no python3 with venv, pip, setuptools and wheel (Debian: python3-venv python3-pip python3-setuptools)"
echo "python: $python ($("$python" --version 2>&1))"

# The documented build-tree use, before anything is installed.
build_so=$(find "$VT_BUILD_ROOT/lib" -maxdepth 1 -name 'libvramest.so' | head -n 1)
(cd "$tmp" && env "${host_env[@]}" PYTHONPATH="$VT_SOURCE_ROOT/bindings/python" VRAMEST_LIBRARY="$build_so" \
    "$python" -c "import vramest; print(vramest.estimate({'model': 'llama-2-7b', 'workload': {'mode': 'load'}}))" \
    | grep -q "'peak_allocated'") || fail "the one-liner from the build tree"

# pip builds in the directory it is given: build a copy, never the source tree.
cp -r "$VT_SOURCE_ROOT/bindings/python" "$tmp/src"
"$python" -m venv --system-site-packages "$tmp/venv" || fail "python3 -m venv (Debian: python3-venv)"
py=$tmp/venv/bin/python
PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 \
    "$py" -m pip install --quiet --no-build-isolation --no-deps "$tmp/src" \
    || fail "pip install --no-build-isolation ./bindings/python (Debian: python3-pip python3-setuptools)"
rm -rf "$tmp/src"


# Which library a process really mapped, and which package it imported.
probe='
import os, sys, vramest
plan = vramest.estimate({"model": "llama-2-7b", "workload": {"mode": "load"}})
print(plan["gpu"]["peak_allocated"])
maps = [l.split()[-1] for l in open("/proc/self/maps") if "libvramest" in l]
print("package", os.path.dirname(vramest.__file__))
print("library", os.path.realpath(maps[0]) if maps else "none")
print("loaded-as", vramest.LIBRARY_PATH)
'
check() {
    local how=$1 out
    shift
    out=$(cd "$tmp" && env -u PYTHONPATH -u VRAMEST_LIBRARY "${host_env[@]}" "$@" "$py" -c "$probe") \
        || fail "$how: import vramest / estimate failed"
    echo "$how: $(echo "$out" | tr '\n' ' ')"
    [ "$(echo "$out" | head -n 1)" -gt 0 ] 2>/dev/null || fail "$how: no peak_allocated in the plan"
    case $(echo "$out" | sed -n 's/^package //p') in
        "$tmp/venv/"*) ;;
        *) fail "$how: vramest was not imported from the venv" ;;
    esac
    case $(echo "$out" | sed -n 's/^library //p') in
        "$destdir"/*) ;;
        *) fail "$how: the binding loaded a library outside the installed copy" ;;
    esac
}
check "VRAMEST_LIBRARY" VRAMEST_LIBRARY="$libdir/libvramest.so.${VT_VERSION%%.*}"
check "LD_LIBRARY_PATH" LD_LIBRARY_PATH="$libdir"

# The guide's quick starts, as printed there: the C program built with
# nothing but pkg-config's flags, the Python one run with the installed copy.
guide=$VT_SOURCE_ROOT/docs/guide.md
snippet() {  # the fenced block that follows the line "<!-- test: NAME ..."
    awk -v name="$1" '
        index($0, "<!-- test: " name " ") == 1 { want = 1; next }
        want && /^```/ { if (inside) exit; inside = 1; next }
        inside { print }' "$guide"
}
snippet app.c > "$tmp/app.c"
snippet quick.py > "$tmp/quick.py"
[ -s "$tmp/app.c" ] && [ -s "$tmp/quick.py" ] || fail "docs/guide.md lost its <!-- test: --> quick starts"
if [ -n "${PKG_CONFIG:-}" ] && [ -n "${CC:-}" ]; then
    pc=$(find "$destdir" -name vramest.pc -path '*/pkgconfig/*' | head -n 1)
    prefix=$(sed -n 's/^prefix=//p' "$pc")
    pkgconf() {
        PKG_CONFIG_PATH=$(dirname "$pc") "$PKG_CONFIG" --define-variable=prefix="$destdir$prefix" "$@"
    }
    # shellcheck disable=SC2046,SC2086
    $CC -std=c11 -Wall -Wextra -Werror ${VT_EXTRA_CFLAGS:-} -o "$tmp/app" "$tmp/app.c" \
        $(pkgconf --cflags --libs vramest) || fail "the guide's C quick start does not build"
    status=0
    out=$(LD_LIBRARY_PATH=$libdir "$tmp/app") || status=$?
    [ "$status" -le 1 ] && echo "$out" | grep -q "^device_total .* GiB: " \
        || fail "the guide's C quick start: exit $status, output: $out"
    echo "guide app.c: $(echo "$out" | tail -n 2 | tr '\n' ' ')"
fi
(cd "$tmp" && env -u PYTHONPATH -u VRAMEST_LIBRARY "${host_env[@]}" LD_LIBRARY_PATH="$libdir" "$py" quick.py \
    > "$tmp/quick.out") || fail "the guide's Python quick start: $(cat "$tmp/quick.out")"
grep -q "out of range" "$tmp/quick.out" || fail "the guide's Python quick start printed: $(cat "$tmp/quick.out")"

# The documented one-liner, verbatim.
(cd "$tmp" && env -u PYTHONPATH "${host_env[@]}" LD_LIBRARY_PATH="$libdir" "$tmp/venv/bin/python3" -c \
    "import vramest; print(vramest.estimate({'model': 'llama-2-7b', 'workload': {'mode': 'load'}}))" \
    | grep -q "'peak_allocated'") || fail "the README one-liner"
echo "ok: pip-installed binding + meson-installed libvramest $VT_VERSION work together"
