#!/usr/bin/env bash
# One device call: Strata's instruments on a replay (`strata replay --pc-sampling / --regions`).
# The H100 fixture test/fixtures/snapshot/axpy.snap replayed with PC sampling; then an
# ordinary program that launches an instrumented GEMM (test/regions/plain_app.cu, built here
# with nvcc) snapped at its second launch and the snapshot replayed with --regions. Carry
# .device/ (RT folder with libstrata_runtime.so and strata; libunwind8_*.deb).
#   RT=.device/rt-new bash bench/snap/replay_instruments_h200.sh "$OUT"
set -uo pipefail
OUT="${1:?output folder}"
W=/tmp/replay-instruments
. bench/snap/device_setup.sh
step "replay of the axpy fixture with PC sampling"
timeout 60 "$CLI" replay test/fixtures/snapshot/axpy.snap --repeat 3 --any-driver --pc-sampling -o "$OUT/axpy_pcs.strata"
echo "exit $?"
"$CLI" report "$OUT/axpy_pcs.strata" --limit 1 | grep -E "pc_sampling|gpu:"
"$CLI" report "$OUT/axpy_pcs.strata" --metric pc_samples --limit 12 2>&1 | head -20
step "build plain_app (instrumented GEMM)"
nvcc -std=c++17 -O3 -arch=sm_90 -lineinfo -Iprofiler_runtime/include -Itest/regions test/regions/plain_app.cu -o "$W/plain_app" || exit 1
step "snap its second GEMM launch, replay with --regions"
timeout 60 "$CLI" record -o "$W/app.strata" --snap GemmKernel:2 -- "$W/plain_app" 4; echo "record exit $?"
ls -l "$W"
timeout 60 "$CLI" replay "$W/app.snap" --repeat 3 --regions -o "$OUT/replay_regions.strata"; echo "replay exit $?"
"$CLI" report "$OUT/replay_regions.strata" --limit 1 | grep -E "regions:|gpu:"
"$CLI" report "$OUT/replay_regions.strata" --limit 30 2>&1 | head -40
cp "$W/app.snap" "$OUT/" 2>/dev/null
ls -l "$OUT"
