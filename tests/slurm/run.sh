#!/usr/bin/env bash
# job_submit/vramest inside a real slurmctld: a one-node cluster on
# 127.0.0.1 (cluster.sh), jobs submitted with sbatch and updated with
# scontrol, every verdict and message checked as the user sees it, and the
# admin comment of accepted jobs. Run by `meson test` (suite 'slurm');
# exit 77 (skipped) without root or without the Slurm packages.
#
#   tests/slurm/run.sh PATH/job_submit_vramest.so
#
# Environment: VS_TRANSCRIPT (a file to write every command and its output
# to: docs/slurm.md quotes it), VS_SANITIZE (meson's b_sanitize: an
# instrumented plugin needs the sanitizer runtimes in slurmctld, which are
# taken from LD_PRELOAD and given to slurmctld alone).
set -uo pipefail

plugin=${1:?usage: run.sh PATH/job_submit_vramest.so}
here=$(cd "$(dirname "$0")" && pwd)
data=$here/../data/models

if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP: needs root (slurmctld, slurmd and munged run as root here)"
    exit 77
fi
for p in slurmctld slurmd munged sbatch scontrol sinfo python3; do
    if ! command -v "$p" >/dev/null 2>&1; then
        echo "SKIP: $p is not installed (apt-get install slurmctld slurmd slurm-client munge)"
        exit 77
    fi
done

VS_CTLD_PRELOAD=""
if [ "${VS_SANITIZE:-none}" != none ]; then
    VS_CTLD_PRELOAD=${LD_PRELOAD:-}
    if [ -z "$VS_CTLD_PRELOAD" ]; then
        echo "SKIP: sanitized plugin but no sanitizer runtime to preload into slurmctld"
        exit 77
    fi
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
fi
unset LD_PRELOAD

# shellcheck source=tests/slurm/cluster.sh
. "$here/cluster.sh"

T=$(mktemp -d "${TMPDIR:-/tmp}/vramest-slurm.XXXXXX")
transcript=${VS_TRANSCRIPT:-$T/transcript.txt}
: >"$transcript"
failures=0

finish() {
    local rc=$?
    vs_cluster_stop
    if [ "$failures" -ne 0 ] || [ "$rc" -ne 0 ]; then
        echo "---- slurmctld log (last 40 lines)"
        tail -n 40 "$T/cluster/log/slurmctld.log" 2>/dev/null
        echo "FAILED: $failures check(s)"
        rm -rf "$T"
        exit 1
    fi
    rm -rf "$T"
    echo "OK: all checks passed"
}
trap finish EXIT

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# run LABEL CMD...: run with a time limit; $out (stdout+stderr), $rc.
run() {
    local label=$1
    shift
    out=$(timeout 30 "$@" 2>&1)
    rc=$?
    {
        printf '### %s\n$ %s\n' "$label" "$*"
        printf '%s\n' "$out"
        printf '(exit %s)\n\n' "$rc"
    } >>"$transcript"
    echo "--- $label: exit $rc"
    printf '%s\n' "$out"
}

has() {
    case "$out" in
    *"$1"*) ;;
    *) fail "$label_now: output lacks: $1" ;;
    esac
}

lacks() {
    case "$out" in
    *"$1"*) fail "$label_now: output has: $1" ;;
    esac
}

# The job id of "Submitted batch job N".
job_id() {
    sed -n 's/^Submitted batch job \([0-9]*\).*/\1/p' <<<"$out"
}

admin_comment() {
    timeout 10 scontrol show job "$1" | sed -n 's/^ *AdminComment=//p' | sed 's/ *$//'
}

script() { # script NAME LINES...
    local f=$T/$1
    shift
    printf '%s\n' '#!/bin/bash' "$@" 'srun hostname' >"$f"
    printf '%s' "$f"
}

# sbatch_job LABEL accept|reject FILE "SBATCH OPTIONS" LINE...: write a
# script of LINEs, submit it, and check the outcome; $out and $rc stay.
sbatch_job() {
    label_now=$1
    local outcome=$2 file=$3 opts=$4
    shift 4
    # shellcheck disable=SC2086 # the options are words
    run "$label_now" sbatch $opts "$(script "$file" "$@")"
    if [ "$outcome" = accept ]; then
        [ "$rc" -eq 0 ] || fail "$label_now: rejected"
    else
        [ "$rc" -ne 0 ] || fail "$label_now: accepted"
    fi
}

