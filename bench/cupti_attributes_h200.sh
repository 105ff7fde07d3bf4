#!/usr/bin/env bash
# One device call: CUPTI's own per-launch cost under each set of activity attributes
# (bench/cupti_attributes.py), one set a process, the sets taking turns; tiny kernels with
# TINY_ROUNDS processes a set, then GPT-2 decoding with DECODE_ROUNDS.
#   TINY_ROUNDS=3 DECODE_ROUNDS=1 bash bench/cupti_attributes_h200.sh "$OUT"
set -uo pipefail
OUT="${1:?output folder}"
source bench/device_env.sh
SETS="${SETS:-base per-thread devbuf-64m devbuf-1m sema-pool no-pinned no-zeroing hw-trace}"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ; } | tee "$OUT/attributes.txt"
cd bench
for w in tiny-kernels gpt2-decode; do
  n=$([ "$w" = tiny-kernels ] && echo "${TINY_ROUNDS:-3}" || echo "${DECODE_ROUNDS:-1}")
  for r in $(seq "$n"); do
    for s in $SETS; do
      timeout 120 taskset -c 2-5 python3 cupti_attributes.py --workload "$w" --set "$s" 2>&1 | grep -v Warning | tail -3
    done
  done
done | tee -a "$OUT/attributes.txt"
