// The example kernels with region markers recorded.
#define REGIONS_NS on
#include "kernels.cuh"
