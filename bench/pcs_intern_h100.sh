#!/usr/bin/env bash
# PC sampling on ResNet-50 training after the function-name interning change, against no
# profiler and Strata without PC sampling (2 rounds), on the GPU machine:
#   bash bench/pcs_intern_h100.sh "$OUT"    (carry .device/pcs: runtime, libunwind.so.8, pc_sampling_scale.py)
set -u
OUT="${1:?output folder}"
LD_LIBRARY_PATH="$PWD/.device/pcs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" STRATA_CACHE_DIR=/tmp/strata-cache timeout 300 \
  python3 .device/pcs/pc_sampling_scale.py --runtime .device/pcs/libstrata_runtime.so --out /tmp/pcsi --rounds ${PCS_ROUNDS:-2} --steps 20 \
  --configs ${PCS_CONFIGS:-none,strata,pcs} > "$OUT/pcs.log" 2>&1; echo "rc $?" >> "$OUT/pcs.log"
cp /tmp/pcsi/pc_sampling_scale.json "$OUT/" 2>/dev/null
grep -E "^config|^none|^strata|^pcs|^goal|rc " "$OUT/pcs.log"; grep -o '"pc_sampling": "collected[^"]*' "$OUT/pcs.log" | grep -o "time in CUPTI.*" | head -3
