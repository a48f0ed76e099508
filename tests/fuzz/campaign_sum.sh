#!/usr/bin/env bash
# Sums campaign logs (tests/fuzz/campaign.sh) per target, as the Markdown
# table docs/security.md records. Each log line is one slice:
#   round target execs exec/s cov ft corpus_files crashes
# (crashes: artifact files in the target's directory when the slice ended,
# so the last slice's count is the campaign's). Several logs (campaigns one
# after another on the same corpus) are read in order.
#
# usage: tests/fuzz/campaign_sum.sh [-g GOAL] LOG...
#   -g executions each target must reach (default 10000000); the last
#      column says whether it did, with 0 crashes.
set -euo pipefail
goal=10000000
while getopts "g:" o; do
    case $o in
    g) goal=$OPTARG ;;
    *) sed -n '9,11p' "$0"; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { sed -n '9,11p' "$0"; exit 2; }
awk -v goal="$goal" '
NF == 8 && $3 ~ /^[0-9]+$/ {
    t = $2
    if (!(t in n)) { order[++k] = t; lo[t] = $4; hi[t] = $4; cov0[t] = $5; ft0[t] = $6; files0[t] = $7 }
    n[t] += $3; slices[t]++
    if ($4 < lo[t]) lo[t] = $4
    if ($4 > hi[t]) hi[t] = $4
    cov[t] = $5; ft[t] = $6; files[t] = $7; crashes[t] = $8
}
function commas(x,   s) {
    s = sprintf("%d", x)
    while (s ~ /[0-9][0-9][0-9][0-9]/) sub(/[0-9][0-9][0-9]([,]|$)/, ",&", s)
    return s
}
END {
    print "| target | executions | slices | exec/s per slice | crashes | edges (cov) first / last slice | features (ft) first / last | corpus files first / last | >= " commas(goal) ", 0 crashes |"
    print "|---|---:|---:|---:|---:|---:|---:|---:|---|"
    for (i = 1; i <= k; i++) {
        t = order[i]; all += n[t]; bad += crashes[t]
        printf "| %s | %s | %d | %s-%s | %d | %s / %s | %s / %s | %s / %s | %s |\n", t, commas(n[t]), slices[t],
            commas(lo[t]), commas(hi[t]), crashes[t], commas(cov0[t]), commas(cov[t]), commas(ft0[t]),
            commas(ft[t]), commas(files0[t]), commas(files[t]), (n[t] >= goal && crashes[t] == 0) ? "yes" : "**no**"
    }
    printf "\nIn all %s executions, %d crash, leak, timeout or out-of-memory artifacts.\n", commas(all), bad
}' "$@"
