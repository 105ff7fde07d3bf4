#!/usr/bin/env bash
# One device call: does Strata's cost on launch-bound programs depend on the CPUs left to its own
# threads (the aggregator resolves every launch's call path beside the launching thread)? The
# in-process alternation of bench/profiler_comparison.py --ab, the same configurations pinned to
# each CPU set of CPUSETS in turn (default "2-5 2-13": the comparisons' 4 CPUs, then 12).
# Carry .device/ (RT folder with libstrata_runtime.so; libunwind8_*.deb).
#   RT=.device/rt-new bash bench/cpu_room_h200.sh "$OUT"
set -uo pipefail
OUT="${1:?output folder}"
RT="${RT:-.device/rt-new}"
source bench/device_env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ; nproc
for round in $(seq 1 "${ROUNDS:-1}"); do
  for cpus in ${CPUSETS:-2-5 2-13}; do
    echo "== round $round, CPUs $cpus"
    (cd bench && timeout ${AB_SECONDS:-200} python3 profiler_comparison.py --ab --runtime "../$RT/libstrata_runtime.so" \
      --out "$OUT/ab-$cpus-$round" --workloads "${WORKLOADS:-tiny-kernels}" --configs "${CONFIGS:-strata-callbacks,strata-paths,strata}" \
      --rounds 1 --pairs "${PAIRS:-6}" --cpus "$cpus" --timeout 100) 2>&1 | grep -E '^\|' 
    rm -f "$OUT/ab-$cpus-$round"/*.strata
  done
done
