// The benchmark kernels with region markers recorded.
#define REGIONS_NS on
#include "gemm_kernels.cuh"
