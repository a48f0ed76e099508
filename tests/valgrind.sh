#!/bin/sh
# Run one test program under valgrind memcheck, children included, and fail
# when any process reported an error. Used by `meson test --setup valgrind`
# (tests/meson.build). Criterion runs every Test() in a re-executed worker
# process: without --trace-children those are not checked at all, and a
# worker's valgrind exit code does not reach the runner's (Criterion still
# counts the test as passed), so each process logs to its own file and this
# script reads the error summaries.
logs=$(mktemp -d "${TMPDIR:-/tmp}/vramest-valgrind.XXXXXX") || exit 99
valgrind --trace-children=yes --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
    --show-leak-kinds=definite --track-origins=yes --num-callers=30 --log-file="$logs/vg.%p" "$@"
rc=$?
bad=$(grep -L 'ERROR SUMMARY: 0 errors' "$logs"/vg.* 2>/dev/null)
procs=$(ls "$logs" | wc -l)
if [ -n "$bad" ]; then
    for f in $bad; do
        echo "---- valgrind: $f"
        cat "$f"
    done
    [ "$rc" -eq 0 ] && rc=1
fi
echo "valgrind: $procs processes checked, $(echo "$bad" | grep -c .) with errors"
rm -rf "$logs"
exit "$rc"
