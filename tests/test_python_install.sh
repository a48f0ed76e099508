#!/usr/bin/env bash
# The Python binding as a user installs it, fully offline (PIP_NO_INDEX):
#   1. from the build tree (PYTHONPATH + VRAMEST_LIBRARY);
#   2. the README's Python block, verbatim (apt-get lines skipped), in a copy
#      laid out like the checkout: `python3 -m pip wheel bindings/python`
#      with pip's build isolation and no setuptools, a wheel bundling
#      build/lib/libvramest.so.1, installed into a fresh venv and imported
#      with no VRAMEST_LIBRARY and no LD_LIBRARY_PATH;
#   3. a pure wheel (VRAMEST_WHEEL_LIBRARY=none) in a venv that must find a
#      `meson install`-ed library (in a scratch DESTDIR) by each route:
#      VRAMEST_LIBRARY, LD_LIBRARY_PATH, pkg-config's libdir;
#   4. the guide's C and Python quick starts against the installed copies.
# The installed CLI and man page are checked on the way.
#
# Environment (set by tests/meson.build):
#   MESON            the meson command running this build
#   VT_BUILD_ROOT    the build directory to install from
#   VT_SOURCE_ROOT   the source tree (bindings/python is copied from it)
#   VT_PYTHON        the python3 to build the venvs with (see below)
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
major=${VT_VERSION%%.*}

fail() { echo "FAIL: $*" >&2; exit 1; }

host_env=()
if [ -n "${VT_HOST_LD_PRELOAD:-}" ]; then host_env+=("LD_PRELOAD=$VT_HOST_LD_PRELOAD"); fi
if [ -n "${VT_HOST_ASAN_OPTIONS:-}" ]; then host_env+=("ASAN_OPTIONS=$VT_HOST_ASAN_OPTIONS"); fi
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1

# --no-rebuild: meson builds what this test depends on (the library and the
# CLI) before it starts, and a second ninja running in the same build
# directory as the pkg-config install test would race with it.
# shellcheck disable=SC2086
$MESON install -C "$VT_BUILD_ROOT" --destdir "$destdir" --no-rebuild --quiet \
    || fail "meson install into $destdir"

so=$(find "$destdir" -name "libvramest.so.$major" | head -n 1)
[ -n "$so" ] || fail "no libvramest.so.$major installed under $destdir"
libdir=$(dirname "$so")
[ -e "$libdir/libvramest.so" ] || fail "no libvramest.so development link in $libdir"
cli=$(find "$destdir" -path '*/bin/vramest' | head -n 1)
[ -n "$cli" ] || fail "the vramest CLI is not installed"
man=$(find "$destdir" -path '*/man1/vramest.1*' | head -n 1)
[ -n "$man" ] || fail "the man page is not installed (install_man)"
LD_LIBRARY_PATH=$libdir "$cli" --version | grep -q "libvramest $VT_VERSION" \
    || fail "the installed CLI does not run against the installed library"

# venv + ensurepip (Debian: python3-venv) is all the binding needs: its build
# backend is standard library only. A python3 found earlier on PATH (pyenv)
# may lack ensurepip, so fall back to Debian's.
python=
for cand in "$VT_PYTHON" /usr/bin/python3; do
    if [ -x "$cand" ] && "$cand" -c "import venv, ensurepip" 2>/dev/null; then
        python=$cand
        break
    fi
done
[ -n "$python" ] || fail "no python3 with venv and ensurepip (Debian: python3-venv)"
echo "python: $python ($("$python" --version 2>&1))"

# 1. The documented build-tree use, before anything is installed.
build_so=$(find "$VT_BUILD_ROOT/lib" -maxdepth 1 -name 'libvramest.so' | head -n 1)
(cd "$tmp" && env "${host_env[@]}" PYTHONPATH="$VT_SOURCE_ROOT/bindings/python" VRAMEST_LIBRARY="$build_so" \
    "$python" -c "import vramest; print(vramest.estimate({'model': 'llama-2-7b', 'workload': {'mode': 'load'}}))" \
    | grep -q "'peak_allocated'") || fail "the one-liner from the build tree"

