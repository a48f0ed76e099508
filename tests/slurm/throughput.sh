#!/usr/bin/env bash
# slurmctld's submit throughput with and without job_submit/vramest.
#
# Two one-node clusters run side by side (cluster.sh): one with the plugin,
# one without. N jobs, each a different one (its seq_len) with #VRAMEST
# directives, are submitted with `sbatch --test-only` to both, one job to
# each in turn (the order alternating), so both controllers see the same
# background load: on a shared machine, rounds taken one after the other
# differ by tens of percent from the load alone. Prints each controller's
# rate (N / the time its N sbatch runs took), their ratio, and each
# slurmctld's own average time per will-run RPC (sdiag).
#
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

for c in without with; do
    mkdir -p "$T/$c/etc"
    printf 'a100 = A100-80GB\ndefault = A100-80GB\n' >"$T/$c/etc/vramest.conf"
done
vs_cluster_start "$T/without" none || exit 1
vs_cluster_start "$T/with" "$plugin" || exit 1

python3 - "$n" "$T/without/etc/slurm.conf" "$T/with/etc/slurm.conf" <<'PY'
import os, re, subprocess, sys, time

n = int(sys.argv[1])
confs = {"without": sys.argv[2], "with": sys.argv[3]}


def job(i):
    # Every job differs, so the plugin's whole per-job path runs each time.
    return ("#!/bin/bash\n#SBATCH --job-name=tp\n"
            f"#VRAMEST --model llama-2-7b --precision bf16 --set mode=train --set batch_size=1 --set seq_len={1024 + i}\n"
            "#VRAMEST --set gradient_checkpointing=full\nsrun hostname\n")


def submit(name, i):
    env = dict(os.environ, SLURM_CONF=confs[name])
    t0 = time.perf_counter()
    r = subprocess.run(["sbatch", "--test-only", "--gres=gpu:a100:1"], input=job(i), env=env,
                       capture_output=True, text=True, timeout=30)
    return time.perf_counter() - t0, r.returncode == 0


for i in range(20):  # warm both: plugin load, model parse, page cache
    for name in confs:
        submit(name, i)
spent = {name: 0.0 for name in confs}
ok = {name: 0 for name in confs}
for i in range(n):
    order = ("without", "with") if i % 2 == 0 else ("with", "without")
    for name in order:
        dt, good = submit(name, i)
        spent[name] += dt
        ok[name] += good


def rpc(name):
    out = subprocess.run(["sdiag"], env=dict(os.environ, SLURM_CONF=confs[name]), capture_output=True,
                         text=True, timeout=30).stdout
    m = re.search(r"REQUEST_JOB_WILL_RUN\s*\(\s*\d+\)\s*count:(\d+)\s*ave_time:(\d+)", out)
    return (int(m[1]), int(m[2])) if m else (0, 0)


rate = {name: n / spent[name] for name in confs}
for name in confs:
    count, ave = rpc(name)
    print(f"{name:>8} plugin: {n} sbatch --test-only, {spent[name]:.2f} s in sbatch: {rate[name]:.1f} jobs/s "
          f"({ok[name]} admitted); slurmctld: {count} will-run RPCs, {ave} us each")
print(f"with / without: {100 * (rate['with'] / rate['without'] - 1):+.1f} % jobs/s")
PY
