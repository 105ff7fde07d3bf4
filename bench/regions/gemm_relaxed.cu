// The benchmark kernels with markers recorded in relaxed order (STRATA_REGIONS_RELAXED: the
// marker's clock read is no compiler memory barrier).
#define STRATA_REGIONS_RELAXED
#define REGIONS_NS rel
#include "gemm_kernels.cuh"
