#!/usr/bin/env bash
# The README's second command (the test command) must be exactly what CI runs:
# the line between the "README test command" markers in .ci/run.
# usage: check_readme_ci.sh README.md .ci/run
set -euo pipefail

readme=${1:?usage: check_readme_ci.sh README.md .ci/run}
ci=${2:?usage: check_readme_ci.sh README.md .ci/run}

# Body of the second fenced code block of the README.
readme_cmd=$(awk '
    /^```/ { if (inside) { inside = 0; n++ } else inside = 1; next }
    inside && n == 1 { body = body $0 "\n" }
    END { printf "%s", body }' "$readme")
ci_cmd=$(sed -n '/^# BEGIN README TEST COMMAND/,/^# END README TEST COMMAND/{/^#/d;p}' "$ci")

lines() { [ -z "$1" ] && echo 0 || printf '%s\n' "$1" | wc -l; }
status=0
[ -n "$readme_cmd" ] || { echo "FAIL: $readme has no second fenced code block"; status=1; }
[ -n "$ci_cmd" ] || { echo "FAIL: $ci has no line between the README TEST COMMAND markers"; status=1; }
[ "$(lines "$readme_cmd")" -le 1 ] || { echo "FAIL: the README test command is not one line"; status=1; }
[ "$(lines "$ci_cmd")" -le 1 ] || { echo "FAIL: the CI test command is not one line"; status=1; }
if [ "$readme_cmd" != "$ci_cmd" ]; then
    echo "FAIL: the README test command and .ci/run differ:"
    diff <(printf '%s\n' "$readme_cmd" | tr -s ' ' '\n') <(printf '%s\n' "$ci_cmd" | tr -s ' ' '\n') || true
    status=1
fi
[ $status -eq 0 ] && echo "ok: README test command == .ci/run: $ci_cmd"
exit $status
