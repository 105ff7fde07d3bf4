// The region markers' calibration kernel (strata/regions.cuh), built to PTX when the runtime is
// built (CMake, nvcc) and embedded: the runtime loads it once on the device before the first
// region capture and measures what one record costs there (docs/regions.md, part 3).
#include "strata/regions.cuh"

template __global__ void strata::regions::CalibrationKernel<
    strata::regions::Config<1024, strata::regions::kCircular, 1>>(uint32_t);
