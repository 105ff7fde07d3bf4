#!/usr/bin/env bash
# PC sampling against CUPTI's floor (ResNet-50 training; first run with a collector thread, since
# reverted: docs/benchmarks.md), and GPT-2
# decoding under sampled tracing at two duty cycles, on the GPU machine:
#   STRATA_RUNTIME=.device/rt-E/libstrata_runtime.so bash bench/collector_sampled_h100.sh "$OUT"
# Carry .device/rt-E, .device/pcs (runtime, libunwind.so.8, pc_sampling_scale.py) and
# .device/libunwind8_*.deb. Everything ends up in $OUT/collector.tar.gz.
set -u
OUT="${1:?output folder}"
RT="${STRATA_RUNTIME:-.device/rt-E/libstrata_runtime.so}"
W="$OUT/w"; mkdir -p "$W"
LD_LIBRARY_PATH="$PWD/.device/pcs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" STRATA_CACHE_DIR=/tmp/strata-cache timeout 200 \
  python3 .device/pcs/pc_sampling_scale.py --runtime .device/pcs/libstrata_runtime.so --out /tmp/pcsc --rounds 2 --steps 20 \
  --configs none,strata,pcs-floor,pcs > "$W/pcs.log" 2>&1; echo "rc $?" >> "$W/pcs.log"
cp /tmp/pcsc/pc_sampling_scale.json "$W/" 2>/dev/null
STRATA_RUNTIME="$RT" timeout 280 bash bench/launch_cost_h100.sh "$W/gpt2" --workloads gpt2-decode --rounds 3 --cpus 2-5 \
  --configs "sampled 10/100;sampled 5/100" > "$W/gpt2.log" 2>&1; echo "rc $?" >> "$W/gpt2.log"
tar -C "$W" -czf "$OUT/collector.tar.gz" .
grep -E "^config|^none|^strata|^pcs|^goal|rc " "$W/pcs.log"; grep -E "^  |rc |round" "$W/gpt2.log"
