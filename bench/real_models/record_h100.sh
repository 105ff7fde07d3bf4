#!/usr/bin/env bash
# Records bench/real_models/models.py (and GPT-2 decoding) under the runtime on the GPU machine,
# one profile per model, for bench/real_models/attribution_shares.py. Built here and carried
# (carry: .device): .device/rt-B/libstrata_runtime.so, .device/libunwind8_*.deb.
#   bash bench/real_models/record_h100.sh "$OUT"
# Writes $OUT/real_models.tar.gz (MODEL.strata + MODEL.out) and prints each run's exit and time.
set -uo pipefail
OUT="${1:?output folder}"
RT="${STRATA_RUNTIME:-.device/rt-B/libstrata_runtime.so}"
mkdir -p /tmp/strata-unwind && dpkg -x .device/libunwind8_*.deb /tmp/strata-unwind
export LD_LIBRARY_PATH="/tmp/strata-unwind/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONUNBUFFERED=1
P=/tmp/real_models; rm -rf $P; mkdir -p $P
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "date: $(date -u +%FT%TZ)"
for m in resnet50 vit bert gcn compiled flax; do
  s=$(date +%s%N)
  timeout 240 env STRATA_OUTPUT="$P/$m.strata" LD_PRELOAD="$RT" python3 bench/real_models/models.py $m 10 > "$P/$m.out" 2>&1
  rc=$?
  printf '%-10s exit %3d  %6d ms  %s bytes\n' $m $rc $(( ($(date +%s%N) - s) / 1000000 )) "$(stat -c %s "$P/$m.strata" 2>/dev/null)"
  [ $rc -eq 0 ] || tail -5 "$P/$m.out"
done
tar -C $P -czf "$OUT/real_models.tar.gz" .
ls -l "$OUT"