# 2. The README's block, verbatim, in a tree laid out like the checkout
# (bindings/python copied, so that nothing is written into the source tree;
# build/lib is this build's).
checkout=$tmp/checkout
mkdir -p "$checkout/bindings" "$checkout/build"
cp -r "$VT_SOURCE_ROOT/bindings/python" "$checkout/bindings/python"
find "$checkout/bindings/python" -name __pycache__ -prune -exec rm -rf {} +
ln -s "$VT_BUILD_ROOT/lib" "$checkout/build/lib"
block=$(awk '
    index($0, "<!-- test: readme-python ") == 1 { want = 1; next }
    want && /^```/ { if (inside) exit; inside = 1; next }
    inside && !/^apt-get / { print }' "$VT_SOURCE_ROOT/README.md")
[ -n "$block" ] || fail "README.md lost its <!-- test: readme-python --> block"
# Its python3 is the one found above (a pyenv python3 may lack ensurepip).
mkdir -p "$tmp/bin"
ln -s "$python" "$tmp/bin/python3"
out=$(cd "$checkout" && env -u PYTHONPATH -u VRAMEST_LIBRARY -u LD_LIBRARY_PATH -u VRAMEST_WHEEL_LIBRARY \
      "${host_env[@]}" PATH="$tmp/bin:$PATH" bash -euo pipefail -c "$block" 2>&1) \
    || fail "the README's Python block: $out"
echo "$out" | grep -q "^<vramest.Result peak_allocated .* GiB" || fail "the README's Python block printed: $out"
wheel=$(ls "$checkout"/dist/vramest-*.whl)
case $wheel in
    *-py3-none-linux_*.whl) ;;
    *) fail "the README's wheel is not tagged for this platform: $wheel" ;;
esac
# Listings are read whole: `grep -q` would close the pipe early (pipefail).
listing=$("$python" -m zipfile -l "$wheel")
grep -q "^vramest/libvramest.so.$major " <<<"$listing" || fail "the wheel does not bundle libvramest.so.$major"
"$python" - "$wheel" "vramest/libvramest.so.$major" "$VT_BUILD_ROOT/lib/libvramest.so.$major" <<'PY' \
    || fail "the wheel bundles another library than build/lib/libvramest.so.$major"
import sys, zipfile
with open(sys.argv[3], "rb") as f:
    sys.exit(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]) != f.read())
PY
echo "README block: $(echo "$out" | tail -n 1)"
[ -z "$(find "$checkout/bindings/python" -newer "$wheel" -not -name __pycache__ -not -path '*/__pycache__/*')" ] \
    || fail "building the wheel wrote into the source tree: $(find "$checkout/bindings/python" -newer "$wheel")"

# 3. A pure wheel in a venv, then the installed library through each route.
rm -rf "$checkout/dist"
(cd "$checkout" && VRAMEST_WHEEL_LIBRARY=none "$python" -m pip wheel --quiet --no-deps -w dist bindings/python) \
    || fail "python3 -m pip wheel with VRAMEST_WHEEL_LIBRARY=none"
pure=$(ls "$checkout"/dist/vramest-*-py3-none-any.whl) || fail "the pure wheel is not tagged py3-none-any"
listing=$("$python" -m zipfile -l "$pure")
if grep -q libvramest <<<"$listing"; then fail "the pure wheel bundles a library"; fi
"$python" -m venv --system-site-packages "$tmp/venv" || fail "python3 -m venv (Debian: python3-venv)"
py=$tmp/venv/bin/python
"$py" -m pip install --quiet --no-deps "$pure" || fail "pip install of the pure wheel"
rm -rf "$checkout"

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
    out=$(cd "$tmp" && env -u PYTHONPATH -u VRAMEST_LIBRARY -u LD_LIBRARY_PATH "${host_env[@]}" "$@" \
          "$py" -c "$probe") || fail "$how: import vramest / estimate failed"
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
check "VRAMEST_LIBRARY" VRAMEST_LIBRARY="$libdir/libvramest.so.$major"
check "LD_LIBRARY_PATH" LD_LIBRARY_PATH="$libdir"
# After `meson install` to a prefix whose loader cache is stale (no ldconfig
# yet), pkg-config knows the libdir. The DESTDIR copy's .pc names the real
# prefix, so a copy of it is pointed at the DESTDIR.
pc=$(find "$destdir" -name vramest.pc -path '*/pkgconfig/*' | head -n 1)
if [ -n "${PKG_CONFIG:-}" ] && [ -n "$pc" ]; then
    prefix=$(sed -n 's/^prefix=//p' "$pc")
    mkdir -p "$tmp/pc"
    sed "s|^prefix=.*|prefix=$destdir$prefix|" "$pc" > "$tmp/pc/vramest.pc"
    if (cd "$tmp" && env -u VRAMEST_LIBRARY -u LD_LIBRARY_PATH "${host_env[@]}" PKG_CONFIG_LIBDIR=/nonexistent \
            "$py" -c "import vramest") 2>/dev/null; then
        echo "pkg-config: skipped (a libvramest is installed on this machine; the search stops there)"
    else
        check "pkg-config" PKG_CONFIG="$PKG_CONFIG" PKG_CONFIG_PATH="$tmp/pc" PKG_CONFIG_LIBDIR="$tmp/pc"
    fi
fi

# 4. The guide's quick starts, as printed there: the C program built with
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
if [ -n "${PKG_CONFIG:-}" ] && [ -n "${CC:-}" ] && [ -n "$pc" ]; then
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
echo "ok: the README's wheel, a pure wheel + meson-installed libvramest $VT_VERSION, and the guide's quick starts"
