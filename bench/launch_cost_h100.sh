#!/usr/bin/env bash
# The launch-cost breakdown (bench/launch_cost.py) on the GPU machine, as run for
# docs/benchmarks.md. Carry: .device/rt-B/libstrata_runtime.so (stripped runtime) and
# .device/libunwind8_*.deb. The operator plugin is built once by a warm-up run, outside timing.
#   bash bench/launch_cost_h100.sh "$OUT" [launch_cost.py arguments, e.g. --workloads gpt2-decode]
set -uo pipefail
OUT="${1:?output folder}"; shift
RT="${STRATA_RUNTIME:-.device/rt-B/libstrata_runtime.so}"
mkdir -p /tmp/strata-unwind && dpkg -x .device/libunwind8_*.deb /tmp/strata-unwind
export LD_LIBRARY_PATH="/tmp/strata-unwind/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export STRATA_CACHE_DIR=/tmp/strata-cache
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
echo "date: $(date -u +%FT%TZ)  cpus: $(nproc)  load: $(cut -d' ' -f1-3 /proc/loadavg)"
STRATA_OUTPUT=/tmp/warm.strata LD_PRELOAD="$RT" python3 bench/gpu_workloads.py small 5 > /tmp/warm.out 2>&1 \
  || { echo "warm-up failed"; tail -5 /tmp/warm.out; }
python3 bench/launch_cost.py --runtime "$RT" --out /tmp/lc "$@"
rc=$?
cp /tmp/lc/launch_cost.json "$OUT/" 2>/dev/null
tar -C /tmp/lc -czf "$OUT/launch_cost_profiles.tar.gz" $(cd /tmp/lc && ls *.strata 2>/dev/null)
exit $rc
