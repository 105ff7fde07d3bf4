#!/usr/bin/env bash
# The cpu-latency rule's loader case on the GPU machine: a PyTorch step fed by a thread-pool
# loader with 4 threads per core, and its twin with one per core (carry: .device; the runtime as
# in test/stalls/record_h100.sh).  bash test/analyzers/record_loader_h100.sh "$OUT"
set -uo pipefail
OUT="${1:?output folder}"
mkdir -p /tmp/strata-unwind && dpkg -x .device/libunwind8_*.deb /tmp/strata-unwind
export LD_LIBRARY_PATH="/tmp/strata-unwind/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
RT=.device/stalls/lib/libstrata_runtime.so
PY=/opt/torch/.venv/bin/python3
[ -x "$PY" ] || PY=python3
echo "date: $(date -u +%FT%TZ); cores $(nproc)"
timeout 120 env STRATA_OUTPUT="$OUT/loader_threads.strata" LD_PRELOAD="$RT" $PY test/analyzers/workloads/loader_threads.py --gpu --items 400
echo "loader: exit $?"
timeout 120 env STRATA_OUTPUT="$OUT/loader_threads_twin.strata" LD_PRELOAD="$RT" $PY test/analyzers/workloads/loader_threads.py --gpu --twin --items 400
echo "twin: exit $?"
ls -l "$OUT"
