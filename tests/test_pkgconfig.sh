#!/usr/bin/env bash
# Install into a scratch DESTDIR, then build and run a program the way a user
# would: with nothing but `pkg-config --cflags --libs vramest`.
#
# Environment (set by tests/meson.build):
#   MESON           the meson command running this build
#   VT_BUILD_ROOT   the build directory to install from
#   VT_VERSION      the project version the program must print
#   CC              the C compiler
#   PKG_CONFIG      pkg-config
#   VT_EXTRA_CFLAGS flags a user program needs to link this build
#                   (-fsanitize=... when the library is instrumented)
set -euo pipefail

: "${MESON:?}" "${VT_BUILD_ROOT:?}" "${VT_VERSION:?}"
CC=${CC:-cc}
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
VT_EXTRA_CFLAGS=${VT_EXTRA_CFLAGS:-}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vramest-pkgconfig.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
destdir=$tmp/destdir

fail() { echo "FAIL: $*" >&2; exit 1; }

# Without --no-rebuild: `meson test` builds only what tests depend on, and an
# install needs every installed target (the CLI too); ninja is idle by now.
# MESON may be several words (e.g. "python3 /path/meson.py"): split on purpose.
# shellcheck disable=SC2086
$MESON install -C "$VT_BUILD_ROOT" --destdir "$destdir" --quiet \
    || fail "meson install into $destdir"

pc=$(find "$destdir" -name vramest.pc -path '*/pkgconfig/*' | head -n 1)
[ -n "$pc" ] || fail "no vramest.pc installed under $destdir"
prefix=$(sed -n 's/^prefix=//p' "$pc")
[ -n "$prefix" ] || fail "$pc has no prefix= line"

# The .pc file names the final prefix; point it at the staged copy.
pkgconf() {
    PKG_CONFIG_PATH=$(dirname "$pc") "$PKG_CONFIG" --define-variable=prefix="$destdir$prefix" "$@"
}
pkgconf --exists vramest || fail "pkg-config does not find vramest in $(dirname "$pc")"
modversion=$(pkgconf --modversion vramest)
[ "$modversion" = "$VT_VERSION" ] || fail "pkg-config version '$modversion' != '$VT_VERSION'"

libdir=$(pkgconf --variable=libdir vramest)
includedir=$(pkgconf --variable=includedir vramest)
for f in "$includedir/vramest/vramest.h" "$includedir/vramest/vramest_version.h" \
         "$libdir/libvramest.so" "$libdir/libvramest.so.${VT_VERSION%%.*}"; do
    [ -e "$f" ] || fail "not installed: ${f#"$destdir"}"
done

cat > "$tmp/prog.c" <<'EOF'
#include <vramest/vramest.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    const char *v = vramest_version_string();
    printf("%s\n", v);
    if (strcmp(v, VRAMEST_VERSION_STRING) != 0 || vramest_version_number() != VRAMEST_VERSION_NUMBER) {
        fprintf(stderr, "header %s, library %s\n", VRAMEST_VERSION_STRING, v);
        return 1;
    }
    return 0;
}
EOF

cflags=$(pkgconf --cflags vramest)
libs=$(pkgconf --libs vramest)
echo "pkg-config --cflags --libs vramest: $cflags $libs"
# shellcheck disable=SC2086
$CC -std=c11 -Wall -Wextra -Werror $VT_EXTRA_CFLAGS -o "$tmp/prog" "$tmp/prog.c" $cflags $libs \
    || fail "compiling a program with pkg-config's flags"

# The program must run against the staged library, not the build tree's.
resolved=$(LD_LIBRARY_PATH=$libdir ldd "$tmp/prog" | awk '/libvramest/ { print $3 }')
case $resolved in
    "$destdir"/*) ;;
    *) fail "libvramest resolved to '$resolved', not the staged copy in $libdir" ;;
esac

out=$(LD_LIBRARY_PATH=$libdir "$tmp/prog") || fail "the program exited with $?"
[ "$out" = "$VT_VERSION" ] || fail "the program printed '$out', expected '$VT_VERSION'"
echo "ok: installed libvramest $out builds and runs through pkg-config"
