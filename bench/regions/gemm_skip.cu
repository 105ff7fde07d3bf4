// The benchmark kernels with STRATA_REGIONS_WARP_SKIP (experiment: warps without a recording
// thread branch over the marker code).
#define STRATA_REGIONS_WARP_SKIP
#define REGIONS_NS skip
#include "gemm_kernels.cuh"
