#!/bin/bash
# Builds the region-marker benchmarks for sm_90 (nvcc; no GPU needed) into build-regions/bench:
# region_overhead (overhead and replay accuracy) and record_cost_pairs (plain / instrumented
# pairs for the per-kernel record cost); ptxas's registers and shared memory per kernel go to
# build-regions/bench/ptxas.txt.
#   bash bench/regions/build.sh [all|pairs]   (pairs: record_cost_pairs alone, fewer builds)
set -e
cd "$(dirname "$0")/../.."
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
O=${REGIONS_BENCH_OUT:-build-regions/bench}
WHAT=${1:-all}
mkdir -p "$O"
: > "$O/ptxas.txt"
units="gemm_on gemm_off record_cost_pairs"
[ "$WHAT" = pairs ] || units="$units gemm_relaxed gemm_skip region_overhead"
for f in $units; do
  "$NVCC" -std=c++17 -O3 -arch=sm_90 -lineinfo -Xptxas -v ${REGIONS_NVCC_FLAGS:-} -Iprofiler_runtime/include -Ibench/regions -Itest/regions \
    -c "bench/regions/$f.cu" -o "$O/$f.o" 2>> "$O/ptxas.txt"
done
"$NVCC" -arch=sm_90 "$O/gemm_on.o" "$O/gemm_off.o" "$O/record_cost_pairs.o" -o "$O/record_cost_pairs"
[ "$WHAT" = pairs ] || "$NVCC" -arch=sm_90 "$O/gemm_on.o" "$O/gemm_off.o" "$O/gemm_relaxed.o" "$O/gemm_skip.o" "$O/region_overhead.o" -o "$O/region_overhead"
echo "built $O ($WHAT; $(grep -c 'Compiling entry' "$O/ptxas.txt") kernels)"
