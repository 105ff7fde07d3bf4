#!/usr/bin/env bash
# Records the same GPU programs under two builds of the runtime, alternating, on the GPU machine
# (H100, CUDA 13, PyTorch 2.11, JAX), so that test/gpu/compare_profiles.py can check that a change
# of the runtime's GPU collection left what a user sees unchanged. Built on the dev machine and
# carried (carry: .device):
#   .device/rt-A/libstrata_runtime.so, .device/rt-B/libstrata_runtime.so   (the two runtimes)
#   .device/bin/gpu_workload   nvcc -arch=sm_90 -g -lineinfo -O1 -Xcompiler -fno-omit-frame-pointer \
#                                   -cudart shared -o .device/bin/gpu_workload test/gpu/gpu_workload.cu
#   .device/bin/plain_app      nvcc -std=c++17 -O3 -arch=sm_90 -lineinfo -Iprofiler_runtime/include \
#                                   -Itest/regions test/regions/plain_app.cu -o .device/bin/plain_app
#   .device/libunwind8_*.deb   (apt-get download libunwind8)
#   bash test/gpu/compare_runtimes_h100.sh "$OUT"
# Writes $OUT/profiles.tar.gz (NAME.A.strata / NAME.B.strata per workload) and a log; then, here:
#   for n in ...; do python3 test/gpu/compare_profiles.py build/bin/strata n.A.strata n.B.strata; done
set -uo pipefail
OUT="${1:?output folder}"
mkdir -p /tmp/strata-unwind && dpkg -x .device/libunwind8_*.deb /tmp/strata-unwind
export LD_LIBRARY_PATH="/tmp/strata-unwind/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONUNBUFFERED=1
P=/tmp/cmp; rm -rf $P; mkdir -p $P
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "date: $(date -u +%FT%TZ)"
run() {  # run NAME SIDE TIMEOUT ENV... -- CMD...
  local name="$1" side="$2" t="$3"; shift 3
  local envs=(); while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  local s=$(date +%s%N)
  timeout "$t" env STRATA_OUTPUT="$P/$name.$side.strata" LD_PRELOAD=".device/rt-$side/libstrata_runtime.so" \
    "${envs[@]}" "$@" > "$P/$name.$side.out" 2>&1
  local rc=$?
  printf '%-14s %s exit %3d  %6d ms  %s\n' "$name" "$side" "$rc" "$(( ($(date +%s%N) - s) / 1000000 ))" \
    "$(ls -l "$P/$name.$side.strata" 2>/dev/null | awk '{print $5}') bytes"
  [ $rc -eq 0 ] || tail -5 "$P/$name.$side.out"
}
for side in ${SIDES:-A B B A}; do
  run cuda_workload $side 120 X=1 -- .device/bin/gpu_workload 20
  run pc_sampling $side 180 STRATA_PC_SAMPLING=continuous -- .device/bin/gpu_workload 5
  run regions $side 120 STRATA_REGIONS=all STRATA_REGIONS_MAX=3 -- .device/bin/plain_app 6
  run torch_train $side 200 X=1 -- python3 test/gpu/torch_train.py 50
  run jax_step $side 200 X=1 -- python3 test/gpu/jax_step.py 50
  run gpt2_generate $side 300 X=1 -- python3 bench/real_models/gpt2_generate.py 16
done
# The second (B A) round overwrote the first: the kept pair was recorded in the order B, A.
tar -C $P -czf "$OUT/profiles.tar.gz" .
ls -l "$OUT"
