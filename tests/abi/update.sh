#!/usr/bin/env bash
# Regenerate the ABI baseline tests/abi/libvramest-1.0.abi from the sources
# as they are now (docs/abi-policy.md says when that is allowed). Builds the
# shared library in BUILD_DIR (default build-abi: a plain debugoptimized gcc
# build, as CI's), dumps its ABI, and shows what changed in the baseline.
# usage: tests/abi/update.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-abi}
[ -f "$build/build.ninja" ] || meson setup "$build" -Dtests=false -Ddocs=false --buildtype=debugoptimized >/dev/null
meson compile -C "$build" lib/vramest:shared_library >/dev/null
lib="$build/lib/libvramest.so.1"
hdr="$build/include/vramest/vramest_version.h"
base=tests/abi/libvramest-1.0.abi
old=$(mktemp)
trap 'rm -f "$old"' EXIT
[ -f "$base" ] && cp "$base" "$old"
python3 tests/abi/check.py dump "$lib" "$hdr" "$base"
if [ -s "$old" ]; then
    echo "changes to the baseline (abidiff old new):"
    abidiff "$old" "$base" || true
fi
python3 tests/abi/check.py check "$lib" "$hdr" "$base" | tail -1
echo "functions in the baseline: $(grep -c "<function-decl name='vramest_" "$base")"