# ---- the site: models, specs, vramest.conf ---------------------------------
mkdir -p "$T/models/llama-2-7b" "$T/models/private" "$T/outside"
chmod 755 "$T" "$T/models" "$T/models/llama-2-7b" "$T/outside"
chmod 700 "$T/models/private"
cp "$data/llama-2-7b.json" "$T/models/llama-2-7b/config.json"
cp "$data/llama-2-7b.json" "$T/models/private/config.json"
chmod 644 "$T/models/llama-2-7b/config.json"
printf '{"model": "llama-2-7b", "workload": {"mode": "infer"}}\n' >"$T/outside/spec.json"
ln -s "$T/outside/spec.json" "$T/models/spec-link.json"
mkdir -p "$T/cluster/etc"
cat >"$T/cluster/etc/vramest.conf" <<EOF
a100 = A100-80GB
t4 = T4
default = A100-80GB
allow = $T/models
require = no
EOF

vs_cluster_start "$T/cluster" "$plugin" || { fail "the cluster did not start"; exit 1; }
grep -q "job_submit/vramest: .*vramest.conf: 2 GPU types" "$T/cluster/log/slurmctld.log" \
    || fail "slurmctld did not load the plugin (no init line in its log)"

# ---- a job that fits: accepted, plan in the admin comment -------------------
sbatch_job "fits" accept fits.sh "--hold -o /dev/null --gres=gpu:a100:1" \
    '#VRAMEST --model llama-2-7b --set mode=infer --set batch_size=4'
has "sbatch: vramest: fits: needs "
has " of 80.00 GiB per GPU on 1 a100 GPU (A100-80GB), 1 per node on 1 node; peak in "
has "Submitted batch job "
fits_id=$(job_id)
comment=$(admin_comment "$fits_id")
printf '### admin comment of job %s\n$ scontrol show job %s | grep AdminComment\n   AdminComment=%s\n\n' \
    "$fits_id" "$fits_id" "$comment" >>"$transcript"
case "$comment" in
"vramest: fits: needs "*" | vramest-record {"*'"spec":{"model":"llama-2-7b","workload":{"mode":"infer","batch_size":4}}}') ;;
*) fail "fits: admin comment is '$comment'" ;;
esac

# ---- a job that does not fit: rejected with needed vs available and a fix ---
sbatch_job "does not fit" reject nofit.sh "-o /dev/null --gres=gpu:a100:2" \
    '#SBATCH --job-name=llama-train' '#VRAMEST --model llama-2-7b --precision bf16 --set mode=train --set batch_size=4'
has "sbatch: error: vramest: the job does not fit: it needs "
has " per GPU, and its GPUs have 80.00 GiB: 2 a100 GPUs (A100-80GB), 2 per node on 1 node"
has "sbatch: error: vramest: largest part: "
has "sbatch: error: vramest: best single change: add --set gradient_checkpointing=full (needs "
has "sbatch: error: Batch job submission failed: Invalid generic resource (gres) specification"
lacks "Submitted batch job"

# ---- far too big, with --test-only (sbatch's admission check, no job) -----
sbatch_job "test-only" reject huge-job.sh "--test-only --gres=gpu:t4:1" \
    '#VRAMEST --model qwen3-8b --set mode=train --set batch_size=8'
has "sbatch: error: vramest: the job does not fit: it needs "
has "sbatch: error: vramest: no single change makes it fit; the biggest saving: "

# ---- malformed directive: rejected with the parse error ---------------------
sbatch_job "malformed" reject typo.sh "-o /dev/null --gres=gpu:a100:1" \
    '#VRAMEST --model llama-2-7b --set batch_sise=4'
has "sbatch: error: vramest: #VRAMEST: --set \"batch_sise\": "
has "Batch job submission failed: Unspecified error"

sbatch_job "invalid UTF-8" reject utf8.sh "-o /dev/null --gres=gpu:a100:1" \
    $'#VRAMEST --model llama\xff-2-7b'
has "sbatch: error: vramest: line 2: #VRAMEST: invalid UTF-8 at column 23"

sbatch_job "huge number" reject huge.sh "-o /dev/null --gres=gpu:a100:1" \
    '#VRAMEST --model llama-2-7b --set batch_size=99999999999999999999999'
has "is not a 64-bit integer"

# ---- files outside the allowed directories, or not the user's to read ------
sbatch_job "outside" reject outside.sh "-o /dev/null --gres=gpu:a100:1" \
    "#VRAMEST --spec $T/outside/spec.json"
