#!/bin/bash
# Builds a late-arrive validation pair for the H100 (sm_90a, CUDA 13; no GPU needed): each
# variant with markers (the buffer the overlap analysis reads) and without (the timing truth),
# into ${OVERLAP_BENCH_OUT:-build-overlap}.
#   KERNEL=late_arrive (default: the consumer's register-only `rescale`, ring of STAGES slots)
#   KERNEL=producer_late_arrive (the producer's `stats`, ordered against the arrive; one slot)
set -e
cd "$(dirname "$0")/../.."
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
KERNEL=${KERNEL:-late_arrive}
O=${OVERLAP_BENCH_OUT:-build-overlap}
STAGES=${STAGES:-1}
mkdir -p "$O"
for late in 1 0; do
  v=$([ $late = 1 ] && echo late || echo fixed)
  "$NVCC" -std=c++17 -O3 -arch=sm_90a -lineinfo -diag-suppress 177 -DLATE=$late -DSTAGES=$STAGES -Iprofiler_runtime/include \
    "bench/overlap/$KERNEL.cu" -o "$O/${v}_markers"
  "$NVCC" -std=c++17 -O3 -arch=sm_90a -lineinfo -diag-suppress 177 -DLATE=$late -DSTAGES=$STAGES -DSTRATA_REGIONS_DISABLED \
    -Iprofiler_runtime/include "bench/overlap/$KERNEL.cu" -o "$O/${v}_plain"
done
echo "built $O/{late,fixed}_{markers,plain} ($KERNEL, STAGES=$STAGES)"
