#!/usr/bin/env bash
# One device call: the bulk-copy (UBLKCP + mbarrier) pipeline and its twin
# (bench/snap/bulk_copy_pipeline.cu) on the H100, for the SASS analysis's mbarrier pairing
# (docs/async-copies.md): build (the cubin, nvdisasm listing), plain timing (median of 100
# launches), PC sampling (serialized) of the run, `strata sass-deps` and `strata analyze` on it;
# fixtures into $OUT/fixtures.tar.gz. Carry .device/rt-B (strata, libstrata_runtime.so from
# branch h-sass) and the libunwind8 .deb.   bash bench/snap/bulk_copy_h100.sh "$OUT"  (~1 minute)
set -uo pipefail
OUT="${1:?output folder}"
W=/tmp/bulkwork
. bench/snap/device_setup.sh
SRC=bench/snap/bulk_copy_pipeline.cu
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "date: $(date -u +%FT%TZ)"
echo "=== build"
nvcc -std=c++17 -O3 -arch=sm_90a -lineinfo -o "$W/bulk" "$SRC" || echo "nvcc failed"
nvcc -std=c++17 -O3 -arch=sm_90a -lineinfo -cubin -o "$W/fx/bulk_copy_pipeline.cubin" "$SRC" || echo "nvcc -cubin failed"
nvdisasm -c -gi "$W/fx/bulk_copy_pipeline.cubin" > "$W/fx/bulk_copy_pipeline.sass"; echo "nvdisasm exit $?"
grep -nE "UBLKCP|UTMALDG|SYNCS|BAR.SYNC|BRA|ARRIVE" "$W/fx/bulk_copy_pipeline.sass" | head -40
echo "=== plain timing (no strata)"
timeout 60 "$W/bulk" 264 128 100
timeout 60 "$W/bulk" 132 256 100
echo "=== PC sampling (serialized) of the run: 264 blocks x 128 tiles, 10 launches each"
timeout 120 "$CLI" record --pc-sampling serialized -o "$W/fx/bulk_run_pcs.strata" -- "$W/bulk" 264 128 10; echo "exit $?"
ls -la "$W/fx"
"$CLI" report --view flat --limit 25 --metric pc_samples "$W/fx/bulk_run_pcs.strata" 2>&1 | sed -n '/excl%/,$p' | head -60
echo "=== strata sass-deps"
"$CLI" sass-deps "$W/fx/bulk_run_pcs.strata"; echo "exit $?"
"$CLI" sass-deps "$W/fx/bulk_run_pcs.strata" --graph | grep -E "UBLKCP|SYNCS|BAR|BRA" | head -30
echo "=== strata analyze"
"$CLI" analyze "$W/fx/bulk_run_pcs.strata" 2>&1 | head -30
du -sh "$W/fx"
(cd "$W/fx" && tar czf "$OUT/fixtures.tar.gz" .)
echo "=== done"
} 2>&1 | tee "$OUT/bulk_copy_h100.txt"
