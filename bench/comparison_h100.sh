#!/usr/bin/env bash
# One device call of bench/profiler_comparison.py (Strata beside torch.profiler and Proton,
# alternating, each configuration its own process per round) for the workloads named, plus,
# with VERIFY=1, GPT-2 decoding and ResNet-50 training with STRATA_GPU_PATH_CACHE=verify (the
# runtime logs where the first cached launch paths differ from full ones). The workloads are
# split over several calls because a call has at most 10 minutes. Carry .device/rt-H
# (libstrata_runtime.so, strata) and .device/libunwind8_*.deb.
#   WORKLOADS=resnet50-train ROUNDS=3 bash bench/comparison_h100.sh "$OUT"
set -uo pipefail
OUT="${1:?output folder}"
RT="${RT:-.device/rt-H}"
source bench/device_env.sh
W="$OUT/cmp"; mkdir -p "$W"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ; } | tee "$W/host.txt"
if [ "${VERIFY:-0}" = 1 ]; then
  for w in decode resnet50; do
    if [ $w = decode ]; then cmd=(bench/real_models/gpt2_generate.py); else cmd=(bench/real_models/models.py resnet50 6); fi
    timeout 90 env STRATA_GPU_PATH_CACHE=verify STRATA_OUTPUT=/tmp/v-$w.strata LD_PRELOAD="$RT/libstrata_runtime.so" \
      taskset -c 2-5 python3 "${cmd[@]}" > "$W/verify-$w.out" 2>&1
    echo "verify $w: exit $? $("$RT/strata" report /tmp/v-$w.strata --limit 1 2>/dev/null | grep -o 'path cache: [^;]*mismatches))')"
    grep "path cache verify" "$W/verify-$w.out" | head -8
  done 2>&1 | tee "$W/verify.txt"
fi
(cd bench && timeout ${CMP_SECONDS:-480} python3 profiler_comparison.py --runtime "../$RT/libstrata_runtime.so" --out "$W/runs" \
  --workloads "${WORKLOADS:?}" --rounds "${ROUNDS:-3}" --cpus 2-5 --timeout 150) > "$W/comparison.txt" 2> "$W/comparison.err"
echo "rc $?" >> "$W/comparison.txt"
find "$W/runs" -name '*.strata' -size +5M -delete 2>/dev/null
find "$W/runs" \( -name '*.json' -o -name '*.json.gz' -o -name '*.pt.trace.json' \) -size +1M -delete 2>/dev/null
tar -C "$OUT" -czf "$OUT/comparison.tar.gz" cmp
grep -E "^\||x[0-9]|rc " "$W/comparison.txt" | tail -40
