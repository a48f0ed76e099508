#!/usr/bin/env bash
# The three-valued verdict (issue #20 items 2 and 5): fits / fits only at the
# low end of the band / does not fit, in the exit status, the plan's
# "verdict" and the table's verdict line, with the headroom, and a rejection
# that names its dominant categories and the one change that makes it fit.
# usage: verdict.sh PATH/TO/vramest
. "$(dirname "$0")/lib.sh"

# fits: even the band's high end fits -> 0
run --model llama-2-7b --precision bf16 --set mode=load --device A100-80GB
expect_rc 0 "7B bf16 load on 80 GB"
expect_out "fits: yes" "fits line"
run --model llama-2-7b --precision bf16 --set mode=load --device A100-80GB --json
expect_rc 0 "--json"
expect_json verdict fits "plan verdict"
expect_json fits true "plan fits"
expect_json why null "no why when it fits"

# fits only at the low end: the estimate fits, the band's high end does not -> 3
LOW=(--model llama-2-7b --precision bf16 --set mode=train --set batch_size=2 --set seq_len=1024 --device A100-80GB)
run "${LOW[@]}"
expect_rc 3 "training at the low end"
expect_out "fits: ONLY AT THE LOW END" "low-end line"
run "${LOW[@]}" --json
expect_rc 0 "--json prints the plan"
expect_json verdict fits_low_end "plan verdict"
expect_json fits true "the estimate itself fits"
lo=$(json_get gpu.device_total_band.0) hi=$(json_get gpu.device_total_band.1) cap=$(json_get gpu.capacity)
[ "$lo" -le "$cap" ] && [ "$hi" -gt "$cap" ] || fail "low end: band $lo..$hi does not straddle $cap"

# does not fit -> 1, with why and the fix
run --model llama-2-7b --precision fp32 --set mode=load --device RTX4090-24GB
expect_rc 1 "fp32 load on 24 GB"
expect_out "fits: NO, needs" "rejection line"
expect_out "weights 25.10 GiB" "the dominant category named"
expect_out "precision=bf16 brings it to" "the fix named"
run --model llama-2-7b --precision fp32 --set mode=load --device RTX4090-24GB --json
expect_rc 0 "--json prints the plan"
expect_json verdict does_not_fit "plan verdict"
expect_json why.dominant.0.category weights "why: dominant category"
expect_json why.fix.text precision=bf16 "why: the fix"
expect_json why.fix.verdict fits "why: the fix's verdict"
case "$(json_get why.text)" in "needs 25."*"weights 25.10 GiB"*"precision=bf16 brings it to"*) ;;
*) fail "why.text: $(json_get why.text)" ;; esac

# The headroom turns a fit into a rejection; margin_bytes is against capacity less headroom.
run --model llama-2-7b --precision bf16 --set mode=load --device RTX4090-24GB --json
expect_json verdict fits "13 GiB on 24 GiB"
run --model llama-2-7b --precision bf16 --set mode=load --device RTX4090-24GB --set headroom_gib=12 --json
expect_json verdict does_not_fit "with 12 GiB headroom"
expect_json headroom_bytes 12884901888 "headroom echoed in bytes"
expect_json why.usable_bytes $(( $(json_get gpu.capacity) - 12884901888 )) "usable = capacity - headroom"
run --model llama-2-7b --precision bf16 --set mode=load --device RTX4090-24GB --set headroom_fraction=0.5
expect_rc 1 "half the card kept free"
expect_out "less" "the line says the headroom"
run --model llama-2-7b --set headroom_fraction=0.95
expect_rc 2 "headroom_fraction out of range"

# No device: no verdict, exit 0.
run --model llama-2-7b --json
expect_json verdict null "no device, no verdict"
run --model llama-2-7b
expect_rc 0 "no device"
expect_out "no device given" "no device line"

# A comparison exits with its best column's status.
run --model llama-2-7b --set mode=load --compare fp32,bf16 --device RTX4090-24GB
expect_rc 0 "compare: bf16 fits"
run --model llama-2-13b --set mode=load --compare fp32,fp16 --device V100-16GB
expect_rc 1 "compare: nothing fits"
run "${LOW[@]}" --compare-set batch_size=2,64
expect_rc 3 "compare: the best column fits only at the low end"
expect_out "low end" "compare table says low end"

# The header states the assumptions the answer rests on.
run --model llama-2-7b --set mode=train --device 4090
expect_out "assumes: " "assumptions line"
expect_out "optimizer adamw" "optimizer assumed"
expect_out "attention sdpa" "attention assumed"
expect_out "framework pytorch" "framework assumed"
expect_out "RTX4090-24GB (23.99 GiB)" "the device as resolved"

finish
