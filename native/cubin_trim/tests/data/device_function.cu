// A kernel calling a non-inlined device function (compiled into the kernel's own code section, with
// a local function symbol of its own) and a second kernel. device_function.cubin is built by
// /usr/local/cuda/bin/nvcc -cubin -arch=sm_90 -O3 -lineinfo device_function.cu -o device_function.cubin
// (CUDA 13.0.88, the dev machine; no GPU needed).
__device__ __noinline__ float helper(float x, int n) {
  for (int i = 0; i < n; ++i) x = x * 1.0001f + 0.5f;
  return x;
}
__global__ void uses_helper(float* out, int n) { out[threadIdx.x] = helper(out[threadIdx.x], n); }
__global__ void other_kernel(float* out, int n) { out[threadIdx.x] += n; }
