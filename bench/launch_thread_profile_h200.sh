#!/usr/bin/env bash
# One device call: where a launch-bound thread's time goes under Strata, seen by Strata's own CPU
# sampler at a short period (its frames inside the CUPTI callbacks included; libcupti's are
# addresses). Runs bench/comparison_workloads.py WORKLOAD with collection on from the start, once
# per configuration (CONFIGS: callbacks = API callbacks without call paths or operators; paths =
# with call paths; full), and brings the profiles back. Carry .device/ (RT with a runtime that
# keeps its symbol table: `strip --strip-debug`; libunwind8_*.deb).
#   RT=.device/rt-sym WORKLOAD=tiny-kernels STEPS=3000 bash bench/launch_thread_profile_h200.sh "$OUT"
# Read here: build/bin/strata report --view flat "$OUT"/WORKLOAD-CONFIG.strata
set -uo pipefail
OUT="${1:?output folder}"
RT="${RT:-.device/rt-sym}"
source bench/device_env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
W="${WORKLOAD:-tiny-kernels}"
NO_OPS=(STRATA_TORCH_BUILD=0 STRATA_TORCH_PLUGIN=/nonexistent)
for c in ${CONFIGS:-callbacks paths full}; do
  case "$c" in
    callbacks) extra=("${NO_OPS[@]}" STRATA_GPU_CALLPATHS=0) ;;
    paths) extra=("${NO_OPS[@]}") ;;
    full) extra=() ;;
    *) echo "unknown configuration $c"; exit 2 ;;
  esac
  echo "== $W $c"
  # The GPU timeline off (STRATA_GPU_TIMELINE=0): it made these profiles over the 16 MiB a file
  # that comes back, and the CPU samples are what is read here.
  (cd bench && timeout "${TIMEOUT:-150}" env "${extra[@]}" LD_PRELOAD="$PWD/../$RT/libstrata_runtime.so" \
    STRATA_PERIOD_MS="${PERIOD_MS:-0.5}" STRATA_GPU_TIMELINE=0 STRATA_OUTPUT="$OUT/$W-$c.strata" \
    python3 comparison_workloads.py "$W" none "${STEPS:-3000}" /tmp/trace) 2>&1 | tail -3
  ls -la "$OUT/$W-$c.strata"
done
