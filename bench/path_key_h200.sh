#!/usr/bin/env bash
# One device call: the launch path cache's cheap key (STRATA_GPU_PATH_KEY=cheap: no native trace;
# every hit compares the trace's return addresses where they lie on the stack) against the default
# key with the native trace. (1) Whether cached paths are right: STRATA_GPU_PATH_CACHE=verify on
# real models (every launch also takes its full path and compares). (2) What it saves: the
# in-process alternation of bench/profiler_comparison.py --ab on tiny kernels and decoding.
# KEYS (default "cheap trace"): the keys verified; VERIFY (default "decode resnet50"): the models
# (decode, resnet50, gpt2_train, compiled, gcn); VERIFY_S: each verify run's limit (default 90).
# Carry .device/ (RT folder with libstrata_runtime.so; libunwind8_*.deb).
#   RT=.device/rt-new bash bench/path_key_h200.sh "$OUT"
set -uo pipefail
OUT="${1:?output folder}"
RT="${RT:-.device/rt-new}"
source bench/device_env.sh
mkdir -p "$OUT/verify"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
for w in ${VERIFY:-decode resnet50}; do
  if [ $w = decode ]; then cmd=(bench/real_models/gpt2_generate.py 32 1 2); else cmd=(bench/real_models/models.py $w 4); fi
  for k in ${KEYS:-cheap trace}; do
    timeout ${VERIFY_S:-90} env STRATA_GPU_PATH_KEY=$k STRATA_GPU_PATH_CACHE=verify STRATA_OUTPUT="$OUT/verify/$w-$k.strata" \
      LD_PRELOAD="$RT/libstrata_runtime.so" taskset -c 2-5 python3 "${cmd[@]}" > "$OUT/verify/$w-$k.out" 2>&1
    echo "verify $w $k: exit $?"; grep "path cache verify" "$OUT/verify/$w-$k.out" | head -4
    grep -ao "path cache: [^;]\{0,160\}" "$OUT/verify/$w-$k.strata" | head -1
  done
done
(cd bench && timeout ${AB_SECONDS:-150} python3 profiler_comparison.py --ab --runtime "../$RT/libstrata_runtime.so" \
  --out "$OUT/ab" --workloads tiny-kernels,gpt2-decode --configs strata-cheapkey,strata --rounds "${ROUNDS:-1}" \
  --pairs ${PAIRS:-6} --cpus 2-5 --timeout ${TIMEOUT:-100}) 2>&1 | grep -vE '^\{'
tar -C "$OUT" -czf "$OUT/path_key.tar.gz" verify ab
