#!/bin/bash
# Builds the region examples and harness for sm_90 (nvcc; no GPU needed) into build-regions/regions-bin.
set -e
cd "$(dirname "$0")/../.."
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
mkdir -p build-regions/regions-bin
"$NVCC" -std=c++17 -O3 -arch=sm_90 -lineinfo -Iprofiler_runtime/include -Itest/regions \
  test/regions/kernels_on.cu test/regions/kernels_off.cu test/regions/harness.cu \
  -o build-regions/regions-bin/regions_harness
