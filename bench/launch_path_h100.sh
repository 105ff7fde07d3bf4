#!/usr/bin/env bash
# One device call: the launch path's cost before and after a runtime change, inside one process
# each (bench/capture_ab.py: GPT-2 decoding, collection on between cudaProfilerStart/Stop, ratio
# to the same process before collection), and how many cached launch paths differ from the full
# path (STRATA_GPU_PATH_CACHE=verify) at 16, 24 and 40 native frames in the key, on GPT-2
# decoding and ResNet-50 training. Carry .device (rt-A and rt-B folders with
# libstrata_runtime.so, rt-B/strata the CLI, libunwind8_*.deb).
#   RT_A=.device/rt-F RT_B=.device/rt-G bash bench/launch_path_h100.sh "$OUT"
set -uo pipefail
OUT="${1:?output folder}"
A="${RT_A:?}/libstrata_runtime.so" B="${RT_B:?}/libstrata_runtime.so" CLI="${RT_B}/strata"
mkdir -p /tmp/strata-unwind && dpkg -x .device/libunwind8_*.deb /tmp/strata-unwind
export LD_LIBRARY_PATH="/tmp/strata-unwind/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export STRATA_CACHE_DIR=/tmp/strata-cache PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "date: $(date -u +%FT%TZ)"
mkdir -p "$OUT/lp"
timeout ${AB_SECONDS:-330} python3 bench/capture_ab.py --runtime "$A" --runtime-b "$B" --cli "$CLI" --out /tmp/ab \
  --rounds ${ROUNDS:-3} --cpus 2-5 --configs none,full,full-B,full-B-key24 2>&1 | tee "$OUT/lp/capture_ab.txt"
for k in 16 24 40; do
  for w in decode resnet50; do
    if [ $w = decode ]; then cmd=(bench/real_models/gpt2_generate.py); else cmd=(bench/real_models/models.py resnet50 6); fi
    timeout 90 env STRATA_GPU_PATH_CACHE=verify STRATA_GPU_PATH_KEY_FRAMES=$k STRATA_OUTPUT=/tmp/v-$w-$k.strata \
      LD_PRELOAD="$B" taskset -c 2-5 python3 "${cmd[@]}" > /tmp/v-$w-$k.out 2>&1
    echo "verify $w key $k: exit $? $("$CLI" report /tmp/v-$w-$k.strata --limit 1 2>/dev/null | grep -o 'call paths taken [0-9.]* us each ([^;]*mismatches))')"
  done
done 2>&1 | tee "$OUT/lp/verify.txt"
tar -C "$OUT" -czf "$OUT/launch_path.tar.gz" lp && rm -rf "$OUT/lp"
