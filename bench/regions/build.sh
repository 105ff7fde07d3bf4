#!/bin/bash
# Builds the region-marker overhead benchmark for sm_90 (nvcc; no GPU needed) into
# build-regions/bench/region_overhead; ptxas's registers and shared memory per kernel go to
# build-regions/bench/ptxas.txt.
set -e
cd "$(dirname "$0")/../.."
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
O=${REGIONS_BENCH_OUT:-build-regions/bench}
mkdir -p "$O"
: > "$O/ptxas.txt"
for f in gemm_on gemm_off gemm_relaxed gemm_skip region_overhead; do
  "$NVCC" -std=c++17 -O3 -arch=sm_90 -lineinfo -Xptxas -v ${REGIONS_NVCC_FLAGS:-} -Iprofiler_runtime/include -Ibench/regions -Itest/regions \
    -c "bench/regions/$f.cu" -o "$O/$f.o" 2>> "$O/ptxas.txt"
done
"$NVCC" -arch=sm_90 "$O/gemm_on.o" "$O/gemm_off.o" "$O/gemm_relaxed.o" "$O/gemm_skip.o" "$O/region_overhead.o" -o "$O/region_overhead"
echo "built $O/region_overhead ($(grep -c 'Compiling entry' "$O/ptxas.txt") kernels)"
