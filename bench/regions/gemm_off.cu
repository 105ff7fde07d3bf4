// The same kernels with every marker compiled to nothing.
#define STRATA_REGIONS_DISABLED
#define REGIONS_NS off
#include "gemm_kernels.cuh"
