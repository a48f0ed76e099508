#!/usr/bin/env bash
# The builds packagers make must be warning-free with gcc and with clang:
# -Dbuildtype=release, -Doptimization=3, -Dbuildtype=plain, -Db_lto=true,
# and -D_FORTIFY_SOURCE=3 (with the default optimisation). Each variant is
# configured with -Dwerror=true and builds the library and the example
# programs (the CLI among them), not the tests; a warning the compiler or
# the linker prints outside -Werror's reach (LTO) fails it too. Run by the
# README's test command (CI); about a minute on 2 cores.
#
# Usage: tests/check_build_variants.sh [OUTDIR]   (default build-variants)
set -u
cd "$(dirname "$0")/.."
out=${1:-build-variants}
mkdir -p "$out"
variants=(
    "release|-Dbuildtype=release"
    "o3|-Doptimization=3"
    "plain|-Dbuildtype=plain"
    "lto|-Db_lto=true"
    "fortify3|-Dc_args=-D_FORTIFY_SOURCE=3"
)
failed=()
for cc in gcc clang; do
    if ! command -v "$cc" >/dev/null 2>&1; then
        failed+=("$cc (not installed)")
        continue
    fi
    for v in "${variants[@]}"; do
        name=${v%%|*}
        opt=${v#*|}
        dir=$out/$cc-$name
        log=$out/$cc-$name.log
        rm -rf "$dir"
        if CC=$cc meson setup "$dir" "$opt" -Dwerror=true -Dtests=false -Ddocs=false >"$log" 2>&1 &&
            meson compile -C "$dir" -j 2 >>"$log" 2>&1 && ! grep -qi 'warning' "$log"; then
            echo "ok      $cc $opt"
        else
            echo "FAILED  $cc $opt (log: $log)"
            grep -i -m 20 -e 'warning' -e 'error' "$log" | sed 's/^/        /'
            failed+=("$cc $opt")
        fi
    done
done
if [ ${#failed[@]} -ne 0 ]; then
    echo "build variants failed: ${failed[*]}"
    exit 1
fi
echo "all build variants are warning-free"
