// A C++ program on libtorch (no Python, no operator plugin: the dlopen hook never sees torch
// loaded): its operators are named from torch's dispatcher frames (check_operators_from_frames.py
// --cpp). A Linear + ReLU forward loop through ATen's API.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <cstdio>

int main() {
  at::set_num_threads(1);
  at::manual_seed(0);
  at::Tensor w = at::randn({256, 256}), b = at::randn({256}), x = at::randn({64, 256});
  double s = 0;
  for (int i = 0; i < 3000; ++i) s += at::addmm(b, x, w).relu().sum().item<double>();
  std::printf("sum %.3f\n", s);
  return 0;
}
