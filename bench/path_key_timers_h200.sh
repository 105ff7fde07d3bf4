#!/usr/bin/env bash
# One device call: what a launch's call path costs, from the profile's own timer ("call paths
# taken N us each"), one process a configuration and workload (the in-process alternation of
# bench/comparison_workloads.py, 4 off/on pairs). Carry .device/ (RT folders with
# libstrata_runtime.so; libunwind8_*.deb).
#   RT=.device/rt-new bash bench/path_key_timers_h200.sh              # each launch path key
#   RTS=".device/rt-old .device/rt-new" KEYS=cheap ROUNDS=3 bash bench/path_key_timers_h200.sh
#                                                                      # two runtimes, alternating
set -uo pipefail
RTS="${RTS:-${RT:-.device/rt-new}}"
source bench/device_env.sh
for round in $(seq 1 "${ROUNDS:-1}"); do
  for w in ${WORKLOADS:-tiny-kernels:100 gpt2-decode:2}; do
    for k in ${KEYS:-cheap trace}; do
      for rt in $RTS; do
        n=${w%%:*}; s=${w##*:}; d=/tmp/t-$n-$k-$(basename "$rt")-$round; mkdir -p "$d"
        (cd bench && timeout 100 env STRATA_GPU_PATH_KEY=$k STRATA_CAPTURE_RANGE=cudaProfilerApi \
          LD_PRELOAD="$PWD/../$rt/libstrata_runtime.so" STRATA_OUTPUT="$d/profile.strata" \
          taskset -c 2-5 python3 comparison_workloads.py "$n" ab "$s" "$d" 4 | tail -1)
        for f in "$d"/*.strata; do
          echo "round $round $n $k $(basename "$rt") $(basename "$f"): $(grep -ao 'call paths taken [0-9.]* us each[^;]\{0,150\}' "$f" | head -1)"
          echo "  operator $(grep -ao 'contexts [0-9]*, [0-9.]* us each[^;"[:cntrl:]]\{0,160\}' "$f" | head -1)"
        done
      done
    done
  done
done
