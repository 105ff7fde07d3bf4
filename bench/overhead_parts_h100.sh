#!/usr/bin/env bash
# Where ResNet-50 training's cost under Strata comes from (each configuration adds one part),
# GPT-2 decoding full against sampled tracing (CUPTI detached between windows), and PC sampling
# against its CUPTI floor, on the GPU machine:
#   STRATA_RUNTIME=.device/rt-E/libstrata_runtime.so bash bench/overhead_parts_h100.sh "$OUT"
# Carry the stripped runtime (and libunwind.so.8 beside it in .device/pcs for the PC-sampling part)
# and .device/libunwind8_*.deb. Everything ends up in $OUT/parts.tar.gz.
set -u
OUT="${1:?output folder}"
RT="${STRATA_RUNTIME:-.device/rt-E/libstrata_runtime.so}"
W="$OUT/w"; mkdir -p "$W"
STRATA_RUNTIME="$RT" timeout 220 bash bench/launch_cost_h100.sh "$W/resnet" --workloads resnet50-train --rounds 2 --cpus 2-5 \
  --configs "runtime, no CUPTI;+ copy/set records;+ copy/set/sync records;+ call paths;+ operators (full);sampled 10/100" \
  > "$W/resnet.log" 2>&1; echo "rc $?" >> "$W/resnet.log"
rm -rf /tmp/lc
STRATA_RUNTIME="$RT" timeout 230 bash bench/launch_cost_h100.sh "$W/gpt2" --workloads gpt2-decode --rounds 3 --cpus 2-5 \
  --configs "+ operators (full);sampled 10/100" > "$W/gpt2.log" 2>&1; echo "rc $?" >> "$W/gpt2.log"
LD_LIBRARY_PATH="$PWD/.device/pcs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" STRATA_CACHE_DIR=/tmp/strata-cache timeout 100 \
  python3 .device/pcs/pc_sampling_scale.py --runtime .device/pcs/libstrata_runtime.so --out /tmp/pcsf --rounds 1 --steps 20 \
  --configs none,pcs-floor,pcs > "$W/pcs_floor.log" 2>&1; echo "rc $?" >> "$W/pcs_floor.log"
tar -C "$W" -czf "$OUT/parts.tar.gz" .
grep -E "^  |rc " "$W/resnet.log" "$W/gpt2.log"; grep -E "round|^config|^none|^pcs|^goal|rc " "$W/pcs_floor.log" | cut -c1-300
