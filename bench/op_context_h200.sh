#!/usr/bin/env bash
# One device call: cached operator contexts on real models. (1) Are they right:
# STRATA_OP_CONTEXT_CACHE=verify (every hit also taken in full and compared; meta `operators`
# counts contexts that differed, and those whose native frames had changed and were taken
# afresh) on models nobody here wrote (bench/real_models/models.py: VERIFY, default a
# torch.compile'd model twice, GPT-2 training, ResNet-50 training), one process each with each
# runtime of VERIFY_RTS (default RT).
# (2) What the check at every hit costs: the profile's own timer of contexts and call paths on
# tiny kernels (bench/path_key_timers_h200.sh) with RTS (default RT_B then RT), alternating.
# Carry .device/ (RT and RT_B folders with libstrata_runtime.so; libunwind8_*.deb).
#   RT=.device/rt-new RT_B=.device/rt-prev bash bench/op_context_h200.sh "$OUT"
set -uo pipefail
OUT="${1:?output folder}"
RT="${RT:-.device/rt-new}"
source bench/device_env.sh
mkdir -p "$OUT/verify"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
i=0
for w in ${VERIFY:-compiled gpt2_train compiled resnet50}; do
  for rt in ${VERIFY_RTS:-$RT}; do
    i=$((i + 1)); tag=$i-$w-$(basename "$rt")
    timeout ${VERIFY_S:-90} env STRATA_OP_CONTEXT_CACHE=verify STRATA_GPU_PATH_CACHE=verify STRATA_OUTPUT="$OUT/verify/$tag.strata" \
      LD_PRELOAD="$rt/libstrata_runtime.so" taskset -c 2-5 python3 bench/real_models/models.py "$w" 4 > "$OUT/verify/$tag.out" 2>&1
    echo "verify $tag: exit $?"; grep -a "operator context verify\|path cache verify" "$OUT/verify/$tag.out" | head -3
    grep -ao '[0-9]* operator calls, [^;"[:cntrl:]]*' "$OUT/verify/$tag.strata" | head -1
    grep -ao 'contexts [0-9]*, [0-9.]* us each[^;"[:cntrl:]]\{0,200\}' "$OUT/verify/$tag.strata" | head -1
    grep -ao "path cache: [^;[:cntrl:]]\{0,160\}" "$OUT/verify/$tag.strata" | head -1
  done
done
[ "${ROUNDS:-2}" -gt 0 ] && RTS="${RT_B:+$RT_B }$RT" KEYS=cheap ROUNDS="${ROUNDS:-2}" WORKLOADS="${WORKLOADS:-tiny-kernels:100}" bash bench/path_key_timers_h200.sh
rm -f "$OUT"/verify/*.strata
tar -C "$OUT" -czf "$OUT/op_context.tar.gz" verify && rm -rf "$OUT/verify"
