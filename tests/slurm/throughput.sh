#!/usr/bin/env bash
# slurmctld's submit throughput with and without job_submit/vramest: N
# `sbatch --test-only` submissions of jobs with #VRAMEST directives (the
# plugin estimates every one; the model stays cached), one after another,
# on the one-node cluster of cluster.sh. Runs without, with, without, with
# the plugin (three times each), each on a fresh controller, and prints
# jobs per second and slurmctld's own time per will-run RPC (sdiag).
# A benchmark (`meson test --benchmark slurm-throughput`), not a test: it
# asserts nothing. Needs root and the Slurm packages, like run.sh.
#
#   tests/slurm/throughput.sh PATH/job_submit_vramest.so [N]
set -uo pipefail

plugin=${1:?usage: throughput.sh PATH/job_submit_vramest.so [N]}
n=${2:-1000}
here=$(cd "$(dirname "$0")" && pwd)
if [ "$(id -u)" -ne 0 ] || ! command -v slurmctld >/dev/null 2>&1; then
    echo "SKIP: needs root and the Slurm packages"
    exit 77
fi
unset LD_PRELOAD
# shellcheck source=tests/slurm/cluster.sh
. "$here/cluster.sh"

T=$(mktemp -d "${TMPDIR:-/tmp}/vramest-slurm-tp.XXXXXX")
trap 'vs_cluster_stop; rm -rf "$T"' EXIT

# Every job is different (its seq_len), so no two are judged alike: the
# plugin's whole per-job path on a cached model, not a repeated answer.
job() {
    printf '%s\n' '#!/bin/bash' '#SBATCH --job-name=tp' \
        "#VRAMEST --model llama-2-7b --set mode=train --set batch_size=1 --set seq_len=$((1024 + $1))" \
        '#VRAMEST --set gradient_checkpointing=full' 'srun hostname'
}

one_round() { # one_round without|with
    local dir=$T/$1.$RANDOM use=none t0 t1 ok=0 i
    [ "$1" = with ] && use=$plugin
    mkdir -p "$dir/etc"
    printf 'a100 = A100-80GB\ndefault = A100-80GB\n' >"$dir/etc/vramest.conf"
    vs_cluster_start "$dir" "$use" || return 1
    for i in $(seq 20); do job "$i" | timeout 30 sbatch --test-only --gres=gpu:a100:1 >/dev/null 2>&1; done
    t0=$(date +%s.%N)
    for i in $(seq "$n"); do
        job "$i" | timeout 30 sbatch --test-only --gres=gpu:a100:1 >/dev/null 2>&1 && ok=$((ok + 1))
    done
    t1=$(date +%s.%N)
    # The controller's own time per will-run RPC (sdiag: microseconds).
    rpc=$(timeout 10 sdiag | sed -n 's/^[[:space:]]*REQUEST_JOB_WILL_RUN *( *[0-9]*) count:\([0-9]*\) *ave_time:\([0-9]*\).*/\1 RPCs, controller time \2 us each/p')
    vs_cluster_stop
    python3 -c "import sys; n, ok, s = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]) - float(sys.argv[4]); \
print(f'{sys.argv[5]:>8} plugin: {n} sbatch --test-only in {s:.2f} s: {n / s:.1f} jobs/s ({ok} admitted); {sys.argv[6]}')" \
        "$n" "$ok" "$t1" "$t0" "$1" "$rpc"
    rm -rf "$dir"
}

for r in without with without with without with; do one_round "$r" || exit 1; done
