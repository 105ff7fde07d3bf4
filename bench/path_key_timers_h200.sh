#!/usr/bin/env bash
# One device call: what a launch's call path costs with each launch path key, from the profile's
# own timer ("call paths taken N us each"), one process a key and workload (the in-process
# alternation of bench/comparison_workloads.py, 4 off/on pairs). Carry .device/ (RT folder with
# libstrata_runtime.so; libunwind8_*.deb).
#   RT=.device/rt-new bash bench/path_key_timers_h200.sh
set -uo pipefail
RT="${RT:-.device/rt-new}"
source bench/device_env.sh
for w in ${WORKLOADS:-tiny-kernels:100 gpt2-decode:2}; do
  for k in cheap trace; do
    n=${w%%:*}; s=${w##*:}; d=/tmp/t-$n-$k; mkdir -p "$d"
    (cd bench && timeout 100 env STRATA_GPU_PATH_KEY=$k STRATA_CAPTURE_RANGE=cudaProfilerApi \
      LD_PRELOAD="$PWD/../$RT/libstrata_runtime.so" STRATA_OUTPUT="$d/profile.strata" \
      taskset -c 2-5 python3 comparison_workloads.py "$n" ab "$s" "$d" 4 | tail -1)
    for f in "$d"/*.strata; do echo "$n $k $(basename "$f"): $(grep -ao 'call paths taken [0-9.]* us each[^;]\{0,150\}' "$f" | head -1)"; done
  done
done
