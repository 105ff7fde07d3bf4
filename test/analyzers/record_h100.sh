#!/usr/bin/env bash
# Records the analyzer workloads (and their twins) on the GPU machine with the runtime and its
# GPU collector and PyTorch operator plugin; the profiles become fixtures under
# test/fixtures/h100/analyzers/. Run from the repo root there, with the runtime build carried:
#   bash test/analyzers/record_h100.sh BUILD_LIB_DIR "$OUT"
set -uo pipefail
LIB="${1:?folder with libstrata_runtime.so}"; OUT="${2:?output folder}"
mkdir -p /tmp/strata-unwind && dpkg -x .device/libunwind8_*.deb /tmp/strata-unwind
export LD_LIBRARY_PATH="/tmp/strata-unwind/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
W=test/analyzers/workloads
for spec in "index_backward:30" "small_ops:2000" "layout:50"; do
  name="${spec%%:*}"; steps="${spec##*:}"
  for variant in "" "--twin"; do
    tag="$name${variant:+_twin}"
    env STRATA_OUTPUT="$OUT/$tag.strata" STRATA_PERIOD_MS=5 LD_PRELOAD="$LIB/libstrata_runtime.so" \
      python3 "$W/$name.py" $variant "$steps" > "$OUT/$tag.log" 2>&1
    echo "$tag: exit $? $(stat -c %s "$OUT/$tag.strata" 2>/dev/null) bytes"
  done
done
