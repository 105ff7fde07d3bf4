#!/usr/bin/env bash
# One device call: is a shorter launch-path key safe when the stack depth and the operators'
# scope addresses are keyed too (STRATA_GPU_PATH_KEY_SP=1)? STRATA_GPU_PATH_CACHE=verify counts the
# cached paths that differ from a fresh full path, on GPT-2 decoding, ResNet-50, GPT-2 training and
# a torch.compile'd ViT, for each key; then the call-path cost per launch inside one process
# (bench/capture_ab.py on GPT-2 decoding). Carry .device/rt-X (libstrata_runtime.so, strata) and
# .device/libunwind8_*.deb.
#   RT=.device/rt-M bash bench/launch_path_key_h100.sh "$OUT"
set -uo pipefail
OUT="${1:?output folder}"
RT="${RT:?}"; LIB="$RT/libstrata_runtime.so"; CLI="$RT/strata"
mkdir -p /tmp/strata-unwind && dpkg -x .device/libunwind8_*.deb /tmp/strata-unwind
export LD_LIBRARY_PATH="/tmp/strata-unwind/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export STRATA_CACHE_DIR=/tmp/strata-cache PYTHONUNBUFFERED=1
mkdir -p "$OUT/key"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/key/host.txt"; date -u +%FT%TZ | tee -a "$OUT/key/host.txt"
for spec in ${KEYS:-40:0 24:0 24:1 16:1 12:1}; do
  k=${spec%%:*} sp=${spec##*:}
  for w in ${VERIFY_WORKLOADS:-decode resnet50 gpt2_train compiled_vit}; do
    if [ $w = decode ]; then cmd=(bench/real_models/gpt2_generate.py); else cmd=(bench/real_models/models.py $w 6); fi
    timeout 120 env STRATA_GPU_PATH_CACHE=verify STRATA_GPU_PATH_KEY_FRAMES=$k STRATA_GPU_PATH_KEY_SP=$sp \
      STRATA_OUTPUT=/tmp/v-$w-$k-$sp.strata LD_PRELOAD="$LIB" taskset -c 2-5 python3 "${cmd[@]}" > "$OUT/key/v-$w-$k-$sp.out" 2>&1
    echo "verify $w key $k sp $sp: exit $? $("$CLI" report /tmp/v-$w-$k-$sp.strata --limit 1 2>/dev/null | grep -o 'call paths taken [0-9.]* us each ([^;]*mismatches))')"
    grep -m3 "path cache verify" "$OUT/key/v-$w-$k-$sp.out"
  done
done 2>&1 | tee "$OUT/key/verify.txt"
timeout ${AB_SECONDS:-200} python3 bench/capture_ab.py --runtime "$LIB" --cli "$CLI" --out /tmp/ab \
  --rounds ${ROUNDS:-2} --cpus 2-5 --configs full,full-key24-sp,full-key16-sp 2>&1 | tee "$OUT/key/capture_ab.txt"
tar -C "$OUT" -czf "$OUT/launch_path_key.tar.gz" key && rm -rf "$OUT/key"