has "sbatch: error: vramest: spec file: '$T/outside/spec.json' is outside the directories vramest may read ($T/models)"
has "Batch job submission failed: Access/permission denied"

sbatch_job "symlink out" reject link.sh "-o /dev/null --gres=gpu:a100:1" \
    "#VRAMEST --spec $T/models/spec-link.json"
has "a symlink leads to '$T/outside/spec.json', outside the directories vramest may read"

sbatch_job "traversal" reject traversal.sh "-o /dev/null --gres=gpu:a100:1" \
    "#VRAMEST --model $T/models/../outside"
has "path traversal ('..') is not allowed"

sbatch_job "another user's directory" reject private.sh "--uid=nobody -o /dev/null --gres=gpu:a100:1" \
    "#VRAMEST --model $T/models/private --set mode=infer"
has "may not list the directory '$T/models/private'"

sbatch_job "model directory" accept dir.sh "--hold -o /dev/null --gpus=2" \
    "#VRAMEST --model $T/models/llama-2-7b --set mode=infer --set batch_size=8"
has "sbatch: vramest: fits: needs "
has " per GPU on 2 GPUs (A100-80GB); peak in "

# ---- no directive: passed untouched -----------------------------------------
sbatch_job "no directive" accept plain.sh "--hold -o /dev/null --gres=gpu:a100:4" '#SBATCH --job-name=plain'
lacks "vramest"
plain_id=$(job_id)
[ -z "$(admin_comment "$plain_id")" ] || [ "$(admin_comment "$plain_id")" = "(null)" ] \
    || fail "no directive: admin comment set"

# ---- inline JSON spec, then scontrol update to more GPUs --------------------
sbatch_job "inline spec" accept inline.sh "--hold -o /dev/null --gres=gpu:a100:2" \
    '#VRAMEST {"model": "qwen3-8b", "precision": "bf16",' \
    '#VRAMEST  "workload": {"mode": "train", "batch_size": 1, "gradient_checkpointing": "full"},' \
    '#VRAMEST  "parallel": {"zero_stage": 3}}'
has " per GPU on 2 a100 GPUs (A100-80GB)"
upd_id=$(job_id)

label_now="update to more GPUs"
run "$label_now" scontrol update "JobId=$upd_id" TresPerNode=gres:gpu:a100:4
[ "$rc" -eq 0 ] || fail "update to more GPUs: refused"
comment=$(admin_comment "$upd_id")
printf '### admin comment of job %s after the update\n   AdminComment=%s\n\n' "$upd_id" "$comment" >>"$transcript"
case "$comment" in
"vramest: fits: needs "*" per GPU on 4 a100 GPUs (A100-80GB)"*'"req":{"tres_per_node":"gres:gpu:a100:4"}'*) ;;
*) fail "update to more GPUs: admin comment is '$comment'" ;;
esac

label_now="update to small GPUs"
run "$label_now" scontrol update "JobId=$upd_id" TresPerNode=gres:gpu:t4:2
[ "$rc" -ne 0 ] || fail "update to small GPUs: accepted"
has "Invalid generic resource (gres) specification"
grep -q "job_submit/vramest: JobId=$upd_id update by uid 0 rejected: the job does not fit" \
    "$T/cluster/log/slurmctld.log" || fail "update to small GPUs: no log line"

# ---- the controller is still there ----------------------------------------
kill -0 "$VS_CTLD_PID" 2>/dev/null || fail "slurmctld died"
label_now="controller"
run "$label_now" scontrol ping
has "is UP"

# ---- a mistake in vramest.conf stops slurmctld at start, naming the line ----
vs_cluster_stop
{
    printf '### the plugin in slurmctld.log\n'
    sed -n 's/^\[[^]]*\] \(job_submit\/vramest: \)/\1/p' "$T/cluster/log/slurmctld.log"
    printf '\n'
} >>"$transcript"
label_now="bad vramest.conf"
printf 'a100 = A100-80GB\nv100 = V100-99GB\n' >"$T/cluster/etc/vramest.conf"
ctld=(slurmctld)
[ -z "$VS_CTLD_PRELOAD" ] || ctld=(env LD_PRELOAD="$VS_CTLD_PRELOAD" slurmctld)
run "$label_now" "${ctld[@]}" -D
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "bad vramest.conf: slurmctld exited $rc"
has "error: job_submit/vramest: $T/cluster/etc/vramest.conf:2: \"V100-99GB\" is neither a GPU preset"
has "fatal: failed to initialize job_submit plugin"
