#!/usr/bin/env bash
# Records the GPU fixtures and runs the GPU overhead benchmark on the GPU machine (H100, CUDA 13,
# PyTorch 2.11, Python 3.12). The runtime, the workload and the dump tool are built on the dev
# machine (x86-64) and carried with libunwind's .deb:
#   mkdir -p .device/gpu/lib .device/gpu/bin; cp build-gpu/lib/libstrata_runtime.so .device/gpu/lib/
#   cp build-gpu/bin/{gpu_workload,strata_rt_dump_profile} .device/gpu/bin/   # carry: .device
#   bash test/gpu/record_gpu_profiles.sh "$OUT" [bench]
set -uo pipefail
OUT="${1:?output folder}"
ROOT="$PWD"
mkdir -p /tmp/strata-unwind && dpkg -x .device/libunwind8_*.deb /tmp/strata-unwind
export LD_LIBRARY_PATH="/tmp/strata-unwind/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONUNBUFFERED=1
BIN="${STRATA_GPU_BIN:-$ROOT/.device/gpu}"
RT="$BIN/lib/libstrata_runtime.so"
DUMP="$BIN/bin/strata_rt_dump_profile"
W="$BIN/bin/gpu_workload"
PY=/opt/torch/.venv/bin/python3
[ -x "$PY" ] || PY=python3
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "date: $(date -u +%FT%TZ); torch $($PY -c 'import torch; print(torch.__version__)' 2>&1 | tail -1)"
show() { "$DUMP" "$1" 12 2>&1 | grep -v "^ *$" | head -60; }
# 1. CUDA C++ workload, runtime preloaded: profile + CUDA-event ground truth.
timeout 120 env STRATA_OUTPUT="$OUT/cuda_workload.strata" LD_PRELOAD="$RT" "$W" 50 > "$OUT/cuda_workload.truth.json"
echo "cuda_workload: exit $?"; cat "$OUT/cuda_workload.truth.json"; show "$OUT/cuda_workload.strata"
# 2. Loaded only through CUDA_INJECTION64_PATH (no LD_PRELOAD).
timeout 120 env STRATA_OUTPUT="$OUT/cuda_inject.strata" CUDA_INJECTION64_PATH="$RT" "$W" 10 > /tmp/inject.json
echo "cuda_inject: exit $?"; "$DUMP" "$OUT/cuda_inject.strata" 0 | grep -E "^gpu|^samples"
# 3. CUPTI held by another injection.
timeout 120 env STRATA_OUTPUT="/tmp/taken.strata" CUDA_INJECTION64_PATH=/nonexistent/other_tool.so LD_PRELOAD="$RT" "$W" 2 > /dev/null
echo "taken: exit $?"; "$DUMP" /tmp/taken.strata 0 | grep -E "^gpu"
# 4. PyTorch training loop.
timeout 200 env STRATA_OUTPUT="$OUT/torch_train.strata" LD_PRELOAD="$RT" $PY test/gpu/torch_train.py 100
echo "torch_train: exit $?"; show "$OUT/torch_train.strata"
# 4b. JAX jitted step (XLA HLO mapping; fixture test/fixtures/h100/jax/jax_step.strata).
timeout 200 env STRATA_OUTPUT="$OUT/jax_step.strata" LD_PRELOAD="$RT" python3 test/gpu/jax_step.py 200
echo "jax_step: exit $?"; "$DUMP" "$OUT/jax_step.strata" 0 | grep -E "^gpu"
# 5. Benchmark (item 6).
if [ "${2:-}" = bench ]; then
  timeout 400 $PY bench/gpu_overhead.py --runtime "$RT" --out /tmp/bench --reps "${REPS:-3}" 2>&1 | tee "$OUT/bench.log"
  cp /tmp/bench/gpu_overhead.json "$OUT/" 2>/dev/null
fi
ls -l "$OUT"
