#!/usr/bin/env bash
# Which CUPTI activity kind costs what, inside one process (bench/cupti_floor.py), on tiny kernels
# and GPT-2 decoding:   bash bench/cupti_kinds_h100.sh "$OUT"   (on the GPU machine)
set -u
OUT="${1:?output folder}"
for w in tiny-kernels gpt2-decode; do
  for k in kernel kernel,sync kernel,memcpy,memset; do
    taskset -c 2-5 timeout 100 python3 bench/cupti_floor.py --workload $w --kinds $k > "$OUT/kinds-$w-${k//,/+}.log" 2>&1
  done
done
grep -h -A5 "activity records" "$OUT"/kinds-*.log
