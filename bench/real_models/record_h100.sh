#!/usr/bin/env bash
# Records bench/real_models/models.py (and GPT-2 decoding) under the runtime on the GPU machine,
# one profile per model, for bench/real_models/attribution_shares.py. Built here and carried
# (carry: .device): .device/rt-B/libstrata_runtime.so, .device/libunwind8_*.deb.
#   bash bench/real_models/record_h100.sh "$OUT"
# No operator plugin is carried: the runtime builds it on first use for the torch there, into an
# empty cache (the first torch model pays for it; its .out shows the build lines).
# KEEP_TORCH_TRACE=1: compiled models also keep Inductor's trace log and generated code
# ($OUT/MODEL.inductor.tar.gz: TORCH_TRACE dir + TORCHINDUCTOR_CACHE_DIR) for offline study.
# Writes $OUT/real_models.tar.gz (MODEL.strata + MODEL.out) and prints each run's exit and time.
set -uo pipefail
OUT="${1:?output folder}"
RT="${STRATA_RUNTIME:-.device/rt-B/libstrata_runtime.so}"
mkdir -p /tmp/strata-unwind && dpkg -x .device/libunwind8_*.deb /tmp/strata-unwind
export LD_LIBRARY_PATH="/tmp/strata-unwind/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONUNBUFFERED=1
P=/tmp/real_models; rm -rf $P; mkdir -p $P
export STRATA_CACHE_DIR=/tmp/strata-cache; rm -rf "$STRATA_CACHE_DIR"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "date: $(date -u +%FT%TZ)"
for m in ${MODELS:-resnet50 vit bert gpt2_train gcn compiled compiled_vit compiled_bert flax gpt2_generate}; do
  s=$(date +%s%N)
  if [ $m = gpt2_generate ]; then cmd=(bench/real_models/gpt2_generate.py); else cmd=(bench/real_models/models.py $m 10); fi
  keep=()
  if [ "${KEEP_TORCH_TRACE:-0}" = 1 ] && [[ $m == compiled* ]]; then
    rm -rf /tmp/ind-$m; mkdir -p /tmp/ind-$m/trace
    keep=(TORCH_TRACE=/tmp/ind-$m/trace TORCHINDUCTOR_CACHE_DIR=/tmp/ind-$m/cache)
  fi
  timeout 240 env "${keep[@]}" STRATA_OUTPUT="$P/$m.strata" LD_PRELOAD="$RT" python3 "${cmd[@]}" > "$P/$m.out" 2>&1
  rc=$?
  [ ${#keep[@]} -eq 0 ] || tar -C /tmp/ind-$m -czf "$OUT/$m.inductor.tar.gz" trace $(cd /tmp/ind-$m && find cache -name 'c*.py' -size -2M | grep -v triton)
  printf '%-10s exit %3d  %6d ms  %s bytes\n' $m $rc $(( ($(date +%s%N) - s) / 1000000 )) "$(stat -c %s "$P/$m.strata" 2>/dev/null)"
  [ $rc -eq 0 ] || tail -5 "$P/$m.out"
done
tar -C $P -czf "$OUT/real_models.tar.gz" .
ls -l "$OUT"
