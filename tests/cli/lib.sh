# Helpers of the CLI shell tests (sourced). Each test is one `check` line:
# the arguments, the exit status wanted, and words its output must hold.
#
#   run ARGS...                 run vramest; sets $rc, $out (stdout), $err
#   expect_rc N "what"          the last run exited N
#   expect_out WORD "what"      stdout holds WORD (fixed string)
#   expect_err WORD "what"      stderr holds WORD
#   refute_out WORD "what"      stdout does not hold WORD
# A failure prints the command, its status and its output, and the test
# goes on, so one run lists every failure; the script exits 1 at the end.
set -u
VRAMEST=${1:?usage: $0 PATH/TO/vramest}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vramest-cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failures=0
last=""

run() {
    last="vramest $*"
    "$VRAMEST" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    out=$(cat "$tmp/out")
    err=$(cat "$tmp/err")
}

fail() {
    echo "FAIL: $1" >&2
    echo "  command: $last" >&2
    echo "  status:  $rc" >&2
    printf '  stdout:  %s\n' "$(printf '%s' "$out" | tail -n 12)" >&2
    printf '  stderr:  %s\n' "$err" >&2
    failures=$((failures + 1))
}

expect_rc() { [ "$rc" -eq "$1" ] || fail "$2: exit status $rc, wanted $1"; }
expect_out() { case "$out" in *"$1"*) ;; *) fail "$2: stdout lacks '$1'" ;; esac; }
expect_err() { case "$err" in *"$1"*) ;; *) fail "$2: stderr lacks '$1'" ;; esac; }
refute_out() { case "$out" in *"$1"*) fail "$2: stdout holds '$1'" ;; *) ;; esac; }

# A member of the last run's JSON output, by dotted path (python3 stdlib).
json_get() {
    printf '%s' "$out" | python3 -c '
import json, sys
v = json.load(sys.stdin)
for k in sys.argv[1].split("."):
    v = v[int(k)] if isinstance(v, list) else v.get(k)
print(json.dumps(v) if not isinstance(v, str) else v)' "$1"
}
expect_json() {
    local got
    got=$(json_get "$1" 2>/dev/null) || got="(no such member)"
    [ "$got" = "$2" ] || fail "$3: $1 is '$got', wanted '$2'"
}

finish() {
    if [ "$failures" -ne 0 ]; then
        echo "$failures failure(s)" >&2
        exit 1
    fi
    echo "all passed"
}
